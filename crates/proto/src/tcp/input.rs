//! `tcp_input` of 4.4BSD-Lite (Stevens vol. 2, chapters 27-29) for a segment already matched to this
//! connection: the handshake, trimming to the window, ACK processing with Reno's fast retransmit and
//! fast recovery, window update, reassembly and FIN processing.

use super::{Deflation, State, Tcp, TxKind, TCP_MAXWIN};
use crate::segment::Segment;
use crate::time::{next_tick_after, ticks_between, Time};

impl Tcp {
    /// A segment for this connection arrives at `now`. Checksum-failed segments never get here.
    pub fn on_segment(&mut self, now: Time, seg: &Segment) {
        match self.state {
            State::Closed => {}
            State::Listen => self.input_listen(now, seg),
            State::SynSent => self.input_syn_sent(now, seg),
            _ => self.input_synchronized(now, seg),
        }
    }

    fn input_listen(&mut self, now: Time, seg: &Segment) {
        if !seg.is_syn() || seg.has_ack() {
            return;
        }
        self.apply_mss(seg.mss);
        self.irs = seg.seq;
        self.rcv_nxt = seg.seq + 1;
        self.rcv_adv = self.rcv_nxt;
        self.snd_wnd = u32::from(seg.window);
        self.max_sndwnd = self.snd_wnd;
        self.snd_wl1 = seg.seq;
        self.state = State::SynRcvd;
        self.ack_now = true;
        self.output(now);
    }

    fn input_syn_sent(&mut self, now: Time, seg: &Segment) {
        if seg.has_ack() && (seg.ack.le(self.iss) || seg.ack.gt(self.snd_max)) {
            return; // unacceptable ACK (a real stack would send RST)
        }
        if !seg.is_syn() {
            return;
        }
        self.apply_mss(seg.mss);
        self.irs = seg.seq;
        self.rcv_nxt = seg.seq + 1;
        self.rcv_adv = self.rcv_nxt;
        self.ack_now = true;
        if seg.has_ack() {
            self.snd_una = seg.ack;
            if self.snd_nxt.lt(self.snd_una) {
                self.snd_nxt = self.snd_una;
            }
            self.rexmt_at = None;
        }
        if self.snd_una.gt(self.iss) {
            self.state = State::Established;
            self.take_rtt_sample(now, seg.ack);
        } else {
            self.state = State::SynRcvd;
        }
        self.snd_wnd = u32::from(seg.window);
        self.max_sndwnd = self.max_sndwnd.max(self.snd_wnd);
        self.snd_wl1 = seg.seq;
        self.snd_wl2 = seg.ack;
        self.maybe_usrclosed();
        self.output(now);
    }

    /// Closes the RTT measurement if `ack` covers the timed segment (`t_rtt && SEQ_GT(ack, t_rtseq)`).
    fn take_rtt_sample(&mut self, now: Time, ack: crate::seq::Seq) {
        if let Some((sent, rtseq)) = self.timing {
            if ack.gt(rtseq) {
                let t = &self.cfg.timers;
                let ticks = 1 + ticks_between(sent, now, t.slow_phase, t.slow_tick);
                self.rtt.sample(ticks.min(u64::from(u32::MAX)) as u32);
                self.timing = None;
            }
        }
    }

