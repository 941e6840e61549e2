//! The TCP's timers, as 4.4BSD-Lite's `tcp_timer.c` (Stevens vol. 2, chapter 25): the
//! retransmission timer with its backoff and the cause each timeout is counted under, the persist
//! timer, and the slow-tick arithmetic both run on. With Linux's details the same timers run
//! Linux's RTO (`linux_rtt.rs`) and delayed ACK (`linux_delack.rs`) on the host's clock
//! (`clock.rs`).

use super::recovery::EarlyTimer;
use super::*;

impl Tcp {
    /// Runs what is due at `now`: the reading process, `tcp_fasttimo` (delayed ACK) and
    /// `tcp_slowtimo` (retransmission or persist).
    pub fn on_timeout(&mut self, now: Time) {
        if self.read_at.is_some_and(|t| t <= now) {
            self.app_read(now);
        }
        if self.delack_at.is_some_and(|t| t <= now) {
            self.delack_at = None;
            if self.sack_compress_kick(now) {
                // the held duplicate ACKs' one ACK (linux_sack_compress.rs), not a delayed ACK
                self.ack_now = true;
                self.output(now);
            } else {
                if self.cfg.host.delayed_ack == DelayedAck::Linux {
                    self.linux_delack_expired();
                }
                self.ack_now = true;
                self.stats.delayed_acks += 1;
                self.output(now);
            }
        }
        if let Some((at, timer)) = self.sel.early_timer {
            if at <= now {
                // RACK-TLP's timers (recovery/rack.rs, recovery/tlp.rs), due before the RTO
                self.sel.early_timer = None;
                match timer {
                    EarlyTimer::Reo => self.rack_reo_timeout(now),
                    EarlyTimer::Probe => self.tlp_send_probe(now),
                }
            }
        }
        if self.rexmt_at.is_some_and(|t| t <= now) {
            self.rexmt_at = None;
            self.retransmit_timeout(now);
        }
        if self.persist_at.is_some_and(|t| t <= now) {
            self.persist_timeout(now);
        }
    }

    /// `tcp_timers(TCPT_PERSIST)`: back off, then force one byte (or what a small window allows) out.
    pub(super) fn persist_timeout(&mut self, now: Time) {
        self.persist_at = None;
        self.stats.persist_timeouts += 1;
        self.set_persist(now);
        self.force = true;
        self.output(now);
        self.force = false;
    }

    /// `tcp_setpersist`: (re)start the persist timer at `srtt + 2 rttvar` times the backoff, within
    /// `TCPTV_PERSMIN`..`TCPTV_PERSMAX`, and count one more backoff.
    pub(super) fn set_persist(&mut self, now: Time) {
        debug_assert!(self.rexmt_at.is_none(), "tcp_output REXMT");
        let ticks = self.rtt.persist_ticks(&self.cfg.timers);
        self.persist_at = Some(self.slow_ticks_from(now, ticks));
        self.rtt.bump_shift(self.cfg.timers.max_rxtshift);
    }

    /// `tcp_timers(TCPT_REXMT)`: back off, collapse the window to one segment, go back to `snd_una`.
    pub(super) fn retransmit_timeout(&mut self, now: Time) {
        self.stats.timeouts += 1;
        self.classify_timeout();
        self.last_rexmt_start = Some(self.snd_una);
        let max = self.cfg.timers.max_rxtshift;
        let alive = match &mut self.linux_rtt {
            Some(l) => l.on_timeout(max),
            None => self.rtt.on_timeout(max),
        };
        if !alive {
            self.stats.dropped = true;
            self.state = State::Closed;
            self.out.clear();
            self.delack_at = None;
            return;
        }
        self.arm_rexmt(now);
        self.snd_nxt = self.snd_una;
        self.timing = None;
        self.undo_init_on_timeout(); // Linux: tcp_enter_loss() -> tcp_init_undo()
        self.frto_on_rto(); // tcp_enter_loss(): tp->frto
        self.cc.on_rto(self.snd_wnd, self.maxseg, self.snd_max);
        // paper 001 section 6.1: N_dup(i), the duplicates counted when the timer expired
        self.stats.timeouts_after_dupacks[self.dupacks.min(3) as usize] += 1;
        self.recovery_on_rto(now);
        self.rexmt_cause = TxKind::TimeoutRetransmit;
        self.output(now);
    }

    /// Records why the timer expired, from the state just before the timeout acts.
    pub(super) fn classify_timeout(&mut self) {
        let c = &mut self.stats.timeout_causes;
        if !matches!(
            self.state,
            State::Established
                | State::FinWait1
                | State::CloseWait
                | State::Closing
                | State::LastAck
        ) {
            c.handshake += 1;
        } else if self.last_rexmt_start == Some(self.snd_una) {
            c.retransmission_lost += 1;
        } else if self.recover.gt(self.snd_una) {
            c.multiple_losses += 1;
        } else if self.snd_max.since(self.snd_una) <= 3 * self.maxseg {
            c.small_window += 1;
        } else {
            c.other += 1;
        }
    }

    /// Sets the retransmission timer to the current RTO from `now`: BSD's `t_rxtcur` slow ticks,
    /// or Linux's `icsk_rto` jiffies (`inet_csk_reset_xmit_timer()`), on the host's clock.
    /// Inlined down to the BSD host's case: it runs on nearly every ACK (issue 50).
    #[inline]
    pub(super) fn arm_rexmt(&mut self, now: Time) {
        self.arm_rexmt_as::<true>(now)
    }

