//! Scripted packet-level tests of the 4.4BSD TCP rules (docs/architecture.md#tests): feed one endpoint segments
//! and timeouts, and assert exactly what it emits.

use super::*;
use crate::segment::{Flags, Segment};
use crate::seq::Seq;
use crate::test_support::{FH, MH};
use crate::time::{MS, SEC};

pub(super) const MSS: u32 = 1000;

/// Passes segments between the two endpoints with no delay until neither has anything to send.
pub(super) fn exchange(now: Time, a: &mut Tcp, b: &mut Tcp) {
    loop {
        let mut moved = false;
        while let Some((s, _)) = a.poll_transmit() {
            b.on_segment(now, &s);
            moved = true;
        }
        while let Some((s, _)) = b.poll_transmit() {
            a.on_segment(now, &s);
            moved = true;
        }
        if !moved {
            break;
        }
    }
}

pub(super) fn drain(t: &mut Tcp) -> Vec<(Segment, TxKind)> {
    std::iter::from_fn(|| t.poll_transmit()).collect()
}

/// A sender and a sink after the three-way handshake, at time 0, and the sender's queued data.
pub(super) fn established(buffer: u32, app_bytes: u64) -> (Tcp, Tcp) {
    established_with(buffer, app_bytes, RecoveryPolicy::RENO)
}

pub(super) fn established_with(buffer: u32, app_bytes: u64, policy: RecoveryPolicy) -> (Tcp, Tcp) {
    established_hosts(buffer, app_bytes, policy, HostProfile::default())
}

/// A sender and a sink, both with `host`'s TCP details, after the handshake.
pub(super) fn established_hosts(
    buffer: u32,
    app_bytes: u64,
    policy: RecoveryPolicy,
    host: HostProfile,
) -> (Tcp, Tcp) {
    let mut scfg = TcpConfig::bulk_sender(MSS, buffer, app_bytes);
    scfg.iss = 1000;
    scfg.policy = policy;
    scfg.host = host;
    let mut rcfg = TcpConfig::sink(MSS, buffer);
    rcfg.iss = 5000;
    rcfg.host = host;
    let mut s = Tcp::connect(scfg, FH, MH, 0);
    let mut r = Tcp::listen(rcfg, MH, FH);
    // SYN -> SYN/ACK -> ACK (plus the first data segment, which carries the ACK)
    let syn = drain(&mut s);
    assert_eq!(syn.len(), 1);
    assert!(syn[0].0.is_syn() && syn[0].0.mss == Some(MSS as u16));
    r.on_segment(0, &syn[0].0);
    let synack = drain(&mut r);
    assert!(synack[0].0.is_syn() && synack[0].0.has_ack());
    s.on_segment(0, &synack[0].0);
    assert!(matches!(s.state(), State::Established | State::FinWait1));
    (s, r)
}

/// An ACK from the sink to the sender.
pub(super) fn ack_to_sender(s: &Tcp, ack: Seq, window: u16) -> Segment {
    Segment {
        src: MH,
        dst: FH,
        seq: s.irs() + 1,
        ack,
        flags: Flags::ACK,
        window,
        len: 0,
        ip_id: 0,
        mss: None,
        eln: false,
        smart: None,
        sack: crate::segment::SackBlocks::default(),
        queue: None,
        wscale: None,
        ts: None,
    }
}

/// A data segment from the sender to the sink.
pub(super) fn data_to_sink(r: &Tcp, offset: u32, len: u32) -> Segment {
    Segment {
        src: FH,
        dst: MH,
        seq: r.irs() + 1 + offset,
        ack: r.iss() + 1,
        flags: Flags::ACK,
        window: 32768,
        len,
        ip_id: 0,
        mss: None,
        eln: false,
        smart: None,
        sack: crate::segment::SackBlocks::default(),
        queue: None,
        wscale: None,
        ts: None,
    }
}

/// Brings a sender into steady congestion avoidance with `segs` segments outstanding, all sent at
/// `now`; returns their sequence numbers.
/// `s` with `host`'s details from now on, its window kept: the congestion controller takes the
/// host's too.
fn set_host(s: &mut Tcp, host: HostProfile) {
    s.cfg.host = host;
    s.recovery_follows_config();
    s.cc.set_host(&s.cfg.policy, &s.cfg.host);
}

pub(super) fn sender_with_window(segs: u32) -> (Tcp, Vec<Seq>) {
    sender_with_window_policy(segs, RecoveryPolicy::RENO)
}

pub(super) fn sender_with_window_policy(segs: u32, policy: RecoveryPolicy) -> (Tcp, Vec<Seq>) {
    let (mut s, _r) = established_with(64 * 1024, 10_000_000, policy);
    let first = drain(&mut s);
    assert_eq!(first.len(), 1, "slow start begins with one segment");
    // Acknowledge segments one by one until cwnd allows `segs` segments.
    let mut next_ack = first[0].0.seq + first[0].0.len;
    let mut t = 10 * MS;
    loop {
        s.on_segment(t, &ack_to_sender(&s, next_ack, 64000));
        let sent = drain(&mut s);
        let outstanding = s.snd_max().since(s.snd_una()) / MSS;
        if outstanding >= segs {
            let seqs = (0..outstanding).map(|i| s.snd_una() + i * MSS).collect();
            let _ = sent;
            return (s, seqs);
        }
        next_ack = s.snd_una() + MSS;
        t += MS;
    }
}

