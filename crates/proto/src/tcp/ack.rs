//! The sender's half of `tcp_input` (4.4BSD-Lite, Stevens vol. 2, chapter 29): an acceptable ACK
//! opens the congestion window (`cc/`) and frees the send buffer; duplicate and partial ACKs go to
//! the sender's loss recovery (`recovery/`); ELN-marked ACKs resend without a window cut (paper 004).

use super::{AckInfo, ElnRule, State, Tcp, TxKind};
use crate::segment::Segment;
use crate::time::Time;

impl Tcp {
    /// ACK processing of a synchronized connection. Returns true when the segment is done with
    /// (a duplicate ACK that triggered fast retransmit or window inflation). `TODAY`: the path of
    /// [`Tcp::on_segment_as`] (the undo, DSACK, F-RTO, RACK-TLP and RFC 6675 recovery, whose
    /// hooks these are, are today's details).
    pub(super) fn process_ack<const TODAY: bool>(
        &mut self,
        now: Time,
        seg: &Segment,
        len: u32,
        needoutput: &mut bool,
    ) -> bool {
        self.stats.acks_rcvd += 1;
        if TODAY {
            self.undo_before_ack(seg); // undo.rs: DSACK (dsack.rs) and F-RTO (frto.rs)
        }
        self.selective_on_ack(now, seg);
        // RACK-TLP (recovery/rack.rs, tlp.rs): loss marked by time, TLP's episode
        let reo_armed = TODAY && self.rack_tlp_on() && {
            self.rack_update_reo_wnd(now); // dsack.rs
            let duplicate = seg.ack == self.snd_una && len == 0;
            self.tlp_on_ack(seg.ack, duplicate);
            self.rack_mark_lost(now)
        };
        if seg.ack.le(self.snd_una) {
            if len == 0 && self.peer_window_as::<TODAY>(seg) == self.snd_wnd {
                self.stats.dupacks_rcvd += 1;
                // BSD counts a duplicate only while data is outstanding (the timer runs) and the ACK
                // is for snd_una.
                if self.rexmt_at.is_none() || seg.ack != self.snd_una {
                    self.dupacks = 0;
                } else {
                    return self.on_duplicate_ack::<TODAY>(now, seg);
                }
            } else {
                self.dupacks = 0;
                // RFC 6675 (B): in its recovery every ACK counts, duplicate or not
                if TODAY {
                    self.recovery_on_other_ack(now, seg);
                }
            }
            return false;
        }

        // A new ACK. NewReno and SACK stay in recovery on a partial ACK; otherwise it ends here.
        let partial = self.is_partial_ack(seg);
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
            self.finish_input::<TODAY>(now, false);
            return true;
        }
        let acked = seg.ack.since(self.snd_una);
        self.rtt_sample_on_ack_as::<TODAY>(now, seg);
        if seg.ack == self.snd_max {
            self.rexmt_at = None;
            *needoutput = true;
        } else if self.persist_at.is_none() {
            self.arm_rexmt_as::<TODAY>(now);
        }
        if !partial {
            let ack = AckInfo {
                now,
                una: self.snd_una,
                ack: seg.ack,
                snd_max: self.snd_max,
                delivered: self.newly_delivered(acked),
            };
            self.cc.on_ack(&ack, self.maxseg, self.linux_rtt.as_mut());
        }
        self.snd_wnd = self.snd_wnd.saturating_sub(acked);
        let fin_seq = self.data_start() + (self.total_bytes() as u32);
        let our_fin_acked = self.sent_fin && seg.ack.gt(fin_seq);
        self.snd_una = seg.ack;
        if self.snd_nxt.lt(self.snd_una) {
            self.snd_nxt = self.snd_una;
        }
        let undo_phase = if TODAY { self.undo_phase() } else { None };
        self.recovery_after_new_ack::<TODAY>(now, seg, partial);
        if let Some(phase) = undo_phase {
            self.try_undo(seg, phase, partial); // undo.rs: Linux's Eifel undo
        }
        if TODAY && self.rack_tlp_on() && !reo_armed {
            // `tcp_set_xmit_timer()`: data was ACKed, so the probe (or else the RTO) is set
            // again, unless RACK armed its timer: `tcp_identify_packet_loss()` then clears
            // `FLAG_SET_XMIT_TIMER` and the reordering timer stays (net/ipv4/tcp_input.c)
            self.sel.early_timer = None;
            self.tlp_schedule(now);
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
}
