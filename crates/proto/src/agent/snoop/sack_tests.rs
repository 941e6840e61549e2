//! Scripted packet-level tests of snoop for a SACK sender (`sack.rs`): each rule of
//! `snoop-sack-vl` and `snoop-sack`, and that without SACK blocks both are paper 000's snoop.

use super::*;
use crate::agent::{Agent, Port, Priority};
use crate::segment::{Flags, SackBlocks};
use crate::test_support::{segment as seg, Pkt, FH, MH};
use crate::time::MS;

const MSS: u32 = 1000;
const ISS: u32 = 100;

/// The first byte of data segment `i` (0-based).
fn at(i: u32) -> Seq {
    Seq(ISS + 1 + i * MSS)
}

fn data(i: u32) -> Pkt {
    Pkt(Some(seg(FH, MH, at(i).0, 1, Flags::ACK, MSS)))
}

/// An ACK for the first `n` segments with SACK blocks `[a, b)` in segment numbers, most recent
/// first.
fn sack(n: u32, blocks: &[(u32, u32)]) -> Pkt {
    let mut s = seg(MH, FH, 1, at(n).0, Flags::ACK, 0);
    let mut b = SackBlocks::default();
    for &(from, to) in blocks {
        b.push(at(from), at(to));
    }
    s.sack = b;
    Pkt(Some(s))
}

fn syn() -> Pkt {
    Pkt(Some(seg(FH, MH, ISS, 0, Flags::SYN, 0)))
}

fn drain(a: &mut SnoopAgent<Pkt>) -> Vec<Transmit<Pkt>> {
    std::iter::from_fn(|| a.poll_transmit(0)).collect()
}

fn resent(out: &[Transmit<Pkt>]) -> Vec<u32> {
    out.iter()
        .filter(|t| t.port == Port::Wireless)
        .filter_map(|t| t.packet.0.map(|s| (s.seq.0 - ISS - 1) / MSS))
        .collect()
}

/// The SACK blocks, in segment numbers, of the ACKs that went to the fixed host.
fn forwarded_blocks(out: &[Transmit<Pkt>]) -> Vec<Vec<(u32, u32)>> {
    let n = |s: Seq| (s.0 - ISS - 1) / MSS;
    out.iter()
        .filter(|t| t.port == Port::Wired)
        .filter_map(|t| t.packet.0)
        .map(|s| s.sack.iter().map(|(a, b)| (n(a), n(b))).collect())
        .collect()
}

/// An agent that has seen the SYN, forwarded segments `sent` at 1 ms intervals, and an ACK for
/// the first `acked` segments at 20 ms.
fn primed(cfg: SnoopConfig, sent: &[u32], acked: u32) -> SnoopAgent<Pkt> {
    let mut a = SnoopAgent::new(cfg);
    a.on_packet(0, Port::Wired, syn());
    for (k, &i) in sent.iter().enumerate() {
        a.on_packet(MS * (k as u64 + 1), Port::Wired, data(i));
    }
    a.on_packet(20 * MS, Port::Wireless, sack(acked, &[]));
    drain(&mut a);
    a
}

const VL: SnoopConfig = SnoopConfig::sack_vangala_labrador();
const OURS: SnoopConfig = SnoopConfig::sack_hiding();
const ALL6: &[u32] = &[0, 1, 2, 3, 4, 5];

#[test]
fn a_duplicate_ack_whose_block_shows_a_later_segment_resends_at_once_and_is_suppressed() {
    for cfg in [VL, OURS] {
        // 2 lost, 3 arrived: the first duplicate ACK already says so
        let mut a = primed(cfg, ALL6, 2);
        a.on_packet(21 * MS, Port::Wireless, sack(2, &[(3, 4)]));
        let out = drain(&mut a);
        assert_eq!(resent(&out), vec![2]);
        assert_eq!(out[0].priority, Priority::High);
        assert!(forwarded_blocks(&out).is_empty(), "suppressed");
    }
    // paper 000's snoop waits for the second duplicate and passes the first on
    let mut a = primed(SnoopConfig::paper000(true, false), ALL6, 2);
    a.on_packet(21 * MS, Port::Wireless, sack(2, &[(3, 4)]));
    let out = drain(&mut a);
    assert!(resent(&out).is_empty());
    assert_eq!(forwarded_blocks(&out), vec![vec![(3, 4)]]);
}