#[test]
fn handshake_negotiates_mss_and_rounds_buffers() {
    let (s, r) = established(8192, 100_000);
    assert_eq!(s.maxseg(), MSS);
    // 8192 rounded up to a multiple of 1000 (tcp_mss)
    assert_eq!(s.buffers(), (9000, 9000));
    assert_eq!(r.buffers(), (9000, 9000));
    assert_eq!(s.cwnd(), MSS);
}

#[test]
fn third_duplicate_ack_triggers_fast_retransmit() {
    let (mut s, seqs) = sender_with_window(8);
    let cwnd_before = s.cwnd();
    let wnd = s.snd_wnd();
    let una = s.snd_una();
    let t = SEC;
    for i in 1..=2 {
        s.on_segment(t, &ack_to_sender(&s, una, wnd as u16));
        assert!(drain(&mut s).is_empty(), "duplicate {i} sends nothing");
        assert_eq!(s.dupacks(), i);
    }
    s.on_segment(t, &ack_to_sender(&s, una, wnd as u16));
    let out = drain(&mut s);
    assert_eq!(out.len(), 1, "exactly the lost segment is resent");
    assert_eq!(out[0].0.seq, seqs[0]);
    assert_eq!(out[0].1, TxKind::FastRetransmit);
    let expected_ssthresh = (cwnd_before.min(wnd) / 2 / MSS).max(2) * MSS;
    assert_eq!(s.ssthresh(), expected_ssthresh);
    assert_eq!(s.cwnd(), expected_ssthresh + 3 * MSS);
    assert_eq!(s.stats().fast_retransmits, 1);
}

#[test]
fn duplicates_inflate_the_window_and_new_ack_deflates_it() {
    let (mut s, _) = sender_with_window(8);
    let wnd = s.snd_wnd() as u16;
    let una = s.snd_una();
    for _ in 0..3 {
        s.on_segment(SEC, &ack_to_sender(&s, una, wnd));
    }
    drain(&mut s);
    let inflated = s.cwnd();
    s.on_segment(SEC, &ack_to_sender(&s, una, wnd));
    assert_eq!(s.cwnd(), inflated + MSS, "4th duplicate adds one segment");
    s.on_segment(SEC, &ack_to_sender(&s, una + MSS, wnd));
    // deflated to ssthresh, then this ACK's own slow-start increment (cwnd == ssthresh)
    assert_eq!(s.cwnd(), s.ssthresh() + MSS);
}

#[test]
fn bsd_keeps_the_window_after_exactly_three_duplicates_and_freebsd_deflates_it() {
    let (mut s, _) = sender_with_window(8);
    let wnd = s.snd_wnd() as u16;
    let una = s.snd_una();
    for _ in 0..3 {
        s.on_segment(SEC, &ack_to_sender(&s, una, wnd));
    }
    let inflated = s.cwnd();
    s.on_segment(SEC, &ack_to_sender(&s, una + MSS, wnd));
    assert!(
        s.cwnd() > inflated,
        "4.4BSD-Lite deflates only after more than tcprexmtthresh duplicates"
    );

    let (mut s, _) = sender_with_window(8);
    set_host(&mut s, HostPreset::Freebsd22.profile()); // t_dupacks >= tcprexmtthresh
    for _ in 0..3 {
        s.on_segment(SEC, &ack_to_sender(&s, una, wnd));
    }
    s.on_segment(SEC, &ack_to_sender(&s, una + MSS, wnd));
    assert!(s.cwnd() <= s.ssthresh() + MSS);
}

#[test]
fn duplicate_with_nothing_outstanding_is_not_counted() {
    let (mut s, _r) = established(64 * 1024, 1000);
    let seg = drain(&mut s);
    assert!(seg[0].0.is_fin(), "all data fits: the FIN rides on it");
    let end = seg[0].0.seq + seg[0].0.len + 1;
    s.on_segment(10 * MS, &ack_to_sender(&s, end, 64000));
    assert!(s.rexmt_deadline().is_none());
    assert_eq!(s.state(), State::FinWait2);
    for _ in 0..3 {
        s.on_segment(11 * MS, &ack_to_sender(&s, end, 64000));
    }
    assert_eq!(s.dupacks(), 0, "no timer running: not a duplicate");
    assert!(drain(&mut s).is_empty());
}

#[test]
fn retransmission_timer_expires_on_a_slow_tick() {
    let mut cfg = TcpConfig::bulk_sender(MSS, 8192, 100_000);
    cfg.timers.slow_phase = 123 * MS;
    let mut s = Tcp::connect(cfg, FH, MH, 0);
    // The SYN is sent at 0 with the initial RTO of 12 ticks; ticks are at 123 ms + k * 500 ms, so the
    // timer expires on the 12th tick: 123 + 11 * 500 ms.
    assert_eq!(s.poll_timeout(), Some(123 * MS + 11 * 500 * MS));
    drain(&mut s);
    let t = s.poll_timeout().unwrap();
    s.on_timeout(t - 1);
    assert!(drain(&mut s).is_empty(), "nothing before the tick");
    s.on_timeout(t);
    let out = drain(&mut s);
    assert_eq!(out.len(), 1);
    assert!(out[0].0.is_syn());
    assert_eq!(out[0].1, TxKind::TimeoutRetransmit);
    assert_eq!(s.stats().timeouts, 1);
}

