//! Scripted packet-level tests of RFC 7323 (`rfc7323.rs`): window scaling and timestamps, each
//! failing when its rule is taken out.

use super::tests::{data_to_sink, drain, established_hosts, MSS};
use super::*;
use crate::segment::{Segment, Timestamps};
use crate::test_support::{FH, MH};
use crate::time::MS;

const BIG: u32 = 256 * 1024;

fn host(window_scaling: bool, timestamps: bool) -> HostProfile {
    HostProfile {
        window_scaling,
        timestamps,
        ..HostProfile::default()
    }
}

/// A sender with `a`'s details connects to a sink with `b`'s, `buffer` bytes each: the two ends
/// after the handshake, and its SYN and SYN-ACK.
fn handshake(a: HostProfile, b: HostProfile, buffer: u32) -> (Tcp, Tcp, Segment, Segment) {
    let mut scfg = TcpConfig::bulk_sender(MSS, buffer, 1_000_000);
    scfg.iss = 1000;
    scfg.host = a;
    let mut rcfg = TcpConfig::sink(MSS, buffer);
    rcfg.iss = 5000;
    rcfg.host = b;
    let mut s = Tcp::connect(scfg, FH, MH, 0);
    let mut r = Tcp::listen(rcfg, MH, FH);
    let syn = drain(&mut s).remove(0).0;
    r.on_segment(0, &syn);
    let synack = drain(&mut r).remove(0).0;
    s.on_segment(0, &synack);
    (s, r, syn, synack)
}

#[test]
fn window_scale_is_used_only_when_both_ends_send_it() {
    let shift = initial_wscale(BIG);
    assert_eq!(shift, 3, "Linux's ilog2(256 KB) - 15");
    let (s, r, syn, synack) = handshake(host(true, false), host(true, false), BIG);
    assert_eq!((syn.wscale, synack.wscale), (Some(shift), Some(shift)));
    for end in [&s, &r] {
        assert!(end.rfc7323().scaling());
        assert_eq!(end.rfc7323().snd_shift(), shift);
        assert_eq!(end.rfc7323().rcv_shift(), shift);
    }
    // one end alone: the listener does not answer the option, the caller's offer lapses
    let (s, r, syn, synack) = handshake(host(true, false), host(false, false), BIG);
    assert_eq!((syn.wscale, synack.wscale), (Some(shift), None));
    let (s2, r2, syn2, synack2) = handshake(host(false, false), host(true, false), BIG);
    assert_eq!((syn2.wscale, synack2.wscale), (None, None));
    for end in [&s, &r, &s2, &r2] {
        assert!(!end.rfc7323().scaling());
        assert_eq!(
            (end.rfc7323().snd_shift(), end.rfc7323().rcv_shift()),
            (0, 0)
        );
    }
    // a shift above 14 is taken as 14 (section 2.3)
    let mut r = Tcp::listen(
        TcpConfig {
            host: host(true, false),
            ..TcpConfig::sink(MSS, BIG)
        },
        MH,
        FH,
    );
    r.on_segment(
        0,
        &Segment {
            wscale: Some(15),
            ..syn
        },
    );
    assert_eq!(r.rfc7323().snd_shift(), MAX_WSCALE);
}

#[test]
fn shift_is_linux_choice_from_the_buffer() {
    // `clamp(ilog2(space) - 15, 0, 14)`: a 16-bit field that carries the buffer
    assert_eq!(initial_wscale(MIN_BUFFER), 0);
    assert_eq!(initial_wscale(65535), 0);
    assert_eq!(initial_wscale(65536), 1);
    assert_eq!(initial_wscale(6 << 20), 7);
    assert_eq!(initial_wscale(u32::MAX), MAX_WSCALE);
}

#[test]
fn syn_windows_are_never_scaled() {
    let (s, r, syn, synack) = handshake(host(true, false), host(true, false), BIG);
    assert_eq!((syn.window, synack.window), (65535, 65535));
    // each end read the other's SYN window as it stands, not shifted
    assert_eq!(r.snd_wnd(), 65535, "the SYN's window");
    assert!(s.snd_wnd() <= 65535, "the SYN-ACK's window");
}

