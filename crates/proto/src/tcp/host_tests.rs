//! Scripted packet-level tests of the host-profile rules (`host.rs`): the reading process and the
//! ACKs it shapes, the persist timer, header prediction and the ACK that ends fast recovery.

use super::tests::{ack_to_sender, data_to_sink, drain, established_hosts, MSS};
use super::*;
use crate::segment::Segment;
use crate::time::{MS, SEC};

fn host(preset: HostPreset) -> HostProfile {
    preset.profile()
}

/// A sender and a sink of `preset`'s hosts, `buffer` bytes of socket buffer.
fn pair(buffer: u32, h: HostProfile) -> (Tcp, Tcp) {
    established_hosts(buffer, 10_000_000, RecoveryPolicy::RENO, h)
}

/// One round trip over a perfect wire at `now` (advanced by 1 ms, or to the receiver's delayed-ACK
/// tick when it owes one and sent nothing): the sender's queued segments reach the receiver except
/// those whose index in this round is in `lose`; the receiver's segments reach the sender except
/// those whose index is in `lose_acks`. Returns what each sent.
fn round(
    now: &mut Time,
    s: &mut Tcp,
    r: &mut Tcp,
    lose: &[usize],
    lose_acks: &[usize],
) -> (Vec<Segment>, Vec<Segment>) {
    *now += MS;
    let data: Vec<Segment> = drain(s).into_iter().map(|(seg, _)| seg).collect();
    for (i, seg) in data.iter().enumerate() {
        if !lose.contains(&i) {
            r.on_segment(*now, seg);
        }
    }
    let mut acks: Vec<Segment> = drain(r).into_iter().map(|(seg, _)| seg).collect();
    if acks.is_empty() {
        if let Some(t) = r.delack_deadline() {
            *now = (*now).max(t);
            r.on_timeout(*now);
            acks = drain(r).into_iter().map(|(seg, _)| seg).collect();
        }
    }
    for (i, a) in acks.iter().enumerate() {
        if !lose_acks.contains(&i) {
            s.on_segment(*now, a);
        }
    }
    (data, acks)
}

/// Rounds until the sender has a whole buffer (`segs` segments) in flight.
fn fill_window(now: &mut Time, s: &mut Tcp, r: &mut Tcp, segs: u32) {
    for _ in 0..50 {
        if s.snd_max().since(s.snd_una()) >= segs * MSS {
            return;
        }
        round(now, s, r, &[], &[]);
    }
    panic!("the window never filled: cwnd {}", s.cwnd());
}

#[test]
fn hole_fill_ack_advertises_the_unread_data_and_the_read_sends_the_update() {
    let (_s, mut r) = pair(32768, host(HostPreset::Bsdos21));
    let buf = r.buffers().1; // 33000: 4.4BSD rounds the buffer up to whole segments
    r.on_segment(10 * MS, &data_to_sink(&r, 0, MSS));
    assert!(drain(&mut r).is_empty(), "one segment read: no update yet");
    assert_eq!(r.unread_bytes(), 0, "the reader ran at once");
    // segment 1 is lost; 2 and 3 arrive and are ACKed at once with the whole window
    for i in [2, 3] {
        r.on_segment(11 * MS, &data_to_sink(&r, i * MSS, MSS));
        let out = drain(&mut r);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].0.ack, r.irs() + 1 + MSS);
        assert_eq!(u32::from(out[0].0.window), buf);
    }
    // the retransmission fills the hole: tcp_input ACKs before the reader has run, so its window
    // leaves out the 3000 bytes just appended; the read then opens it again
    r.on_segment(20 * MS, &data_to_sink(&r, MSS, MSS));
    let out = drain(&mut r);
    assert_eq!(out.len(), 2, "{out:?}");
    assert_eq!(out[0].0.ack, r.irs() + 1 + 4 * MSS);
    assert_eq!(u32::from(out[0].0.window), buf - 3 * MSS);
    assert_eq!(out[1].0.ack, out[0].0.ack, "a pure window update");
    assert_eq!(u32::from(out[1].0.window), buf);
    assert_eq!(r.stats().window_updates, 1);
    assert_eq!(r.stats().bytes_read, u64::from(4 * MSS));
}

