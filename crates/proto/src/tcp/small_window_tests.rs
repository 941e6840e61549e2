//! Scripted tests of the small-window rules (paper 001's EFR, RFC 3042's Limited Transmit, RFC
//! 5827's Early Retransmit): each fails if its rule is removed.

use super::tests::{ack_to_sender, drain, established_with, sender_with_window_policy, MSS};
use super::*;
use crate::time::{MS, SEC};

/// A duplicate of the last ACK, with the window the sender has.
pub(super) fn dup(s: &Tcp) -> Segment {
    ack_to_sender(s, s.snd_una(), s.snd_wnd() as u16)
}

/// A sender whose peer advertises `peer_segs` segments while cwnd has grown to at least `cwnd_segs`:
/// the advertised window, not cwnd, bounds what is outstanding.
fn peer_limited(policy: RecoveryPolicy, peer_segs: u32, cwnd_segs: u32) -> Tcp {
    let (mut s, _r) = established_with(64 * 1024, 10_000_000, policy);
    drain(&mut s);
    let mut t = 10 * MS;
    while s.cwnd() < cwnd_segs * MSS {
        let ack = s.snd_una() + MSS;
        s.on_segment(t, &ack_to_sender(&s, ack, (peer_segs * MSS) as u16));
        drain(&mut s);
        t += MS;
    }
    assert_eq!(s.snd_wnd(), peer_segs * MSS);
    assert_eq!(s.snd_max().since(s.snd_una()), peer_segs * MSS);
    s
}

use crate::segment::Segment;

// --- EFR (paper 001 section 5.4, Fig. 14) ---

#[test]
fn efr_threshold_takes_the_smaller_of_the_peer_window_and_cwnd() {
    // cwnd is 8 segments but the peer advertises 4: snd_cur = min(snd_wnd, snd_cwnd) = 4 segments,
    // so tcp_rexmtthresh = 4 - 2 = 2. A rule that read cwnd alone would wait for 3.
    let mut s = peer_limited(RecoveryPolicy::EFR, 4, 8);
    assert!(s.cwnd() >= 8 * MSS);
    let una = s.snd_una();
    s.on_segment(SEC, &dup(&s));
    assert!(drain(&mut s).is_empty());
    s.on_segment(SEC, &dup(&s));
    let out = drain(&mut s);
    assert_eq!(out.len(), 1, "fast retransmit on the second duplicate");
    assert_eq!((out[0].0.seq, out[0].1), (una, TxKind::FastRetransmit));
    assert_eq!(s.stats().fast_retransmits_below_three, 1);
    // Reno in the same state sends nothing on the second duplicate
    let mut r = peer_limited(RecoveryPolicy::RENO, 4, 8);
    r.on_segment(SEC, &dup(&r));
    r.on_segment(SEC, &dup(&r));
    assert!(drain(&mut r).is_empty());
}

#[test]
fn efr_retransmits_on_the_first_duplicate_with_three_segments() {
    // snd_cur = 3 segments: 3 - 2 = 1 (paper 001 Fig. 5: the case of a window of three)
    let (mut s, seqs) = sender_with_window_policy(3, RecoveryPolicy::EFR);
    assert_eq!(s.cwnd() / MSS, 3);
    s.on_segment(SEC, &dup(&s));
    let out = drain(&mut s);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].0.seq, seqs[0]);
}

#[test]
fn efr_threshold_is_capped_at_three() {
    // a peer window of 6 segments: 6 - 2 = 4, capped at 3
    let mut s = peer_limited(RecoveryPolicy::EFR, 6, 6);
    for _ in 0..2 {
        s.on_segment(SEC, &dup(&s));
    }
    assert!(drain(&mut s).is_empty());
    s.on_segment(SEC, &dup(&s));
    assert_eq!(
        drain(&mut s).len(),
        1,
        "the third duplicate, not the fourth"
    );
}

// --- Limited Transmit (RFC 3042 section 2) ---