#[test]
fn window_above_65535_is_advertised_and_used() {
    let (mut s, mut r, _, _) = handshake(host(true, false), host(true, false), BIG);
    let shift = r.rfc7323().rcv_shift();
    // the sender's first data gets an ACK with the whole buffer in a scaled field
    let data = drain(&mut s);
    for (seg, _) in &data {
        r.on_segment(MS, seg);
    }
    // the reader empties the buffer: a window update goes out at once
    let ack = drain(&mut r).pop().expect("an ACK").0;
    let (_, rcvbuf) = r.buffers();
    let advertised = u32::from(ack.window) << shift;
    assert!(
        advertised > 65535 && advertised < rcvbuf + (1 << shift),
        "{advertised}"
    );
    s.on_segment(2 * MS, &ack);
    assert!(s.snd_wnd() > 65535, "snd_wnd {}", s.snd_wnd());
    assert_eq!(s.snd_wnd(), u32::from(ack.window) << shift);
    // and the receiver keeps data 70,000 bytes ahead of rcv_nxt: inside its scaled window
    let far = data_to_sink(&r, 70_000, MSS);
    r.on_segment(3 * MS, &far);
    assert_eq!(r.reass_bytes(), MSS, "kept, not trimmed to 65,535");
}

#[test]
fn without_scaling_the_window_stops_at_65535() {
    let (_, mut r, _, _) = handshake(host(false, false), host(false, false), BIG);
    let far = data_to_sink(&r, 70_000, MSS);
    r.on_segment(MS, &far);
    assert_eq!(r.reass_bytes(), 0, "beyond TCP_MAXWIN: trimmed");
}

#[test]
fn timestamps_take_twelve_bytes_of_every_segment_and_of_its_payload() {
    let ts = host(false, true);
    let (mut s, r) = established_hosts(BIG, 1_000_000, RecoveryPolicy::RENO, ts);
    assert!(s.rfc7323().timestamps() && r.rfc7323().timestamps());
    assert_eq!(s.maxseg(), MSS - 12, "mss_cache gives up the option");
    let data = drain(&mut s);
    let seg = data[0].0;
    assert_eq!(seg.len, MSS - 12);
    assert_eq!(seg.option_bytes(), 12);
    assert_eq!(seg.ip_len(), 40 + MSS, "the datagram stays MSS + 40 bytes");
    let ts_now = seg.ts.expect("on every segment");
    assert_eq!(ts_now.ecr, r.ts_clock(0), "the SYN-ACK's TSval echoed");
    assert_eq!(ts_now.val, s.ts_clock(0));
    // only one end asking: no option anywhere after the SYN, and the whole MSS carries data
    let (mut s, mut r, syn, synack) = handshake(ts, host(false, false), BIG);
    assert_eq!(syn.option_bytes(), 4 + 12, "the offer rides the SYN");
    assert_eq!((synack.ts, synack.option_bytes()), (None, 4));
    let data = drain(&mut s);
    assert_eq!((data[0].0.ts, data[0].0.len), (None, MSS));
    r.on_segment(MS, &data[0].0);
    assert!(!r.rfc7323().timestamps());
}

#[test]
fn syn_with_both_options_is_twenty_bytes_and_echoes_nothing() {
    let (_, _, syn, synack) = handshake(host(true, true), host(true, true), BIG);
    assert_eq!(syn.option_bytes(), 4 + 12 + 4);
    assert_eq!(syn.ts.map(|t| t.ecr), Some(0), "no ACK, so TSecr is 0");
    assert_eq!(synack.ts.map(|t| t.ecr), syn.ts.map(|t| t.val));
}

/// The sink's segment from the sender at `offset`, stamped `val`.
fn stamped(r: &Tcp, offset: u32, val: u32) -> Segment {
    Segment {
        ts: Some(Timestamps { val, ecr: 0 }),
        ..data_to_sink(r, offset, MSS - 12)
    }
}

#[test]
fn ts_recent_takes_only_segments_at_the_left_edge() {
    let (_, mut r) = established_hosts(BIG, 0, RecoveryPolicy::RENO, host(false, true));
    let seg = MSS - 12;
    // the sender's clock: its SYN's TSval, then ticks of 1 ms
    let t0 = r.rfc7323().ts_recent();
    // in order, at Last.ACK.sent: taken
    r.on_segment(10 * MS, &stamped(&r, 0, t0 + 10));
    assert_eq!(r.rfc7323().ts_recent(), t0 + 10);
    // the next one arrives while its ACK is delayed: beyond Last.ACK.sent, not taken, so the
    // ACK echoes the earliest segment it acknowledges (section 4.3 case A)
    r.on_segment(11 * MS, &stamped(&r, seg, t0 + 11));
    assert_eq!(r.rfc7323().ts_recent(), t0 + 10);
    let acks = drain(&mut r);
    let echoed: Vec<u32> = acks
        .iter()
        .filter_map(|(a, _)| a.ts.map(|t| t.ecr))
        .collect();
    assert_eq!(echoed, vec![t0 + 10], "one ACK for both, echoing the first");
    // after a hole, later segments do not move it (case B); the one filling the hole does, even
    // a copy older than them (a base station's cached copy, resent with its first TSval): had
    // TS.Recent taken the later segment's TSval, PAWS would discard the fill
    r.on_segment(12 * MS, &stamped(&r, 3 * seg, t0 + 13));
    assert_eq!(r.rfc7323().ts_recent(), t0 + 10);
    drain(&mut r);
    r.on_segment(14 * MS, &stamped(&r, 2 * seg, t0 + 11));
    assert_eq!(r.rfc7323().ts_recent(), t0 + 11);
    assert_eq!(
        r.rcv_nxt(),
        data_to_sink(&r, 4 * seg, 0).seq,
        "the hole is filled"
    );
}

