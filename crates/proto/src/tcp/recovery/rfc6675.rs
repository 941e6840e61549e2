//! RFC 6675's conservative SACK loss recovery with RFC 6937's Proportional Rate Reduction, as
//! Linux runs SACK recovery (host detail `sack-recovery = rfc6675-prr`; no BSD profile has it).
//! The scoreboard routines (IsLost, SetPipe, NextSeg) are `scoreboard.rs`'s, PRR's arithmetic
//! `prr.rs`'s; this file is section 5's algorithm: when recovery starts, what each ACK in it
//! does, when it ends, and section 5.1's timeout.
//!
//! Readings, where the RFC leaves a detail open or Linux departs from it:
//! - A duplicate ACK is counted where BSD counts one (no data, the same window, `snd_una`
//!   outstanding: `ack.rs`), not by RFC 6675 section 2's definition (which also asks for new
//!   SACK information). Entry is on the DupThresh-th duplicate or on IsLost(HighACK + 1) at any
//!   duplicate (section 5 steps 1-2); for a RACK sender (every Linux preset) only on a RACK mark. Limited Transmit (step 3, a MAY) is not sent. Linux enters
//!   recovery once a segment is marked lost (`tcp_time_to_recover()`), by RACK by default. Once
//!   in recovery (or after a timeout) every ACK for `snd_una` counts, duplicate or not (step B).
//! - The first retransmission (step 4.3) restarts the retransmission timer, as Linux does for
//!   the head of the retransmission queue (`tcp_xmit_retransmit_queue()`, net/ipv4/tcp_output.c).
//! - Rules (3) and (4) of NextSeg are RFC 6675's, sent with the host detail `next-seg =
//!   rfc6675`; Linux sends neither (`next-seg = linux-lost-only`, every Linux profile):
//!   `tcp_xmit_retransmit_queue()` (net/ipv4/tcp_output.c) resends only segments marked
//!   `TCPCB_LOST`, and what cwnd leaves after them goes to new data (`tcp_write_xmit()`), or to
//!   nothing; a hole not marked lost waits for RACK's mark (or the RTO), and a tail for TLP's
//!   probe (RFC 8985, `tlp.rs`) where RFC 6675 sends its rescue.
//! - The timeout (section 5.1): the SACK information is kept, every segment not SACKed is marked
//!   lost (for a RACK sender only the head and the segments not sent within RACK.rtt,
//!   `tcp_timeout_mark_lost()`, with cwnd the flight plus one, `tcp_enter_loss()`; see
//!   `rfc6675_on_rto`) and resent in order before new data, by the slow-start window, and no recovery starts
//!   until the ACK reaches RecoveryPoint = HighData: Linux's `tcp_enter_loss()` and
//!   `tcp_timeout_mark_lost()` (net/ipv4/tcp_input.c), which RFC 6675 section 5.1 allows ("an
//!   implementation can retain and use SACK information across a timeout event"). Linux's test
//!   for a receiver that reneged (`tcp_check_sack_reneging()`) is not modelled, nor its keeping
//!   of ssthresh on a timeout within recovery: the window on a timeout is the controller's
//!   (`Congestion::on_rto`).
//! - A resend of the segment the FIN followed carries the FIN (Linux's FIN rides on the tail
//!   segment); a FIN sent alone and lost waits for the timer.
//! - Recovery's end sets cwnd to ssthresh (RFC 6937 section 3; Linux `tcp_end_cwnd_reduction()`);
//!   the ACK that ends it does not also open the window, where Linux's `tcp_cong_control()` opens
//!   it by that ACK's delivery after the reduction ended.

use super::super::{NextSeg, Tcp, TxKind};
use super::prr::Prr;
use super::rack::EarlyTimer;
use super::scoreboard::{NextSegInput, Phase, Rule};
use crate::segment::Flags;
use crate::time::Time;

impl Tcp {
    /// DupThresh (RFC 6675 section 2): the duplicate-ACK threshold in force, 3 for SACK.
    fn dup_thresh(&self) -> u32 {
        self.cur_thresh
    }

