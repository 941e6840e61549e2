//! Linux's undo of a spurious congestion response: when the original segments, not the
//! resends, reached the receiver (a local repair such as snoop's, or a delay), the window
//! reduction is taken back. Host detail `undo` (on in `linux`, `linux-reno` and
//! `linux-paper-sack`), for an RFC 6675 sender; functions of net/ipv4/tcp_input.c:
//! - `tcp_init_undo()`: on entering recovery (`tcp_enter_recovery()`) and on a timeout from
//!   Open (`tcp_enter_loss()`): `undo_marker = snd_una`, `prior_cwnd = cwnd`, `prior_ssthresh =
//!   tcp_current_ssthresh()`, `undo_retrans = retrans_out`, or -1 if none is out (a timeout
//!   first marks everything lost, `tcp_timeout_mark_lost()`, so there it is -1).
//! - `retrans_stamp`: the TS clock of the episode's first retransmission (`tcp_retransmit_skb()`
//!   sets it when zero), which also raises `undo_retrans` (from 0 if it was -1) by each
//!   segment resent. A reading: Linux zeroes `retrans_stamp` once no retransmission is
//!   outstanding in Open (`tcp_try_to_open()`); here it is cleared when an episode starts.
//! - Two detections. Timestamps (Eifel, RFC 3522): `tcp_packet_delayed()`, the ACK has a TSecr
//!   (non-zero) before `retrans_stamp` (`tcp_tsopt_ecr_before()`, wrapping compare). DSACK
//!   (RFC 3708's idea, `dsack.rs`): each retransmission the peer reports a duplicate lowers
//!   `undo_retrans` (`tcp_check_dsack()` for a DSACK below the acknowledged data, if it ends
//!   above `undo_marker`; `tcp_sacktag_one()` for each resent segment a DSACK above it covers);
//!   at 0 every retransmission was unnecessary. `tcp_may_undo()`: `undo_marker` set and
//!   (`undo_retrans == 0` or the packet delayed).
//! - Undo points: `tcp_try_undo_recovery()` on the ACK that ends recovery (`tcp_may_undo()`),
//!   `tcp_try_undo_partial()` on a partial ACK when the packet was delayed (reordering, for
//!   RACK: `tcp_check_sack_reordering()`) and no retransmission is outstanding
//!   (`retrans_out == 0`), `tcp_try_undo_dsack()` on a DSACK
//!   bringing `undo_retrans` to 0 in recovery or in Open (the marker outlives a recovery that
//!   ended without undo: late DSACKs still undo it), and after a timeout `tcp_try_undo_loss()`
//!   (`frto.rs`'s `tcp_process_loss()`). Each is `tcp_undo_cwnd_reduction()` and ends the
//!   episode: back to Open.
//! - A reading: a DSACK is taken before the ACK's other information (Linux takes it with the
//!   SACK blocks, `tcp_sacktag_write_queue()`, and undoes in `tcp_fastretrans_alert()`); an
//!   undo in recovery restarts the duplicate count, as the episode it counted for is over.

use super::recovery::Phase;
use super::Tcp;
use crate::segment::Segment;
use crate::seq::Seq;
use crate::time::Time;

/// The undo state of one sender (`undo_marker`, `prior_cwnd`, `prior_ssthresh`, `retrans_stamp`,
/// `undo_retrans`).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Undo {
    marker: Option<Seq>,
    prior_cwnd: u32,
    prior_ssthresh: u32,
    retrans_stamp: Option<u32>,
    /// `undo_retrans`: retransmissions of the episode not yet reported duplicate by DSACK; -1
    /// while none was made.
    retrans: i32,
}

impl Tcp {
    /// Whether this sender undoes: the host says so and it runs RFC 6675. Without timestamps
    /// only DSACKs can show a retransmission unnecessary.
    fn undo_on(&self) -> bool {
        self.cfg.host.undo && self.recovery() == super::recovery::Recovery::Rfc6675Prr
    }

