//! `tcp_output` of 4.4BSD-Lite (Stevens vol. 2, chapter 26): decide whether a segment goes out now,
//! build it, and advance the send sequence variables.

use super::{SentInfo, State, Tcp, TxKind};
use crate::segment::{Flags, Segment};
use crate::seq::Seq;
use crate::time::Time;

impl Tcp {
    /// `tcp_outflags[]`: the flags each state sends with.
    fn outflags(&self) -> Flags {
        match self.state {
            State::Closed | State::Listen => Flags::NONE,
            State::SynSent => Flags::SYN,
            State::SynRcvd => Flags::SYN | Flags::ACK,
            State::Established | State::CloseWait | State::FinWait2 | State::TimeWait => Flags::ACK,
            State::FinWait1 | State::Closing | State::LastAck => Flags::FIN | Flags::ACK,
        }
    }

    /// The window to advertise: the free receive buffer. A sink reads at once, so it is the whole
    /// (rounded) buffer; a relay's unread data and its reserved space take their share.
    pub(super) fn receive_space(&self) -> u32 {
        let used = self.unread + self.reserved;
        u64::from(self.rcvbuf).saturating_sub(used) as u32
    }

    /// ELN: the ACK's cumulative acknowledgment points into a range that arrived corrupted.
    fn eln_mark_due(&self) -> bool {
        self.cfg.receiver.mark_eln
            && self
                .corrupted_holes
                .iter()
                .any(|&(s, e)| s.le(self.rcv_nxt) && self.rcv_nxt.lt(e))
    }

    /// The congestion window `tcp_output` sends by: the controller's, the one set for this call
    /// ([`Tcp::output_with_cwnd`]), or a Linux host's below the threshold (`reno_sacks.rs`) or
    /// with SACKed data before a recovery (`disorder.rs`).
    #[inline]
    pub(super) fn send_cwnd(&self) -> u32 {
        self.send_cwnd_as::<true>()
    }

    /// [`Tcp::send_cwnd`] on the path `TODAY` (`input.rs`): SACK emulation and RACK-TLP, whose
    /// windows these are, are today's details.
    #[inline]
    fn send_cwnd_as<const TODAY: bool>(&self) -> u32 {
        if !TODAY {
            return self.output_cwnd.unwrap_or(self.cc.cwnd());
        }
        self.output_cwnd
            .or_else(|| self.reno_sack_window())
            .or_else(|| self.disorder_window())
            .unwrap_or(self.cc.cwnd())
    }

    /// `tcp_output` with `cwnd` in place of the controller's window for this one call, as BSD
    /// sets `snd_cwnd` around a call and restores it (fast retransmit's lone resend, Stevens
    /// vol. 2, p. 971; FreeBSD's Limited Transmit); the controller's window is left as it is.
    pub(super) fn output_with_cwnd(&mut self, now: Time, cwnd: u32) {
        self.output_cwnd = Some(cwnd);
        self.output(now);
        self.output_cwnd = None;
    }

    /// Sends every segment `tcp_output` would send now; after new data, a RACK-TLP sender's one
    /// loss probe is scheduled ([`Tcp::tlp_after_write`]).
    pub(super) fn output(&mut self, now: Time) {
        if self.today {
            self.output_as::<true>(now)
        } else {
            self.output_as::<false>(now)
        }
    }

