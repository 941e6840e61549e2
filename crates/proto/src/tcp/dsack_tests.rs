//! Scripted packet-level tests of DSACK (`dsack.rs`): the receiver reports a duplicate in the
//! first SACK block of its ACK, once; the sender undoes a window reduction once every
//! retransmission of the episode was reported a duplicate (`undo.rs`). Each test fails when its
//! rule is removed.

use super::tests::{ack_to_sender, data_to_sink, drain, established_hosts, MSS};
use super::*;
use crate::seq::Seq;
use crate::time::MS;

/// A sink whose host uses SACK, with DSACK as `dsack` says.
fn sink(dsack: bool) -> Tcp {
    let host = HostProfile {
        sack: SackUse::On,
        dsack,
        ..HostProfile::default()
    };
    let (_s, r) = established_hosts(32768, 100_000, RecoveryPolicy::SACK, host);
    r
}

/// The SACK blocks of the last segment `r` sent.
fn last_blocks(r: &mut Tcp) -> Vec<(Seq, Seq)> {
    let out = drain(r);
    let Some((ack, _)) = out.last() else {
        panic!("an ACK was sent");
    };
    ack.sack.iter().collect()
}

#[test]
fn a_duplicate_below_rcv_nxt_is_reported_first_and_once() {
    let mut r = sink(true);
    let base = r.irs() + 1;
    r.on_segment(MS, &data_to_sink(&r, 0, MSS));
    r.on_segment(2 * MS, &data_to_sink(&r, MSS, MSS));
    drain(&mut r);
    // the sender's resend of segment 0, which had arrived already (snoop's local repair)
    r.on_segment(3 * MS, &data_to_sink(&r, 0, MSS));
    assert_eq!(
        last_blocks(&mut r),
        vec![(base, base + MSS)],
        "tcp_dsack_set"
    );
    // the next ACK carries it no more
    r.on_segment(4 * MS, &data_to_sink(&r, 2 * MSS, MSS));
    r.on_segment(5 * MS, &data_to_sink(&r, 3 * MSS, MSS));
    assert_eq!(last_blocks(&mut r), vec![]);
}

#[test]
fn without_the_detail_a_duplicate_is_not_reported() {
    let mut r = sink(false);
    r.on_segment(MS, &data_to_sink(&r, 0, MSS));
    r.on_segment(2 * MS, &data_to_sink(&r, MSS, MSS));
    drain(&mut r);
    r.on_segment(3 * MS, &data_to_sink(&r, 0, MSS));
    assert_eq!(last_blocks(&mut r), vec![]);
}

#[test]
fn a_segment_straddling_rcv_nxt_reports_its_part_below() {
    let mut r = sink(true);
    let base = r.irs() + 1;
    r.on_segment(MS, &data_to_sink(&r, 0, MSS));
    drain(&mut r);
    r.on_segment(2 * MS, &data_to_sink(&r, MSS / 2, MSS));
    // in order beyond rcv_nxt: the ACK may wait for the delayed-ACK timer, the DSACK with it
    if let Some(t) = r.delack_deadline() {
        r.on_timeout(t);
    }
    assert_eq!(last_blocks(&mut r), vec![(base + MSS / 2, base + MSS)]);
    assert_eq!(r.rcv_nxt(), base + MSS + MSS / 2, "the rest is taken");
}

#[test]
fn a_duplicate_of_held_data_is_reported_before_the_block_holding_it() {
    let mut r = sink(true);
    let base = r.irs() + 1;
    r.on_segment(MS, &data_to_sink(&r, 0, MSS));
    r.on_segment(2 * MS, &data_to_sink(&r, 2 * MSS, MSS)); // hole at 1
    r.on_segment(3 * MS, &data_to_sink(&r, 3 * MSS, MSS));
    r.on_segment(4 * MS, &data_to_sink(&r, 5 * MSS, MSS)); // hole at 4
    drain(&mut r);
    r.on_segment(5 * MS, &data_to_sink(&r, 2 * MSS, MSS)); // segment 2 again
    assert_eq!(
        last_blocks(&mut r),
        vec![
            (base + 2 * MSS, base + 3 * MSS), // the DSACK
            (base + 2 * MSS, base + 4 * MSS), // the block holding it (RFC 2883 4.2.2)
            (base + 5 * MSS, base + 6 * MSS),
        ]
    );
}

