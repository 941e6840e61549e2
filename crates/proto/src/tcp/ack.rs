//! The sender's half of `tcp_input` (4.4BSD-Lite, Stevens vol. 2, chapter 29): an acceptable ACK
//! opens the congestion window and frees the send buffer; duplicate ACKs drive Reno's fast
//! retransmit and fast recovery (NewReno's partial ACKs, EFR's earlier threshold); ELN-marked ACKs
//! resend without a window cut (paper 004).

use super::{ElnRule, PartialAck, Selective, State, Tcp, TxKind};
use crate::segment::Segment;
use crate::time::Time;

impl Tcp {
    /// ACK processing of a synchronized connection. Returns true when the segment is done with
    /// (a duplicate ACK that triggered fast retransmit or window inflation).
    pub(super) fn process_ack(
        &mut self,
        now: Time,
        seg: &Segment,
        len: u32,
        needoutput: &mut bool,
    ) -> bool {
        self.stats.acks_rcvd += 1;
        self.selective_on_ack(now, seg);
        if seg.ack.le(self.snd_una) {
            if len == 0 && u32::from(seg.window) == self.snd_wnd {
                self.stats.dupacks_rcvd += 1;
                // BSD counts a duplicate only while data is outstanding (the timer runs) and the ACK
                // is for snd_una.
                if self.rexmt_at.is_none() || seg.ack != self.snd_una {
                    self.dupacks = 0;
                } else {
                    return self.on_duplicate_ack(now, seg);
                }
            } else {
                self.dupacks = 0;
            }
            return false;
        }

        // A new ACK. NewReno stays in fast recovery on a partial ACK; otherwise recovery ends here.
        let in_recovery = self.dupacks >= self.cur_thresh && !self.eln_recovery;
        let sack_partial = self.sel.recovery && seg.ack.lt(self.recover);
        let partial = sack_partial
            || (in_recovery
                && self.cfg.policy.partial_ack == PartialAck::RetransmitNextHole
                && seg.ack.lt(self.recover));
        if !partial {
            if !self.eln_recovery {
                // the controller's rule: does fast recovery end here, deflated (cc/)
                self.cc.on_recovery_end(self.dupacks, self.cur_thresh);
            }
            self.dupacks = 0;
            self.eln_recovery = false;
        }
        if seg.ack.gt(self.snd_max) {
            self.ack_now = true; // dropafterack
            self.finish_input(now, false);
            return true;
        }
        let acked = seg.ack.since(self.snd_una);
        let rtt = self.take_rtt_sample(now, seg.ack);
        if seg.ack == self.snd_max {
            self.rexmt_at = None;
            *needoutput = true;
        } else if self.persist_at.is_none() {
            self.arm_rexmt(now, self.rtt.rxtcur);
        }
        if !partial {
            self.cc.on_ack(acked, rtt, self.maxseg);
        }
        self.snd_wnd = self.snd_wnd.saturating_sub(acked);
        let fin_seq = self.data_start() + (self.total_bytes() as u32);
        let our_fin_acked = self.sent_fin && seg.ack.gt(fin_seq);
        self.snd_una = seg.ack;
        if self.snd_nxt.lt(self.snd_una) {
            self.snd_nxt = self.snd_una;
        }
        if sack_partial {
            self.sack_partial_ack(now);
        } else if partial {
            self.partial_ack_retransmit(now);
        } else if self.sel.recovery {
            self.sack_exit();
        }
        if self.cfg.policy.selective == Selective::Smart {
            self.smart_react(now, seg);
        }
        if seg.eln && self.eln_rule() == Some(ElnRule::MarkedAcks) {
            // paper 004: "ELN marking ... can (and does) also happen for new ones"
            self.eln_marked_ack(now, seg.ack);
        }
        self.maybe_usrclosed();
        if our_fin_acked {
            match self.state {
                State::FinWait1 => self.state = State::FinWait2,
                State::Closing => self.state = State::TimeWait,
                State::LastAck => {
                    self.state = State::Closed;
                    self.rexmt_at = None;
                    self.delack_at = None;
                    return true;
                }
                _ => {}
            }
        }
        false
    }

