//! Scripted packet-level tests of every snoop rule (paper 002 sections 3.1 and 6; paper 000 III-B).

use super::*;
use crate::agent::{Agent, Departure, Port, Priority};
use crate::segment::Flags;
use crate::test_support::{Pkt, FH, MH};
use crate::time::MS;

const MSS: u32 = 1000;
const ISS: u32 = 100;

use crate::test_support::segment as seg;

/// Data segment number `i` (0-based) from the fixed host.
fn data(i: u32) -> Pkt {
    Pkt(Some(seg(FH, MH, ISS + 1 + i * MSS, 1, Flags::ACK, MSS)))
}

/// An ACK from the mobile host acknowledging the first `n` segments.
fn ack(n: u32) -> Pkt {
    Pkt(Some(seg(MH, FH, 1, ISS + 1 + n * MSS, Flags::ACK, 0)))
}

/// The same with SMART information: it was caused by segment `cause`.
fn smart_ack(n: u32, cause: u32) -> Pkt {
    let mut p = ack(n);
    if let Some(s) = p.0.as_mut() {
        s.smart = Some(Seq(ISS + 1 + cause * MSS));
    }
    p
}

fn syn() -> Pkt {
    Pkt(Some(seg(FH, MH, ISS, 0, Flags::SYN, 0)))
}

fn drain(a: &mut SnoopAgent<Pkt>) -> Vec<Transmit<Pkt>> {
    std::iter::from_fn(|| a.poll_transmit(0)).collect()
}

fn seqno(t: &Transmit<Pkt>) -> u32 {
    t.packet.0.map_or(0, |s| (s.seq.0 - ISS - 1) / MSS)
}

/// Paper 000's agent with paper 002's rule of resending on the first duplicate ACK, which most tests
/// script; `second_duplicate_resends_with_paper000_threshold` covers the threshold of 2.
fn agent(suppress: bool, selective: bool) -> SnoopAgent<Pkt> {
    SnoopAgent::new(config(suppress, selective))
}

fn config(suppress: bool, selective: bool) -> SnoopConfig {
    SnoopConfig {
        dupack_threshold: 1,
        ..SnoopConfig::paper000(suppress, selective)
    }
}

/// A snoop agent that has seen the SYN, forwarded segments 0..n at 1 ms intervals, and an ACK for
/// the first `acked` of them.
fn primed(suppress: bool, selective: bool, n: u32, acked: u32) -> SnoopAgent<Pkt> {
    primed_with(config(suppress, selective), n, acked, MS * u64::from(n + 1))
}

/// [`primed`] with any settings, the ACK arriving at `ack_at`.
fn primed_with(cfg: SnoopConfig, n: u32, acked: u32, ack_at: Time) -> SnoopAgent<Pkt> {
    let mut a = SnoopAgent::new(cfg);
    a.on_packet(0, Port::Wired, syn());
    for i in 0..n {
        a.on_packet(MS * u64::from(i + 1), Port::Wired, data(i));
    }
    a.on_packet(ack_at, Port::Wireless, ack(acked));
    drain(&mut a);
    a
}

#[test]
fn new_in_sequence_data_is_cached_and_forwarded() {
    let mut a = agent(true, false);
    a.on_packet(0, Port::Wired, syn());
    a.on_packet(MS, Port::Wired, data(0));
    a.on_packet(2 * MS, Port::Wired, data(1));
    let out = drain(&mut a);
    assert_eq!(out.len(), 3);
    assert!(out
        .iter()
        .all(|t| t.port == Port::Wireless && t.priority == Priority::Normal));
    assert_eq!(a.cached_segments(), 2);
}

#[test]
fn above_the_high_water_mark_only_older_segments_are_cached() {
    let mut cfg = SnoopConfig::paper000(true, false);
    cfg.high_water = 3;
    let mut a = SnoopAgent::new(cfg);
    a.on_packet(0, Port::Wired, syn());
    for i in [0, 1, 3, 4, 5] {
        a.on_packet(MS, Port::Wired, data(i));
    }
    assert_eq!(
        a.cached_segments(),
        3,
        "segments 4 and 5 are forwarded uncached"
    );
    // segment 2 arrives late (out of order, earlier than the last seen): cached anyway
    a.on_packet(2 * MS, Port::Wired, data(2));
    assert_eq!(a.cached_segments(), 4);
    assert_eq!(drain(&mut a).len(), 7);
}

#[test]
fn new_ack_cleans_the_cache_and_is_forwarded() {
    let mut a = primed(true, false, 5, 0);
    assert_eq!(a.cached_segments(), 5);
    a.on_packet(10 * MS, Port::Wireless, ack(3));
    let out = drain(&mut a);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].port, Port::Wired);
    assert_eq!(a.cached_segments(), 2);
}

