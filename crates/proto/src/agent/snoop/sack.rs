//! Snoop for a SACK sender: what the RFC 2018 SACK blocks of the mobile host's ACKs tell the base
//! station, and what of them the fixed host is shown. Two agents use it (docs/snoop-sack.md):
//!
//! - **`snoop-sack-vl`** ([`SnoopConfig::read_sack`]): Vangala and Labrador's "TCP SACK-aware
//!   Snoop protocol" (IEEE VTC 2003-Fall). Only its abstract could be found (the `search` corpora
//!   hold no text of the paper and no ns-2 code of it): snoop "made TCP SACK-aware", about 30%
//!   above plain snoop and 8% above no agent for an ns-2 SACK sender, plain snoop being worse than
//!   no agent. What it does is our reading, each point named as one: (a) it starts from the ns-2
//!   snoop, paper 000's settings; (b) the SACK blocks of an ACK mark the cached segments they
//!   cover as received ([`mark_sacked`]); (c) an ACK, duplicate or new, with a block above its
//!   acknowledgment shows the segment at the ACK missing at once, as SMART does in paper 000's
//!   LL-SMART-TCP-AWARE, instead of counting duplicates to the threshold ([`loss_bound`],
//!   [`new_ack_opens_recovery`]); (d)
//!   every cached segment the blocks show missing below the highest one is resent, at most once per
//!   wireless RTT (snoop's selective rule, `ack.rs`); (e) the duplicate ACKs snoop answers are
//!   suppressed as plain snoop suppresses them; the ACKs it forwards go unchanged.
//! - **`snoop-sack`** ([`SnoopConfig::hide_repaired_sack`], [`SnoopConfig::resend_overtaken`]),
//!   our own: the same, the ACKs it forwards lose the blocks that lie above a hole snoop is
//!   repairing ([`hide_repaired_holes`]), and a hole whose local retransmission a later segment
//!   has overtaken is resent at once ([`latest_delivery`]).
//!
//! Why hiding. A SACK sender declares a segment lost from the blocks above it: RFC 6675 section 4
//! (`IsLost`: DupThresh segments, or more than (DupThresh - 1) * SMSS bytes, SACKed above it) and
//! RFC 8985 section 6.2 (RACK: a segment sent later is SACKed and the reordering window, at first
//! a quarter of the minimum RTT, has passed; Linux `tcp_rack_detect_loss`, net/ipv4/tcp_recovery.c).
//! A partial ACK snoop forwards during its local recovery carries the blocks above the next hole,
//! so the sender retransmits that hole too, halves its window (PRR), and the two repairs race
//! (docs/live.md, "The modern profile"). Without those blocks the sender sees its cumulative
//! acknowledgment advance, and no later segment SACKed, so neither rule marks anything lost. The
//! candidates the issue names and why these:
//! - hiding the blocks: the rule above ([`hide_repaired_holes`]);
//! - holding back the first duplicate ACK until the local retransmission's outcome is known: the
//!   SACK evidence ([`loss_bound`]) resends on the first duplicate ACK and suppresses it and the
//!   expected ones after it; when snoop sees more duplicates than it expects (its retransmission
//!   did not arrive) it passes them on as plain snoop does, with their blocks: the outcome is known,
//!   and the sender takes over ([`hide_repaired_holes`] is not applied to them);
//! - pacing local retransmissions against RACK's reordering window: not built as such. With the
//!   blocks hidden the sender's RACK sees no later segment delivered above a hole snoop repairs,
//!   so its reordering window never starts; what snoop can still race is the sender's tail loss
//!   probe (RFC 8985 section 7, two smoothed RTTs of silence) and its RTO. A lost local
//!   retransmission is what makes that silence long, so snoop detects it as RACK would
//!   ([`latest_delivery`]) instead of waiting for its round-trip timer.
//!
//! A hole the sender must repair (a segment snoop never cached: lost before the base station, or
//! past its cache) keeps every block above it visible: hiding it would delay the sender's
//! congestion response. A D-SACK block (RFC 2883: at or below the acknowledgment) always passes.
//! On a connection that does not negotiate SACK no ACK carries a block, and both agents act as
//! paper 000's snoop, bit for bit.
//!
//! On the wire: a rewritten ACK is built anew ([`BuildPacket::build`]): the live mode's packets
//! through `wire::rebuild`, which writes the fewer blocks, the shorter TCP header and IPv4 total
//! length, and both checksums.

use super::{BuildPacket, Conn, Entry, SnoopConfig};
use crate::segment::{SackBlocks, Segment};
use crate::seq::Seq;
use crate::time::Time;