/// An RFC 6675 sender with Linux's undo, without timestamps (only DSACKs can show a resend
/// unnecessary), 10 segments outstanding; returns it and the first outstanding byte.
fn sender() -> (Tcp, Seq) {
    let host = HostProfile {
        sack_recovery: SackRecovery::Rfc6675Prr,
        undo: true,
        ..HostProfile::default()
    };
    let (mut s, _r) = established_hosts(64 * 1024, 10_000_000, RecoveryPolicy::SACK, host);
    drain(&mut s);
    let mut t = 10 * MS;
    while s.snd_max().since(s.snd_una()) < 10 * s.maxseg() {
        let next = s.snd_una() + s.maxseg();
        s.on_segment(t, &ack(&s, next, &[], None));
        drain(&mut s);
        t += MS;
    }
    let base = s.snd_una();
    (s, base)
}

/// An ACK for `ack` SACKing segment indices `[from, to)` from `base`, led by a DSACK block.
fn ack(s: &Tcp, ack: Seq, blocks: &[(Seq, Seq)], dsack: Option<(Seq, Seq)>) -> Segment {
    let mut a = ack_to_sender(s, ack, 64000);
    if let Some((d0, d1)) = dsack {
        a.sack.push(d0, d1);
    }
    for &(from, to) in blocks {
        a.sack.push(from, to);
    }
    a
}

/// Segments `[from, to)` of the window starting at `base`.
fn segs(s: &Tcp, base: Seq, from: u32, to: u32) -> (Seq, Seq) {
    (base + from * s.maxseg(), base + to * s.maxseg())
}

/// Duplicates at 100 ms SACKing the blocks of segment indices each names: recovery, the holes
/// resent. Returns the indices resent.
fn enter_recovery(s: &mut Tcp, base: Seq, dupacks: &[&[(u32, u32)]]) -> Vec<u32> {
    for blocks in dupacks {
        let blocks: Vec<(Seq, Seq)> = blocks.iter().map(|&(a, b)| segs(s, base, a, b)).collect();
        s.on_segment(100 * MS, &ack(s, base, &blocks, None));
    }
    drain(s)
        .iter()
        .filter(|(seg, _)| seg.len > 0 && seg.seq.lt(base + 10 * s.maxseg()))
        .map(|(seg, _)| seg.seq.since(base) / s.maxseg())
        .collect()
}

/// Segment 0 missing: three duplicates SACKing 1-3.
const HEAD_LOST: [&[(u32, u32)]; 3] = [&[(1, 2)], &[(1, 3)], &[(1, 4)]];

#[test]
fn a_late_dsack_for_the_only_resend_undoes_the_finished_recovery() {
    let (mut s, base) = sender();
    let (cwnd, ssthresh) = (s.cwnd(), s.ssthresh());
    assert_eq!(enter_recovery(&mut s, base, &HEAD_LOST), vec![0]);
    assert!(s.ssthresh() < ssthresh, "recovery reduced the window");
    // snoop's local copy filled the hole: everything is acknowledged, recovery ends reduced
    let end = base + 10 * s.maxseg();
    s.on_segment(150 * MS, &ack(&s, end, &[], None));
    let reduced = s.ssthresh();
    assert!(reduced < ssthresh);
    // then the sender's resend arrives as a duplicate: the receiver's DSACK
    let head = segs(&s, base, 0, 1);
    s.on_segment(160 * MS, &ack(&s, end, &[], Some(head)));
    assert_eq!(s.ssthresh(), ssthresh, "tcp_try_undo_dsack: ssthresh back");
    assert!(s.cwnd() >= cwnd, "cwnd back to prior_cwnd");
}

#[test]
fn a_dsack_inside_the_window_counts_and_undoes_in_recovery() {
    let (mut s, base) = sender();
    let ssthresh = s.ssthresh();
    enter_recovery(&mut s, base, &HEAD_LOST);
    // a partial ACK for segments 0-1 carries the DSACK of segment 0 below it
    let (head, sacked) = (segs(&s, base, 0, 1), segs(&s, base, 2, 4));
    s.on_segment(
        150 * MS,
        &ack(&s, base + 2 * s.maxseg(), &[sacked], Some(head)),
    );
    assert_eq!(s.ssthresh(), ssthresh, "undo_retrans reached 0 in recovery");
}