    /// [`Tcp::output`] on the path `TODAY` (`input.rs`, [`Tcp::on_segment_as`]).
    pub(super) fn output_as<const TODAY: bool>(&mut self, now: Time) {
        debug_assert!(TODAY || !self.cfg.host.has_todays_details());
        if matches!(self.state, State::Closed | State::Listen) {
            self.ack_now = false;
            return;
        }
        if self.sel.recovery {
            // Whenever the sender may send (a window update, new data from the application), the
            // pipe rule says what: a hole, or new data if the pipe is below cwnd.
            self.scoreboard_send(now);
        }
        let idle = self.snd_max == self.snd_una;
        if idle && self.idle_restart_due::<TODAY>(now) {
            // Idle for a retransmission interval: no ACKs will clock data out, so slow-start again
            // (Lite2 tcp_output.c lines 90-97).
            self.cc.on_idle_restart(self.maxseg);
        }
        // the same for every segment of this call: what is sent moves neither snd_una nor the
        // application's writes
        let buffer_end = self.buffer_end();
        // `sb_cc`: data in the send buffer, counted from snd_una.
        let sb_cc = buffer_end.since(self.snd_una.max(self.data_start()));
        loop {
            let idle = self.snd_max == self.snd_una;
            let off = self.snd_nxt.since(self.snd_una);
            if sb_cc == 0 && off == 0 && !self.force && self.sends_ack_only() {
                // nothing to send and nothing sent ahead (a receiver's every call, issue 50)
                return self.output_nothing_to_send::<TODAY>(now, buffer_end);
            }
            let mut win = self.snd_wnd.min(self.send_cwnd_as::<TODAY>());
            let mut flags = self.outflags();
            if self.force {
                if win == 0 {
                    // A persist probe: one byte into the closed window (the FIN only if no data is
                    // left to send).
                    if off < sb_cc {
                        flags.remove(Flags::FIN);
                    }
                    win = 1;
                } else {
                    // A small window: send what it allows and leave the persist state.
                    self.persist_at = None;
                    self.rtt.rxtshift = 0;
                }
            }
            let handshake = matches!(self.state, State::SynSent | State::SynRcvd);
            let mut len: i64 = if handshake {
                0
            } else {
                i64::from(sb_cc.min(win)) - i64::from(off)
            };
            if len < 0 {
                // The window shrank below what is already sent (or only the FIN is outstanding).
                // If it closed, stop retransmitting and pull snd_nxt back: persist is entered below
                // (Lite2 tcp_output.c lines 139-155). This holds in SACK recovery too.
                len = 0;
                if win == 0 {
                    self.rexmt_at = None;
                    self.snd_nxt = self.snd_una;
                }
            }
            if self.sel.recovery && self.persist_at.is_none() && !self.force {
                // In SACK recovery the scoreboard decides what is sent (recovery/sack.rs). While
                // persisting, these rules send: the probe, then what the reopened window allows.
                len = 0;
            }
            let mut sendalot = false;
            if len > i64::from(self.maxseg) {
                len = i64::from(self.maxseg);
                sendalot = true;
            }
            let len = len as u32;
            if (self.snd_nxt + len).lt(buffer_end) {
                flags.remove(Flags::FIN);
            }
            // A SYN goes out only when it is (re)sent from the initial sequence number.
            if flags.contains(Flags::SYN) && self.snd_nxt != self.iss {
                flags.remove(Flags::SYN);
            }

            let rwin = self.receive_space();
            let mut send = false;
            if len > 0 {
                // Sender silly-window avoidance and Nagle (no TF_NODELAY).
                if len == self.maxseg
                    || (idle && len + off >= sb_cc)
                    || self.force
                    || len >= self.max_sndwnd / 2
                    || self.snd_nxt.lt(self.snd_max)
                {
                    send = true;
                }
            }
            if !send && self.state.have_rcvd_syn() && self.window_update_due::<TODAY>(rwin) {
                send = true;
            }
            if !send && self.ack_now {
                send = true;
            }
            if !send && flags.contains(Flags::SYN) {
                send = true;
            }
            if !send
                && flags.contains(Flags::FIN)
                && (!self.sent_fin || self.snd_nxt == self.snd_una)
            {
                send = true;
            }
            if !send {
                // Data waits but the window is too small to send it, and neither timer runs: go
                // to the persist state (Lite2 tcp_output.c lines 229-255).
                if self.cfg.host.persist
                    && sb_cc > 0
                    && self.rexmt_at.is_none()
                    && self.persist_at.is_none()
                {
                    self.rtt.rxtshift = 0;
                    self.set_persist(now);
                }
                return self.tlp_after_write(now);
            }
            self.send_segment_as::<TODAY>(now, flags, len, buffer_end);
            if !sendalot {
                return self.tlp_after_write(now);
            }
        }
    }

    /// Window update (Lite2 tcp_output.c lines 196-211): the application read enough to open
    /// the window by two segments or by half the buffer. This is what makes the receiver ACK
    /// every second segment.
    #[inline(always)]
    fn window_update_due<const TODAY: bool>(&self, rwin: u32) -> bool {
        if rwin == 0 {
            return false;
        }
        let adv = i64::from(rwin.min(self.max_rcv_window_as::<TODAY>()))
            - i64::from(self.rcv_adv.since(self.rcv_nxt));
        adv >= 2 * i64::from(self.maxseg) || 2 * adv >= i64::from(self.rcvbuf)
    }