#[test]
fn paws_drops_an_old_timestamp_and_answers_with_an_ack() {
    let (_, mut r) = established_hosts(BIG, 0, RecoveryPolicy::RENO, host(false, true));
    let t0 = r.rfc7323().ts_recent();
    r.on_segment(10 * MS, &stamped(&r, 0, t0 + 100));
    drain(&mut r);
    let rcv_nxt = r.rcv_nxt();
    // one tick behind is forgiven (Linux's TCP_PAWS_WINDOW), two are not
    r.on_segment(11 * MS, &stamped(&r, MSS - 12, t0 + 98));
    assert_eq!(r.rcv_nxt(), rcv_nxt, "discarded");
    assert_eq!(r.rfc7323().paws_drops(), 1);
    let ack = drain(&mut r);
    assert_eq!(ack.len(), 1, "R1: an acknowledgment in reply");
    assert_eq!(ack[0].0.ack, rcv_nxt);
    r.on_segment(12 * MS, &stamped(&r, MSS - 12, t0 + 99));
    assert_eq!(r.rcv_nxt(), rcv_nxt + (MSS - 12));
}

#[test]
fn tsecr_gives_an_rtt_sample_for_a_retransmitted_segment() {
    let ts = host(false, true);
    let (mut s, mut r) = established_hosts(BIG, 1_000_000, RecoveryPolicy::RENO, ts);
    let srtt_after_syn = s.rtt().srtt;
    let first = drain(&mut s);
    assert_eq!(first.len(), 1);
    // the segment is lost; the timer resends it, and Karn's rule forbids timing it
    let at = s.rexmt_deadline().expect("timer armed");
    s.on_timeout(at);
    let resent = drain(&mut s).remove(0).0;
    assert_eq!(resent.seq, first[0].0.seq);
    r.on_segment(at + 100 * MS, &resent);
    r.on_timeout(r.delack_deadline().expect("an ACK is owed"));
    let ack = drain(&mut r).remove(0).0;
    assert_eq!(ack.ts.map(|t| t.ecr), resent.ts.map(|t| t.val));
    // 1.2 s after the resend: the echo measures it
    s.on_segment(at + 1200 * MS, &ack);
    assert_ne!(s.rtt().srtt, srtt_after_syn, "a sample from TSecr");
    assert_eq!(s.rtt().rxtshift, 0);
}

/// Runs `s` and `r` to the end of the transfer over a wire without delay or loss, waking each
/// on its timers.
fn run_to_end(s: &mut Tcp, r: &mut Tcp) {
    let mut now = 0;
    for _ in 0..10_000 {
        super::tests::exchange(now, s, r);
        if s.is_finished() && r.is_finished() {
            break;
        }
        now = [s.poll_timeout(), r.poll_timeout()]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(now + MS)
            .max(now + MS);
        s.on_timeout(now);
        r.on_timeout(now);
    }
    assert!(s.is_finished() && r.is_finished(), "the transfer ends");
}

#[test]
fn a_transfer_with_both_options_completes() {
    let both = host(true, true);
    let (mut s, mut r) = established_hosts(BIG, 4_000_000, RecoveryPolicy::RENO, both);
    run_to_end(&mut s, &mut r);
    assert_eq!(r.stats().bytes_delivered, 4_000_000);
    assert_eq!(r.rfc7323().paws_drops(), 0);
}

/// The sender fills a scaled window beyond 65,535 bytes when its congestion window allows it.
/// (Reno's window itself stops at `TCP_MAXWIN` in `cc/`, as 4.4BSD's does without scaling;
/// 4.4BSD's cap with scaling is `TCP_MAXWIN << snd_scale`.)
#[test]
fn sender_fills_a_window_above_65535() {
    let (mut s, mut r, _, _) = handshake(host(true, false), host(true, false), BIG);
    for (seg, _) in drain(&mut s) {
        r.on_segment(MS, &seg);
    }
    for (ack, _) in drain(&mut r) {
        s.on_segment(2 * MS, &ack);
    }
    drain(&mut s);
    s.output_with_cwnd(3 * MS, 1 << 20);
    let in_flight = s.snd_max().since(s.snd_una());
    assert!(in_flight > 65535, "{in_flight} bytes in flight");
    assert!(in_flight <= s.snd_wnd());
}
