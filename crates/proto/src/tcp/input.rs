//! `tcp_input` of 4.4BSD-Lite (Stevens vol. 2, chapters 27-29) for a segment already matched to this
//! connection: the handshake, trimming to the window, ACK processing with Reno's fast retransmit and
//! fast recovery, window update, reassembly and FIN processing.

use super::{
    CaIncrement, Deflation, DelayedAck, ElnRule, HeaderPrediction, PartialAck, Selective, State,
    Tcp, TxKind, TCP_MAXWIN,
};
use crate::segment::Segment;
use crate::time::{next_tick_after, ticks_between, Time};

impl Tcp {
    /// A segment for this connection arrives at `now`. Checksum-failed segments never get here.
    ///
    /// A reading process woken by the segment's data reads after `tcp_input` is done, so after the
    /// ACK it may have sent (with no read delay, at the same instant).
    pub fn on_segment(&mut self, now: Time, seg: &Segment) {
        if seg.flags.contains(crate::segment::Flags::RST) {
            self.input_reset(seg);
            return;
        }
        if self.state != State::Closed {
            self.last_rcvd_at = now; // t_idle = 0
        }
        match self.state {
            State::Closed => {}
            State::Listen => self.input_listen(now, seg),
            State::SynSent => self.input_syn_sent(now, seg),
            _ => {
                if !self.header_prediction(now, seg) {
                    self.input_synchronized(now, seg)
                }
            }
        }
        if self.read_at.is_some_and(|t| t <= now) {
            self.app_read(now);
        }
    }

    /// Header prediction (Lite2 tcp_input.c lines 416-510): the two common cases of a one-way
    /// transfer skip the slow path. Returns true when the segment was handled here.
    ///
    /// The ACK branch does not open cwnd (hence `cwnd >= snd_wnd`), does not reset `t_dupacks` and
    /// does not deflate a window inflated by fast recovery. The papers' variants added information
    /// to ACKs (SACK blocks, SMART, the ELN mark) that only their slow-path code reads, so such ACKs
    /// and their recovery states (SACK's and ELN's, and NewReno's partial ACKs) stay on the slow
    /// path.
    fn header_prediction(&mut self, now: Time, seg: &Segment) -> bool {
        use crate::segment::Flags;
        let mode = self.cfg.host.header_prediction;
        if mode == HeaderPrediction::Off
            || self.state != State::Established
            || !seg.has_ack()
            || seg.flags.intersects(Flags::SYN | Flags::FIN | Flags::RST)
            || seg.seq != self.rcv_nxt
            || seg.window == 0
            || u32::from(seg.window) != self.snd_wnd
            || self.snd_nxt != self.snd_max
            || !seg.sack.is_empty()
            || seg.smart.is_some()
            || seg.eln
            || self.sel.recovery
            || self.eln_recovery
        {
            return false;
        }
        if seg.len == 0 {
            // NewReno's partial ACK must reach `partial_ack_retransmit` on the slow path.
            let newreno_partial = self.cfg.policy.partial_ack == PartialAck::RetransmitNextHole
                && self.dupacks >= self.cur_thresh
                && seg.ack.lt(self.recover);
            if !(seg.ack.gt(self.snd_una)
                && seg.ack.le(self.snd_max)
                && self.snd_cwnd >= self.snd_wnd
                && (mode != HeaderPrediction::FreeBsd || self.dupacks < self.cur_thresh))
                || newreno_partial
            {
                return false;
            }
            // A pure ACK for outstanding data.
            self.stats.predicted_acks += 1;
            self.stats.acks_rcvd += 1;
            if self.dupacks >= self.cur_thresh {
                self.stats.predicted_acks_in_recovery += 1;
            }
            self.selective_on_ack(now, seg); // our send log's bookkeeping only
            self.take_rtt_sample(now, seg.ack);
            self.snd_una = seg.ack;
            if self.snd_una == self.snd_max {
                self.rexmt_at = None;
            } else if self.persist_at.is_none() {
                self.arm_rexmt(now, self.rtt.rxtcur);
            }
            // sowwakeup: the writer fills the buffer (and may close); tcp_output if data waits.
            self.maybe_usrclosed();
            self.output(now);
            return true;
        }
        if seg.ack != self.snd_una
            || !self.reass.is_empty()
            || self.pending_fin.is_some()
            || seg.len > self.receive_space()
        {
            return false;
        }
        // In-sequence data with nothing queued and room for it: a FIN that arrived ahead of a hole
        // is queued too (BSD keeps it on the reassembly queue: `seg_next != tp`, Lite2 line 488).
        self.stats.predicted_data += 1;
        self.last_rcvd_seq = Some(seg.seq);
        self.rcv_nxt += seg.len;
        self.stats.bytes_delivered += u64::from(seg.len);
        self.deliver(now, u64::from(seg.len));
        let ack_now = self.ack_in_order(now, seg.flags.contains(crate::segment::Flags::PSH));
        // An instant reader's read (PRU_RCVD) runs tcp_output here; a reading process does when
        // it runs.
        if ack_now || self.reads_instantly() {
            self.output(now);
        }
        true
    }