#[test]
fn a_duplicate_ack_with_only_a_dsack_block_counts_as_plain_snoop_counts() {
    // a D-SACK (RFC 2883) below the ACK: a duplicate segment arrived, nothing is shown missing
    let mut a = primed(OURS, ALL6, 2);
    a.on_packet(21 * MS, Port::Wireless, sack(2, &[(1, 2)]));
    let out = drain(&mut a);
    assert!(resent(&out).is_empty(), "below the threshold of 2");
    assert_eq!(
        forwarded_blocks(&out),
        vec![vec![(1, 2)]],
        "passed on whole"
    );
}

#[test]
fn every_hole_the_blocks_show_is_resent_once_per_wireless_rtt() {
    // 1 and 3 lost; 2, 4 and 5 arrived
    let mut a = primed(VL, ALL6, 1);
    a.on_packet(21 * MS, Port::Wireless, sack(1, &[(4, 6), (2, 3)]));
    assert_eq!(resent(&drain(&mut a)), vec![1, 3]);
    // the next duplicate shows the same holes: not again within the wireless RTT
    a.on_packet(22 * MS, Port::Wireless, sack(1, &[(4, 6), (2, 3)]));
    assert!(resent(&drain(&mut a)).is_empty());
}

#[test]
fn a_segment_a_block_covers_is_not_resent() {
    // 1 lost; 2 arrived and reported once, in an ACK the next ones no longer repeat
    let mut a = primed(VL, ALL6, 1);
    a.on_packet(21 * MS, Port::Wireless, sack(1, &[(4, 5), (2, 3)]));
    assert_eq!(resent(&drain(&mut a)), vec![1, 3]);
    // 300 ms on, due again: the holes, not 2, which this ACK's blocks no longer cover
    a.on_packet(300 * MS, Port::Wireless, sack(1, &[(4, 6)]));
    assert_eq!(resent(&drain(&mut a)), vec![1, 3]);
}

#[test]
fn a_new_ack_with_a_block_above_opens_local_recovery() {
    for cfg in [VL, OURS] {
        // the receiver's delayed ACK for 0..2 goes out with the out-of-order 3: new, not a duplicate
        let mut a = primed(cfg, ALL6, 1);
        a.on_packet(21 * MS, Port::Wireless, sack(2, &[(3, 4)]));
        let out = drain(&mut a);
        assert_eq!(resent(&out), vec![2]);
        assert_eq!(forwarded_blocks(&out).len(), 1, "the new ACK goes on");
        // the duplicates of the packets sent after 2 are expected
        a.on_packet(22 * MS, Port::Wireless, sack(2, &[(3, 5)]));
        let out = drain(&mut a);
        assert!(out.is_empty(), "{out:?}");
    }
}

#[test]
fn the_forwarded_ack_loses_the_blocks_above_a_hole_snoop_repairs() {
    let mut a = primed(OURS, ALL6, 1);
    a.on_packet(21 * MS, Port::Wireless, sack(2, &[(3, 4)]));
    assert_eq!(forwarded_blocks(&drain(&mut a)), vec![vec![]]);
    // Vangala and Labrador's agent (as read) forwards it whole
    let mut a = primed(VL, ALL6, 1);
    a.on_packet(21 * MS, Port::Wireless, sack(2, &[(3, 4)]));
    assert_eq!(forwarded_blocks(&drain(&mut a)), vec![vec![(3, 4)]]);
}

#[test]
fn a_partial_ack_whose_block_shows_the_next_hole_resends_it_and_hides_the_block() {
    // 2 and 4 lost; 3 and 5 arrived
    let mut a = primed(OURS, ALL6, 2);
    a.on_packet(21 * MS, Port::Wireless, sack(2, &[(3, 4)]));
    assert_eq!(resent(&drain(&mut a)), vec![2]);
    // Before 5 is reported: the retransmitted 2 arrives, the ACK moves to 4 and still shows 3
    // ... but 5 arrives after: the partial ACK carries (5, 6) above the next hole.
    a.on_packet(25 * MS, Port::Wireless, sack(4, &[(5, 6)]));
    let out = drain(&mut a);
    assert_eq!(resent(&out), vec![4], "resent at once on the partial ACK");
    assert_eq!(forwarded_blocks(&out), vec![vec![]], "its block hidden");
    // the duplicates of the packets sent after 4 (5, and the resent 2) are expected
    a.on_packet(26 * MS, Port::Wireless, sack(4, &[(5, 6)]));
    let out = drain(&mut a);
    assert!(out.is_empty(), "{out:?}");
}