    /// Whether the episode's window is kept for an undo: for the undo, and for F-RTO's, which
    /// restores the same window (`tcp_try_undo_loss(sk, true)`).
    fn undo_keeps_window(&self) -> bool {
        self.undo_on() || self.frto_on()
    }

    /// `tcp_init_undo()` on entering recovery (`tcp_enter_recovery()`), with `prior_cwnd` and
    /// `prior_ssthresh` before the window is reduced; `undo_retrans` from the resent segments
    /// still out.
    pub(super) fn undo_init(&mut self) {
        let out = self
            .sel
            .log
            .iter()
            .filter(|s| s.rexmits > 0 && s.end().gt(self.snd_una) && !self.sel.covered(s))
            .count();
        self.undo_init_with(out.min(i32::MAX as usize) as i32);
    }

    /// `tcp_init_undo()` on a timeout (`tcp_enter_loss()`), after `tcp_timeout_mark_lost()`
    /// took every retransmission out of `retrans_out`. Known difference (found in review, not
    /// yet built): a RACK sender's timeout leaves a resend sent within RACK.rtt unmarked, still
    /// `TCPCB_SACKED_RETRANS` (`Sent::retrans`), so Linux starts `undo_retrans` at
    /// `retrans_out`, which can be above 0 here, and would undo on DSACKs later than this does.
    pub(super) fn undo_init_on_timeout(&mut self) {
        self.undo_init_with(0);
    }

    /// When no episode is going on (`tcp_enter_loss()` keeps the recovery's marks on a timeout
    /// within it).
    fn undo_init_with(&mut self, retrans_out: i32) {
        if !self.undo_keeps_window() || self.sel.rfc().phase != Phase::Open {
            return;
        }
        self.undo = Undo {
            marker: Some(self.snd_una),
            prior_cwnd: self.cc.cwnd(),
            prior_ssthresh: self.cc.current_ssthresh(),
            retrans_stamp: None,
            retrans: if retrans_out == 0 { -1 } else { retrans_out },
        };
    }

    /// A data segment resent at `now` (`tcp_retransmit_skb()`): the first of the episode sets
    /// `retrans_stamp`; each raises `undo_retrans`.
    pub(super) fn undo_note_retransmit(&mut self, now: Time) {
        if !self.undo_keeps_window() {
            return;
        }
        if self.undo.retrans_stamp.is_none() {
            self.undo.retrans_stamp = Some(self.ts_clock(now));
        }
        self.undo.retrans = self.undo.retrans.max(0).saturating_add(1);
    }

    /// The phase an undo may end, before a new ACK is taken: recovery, with `undo_marker` set.
    /// After a timeout the undo is `tcp_process_loss()`'s (`frto.rs`).
    pub(super) fn undo_phase(&self) -> Option<Phase> {
        let phase = self.sel.rfc().phase;
        (self.undo_on() && self.undo.marker.is_some() && phase == Phase::Recovery).then_some(phase)
    }

    /// What an ACK tells the undo before its SACK blocks are taken (`ack.rs`): a DSACK lowers
    /// `undo_retrans` (`tcp_check_dsack()`, `tcp_sacktag_one()`), then `tcp_try_undo_dsack()`
    /// in recovery or Open, and may widen RACK's reordering window (`dsack.rs`); and F-RTO's
    /// look at it (`frto.rs`).
    #[inline]
    pub(super) fn undo_before_ack(&mut self, seg: &Segment) {
        if self.cfg.host.frto {
            self.frto_note_ack(seg);
        }
        if (self.cfg.host.undo || self.cfg.host.rack_tlp) && !seg.sack.is_empty() {
            self.undo_on_dsack(seg);
        }
    }