#[test]
fn consecutive_timeouts_back_off_exponentially() {
    let (mut s, _) = sender_with_window(4);
    let base = s.rtt().rexmtval();
    let mut last = s.poll_timeout().unwrap();
    let mut gaps = vec![];
    for _ in 0..4 {
        s.on_timeout(last);
        let out = drain(&mut s);
        assert_eq!(out.len(), 1, "after a timeout cwnd is one segment");
        assert_eq!(out[0].0.seq, s.snd_una());
        assert_eq!(s.cwnd(), MSS);
        let next = s.poll_timeout().unwrap();
        gaps.push((next - last) / (500 * MS));
        last = next;
    }
    let b = base as u64;
    assert_eq!(gaps, vec![2 * b, 4 * b, 8 * b, 16 * b]);
}

#[test]
fn karn_no_sample_from_a_retransmission_and_backoff_kept() {
    let (mut s, _) = sender_with_window(4);
    let srtt_before = s.rtt().srtt;
    let t = s.poll_timeout().unwrap();
    s.on_timeout(t);
    drain(&mut s);
    assert_eq!(s.rtt().rxtshift, 1);
    // The ACK for everything sent before the timeout arrives much later: no sample may be taken,
    // since every segment up to the old snd_max may have been retransmitted.
    let later = t + 3 * SEC;
    let old_max = s.snd_max();
    s.on_segment(later, &ack_to_sender(&s, old_max, 64000));
    assert_eq!(
        s.rtt().srtt,
        srtt_before,
        "no RTT sample from a retransmitted segment"
    );
    assert_eq!(
        s.rtt().rxtshift,
        1,
        "backoff kept until a timed segment is acknowledged"
    );
    // New data sent after the ACK is timed; its ACK gives a sample and clears the backoff.
    let sent = drain(&mut s);
    assert!(sent
        .iter()
        .any(|(seg, k)| *k == TxKind::New && seg.seq == old_max));
    let end = s.snd_max();
    s.on_segment(later + 10 * MS, &ack_to_sender(&s, end, 64000));
    assert_eq!(s.rtt().rxtshift, 0);
}

#[test]
fn rtt_sample_counts_tick_boundaries_plus_one() {
    let mut cfg = TcpConfig::bulk_sender(MSS, 8192, 100_000);
    cfg.timers.slow_phase = 100 * MS;
    let mut s = Tcp::connect(cfg, FH, MH, 0);
    let syn = drain(&mut s);
    let mut r = Tcp::listen(TcpConfig::sink(MSS, 8192), MH, FH);
    r.on_segment(0, &syn[0].0);
    let synack = drain(&mut r);
    // SYN sent at 0, SYN/ACK back at 700 ms: ticks at 100 and 600 ms were crossed, so t_rtt = 3.
    s.on_segment(700 * MS, &synack[0].0);
    assert_eq!(s.rtt().srtt, 3 << 3);
}

#[test]
fn receiver_delays_the_ack_of_a_single_segment_until_the_fast_tick() {
    let (_s, mut r) = established(8192, 100_000);
    r.on_segment(30 * MS, &data_to_sink(&r, 0, MSS));
    assert!(
        drain(&mut r).is_empty(),
        "one in-order segment: the ACK is delayed"
    );
    assert_eq!(r.delack_deadline(), Some(200 * MS));
    r.on_timeout(200 * MS);
    let out = drain(&mut r);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].0.ack, r.irs() + 1 + MSS);
    assert_eq!(r.stats().delayed_acks, 1);
}

#[test]
fn receiver_acks_every_second_segment_at_once() {
    let (_s, mut r) = established(32768, 100_000);
    r.on_segment(10 * MS, &data_to_sink(&r, 0, MSS));
    assert!(drain(&mut r).is_empty());
    r.on_segment(11 * MS, &data_to_sink(&r, MSS, MSS));
    let out = drain(&mut r);
    assert_eq!(out.len(), 1, "second full segment is ACKed at once");
    assert_eq!(out[0].0.ack, r.irs() + 1 + 2 * MSS);
    assert!(r.delack_deadline().is_none());
}

#[test]
fn out_of_order_segment_gets_an_immediate_duplicate_ack_and_hole_fill_is_acked() {
    // The instant reader of the earlier model: the hole fill's ACK is the only segment and
    // advertises the whole buffer (see `hole_fill_ack_advertises_the_unread_data` for BSD's reader).
    let (_s, mut r) = established_hosts(
        32768,
        100_000,
        RecoveryPolicy::RENO,
        HostPreset::Bsd44Lite.profile(),
    );
    r.on_segment(10 * MS, &data_to_sink(&r, 0, MSS));
    drain(&mut r);
    // segment 2 lost; segment 3 arrives
    r.on_segment(11 * MS, &data_to_sink(&r, 2 * MSS, MSS));
    let out = drain(&mut r);
    assert_eq!(out.len(), 1, "immediate ACK for out-of-order data");
    assert_eq!(
        out[0].0.ack,
        r.irs() + 1 + MSS,
        "it acknowledges only the in-order data"
    );
    r.on_segment(12 * MS, &data_to_sink(&r, 3 * MSS, MSS));
    let out = drain(&mut r);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].0.ack, r.irs() + 1 + MSS, "a duplicate ACK");
    // the retransmission fills the hole: ACKed at once, up to everything held
    r.on_segment(20 * MS, &data_to_sink(&r, MSS, MSS));
    let out = drain(&mut r);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].0.ack, r.irs() + 1 + 4 * MSS);
    assert_eq!(u32::from(out[0].0.window), r.buffers().1);
    assert_eq!(r.stats().bytes_delivered, u64::from(4 * MSS));
    assert_eq!(r.reass_bytes(), 0);
}