#[test]
fn duplicates_after_a_partial_ack_for_a_hole_already_resent_are_expected() {
    // 1 and 3 lost; the first duplicate resends both
    let mut a = primed(OURS, ALL6, 1);
    a.on_packet(21 * MS, Port::Wireless, sack(1, &[(4, 6), (2, 3)]));
    assert_eq!(resent(&drain(&mut a)), vec![1, 3]);
    // the resent 1 arrives: the ACK moves to 3, resent already (not again)
    a.on_packet(23 * MS, Port::Wireless, sack(3, &[(4, 6)]));
    let out = drain(&mut a);
    assert!(resent(&out).is_empty());
    assert_eq!(forwarded_blocks(&out), vec![vec![]], "hidden: 3 is snoop's");
    // a duplicate for 3 (the 3 copies before it were sent after 3's retransmission? none were:
    // 3 was resent last), so the next one is not expected and goes on with its blocks
    a.on_packet(24 * MS, Port::Wireless, sack(3, &[(4, 6)]));
    let out = drain(&mut a);
    assert_eq!(forwarded_blocks(&out), vec![vec![(4, 6)]]);
    // with new data sent after the retransmission of 3, its duplicates are expected
    let mut a = primed(OURS, ALL6, 1);
    a.on_packet(21 * MS, Port::Wireless, sack(1, &[(4, 6), (2, 3)]));
    a.on_packet(22 * MS, Port::Wired, data(6));
    a.on_packet(22 * MS, Port::Wired, data(7));
    drain(&mut a);
    a.on_packet(23 * MS, Port::Wireless, sack(3, &[(4, 6)]));
    drain(&mut a);
    a.on_packet(24 * MS, Port::Wireless, sack(3, &[(4, 7)]));
    let out = drain(&mut a);
    assert!(forwarded_blocks(&out).is_empty(), "expected for 6: {out:?}");
    // (6 was sent after the retransmission of 3 and arrived: that retransmission was lost)
    assert_eq!(resent(&out), vec![3]);
}

#[test]
fn a_block_above_a_hole_snoop_never_cached_stays_visible() {
    // 3 lost before the base station (never seen), 2 lost on the air; 4 and 5 arrived
    let mut a = primed(OURS, &[0, 1, 2, 4, 5], 2);
    a.on_packet(21 * MS, Port::Wireless, sack(2, &[(4, 6)]));
    let out = drain(&mut a);
    assert_eq!(resent(&out), vec![2]);
    // suppressed (snoop answers 2), so the next ACK, the partial one, is what the sender sees
    a.on_packet(25 * MS, Port::Wireless, sack(3, &[(4, 6)]));
    let out = drain(&mut a);
    assert_eq!(
        forwarded_blocks(&out),
        vec![vec![(4, 6)]],
        "the sender must repair 3"
    );
    // holes at 1 (on the air) and 3 (before the base station): the block between them is
    // hidden, the one above both kept
    let mut a = primed(OURS, &[0, 1, 2, 4, 5, 6, 7], 0);
    a.on_packet(21 * MS, Port::Wireless, sack(1, &[(4, 8), (2, 3)]));
    let out = drain(&mut a);
    assert_eq!(resent(&out), vec![1]);
    assert_eq!(forwarded_blocks(&out), vec![vec![(4, 8)]]);
}

#[test]
fn duplicates_beyond_the_expected_ones_reach_the_sender_with_their_blocks() {
    // 2 lost; 3, 4, 5 arrived; snoop's retransmission of 2 is lost too: the sender takes over
    let mut a = primed(OURS, ALL6, 2);
    for (k, top) in [4, 5, 6].into_iter().enumerate() {
        a.on_packet((21 + k as u64) * MS, Port::Wireless, sack(2, &[(3, top)]));
    }
    let out = drain(&mut a);
    assert_eq!(resent(&out), vec![2]);
    assert!(forwarded_blocks(&out).is_empty(), "expected: suppressed");
    a.on_packet(25 * MS, Port::Wireless, sack(2, &[(3, 6)]));
    assert_eq!(forwarded_blocks(&drain(&mut a)), vec![vec![(3, 6)]]);
}

#[test]
fn without_sack_blocks_both_agents_are_paper000s_snoop() {
    let script = |cfg: SnoopConfig| {
        let mut a = primed(cfg, ALL6, 2);
        let mut out = Vec::new();
        for t in 21..26 {
            a.on_packet(t * MS, Port::Wireless, sack(2, &[]));
            out.extend(drain(&mut a));
        }
        a.on_packet(30 * MS, Port::Wireless, sack(4, &[]));
        out.extend(drain(&mut a));
        a.on_timeout(400 * MS);
        out.extend(drain(&mut a));
        (out, *a.stats())
    };
    let plain = script(SnoopConfig::paper000(true, false));
    assert_eq!(script(VL), plain);
    assert_eq!(script(OURS), plain);
}