#[test]
fn a_late_reader_sends_the_window_update_when_it_runs() {
    let mut h = host(HostPreset::Bsdos21);
    h.read_delay = 5 * MS;
    let (_s, mut r) = pair(32768, h);
    let buf = r.buffers().1;
    r.on_segment(10 * MS, &data_to_sink(&r, MSS, MSS)); // out of order
    drain(&mut r);
    r.on_segment(20 * MS, &data_to_sink(&r, 0, MSS)); // fills the hole
    let out = drain(&mut r);
    assert_eq!(out.len(), 1, "only tcp_input's ACK so far");
    assert_eq!(u32::from(out[0].0.window), buf - 2 * MSS);
    assert_eq!(r.unread_bytes(), u64::from(2 * MSS));
    assert_eq!(
        r.poll_timeout(),
        Some(25 * MS),
        "the reader runs 5 ms later"
    );
    r.on_timeout(25 * MS);
    let out = drain(&mut r);
    assert_eq!(out.len(), 1);
    assert_eq!(u32::from(out[0].0.window), buf);
    assert_eq!(r.unread_bytes(), 0);
}

#[test]
fn reads_of_a_small_size_open_the_window_in_steps() {
    let mut h = host(HostPreset::Bsdos21);
    h.read_size = 2 * MSS;
    let (_s, mut r) = pair(32768, h);
    for i in 1..7 {
        r.on_segment(10 * MS, &data_to_sink(&r, i * MSS, MSS));
    }
    drain(&mut r);
    r.on_segment(20 * MS, &data_to_sink(&r, 0, MSS)); // 7000 bytes in order at once
    let out = drain(&mut r);
    let windows: Vec<u16> = out.iter().map(|(s, _)| s.window).collect();
    // the ACK, then one update per 2000-byte read (each read opens the window by two segments);
    // the last 1000-byte read opens it by less than two segments and sends nothing
    assert_eq!(windows, vec![26000, 28000, 30000, 32000]);
    assert_eq!(r.stats().reads, 4);
}

#[test]
fn zero_window_persist_probes_back_off_and_the_transfer_resumes() {
    let (mut s, _r) = pair(8192, host(HostPreset::Bsdos21));
    let first = drain(&mut s);
    assert_eq!(first.len(), 1);
    // everything is acknowledged, but the window is closed
    let end = first[0].0.seq + first[0].0.len;
    let mut now = 300 * MS;
    s.on_segment(now, &ack_to_sender(&s, end, 0));
    assert!(drain(&mut s).is_empty());
    assert!(s.rexmt_deadline().is_none());
    let mut at = s.persist_deadline().expect("the persist timer runs");
    assert!(
        at - now <= 5 * SEC && at - now > 4 * SEC,
        "TCPTV_PERSMIN, on a tick"
    );
    // with srtt 1 tick and rttvar 0.5: (srtt + 2 rttvar) * backoff, within 5 s .. 60 s
    let mut intervals = vec![];
    for _ in 0..8 {
        now = at;
        s.on_timeout(now);
        let probe = drain(&mut s);
        assert_eq!(probe.len(), 1);
        assert_eq!(probe[0].1, TxKind::PersistProbe);
        assert_eq!(
            (probe[0].0.seq, probe[0].0.len),
            (s.snd_una(), 1),
            "one byte"
        );
        // the receiver's window is still closed: it ACKs the old sequence number
        s.on_segment(now + MS, &ack_to_sender(&s, s.snd_una(), 0));
        assert!(drain(&mut s).is_empty());
        let next = s.persist_deadline().expect("still persisting");
        intervals.push((next - now) / (SEC / 2));
        at = next;
    }
    assert_eq!(intervals, vec![10, 10, 16, 32, 64, 120, 120, 120]);
    assert_eq!(s.stats().persist_timeouts, 8);
    // the window opens: full segments from snd_una, the retransmission timer replaces persist
    s.on_segment(at - SEC, &ack_to_sender(&s, s.snd_una(), 9000));
    let out = drain(&mut s);
    assert!(!out.is_empty());
    assert_eq!((out[0].0.seq, out[0].0.len), (s.snd_una(), MSS));
    assert!(s.persist_deadline().is_none());
    assert!(s.rexmt_deadline().is_some());
}