#[test]
fn duplicate_data_is_acked_at_once() {
    let (_s, mut r) = established(32768, 100_000);
    r.on_segment(10 * MS, &data_to_sink(&r, 0, MSS));
    r.on_segment(11 * MS, &data_to_sink(&r, MSS, MSS));
    drain(&mut r);
    r.on_segment(12 * MS, &data_to_sink(&r, 0, MSS));
    let out = drain(&mut r);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].0.ack, r.irs() + 1 + 2 * MSS);
    assert_eq!(r.stats().dup_segs_rcvd, 1);
}

#[test]
fn socket_buffer_bounds_what_is_outstanding() {
    // With an 8192-byte buffer (9000 after rounding to 1000-byte segments) and a huge window, at most
    // nine segments are outstanding however large cwnd grows.
    let (mut s, _r) = established(8192, 10_000_000);
    let mut t = 0;
    for _ in 0..200 {
        drain(&mut s);
        assert!(s.snd_max().since(s.snd_una()) <= 9000);
        t += MS;
        let ack = s.snd_una() + MSS;
        s.on_segment(t, &ack_to_sender(&s, ack, 60000));
    }
    assert!(s.cwnd() > 9000);
    assert_eq!(s.stats().max_outstanding, 9000);
}

#[test]
fn receive_window_bounds_what_is_outstanding() {
    let (mut s, _r) = established(64 * 1024, 10_000_000);
    let mut t = 0;
    for _ in 0..100 {
        drain(&mut s);
        assert!(s.snd_max().since(s.snd_una()) <= 4000);
        t += MS;
        let ack = s.snd_una() + MSS;
        s.on_segment(t, &ack_to_sender(&s, ack, 4000));
    }
}

#[test]
fn slow_start_then_congestion_avoidance_increment_of_each_host() {
    for host in HostPreset::BSD {
        let (mut s, _) = sender_with_window(2);
        set_host(&mut s, host.profile());
        assert_eq!(s.cwnd(), 2 * MSS, "one segment per ACK in slow start");
        s.cc.set_ssthresh(MSS);
        let cw = s.cwnd();
        let ack = s.snd_una() + MSS;
        s.on_segment(SEC, &ack_to_sender(&s, ack, 64000));
        let expected = match host {
            // 4.4BSD-Lite tcp_input.c 8.5: maxseg^2/cwnd + maxseg/8
            HostPreset::Bsd44Lite => cw + MSS * MSS / cw + MSS / 8,
            // CSRG 8.7 (BSD/OS 2.1 as Lite2) and FreeBSD 2.2: maxseg^2/cwnd
            HostPreset::Bsdos21 | HostPreset::Freebsd22 => cw + MSS * MSS / cw,
            // today's Linux has controllers of its own (cc/cubic_tests.rs, cubic_tests.rs)
            _ => unreachable!("BSD hosts only"),
        };
        assert_eq!(s.cwnd(), expected, "{}", host.name());
    }
}

#[test]
fn whole_transfer_with_fin_over_a_perfect_wire() {
    let (mut s, mut r) = established(8192, 50_000);
    let mut now = 0;
    for _ in 0..10_000 {
        exchange(now, &mut s, &mut r);
        if s.is_finished() && r.is_finished() {
            break;
        }
        now = [s.poll_timeout(), r.poll_timeout()]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(now + MS);
        s.on_timeout(now);
        r.on_timeout(now);
    }
    assert_eq!(r.stats().bytes_delivered, 50_000);
    assert_eq!(s.state(), State::TimeWait);
    assert_eq!(r.state(), State::Closed);
    assert_eq!(s.stats().rexmt_segs, 0);
}

// --- recovery policies (issue 3) ---

fn with_policy(policy: RecoveryPolicy, segs: u32) -> (Tcp, Vec<Seq>) {
    sender_with_window_policy(segs, policy)
}

fn dup(s: &Tcp, eln: bool) -> Segment {
    let mut a = ack_to_sender(s, s.snd_una(), s.snd_wnd() as u16);
    a.eln = eln;
    a
}

#[test]
fn efr_retransmits_on_the_second_duplicate_with_four_segments_outstanding() {
    let (mut s, seqs) = with_policy(RecoveryPolicy::EFR, 4);
    // snd_cur = min(snd_wnd, cwnd) = 4 segments: threshold 4 - 2 = 2
    assert_eq!(s.cwnd() / MSS, 4);
    s.on_segment(SEC, &dup(&s, false));
    assert!(drain(&mut s).is_empty());
    s.on_segment(SEC, &dup(&s, false));
    let out = drain(&mut s);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].0.seq, seqs[0]);
    assert_eq!(s.stats().fast_retransmits, 1);
    // Reno with the same window waits for a third duplicate
    let (mut r, _) = with_policy(RecoveryPolicy::RENO, 4);
    r.on_segment(SEC, &dup(&r, false));
    r.on_segment(SEC, &dup(&r, false));
    assert!(drain(&mut r).is_empty());
}

#[test]
fn efr_keeps_three_for_large_windows() {
    let (mut s, _) = with_policy(RecoveryPolicy::EFR, 10);
    for _ in 0..2 {
        s.on_segment(SEC, &dup(&s, false));
    }
    assert!(drain(&mut s).is_empty());
    s.on_segment(SEC, &dup(&s, false));
    assert_eq!(drain(&mut s).len(), 1);
}