    /// A duplicate ACK for `snd_una` while data is outstanding: the recovery policies decide.
    /// Returns true when the segment is consumed.
    pub(super) fn on_duplicate_ack(&mut self, now: Time, seg: &Segment) -> bool {
        if seg.eln && self.eln_rule() == Some(ElnRule::MarkedAcks) {
            // paper 004: a marked duplicate is ELN's alone; Reno never counts it
            self.eln_marked_ack(now, seg.ack);
            return true;
        }
        self.dupacks += 1;
        if self.dupacks == 1 {
            // EFR computes its threshold from the window on the first duplicate.
            let window = self.snd_wnd.min(self.cc.cwnd()) / self.maxseg;
            self.cur_thresh = self.cfg.policy.dupack_threshold.for_window(window);
            self.witness_efr(window);
        }
        match self.cfg.policy.selective {
            Selective::Smart => {
                // SMART acts on the first duplicate that names a later segment.
                self.smart_react(now, seg);
                return true;
            }
            Selective::Sack if self.sel.recovery => {
                self.sack_dupack(now);
                return true;
            }
            Selective::Sack if self.dupacks == self.cur_thresh => {
                self.sack_enter(now);
                return true;
            }
            Selective::Sack => return false,
            Selective::None => {}
        }
        if let Some(eln) = self.cfg.policy.eln {
            if seg.eln
                && eln.rule == ElnRule::DuplicateIndex
                && !self.eln_recovery
                && self.dupacks == eln.rexmt_thresh
            {
                self.eln_retransmit(now, seg.ack);
                return true;
            }
        }
        if self.eln_recovery {
            // The loss was on the wireless hop: no congestion response, no inflation.
            return true;
        }
        self.early_retransmit_lower(); // small_window.rs
        if self.dupacks == self.cur_thresh {
            self.fast_retransmit(now, seg.ack);
            return true;
        }
        if self.dupacks > self.cur_thresh {
            // Fast recovery: each further duplicate means a segment left the network.
            self.cc.on_recovery_dupack(self.maxseg);
            self.output(now);
            return true;
        }
        self.limited_transmit(now); // small_window.rs
        false
    }

    /// Resends the segment at `ack` alone (`tcp_output` with a one-segment window), leaving cwnd
    /// as it was.
    pub(super) fn resend_one(&mut self, now: Time, ack: crate::seq::Seq, cause: TxKind) {
        let onxt = self.snd_nxt;
        self.last_rexmt_start = Some(ack);
        self.rexmt_at = None;
        self.timing = None;
        self.snd_nxt = ack;
        self.rexmt_cause = cause;
        self.output_with_cwnd(now, self.maxseg);
        if onxt.gt(self.snd_nxt) {
            self.snd_nxt = onxt;
        }
    }

    /// Fast retransmit on the threshold-th duplicate ACK (Stevens vol. 2, p. 971): halve the window,
    /// resend the missing segment, then inflate by the duplicates that arrived.
    pub(super) fn fast_retransmit(&mut self, now: Time, ack: crate::seq::Seq) {
        self.stats.fast_retransmits += 1;
        self.stats.fast_retransmits_below_three += u64::from(self.cur_thresh < 3);
        self.recover = self.snd_max;
        let inflation = self.maxseg * self.dupacks;
        self.cc
            .on_recovery_start(self.snd_wnd, self.maxseg, inflation);
        self.resend_one(now, ack, TxKind::FastRetransmit);
    }

    /// ELN (paper 000 section III-A): the duplicate says the segment was lost on the wireless hop;
    /// resend it without any congestion response.
    pub(super) fn eln_retransmit(&mut self, now: Time, ack: crate::seq::Seq) {
        self.stats.eln_retransmits += 1;
        self.eln_recovery = true;
        self.resend_one(now, ack, TxKind::FastRetransmit);
    }

    pub(super) fn eln_rule(&self) -> Option<ElnRule> {
        self.cfg.policy.eln.map(|e| e.rule)
    }

    /// Paper 004 section 3.3: an ACK with ELN, duplicate or new, asks for the segment at `ack`. On
    /// the `eln_rexmt_thresh`-th mark for it the segment is resent with the window left as it is,
    /// unless ELN resent it less than one round trip ago (`eln_last_rxmit`).
    pub(super) fn eln_marked_ack(&mut self, now: Time, ack: crate::seq::Seq) {
        let Some(eln) = self.cfg.policy.eln else {
            return;
        };
        self.stats.eln_acks_rcvd += 1;
        let count = match self.eln_marks {
            Some((seq, n)) if seq == ack => n + 1,
            _ => 1,
        };
        self.eln_marks = Some((ack, count));
        if count < eln.rexmt_thresh || !ack.lt(self.snd_max) {
            return;
        }
        let round_trip = u64::from(self.rtt.srtt_ticks()) * self.cfg.timers.slow_tick;
        if let Some((seq, at)) = self.eln_last_rxmit {
            if seq == ack && now.saturating_sub(at) < round_trip {
                return;
            }
        }
        self.eln_last_rxmit = Some((ack, now));
        self.stats.eln_retransmits += 1;
        self.resend_one(now, ack, TxKind::FastRetransmit);
    }

    /// NewReno on a partial ACK: the next hole is resent at once; the window is the halved one.
    pub(super) fn partial_ack_retransmit(&mut self, now: Time) {
        self.stats.partial_ack_retransmits += 1;
        self.cc.on_partial_ack();
        let una = self.snd_una;
        self.resend_one(now, una, TxKind::FastRetransmit);
    }
}