#[test]
fn without_a_persist_timer_a_closed_window_stays_closed() {
    let mut h = host(HostPreset::Bsdos21);
    h.persist = false;
    let (mut s, _r) = pair(8192, h);
    let first = drain(&mut s);
    let end = first[0].0.seq + first[0].0.len;
    s.on_segment(300 * MS, &ack_to_sender(&s, end, 0));
    assert!(drain(&mut s).is_empty());
    assert_eq!(s.poll_timeout(), None, "nothing will ever wake the sender");
}

/// 8 KB buffers (9000 bytes), a full window in flight, its first segment lost: eight duplicate ACKs
/// and a fast retransmit. Returns the pair, the time, and the receiver's answer to the retransmission.
fn recovery_after_one_loss(h: HostProfile, lose_acks: &[usize]) -> (Tcp, Tcp, Time, Vec<Segment>) {
    let (mut s, mut r) = pair(8192, h);
    let mut now = 0;
    fill_window(&mut now, &mut s, &mut r, 9);
    let (data, dups) = round(&mut now, &mut s, &mut r, &[0], &[]);
    assert_eq!(data.len(), 9, "the whole window in one burst");
    assert_eq!(
        dups.len(),
        8,
        "one duplicate ACK per segment above the hole"
    );
    assert_eq!(s.stats().fast_retransmits, 1);
    assert_eq!(s.dupacks(), 8);
    let (rexmt, answer) = round(&mut now, &mut s, &mut r, &[], lose_acks);
    assert_eq!(rexmt.len(), 1, "only the lost segment: the window is full");
    (s, r, now, answer)
}

#[test]
fn the_ack_that_ends_fast_recovery_takes_the_slow_path() {
    let (s, r, _, answer) = recovery_after_one_loss(host(HostPreset::Bsdos21), &[]);
    // the hole fill delivers the whole buffer: tcp_input's ACK advertises a zero window, which
    // header prediction never takes; the reader's update follows
    assert_eq!(answer[0].ack, r.rcv_nxt());
    assert_eq!(answer[0].window, 0);
    assert!(answer[1].window > 0);
    assert_eq!(s.stats().predicted_acks_in_recovery, 0);
    assert_eq!(s.dupacks(), 0, "the slow path reset t_dupacks");
    assert!(s.cwnd() <= s.ssthresh() + MSS, "and deflated the window");
}

#[test]
fn fast_recovery_works_again_after_ordinary_acks_took_the_fast_path() {
    let (mut s, mut r, mut now, _) = recovery_after_one_loss(host(HostPreset::Bsdos21), &[]);
    // congestion avoidance until cwnd covers the window again: those ACKs are predicted
    for _ in 0..60 {
        round(&mut now, &mut s, &mut r, &[], &[]);
    }
    assert!(
        s.stats().predicted_acks > 0,
        "ordinary ACKs took the fast path"
    );
    let (data, dups) = round(&mut now, &mut s, &mut r, &[0], &[]);
    assert!(
        data.len() >= 4 && dups.len() >= 3,
        "{} segments",
        data.len()
    );
    assert_eq!(
        s.stats().fast_retransmits,
        2,
        "the second loss is fast-retransmitted too"
    );
}

#[test]
fn with_an_instant_reader_header_prediction_would_end_recovery_on_the_fast_path() {
    // The trap of modelling header prediction without the reader: the recovery-ending ACK carries
    // the unchanged window, cwnd (inflated) exceeds it, and the fast path leaves t_dupacks at 8.
    let mut h = host(HostPreset::Bsd44Lite);
    h.header_prediction = HeaderPrediction::Bsd;
    let (s, _, _, answer) = recovery_after_one_loss(h, &[]);
    assert_eq!(u32::from(answer[0].window), 9000);
    assert_eq!(s.stats().predicted_acks_in_recovery, 1);
    assert_eq!(
        s.dupacks(),
        8,
        "t_dupacks survives: later losses no longer trigger fast retransmit"
    );
    // FreeBSD 2.2's guard (t_dupacks < tcprexmtthresh) sends that ACK down the slow path
    h.header_prediction = HeaderPrediction::FreeBsd;
    let (s, _, _, _) = recovery_after_one_loss(h, &[]);
    assert_eq!(s.stats().predicted_acks_in_recovery, 0);
    assert_eq!(s.dupacks(), 0);
}

