//! The TCP's timers, as 4.4BSD-Lite's `tcp_timer.c` (Stevens vol. 2, chapter 25): the
//! retransmission timer with its backoff and the cause each timeout is counted under, the persist
//! timer, and the slow-tick arithmetic both run on.

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
            self.ack_now = true;
            self.stats.delayed_acks += 1;
            self.output(now);
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
        if !self.rtt.on_timeout(self.cfg.timers.max_rxtshift) {
            self.stats.dropped = true;
            self.state = State::Closed;
            self.out.clear();
            self.delack_at = None;
            return;
        }
        self.arm_rexmt(now, self.rtt.rxtcur);
        self.snd_nxt = self.snd_una;
        self.timing = None;
        self.cc.on_rto(self.snd_wnd, self.maxseg, self.snd_max);
        // paper 001 section 6.1: N_dup(i), the duplicates counted when the timer expired
        self.stats.timeouts_after_dupacks[self.dupacks.min(3) as usize] += 1;
        self.recovery_on_rto();
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

    /// Sets the retransmission timer to `ticks` slow ticks from `now`.
    pub(super) fn arm_rexmt(&mut self, now: Time, ticks: u32) {
        self.rexmt_at = Some(self.slow_ticks_from(now, ticks));
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