    /// IsLost's DupThresh, `None` for a RACK sender: Linux since 4.18 ("tcp: disable RFC6675
    /// loss detection") marks a RACK sender's segments lost only by RACK (or a timeout):
    /// `tcp_fastretrans_alert()` calls `tcp_update_scoreboard()`, the SACK count against
    /// `tp->reordering`, only `if (!tcp_is_rack(sk) && do_lost)` (net/ipv4/tcp_input.c). So
    /// SACKed data above a hole marks it lost only through RACK's reordering window: with
    /// reordering seen (e.g. snoop's local repair filling a hole the sender never resent) that
    /// window is min_rtt / 4, and three SACKed segments do not shorten it.
    pub(in crate::tcp) fn is_lost_thresh(&self) -> Option<u32> {
        (!self.rack_tlp_on()).then(|| self.dup_thresh())
    }

    /// A counted duplicate ACK (the scoreboard already updated): in recovery, PRR and NextSeg
    /// act on it; after a timeout it may free room in the pipe; else it may start recovery.
    /// Returns true when the segment is consumed.
    pub(super) fn rfc6675_on_dupack(&mut self, now: Time) -> bool {
        match self.sel.rfc().phase {
            Phase::Recovery => {
                self.rfc6675_recovery_ack(now);
                true
            }
            Phase::Loss => {
                // RFC 6675 section 5.1: no recovery starts before RecoveryPoint, so nothing is
                // counted towards one
                self.dupacks = 0;
                self.rfc6675_resend_lost(now);
                true
            }
            Phase::Open => {
                // Linux's `tcp_time_to_recover()`: a RACK sender recovers only once a loss is
                // marked (`tp->lost_out`), never by counting duplicates
                // (`!tcp_is_rack(sk) && tcp_dupack_heuristics(tp) > tp->reordering`)
                let start = match self.is_lost_thresh() {
                    None => self.rack_has_lost(),
                    Some(thresh) => {
                        self.dupacks >= thresh
                            || self.sel.is_lost(self.snd_una, self.maxseg, thresh)
                    }
                };
                if start {
                    self.rfc6675_enter(now);
                    true
                } else {
                    false
                }
            }
        }
    }

    /// An ACK for `snd_una` not counted as a duplicate: in recovery and after a timeout it is
    /// taken as a duplicate is (its SACK blocks and delivery count); it starts no recovery.
    pub(super) fn rfc6675_on_other_ack(&mut self, now: Time) {
        match self.sel.rfc().phase {
            Phase::Recovery => self.rfc6675_recovery_ack(now),
            Phase::Loss => self.rfc6675_resend_lost(now),
            Phase::Open => {}
        }
    }

    /// Whether a new ACK leaves recovery going on: below RecoveryPoint in recovery. After a
    /// timeout the window grows by every ACK (slow start, as Linux in `TCP_CA_Loss`), so none
    /// is partial there.
    pub(super) fn rfc6675_is_partial(&self, ack: crate::seq::Seq) -> bool {
        let rfc = self.sel.rfc();
        rfc.phase == Phase::Recovery && rfc.recovery_point.is_some_and(|p| ack.lt(p))
    }

    /// A new ACK, after `snd_una` moved: (A) at or above RecoveryPoint it ends the recovery or
    /// the timeout's phase, else (B) and (C) go on.
    pub(super) fn rfc6675_after_new_ack(&mut self, now: Time, partial: bool) {
        match self.sel.rfc().phase {
            Phase::Open => {
                // RACK marked a loss (Linux's `tcp_time_to_recover()`: `lost_out`)
                if self.rack_has_lost() {
                    self.rfc6675_enter(now);
                }
            }
            Phase::Recovery if partial => self.rfc6675_recovery_ack(now),
            Phase::Recovery => {
                self.rfc6675_leave();
                self.cc.on_scoreboard_recovery_end();
            }
            Phase::Loss => {
                let done = self
                    .sel
                    .rfc()
                    .recovery_point
                    .is_none_or(|p| self.snd_una.ge(p));
                if done {
                    self.rfc6675_leave();
                } else {
                    self.rfc6675_resend_lost(now);
                }
            }
        }
    }