#[test]
fn wireless_rtt_comes_from_one_timed_segment_per_window() {
    let mut a = agent(true, false);
    a.on_packet(0, Port::Wired, syn());
    a.on_packet(10 * MS, Port::Wired, data(0)); // timed
    a.on_packet(11 * MS, Port::Wired, data(1));
    a.on_packet(40 * MS, Port::Wireless, ack(1));
    let key = ConnKey {
        fixed: FH,
        mobile: MH,
    };
    assert_eq!(a.conns[&key].srtt, Some(30 * MS));
    // next window: segment 2 timed at 50 ms, acked at 70 ms: srtt += (20 - 30) / 4
    a.on_packet(50 * MS, Port::Wired, data(2));
    a.on_packet(70 * MS, Port::Wireless, ack(3));
    assert_eq!(a.conns[&key].srtt, Some(30 * MS - 10 * MS / 4));
}

#[test]
fn spurious_ack_is_discarded() {
    let mut a = primed(true, false, 5, 3);
    a.on_packet(10 * MS, Port::Wireless, ack(2));
    assert!(drain(&mut a).is_empty());
}

#[test]
fn first_duplicate_resends_at_once_with_priority_and_expected_ones_are_suppressed() {
    // segments 0..6 sent; 0 and 1 acknowledged; 2 lost; 3 and 4 arrive -> two duplicates expected
    // beyond the first, for the 3 packets sent after segment 2 (3, 4, 5) minus the first.
    let mut a = primed(true, false, 6, 2);
    a.on_packet(20 * MS, Port::Wireless, ack(2));
    let out = drain(&mut a);
    assert_eq!(out.len(), 1, "the first duplicate is suppressed");
    assert_eq!(out[0].port, Port::Wireless);
    assert_eq!(out[0].priority, Priority::High);
    assert_eq!(seqno(&out[0]), 2);
    for _ in 0..2 {
        a.on_packet(21 * MS, Port::Wireless, ack(2));
        assert!(
            drain(&mut a).is_empty(),
            "expected duplicates are discarded"
        );
    }
    // one more than expected: the local retransmission evidently did not arrive; the sender
    // hears about it
    a.on_packet(22 * MS, Port::Wireless, ack(2));
    let out = drain(&mut a);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].port, Port::Wired);
    assert_eq!(a.stats().dupacks_suppressed, 3);
    assert_eq!(a.stats().local_retransmissions, 1);
}

#[test]
fn duplicate_for_an_uncached_segment_propagates() {
    let mut cfg = SnoopConfig::paper000(true, false);
    cfg.high_water = 0;
    let mut a = SnoopAgent::new(cfg);
    a.on_packet(0, Port::Wired, syn());
    for i in 0..4 {
        a.on_packet(MS, Port::Wired, data(i));
    }
    a.on_packet(5 * MS, Port::Wireless, ack(1));
    a.on_packet(6 * MS, Port::Wireless, ack(1));
    let out = drain(&mut a);
    assert_eq!(out.iter().filter(|t| t.port == Port::Wired).count(), 2);
    assert_eq!(a.stats().local_retransmissions, 0);
}

#[test]
fn sender_retransmission_of_a_cached_segment_is_forwarded_marked_and_its_duplicates_propagate() {
    let mut a = primed(true, false, 6, 2);
    // local retransmission of 2 on the first duplicate
    a.on_packet(20 * MS, Port::Wireless, ack(2));
    drain(&mut a);
    // the sender's own retransmission of 2 arrives (its timeout): forwarded, count reset
    a.on_packet(30 * MS, Port::Wired, data(2));
    let out = drain(&mut a);
    assert_eq!(out.len(), 1);
    assert_eq!((out[0].port, seqno(&out[0])), (Port::Wireless, 2));
    let key = ConnKey {
        fixed: FH,
        mobile: MH,
    };
    let e = a.conns[&key]
        .cache
        .iter()
        .find(|e| e.seq == Seq(ISS + 1 + 2 * MSS))
        .cloned();
    assert!(e
        .as_ref()
        .is_some_and(|e| e.sender_rexmit && e.local_rexmits == 0));
    // a new ACK resets expectations; duplicates for the sender-retransmitted segment go through
    a.on_packet(31 * MS, Port::Wireless, ack(2));
    a.on_packet(31 * MS, Port::Wireless, ack(2));
    assert!(drain(&mut a).iter().any(|t| t.port == Port::Wired));
}

#[test]
fn sender_retransmission_below_the_last_ack_gets_a_generated_ack() {
    let mut a = primed(true, false, 6, 4);
    a.on_packet(30 * MS, Port::Wired, data(1));
    let out = drain(&mut a);
    assert_eq!(out.len(), 1, "not forwarded to the mobile host");
    assert_eq!(out[0].port, Port::Wired);
    let s = out[0].packet.0.expect("a TCP ACK");
    assert_eq!((s.src, s.dst), (MH, FH));
    assert_eq!(s.ack, Seq(ISS + 1 + 4 * MSS));
    assert_eq!(a.stats().generated_acks, 1);
}