#[test]
fn header_prediction_takes_an_ordinary_in_window_ack() {
    let (mut s, _r) = pair(8192, host(HostPreset::Bsdos21));
    let mut now = 10 * MS;
    // slow start until cwnd reaches the 9000-byte window
    while s.cwnd() < 9000 {
        drain(&mut s);
        let ack = s.snd_una() + MSS;
        s.on_segment(now, &ack_to_sender(&s, ack, 9000));
        now += MS;
    }
    drain(&mut s);
    let before = (s.stats().predicted_acks, s.cwnd(), s.snd_una());
    let ack = s.snd_una() + MSS;
    s.on_segment(now, &ack_to_sender(&s, ack, 9000));
    assert_eq!(s.stats().predicted_acks, before.0 + 1);
    assert_eq!(s.cwnd(), before.1, "the fast path does not open cwnd");
    assert_eq!(s.snd_una(), before.2 + MSS);
    assert!(!drain(&mut s).is_empty(), "and sends what the ACK allows");
    // a changed window takes the slow path
    let ack = s.snd_una() + MSS;
    s.on_segment(now, &ack_to_sender(&s, ack, 8000));
    assert_eq!(s.stats().predicted_acks, before.0 + 1);
}

#[test]
fn header_prediction_takes_in_order_data_at_the_receiver() {
    let (_s, mut r) = pair(32768, host(HostPreset::Bsdos21));
    // the first segment completes the handshake on the slow path
    r.on_segment(10 * MS, &data_to_sink(&r, 0, MSS));
    assert_eq!(r.stats().predicted_data, 0);
    r.on_segment(11 * MS, &data_to_sink(&r, MSS, MSS));
    r.on_segment(12 * MS, &data_to_sink(&r, 2 * MSS, MSS));
    assert_eq!(r.stats().predicted_data, 2);
    let out = drain(&mut r);
    assert_eq!(
        out.len(),
        1,
        "the read's window update: every second segment"
    );
    assert_eq!(out[0].0.ack, r.irs() + 1 + 2 * MSS);
    // out-of-order data is never predicted
    r.on_segment(13 * MS, &data_to_sink(&r, 4 * MSS, MSS));
    assert_eq!(r.stats().predicted_data, 2);
}

#[test]
fn a_lost_window_update_is_recovered_by_the_persist_probe() {
    // The reader's window update after the zero-window ACK is lost: only the persist timer can
    // reopen the transfer. Its probe lands in the now open window and is ACKed with it.
    let (mut s, mut r, mut now, answer) = recovery_after_one_loss(host(HostPreset::Bsdos21), &[1]);
    assert_eq!(answer[0].window, 0);
    assert_eq!(answer.len(), 2, "the update was sent, and lost");
    assert!(
        drain(&mut s).is_empty(),
        "the sender sits on a closed window"
    );
    let at = s.persist_deadline().expect("persisting");
    assert!(at - now > 4 * SEC);
    now = at;
    s.on_timeout(now);
    let (probe, acks) = round(&mut now, &mut s, &mut r, &[], &[]);
    assert_eq!((probe.len(), probe[0].len), (1, 1));
    assert_eq!(acks.len(), 1);
    assert_eq!(acks[0].ack, probe[0].seq + 1, "the probe byte was accepted");
    assert!(acks[0].window > 0);
    let (data, _) = round(&mut now, &mut s, &mut r, &[], &[]);
    assert!(data.iter().any(|d| d.len == MSS), "the transfer resumed");
    assert_eq!(s.stats().persist_timeouts, 1);
    assert_eq!(r.stats().zero_window_acks, 1);
}

#[test]
fn ack_push_rule_acks_a_segment_with_psh_at_once() {
    let mut h = host(HostPreset::Bsdos21);
    h.delayed_ack = DelayedAck::AckPush;
    let (_s, mut r) = pair(32768, h);
    let mut seg = data_to_sink(&r, 0, MSS);
    seg.flags |= crate::segment::Flags::PSH;
    r.on_segment(10 * MS, &seg);
    let out = drain(&mut r);
    assert_eq!(out.len(), 1, "TF_ACKNOW, not TF_DELACK");
    let (_s, mut r) = pair(32768, host(HostPreset::Bsdos21));
    let mut seg = data_to_sink(&r, 0, MSS);
    seg.flags |= crate::segment::Flags::PSH;
    r.on_segment(10 * MS, &seg);
    assert!(drain(&mut r).is_empty(), "BSD delays it");
}

