//! The IETF SACK sender's loss recovery (paper 000 section III-A): RFC 2018 SACK with Fall and
//! Floyd's scoreboard recovery ("Sack1"). The scoreboard and send log are `selective.rs`'s; this
//! file is what the sender does with them.

use super::super::{Tcp, TxKind};
use crate::segment::Flags;
use crate::time::Time;

impl Tcp {
    /// A duplicate ACK: in recovery one more segment left the network; the threshold-th starts
    /// recovery. Returns true when the segment is consumed.
    pub(super) fn sack_on_dupack(&mut self, now: Time) -> bool {
        if self.sel.recovery {
            self.sack_dupack(now);
            true
        } else if self.dupacks == self.cur_thresh {
            self.sack_enter(now);
            true
        } else {
            false
        }
    }

    /// A new ACK, after `snd_una` moved: a partial one keeps the pipe rule going, a full one ends
    /// recovery.
    pub(super) fn sack_after_new_ack(&mut self, now: Time, partial: bool) {
        if partial {
            self.sack_partial_ack(now);
        } else if self.sel.recovery {
            self.sack_exit();
        }
    }

    /// SACK: the threshold-th duplicate starts scoreboard recovery (Fall and Floyd, "Sack1").
    ///
    /// The segment the duplicates ask for, the one starting at `snd_una`, goes at once, whatever
    /// the pipe; then the pipe rule takes over. This is step (4) of the loss recovery of RFC 3517
    /// and RFC 6675 (section 5): "retransmit the first data segment presumed dropped -- the segment
    /// starting with sequence number HighACK + 1", and BSD's fast retransmit (`snd_nxt = th_ack;
    /// tcp_output()`). It starts at `snd_una` even when the cumulative ACK ends inside a logged
    /// segment ([`SelectiveState::segment_at`]); before, only a segment logged exactly at
    /// `snd_una` at the head of the log was resent, and otherwise nothing.
    ///
    /// The retransmission timer is restarted by that retransmission, as BSD's fast retransmit
    /// clears `t_timer[TCPT_REXMT]` for the `tcp_output` that follows to set it again (Lite2
    /// tcp_output.c: "if (tp->t_timer[TCPT_REXMT] == 0 && tp->snd_nxt != tp->snd_una)"). It is
    /// never stopped without a segment being sent: while data is outstanding one of the
    /// retransmission and persist timers runs (Lite2 tcp_input.c: "if (ti->ti_ack ==
    /// tp->snd_max) tp->t_timer[TCPT_REXMT] = 0; else if (tp->t_timer[TCPT_PERSIST] == 0)
    /// tp->t_timer[TCPT_REXMT] = tp->t_rxtcur;"). Without it nothing would ever send again:
    /// `tcp_input` counts a duplicate ACK only while the timer runs, so the pipe rule would
    /// never run again either.
    pub(super) fn sack_enter(&mut self, now: Time) {
        self.stats.fast_retransmits += 1;
        self.recover = self.snd_max;
        self.cc.on_recovery_start(self.snd_wnd, self.maxseg, 0);
        self.sel.recovery = true;
        self.sel.high_rxt = self.snd_una;
        let outstanding = i64::from(self.snd_max.since(self.snd_una) / self.maxseg.max(1));
        self.sel.pipe = outstanding - i64::from(self.dupacks);
        self.timing = None;
        if let Some((seq, len)) = self.sel.segment_at(self.snd_una) {
            self.rexmt_at = None;
            self.send_exact(now, seq, len, TxKind::FastRetransmit);
            self.sel.high_rxt = seq + len;
            self.sel.pipe += 1;
        }
        self.sack_send(now);
    }

    /// SACK: a further duplicate means one more segment left the network.
    pub(super) fn sack_dupack(&mut self, now: Time) {
        self.sel.pipe -= 1;
        self.sack_send(now);
    }

    /// SACK: a partial ACK: the original and its retransmission have left the network.
    pub(super) fn sack_partial_ack(&mut self, now: Time) {
        self.sel.pipe = (self.sel.pipe - 2).max(0);
        if self.sel.high_rxt.lt(self.snd_una) {
            self.sel.high_rxt = self.snd_una;
        }
        self.sack_send(now);
    }

    /// SACK: leaves recovery on an ACK for everything outstanding when it began.
    pub(super) fn sack_exit(&mut self) {
        self.sel.recovery = false;
        self.cc.on_scoreboard_recovery_end();
    }

    /// SACK: while the pipe is below cwnd, resend the next hole the scoreboard shows (below the
    /// highest byte reported), else send new data. Not into a closed window, nor while persisting:
    /// the window is then the persist timer's, and `tcp_output`'s own rules send the probe and then,
    /// from `snd_una`, what the reopened window allows (Lite2 tcp_output.c lines 139-155, 251-255);
    /// a retransmission here would start the retransmission timer into a closed window instead.
    pub(in crate::tcp) fn sack_send(&mut self, now: Time) {
        if self.snd_wnd == 0 || self.persist_at.is_some() {
            return;
        }
        let cwnd_segs = i64::from(self.send_cwnd() / self.maxseg.max(1));
        while self.sel.pipe < cwnd_segs {
            if let Some((seq, len)) = self.sel.next_hole() {
                self.send_exact(now, seq, len, TxKind::FastRetransmit);
                self.sel.high_rxt = seq + len;
                self.sel.pipe += 1;
                continue;
            }
            let window_end = self.snd_una + self.snd_wnd;
            let room = window_end.since(self.snd_max);
            let buffer_end = self.buffer_end();
            let len = self.maxseg.min(buffer_end.since(self.snd_max)).min(room);
            if len == 0 {
                break;
            }
            let saved = self.snd_nxt;
            self.snd_nxt = self.snd_max;
            self.send_segment(now, Flags::ACK, len, buffer_end);
            self.tlp_after_write(now);
            if saved.gt(self.snd_nxt) {
                self.snd_nxt = saved;
            }
            self.sel.pipe += 1;
        }
    }
}