    fn undo_on_dsack(&mut self, seg: &Segment) {
        let (undo, rack) = (self.undo_on(), self.rack_tlp_on());
        if !(undo || rack) {
            return;
        }
        let Some((start, end, segments)) = self.dsack_of(seg) else {
            return;
        };
        if rack {
            self.rack_note_dsack(start, end); // dsack.rs: RACK's reordering window
        }
        if !undo {
            return;
        }
        let Some(marker) = self.undo.marker else {
            return;
        };
        if end.le(self.snd_una) {
            // tcp_check_dsack(): "D-SACK for already forgotten data... Do dumb counting."
            if self.undo.retrans > 0 && end.gt(marker) {
                let n = i32::try_from(segments).unwrap_or(i32::MAX);
                self.undo.retrans = self.undo.retrans.saturating_sub(n).max(0);
            }
        } else {
            // tcp_sacktag_one(): each resent segment the DSACK covers
            let resent = self
                .sel
                .log
                .iter()
                .filter(|s| s.rexmits > 0 && start.le(s.seq) && s.end().le(end))
                .filter(|s| s.end().gt(marker))
                .count();
            for _ in 0..resent {
                if self.undo.retrans > 0 {
                    self.undo.retrans -= 1;
                }
            }
        }
        // tcp_try_undo_dsack(), in recovery and in Open (Linux's fastretrans_alert: after a
        // timeout the undo waits for tcp_try_undo_loss())
        if self.undo.retrans == 0 && self.sel.rfc().phase != Phase::Loss {
            if self.sel.rfc().phase == Phase::Recovery {
                self.dupacks = 0;
            }
            self.reo_dsack_undone();
            self.undo_cwnd_reduction(false);
        }
    }

    /// `tcp_may_undo()`: `undo_marker` set, and every retransmission reported a duplicate or
    /// the ACK echoes a time before the first of them.
    pub(super) fn may_undo(&self, seg: &Segment) -> bool {
        self.undo_on()
            && self.undo.marker.is_some()
            && (self.undo.retrans == 0 || self.packet_delayed(seg))
    }

    /// `tcp_undo_cwnd_reduction()`: cwnd and ssthresh back (`Congestion::undo`), the marker
    /// cleared, the episode over (back to Open); with `unmark_loss` the lost marks go too,
    /// RACK's and the timeout's.
    pub(super) fn undo_cwnd_reduction(&mut self, unmark_loss: bool) {
        self.cc.undo(self.undo.prior_cwnd, self.undo.prior_ssthresh);
        self.undo.marker = None;
        if unmark_loss {
            for s in self.sel.log.iter_mut() {
                self.sel.flight.remark(s, |s| s.lost = false);
            }
        }
        if self.sel.rfc().phase != Phase::Open {
            self.rfc6675_leave();
        }
    }

    /// `tcp_packet_delayed()`: the ACK echoes a TS value before the first retransmission.
    fn packet_delayed(&self, seg: &Segment) -> bool {
        self.undo
            .retrans_stamp
            .is_some_and(|stamp| super::rfc7323::tsecr_before(seg, stamp))
    }

    /// `retrans_out`: a resent segment neither cumulatively nor selectively acknowledged.
    fn retransmissions_out(&self) -> bool {
        let (una, high_rxt) = (self.snd_una, self.sel.high_rxt);
        self.sel
            .log
            .iter()
            .any(|s| !s.sacked && s.seq.ge(una) && s.seq.lt(high_rxt))
    }

    /// After a new ACK was taken in recovery (`partial` as it was for recovery): the undo
    /// points of Linux 6.x, `tcp_try_undo_recovery()` and `tcp_try_undo_partial()`.
    pub(super) fn try_undo(&mut self, seg: &Segment, phase: Phase, partial: bool) {
        if phase != Phase::Recovery {
            return;
        }
        if partial {
            // tcp_try_undo_partial(): by timestamps only; the hole was filled by the original,
            // which is reordering (`tcp_check_sack_reordering()`: `reord_seen`, which RACK's
            // reordering window reads, recovery/rack.rs); with a resend still out, clock out new
            // data and undo later
            if !self.packet_delayed(seg) {
                return;
            }
            self.sel.rack.reord = true;
            if self.retransmissions_out() {
                return;
            }
            self.undo_cwnd_reduction(true);
        } else if self.may_undo(seg) {
            self.undo_cwnd_reduction(false);
        } else {
            self.reo_recovery_ended(); // tcp_try_undo_recovery()'s `reo_wnd_persist--`
        }
    }
}