#[test]
fn limited_transmit_sends_a_new_segment_on_each_of_the_first_two_duplicates() {
    let (mut s, _) = sender_with_window_policy(3, RecoveryPolicy::LIMITED_TRANSMIT);
    let (cwnd, max) = (s.cwnd(), s.snd_max());
    for i in 0..2u32 {
        s.on_segment(SEC, &dup(&s));
        let out = drain(&mut s);
        assert_eq!(out.len(), 1, "duplicate {} sends one segment", i + 1);
        assert_eq!(out[0].0.seq, max + i * MSS, "previously unsent data");
        assert_eq!(out[0].1, TxKind::New);
        assert_eq!(s.cwnd(), cwnd, "cwnd MUST NOT be changed");
    }
    assert_eq!(s.stats().limited_transmits, 2);
    // the two new segments make the third duplicate, and Reno's fast retransmit follows
    s.on_segment(SEC, &dup(&s));
    let out = drain(&mut s);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].1, TxKind::FastRetransmit);
    // plain Reno sends nothing on the first two
    let (mut r, _) = sender_with_window_policy(3, RecoveryPolicy::RENO);
    for _ in 0..2 {
        r.on_segment(SEC, &dup(&r));
        assert!(drain(&mut r).is_empty());
    }
}

#[test]
fn limited_transmit_respects_the_advertised_window() {
    // the peer's window is full: "the receiver's advertised window allows the transmission" fails
    let mut s = peer_limited(RecoveryPolicy::LIMITED_TRANSMIT, 3, 6);
    for _ in 0..2 {
        s.on_segment(SEC, &dup(&s));
        assert!(drain(&mut s).is_empty());
    }
    assert_eq!(s.stats().limited_transmits, 0);
}

// --- Early Retransmit (RFC 5827 section 3.1) ---

#[test]
fn early_retransmit_lowers_the_threshold_when_no_new_segment_can_be_sent() {
    // three segments outstanding, the peer's window full: ER_thresh = ceiling(3) - 1 = 2
    let mut s = peer_limited(RecoveryPolicy::EARLY_RETRANSMIT, 3, 6);
    let una = s.snd_una();
    s.on_segment(SEC, &dup(&s));
    assert!(drain(&mut s).is_empty());
    s.on_segment(SEC, &dup(&s));
    let out = drain(&mut s);
    assert_eq!(out.len(), 1, "fast retransmit on the second duplicate");
    assert_eq!((out[0].0.seq, out[0].1), (una, TxKind::FastRetransmit));
    let mut r = peer_limited(RecoveryPolicy::RENO, 3, 6);
    r.on_segment(SEC, &dup(&r));
    r.on_segment(SEC, &dup(&r));
    assert!(drain(&mut r).is_empty(), "Reno waits for a third");
}

#[test]
fn early_retransmit_waits_for_three_when_a_new_segment_could_be_sent() {
    // cwnd-limited with unsent data and an open peer window: condition (2.b) does not hold
    let (mut s, _) = sender_with_window_policy(3, RecoveryPolicy::EARLY_RETRANSMIT);
    s.on_segment(SEC, &dup(&s));
    s.on_segment(SEC, &dup(&s));
    assert!(drain(&mut s).is_empty());
    s.on_segment(SEC, &dup(&s));
    assert_eq!(drain(&mut s).len(), 1);
}

#[test]
fn early_retransmit_at_the_end_of_the_data() {
    // 2 segments of data in all, both sent: no unsent data, ownd = 2 -> ER_thresh = 1
    let (mut s, _r) = established_with(
        64 * 1024,
        u64::from(4 * MSS),
        RecoveryPolicy::EARLY_RETRANSMIT,
    );
    drain(&mut s);
    s.on_segment(10 * MS, &ack_to_sender(&s, s.snd_una() + MSS, 64000));
    drain(&mut s);
    s.on_segment(11 * MS, &ack_to_sender(&s, s.snd_una() + MSS, 64000));
    drain(&mut s);
    let left = s.snd_max().since(s.snd_una());
    assert!(left <= 2 * MSS + 1, "{left} bytes outstanding");
    let una = s.snd_una();
    s.on_segment(SEC, &dup(&s));
    let out = drain(&mut s);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].0.seq, una);
}

#[test]
fn timeouts_are_counted_by_the_duplicates_before_them() {
    // paper 001 section 6.1: N_dup(i)
    let (mut s, _) = sender_with_window_policy(4, RecoveryPolicy::RENO);
    s.on_segment(SEC, &dup(&s));
    let t = s.poll_timeout().unwrap();
    s.on_timeout(t);
    assert_eq!(s.stats().timeouts_after_dupacks, [0, 1, 0, 0]);
    let t = s.poll_timeout().unwrap();
    s.on_timeout(t);
    assert_eq!(s.stats().timeouts_after_dupacks, [1, 1, 0, 0]);
}
