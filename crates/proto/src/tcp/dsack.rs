//! DSACK, the duplicate-SACK extension of RFC 2883, as Linux runs it: the receiver reports a
//! segment it already had in the first SACK block of the ACK it sends (host detail `dsack`,
//! Linux's `net.ipv4.tcp_dsack`), and the sender counts such reports against the retransmissions
//! of its loss episode, which Linux's undo reads (`undo.rs`, host detail `undo`).
//!
//! The receiver, functions of net/ipv4/tcp_input.c:
//! - `tcp_dsack_set()`: with SACK in use and the sysctl on, the range goes to
//!   `duplicate_sack[0]`; `tcp_options_write()` (tcp_output.c) puts it before the SACK blocks of
//!   the next ACK and clears it: reported once (RFC 2883 section 4, rule 1).
//! - Its callers: `tcp_data_queue()` for data wholly below `rcv_nxt` (`[seq, end_seq)`) or
//!   straddling it (`[seq, rcv_nxt)`), `tcp_send_dupack()` for a segment refused before
//!   (out of the window, or by PAWS: `[seq, min(end_seq, rcv_nxt))`), and
//!   `tcp_data_queue_ofo()` for out-of-order data overlapping what is held, after which
//!   `tcp_sack_new_ofo_skb()` puts the block holding it first among the SACK blocks: the DSACK
//!   block, then the block containing it (RFC 2883 section 4.2.2). A reading: the model holds
//!   out-of-order data as ranges, not as Linux's skbs, so the DSACK is the part of the segment
//!   inside the lowest held range it overlaps (Linux's `tcp_dsack_extend()` would add an
//!   adjacent overlap; with segments of one size there is none).
//!
//! The sender: `tcp_check_dsack()` takes the first block as a DSACK when it lies below the
//! ACK's cumulative acknowledgment, or inside the second block; `tcp_dsack_seen()` ignores an
//! empty one, one larger than the largest window the peer offered (`max_window`), and any once
//! more segments were reported duplicate than were ever retransmitted (`dsack_dups >
//! total_retrans`); a range longer than one MSS counts as that many segments. Each counted
//! DSACK lowers `undo_retrans` (`undo.rs`). The block is otherwise taken as Linux's
//! `tcp_sacktag_write_queue()` takes it: below the ACK it is ignored, above it it tags what it
//! covers, which the second block it lies in covers anyway.
//!
//! RACK's reordering window (`rack-tlp = on`, `recovery/rack.rs`) grows on DSACKs as
//! `tcp_rack_update_reo_wnd()` (net/ipv4/tcp_recovery.c) grows it: a counted DSACK, once
//! reordering was seen and unless it reports a tail loss probe (a block of at most one MSS ending
//! at `tlp_high_seq`), sets `rack.dsack_seen` (`tcp_dsack_seen()`); the next ACK that delivers
//! data adds a step to `reo_wnd_steps` (at most 255) and keeps the steps for
//! `TCP_RACK_RECOVERY_THRESH` (16) recoveries, each ending without an undo taking one off
//! (`tcp_try_undo_recovery()`), each DSACK undo adding one back (`tcp_try_undo_dsack()`); after
//! those the steps fall back to 1. A DSACK for data sent before the last step is disregarded.
//! Reading: Linux tells "sent before the last step" by its delivered count
//! (`rs->prior_delivered < rack.last_delivered`); here by RACK's `xmit_ts` of the newest segment
//! delivered against the time of the last step.

use super::Tcp;
use crate::segment::Segment;
use crate::seq::Seq;
use crate::time::Time;

/// `TCP_RACK_RECOVERY_THRESH` (include/net/tcp.h): the recoveries a widened window outlives.
const TCP_RACK_RECOVERY_THRESH: u32 = 16;

/// Both ends' DSACK state.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Dsack {
    /// Receiver: the duplicate range the next ACK reports first (`duplicate_sack[0]` while
    /// `rx_opt.dsack` is set).
    pending: Option<(Seq, Seq)>,
    /// Sender: `dsack_dups`, the segments the peer reported duplicate so far.
    dups: u64,
    /// RACK's `reo_wnd_steps` less one (so the default is Linux's 1).
    extra_steps: u32,
    /// `rack.dsack_seen`: a DSACK waits to widen the window.
    reo_dsack_seen: bool,
    /// When the window last widened (Linux's `rack.last_delivered`, as a time).
    reo_widened_at: Option<Time>,
    /// `rack.reo_wnd_persist`: recoveries the widened window still outlives.
    reo_persist: u32,
}

impl Tcp {
    /// The receiver sends DSACKs: the host says so and SACK is in use on this connection.
    fn dsack_sends(&self) -> bool {
        self.cfg.host.dsack && self.cfg.receiver.sack_blocks
    }

