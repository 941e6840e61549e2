//! Scripted packet-level tests of F-RTO (`frto.rs`): an RFC 6675 sender, 10 full segments
//! outstanding, its retransmission timer expires and the head is resent; the receiver's ACKs are
//! scripted. Each test fails when its rule is removed.

use super::tests::{ack_to_sender, drain, established_hosts};
use super::*;
use crate::seq::Seq;
use crate::time::{Time, MS};

/// The sender after its timeout, the first outstanding byte, the window before the timeout
/// (cwnd, ssthresh) and when it expired.
fn timed_out(frto: bool) -> (Tcp, Seq, (u32, u32), Time) {
    timed_out_in(frto, 64000)
}

/// [`timed_out`] with the receiver offering `window` bytes all along.
fn timed_out_in(frto: bool, window: u16) -> (Tcp, Seq, (u32, u32), Time) {
    let host = HostProfile {
        sack_recovery: SackRecovery::Rfc6675Prr,
        frto,
        ..HostProfile::default()
    };
    let (mut s, _r) = established_hosts(64 * 1024, 10_000_000, RecoveryPolicy::SACK, host);
    drain(&mut s);
    let mut t = 10 * MS;
    while s.snd_max().since(s.snd_una()) < 10 * s.maxseg() {
        let next = s.snd_una() + s.maxseg();
        let mut a = ack(&s, next, &[]);
        a.window = window;
        s.on_segment(t, &a);
        drain(&mut s);
        t += MS;
    }
    let base = s.snd_una();
    let before = (s.cwnd(), s.ssthresh());
    let Some(at) = s.rexmt_deadline() else {
        panic!("timer armed");
    };
    s.on_timeout(at);
    let resent = sent(&mut s, base);
    assert_eq!(resent, vec![0], "the timeout resends the head");
    assert!(s.cwnd() < before.0, "and collapses the window");
    (s, base, before, at)
}

/// An ACK for `ack` SACKing the given byte ranges.
fn ack(s: &Tcp, ack: Seq, blocks: &[(Seq, Seq)]) -> Segment {
    let mut a = ack_to_sender(s, ack, 64000);
    for &(from, to) in blocks {
        a.sack.push(from, to);
    }
    a
}

/// The segment indices (from `base`) of the data segments sent since the last look.
fn sent(s: &mut Tcp, base: Seq) -> Vec<u32> {
    let mss = s.maxseg();
    drain(s)
        .iter()
        .filter(|(seg, _)| seg.len > 0)
        .map(|(seg, _)| seg.seq.since(base) / mss)
        .collect()
}

#[test]
fn the_first_ack_after_the_timeout_sends_new_data_not_resends() {
    let (mut s, base, _, at) = timed_out(true);
    s.on_segment(at + 10 * MS, &ack(&s, base + s.maxseg(), &[]));
    let out = sent(&mut s, base);
    assert!(!out.is_empty(), "step 2.b sends");
    assert!(out.iter().all(|&i| i >= 10), "new data only: {out:?}");
    // without F-RTO the same ACK resends what the timeout marked lost
    let (mut plain, base, _, at) = timed_out(false);
    plain.on_segment(at + 10 * MS, &ack(&plain, base + plain.maxseg(), &[]));
    let out = sent(&mut plain, base);
    assert!(out.contains(&1), "resends: {out:?}");
}

#[test]
fn data_never_resent_acknowledged_then_undoes_a_spurious_timeout() {
    let (mut s, base, (cwnd, ssthresh), at) = timed_out(true);
    let mss = s.maxseg();
    s.on_segment(at + 10 * MS, &ack(&s, base + mss, &[]));
    drain(&mut s);
    // the original segment 1, delayed, not lost
    s.on_segment(at + 20 * MS, &ack(&s, base + 2 * mss, &[]));
    assert_eq!(s.ssthresh(), ssthresh, "step 3.b: ssthresh back");
    assert!(s.cwnd() >= cwnd, "cwnd back");
    // back to Open: no more resends of what the timeout marked lost
    assert!(sent(&mut s, base).iter().all(|&i| i >= 10));
}

#[test]
fn a_sack_of_the_new_data_shows_the_loss_real() {
    let (mut s, base, (_, ssthresh), at) = timed_out(true);
    let mss = s.maxseg();
    s.on_segment(at + 10 * MS, &ack(&s, base + mss, &[]));
    assert_eq!(sent(&mut s, base).first(), Some(&10));
    // a duplicate SACKing new segment 10: segment 1 is missing (step 3.a)
    let new = (base + 10 * mss, base + 11 * mss);
    s.on_segment(at + 20 * MS, &ack(&s, base + mss, &[new]));
    assert!(
        sent(&mut s, base).contains(&1),
        "conventional recovery resends"
    );
    // an ACK for the resent segment 1 and the original 2 undoes nothing now
    s.on_segment(at + 30 * MS, &ack(&s, base + 3 * mss, &[new]));
    assert!(s.ssthresh() < ssthresh, "the timeout's reduction stays");
}

#[test]
fn without_the_detail_an_original_acknowledged_undoes_nothing() {
    let (mut s, base, (_, ssthresh), at) = timed_out(false);
    let mss = s.maxseg();
    s.on_segment(at + 10 * MS, &ack(&s, base + mss, &[]));
    s.on_segment(at + 20 * MS, &ack(&s, base + 3 * mss, &[]));
    assert!(s.ssthresh() < ssthresh);
}

#[test]
fn the_step_2b_ack_resends_nothing_when_the_window_stops_new_data() {
    // the receiver's window ends half a segment past the ten sent
    let window = 10 * 1000 + 500;
    let (mut s, base, _, at) = timed_out_in(true, window);
    let mss = s.maxseg();
    assert_eq!(mss, 1000);
    let mut first = ack(&s, base + mss, &[]);
    first.window = window;
    s.on_segment(at + 10 * MS, &first);
    // cwnd 2 leaves room for a resend beside the half segment of new data: none goes now
    let out = drain(&mut s);
    let data: Vec<(u32, u32)> = out
        .iter()
        .filter(|(seg, _)| seg.len > 0)
        .map(|(seg, _)| (seg.seq.since(base) / mss, seg.len))
        .collect();
    assert_eq!(
        data,
        vec![(10, 500)],
        "REXMIT_NEW: no tcp_xmit_retransmit_queue()"
    );
}