    /// The states whose segments carry ACK alone (`tcp_outflags[]`: no SYN, no FIN).
    #[inline(always)]
    fn sends_ack_only(&self) -> bool {
        matches!(
            self.state,
            State::Established | State::CloseWait | State::FinWait2 | State::TimeWait
        )
    }

    /// `tcp_output` where the send buffer is empty, nothing is sent ahead of `snd_una` and no
    /// probe is forced, in a state that sends ACK alone ([`Tcp::output`]'s loop, shortened: its
    /// `len` is 0, and neither the persist state nor a FIN can follow): only the window update
    /// and an owed ACK send, one segment. Every call of a receiver's reads and ACK decisions.
    #[inline(always)]
    fn output_nothing_to_send<const TODAY: bool>(&mut self, now: Time, buffer_end: Seq) {
        let rwin = self.receive_space();
        if self.window_update_due::<TODAY>(rwin) || self.ack_now {
            self.send_segment_as::<TODAY>(now, self.outflags(), 0, buffer_end);
        }
    }

    /// The `send:` part of `tcp_output`: builds one segment and advances the sequence variables.
    /// `buffer_end` is [`Tcp::buffer_end`], which the caller has at hand (`tcp_output` computes
    /// it for every segment, and nothing in between changes it).
    pub(super) fn send_segment(&mut self, now: Time, flags: Flags, len: u32, buffer_end: Seq) {
        if self.today {
            self.send_segment_as::<true>(now, flags, len, buffer_end)
        } else {
            self.send_segment_as::<false>(now, flags, len, buffer_end)
        }
    }

