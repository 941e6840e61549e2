//! `tcp_input` of 4.4BSD-Lite (Stevens vol. 2, chapters 27-29) for a segment already matched to this
//! connection: the handshake, trimming to the window, window update, reassembly and FIN processing;
//! ACK processing is in `ack.rs`, fast retransmit and fast recovery in `recovery/`.

use super::{DelayedAck, HeaderPrediction, State, Tcp};
use crate::segment::Segment;
use crate::time::{next_tick_after, ticks_between, Time};

impl Tcp {
    /// A segment for this connection arrives at `now`. Checksum-failed segments never get here.
    ///
    /// A reading process woken by the segment's data reads after `tcp_input` is done, so after the
    /// ACK it may have sent (with no read delay, at the same instant).
    pub fn on_segment(&mut self, now: Time, seg: &Segment) {
        if self.today {
            self.on_segment_as::<true>(now, seg)
        } else {
            self.on_segment_as::<false>(now, seg)
        }
    }

    /// [`Tcp::on_segment`]. `TODAY`: whether the host has one of today's details
    /// (`Tcp::today`); with `TODAY = false` every test of such a detail is `TODAY && ...`, which
    /// the compiler removes: the host has none, so each would be false (issue 50, bound (a)).
    /// With `true` every test is made as it reads.
    fn on_segment_as<const TODAY: bool>(&mut self, now: Time, seg: &Segment) {
        debug_assert!(TODAY || !self.cfg.host.has_todays_details());
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
                // timestamps are one of today's details: PAWS never discards without them
                if TODAY && !self.ts_accept(seg) {
                    // PAWS: not acceptable, answered with an ACK (RFC 7323 section 5.3 R1),
                    // a DSACK for what lay below rcv_nxt (Linux's tcp_send_dupack())
                    self.dsack_below_rcv_nxt(seg.seq, seg.len);
                    self.finish_input::<TODAY>(now, false);
                } else if !self.header_prediction::<TODAY>(now, seg) {
                    self.input_synchronized::<TODAY>(now, seg)
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
    fn header_prediction<const TODAY: bool>(&mut self, now: Time, seg: &Segment) -> bool {
        use crate::segment::Flags;
        let mode = self.cfg.host.header_prediction;
        if mode == HeaderPrediction::Off
            || self.state != State::Established
            || !seg.has_ack()
            || seg.flags.intersects(Flags::SYN | Flags::FIN | Flags::RST)
            || seg.seq != self.rcv_nxt
            || seg.window == 0
            || self.peer_window_as::<TODAY>(seg) != self.snd_wnd
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
            // NewReno's partial ACK must reach `partial_ack_retransmit` on the slow path (SACK's
            // recovery and ELN's were sent there above).
            let newreno_partial = self.is_partial_ack(seg);
            if !(seg.ack.gt(self.snd_una)
                && seg.ack.le(self.snd_max)
                && self.cc.cwnd() >= self.snd_wnd
                && !(TODAY && self.cc.hears_every_ack())
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
            self.rtt_sample_on_ack_as::<TODAY>(now, seg);
            self.snd_una = seg.ack;
            if self.snd_una == self.snd_max {
                self.rexmt_at = None;
            } else if self.persist_at.is_none() {
                self.arm_rexmt_as::<TODAY>(now);
            }
            // sowwakeup: the writer fills the buffer (and may close); tcp_output if data waits.
            self.maybe_usrclosed();
            self.output_as::<TODAY>(now);
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
        let ack_now =
            self.ack_in_order::<TODAY>(now, seg.flags.contains(crate::segment::Flags::PSH));
        // An instant reader's read (PRU_RCVD) runs tcp_output here; a reading process does when
        // it runs.
        if ack_now || self.reads_instantly() {
            self.output_as::<TODAY>(now);
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
                    .min(self.max_rcv_window())
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
        self.negotiate_rfc7323(seg);
        self.apply_mss(seg.mss);
        self.irs = seg.seq;
        self.rcv_nxt = seg.seq + 1;
        self.rcv_adv = self.rcv_nxt;
        self.snd_wnd = self.peer_window(seg);
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
        self.negotiate_rfc7323(seg);
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
            self.rtt_sample_on_ack(now, seg);
            self.rtt_on_established();
        } else {
            self.state = State::SynRcvd;
        }
        self.snd_wnd = self.peer_window(seg);
        self.max_sndwnd = self.max_sndwnd.max(self.snd_wnd);
        self.snd_wl1 = seg.seq;
        self.snd_wl2 = seg.ack;
        self.maybe_usrclosed();
        self.output(now);
    }

    /// Closes the RTT measurement if `ack` covers the timed segment (`t_rtt && SEQ_GT(ack, t_rtseq)`).
    /// Returns the sample as the BSD sender measures it: whole slow ticks, as a duration. A
    /// Linux estimator instead times every ACK of new data (`linux_rtt.rs`) and returns the
    /// time since the last segment it covers was sent.
    #[inline(always)]
    pub(super) fn take_rtt_sample<const TODAY: bool>(
        &mut self,
        now: Time,
        ack: crate::seq::Seq,
    ) -> Option<Time> {
        // Linux's estimator is one of today's details
        if let (true, Some(l)) = (TODAY, &mut self.linux_rtt) {
            return l.on_ack(now, ack, self.snd_nxt);
        }
        if let Some((sent, rtseq)) = self.timing {
            if ack.gt(rtseq) {
                let t = &self.cfg.timers;
                let ticks = 1 + ticks_between(sent, now, t.slow_phase, t.slow_tick);
                self.rtt.sample(ticks.min(u64::from(u32::MAX)) as u32);
                self.timing = None;
                return Some(ticks.saturating_mul(t.slow_tick));
            }
        }
        None
    }

    fn input_synchronized<const TODAY: bool>(&mut self, now: Time, seg: &Segment) {
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
            // dsack.rs: what lies below rcv_nxt is a duplicate (tcp_data_queue())
            if TODAY {
                self.dsack_below_rcv_nxt(seq, len);
            }
            if todrop > len || (todrop == len && !fin) {
                // A complete duplicate: ACK it at once, keep going for its ACK field.
                fin = false;
                self.ack_now = true;
                if TODAY && len > 0 {
                    self.linux_enter_quickack();
                }
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
            .min(self.max_rcv_window_as::<TODAY>())
            .max(self.rcv_adv.since(self.rcv_nxt));
        let beyond = (seq + len).diff(self.rcv_nxt + rwnd);
        if beyond > 0 {
            let beyond = beyond as u32;
            if beyond >= len {
                self.ack_now = true;
                if TODAY && len > 0 {
                    self.linux_enter_quickack();
                }
                len = 0;
            } else {
                len -= beyond;
            }
            fin = false;
            push = false;
        }

        if !seg.has_ack() {
            self.finish_input::<TODAY>(now, false);
            return;
        }

        let mut needoutput = false;
        let mut just_established = false;
        if self.state == State::SynRcvd {
            if seg.ack.le(self.snd_una) || seg.ack.gt(self.snd_max) {
                self.ack_now = true;
                self.finish_input::<TODAY>(now, false);
                return;
            }
            self.state = State::Established;
            self.snd_wl1 = seq - 1;
            just_established = true;
        }

        let consumed = self.process_ack::<TODAY>(now, seg, len, &mut needoutput);
        if just_established {
            // after the SYN-ACK's sample, as `tcp_init_transfer()` follows it
            self.rtt_on_established();
        }
        if consumed {
            // the segment was consumed by the duplicate-ACK machinery
            return;
        }

        // Window update (step 6).
        if self.snd_wl1.lt(seq)
            || (self.snd_wl1 == seq
                && (self.snd_wl2.lt(seg.ack)
                    || (self.snd_wl2 == seg.ack
                        && self.peer_window_as::<TODAY>(seg) > self.snd_wnd)))
        {
            self.snd_wnd = self.peer_window_as::<TODAY>(seg);
            self.snd_wl1 = seq;
            self.snd_wl2 = seg.ack;
            self.max_sndwnd = self.max_sndwnd.max(self.snd_wnd);
            needoutput = true;
        }

        let delivered = self.receive_data::<TODAY>(now, seq, len, fin, push);
        // An instant reader takes what arrived in order at once; its read calls tcp_output
        // (PRU_RCVD), which is where the every-second-segment ACK comes from. A reading process
        // does the same when it runs (Tcp::app_read); a relay reads later (Tcp::read).
        self.finish_input::<TODAY>(now, needoutput || (delivered && self.reads_instantly()));
    }

    /// Accepts `[seq, seq + len)` and a FIN (`TCP_REASS`); returns true if data or the FIN came in
    /// order. `push`: the segment carried PSH.
    fn receive_data<const TODAY: bool>(
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
                self.ack_in_order::<TODAY>(now, push);
                in_order = true;
            } else {
                if seq != self.rcv_nxt {
                    self.stats.ooo_segs_rcvd += 1;
                }
                if TODAY {
                    self.dsack_held(seq, seq + len); // dsack.rs: tcp_data_queue_ofo()
                    if seq != self.rcv_nxt {
                        self.linux_schedule_ack();
                    }
                }
                self.reass.insert(seq, seq + len);
                self.stats.max_reass_bytes = self.stats.max_reass_bytes.max(self.reass.bytes());
                if let Some(end) = self.reass.take_in_order(self.rcv_nxt) {
                    let n = u64::from(end.since(self.rcv_nxt));
                    self.stats.bytes_delivered += n;
                    self.deliver(now, n);
                    self.rcv_nxt = end;
                    in_order = true;
                    if TODAY && self.cfg.host.delayed_ack == DelayedAck::Linux {
                        // in sequence for Linux's tcp_data_queue(): tcp_event_data_recv()
                        self.linux_data_recv(now);
                    }
                }
                if self.reass.is_empty() {
                    // data that fills the hole is ACKed at once (RFC 5681 4.2, ICSK_ACK_NOW)
                    self.ack_now = true;
                } else if TODAY {
                    // out-of-order data: at once, or held by Linux's SACK compression
                    self.ack_out_of_order(now);
                } else {
                    // RFC 5681 4.2: at once (no SACK compression)
                    self.ack_now = true;
                }
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

    /// In-order data appended to `so_rcv` (`sbappend`, then `sorwakeup`). Inlined (as are
    /// `ack_in_order` and `take_rtt_sample`): once per segment, and the call cost as much as
    /// the work.
    #[inline(always)]
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
    #[inline(always)]
    fn ack_in_order<const TODAY: bool>(&mut self, now: Time, push: bool) -> bool {
        if TODAY && self.cfg.host.delayed_ack == DelayedAck::Linux {
            self.linux_data_recv_and_ack_check(now);
            return self.ack_now;
        }
        if push && self.cfg.host.delayed_ack == DelayedAck::AckPush {
            self.ack_now = true;
            true
        } else {
            self.set_delack::<TODAY>(now);
            false
        }
    }

    /// `TF_DELACK`: the ACK goes out with the next fast-timer tick unless something sends it
    /// sooner; on Linux's jiffies, `TCP_DELACK_MAX` (the fast tick, 200 ms) later on the wheel.
    /// (Inlined with BSD's tick, as it was before the jiffies: a call for every in-order data
    /// segment cost `bench` 0.5%, issue 50.)
    #[inline(always)]
    fn set_delack<const TODAY: bool>(&mut self, now: Time) {
        if self.delack_at.is_none() {
            let t = &self.cfg.timers;
            self.delack_at = Some(match self.cfg.host.timer_clock {
                clock @ super::TimerClock::Jiffies { .. } if TODAY => {
                    delack_on_wheel(clock, now, t)
                }
                // Linux's timer wheel is one of today's details
                _ => next_tick_after(now, t.fast_phase, t.fast_tick),
            });
        }
    }

    /// The end of `tcp_input`, on the path `TODAY` ([`Tcp::on_segment_as`]).
    pub(super) fn finish_input<const TODAY: bool>(&mut self, now: Time, needoutput: bool) {
        self.maybe_usrclosed();
        if needoutput || self.ack_now || (self.state == State::LastAck && !self.sent_fin) {
            self.output_as::<TODAY>(now);
        }
    }
}

/// The delayed ACK's expiry on Linux's timer wheel: `TCP_DELACK_MAX` (the fast tick) after `now`
/// ([`Tcp::set_delack`]'s jiffies case, out of the BSD hosts' inlined path).
#[inline(never)]
fn delack_on_wheel(clock: super::TimerClock, now: Time, t: &super::TimerConfig) -> Time {
    clock.wheel_after(now, clock.to_jiffies(t.fast_tick))
}