#[test]
fn one_resend_not_reported_keeps_the_reduction() {
    let (mut s, base) = sender();
    let ssthresh = s.ssthresh();
    // segments 0 and 5 missing: both resent
    let dupacks: [&[(u32, u32)]; 3] = [&[(1, 5)], &[(1, 5), (6, 7)], &[(1, 5), (6, 9)]];
    let resent = enter_recovery(&mut s, base, &dupacks);
    assert_eq!(resent, vec![0, 5], "both holes resent");
    let end = base + 10 * s.maxseg();
    s.on_segment(150 * MS, &ack(&s, end, &[], None));
    // only segment 0's resend is reported a duplicate
    s.on_segment(160 * MS, &ack(&s, end, &[], Some(segs(&s, base, 0, 1))));
    assert!(s.ssthresh() < ssthresh, "undo_retrans is 1: no undo");
    // segment 5's too: now every resend was unnecessary
    s.on_segment(170 * MS, &ack(&s, end, &[], Some(segs(&s, base, 5, 6))));
    assert_eq!(s.ssthresh(), ssthresh);
}

#[test]
fn a_dsack_for_data_never_resent_undoes_nothing() {
    let (mut s, base) = sender();
    let ssthresh = s.ssthresh();
    enter_recovery(&mut s, base, &HEAD_LOST);
    let end = base + 10 * s.maxseg();
    s.on_segment(150 * MS, &ack(&s, end, &[], None));
    // a DSACK for two segments when only one was ever resent: dubious (tcp_dsack_seen)
    s.on_segment(160 * MS, &ack(&s, end, &[], Some(segs(&s, base, 0, 2))));
    assert!(s.ssthresh() < ssthresh);
}

/// [`sender`] with RACK-TLP and Linux's RTO estimator (RACK's window reads its srtt), no undo.
fn rack_sender() -> (Tcp, Seq) {
    let host = HostProfile {
        sack_recovery: SackRecovery::Rfc6675Prr,
        rack_tlp: true,
        rtt_estimator: RttEstimator::Linux {
            rto_min: TCP_RTO_MIN,
        },
        ..HostProfile::default()
    };
    let (mut s, _r) = established_hosts(64 * 1024, 10_000_000, RecoveryPolicy::SACK, host);
    drain(&mut s);
    let mut t = 10 * MS;
    while s.snd_max().since(s.snd_una()) < 10 * s.maxseg() {
        let next = s.snd_una() + s.maxseg();
        s.on_segment(t, &ack(&s, next, &[], None));
        drain(&mut s);
        t += 10 * MS;
    }
    let base = s.snd_una();
    (s, base)
}

/// RACK's window after a recovery whose resend is then reported a duplicate, and an ACK of new
/// data after that; `reordering` as RACK saw it before. Returns (before, after).
fn reo_wnd_around_a_dsack(reordering: bool) -> (Time, Time) {
    let (mut s, base) = rack_sender();
    s.sel.rack.reord = reordering;
    let t = 200 * MS;
    for k in 1..=3 {
        s.on_segment(t, &ack(&s, base, &[segs(&s, base, 1, 1 + k)], None));
    }
    drain(&mut s);
    // everything outstanding, the new data the duplicates let out too (`disorder.rs`)
    let end = s.snd_max();
    s.on_segment(t + 10 * MS, &ack(&s, end, &[], None));
    drain(&mut s);
    let before = s.rack_reo_wnd();
    s.on_segment(t + 20 * MS, &ack(&s, end, &[], Some(segs(&s, base, 0, 1))));
    s.on_segment(t + 30 * MS, &ack(&s, end + s.maxseg(), &[], None));
    (before, s.rack_reo_wnd())
}

#[test]
fn a_dsack_after_reordering_widens_racks_window() {
    let (before, after) = reo_wnd_around_a_dsack(true);
    assert!(before > 0);
    assert_eq!(
        after,
        2 * before,
        "tcp_rack_update_reo_wnd(): reo_wnd_steps 2"
    );
    // without reordering seen the DSACK is not RACK's
    let (before, after) = reo_wnd_around_a_dsack(false);
    assert_eq!(after, before);
}