#[test]
fn eln_retransmits_on_third_marked_duplicate_without_shrinking_the_window() {
    let (mut s, seqs) = with_policy(RecoveryPolicy::ELN, 8);
    let (cwnd, ssthresh) = (s.cwnd(), s.ssthresh());
    for _ in 0..2 {
        s.on_segment(SEC, &dup(&s, true));
        assert!(drain(&mut s).is_empty());
    }
    s.on_segment(SEC, &dup(&s, true));
    let out = drain(&mut s);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].0.seq, seqs[0]);
    assert_eq!(
        (s.cwnd(), s.ssthresh()),
        (cwnd, ssthresh),
        "no congestion response"
    );
    assert_eq!(s.stats().eln_retransmits, 1);
    assert_eq!(s.stats().fast_retransmits, 0);
    // further marked duplicates do not inflate the window
    for _ in 0..4 {
        s.on_segment(SEC, &dup(&s, true));
    }
    assert!(drain(&mut s).is_empty());
    assert_eq!(s.cwnd(), cwnd);
    // the new ACK does not deflate it either: congestion avoidance continues from cwnd
    let ack = s.snd_una() + MSS;
    s.on_segment(SEC, &ack_to_sender(&s, ack, 64000));
    assert!(s.cwnd() >= cwnd);
}

#[test]
fn eln_rxmt_retransmits_on_the_first_marked_duplicate() {
    let (mut s, seqs) = with_policy(RecoveryPolicy::ELN_RXMT, 8);
    let cwnd = s.cwnd();
    s.on_segment(SEC, &dup(&s, true));
    let out = drain(&mut s);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].0.seq, seqs[0]);
    assert_eq!(s.cwnd(), cwnd);
}

#[test]
fn unmarked_duplicates_still_get_reno_under_eln() {
    let (mut s, _) = with_policy(RecoveryPolicy::ELN_RXMT, 8);
    let cwnd = s.cwnd();
    for _ in 0..3 {
        s.on_segment(SEC, &dup(&s, false));
    }
    assert_eq!(drain(&mut s).len(), 1);
    assert_eq!(s.stats().fast_retransmits, 1);
    assert!(s.ssthresh() < cwnd);
}

// --- paper 004: the mobile sender and the base station's marks ---

#[test]
fn eln_mobile_resends_on_the_second_marked_ack_without_any_congestion_response() {
    let (mut s, seqs) = with_policy(RecoveryPolicy::ELN_MOBILE, 8);
    let (cwnd, ssthresh) = (s.cwnd(), s.ssthresh());
    s.on_segment(SEC, &dup(&s, true));
    assert!(drain(&mut s).is_empty(), "one mark: not yet");
    s.on_segment(SEC, &dup(&s, true));
    let out = drain(&mut s);
    assert_eq!(out.len(), 1, "eln_rexmt_thresh = 2");
    assert_eq!(out[0].0.seq, seqs[0]);
    assert_eq!((s.cwnd(), s.ssthresh()), (cwnd, ssthresh));
    assert_eq!(s.stats().eln_retransmits, 1);
    assert_eq!(s.stats().fast_retransmits, 0);
    // marked duplicates never reach Reno's count: no fast retransmit, no inflation
    for _ in 0..6 {
        s.on_segment(SEC, &dup(&s, true));
    }
    assert!(drain(&mut s).is_empty(), "at most once per round trip");
    assert_eq!(s.cwnd(), cwnd);
    assert_eq!(s.stats().fast_retransmits, 0);
}

#[test]
fn eln_mobile_resends_the_same_segment_again_only_after_a_round_trip() {
    let (mut s, seqs) = with_policy(RecoveryPolicy::ELN_MOBILE, 8);
    for _ in 0..2 {
        s.on_segment(SEC, &dup(&s, true));
    }
    assert_eq!(drain(&mut s).len(), 1);
    // the round trip the sender knows: its smoothed RTT in 500 ms ticks, at least one
    let rtt = u64::from(s.srtt_ticks()) * 500 * MS;
    s.on_segment(SEC + rtt - 1, &dup(&s, true));
    assert!(drain(&mut s).is_empty(), "within the round trip");
    s.on_segment(SEC + rtt, &dup(&s, true));
    let out = drain(&mut s);
    assert_eq!(
        out.len(),
        1,
        "the retransmission was lost too: resend after a round trip"
    );
    assert_eq!(out[0].0.seq, seqs[0]);
    assert_eq!(s.stats().eln_retransmits, 2);
}

#[test]
fn eln_mobile_counts_a_marked_new_ack_for_the_next_hole() {
    let (mut s, seqs) = with_policy(RecoveryPolicy::ELN_MOBILE, 8);
    // a new ACK for segment 0 arrives marked: segment 1 is a hole
    let mut a = ack_to_sender(&s, seqs[1], s.snd_wnd() as u16);
    a.eln = true;
    s.on_segment(SEC, &a);
    let out = drain(&mut s);
    assert!(
        out.iter().all(|o| o.0.seq != seqs[1]),
        "one mark: no resend"
    );
    s.on_segment(SEC, &dup(&s, true));
    let out = drain(&mut s);
    assert!(
        out.iter().any(|o| o.0.seq == seqs[1]),
        "the second mark (a duplicate) resends segment 1"
    );
    assert_eq!(s.stats().eln_retransmits, 1);
}