#[test]
fn the_sender_sets_psh_on_the_segment_that_empties_its_buffer() {
    let (mut s, _r) = pair(32768, host(HostPreset::Bsdos21));
    let out = drain(&mut s);
    assert!(!out[0].0.flags.contains(crate::segment::Flags::PSH));
    let (mut s, _r) =
        established_hosts(32768, 500, RecoveryPolicy::RENO, host(HostPreset::Bsdos21));
    let out = drain(&mut s);
    assert!(out[0].0.flags.contains(crate::segment::Flags::PSH));
}

/// SACK recovery: segments 0 and 2 of the window lost, three SACKed duplicates start recovery
/// (0 resent), then its retransmission arrives and the partial ACK for 2 closes the window.
fn sack_partial_ack_closing_the_window() -> (Tcp, Vec<crate::seq::Seq>, Time) {
    let (mut s, seqs) = super::tests::sender_with_window_policy(8, RecoveryPolicy::SACK);
    let n = seqs.len();
    let wnd = s.snd_wnd() as u16;
    let sacked = |s: &Tcp, ack: crate::seq::Seq, window: u16, blocks: &[(usize, usize)]| {
        let mut a = ack_to_sender(s, ack, window);
        for &(from, to) in blocks {
            a.sack.push(seqs[from], seqs[to - 1] + MSS);
        }
        a
    };
    // 1, then 3 and 4 arrive
    let dups: [&[(usize, usize)]; 3] = [&[(1, 2)], &[(3, 4), (1, 2)], &[(3, 5), (1, 2)]];
    for blocks in dups {
        s.on_segment(SEC, &sacked(&s, seqs[0], wnd, blocks));
    }
    let out = drain(&mut s);
    assert_eq!(out.first().map(|(seg, _)| seg.seq), Some(seqs[0]));
    let now = SEC + 10 * MS;
    s.on_segment(now, &sacked(&s, seqs[2], 0, &[(3, n)]));
    (s, seqs, now)
}

#[test]
fn sack_recovery_into_a_closed_window_enters_persist_and_probes() {
    // The partial ACK closes the window; the receiver's update when its reader runs is lost. BSD
    // stops the retransmission timer and pulls snd_nxt back (Lite2 tcp_output.c lines 139-155),
    // whatever selective recovery would send, so the persist timer takes over.
    let (mut s, seqs, now) = sack_partial_ack_closing_the_window();
    let n = seqs.len();
    assert!(
        drain(&mut s).iter().all(|(seg, _)| seg.len == 0),
        "nothing into a closed window"
    );
    assert_eq!(s.rexmt_deadline(), None);
    assert_eq!(s.snd_nxt(), s.snd_una());
    let at = s.persist_deadline().expect("persisting");
    assert!(at - now > 4 * SEC);
    s.on_timeout(at);
    let probe = drain(&mut s);
    assert_eq!(probe.len(), 1);
    assert_eq!(probe[0].1, TxKind::PersistProbe);
    assert_eq!((probe[0].0.seq, probe[0].0.len), (seqs[2], 1));
    assert_eq!((s.stats().timeouts, s.rexmt_deadline()), (0, None));
    // the receiver's window has opened: it takes the byte, and the rest goes out at once
    let mut reply = ack_to_sender(&s, seqs[2] + 1, 64000);
    reply.sack.push(seqs[3], seqs[n - 1] + MSS);
    s.on_segment(at + MS, &reply);
    let out = drain(&mut s);
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!((out[0].0.seq, out[0].0.len), (seqs[2] + 1, MSS));
    assert!(s.persist_deadline().is_none());
    assert!(s.rexmt_deadline().is_some());
}

