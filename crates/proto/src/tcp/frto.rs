//! F-RTO (RFC 5682 section 3, with the SACK-enhanced detection of its section 4), as Linux 6.x
//! runs it (`net.ipv4.tcp_frto = 2`; host detail `frto`, for an RFC 6675 sender): after a
//! retransmission timeout the sender tells a spurious timeout (the segments were delayed, not
//! lost: a local repair such as snoop's, a delay spike) from a real one by sending new data
//! instead of retransmissions on the first ACK, and undoes the timeout's window collapse when
//! data it never retransmitted is acknowledged. Functions of net/ipv4/tcp_input.c:
//! - `tcp_enter_loss()`: `tp->frto` is set when the timeout starts a new episode (from Open,
//!   `icsk_ca_state < TCP_CA_Recovery`) or repeats one with no progress since
//!   (`icsk_retransmits`, which each timeout raises, `tcp_update_rto_stats()`, and an ACK
//!   advancing `snd_una` clears, `tcp_ack()`): RFC 5682 section 3.1 step 1 and section 3.2.
//! - `tcp_process_loss()`, on every ACK after the timeout until `high_seq` (RecoveryPoint) is
//!   reached: first `tcp_try_undo_loss(sk, false)` on an ACK advancing `snd_una` (`undo.rs`'s
//!   detections); then with `tp->frto`: step 3.b, data never retransmitted and at or below
//!   `high_seq` newly acknowledged or SACKed (`FLAG_ORIG_SACK_ACKED`, set in
//!   `tcp_clean_rtx_queue()` and `tcp_sacktag_one()`) makes the timeout spurious:
//!   `tcp_try_undo_loss(sk, true)` restores the window and returns to Open; step 3.a, once new
//!   data was sent, an ACK SACKing new data (`FLAG_DATA_SACKED`) or a duplicate ends F-RTO
//!   (the loss was real); step 2.b, the first ACK advancing `snd_una` below `high_seq` moves
//!   `high_seq` to `snd_nxt` and, if the window and the send buffer allow new data, sends it
//!   (`REXMIT_NEW`: `tcp_xmit_recovery()` pushes new data by the window the ACK opened, and
//!   sends no retransmission on that ACK), else ends F-RTO. Otherwise the timeout's own
//!   processing goes on (`REXMIT_LOST`, `rfc6675.rs`).
//! - Readings: Linux's `snd_nxt` is `snd_max` here (an RFC 6675 sender resends by NextSeg, not
//!   by moving `snd_nxt`). A sender without RFC 6675 recovery has no F-RTO here (the
//!   `linux-paper` presets turn it off). F-RTO's undo restores the window kept by `undo.rs`,
//!   which keeps it for F-RTO whether or not the `undo` detail is on.

use super::recovery::Phase;
use super::Tcp;
use crate::segment::Segment;
use crate::seq::Seq;
use crate::time::Time;

/// F-RTO's state.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Frto {
    /// `tp->frto`: this timeout may still prove spurious.
    armed: bool,
    /// `icsk_retransmits`: timeouts since `snd_una` last advanced.
    timeouts: u32,
    /// `snd_una` before the ACK being taken.
    prior_una: Seq,
    /// `FLAG_ORIG_SACK_ACKED` of the ACK being taken.
    original_acked: bool,
    /// Step 2.b sent new data in place of retransmissions at this time, on this ACK.
    new_data_at: Option<Time>,
}

/// How an ACK after a timeout relates to `snd_una`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LossAck {
    /// It advances `snd_una` (`FLAG_SND_UNA_ADVANCED`).
    New,
    /// A duplicate ACK, as the sender counts them (`num_dupack`).
    Duplicate,
    /// Any other ACK for `snd_una` (new data or another window).
    Other,
}

impl Tcp {
    /// F-RTO runs: the host says so and the sender runs RFC 6675 recovery on SACK.
    pub(super) fn frto_on(&self) -> bool {
        self.cfg.host.frto && self.recovery() == super::recovery::Recovery::Rfc6675Prr
    }

    /// `tcp_enter_loss()` sets `tp->frto`, before the timeout changes the phase; then
    /// `icsk_retransmits` counts the timeout.
    pub(super) fn frto_on_rto(&mut self) {
        let new_recovery = self.sel.rfc().phase == Phase::Open;
        self.frto.armed = self.frto_on() && (new_recovery || self.frto.timeouts > 0);
        self.frto.timeouts = self.frto.timeouts.saturating_add(1);
    }

    /// Before an ACK's SACK blocks and acknowledgment are taken: whether it acknowledges or
    /// SACKs data never retransmitted, at or below `high_seq`, not SACKed before
    /// (`FLAG_ORIG_SACK_ACKED`); an ACK advancing `snd_una` clears `icsk_retransmits`.
    pub(super) fn frto_note_ack(&mut self, seg: &Segment) {
        self.frto.new_data_at = None;
        self.frto.prior_una = self.snd_una;
        if seg.ack.gt(self.snd_una) && seg.ack.le(self.snd_max) {
            self.frto.timeouts = 0;
        }
        self.frto.original_acked =
            self.frto.armed && self.sel.rfc().phase == Phase::Loss && self.acks_original(seg);
    }