    /// [`Tcp::arm_rexmt`] on the path `TODAY` (`input.rs`): Linux's estimator and its timer
    /// wheel are today's details, so without them BSD's slow ticks.
    #[inline]
    pub(super) fn arm_rexmt_as<const TODAY: bool>(&mut self, now: Time) {
        if !TODAY || (self.linux_rtt.is_none() && self.cfg.host.timer_clock == TimerClock::BsdTicks)
        {
            self.rexmt_at = Some(self.slow_ticks_from(now, self.rtt.rxtcur));
        } else {
            self.arm_rexmt_on_clock(now);
        }
    }

    /// `tcp_rearm_rto()` (net/ipv4/tcp_input.c) while RACK's reordering timer or TLP's probe
    /// timer holds `icsk_retransmit_timer` (`icsk_pending` `ICSK_TIME_REO_TIMEOUT` or
    /// `ICSK_TIME_LOSS_PROBE`): the RTO is not restarted from now but set at its deadline from
    /// the head's last transmission, `tcp_rto_delta_us()` = the head's timestamp + `icsk_rto` -
    /// now, at least 1 us, in whole jiffies (`usecs_to_jiffies()`). A head resent just now gives
    /// a whole RTO from now. Without Linux's estimator on Linux's clock, or with nothing logged,
    /// [`Tcp::arm_rexmt`].
    pub(super) fn rearm_rto_from_head(&mut self, now: Time) {
        let clock = self.cfg.host.timer_clock;
        let head_sent = self.sel.log.front().map(|s| s.last_tx);
        match (&self.linux_rtt, clock, head_sent) {
            (Some(l), TimerClock::Jiffies { .. }, Some(sent)) => {
                let deadline = sent + l.rto();
                let delta = deadline.saturating_sub(now).max(crate::time::US);
                self.rexmt_at = Some(clock.wheel_after(now, clock.to_jiffies(delta)));
            }
            _ => self.arm_rexmt(now),
        }
    }

    /// [`Tcp::arm_rexmt`] with a Linux estimator or on Linux's clock.
    fn arm_rexmt_on_clock(&mut self, now: Time) {
        let clock = self.cfg.host.timer_clock;
        let slow_tick = self.cfg.timers.slow_tick;
        self.rexmt_at = Some(match (&self.linux_rtt, clock) {
            (None, TimerClock::BsdTicks) => self.slow_ticks_from(now, self.rtt.rxtcur),
            (None, TimerClock::Jiffies { .. }) => {
                let rto = u64::from(self.rtt.rxtcur) * slow_tick;
                clock.wheel_after(now, clock.to_jiffies(rto))
            }
            (Some(l), TimerClock::BsdTicks) => {
                let ticks = l.rto().div_ceil(slow_tick).min(u64::from(u32::MAX)) as u32;
                self.slow_ticks_from(now, ticks)
            }
            (Some(l), TimerClock::Jiffies { .. }) => clock.wheel_after(now, l.rto_jiffies),
        });
    }

    /// When a timer due at jiffy `expires` (Linux's delayed ACK), armed at `now` in jiffy `clk`
    /// (`jiffies(now)`, which the caller has taken), fires on the host's clock: on the timer
    /// wheel, or on the first fast tick at or after that time.
    pub(super) fn clock_expiry(&self, now: Time, clk: u64, expires: u64) -> Time {
        let clock = self.cfg.host.timer_clock;
        match clock {
            TimerClock::Jiffies { .. } => clock.wheel_expiry_at_jiffy(clk, expires),
            TimerClock::BsdTicks => {
                let t = &self.cfg.timers;
                let due = clock.from_jiffies(expires).max(now + 1);
                next_tick_after(due - 1, t.fast_phase, t.fast_tick)
            }
        }
    }

    /// The idle sender restarts from its initial window after an RTO without a segment arriving
    /// (Lite2 tcp_output.c lines 90-97, `t_idle >= t_rxtcur`; with Linux's estimator, its RTO:
    /// Linux measures the idle time from the last send, `tcp_cwnd_restart()`, not modelled).
    pub(super) fn idle_restart_due<const TODAY: bool>(&self, now: Time) -> bool {
        match (TODAY, &self.linux_rtt) {
            (true, Some(l)) => now.saturating_sub(self.last_rcvd_at) >= l.rto(),
            _ => self.idle_ticks(now) >= u64::from(self.rtt.rxtcur),
        }
    }

    /// The handshake is done: Linux falls back to a 3 s RTO if it gave no sample.
    pub(super) fn rtt_on_established(&mut self) {
        if let Some(l) = &mut self.linux_rtt {
            l.on_established();
        }
    }

    /// The initial window in segments (`tcp_init_transfer()`): the host's, or one segment once
    /// the handshake timed out more than once.
    pub(super) fn initial_window(&self) -> u32 {
        if self.stats.timeout_causes.handshake > 1 {
            1
        } else {
            self.cfg.host.initial_window
        }
    }

    /// When a timer of `ticks` slow ticks set at `now` expires: on the `ticks`-th tick after `now`.
    pub(super) fn slow_ticks_from(&self, now: Time, ticks: u32) -> Time {
        let t = &self.cfg.timers;
        let first = next_tick_after(now, t.slow_phase, t.slow_tick);
        first + u64::from(ticks.max(1) - 1) * t.slow_tick
    }

    /// `t_idle`: slow ticks since a segment last arrived.
    pub(super) fn idle_ticks(&self, now: Time) -> u64 {
        let t = &self.cfg.timers;
        ticks_between(self.last_rcvd_at, now, t.slow_phase, t.slow_tick)
    }
}