#[test]
fn header_prediction_leaves_a_newreno_partial_ack_to_the_slow_path() {
    // reader=instant header-prediction=bsd: the hole fill's ACK carries the unchanged window and
    // cwnd, inflated by seven duplicates, exceeds it
    let mut h = host(HostPreset::Bsd44Lite);
    h.header_prediction = HeaderPrediction::Bsd;
    let (mut s, mut r) = established_hosts(8192, 10_000_000, RecoveryPolicy::NEWRENO, h);
    let mut now = 0;
    fill_window(&mut now, &mut s, &mut r, 9);
    let (data, dups) = round(&mut now, &mut s, &mut r, &[0, 2], &[]);
    assert_eq!((data.len(), dups.len()), (9, 7));
    assert_eq!(s.stats().fast_retransmits, 1);
    assert!(s.cwnd() > s.snd_wnd());
    // the retransmission of 0 arrives: a partial ACK up to the second hole
    let (rexmt, answer) = round(&mut now, &mut s, &mut r, &[], &[]);
    assert_eq!(rexmt.len(), 1);
    assert_eq!(
        (answer[0].ack, u32::from(answer[0].window)),
        (data[2].seq, 9000)
    );
    assert_eq!(s.stats().predicted_acks_in_recovery, 0);
    assert_eq!(s.stats().partial_ack_retransmits, 1);
    let out = drain(&mut s);
    assert_eq!(
        out.first().map(|(seg, kind)| (seg.seq, *kind)),
        Some((data[2].seq, TxKind::FastRetransmit)),
        "the second hole is resent at once"
    );
    assert!(s.dupacks() >= 3, "still in fast recovery");
}

#[test]
fn a_fin_queued_ahead_of_a_hole_is_taken_when_the_hole_fills() {
    // data 0-1, a FIN with no data at 3000 (segment 2 missing), then segment 2: the FIN is in
    // order at once, on the fast path's host as without header prediction
    for preset in [HostPreset::Bsd44Lite, HostPreset::Bsdos21] {
        let (_s, mut r) = pair(32768, host(preset));
        r.on_segment(10 * MS, &data_to_sink(&r, 0, MSS));
        r.on_segment(11 * MS, &data_to_sink(&r, MSS, MSS));
        let mut fin = data_to_sink(&r, 3 * MSS, 0);
        fin.flags |= crate::segment::Flags::FIN;
        r.on_segment(12 * MS, &fin);
        assert_eq!(r.state(), State::Established);
        drain(&mut r);
        r.on_segment(13 * MS, &data_to_sink(&r, 2 * MSS, MSS));
        let out = drain(&mut r);
        let fin_seq = r.irs() + 1 + 3 * MSS;
        assert_eq!(r.rcv_nxt(), fin_seq + 1, "{}", preset.name());
        assert_eq!(r.state(), State::LastAck, "{}", preset.name());
        assert!(out.iter().any(
            |(seg, _)| seg.ack == fin_seq + 1 && seg.flags.contains(crate::segment::Flags::FIN)
        ));
        assert_eq!(
            r.stats().predicted_data,
            u64::from(preset == HostPreset::Bsdos21)
        );
    }
}

#[test]
fn the_segment_after_a_refused_probe_is_in_the_send_log() {
    // A SACK sender with a full window's cwnd; all acknowledged, the window closed.
    let (mut s, _r) = established_hosts(
        8192,
        10_000_000,
        RecoveryPolicy::SACK,
        host(HostPreset::Bsdos21),
    );
    let mut now = 10 * MS;
    while s.cwnd() < 9000 {
        drain(&mut s);
        let ack = s.snd_una() + MSS;
        s.on_segment(now, &ack_to_sender(&s, ack, 9000));
        now += MS;
    }
    drain(&mut s);
    s.on_segment(now, &ack_to_sender(&s, s.snd_max(), 0));
    let una = s.snd_una();
    let at = s.persist_deadline().expect("persisting");
    // the receiver repeats its ACK shortly before the probe: not idle, cwnd is kept
    s.on_segment(at - 100 * MS, &ack_to_sender(&s, una, 0));
    s.on_timeout(at);
    let probe = drain(&mut s);
    assert_eq!(probe.len(), 1);
    assert_eq!(probe[0].1, TxKind::PersistProbe);
    // the probe is refused; then the window opens: snd_max is una + 1, so the first segment into
    // it counts as a retransmission
    s.on_segment(at + MS, &ack_to_sender(&s, una, 0));
    s.on_segment(at + 2 * MS, &ack_to_sender(&s, una, 9000));
    let out = drain(&mut s);
    assert_eq!(out.len(), 9);
    assert_eq!(out[0].0.seq, una);
    assert_eq!(s.stats().rexmt_segs, 1);
    // that segment is lost, the next three are SACKed: recovery resends it at once
    for k in 2..=4 {
        let mut dup = ack_to_sender(&s, una, 9000);
        dup.sack.push(una + MSS, una + k * MSS);
        s.on_segment(at + 10 * MS, &dup);
    }
    let out = drain(&mut s);
    assert_eq!(
        out.first().map(|(seg, kind)| (seg.seq, seg.len, *kind)),
        Some((una, MSS, TxKind::FastRetransmit))
    );
}

