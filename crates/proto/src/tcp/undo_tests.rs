//! Scripted packet-level tests of Linux's undo by timestamps (`undo.rs`): an RFC 6675 sender
//! with timestamps, 10 full segments (1000 bytes less the timestamps option) outstanding, the first lost; the receiver's ACKs
//! are scripted with the TSecr each test names. Each test fails when its rule is removed.

use super::tests::{ack_to_sender, drain, established_hosts};
use super::*;
use crate::segment::Timestamps;
use crate::seq::Seq;
use crate::time::MS;

/// The sender, the first outstanding segment and that segment's TSval as first sent.
fn sender(undo: bool) -> (Tcp, Seq, u32) {
    let host = HostProfile {
        sack_recovery: SackRecovery::Rfc6675Prr,
        timestamps: true,
        undo,
        ..HostProfile::default()
    };
    let (mut s, _r) = established_hosts(64 * 1024, 10_000_000, RecoveryPolicy::SACK, host);
    let mut sent = drain(&mut s);
    let mut t = 10 * MS;
    while s.snd_max().since(s.snd_una()) < 10 * s.maxseg() {
        let next = s.snd_una() + s.maxseg();
        s.on_segment(t, &stamped(&s, next, &[], 0));
        sent.extend(drain(&mut s));
        t += MS;
    }
    let base = s.snd_una();
    let original = sent
        .iter()
        .find(|(seg, _)| seg.seq == base && seg.len > 0)
        .and_then(|(seg, _)| seg.ts)
        .map(|ts| ts.val);
    (s, base, original.unwrap_or(0))
}

/// An ACK for `ack` with SACK blocks of segment indices from it, echoing `ecr`.
fn stamped(s: &Tcp, ack: Seq, blocks: &[(u32, u32)], ecr: u32) -> Segment {
    let mut a = ack_to_sender(s, ack, s.snd_wnd().max(s.maxseg()).min(64000) as u16);
    for &(from, to) in blocks {
        a.sack.push(ack + from * s.maxseg(), ack + to * s.maxseg());
    }
    a.ts = Some(Timestamps {
        val: s.rfc7323().ts_recent().wrapping_add(1),
        ecr,
    });
    a
}

/// Three duplicates SACKing segments 1-3 at 100 ms: recovery, segment 0 resent. Returns the
/// resend's TSval.
fn enter_recovery(s: &mut Tcp, base: Seq, original: u32) -> u32 {
    for k in 1..=3 {
        s.on_segment(100 * MS, &stamped(s, base, &[(1, 1 + k)], original));
    }
    let resend = drain(s)
        .into_iter()
        .find(|(seg, _)| seg.seq == base && seg.len > 0)
        .and_then(|(seg, _)| seg.ts);
    resend.map_or(0, |ts| ts.val)
}

#[test]
fn an_ack_echoing_the_original_undoes_the_recovery() {
    let (mut s, base, original) = sender(true);
    let (cwnd, ssthresh) = (s.cwnd(), s.ssthresh());
    let resend = enter_recovery(&mut s, base, original);
    assert!(original < resend, "the resend carries a later TSval");
    assert!(s.ssthresh() < ssthresh, "recovery reduced the window");
    // snoop's local repair: the original reaches the receiver, which echoes its TSval
    s.on_segment(
        150 * MS,
        &stamped(&s, base + 10 * s.maxseg(), &[], original),
    );
    assert_eq!(
        s.ssthresh(),
        ssthresh,
        "tcp_undo_cwnd_reduction: ssthresh back"
    );
    assert!(s.cwnd() >= cwnd, "cwnd back to prior_cwnd");
}

#[test]
fn an_ack_echoing_the_resend_keeps_the_reduction() {
    let (mut s, base, original) = sender(true);
    let ssthresh = s.ssthresh();
    let resend = enter_recovery(&mut s, base, original);
    let reduced = s.ssthresh();
    s.on_segment(150 * MS, &stamped(&s, base + 10 * s.maxseg(), &[], resend));
    assert_eq!(s.ssthresh(), reduced);
    assert!(s.ssthresh() < ssthresh);
}