#[test]
fn eln_mobile_leaves_unmarked_duplicates_to_reno() {
    let (mut s, _) = with_policy(RecoveryPolicy::ELN_MOBILE, 8);
    let cwnd = s.cwnd();
    for _ in 0..3 {
        s.on_segment(SEC, &dup(&s, false));
    }
    assert_eq!(drain(&mut s).len(), 1);
    assert_eq!(s.stats().fast_retransmits, 1, "a congestion loss");
    assert!(s.ssthresh() < cwnd);
}

#[test]
fn newreno_partial_ack_retransmits_the_next_hole_and_stays_in_recovery() {
    let (mut s, seqs) = with_policy(RecoveryPolicy::NEWRENO, 8);
    for _ in 0..3 {
        s.on_segment(SEC, &dup(&s, false));
    }
    drain(&mut s);
    let ssthresh = s.ssthresh();
    // segments 0 and 2 were lost: the retransmission of 0 brings an ACK for 0..2 only
    s.on_segment(SEC, &ack_to_sender(&s, seqs[2], 64000));
    let out = drain(&mut s);
    assert_eq!(out.len(), 1, "the next hole is resent at once");
    assert_eq!(out[0].0.seq, seqs[2]);
    assert_eq!(s.cwnd(), ssthresh, "window halved on the first new ACK");
    assert_eq!(s.stats().partial_ack_retransmits, 1);
    // a full ACK ends recovery
    let end = s.snd_max();
    s.on_segment(SEC, &ack_to_sender(&s, end, 64000));
    assert_eq!(s.dupacks(), 0);
    assert!(s.cwnd() <= ssthresh + MSS);

    // Reno on the same partial ACK leaves recovery and sends nothing for the hole
    let (mut r, seqs) = with_policy(RecoveryPolicy::RENO, 8);
    for _ in 0..3 {
        r.on_segment(SEC, &dup(&r, false));
    }
    drain(&mut r);
    r.on_segment(SEC, &ack_to_sender(&r, seqs[2], 64000));
    assert!(drain(&mut r).iter().all(|(seg, _)| seg.seq != seqs[2]));
    assert_eq!(r.dupacks(), 0);
}

#[test]
fn receiver_marks_acks_for_corrupted_segments() {
    let (_s, mut r) = established(32768, 100_000);
    r.cfg.receiver.mark_eln = true;
    r.on_segment(10 * MS, &data_to_sink(&r, 0, MSS));
    drain(&mut r);
    r.on_corrupted(&data_to_sink(&r, MSS, MSS));
    r.on_segment(12 * MS, &data_to_sink(&r, 2 * MSS, MSS));
    let out = drain(&mut r);
    assert_eq!(out.len(), 1);
    assert!(out[0].0.eln, "the duplicate ACK carries ELN");
    assert_eq!(out[0].0.ack, r.irs() + 1 + MSS);
    // once the hole is filled, ACKs are no longer marked
    r.on_segment(20 * MS, &data_to_sink(&r, MSS, MSS));
    let out = drain(&mut r);
    assert!(!out[0].0.eln);
    // a plain receiver never marks
    let (_s, mut plain) = established(32768, 100_000);
    plain.on_corrupted(&data_to_sink(&plain, 0, MSS));
    plain.on_segment(12 * MS, &data_to_sink(&plain, MSS, MSS));
    assert!(!drain(&mut plain)[0].0.eln);
}

// --- selective acknowledgments ---

fn sacked_dup(s: &Tcp, blocks: &[(Seq, Seq)]) -> Segment {
    let mut a = dup(s, false);
    for &(x, y) in blocks {
        a.sack.push(x, y);
    }
    a
}

#[test]
fn receiver_sends_sack_blocks_most_recent_first() {
    let (_s, mut r) = established(32768, 100_000);
    r.cfg.receiver.sack_blocks = true;
    r.on_segment(MS, &data_to_sink(&r, 0, MSS));
    drain(&mut r);
    r.on_segment(2 * MS, &data_to_sink(&r, 2 * MSS, MSS)); // hole at 1
    r.on_segment(3 * MS, &data_to_sink(&r, 5 * MSS, MSS)); // hole at 3-4
    let out = drain(&mut r);
    let last = out.last().expect("an ACK").0;
    let blocks: Vec<(Seq, Seq)> = last.sack.iter().collect();
    let base = r.irs() + 1;
    assert_eq!(
        blocks,
        vec![
            (base + 5 * MSS, base + 6 * MSS),
            (base + 2 * MSS, base + 3 * MSS)
        ]
    );
    // without the option no blocks are sent
    let (_s, mut plain) = established(32768, 100_000);
    plain.on_segment(2 * MS, &data_to_sink(&plain, 2 * MSS, MSS));
    assert!(drain(&mut plain)[0].0.sack.is_empty());
}