/// The blocks of `seg` that report data above its acknowledgment (RFC 2018 section 3); a block at
/// or below it is a D-SACK (RFC 2883 section 4) and tells nothing about holes.
fn blocks_above(seg: &Segment) -> impl Iterator<Item = (Seq, Seq)> + '_ {
    seg.sack.iter().filter(move |&(_, end)| end.gt(seg.ack))
}

/// Whether `[from, to)` lies inside one SACK block of `seg` (the receiver merges adjacent data
/// into one block, RFC 2018 section 4).
fn sacked(seg: &Segment, from: Seq, to: Seq) -> bool {
    seg.sack.iter().any(|(s, e)| s.le(from) && to.le(e))
}

/// Reading (b): the cached segments an ACK's SACK blocks cover have reached the mobile host
/// (RFC 2018 section 4: a block is data "received and queued").
pub(super) fn mark_sacked<P>(conn: &mut Conn<P>, seg: &Segment) {
    if seg.sack.is_empty() {
        return;
    }
    for e in conn.cache.iter_mut() {
        if !e.received && sacked(seg, e.seq, e.end()) {
            e.received = true;
        }
    }
}

/// The bound of snoop's selective rule for this ACK: segments below it that have not reached the
/// mobile host are missing. With `selective`, the segment SMART names as the cause of the ACK
/// (paper 000 section II); with [`SnoopConfig::read_sack`] (reading (c)), the highest byte the
/// SACK blocks report above the acknowledgment: on one wireless hop the base station's frames
/// arrive in the order it sends them, so one later segment delivered is evidence of a loss, where
/// a sender across the Internet waits for DupThresh of them (RFC 6675 section 4) or a reordering
/// window (RFC 8985 section 6.2). A bound above the ACK shows the segment at the ACK missing.
pub(super) fn loss_bound(cfg: &SnoopConfig, seg: &Segment) -> Option<Seq> {
    if cfg.selective && seg.smart.is_some() {
        return seg.smart;
    }
    if !cfg.read_sack {
        return None;
    }
    highest_sacked(seg)
}

/// The highest byte the SACK blocks of `seg` report above its acknowledgment.
pub(super) fn highest_sacked(seg: &Segment) -> Option<Seq> {
    blocks_above(seg)
        .map(|(_, end)| end)
        .reduce(|a, b| a.max(b))
}

/// Reading (d) on a partial ACK during local recovery: the bound below which snoop's selective
/// rule resends every hole the blocks show, not only the one at the ACK. `None` without
/// [`SnoopConfig::read_sack`] (paper 000's selective rule reads SMART on duplicates only).
pub(super) fn partial_ack_bound(cfg: &SnoopConfig, seg: &Segment) -> Option<Seq> {
    if !cfg.read_sack {
        return None;
    }
    highest_sacked(seg)
}

/// Ours ([`SnoopConfig::resend_overtaken`], `snoop-sack`): when snoop last sent the latest of the cached segments this ACK's
/// blocks report delivered. A hole snoop resent before that has lost its retransmission: the
/// base station's queue sends local retransmissions ahead of everything queued and otherwise in
/// the order queued, and the wireless hop does not reorder, so a segment queued later cannot
/// arrive first. This is RACK's rule (RFC 8985 section 6.2: a segment is lost when one sent after
/// it is delivered) without its reordering window, and snoop's selective rule resends such a hole
/// at once rather than a wireless RTT after its last copy. Without it a lost local
/// retransmission waits for snoop's round-trip timer (200 ms at least in paper 000) while the
/// sender, shown no blocks, hears nothing and may time out. `None` where the rule is off.
pub(super) fn latest_delivery<P>(cfg: &SnoopConfig, conn: &Conn<P>, seg: &Segment) -> Option<Time> {
    if !(cfg.read_sack && cfg.resend_overtaken) {
        return None;
    }
    conn.cache
        .iter()
        .filter(|e| sacked(seg, e.seq, e.end()))
        .map(|e| e.last_tx)
        .max()
}

/// Reading (c) on a new ACK outside local recovery: one with a block above its acknowledgment
/// shows the segment at it missing just as a duplicate does, and opens local recovery through the
/// duplicate-ACK rule. A Linux receiver sends such ACKs often: an out-of-order segment is
/// acknowledged at once (`tcp_data_queue`, net/ipv4/tcp_input.c), and that ACK also covers the
/// in-order data its delayed ACK was holding, so the first ACK after a loss is new, not a
/// duplicate; plain snoop forwards it and the sender's RACK marks the hole lost.
pub(super) fn new_ack_opens_recovery(
    cfg: &SnoopConfig,
    recovery_until: Option<Seq>,
    seg: &Segment,
) -> bool {
    cfg.read_sack && recovery_until.is_none() && loss_bound(cfg, seg).is_some_and(|b| b.gt(seg.ack))
}