    /// [`Tcp::send_segment`] on the path `TODAY` (`input.rs`, [`Tcp::on_segment_as`]).
    fn send_segment_as<const TODAY: bool>(
        &mut self,
        now: Time,
        mut flags: Flags,
        len: u32,
        buffer_end: Seq,
    ) {
        // "If we're sending everything we've got, set PUSH" (Lite2 tcp_output.c lines 380-387).
        if len > 0 && self.snd_nxt + len == buffer_end {
            flags |= Flags::PSH;
        }
        // Retransmitting a FIN that was already sent: back up over it.
        if flags.contains(Flags::FIN) && self.sent_fin && self.snd_nxt == self.snd_max {
            self.snd_nxt = self.snd_nxt - 1;
        }
        // A pure ACK carries snd_max, unless persisting: then snd_max may lie one byte beyond the
        // closed window, and snd_nxt is right (Lite2 tcp_output.c lines 420-436).
        let seq =
            if len > 0 || flags.intersects(Flags::SYN | Flags::FIN) || self.persist_at.is_some() {
                self.snd_nxt
            } else {
                self.snd_max
            };
        let mut win = self.receive_space();
        if win < self.rcvbuf / 4 && win < self.maxseg {
            win = 0;
        }
        let syn = flags.contains(Flags::SYN);
        win = win.min(self.max_rcv_window_as::<TODAY>());
        let promised = self.rcv_adv.since(self.rcv_nxt);
        if win < promised {
            win = promised;
        }
        // the 16-bit field: scaled once both ends agreed, never on a SYN (RFC 7323 section 2)
        let (window_field, win) = self.window_field::<TODAY>(win, syn);
        let probe = self.force && self.persist_at.is_some();
        let kind = if probe && len > 0 {
            TxKind::PersistProbe
        } else if len > 0 || flags.intersects(Flags::SYN | Flags::FIN) {
            if self.snd_nxt.lt(self.snd_max) {
                self.rexmt_cause
            } else {
                TxKind::New
            }
        } else {
            TxKind::Ack
        };
        let seg = Segment {
            src: self.local,
            dst: self.remote,
            seq,
            ack: if flags.contains(Flags::ACK) {
                self.rcv_nxt
            } else {
                Seq(0)
            },
            flags,
            window: window_field,
            len,
            ip_id: self.ip_id,
            mss: if syn {
                Some(self.cfg.mss.min(u32::from(u16::MAX)) as u16)
            } else {
                None
            },
            // window scaling and timestamps are today's details
            wscale: if TODAY && syn {
                self.syn_wscale(flags.contains(Flags::ACK))
            } else {
                None
            },
            ts: if TODAY {
                self.ts_option(now, syn, flags.contains(Flags::ACK))
            } else {
                None
            },
            eln: flags.contains(Flags::ACK) && self.eln_mark_due(),
            smart: if self.cfg.receiver.smart_acks && flags.contains(Flags::ACK) {
                self.last_rcvd_seq
            } else {
                None
            },
            sack: if flags.contains(Flags::ACK) {
                self.sack_blocks::<TODAY>()
            } else {
                crate::segment::SackBlocks::default()
            },
            // stamped below TCP, by the host's interface queue (the simulator's mobile hosts)
            queue: None,
        };
        self.stats.eln_acks_sent += u64::from(seg.eln);
        self.stats.zero_window_acks += u64::from(flags.contains(Flags::ACK) && win == 0);
        self.ip_id = self.ip_id.wrapping_add(1);
        // queued as soon as it is built, its fields written from where they were computed
        // rather than kept across the calls below (nothing below sends)
        self.out.push_back((seg, kind));

        self.log_sent::<TODAY>(now, seq, len, kind);
        // Counters.
        self.stats.segs_sent += 1;
        if len > 0 {
            self.stats.data_segs_sent += 1;
            self.stats.data_bytes_sent += u64::from(len);
            if self.snd_nxt.lt(self.snd_max) {
                self.stats.rexmt_segs += 1;
                self.stats.rexmt_bytes += u64::from(len);
                if TODAY {
                    self.undo_note_retransmit(now);
                }
            }
        } else if kind == TxKind::Ack {
            self.stats.acks_sent += 1;
        }

        if probe {
            // In the persist state only snd_max moves (Lite2 tcp_output.c lines 479-525).
            if (self.snd_nxt + len).gt(self.snd_max) {
                self.snd_max = self.snd_nxt + len;
            }
        } else {
            if TODAY && len > 0 && self.cc.hears_data_sent() {
                // the controller's view of data leaving (CUBIC's RTT samples and idle restart);
                // asked first, so a BSD sender does not build what no one reads (issue 50)
                self.cc.on_data_sent(&SentInfo {
                    now,
                    start: self.snd_nxt + u32::from(flags.contains(Flags::SYN)),
                    len,
                    una: self.snd_una,
                    snd_max: self.snd_max,
                    rto: u64::from(self.rtt.rxtcur) * self.cfg.timers.slow_tick,
                    timed: self.linux_rtt.is_some(),
                });
            }
            // Advance snd_nxt/snd_max, start RTT timing and the retransmission timer.
            let start = self.snd_nxt;
            if flags.contains(Flags::SYN) {
                self.snd_nxt += 1;
            }
            if flags.contains(Flags::FIN) {
                self.snd_nxt += 1;
                self.sent_fin = true;
            }
            self.snd_nxt += len;
            if let (true, Some(l)) = (TODAY, &mut self.linux_rtt) {
                if self.snd_nxt != start {
                    // new data: CUBIC's sample may be from it (cc/sent_times.rs)
                    let fin = flags.contains(Flags::FIN);
                    let ca = len > 0 && (self.snd_nxt - u32::from(fin)).gt(self.snd_max);
                    l.on_send(now, start, self.snd_nxt, ca, fin);
                }
            }
            let new_data = self.snd_nxt.gt(self.snd_max);
            if new_data {
                self.snd_max = self.snd_nxt;
                if self.timing.is_none() {
                    self.timing = Some((now, start));
                }
            }
            if self.rexmt_at.is_none() && self.snd_nxt != self.snd_una {
                self.arm_rexmt_as::<TODAY>(now);
                if self.persist_at.is_some() {
                    self.persist_at = None;
                    self.rtt.rxtshift = 0;
                }
            }
            if TODAY && new_data && len > 0 && self.cfg.host.rack_tlp {
                // `tcp_write_xmit()` schedules a loss probe after sending new data
                self.sel.tlp.due = true;
            }
        }
        let outstanding = self.snd_max.since(self.snd_una);
        self.stats.max_outstanding = self.stats.max_outstanding.max(outstanding);

        if win > 0 && (self.rcv_nxt + win).gt(self.rcv_adv) {
            self.rcv_adv = self.rcv_nxt + win;
        }
        if flags.contains(Flags::ACK) {
            self.note_ack_sent(self.rcv_nxt);
        }
        self.ack_now = false;
        self.delack_at = None;
        // tcp_select_window() and tcp_event_ack_sent()
        self.rcv_wup = self.rcv_nxt;
        if TODAY && flags.contains(Flags::ACK) {
            if self.cfg.host.delayed_ack == super::DelayedAck::Linux {
                self.linux_ack_sent();
            }
            self.sack_compress_ack_sent();
        }
    }
}