    /// A segment for this connection arrived with a bad checksum: it is discarded, but with ELN the
    /// receiver remembers that the bytes it carried were lost on the wireless hop (paper 000 III-A).
    pub fn on_corrupted(&mut self, seg: &Segment) {
        if !self.cfg.receiver.mark_eln || seg.len == 0 || !self.state.have_rcvd_syn() {
            return;
        }
        let (s, e) = (seg.seq, seg.seq + seg.len);
        if e.le(self.rcv_nxt) {
            return;
        }
        // forget ranges already received, then remember this one
        let rcv_nxt = self.rcv_nxt;
        self.corrupted_holes.retain(|&(_, he)| he.gt(rcv_nxt));
        if !self
            .corrupted_holes
            .iter()
            .any(|&(hs, he)| hs == s && he == e)
        {
            self.corrupted_holes.push((s, e));
            if self.corrupted_holes.len() > 64 {
                self.corrupted_holes.remove(0);
            }
        }
    }

    /// A reset (Lite2 `tcp_input`, "If the RST bit is set"): in SYN_SENT it counts only if it
    /// acknowledges the SYN (ECONNREFUSED); in the synchronized states only if its sequence number
    /// lies in the receive window (BSD drops one outside it while trimming). The connection closes
    /// at once (ECONNRESET) and nothing is sent in reply; a listener ignores it.
    fn input_reset(&mut self, seg: &Segment) {
        let acceptable = match self.state {
            State::Closed | State::Listen => false,
            State::SynSent => seg.has_ack() && seg.ack == self.snd_max,
            _ => {
                let rwnd = self
                    .receive_space()
                    .min(TCP_MAXWIN)
                    .max(self.rcv_adv.since(self.rcv_nxt));
                seg.seq.ge(self.rcv_nxt) && seg.seq.le(self.rcv_nxt + rwnd)
            }
        };
        if acceptable {
            self.enter_closed();
            self.stats.reset_received = true;
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
        let mut push = seg.flags.contains(crate::segment::Flags::PSH);

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
        // rcv_wnd never retracts what was already advertised
        let rwnd = self
            .receive_space()
            .min(TCP_MAXWIN)
            .max(self.rcv_adv.since(self.rcv_nxt));
        let beyond = (seq + len).diff(self.rcv_nxt + rwnd);
        if beyond > 0 {
            let beyond = beyond as u32;
            if beyond >= len {
                self.ack_now = true;
                len = 0;
            } else {
                len -= beyond;
            }
            fin = false;
            push = false;
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

        let delivered = self.receive_data(now, seq, len, fin, push);
        // An instant reader takes what arrived in order at once; its read calls tcp_output
        // (PRU_RCVD), which is where the every-second-segment ACK comes from. A reading process
        // does the same when it runs (Tcp::app_read); a relay reads later (Tcp::read).
        self.finish_input(now, needoutput || (delivered && self.reads_instantly()));
    }

    /// ACK processing of a synchronized connection. Returns true when the segment is done with
    /// (a duplicate ACK that triggered fast retransmit or window inflation).
    fn process_ack(&mut self, now: Time, seg: &Segment, len: u32, needoutput: &mut bool) -> bool {
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
            let deflate = !self.eln_recovery
                && match self.cfg.host.deflation {
                    Deflation::AboveThreshold => self.dupacks > self.cur_thresh,
                    Deflation::AtThreshold => self.dupacks >= self.cur_thresh,
                };
            let newreno_exit =
                in_recovery && self.cfg.policy.partial_ack == PartialAck::RetransmitNextHole;
            if (deflate || newreno_exit) && self.snd_cwnd > self.snd_ssthresh {
                self.snd_cwnd = self.snd_ssthresh;
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
        self.take_rtt_sample(now, seg.ack);
        if seg.ack == self.snd_max {
            self.rexmt_at = None;
            *needoutput = true;
        } else if self.persist_at.is_none() {
            self.arm_rexmt(now, self.rtt.rxtcur);
        }
        if !partial {
            self.open_cwnd();
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

    /// Slow start below ssthresh (one segment per ACK), congestion avoidance above it with the host's
    /// increment: `maxseg * maxseg / cwnd`, plus `maxseg / 8` in 4.4BSD-Lite (see [`CaIncrement`]).
    fn open_cwnd(&mut self) {
        let cw = self.snd_cwnd;
        let mut incr = self.maxseg;
        if cw > self.snd_ssthresh {
            incr = match self.cfg.host.ca_increment {
                CaIncrement::PlusEighth => incr * incr / cw + incr / 8,
                CaIncrement::Plain => incr * incr / cw,
            };
        }
        self.snd_cwnd = (cw + incr).min(TCP_MAXWIN);
    }

    /// A duplicate ACK for `snd_una` while data is outstanding: the recovery policies decide.
    /// Returns true when the segment is consumed.
    fn on_duplicate_ack(&mut self, now: Time, seg: &Segment) -> bool {
        if seg.eln && self.eln_rule() == Some(ElnRule::MarkedAcks) {
            // paper 004: a marked duplicate is ELN's alone; Reno never counts it
            self.eln_marked_ack(now, seg.ack);
            return true;
        }
        self.dupacks += 1;
        if self.dupacks == 1 {
            // EFR computes its threshold from the window on the first duplicate.
            let window = self.snd_wnd.min(self.snd_cwnd) / self.maxseg;
            self.cur_thresh = self.cfg.policy.dupack_threshold.for_window(window);
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
            self.snd_cwnd = (self.snd_cwnd + self.maxseg).min(TCP_MAXWIN);
            self.output(now);
            return true;
        }
        self.limited_transmit(now); // small_window.rs
        false
    }

    /// Resends the segment at `ack` alone, leaving cwnd as it was.
    fn resend_one(&mut self, now: Time, ack: crate::seq::Seq, cause: TxKind) {
        let onxt = self.snd_nxt;
        let cwnd = self.snd_cwnd;
        self.last_rexmt_start = Some(ack);
        self.rexmt_at = None;
        self.timing = None;
        self.snd_nxt = ack;
        self.snd_cwnd = self.maxseg;
        self.rexmt_cause = cause;
        self.output(now);
        self.snd_cwnd = cwnd;
        if onxt.gt(self.snd_nxt) {
            self.snd_nxt = onxt;
        }
    }

    /// Fast retransmit on the threshold-th duplicate ACK (Stevens vol. 2, p. 971): halve the window,
    /// resend the missing segment, then inflate by the duplicates that arrived.
    fn fast_retransmit(&mut self, now: Time, ack: crate::seq::Seq) {
        self.stats.fast_retransmits += 1;
        self.stats.fast_retransmits_below_three += u64::from(self.cur_thresh < 3);
        self.recover = self.snd_max;
        self.snd_ssthresh = self.halved_window();
        self.resend_one(now, ack, TxKind::FastRetransmit);
        self.snd_cwnd = self.snd_ssthresh + self.maxseg * self.dupacks;
    }

    /// ELN (paper 000 section III-A): the duplicate says the segment was lost on the wireless hop;
    /// resend it without any congestion response.
    fn eln_retransmit(&mut self, now: Time, ack: crate::seq::Seq) {
        self.stats.eln_retransmits += 1;
        self.eln_recovery = true;
        self.resend_one(now, ack, TxKind::FastRetransmit);
    }

    fn eln_rule(&self) -> Option<ElnRule> {
        self.cfg.policy.eln.map(|e| e.rule)
    }

    /// Paper 004 section 3.3: an ACK with ELN, duplicate or new, asks for the segment at `ack`. On
    /// the `eln_rexmt_thresh`-th mark for it the segment is resent with the window left as it is,
    /// unless ELN resent it less than one round trip ago (`eln_last_rxmit`).
    fn eln_marked_ack(&mut self, now: Time, ack: crate::seq::Seq) {
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
    fn partial_ack_retransmit(&mut self, now: Time) {
        self.stats.partial_ack_retransmits += 1;
        self.snd_cwnd = self.snd_ssthresh;
        let una = self.snd_una;
        self.resend_one(now, una, TxKind::FastRetransmit);
    }

    /// Accepts `[seq, seq + len)` and a FIN (`TCP_REASS`); returns true if data or the FIN came in
    /// order. `push`: the segment carried PSH.
    fn receive_data(
        &mut self,
        now: Time,
        seq: crate::seq::Seq,
        len: u32,
        fin: bool,
        push: bool,
    ) -> bool {
        if self.state.have_rcvd_fin() || matches!(self.state, State::TimeWait) {
            if len > 0 || fin {
                self.ack_now = true;
            }
            return false;
        }
        let mut in_order = false;
        if len > 0 {
            self.last_rcvd_seq = Some(seq);
            if seq == self.rcv_nxt && self.reass.is_empty() && self.state == State::Established {
                // TCP_REASS fast path: in order, nothing queued. The ACK may be delayed.
                self.rcv_nxt += len;
                self.stats.bytes_delivered += u64::from(len);
                self.deliver(now, u64::from(len));
                self.ack_in_order(now, push);
                in_order = true;
            } else {
                if seq != self.rcv_nxt {
                    self.stats.ooo_segs_rcvd += 1;
                }
                self.reass.insert(seq, seq + len);
                self.stats.max_reass_bytes = self.stats.max_reass_bytes.max(self.reass.bytes());
                if let Some(end) = self.reass.take_in_order(self.rcv_nxt) {
                    let n = u64::from(end.since(self.rcv_nxt));
                    self.stats.bytes_delivered += n;
                    self.deliver(now, n);
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
                self.wake_reader(now); // socantrcvmore -> sorwakeup: the reader sees end of file
            }
        }
        in_order
    }

    /// The receiving application takes its data the moment it is in order (the model before host
    /// profiles); a reading process and a relay hold it in `so_rcv` until they read.
    fn reads_instantly(&self) -> bool {
        self.cfg.close_when != super::CloseWhen::Relay
            && self.cfg.host.reader == super::ReaderModel::Instant
    }

    /// In-order data appended to `so_rcv` (`sbappend`, then `sorwakeup`).
    fn deliver(&mut self, now: Time, n: u64) {
        if self.reads_instantly() {
            self.stats.bytes_read += n;
        } else {
            self.unread += n;
            self.wake_reader(now);
        }
    }

    /// `sorwakeup`: a reading process sleeping in `read()` becomes runnable and reads after the
    /// host's read delay. A relay reads when its agent says (Tcp::read).
    fn wake_reader(&mut self, now: Time) {
        if self.cfg.close_when == super::CloseWhen::AfterEof
            && self.cfg.host.reader == super::ReaderModel::Process
            && self.read_at.is_none()
        {
            self.read_at = Some(now + self.cfg.host.read_delay);
        }
    }

    /// The reading process runs: `read()` calls of up to `read_size` bytes until `so_rcv` is empty,
    /// each ending in `PRU_RCVD`, i.e. `tcp_output`, whose window-update rule decides whether an
    /// ACK goes out; then, once the FIN is in, the read of end of file and `close()`.
    pub(super) fn app_read(&mut self, now: Time) {
        self.read_at = None;
        let size = u64::from(self.cfg.host.read_size.max(1));
        while self.unread > 0 {
            let n = self.unread.min(size);
            self.unread -= n;
            self.stats.bytes_read += n;
            self.stats.reads += 1;
            let before = self.stats.segs_sent;
            self.output(now);
            self.stats.window_updates += self.stats.segs_sent - before;
        }
        if self.state.have_rcvd_fin() && !self.eof_read {
            self.eof_read = true;
            self.maybe_usrclosed();
            self.output(now);
        }
    }

    /// In-order data was appended: `TF_DELACK`, or with the `ack-push` rule `TF_ACKNOW` for a segment
    /// that carried PSH. Returns true when the ACK is due now.
    fn ack_in_order(&mut self, now: Time, push: bool) -> bool {
        if push && self.cfg.host.delayed_ack == DelayedAck::AckPush {
            self.ack_now = true;
            true
        } else {
            self.set_delack(now);
            false
        }
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