#[test]
fn uncached_out_of_order_segment_is_forwarded_and_cached_as_the_senders() {
    let mut a = agent(true, false);
    a.on_packet(0, Port::Wired, syn());
    for i in [0, 1, 3, 4] {
        a.on_packet(MS, Port::Wired, data(i)); // 2 lost upstream
    }
    a.on_packet(5 * MS, Port::Wired, data(2));
    assert_eq!(drain(&mut a).len(), 6, "the SYN and five segments");
    let key = ConnKey {
        fixed: FH,
        mobile: MH,
    };
    let e = a.conns[&key]
        .cache
        .iter()
        .find(|e| e.seq == Seq(ISS + 1 + 2 * MSS))
        .cloned();
    assert!(e.is_some_and(|e| e.sender_rexmit));
}

#[test]
fn ll_resends_without_priority_and_propagates_every_duplicate() {
    let mut a = primed(false, false, 6, 2);
    a.on_packet(20 * MS, Port::Wireless, ack(2));
    let out = drain(&mut a);
    assert_eq!(out.len(), 2);
    assert!(out
        .iter()
        .any(|t| t.port == Port::Wireless && t.priority == Priority::Normal));
    assert!(out.iter().any(|t| t.port == Port::Wired));
    a.on_packet(21 * MS, Port::Wireless, ack(2));
    let out = drain(&mut a);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].port, Port::Wired);
    assert_eq!(a.stats().dupacks_suppressed, 0);
}

#[test]
fn partial_ack_after_a_local_retransmission_resends_the_next_hole() {
    // 2 and 4 lost; 3 and 5 arrive: two duplicates for 2
    let mut a = primed(true, false, 6, 2);
    a.on_packet(20 * MS, Port::Wireless, ack(2));
    a.on_packet(21 * MS, Port::Wireless, ack(2));
    drain(&mut a);
    // the retransmission of 2 arrives: the MH acknowledges up to 4, which is missing too
    a.on_packet(25 * MS, Port::Wireless, ack(4));
    let out = drain(&mut a);
    let resent: Vec<u32> = out
        .iter()
        .filter(|t| t.port == Port::Wireless)
        .map(seqno)
        .collect();
    assert_eq!(resent, vec![4]);
    assert!(
        out.iter().any(|t| t.port == Port::Wired),
        "the new ACK itself goes on"
    );
}

#[test]
fn paper002_snoop_resends_the_next_hole_on_its_duplicate_not_on_the_partial_ack() {
    // as above, with paper 002's snoop (section 3.1.2: a new ACK only cleans and is forwarded)
    let mut a = primed_with(SnoopConfig::paper002(), 6, 2, 7 * MS);
    a.on_packet(20 * MS, Port::Wireless, ack(2));
    assert_eq!(
        wireless_seqnos(&drain(&mut a)),
        vec![2],
        "the first duplicate resends 2"
    );
    a.on_packet(25 * MS, Port::Wireless, ack(4));
    let out = drain(&mut a);
    assert!(
        wireless_seqnos(&out).is_empty(),
        "no resend on the partial ACK"
    );
    assert!(
        out.iter().any(|t| t.port == Port::Wired),
        "the new ACK goes on"
    );
    // segment 5 reached the mobile host: its duplicate ACK for 4 resends 4
    a.on_packet(26 * MS, Port::Wireless, ack(4));
    assert_eq!(wireless_seqnos(&drain(&mut a)), vec![4]);
}

fn wireless_seqnos(out: &[Transmit<Pkt>]) -> Vec<u32> {
    out.iter()
        .filter(|t| t.port == Port::Wireless)
        .map(seqno)
        .collect()
}

/// The same ACK with another window: what a BSD receiver sends when its application reads after the
/// ACK for a hole fill.
fn window_update(n: u32, window: u16) -> Pkt {
    let mut p = ack(n);
    if let Some(s) = p.0.as_mut() {
        s.window = window;
    }
    p
}