    fn acks_original(&self, seg: &Segment) -> bool {
        let Some(high_seq) = self.sel.rfc().recovery_point else {
            return false;
        };
        let una = self.snd_una;
        self.sel
            .log
            .iter()
            .filter(|s| s.rexmits == 0 && s.end().le(high_seq) && s.end().gt(una))
            .filter(|s| !self.sel.covered(s))
            .any(|s| {
                s.end().le(seg.ack) || seg.sack.iter().any(|(a, e)| a.le(s.seq) && s.end().le(e))
            })
    }

    /// [`Tcp::process_loss`] for a duplicate ACK after a timeout (loss recovery's dispatch,
    /// `recovery/mod.rs`).
    pub(super) fn process_loss_on_dupack(&mut self, now: Time, seg: &Segment) -> bool {
        self.process_loss(now, seg, LossAck::Duplicate)
    }

    /// [`Tcp::process_loss`] for an ACK that advances `snd_una` after a timeout.
    pub(super) fn process_loss_on_new_ack(&mut self, now: Time, seg: &Segment) -> bool {
        self.process_loss(now, seg, LossAck::New)
    }

    /// [`Tcp::process_loss`] for any other ACK for `snd_una` after a timeout (new data or another
    /// window).
    pub(super) fn process_loss_on_other_ack(&mut self, now: Time, seg: &Segment) -> bool {
        self.process_loss(now, seg, LossAck::Other)
    }

    /// `tcp_process_loss()`'s undo and F-RTO for an ACK after a timeout (the scoreboard and,
    /// for a new ACK, `snd_una` already updated). Returns true when it dealt with the ACK: the
    /// collapse undone (back to Open), or step 2.b's new data sent; else the timeout's own
    /// processing goes on.
    fn process_loss(&mut self, now: Time, seg: &Segment, kind: LossAck) -> bool {
        if self.sel.rfc().phase != Phase::Loss {
            return false;
        }
        if kind == LossAck::New && self.may_undo(seg) {
            self.loss_undone(now, kind); // tcp_try_undo_loss(sk, false)
            return true;
        }
        if !self.frto.armed || !self.frto_on() {
            return false;
        }
        if self.frto.original_acked {
            self.loss_undone(now, kind); // step 3.b: tcp_try_undo_loss(sk, true)
            return true;
        }
        let Some(high_seq) = self.sel.rfc().recovery_point else {
            return false;
        };
        let recovered = self.snd_una.ge(high_seq);
        if self.snd_max.gt(high_seq) {
            // step 3.a: new data was sent and the ACK shows a hole below it
            let acked = self.snd_una.since(self.frto.prior_una);
            let sacked_new = self.sel.rfc().delivered > acked;
            if sacked_new || kind == LossAck::Duplicate {
                self.frto.armed = false;
            }
        } else if kind == LossAck::New && !recovered {
            // step 2.b
            self.sel.rfc6675.recovery_point = Some(self.snd_max);
            if self.new_data_room() > 0 {
                self.frto_send_new_data(now);
                return true;
            }
            self.frto.armed = false;
        }
        false
    }

    /// `tcp_try_undo_loss()` undid the timeout: back to Open, `icsk_retransmits` cleared. An
    /// ACK the duplicate-ACK path consumes sends what the restored window allows here.
    fn loss_undone(&mut self, now: Time, kind: LossAck) {
        self.undo_cwnd_reduction(true);
        self.frto.timeouts = 0;
        self.frto.armed = false;
        if kind == LossAck::Duplicate {
            self.dupacks = 0;
            self.output(now);
        }
    }

    /// Step 2.b (`REXMIT_NEW`): new data by the window the ACK opened (`tcp_write_xmit()`'s
    /// in-flight test, here RFC 6675's `pipe`), no retransmission.
    fn frto_send_new_data(&mut self, now: Time) {
        self.frto.new_data_at = Some(now);
        let mut pipe = self
            .sel
            .set_pipe(self.snd_una, self.maxseg, self.is_lost_thresh());
        while self.cc.cwnd().saturating_sub(pipe) >= self.maxseg {
            let len = self.new_data_room();
            if len == 0 {
                break;
            }
            self.send_new_data(now, len);
            pipe += len;
        }
        self.sel.rfc6675.pipe = pipe;
    }

    /// Step 2.b's ACK sends no retransmission (`tcp_xmit_recovery()` returns before
    /// `tcp_xmit_retransmit_queue()`): RFC 6675's sending waits for the next event.
    #[inline]
    pub(in crate::tcp) fn frto_holds_resends(&self, now: Time) -> bool {
        self.frto.new_data_at == Some(now)
    }
}