    pub(in crate::tcp) fn rfc6675_leave(&mut self) {
        let rfc = &mut self.sel.rfc6675;
        rfc.phase = Phase::Open;
        rfc.lost_below = None;
        self.sel.recovery = false;
    }

    /// Section 5 step (4): RecoveryPoint = HighData (4.1); ssthresh from the controller and
    /// PRR's state (4.2, RFC 6937 section 3); the segment at HighACK + 1 resent at once (4.3),
    /// HighRxt and RescueRxt set to its end; then SetPipe (4.4) and step (C) by PRR (4.5). In
    /// Linux's order (`prr = linux`, [`Prr::sizes_entry_before_first_send`]) PRR sizes the
    /// entering ACK first, the head not yet resent; the head then goes whatever the window (PRR's
    /// rule (d) makes the window allow it), and the rest go by that window. A
    /// reading: the head goes even where nothing marked it lost, which Linux's
    /// `tcp_xmit_retransmit_queue()` would skip; a RACK entry marks it first, as the oldest send.
    pub(super) fn rfc6675_enter(&mut self, now: Time) {
        self.stats.fast_retransmits += 1;
        // the head's resend takes the timer from a pending probe, and the window reduction
        // ends TLP's episode (`tcp_init_cwnd_reduction()` clears `tlp_high_seq`)
        if self
            .sel
            .early_timer
            .is_some_and(|(_, t)| t == EarlyTimer::Probe)
        {
            self.sel.early_timer = None;
        }
        self.sel.tlp.high_seq = None;
        self.recover = self.snd_max;
        self.undo_init(); // Linux: tcp_enter_recovery() -> tcp_init_undo()
        let flight = self.snd_max.since(self.snd_una);
        let prior_cwnd = self.cc.cwnd(); // Linux's `tp->prior_cwnd`
        self.cc.on_prr_recovery_start(flight, self.maxseg);
        let rfc = &mut self.sel.rfc6675;
        rfc.phase = Phase::Recovery;
        rfc.recovery_point = Some(self.snd_max);
        rfc.rescue_rxt = None;
        rfc.prr = Prr::start(self.cfg.host.prr, flight, prior_cwnd, self.maxseg);
        self.sel.recovery = true;
        self.sel.high_rxt = self.snd_una;
        // Karn: no RTT sample from a segment that may have been resent
        self.timing = None;
        if self.sel.rfc6675.prr.sizes_entry_before_first_send() {
            // Linux: `tcp_cong_control()` -> `tcp_cwnd_reduction()` with `prr_out` 0, then
            // `tcp_xmit_recovery()` -> `tcp_xmit_retransmit_queue()` sends by that window
            self.rfc6675_prr_window();
            self.rfc6675_resend_head(now);
            self.rfc6675_resend_lost(now);
        } else {
            self.rfc6675_resend_head(now);
            self.rfc6675_recovery_ack(now);
        }
    }

    /// Step (4.3): the segment at HighACK + 1 resent, HighRxt and RescueRxt set to its end,
    /// counted in PRR's `prr_out`; the retransmission timer restarts with it.
    fn rfc6675_resend_head(&mut self, now: Time) {
        let Some((seq, len)) = self.sel.segment_at(self.snd_una) else {
            return;
        };
        self.last_rexmt_start = Some(seq); // for the timeout's cause, as a fast retransmit
        self.rexmt_at = None;
        self.send_exact(now, seq, len, TxKind::FastRetransmit);
        self.sel.high_rxt = seq + len;
        let rfc = &mut self.sel.rfc6675;
        rfc.rescue_rxt = Some(seq + len);
        rfc.prr.on_send(len);
    }

    /// (B) and (C) with PRR for one ACK in recovery: PRR's window for it, then NextSeg while
    /// cwnd - pipe >= 1 SMSS.
    fn rfc6675_recovery_ack(&mut self, now: Time) {
        self.rfc6675_prr_window();
        self.rfc6675_send(now);
    }