#[test]
fn a_window_update_passes_and_leaves_local_recovery_alone() {
    // 2 and 4 lost; 3, 5 arrive; the retransmission of 2 fills the hole and the partial ACK for 4
    // carries the window less the unread data; then the reader's window update follows
    let mut a = primed(true, false, 6, 2);
    a.on_packet(20 * MS, Port::Wireless, ack(2));
    a.on_packet(21 * MS, Port::Wireless, ack(2));
    drain(&mut a);
    a.on_packet(25 * MS, Port::Wireless, window_update(4, 30000));
    let out = drain(&mut a);
    assert_eq!(
        out.iter().filter(|t| t.port == Port::Wireless).count(),
        1,
        "4 resent"
    );
    // the window opens by 2768 bytes, more than two 1000-byte segments: the reader's update
    a.on_packet(25 * MS, Port::Wireless, window_update(4, 32768));
    let out = drain(&mut a);
    assert_eq!(out.len(), 1, "the update is forwarded, nothing resent");
    assert_eq!(out[0].port, Port::Wired);
    assert_eq!(out[0].packet.0.map(|s| s.window), Some(32768));
    assert_eq!(a.stats().dupacks_suppressed, 2, "those at 20 and 21 ms");
    // it was not counted: the two duplicates expected for 4 (segment 5 and the resent 2 were sent
    // after it) are still to come and are suppressed; the next one goes to the sender
    a.on_packet(26 * MS, Port::Wireless, window_update(4, 32768));
    a.on_packet(27 * MS, Port::Wireless, window_update(4, 32768));
    assert!(drain(&mut a).is_empty(), "the expected duplicates");
    a.on_packet(28 * MS, Port::Wireless, window_update(4, 32768));
    let out = drain(&mut a);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].port, Port::Wired);
    assert_eq!(a.stats().local_retransmissions, 2);
    // the update became the template: an ACK generated for a sender retransmission carries it
    a.on_packet(30 * MS, Port::Wired, data(1));
    let out = drain(&mut a);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].packet.0.map(|s| s.window), Some(32768));
}

#[test]
fn a_duplicate_with_a_larger_window_counts_toward_the_threshold() {
    // Paper 000's threshold of 2. The receiver's reader opened the window by less than two
    // segments after the last ACK (no update sent), so the next duplicate carries a larger window.
    let mut a = SnoopAgent::new(SnoopConfig::paper000(true, false));
    a.on_packet(0, Port::Wired, syn());
    for i in 0..6 {
        a.on_packet(MS * u64::from(i + 1), Port::Wired, data(i));
    }
    a.on_packet(10 * MS, Port::Wireless, window_update(2, 30000));
    drain(&mut a);
    // 2 lost; 3 arrives: the first duplicate, same window, passes
    a.on_packet(11 * MS, Port::Wireless, window_update(2, 30000));
    let out = drain(&mut a);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].port, Port::Wired);
    // 4 arrives after a read: the second duplicate, with a larger window, resends 2 at once and
    // still reaches the sender with its window
    a.on_packet(12 * MS, Port::Wireless, window_update(2, 31000));
    let out = drain(&mut a);
    assert_eq!(out.len(), 2, "{out:?}");
    assert_eq!((out[0].port, seqno(&out[0])), (Port::Wireless, 2));
    assert_eq!(out[0].priority, Priority::High);
    assert_eq!(out[1].port, Port::Wired);
    assert_eq!(out[1].packet.0.map(|s| s.window), Some(31000));
    assert_eq!(a.stats().local_retransmissions, 1);
    // 5 arrives: the duplicate left is expected and suppressed
    a.on_packet(13 * MS, Port::Wireless, window_update(2, 31000));
    assert!(drain(&mut a).is_empty());
    assert_eq!(a.stats().dupacks_suppressed, 1);
}

#[test]
fn partial_ack_does_not_resend_a_segment_that_cannot_have_arrived_yet() {
    // 2 lost; only 3 arrived (one duplicate); 4 and 5 are still on their way
    let mut a = primed(true, false, 6, 2);
    a.on_packet(20 * MS, Port::Wireless, ack(2));
    drain(&mut a);
    a.on_packet(25 * MS, Port::Wireless, ack(4));
    let out = drain(&mut a);
    assert!(out.iter().all(|t| t.port == Port::Wired));
}

#[test]
fn second_duplicate_resends_with_paper000_threshold() {
    let mut a = SnoopAgent::new(SnoopConfig::paper000(true, false));
    a.on_packet(0, Port::Wired, syn());
    for i in 0..6 {
        a.on_packet(MS * u64::from(i + 1), Port::Wired, data(i));
    }
    a.on_packet(10 * MS, Port::Wireless, ack(2));
    drain(&mut a);
    // segment 2 lost; 3 arrives: one duplicate passes to the sender, nothing is resent
    a.on_packet(11 * MS, Port::Wireless, ack(2));
    let out = drain(&mut a);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].port, Port::Wired);
    assert_eq!(a.stats().local_retransmissions, 0);
    // the second (4 arrived) resends 2 at once; the one left (for 5) is expected and suppressed
    a.on_packet(12 * MS, Port::Wireless, ack(2));
    let out = drain(&mut a);
    assert_eq!(out.len(), 1);
    assert_eq!((out[0].port, seqno(&out[0])), (Port::Wireless, 2));
    assert_eq!(out[0].priority, Priority::High);
    a.on_packet(13 * MS, Port::Wireless, ack(2));
    assert!(drain(&mut a).is_empty());
    assert_eq!(a.stats().dupacks_suppressed, 2);
    // a lone duplicate after recovery (a duplicate segment reached the receiver) resends nothing
    a.on_packet(20 * MS, Port::Wireless, ack(6));
    a.on_packet(21 * MS, Port::Wired, data(6));
    a.on_packet(22 * MS, Port::Wired, data(7));
    drain(&mut a);
    a.on_packet(23 * MS, Port::Wireless, ack(6));
    let out = drain(&mut a);
    assert!(out.iter().all(|t| t.port == Port::Wired), "propagated only");
    assert_eq!(a.stats().local_retransmissions, 1);
}