    /// `tcp_dsack_set()`: `[seq, end)` is reported in the next ACK, replacing an earlier range
    /// not yet reported.
    fn dsack_set(&mut self, seq: Seq, end: Seq) {
        if self.dsack_sends() && seq.lt(end) {
            self.dsack.pending = Some((seq, end));
        }
    }

    /// Data `[seq, seq + len)` arrived starting below `rcv_nxt`: its part below `rcv_nxt` is a
    /// duplicate (`tcp_data_queue()`, `tcp_send_dupack()`).
    pub(super) fn dsack_below_rcv_nxt(&mut self, seq: Seq, len: u32) {
        if len > 0 && seq.lt(self.rcv_nxt) {
            self.dsack_set(seq, (seq + len).min(self.rcv_nxt));
        }
    }

    /// Data `[seq, end)` at or above `rcv_nxt`, before it is queued: its part already held out
    /// of order is a duplicate (`tcp_data_queue_ofo()`).
    pub(super) fn dsack_held(&mut self, seq: Seq, end: Seq) {
        if !self.dsack_sends() {
            return;
        }
        let overlap = self
            .reass
            .ranges()
            .iter()
            .find(|&&(a, b)| a.lt(end) && seq.lt(b))
            .map(|&(a, b)| (a.max(seq), b.min(end)));
        if let Some((a, b)) = overlap {
            self.dsack_set(a, b);
        }
    }

    /// The DSACK block for the ACK being built, taken: it is reported once.
    pub(super) fn take_dsack(&mut self) -> Option<(Seq, Seq)> {
        self.dsack.pending.take()
    }

    /// `rack.reo_wnd_steps`: RACK's reordering window in quarters of min_rtt.
    pub(in crate::tcp) fn reo_wnd_steps(&self) -> u64 {
        1 + u64::from(self.dsack.extra_steps)
    }

    /// `tcp_dsack_seen()`'s part for RACK: a DSACK after reordering was seen, not a tail loss
    /// probe's, will widen the window.
    pub(super) fn rack_note_dsack(&mut self, start: Seq, end: Seq) {
        let tlp = end.since(start) <= self.maxseg && self.sel.tlp.high_seq == Some(end);
        if self.sel.rack.reord && !tlp {
            self.dsack.reo_dsack_seen = true;
        }
    }

    /// `tcp_rack_update_reo_wnd()`, on every ACK of an RACK sender before loss is marked: once
    /// the ACK delivered data, a pending DSACK (for data sent since the last step) adds a step;
    /// with none and no recoveries left to outlive, the steps fall back to 1.
    pub(in crate::tcp) fn rack_update_reo_wnd(&mut self, now: Time) {
        if self.sel.rfc().delivered == 0 {
            return; // no rate sample: `!rs->prior_delivered`
        }
        let d = &mut self.dsack;
        if let (Some(at), Some(sent)) = (d.reo_widened_at, self.sel.rack.xmit_ts) {
            if sent < at {
                d.reo_dsack_seen = false;
            }
        }
        if d.reo_dsack_seen {
            d.extra_steps = (d.extra_steps + 1).min(0xFF - 1);
            d.reo_dsack_seen = false;
            d.reo_widened_at = Some(now);
            d.reo_persist = TCP_RACK_RECOVERY_THRESH;
        } else if d.reo_persist == 0 {
            d.extra_steps = 0;
        }
    }

    /// A recovery ended without an undo (`tcp_try_undo_recovery()`): one recovery fewer for the
    /// widened window to outlive.
    pub(super) fn reo_recovery_ended(&mut self) {
        self.dsack.reo_persist = self.dsack.reo_persist.saturating_sub(1);
    }

    /// A DSACK undo (`tcp_try_undo_dsack()`): one recovery more.
    pub(super) fn reo_dsack_undone(&mut self) {
        self.dsack.reo_persist = (self.dsack.reo_persist + 1).min(TCP_RACK_RECOVERY_THRESH);
    }

    /// `tcp_check_dsack()` and `tcp_dsack_seen()` on an ACK, before `snd_una` moves: the DSACK
    /// block and the segments it counts for, if the ACK carries one that counts.
    pub(super) fn dsack_of(&mut self, seg: &Segment) -> Option<(Seq, Seq, u32)> {
        let mut blocks = seg.sack.iter();
        let (start, end) = blocks.next()?;
        let below_ack = start.lt(seg.ack);
        let mut inside_second = || {
            blocks
                .next()
                .is_some_and(|(s1, e1)| end.le(e1) && start.ge(s1))
        };
        if !(below_ack || inside_second()) {
            return None;
        }
        if !start.lt(end) {
            return None;
        }
        let len = end.since(start);
        if len > self.max_sndwnd {
            return None; // dubious: more than the peer's largest window
        }
        let segments = len.div_ceil(self.maxseg.max(1)).max(1);
        self.dsack.dups += u64::from(segments);
        if self.dsack.dups > self.stats.rexmt_segs {
            return None; // more duplicates than this sender ever resent
        }
        Some((start, end, segments))
    }
}