    /// SetPipe, sndcnt from the ACK's DeliveredData, cwnd = pipe + sndcnt (or, in Linux's
    /// reading, left alone on an ACK that delivered nothing).
    fn rfc6675_prr_window(&mut self) {
        let pipe = self
            .sel
            .set_pipe(self.snd_una, self.maxseg, self.is_lost_thresh());
        let ssthresh = self.cc.ssthresh();
        let rfc = &mut self.sel.rfc6675;
        rfc.pipe = pipe;
        let ack = rfc.prr_ack();
        if let Some(sndcnt) = rfc.prr.on_ack(ack, pipe, ssthresh) {
            self.cc.set_prr_cwnd(pipe.saturating_add(sndcnt));
        }
    }

    /// SetPipe, then send what NextSeg gives by the window (`tcp_xmit_retransmit_queue()`):
    /// after RACK's reordering timer marked segments lost in recovery or after a timeout, after
    /// the head's resend on entering a recovery in Linux's order, and on an ACK after a timeout
    /// below RecoveryPoint.
    pub(super) fn rfc6675_resend_lost(&mut self, now: Time) {
        self.sel.rfc6675.pipe = self
            .sel
            .set_pipe(self.snd_una, self.maxseg, self.is_lost_thresh());
        self.rfc6675_send(now);
    }

    /// Section 5.1: the timer expired at `now` (the controller has already collapsed the
    /// window). The recovery, if any, ends; RecoveryPoint = HighData; segments not SACKed are
    /// marked lost and none counts as retransmitted any more (Linux's `tcp_mark_skb_lost()`
    /// clears `TCPCB_SACKED_RETRANS`); the scoreboard is kept. `snd_nxt` stays at `snd_max`:
    /// what is resent is NextSeg's, not a go-back-N. With nothing logged to resend (only a FIN
    /// is outstanding) the BSD timeout's go-back-N resends it.
    ///
    /// A RACK sender's marks are Linux's `tcp_timeout_mark_lost()`, segment by segment: the
    /// head and those not sent within RACK.rtt
    /// (`SelectiveState::rack_timeout_mark_lost`);
    /// the head goes first (NextSeg's rule (1) walks from it), and `tcp_enter_loss()` sets
    /// cwnd = `tcp_packets_in_flight()` + 1, the segments left unmarked still in flight. Any
    /// other RFC 6675 sender marks every segment (`lost_below`), its window one segment.
    pub(super) fn rfc6675_on_rto(&mut self, now: Time) {
        // the RTO ends TLP's episode and takes the timer (`tcp_retransmit_timer()`)
        self.sel.tlp.high_seq = None;
        self.sel.early_timer = None;
        if self.sel.log.is_empty() {
            self.rfc6675_leave();
            return;
        }
        let rack = self.rack_tlp_on();
        let rfc = &mut self.sel.rfc6675;
        rfc.phase = Phase::Loss;
        rfc.recovery_point = Some(self.snd_max);
        rfc.lost_below = (!rack).then_some(self.snd_max);
        rfc.rescue_rxt = None;
        self.sel.recovery = true;
        self.sel.high_rxt = self.snd_una;
        self.snd_nxt = self.snd_max;
        if rack {
            let rack_rtt = self.sel.rack.rtt;
            self.sel.rack_timeout_mark_lost(now, self.snd_una, rack_rtt);
        }
        let pipe = self
            .sel
            .set_pipe(self.snd_una, self.maxseg, self.is_lost_thresh());
        self.sel.rfc6675.pipe = pipe;
        if rack {
            self.cc.set_loss_cwnd(pipe, self.maxseg);
        }
    }