#[test]
fn round_trip_timer_is_armed_only_after_a_local_retransmission() {
    let mut a = primed(true, false, 6, 2);
    // no local retransmission yet: only the persist timer (200 ms after the last activity) runs
    let t = a.poll_timeout().expect("persist timer");
    assert_eq!(t, 7 * MS + 200 * MS);
    a.on_packet(20 * MS, Port::Wireless, ack(2));
    drain(&mut a);
    // srtt is unknown (the timed segment was never acknowledged), so the minimum applies: 200 ms
    assert_eq!(a.poll_timeout(), Some(20 * MS + 200 * MS));
    a.on_timeout(220 * MS);
    let out = drain(&mut a);
    assert_eq!(out.len(), 1);
    assert_eq!((seqno(&out[0]), out[0].priority), (2, Priority::High));
    assert_eq!(a.stats().local_retransmissions, 2);
}

#[test]
fn round_trip_timer_uses_twice_the_wireless_rtt_above_the_minimum() {
    let mut cfg = SnoopConfig::paper002();
    cfg.min_timeout = 40 * MS;
    let mut a = SnoopAgent::new(cfg);
    a.on_packet(0, Port::Wired, syn());
    a.on_packet(0, Port::Wired, data(0));
    a.on_packet(MS, Port::Wired, data(1));
    a.on_packet(MS, Port::Wired, data(2));
    a.on_packet(30 * MS, Port::Wireless, ack(1)); // srtt 30 ms
    a.on_packet(31 * MS, Port::Wireless, ack(1)); // duplicate: local retransmission
    drain(&mut a);
    assert_eq!(a.poll_timeout(), Some(31 * MS + 60 * MS));
}

#[test]
fn persist_timer_resends_after_200_ms_of_silence() {
    let mut a = primed(true, false, 3, 1);
    let t = a.poll_timeout().expect("persist");
    a.on_timeout(t);
    let out = drain(&mut a);
    assert_eq!(out.len(), 1);
    assert_eq!(seqno(&out[0]), 1);
    // it repeats after another 200 ms of silence
    assert_eq!(a.poll_timeout(), Some(t + 200 * MS));
}

#[test]
fn local_retransmission_count_is_kept_per_segment() {
    let mut a = primed(true, false, 4, 1);
    a.on_packet(10 * MS, Port::Wireless, ack(1));
    let t = a.poll_timeout().expect("timer");
    a.on_timeout(t);
    let key = ConnKey {
        fixed: FH,
        mobile: MH,
    };
    let head = a.conns[&key].cache.iter().next().cloned();
    assert_eq!(head.map(|e| e.local_rexmits), Some(2));
}

#[test]
fn selective_resends_every_missing_segment_once_per_rtt() {
    // 1 and 2 lost, 3 arrives: SMART says 3 caused the duplicate
    let mut a = primed(true, true, 5, 1);
    a.on_packet(20 * MS, Port::Wireless, smart_ack(1, 3));
    let out = drain(&mut a);
    let mut resent: Vec<u32> = out
        .iter()
        .filter(|t| t.port == Port::Wireless)
        .map(seqno)
        .collect();
    resent.sort();
    assert_eq!(resent, vec![1, 2]);
    // the next duplicate (caused by 4) within the RTT resends nothing again
    a.on_packet(21 * MS, Port::Wireless, smart_ack(1, 4));
    assert!(drain(&mut a).is_empty());
    // without SMART awareness only the first hole is resent
    let mut b = primed(true, false, 5, 1);
    b.on_packet(20 * MS, Port::Wireless, smart_ack(1, 3));
    let resent: Vec<u32> = drain(&mut b)
        .iter()
        .filter(|t| t.port == Port::Wireless)
        .map(seqno)
        .collect();
    assert_eq!(resent, vec![1]);
}