#[test]
fn a_partial_ack_echoing_the_original_undoes_once_nothing_resent_is_out() {
    let (mut s, base, original) = sender(true);
    let (cwnd, ssthresh) = (s.cwnd(), s.ssthresh());
    enter_recovery(&mut s, base, original);
    // the ACK covers segment 0 (the only one resent) and stops below RecoveryPoint
    s.on_segment(150 * MS, &stamped(&s, base + 4 * s.maxseg(), &[], original));
    assert_eq!(s.ssthresh(), ssthresh, "tcp_try_undo_partial");
    assert!(s.cwnd() >= cwnd);
}

#[test]
fn without_the_detail_nothing_is_undone() {
    let (mut s, base, original) = sender(false);
    let ssthresh = s.ssthresh();
    enter_recovery(&mut s, base, original);
    s.on_segment(
        150 * MS,
        &stamped(&s, base + 10 * s.maxseg(), &[], original),
    );
    assert!(s.ssthresh() < ssthresh);
}

#[test]
fn after_a_timeout_an_ack_echoing_the_original_undoes_the_collapse() {
    let (mut s, base, original) = sender(true);
    let (cwnd, ssthresh) = (s.cwnd(), s.ssthresh());
    let Some(at) = s.rexmt_deadline() else {
        panic!("timer armed");
    };
    s.on_timeout(at);
    let resent = drain(&mut s);
    assert!(resent.iter().any(|(seg, _)| seg.seq == base && seg.len > 0));
    assert!(s.cwnd() < cwnd, "the timeout collapsed the window");
    s.on_segment(at + 10 * MS, &stamped(&s, base + s.maxseg(), &[], original));
    assert_eq!(s.ssthresh(), ssthresh, "tcp_try_undo_loss: ssthresh back");
    assert!(s.cwnd() >= cwnd, "tcp_try_undo_loss: cwnd back");
}

#[test]
fn after_a_timeout_an_ack_echoing_the_resend_keeps_the_collapse() {
    let (mut s, base, original) = sender(true);
    let cwnd = s.cwnd();
    let Some(at) = s.rexmt_deadline() else {
        panic!("timer armed");
    };
    s.on_timeout(at);
    let resend = drain(&mut s)
        .into_iter()
        .find(|(seg, _)| seg.seq == base && seg.len > 0)
        .and_then(|(seg, _)| seg.ts)
        .map_or(0, |ts| ts.val);
    assert!(original < resend);
    s.on_segment(at + 10 * MS, &stamped(&s, base + s.maxseg(), &[], resend));
    assert!(s.cwnd() < cwnd);
}

#[test]
fn a_partial_ack_waits_while_a_resent_segment_is_out() {
    let (mut s, base, original) = sender(true);
    let ssthresh = s.ssthresh();
    // segments 0 and 5 missing: three duplicates, the third SACKing 6-8 above 5
    for blocks in [&[(1, 5)][..], &[(1, 5), (6, 7)], &[(1, 5), (6, 9)]] {
        s.on_segment(100 * MS, &stamped(&s, base, blocks, original));
    }
    let resent: Vec<u32> = drain(&mut s)
        .iter()
        .filter(|(seg, _)| seg.len > 0 && seg.seq.lt(base + 10 * s.maxseg()))
        .map(|(seg, _)| seg.seq.since(base) / s.maxseg())
        .collect();
    assert_eq!(resent, vec![0, 5], "both holes resent");
    // the ACK covers segment 0 only: segment 5's resend is still out (`retrans_out`)
    let partial = stamped(&s, base + 5 * s.maxseg(), &[(1, 4)], original);
    s.on_segment(150 * MS, &partial);
    assert!(s.ssthresh() < ssthresh, "tcp_try_undo_partial waits");
}

#[test]
fn a_partial_ack_echoing_the_original_is_reordering_for_rack() {
    let (mut s, base, original) = sender(true);
    for blocks in [&[(1, 5)][..], &[(1, 5), (6, 7)], &[(1, 5), (6, 9)]] {
        s.on_segment(100 * MS, &stamped(&s, base, blocks, original));
    }
    drain(&mut s);
    assert!(!s.sel.rack.reord);
    // segment 0's original filled the hole (segment 5's resend still out: no undo yet)
    let partial = stamped(&s, base + 5 * s.maxseg(), &[(1, 4)], original);
    s.on_segment(150 * MS, &partial);
    assert!(
        s.sel.rack.reord,
        "tcp_try_undo_partial() -> tcp_check_sack_reordering()"
    );
}