/// A relay sender (it writes when told) and a sink, after the handshake.
fn relay_pair(buffer: u32) -> (Tcp, Tcp) {
    let mut scfg = TcpConfig::relay(MSS, buffer, buffer);
    scfg.iss = 1000;
    let mut rcfg = TcpConfig::sink(MSS, buffer);
    rcfg.iss = 5000;
    let mut s = Tcp::connect(scfg, crate::test_support::FH, crate::test_support::MH, 0);
    let mut r = Tcp::listen(rcfg, crate::test_support::MH, crate::test_support::FH);
    super::tests::exchange(0, &mut s, &mut r);
    assert_eq!(
        (s.state(), r.state()),
        (State::Established, State::Established)
    );
    (s, r)
}

#[test]
fn an_idle_sender_slow_starts_again_after_one_rto() {
    for (idle, segs) in [(200 * MS, 6), (10 * SEC, 1)] {
        let (mut s, mut r) = relay_pair(32768);
        let mut now = 10 * MS;
        let _ = s.write(now, 30_000);
        for _ in 0..100 {
            if s.snd_una() == s.snd_max() {
                break;
            }
            round(&mut now, &mut s, &mut r, &[], &[]);
        }
        assert_eq!(s.snd_una(), s.snd_max(), "all acknowledged");
        assert!(s.cwnd() >= 6 * MSS, "cwnd {}", s.cwnd());
        assert!(u64::from(s.rtt().rxtcur) * 500 * MS < 10 * SEC);
        // the relay writes again after `idle`: within one RTO the window is kept; after it
        // (t_idle >= t_rxtcur) only one segment goes out (Lite2 tcp_output.c lines 90-97)
        now += idle;
        let _ = s.write(now, 6 * u64::from(MSS));
        assert_eq!(drain(&mut s).len(), segs, "after {idle} ns");
    }
}

/// The papers' BSD hosts have none of today's details and take the path without their tests
/// (`input.rs`, `Tcp::on_segment_as`); each Linux preset has some, and each such detail set
/// alone on a BSD host (a scenario's `--host-detail`) sends it down the path that tests them.
#[test]
fn todays_details_are_the_linux_hosts_and_each_one_counts() {
    for preset in HostPreset::ALL {
        assert_eq!(
            preset.profile().has_todays_details(),
            !preset.is_bsd(),
            "{preset:?}"
        );
    }
    let bsd = host(HostPreset::Bsdos21);
    let linux = host(HostPreset::Linux);
    let one_each: [fn(&mut HostProfile); 13] = [
        |h| h.window_scaling = true,
        |h| h.timestamps = true,
        |h| h.timer_clock = host(HostPreset::Linux).timer_clock,
        |h| h.rtt_estimator = host(HostPreset::Linux).rtt_estimator,
        |h| h.congestion_control = CongestionControl::Cubic,
        |h| h.delayed_ack = DelayedAck::Linux,
        |h| h.sack_recovery = SackRecovery::Rfc6675Prr,
        |h| h.rack_tlp = true,
        |h| h.undo = true,
        |h| h.dsack = true,
        |h| h.frto = true,
        |h| h.reno_sack_emulation = true,
        |h| h.sack_compress = SackCompress::Linux,
    ];
    for (i, set) in one_each.iter().enumerate() {
        let mut h = bsd;
        set(&mut h);
        assert_ne!(h, bsd, "detail {i} is off in bsdos-2.1");
        assert!(h.has_todays_details(), "detail {i}");
    }
    assert!(linux.has_todays_details());
}