#[test]
fn selective_ignores_a_duplicate_caused_by_a_duplicate_segment() {
    // 0..5 sent, 3 acknowledged; an old copy of 1 reaches the receiver again
    let mut a = SnoopAgent::new(SnoopConfig::paper000(true, true));
    a.on_packet(0, Port::Wired, syn());
    for i in 0..5 {
        a.on_packet(MS * u64::from(i + 1), Port::Wired, data(i));
    }
    a.on_packet(10 * MS, Port::Wireless, smart_ack(3, 2));
    drain(&mut a);
    a.on_packet(11 * MS, Port::Wireless, smart_ack(3, 1));
    let out = drain(&mut a);
    assert!(out.iter().all(|t| t.port == Port::Wired), "nothing resent");
    assert_eq!(a.stats().local_retransmissions, 0);
    // a duplicate caused by 4 (after the hole at 3) is evidence: 3 is resent at once
    a.on_packet(12 * MS, Port::Wireless, smart_ack(3, 4));
    let out = drain(&mut a);
    assert_eq!(out.len(), 1);
    assert_eq!((out[0].port, seqno(&out[0])), (Port::Wireless, 3));
}

#[test]
fn non_tcp_packets_pass_through_both_ways() {
    let mut a = agent(true, false);
    a.on_packet(0, Port::Wired, Pkt(None));
    a.on_packet(0, Port::Wireless, Pkt(None));
    let out = drain(&mut a);
    assert_eq!(out.len(), 2);
    assert_eq!(out[0].port, Port::Wireless);
    assert_eq!(out[1].port, Port::Wired);
}

#[test]
fn connection_table_is_bounded_and_idle_state_expires() {
    let mut cfg = SnoopConfig::paper000(true, false);
    cfg.max_connections = 3;
    let mut a = SnoopAgent::new(cfg);
    for port in 0..10u16 {
        let mut s = seg(FH, MH, ISS, 0, Flags::SYN, 0);
        s.src.port = port;
        a.on_packet(u64::from(port), Port::Wired, Pkt(Some(s)));
    }
    assert_eq!(a.connections(), 3);
    a.on_timeout(cfg.idle_timeout + 100);
    assert_eq!(a.connections(), 0);
}

#[test]
fn smart_information_on_a_new_ack_also_counts() {
    // 0 acknowledged by a delayed ACK not yet sent; 1 lost; 2 arrives and the MH acknowledges 0
    // at once (a new ACK for snoop) naming 2; 3 arrives: duplicate naming 3. Only 1 is missing.
    let mut a = primed(true, true, 5, 0);
    a.on_packet(20 * MS, Port::Wireless, smart_ack(1, 2));
    drain(&mut a);
    a.on_packet(21 * MS, Port::Wireless, smart_ack(1, 3));
    let resent: Vec<u32> = drain(&mut a)
        .iter()
        .filter(|t| t.port == Port::Wireless)
        .map(seqno)
        .collect();
    assert_eq!(resent, vec![1], "segment 2 is known to have arrived");
}

#[test]
fn one_connection_never_caches_more_than_its_hard_limit() {
    let mut cfg = SnoopConfig::paper000(true, false);
    cfg.high_water = 3;
    cfg.max_cached_per_connection = 4;
    let mut a = SnoopAgent::new(cfg);
    a.on_packet(0, Port::Wired, syn());
    for i in [0, 1, 2, 7, 8] {
        a.on_packet(MS, Port::Wired, data(i));
    }
    assert_eq!(
        a.cached_segments(),
        3,
        "7 and 8 are above the high-water mark"
    );
    // the sender fills holes: out of order, cached past the high-water mark up to the hard limit
    for i in [3, 4, 5] {
        a.on_packet(2 * MS, Port::Wired, data(i));
    }
    assert_eq!(a.cached_segments(), 4);
    assert_eq!(a.probe().held_segments, 4);
    assert_eq!(
        drain(&mut a).len(),
        9,
        "uncached segments are still forwarded"
    );
}

#[test]
fn all_connections_together_stay_within_the_total_and_freed_room_is_reused() {
    let mut cfg = SnoopConfig::paper000(true, false);
    cfg.max_cached_total = 5;
    let mut a = SnoopAgent::new(cfg);
    let conn = |port: u16, p: Pkt| {
        let mut s = p.0.unwrap_or_default();
        if s.src == FH {
            s.src.port = port;
        } else {
            s.dst.port = port;
        }
        Pkt(Some(s))
    };
    for port in [1, 2] {
        a.on_packet(0, Port::Wired, conn(port, syn()));
        for i in 0..4 {
            a.on_packet(MS, Port::Wired, conn(port, data(i)));
        }
    }
    assert_eq!(a.cached_segments(), 5, "4 of the first, 1 of the second");
    assert_eq!(a.probe().connections, 2);
    // the first connection's ACK frees 3; the second's next segments may use the room
    a.on_packet(2 * MS, Port::Wireless, conn(1, ack(3)));
    assert_eq!(a.cached_segments(), 2);
    for i in 4..8 {
        a.on_packet(3 * MS, Port::Wired, conn(2, data(i)));
    }
    assert_eq!(a.cached_segments(), 5);
    // a new SYN on the second connection forgets its cache
    a.on_packet(4 * MS, Port::Wired, conn(2, syn()));
    assert_eq!(a.cached_segments(), 1);
}