#[test]
fn sack_sender_resends_each_reported_hole_in_one_recovery() {
    let (mut s, seqs) = with_policy(RecoveryPolicy::SACK, 8);
    let cwnd = s.cwnd();
    // segments 0 and 2 lost; 1 and 3..7 arrive
    let b = |from: usize, to: usize| (seqs[from], seqs[to - 1] + MSS);
    s.on_segment(SEC, &sacked_dup(&s, &[b(1, 2)]));
    s.on_segment(SEC, &sacked_dup(&s, &[b(3, 4), b(1, 2)]));
    assert!(drain(&mut s).is_empty());
    s.on_segment(SEC, &sacked_dup(&s, &[b(3, 5), b(1, 2)]));
    let out: Vec<Seq> = drain(&mut s).iter().map(|(seg, _)| seg.seq).collect();
    assert_eq!(out.first(), Some(&seqs[0]), "the first hole at once");
    assert_eq!(s.ssthresh(), (cwnd.min(s.snd_wnd()) / 2 / MSS).max(2) * MSS);
    // more duplicates drain the pipe; the second hole (2) goes before any new data
    let mut sent = out;
    for k in 6..8 {
        s.on_segment(SEC, &sacked_dup(&s, &[b(3, k), b(1, 2)]));
        sent.extend(drain(&mut s).iter().map(|(seg, _)| seg.seq));
    }
    for _ in 0..4 {
        s.on_segment(SEC, &sacked_dup(&s, &[b(3, 8), b(1, 2)]));
        sent.extend(drain(&mut s).iter().map(|(seg, _)| seg.seq));
    }
    assert!(
        sent.contains(&seqs[2]),
        "the second hole is resent in the same recovery: {sent:?}"
    );
    let pos2 = sent
        .iter()
        .position(|x| *x == seqs[2])
        .unwrap_or(usize::MAX);
    assert!(
        sent.iter().take(pos2).all(|x| x.lt(seqs[7] + MSS)),
        "holes before new data"
    );
    assert_eq!(s.stats().fast_retransmits, 1);
}

#[test]
fn smart_sender_resends_a_gap_on_the_first_duplicate_once_per_rtt() {
    let (mut s, seqs) = with_policy(RecoveryPolicy::SMART, 8);
    let cwnd = s.cwnd();
    let naming = |s: &Tcp, k: usize| {
        let mut a = dup(s, false);
        a.smart = Some(seqs[k]);
        a
    };
    // segment 0 lost; the ACK caused by segment 1 names it
    s.on_segment(SEC, &naming(&s, 1));
    let out = drain(&mut s);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].0.seq, seqs[0]);
    assert!(s.cwnd() < cwnd, "a loss event still halves the window");
    assert_eq!(s.stats().fast_retransmits, 1);
    // the next duplicate, moments later, does not resend it again
    s.on_segment(SEC + MS, &naming(&s, 2));
    assert!(drain(&mut s).is_empty());
    // a second gap (segment 3) in the same window is resent without another window cut
    let ssthresh = s.ssthresh();
    s.on_segment(SEC + 2 * MS, &naming(&s, 4));
    let out = drain(&mut s);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].0.seq, seqs[3]);
    assert_eq!(s.ssthresh(), ssthresh);
    assert_eq!(s.stats().fast_retransmits, 1);
}

/// The window update carried by a partial ACK opens room for new data during SACK recovery: the
/// pipe rule must see it (it arrives after the ACK has been processed, as in `tcp_input`).
#[test]
fn sack_recovery_sends_new_data_when_a_partial_ack_opens_the_window() {
    let (mut s, seqs) = with_policy(RecoveryPolicy::SACK, 9);
    let n = seqs.len();
    // segment 0 acknowledged; the receiver's window is exactly what is still outstanding
    let wnd = ((n - 1) as u32 * MSS) as u16;
    s.on_segment(SEC, &ack_to_sender(&s, seqs[1], wnd));
    drain(&mut s);
    assert_eq!(s.snd_max(), seqs[1] + u32::from(wnd), "no room left");
    let sacked = |s: &Tcp, upto: usize| {
        let mut a = ack_to_sender(s, seqs[1], wnd);
        a.sack.push(seqs[2], seqs[upto] + MSS);
        a
    };
    // 1 and the last segment lost: duplicates for 2..n-2 start recovery
    for k in 2..n - 1 {
        s.on_segment(SEC + MS, &sacked(&s, k));
    }
    let out = drain(&mut s);
    assert_eq!(out.first().map(|(seg, _)| seg.seq), Some(seqs[1]));
    let snd_max = s.snd_max();
    // the retransmission arrives: a partial ACK up to the lost last segment, same window
    s.on_segment(SEC + 10 * MS, &ack_to_sender(&s, seqs[n - 1], wnd));
    let out = drain(&mut s);
    assert!(
        out.iter()
            .any(|(seg, _)| seg.seq.ge(snd_max) && seg.len > 0),
        "new data goes out at once: {:?}",
        out.iter().map(|(seg, _)| seg.seq).collect::<Vec<_>>()
    );
}

/// A SACK sender with 16 segments of 1000 bytes outstanding from `base` whose first segment was
/// lost twice: two timeouts bring ssthresh to two segments, and the resends then arrive one by one,
/// the receiver ACKing `base + 1000`, ..., `base + acks * 1000`. Past ssthresh, congestion avoidance
/// makes cwnd odd and the go-back-N resends follow it, not the original boundaries: 1000 + 333,
/// 1000 + 300, ... (as BSD's `len = min(sb_cc, win) - off`). Returns the sender, `base`, the time,
/// the window and the resends as (offset from `base`, length).
fn sack_sender_in_go_back_n(acks: u32) -> (Tcp, Seq, Time, u16, Vec<(u32, u32)>) {
    let (mut s, seqs) = with_policy(RecoveryPolicy::SACK, 16);
    let base = seqs[0];
    let mut now = 0;
    for _ in 0..2 {
        now = s.poll_timeout().unwrap();
        s.on_timeout(now);
        let out = drain(&mut s);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].0.seq, base);
    }
    assert_eq!(s.ssthresh(), 2 * MSS);
    let wnd = s.snd_wnd() as u16;
    let mut sent = vec![];
    for k in 1..=acks {
        now += 10 * MS;
        s.on_segment(now, &ack_to_sender(&s, base + k * MSS, wnd));
        sent.extend(
            drain(&mut s)
                .iter()
                .map(|(g, _)| (g.seq.since(base), g.len)),
        );
    }
    (s, base, now, wnd, sent)
}