/// Reading (d) on a partial ACK during local recovery: the segment at the new acknowledgment is
/// missing when a SACK block lies above it, and snoop resends it at once unless the sender has
/// resent it, a copy still waits in the base station's queue, or snoop resent it within the last
/// wireless RTT (the selective rule's pace). Paper 000's snoop infers the same from the count of
/// duplicates (section V-B, [`SnoopConfig::partial_ack_retransmit`]); the blocks say it exactly.
pub(super) fn partial_ack_shows_loss<P>(
    cfg: &SnoopConfig,
    e: &Entry<P>,
    seg: &Segment,
    known: bool,
    now: Time,
    srtt: Time,
) -> bool {
    let due = e.local_rexmits == 0 || now.saturating_sub(e.last_tx) >= srtt;
    cfg.read_sack
        && blocks_above(seg).next().is_some()
        && !e.received
        && !e.sender_rexmit
        && !e.queued(known)
        && due
}

/// Reading (e) on a partial ACK during local recovery whose segment snoop has resent already (the
/// selective rule resends every hole the blocks show, not only the one at the ACK): the duplicate
/// ACKs the packets sent after that retransmission draw are expected, and suppressed, as those
/// after a retransmission on a duplicate ACK are (paper 002 section 3.1.2, case 3). Returns how
/// many, `None` where the rule does not apply (not [`SnoopConfig::read_sack`], not resent by
/// snoop, or resent by the sender). `forwarded` counts the data packets sent so far.
pub(super) fn already_resent<P>(cfg: &SnoopConfig, e: &Entry<P>, forwarded: u64) -> Option<u32> {
    let applies = cfg.read_sack && e.local_rexmits > 0 && !e.sender_rexmit && !e.received;
    applies.then(|| {
        let after = forwarded.saturating_sub(e.sent_index + 1);
        u32::try_from(after).unwrap_or(u32::MAX)
    })
}

/// A hole snoop is repairing itself: a cached segment the mobile host lacks, resent by snoop (or
/// with a copy still on its way in the base station's queue), not by the sender.
fn repairing<P>(e: &Entry<P>, known: bool) -> bool {
    !e.received && !e.sender_rexmit && (e.local_rexmits > 0 || e.queued(known))
}

/// Whether every hole between the acknowledgment of `seg` and `start` is one snoop is repairing
/// (and there is one): then a block starting at `start` tells the sender only of losses it need
/// not act on. Bytes between cached segments that no block covers were never cached: the
/// sender's to repair.
fn only_repaired_holes_below<P>(conn: &Conn<P>, seg: &Segment, start: Seq) -> bool {
    let known = conn.departures_known;
    let mut pos = seg.ack;
    let mut any = false;
    for e in conn.cache.iter() {
        if !e.seq.lt(start) {
            break;
        }
        if e.end().le(pos) {
            continue;
        }
        if e.seq.gt(pos) && !sacked(seg, pos, e.seq) {
            return false;
        }
        if !(e.received || sacked(seg, e.seq, e.end())) {
            if !repairing(e, known) {
                return false;
            }
            any = true;
        }
        pos = pos.max(e.end());
    }
    any && (pos.ge(start) || sacked(seg, pos, start))
}

/// Our rule ([`SnoopConfig::hide_repaired_sack`]): the ACK `packet` (header `seg`), about to go to
/// the fixed host, without the SACK blocks that lie above holes snoop is repairing, so that the
/// sender's scoreboard (RFC 6675 `IsLost`) and RACK (RFC 8985 section 6.2) do not mark them lost
/// while the local retransmission is on its way. The other blocks keep their order (RFC 2018
/// section 4: the first reports the most recent data); `packet` itself when nothing is hidden.
pub(super) fn hide_repaired_holes<P: BuildPacket>(conn: &Conn<P>, seg: &Segment, packet: P) -> P {
    if seg.sack.is_empty() {
        return packet;
    }
    let mut kept = SackBlocks::default();
    let mut hidden = false;
    for (start, end) in seg.sack.iter() {
        if end.gt(seg.ack) && only_repaired_holes_below(conn, seg, start) {
            hidden = true;
        } else {
            kept.push(start, end);
        }
    }
    if !hidden {
        return packet;
    }
    let rewritten = Segment { sack: kept, ..*seg };
    P::build(&rewritten, &packet)
}