#[test]
fn the_mobile_hosts_fin_cleans_the_cache_and_idle_state_expires_despite_persist() {
    let mut cfg = SnoopConfig::paper000(true, false);
    cfg.idle_timeout = 1000 * MS;
    let mut a = SnoopAgent::new(cfg);
    a.on_packet(0, Port::Wired, syn());
    for i in 0..3 {
        a.on_packet(MS, Port::Wired, data(i));
    }
    a.on_packet(2 * MS, Port::Wireless, ack(1));
    // the MH's FIN+ACK acknowledges the rest: no pure ACK follows
    let mut fin = ack(3);
    if let Some(s) = fin.0.as_mut() {
        s.flags = Flags(Flags::ACK.0 | Flags::FIN.0);
    }
    a.on_packet(3 * MS, Port::Wireless, fin);
    assert_eq!(a.cached_segments(), 0);
    // a connection whose segments are never acknowledged: persist resends, but it still expires
    let mut b = SnoopAgent::new(SnoopConfig {
        idle_timeout: 1000 * MS,
        ..SnoopConfig::paper000(true, false)
    });
    b.on_packet(0, Port::Wired, syn());
    b.on_packet(MS, Port::Wired, data(0));
    let mut t = MS;
    while let Some(next) = b.poll_timeout() {
        t = next;
        b.on_timeout(t);
        drain(&mut b);
    }
    assert_eq!(b.connections(), 0);
    assert!((1000 * MS..1300 * MS).contains(&t), "expired at {t}");
    assert!(
        b.stats().local_retransmissions >= 4,
        "persist resent meanwhile"
    );
}

#[test]
fn a_reset_from_either_side_forgets_the_connection() {
    for from_mh in [false, true] {
        let mut a = primed(true, false, 3, 1);
        let rst = if from_mh {
            Pkt(Some(seg(MH, FH, 1, ISS + 1, Flags::RST, 0)))
        } else {
            Pkt(Some(seg(FH, MH, ISS + 1, 0, Flags::RST, 0)))
        };
        let port = if from_mh { Port::Wireless } else { Port::Wired };
        a.on_packet(10 * MS, port, rst);
        assert_eq!((a.connections(), a.cached_segments()), (0, 0));
        assert_eq!(drain(&mut a).len(), 1, "the reset itself is forwarded");
    }
}

// --- base station A of a transit link (paper 004 section 3.5) ---

fn transit_agent() -> SnoopAgent<Pkt> {
    primed_with(SnoopConfig::transit(), 5, 1, 10 * MS)
}

fn marked_ack(n: u32) -> Pkt {
    let mut p = ack(n);
    if let Some(s) = p.0.as_mut() {
        s.eln = true;
    }
    p
}

#[test]
fn at_a_transit_link_only_eln_marked_duplicates_make_local_retransmissions() {
    let mut a = transit_agent();
    for k in 0..3 {
        a.on_packet((11 + k) * MS, Port::Wireless, ack(1));
        let out = drain(&mut a);
        assert_eq!(out.len(), 1, "an unmarked duplicate goes to the sender");
        assert_eq!(out[0].port, Port::Wired);
    }
    assert_eq!(a.stats().local_retransmissions, 0);
    assert_eq!(a.stats().dupacks_suppressed, 0);
    // the two marked duplicates: the second resends segment 1 (paper 000's threshold of 2) and
    // is suppressed
    a.on_packet(20 * MS, Port::Wireless, marked_ack(1));
    drain(&mut a);
    a.on_packet(21 * MS, Port::Wireless, marked_ack(1));
    let out = drain(&mut a);
    assert!(out.iter().any(|t| t.port == Port::Wireless
        && seqno(t) == 1
        && t.origin == crate::agent::Origin::LocalRetransmission));
    assert_eq!(a.stats().local_retransmissions, 1);
}

#[test]
fn at_a_transit_link_no_timer_resends() {
    let mut a = transit_agent();
    assert_eq!(
        a.poll_timeout(),
        Some(10 * MS + SnoopConfig::transit().idle_timeout),
        "only the idle timer: no persist, no round-trip timer"
    );
    a.on_timeout(5000 * MS);
    assert!(drain(&mut a).is_empty());
    assert_eq!(a.stats().local_retransmissions, 0);
}

/// The agent hears that what it sent left the base station's queue (`Agent::on_departure`).
fn depart(a: &mut SnoopAgent<Pkt>, now: Time, p: Pkt) {
    assert!(a.on_departure(now, &p, Departure::OnAir));
}