    fn input_synchronized(&mut self, now: Time, seg: &Segment) {
        let mut seq = seg.seq;
        let mut len = seg.len;
        let mut fin = seg.is_fin();

        // Trim what lies before rcv_nxt (a retransmitted SYN, or data already received).
        let todrop = self.rcv_nxt.diff(seq);
        if todrop > 0 {
            let mut todrop = todrop as u32;
            if seg.is_syn() {
                // the SYN's sequence number is old: step over it
                seq += 1;
                todrop -= 1;
            }
            if todrop > len || (todrop == len && !fin) {
                // A complete duplicate: ACK it at once, keep going for its ACK field.
                fin = false;
                self.ack_now = true;
                todrop = len;
                self.stats.dup_segs_rcvd += u64::from(len > 0);
            }
            seq += todrop;
            len -= todrop.min(len);
        }
        // Trim what lies beyond the window.
        let rwnd = self.receive_space().min(TCP_MAXWIN);
        let beyond = (seq + len).diff(self.rcv_nxt + rwnd);
        if beyond > 0 {
            let beyond = beyond as u32;
            if beyond >= len {
                self.ack_now = true;
                len = 0;
                fin = false;
            } else {
                len -= beyond;
                fin = false;
            }
        }

        if !seg.has_ack() {
            self.finish_input(now, false);
            return;
        }

        let mut needoutput = false;
        if self.state == State::SynRcvd {
            if seg.ack.le(self.snd_una) || seg.ack.gt(self.snd_max) {
                self.ack_now = true;
                self.finish_input(now, false);
                return;
            }
            self.state = State::Established;
            self.snd_wl1 = seq - 1;
        }

        if self.process_ack(now, seg, len, &mut needoutput) {
            // the segment was consumed by the duplicate-ACK machinery
            return;
        }

        // Window update (step 6).
        if self.snd_wl1.lt(seq)
            || (self.snd_wl1 == seq
                && (self.snd_wl2.lt(seg.ack)
                    || (self.snd_wl2 == seg.ack && u32::from(seg.window) > self.snd_wnd)))
        {
            self.snd_wnd = u32::from(seg.window);
            self.snd_wl1 = seq;
            self.snd_wl2 = seg.ack;
            self.max_sndwnd = self.max_sndwnd.max(self.snd_wnd);
            needoutput = true;
        }

        let delivered = self.receive_data(now, seq, len, fin);
        // The application reads what arrived in order at once; its read calls tcp_output
        // (PRU_RCVD), which is where the every-second-segment ACK comes from.
        self.finish_input(now, needoutput || delivered);
    }