    /// Step (C): while cwnd - pipe >= 1 SMSS, send what NextSeg gives, moving HighRxt (C.2)
    /// and pipe (C.4); in recovery PRR counts it (`prr_out`). Not into a closed window, nor
    /// while persisting (as `sack_send`).
    pub(in crate::tcp) fn rfc6675_send(&mut self, now: Time) {
        if self.snd_wnd == 0 || self.persist_at.is_some() || self.frto_holds_resends(now) {
            return;
        }
        let in_recovery = self.sel.rfc().phase == Phase::Recovery;
        let unmarked_holes = in_recovery && self.cfg.host.next_seg == NextSeg::Rfc6675;
        let kind = if in_recovery {
            TxKind::FastRetransmit
        } else {
            TxKind::TimeoutRetransmit
        };
        while self.cc.cwnd().saturating_sub(self.sel.rfc().pipe) >= self.maxseg {
            let at = NextSegInput {
                una: self.snd_una,
                high_data: self.snd_max,
                mss: self.maxseg,
                dup_thresh: self.is_lost_thresh(),
                new_data: self.new_data_room(),
                unmarked_holes,
            };
            let Some((seq, len, rule)) = self.sel.next_seg(at) else {
                break;
            };
            match rule {
                Rule::NewData => self.send_new_data(now, len),
                Rule::Lost | Rule::NotSacked => {
                    if seq == self.snd_una {
                        // the head: the timer restarts with it (tcp_xmit_retransmit_queue)
                        self.rexmt_at = None;
                    }
                    self.rfc6675_resend(now, seq, len, kind);
                    self.sel.rack_resent(seq);
                    // a RACK-marked resend may lie below HighRxt
                    if (seq + len).gt(self.sel.high_rxt) {
                        self.sel.high_rxt = seq + len;
                    }
                }
                Rule::Rescue => {
                    self.rfc6675_resend(now, seq, len, kind);
                    self.sel.rfc6675.rescue_rxt = self.sel.rfc().recovery_point;
                }
            }
            let rfc = &mut self.sel.rfc6675;
            rfc.pipe += len;
            if in_recovery {
                rfc.prr.on_send(len);
            }
        }
    }

    /// Resends `[seq, seq + len)`, with the FIN if the segment ends where it was sent: Linux's
    /// FIN rides on the last segment (`tcp_send_fin()` appends it to the tail of the write
    /// queue), so a resend of that segment carries it. (A FIN sent alone, and lost, waits for
    /// the timer's go-back-N.)
    pub(super) fn rfc6675_resend(
        &mut self,
        now: Time,
        seq: crate::seq::Seq,
        len: u32,
        kind: TxKind,
    ) {
        // the application's byte count is read only once its FIN is out (run sharing, witness.rs)
        let ends_at_fin =
            self.sent_fin && seq + len == self.data_start() + (self.total_bytes() as u32);
        if !ends_at_fin {
            self.send_exact(now, seq, len, kind);
            return;
        }
        let saved = self.snd_nxt;
        self.snd_nxt = seq;
        self.rexmt_cause = kind;
        self.send_segment(now, Flags::ACK | Flags::FIN, len, self.buffer_end());
        self.tlp_after_write(now);
        if saved.gt(self.snd_nxt) {
            self.snd_nxt = saved;
        }
    }

    /// NextSeg rule (2)'s room: new data up to one SMSS that the peer's window and the send
    /// buffer allow, 0 if none.
    pub(in crate::tcp) fn new_data_room(&self) -> u32 {
        let (window_end, buffer_end) = (self.snd_una + self.snd_wnd, self.buffer_end());
        if window_end.lt(self.snd_max) || buffer_end.lt(self.snd_max) {
            return 0;
        }
        let room = window_end.since(self.snd_max);
        self.maxseg.min(room).min(buffer_end.since(self.snd_max))
    }

    /// Sends `len` bytes of new data from `snd_max`.
    pub(in crate::tcp) fn send_new_data(&mut self, now: Time, len: u32) {
        let saved = self.snd_nxt;
        self.snd_nxt = self.snd_max;
        let buffer_end = self.buffer_end();
        self.send_segment(now, Flags::ACK, len, buffer_end);
        self.tlp_after_write(now);
        if saved.gt(self.snd_nxt) {
            self.snd_nxt = saved;
        }
    }
}