#[test]
fn a_partial_ack_resends_every_hole_its_blocks_show_so_all_are_hidden() {
    // 2 lost; 3 and 4 lost too, after the first duplicate (which showed only 5): the partial ACK
    // for 3 shows 3 and 4 missing below the block (5, 6)
    let mut a = primed(OURS, ALL6, 2);
    a.on_packet(21 * MS, Port::Wireless, sack(2, &[(5, 6)]));
    assert_eq!(resent(&drain(&mut a)), vec![2, 3, 4]);
    // a round trip later, 3 and 4 lost again; the resent 2 arrives
    a.on_packet(60 * MS, Port::Wireless, sack(3, &[(5, 6)]));
    let out = drain(&mut a);
    assert_eq!(resent(&out), vec![3, 4]);
    assert_eq!(forwarded_blocks(&out), vec![vec![]], "3 and 4 are snoop's");
}

#[test]
fn a_block_above_a_hole_between_cached_segments_that_snoop_never_saw_stays_visible() {
    // 2 lost before the base station; 1 and 3 lost on the air; 4 and 5 arrived
    let mut a = primed(OURS, &[0, 1, 3, 4, 5], 0);
    a.on_packet(21 * MS, Port::Wireless, sack(1, &[(4, 6)]));
    let out = drain(&mut a);
    assert_eq!(resent(&out), vec![1, 3]);
    assert_eq!(
        forwarded_blocks(&out),
        vec![vec![(4, 6)]],
        "2 is the sender's"
    );
}

#[test]
fn a_block_above_a_hole_the_sender_resent_stays_visible() {
    // 1 and 3 lost; snoop resends 1; the sender's own retransmission of 3 arrives
    let mut a = primed(OURS, ALL6, 1);
    a.on_packet(21 * MS, Port::Wireless, sack(1, &[(2, 3)]));
    assert_eq!(resent(&drain(&mut a)), vec![1]);
    a.on_packet(22 * MS, Port::Wired, data(3));
    drain(&mut a);
    // the resent 1 arrives: the partial ACK for 3 shows 4 and 5 above it
    a.on_packet(23 * MS, Port::Wireless, sack(3, &[(4, 6)]));
    let out = drain(&mut a);
    assert!(resent(&out).is_empty(), "the sender's retransmission");
    assert_eq!(forwarded_blocks(&out), vec![vec![(4, 6)]]);
}

#[test]
fn a_duplicate_forwarded_for_its_new_window_loses_the_blocks_snoop_answers() {
    let mut a = primed(OURS, ALL6, 2);
    a.on_packet(21 * MS, Port::Wireless, sack(2, &[(3, 4)]));
    assert_eq!(resent(&drain(&mut a)), vec![2]);
    // the receiver's window changed: snoop forwards the duplicate for its window alone
    let mut p = sack(2, &[(3, 5)]);
    if let Some(s) = p.0.as_mut() {
        s.window = 20000;
    }
    a.on_packet(22 * MS, Port::Wireless, p);
    let out = drain(&mut a);
    assert_eq!(forwarded_blocks(&out), vec![vec![]]);
    assert_eq!(out[0].packet.0.map(|s| s.window), Some(20000));
}

#[test]
fn a_local_retransmission_overtaken_by_a_later_segment_is_resent_at_once() {
    for (cfg, again) in [(OURS, vec![1]), (VL, vec![])] {
        // 1 lost; snoop resends it at 21 ms
        let mut a = primed(cfg, ALL6, 1);
        a.on_packet(21 * MS, Port::Wireless, sack(1, &[(2, 3)]));
        assert_eq!(resent(&drain(&mut a)), vec![1]);
        // 6, sent after that retransmission, is delivered and 1 is still missing: the
        // retransmission was lost (snoop-sack resends it well within the wireless RTT)
        a.on_packet(22 * MS, Port::Wired, data(6));
        drain(&mut a);
        a.on_packet(23 * MS, Port::Wireless, sack(1, &[(6, 7), (2, 6)]));
        assert_eq!(resent(&drain(&mut a)), again);
    }
    // a segment sent before the retransmission tells nothing of it
    let mut a = primed(OURS, ALL6, 1);
    a.on_packet(21 * MS, Port::Wireless, sack(1, &[(2, 3)]));
    drain(&mut a);
    a.on_packet(23 * MS, Port::Wireless, sack(1, &[(2, 4)]));
    assert!(resent(&drain(&mut a)).is_empty());
}