    /// ACK processing of a synchronized connection. Returns true when the segment is done with
    /// (a duplicate ACK that triggered fast retransmit or window inflation).
    fn process_ack(&mut self, now: Time, seg: &Segment, len: u32, needoutput: &mut bool) -> bool {
        self.stats.acks_rcvd += 1;
        if seg.ack.le(self.snd_una) {
            if len == 0 && u32::from(seg.window) == self.snd_wnd {
                self.stats.dupacks_rcvd += 1;
                // BSD counts a duplicate only while data is outstanding (the timer runs) and the ACK
                // is for snd_una.
                if self.rexmt_at.is_none() || seg.ack != self.snd_una {
                    self.dupacks = 0;
                } else {
                    self.dupacks += 1;
                    if self.dupacks == self.cfg.policy.dupack_threshold {
                        self.fast_retransmit(now, seg.ack);
                        return true;
                    } else if self.dupacks > self.cfg.policy.dupack_threshold {
                        // Fast recovery: each further duplicate means a segment left the network.
                        self.snd_cwnd = (self.snd_cwnd + self.maxseg).min(TCP_MAXWIN);
                        self.output(now);
                        return true;
                    }
                }
            } else {
                self.dupacks = 0;
            }
            return false;
        }

        // A new ACK: leave fast recovery.
        let deflate = match self.cfg.policy.deflation {
            Deflation::BsdLite => self.dupacks > self.cfg.policy.dupack_threshold,
            Deflation::AtThreshold => self.dupacks >= self.cfg.policy.dupack_threshold,
        };
        if deflate && self.snd_cwnd > self.snd_ssthresh {
            self.snd_cwnd = self.snd_ssthresh;
        }
        self.dupacks = 0;
        if seg.ack.gt(self.snd_max) {
            self.ack_now = true; // dropafterack
            self.finish_input(now, false);
            return true;
        }
        let acked = seg.ack.since(self.snd_una);
        self.take_rtt_sample(now, seg.ack);
        if seg.ack == self.snd_max {
            self.rexmt_at = None;
            *needoutput = true;
        } else {
            self.arm_rexmt(now, self.rtt.rxtcur);
        }
        self.open_cwnd();
        self.snd_wnd = self.snd_wnd.saturating_sub(acked);
        let fin_seq = self.data_start() + (self.cfg.app_bytes as u32);
        let our_fin_acked = self.sent_fin && seg.ack.gt(fin_seq);
        self.snd_una = seg.ack;
        if self.snd_nxt.lt(self.snd_una) {
            self.snd_nxt = self.snd_una;
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

    /// Slow start below ssthresh (one segment per ACK), congestion avoidance above it with 4.4BSD's
    /// increment `maxseg * maxseg / cwnd + maxseg / 8`.
    fn open_cwnd(&mut self) {
        let cw = self.snd_cwnd;
        let mut incr = self.maxseg;
        if cw > self.snd_ssthresh {
            incr = incr * incr / cw + incr / 8;
        }
        self.snd_cwnd = (cw + incr).min(TCP_MAXWIN);
    }

    /// Fast retransmit on the threshold-th duplicate ACK (Stevens vol. 2, p. 971).
    fn fast_retransmit(&mut self, now: Time, ack: crate::seq::Seq) {
        self.stats.fast_retransmits += 1;
        let onxt = self.snd_nxt;
        self.recover = self.snd_max;
        self.last_rexmt_start = Some(ack);
        self.snd_ssthresh = self.halved_window();
        self.rexmt_at = None;
        self.timing = None;
        self.snd_nxt = ack;
        self.snd_cwnd = self.maxseg;
        self.rexmt_cause = TxKind::FastRetransmit;
        self.output(now);
        self.snd_cwnd = self.snd_ssthresh + self.maxseg * self.dupacks;
        if onxt.gt(self.snd_nxt) {
            self.snd_nxt = onxt;
        }
    }

    /// Accepts `[seq, seq + len)` and a FIN; returns true if data or the FIN came in order.
    fn receive_data(&mut self, now: Time, seq: crate::seq::Seq, len: u32, fin: bool) -> bool {
        if self.state.have_rcvd_fin() || matches!(self.state, State::TimeWait) {
            if len > 0 || fin {
                self.ack_now = true;
            }
            return false;
        }
        let mut in_order = false;
        if len > 0 {
            if seq == self.rcv_nxt && self.reass.is_empty() && self.state == State::Established {
                // TCP_REASS fast path: in order, nothing queued. The ACK may be delayed.
                self.rcv_nxt += len;
                self.stats.bytes_delivered += u64::from(len);
                self.set_delack(now);
                in_order = true;
            } else {
                if seq != self.rcv_nxt {
                    self.stats.ooo_segs_rcvd += 1;
                }
                self.reass.insert(seq, seq + len);
                self.stats.max_reass_bytes = self.stats.max_reass_bytes.max(self.reass.bytes());
                if let Some(end) = self.reass.take_in_order(self.rcv_nxt) {
                    self.stats.bytes_delivered += u64::from(end.since(self.rcv_nxt));
                    self.rcv_nxt = end;
                    in_order = true;
                }
                // Out-of-order data, or data that fills a hole, is ACKed at once.
                self.ack_now = true;
            }
        }
        if fin {
            self.pending_fin = Some(seq + len);
        }
        if let Some(fin_seq) = self.pending_fin {
            if fin_seq == self.rcv_nxt {
                self.pending_fin = None;
                self.rcv_nxt += 1;
                self.ack_now = true;
                self.state = match self.state {
                    State::SynRcvd | State::Established => State::CloseWait,
                    State::FinWait1 => State::Closing,
                    State::FinWait2 => State::TimeWait,
                    s => s,
                };
                in_order = true;
            }
        }
        in_order
    }

    /// `TF_DELACK`: the ACK goes out with the next fast-timer tick unless something sends it sooner.
    fn set_delack(&mut self, now: Time) {
        if self.delack_at.is_none() {
            let t = &self.cfg.timers;
            self.delack_at = Some(next_tick_after(now, t.fast_phase, t.fast_tick));
        }
    }

    fn finish_input(&mut self, now: Time, needoutput: bool) {
        self.maybe_usrclosed();
        if needoutput || self.ack_now || (self.state == State::LastAck && !self.sent_fin) {
            self.output(now);
        }
    }
}