/// [`primed`] at a base station that reports departures: the SYN has left, the data segments
/// 0..n still wait in its queue behind other connections' packets.
fn primed_queued(n: u32, acked: u32) -> SnoopAgent<Pkt> {
    let mut a = SnoopAgent::new(config(true, false));
    a.on_packet(0, Port::Wired, syn());
    depart(&mut a, 0, syn());
    for i in 0..n {
        a.on_packet(MS * u64::from(i + 1), Port::Wired, data(i));
    }
    if acked > 0 {
        for i in 0..acked {
            depart(&mut a, MS * u64::from(n + 1), data(i));
        }
        a.on_packet(MS * u64::from(n + 2), Port::Wireless, ack(acked));
    }
    drain(&mut a);
    a
}

#[test]
fn the_persist_timer_does_not_resend_a_segment_still_in_the_queue() {
    let mut a = primed_queued(3, 1);
    // 200 ms of silence, but segment 1 has not been sent yet: nothing is resent
    let t = a.poll_timeout().expect("persist");
    a.on_timeout(t);
    assert!(drain(&mut a).is_empty());
    assert_eq!(a.stats().local_retransmissions, 0);
    // it goes on the air at 1 s; with no answer 200 ms later the timer resends it
    depart(&mut a, 1000 * MS, data(1));
    assert_eq!(a.poll_timeout(), Some(1200 * MS));
    a.on_timeout(1200 * MS);
    let out = drain(&mut a);
    assert_eq!(out.len(), 1);
    assert_eq!((seqno(&out[0]), out[0].priority), (1, Priority::High));
}

#[test]
fn a_duplicate_ack_for_a_segment_still_in_the_queue_waits_for_it() {
    // segments 0..4 sent, 0 acknowledged; 1 still waits while 2 went ahead (say, resent by the
    // sender): its duplicate ACK resends nothing and is suppressed
    let mut a = primed_queued(4, 1);
    depart(&mut a, 10 * MS, data(2));
    a.on_packet(11 * MS, Port::Wireless, ack(1));
    assert!(drain(&mut a).is_empty());
    assert_eq!(a.stats().local_retransmissions, 0);
    assert_eq!(a.stats().dupacks_suppressed, 1);
    // segment 1 goes, and is lost: the next duplicate (from segment 3) resends it at once
    depart(&mut a, 12 * MS, data(1));
    depart(&mut a, 13 * MS, data(3));
    a.on_packet(14 * MS, Port::Wireless, ack(1));
    let out = drain(&mut a);
    assert_eq!(out.len(), 1);
    assert_eq!((seqno(&out[0]), out[0].priority), (1, Priority::High));
}

#[test]
fn a_segment_the_queue_drops_is_left_to_the_sender() {
    let mut a = primed_queued(4, 1);
    assert_eq!(a.cached_segments(), 3);
    assert!(a.on_departure(5 * MS, &data(1), Departure::Dropped));
    assert_eq!(a.cached_segments(), 2, "congestion, not a wireless loss");
    // segments 2 and 3 arrive: their duplicate ACKs go to the sender, and snoop resends nothing
    depart(&mut a, 6 * MS, data(2));
    depart(&mut a, 7 * MS, data(3));
    for t in [8, 9] {
        a.on_packet(t * MS, Port::Wireless, ack(1));
        let out = drain(&mut a);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].port, Port::Wired);
    }
    let t = a.poll_timeout().expect("persist");
    a.on_timeout(t);
    assert!(drain(&mut a).is_empty());
    assert_eq!(a.stats().local_retransmissions, 0);
}

#[test]
fn without_departure_reports_or_with_the_queue_out_of_sight_the_timers_run_as_the_text_reads() {
    // no reports (the live mode): the persist timer resends after 200 ms of silence
    let mut a = primed(true, false, 3, 1);
    let t = a.poll_timeout().expect("persist");
    a.on_timeout(t);
    assert_eq!(drain(&mut a).len(), 1);
    // reports ignored (`queue_aware` off): the same, though segment 1 still waits
    let mut b = SnoopAgent::new(SnoopConfig {
        queue_aware: false,
        ..config(true, false)
    });
    b.on_packet(0, Port::Wired, syn());
    depart(&mut b, 0, syn());
    for i in 0..3 {
        b.on_packet(MS * u64::from(i + 1), Port::Wired, data(i));
    }
    depart(&mut b, 4 * MS, data(0));
    b.on_packet(5 * MS, Port::Wireless, ack(1));
    drain(&mut b);
    let t = b.poll_timeout().expect("persist");
    b.on_timeout(t);
    let out = drain(&mut b);
    assert_eq!(out.len(), 1);
    assert_eq!(seqno(&out[0]), 1);
}