/// The receiver held an original segment and ACKs up to its end, an original boundary that lies
/// inside a lost resend: the third duplicate must still resend the segment at `snd_una` and restart
/// the retransmission timer (RFC 3517 (4.2), BSD's fast retransmit). Before the fix nothing was sent
/// and the timer was left off, so later duplicates were not counted (no timer running) and the
/// connection deadlocked (gilbert-elliott.toml, e2e-ietf-sack, seeds 7 and 10).
#[test]
fn sack_recovery_resends_at_snd_una_when_the_ack_ends_inside_a_resent_segment() {
    let (mut s, base, mut now, wnd, resent) = sack_sender_in_go_back_n(5);
    let off = |q: Seq| q.since(base);
    assert!(
        resent.contains(&(7633, 1000)),
        "a resend straddles the original boundary 8000: {resent:?}"
    );
    // The receiver held the original segment [7000, 8000): the resends up to 7633 bring its ACK to
    // 8000, inside the resend [7633, 8633), which is lost; [8633, 8908) arrives and is SACKed.
    now += 10 * MS;
    let una = base + 8 * MSS;
    s.on_segment(now, &ack_to_sender(&s, una, wnd));
    drain(&mut s);
    assert_eq!(s.snd_una(), una);
    assert!(s.rexmt_deadline().is_some());
    let dup = |s: &Tcp| {
        let mut a = ack_to_sender(s, una, wnd);
        a.sack.push(base + 8633, base + 8908);
        a
    };
    for i in 1..=2 {
        s.on_segment(now + i * MS, &dup(&s));
        assert!(drain(&mut s).is_empty());
    }
    s.on_segment(now + 3 * MS, &dup(&s));
    let out = drain(&mut s);
    assert_eq!(
        out.first().map(|(g, k)| (off(g.seq), g.len, *k)),
        Some((8000, MSS, TxKind::FastRetransmit)),
        "the segment at snd_una goes at once: {:?}",
        out.iter()
            .map(|(g, _)| (off(g.seq), g.len))
            .collect::<Vec<_>>()
    );
    assert_eq!(s.stats().fast_retransmits, 1);
    assert!(
        s.rexmt_deadline().is_some(),
        "data is outstanding: the retransmission timer runs"
    );
    // Further duplicates are counted (the timer runs) and drain the pipe: output goes on.
    let mut later = vec![];
    for i in 4..=10 {
        s.on_segment(now + i * MS, &dup(&s));
        later.extend(drain(&mut s));
    }
    assert_eq!(s.dupacks(), 10);
    assert!(!later.is_empty(), "the pipe rule sends again");
    assert!(s.rexmt_deadline().is_some());
}

/// A partial ACK that ends inside a logged segment: the go-back-N resend [15051, 16051) crossed the
/// old `snd_max` (16000), so no segment was ever sent from 16000, and new data followed from 16051.
/// When the ACK reaches 16000 with [16051, 17051) SACKed, the pipe rule's next hole is
/// [16000, 16051) (RFC 6675 NextSeg: the lowest byte not SACKed from HighRxt on), not skipped
/// until the retransmission timer expires.
#[test]
fn sack_partial_ack_inside_a_resent_segment_resends_the_rest_of_it() {
    let (mut s, base, mut now, wnd, resent) = sack_sender_in_go_back_n(12);
    let off = |q: Seq| q.since(base);
    assert!(
        resent.contains(&(15051, 1000)) && resent.contains(&(16051, 1000)),
        "{resent:?}"
    );
    // 13000 lost again; the receiver holds [14000, 16000) (originals) and [16051, 17051).
    now += 10 * MS;
    let una = base + 13 * MSS;
    s.on_segment(now, &ack_to_sender(&s, una, wnd));
    drain(&mut s);
    let sacked = |s: &Tcp, ack: Seq, blocks: &[(u32, u32)]| {
        let mut a = ack_to_sender(s, ack, wnd);
        for &(x, y) in blocks {
            a.sack.push(base + x, base + y);
        }
        a
    };
    let blocks = [(16051, 17051), (14000, 16000)];
    for i in 1..=3 {
        s.on_segment(now + i * MS, &sacked(&s, una, &blocks));
    }
    let out = drain(&mut s);
    assert_eq!(
        out.first().map(|(g, _)| (off(g.seq), g.len)),
        Some((13000, MSS)),
        "recovery resends 13000 first"
    );
    // Its resend arrives: a partial ACK to 16000.
    s.on_segment(now + 20 * MS, &sacked(&s, base + 16000, &blocks[..1]));
    let out: Vec<(u32, u32, TxKind)> = drain(&mut s)
        .iter()
        .map(|(g, k)| (off(g.seq), g.len, *k))
        .collect();
    assert_eq!(
        out.first(),
        Some(&(16000, 51, TxKind::FastRetransmit)),
        "the rest of the segment holding snd_una goes first: {out:?}"
    );
    assert!(s.rexmt_deadline().is_some());
}
