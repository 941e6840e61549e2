//! Linux's delayed ACK (net/ipv4/tcp_input.c, tcp_output.c, tcp_timer.c), the
//! `delayed-ack = linux` host detail.
//!
//! - Quick-ACK mode: the first data of a connection (`tcp_event_data_recv()` with `ato` 0), a
//!   gap longer than the RTO, and a duplicate or out-of-window segment
//!   (`tcp_enter_quickack_mode()` in `tcp_data_queue()`) allow `rcv_wnd / (2 * rcv_mss)` quick
//!   ACKs (at least 2, at most `TCP_MAX_QUICKACKS` 16; `tcp_incr_quickack()`). Each ACK sent
//!   while one is owed uses one up (`tcp_dec_quickack_mode()`).
//! - `__tcp_ack_snd_check()`: ACK at once when more than one full segment arrived since the
//!   last ACK (`rcv_nxt - rcv_wup > rcv_mss`) and the window would not shrink, in quick-ACK
//!   mode, or when an ACK is due now; else `tcp_send_delayed_ack()`. Out-of-order data, and data
//!   that fills a hole (`ICSK_ACK_NOW`, RFC 5681 4.2), is ACKed at once as in BSD: `tcp_input`
//!   sets `ack_now` for both (`input.rs`), the rule Linux's `__tcp_ack_snd_check()` spells as
//!   "out-of-order queue not empty" for a receiver without SACK.
//! - The ACK timeout `ato`: `TCP_ATO_MIN` (40 ms) at first; each in-order arrival `m` jiffies
//!   after the last halves it and adds `TCP_ATO_MIN / 2` (m <= 20 ms) or `m` (m < ato), capped by
//!   the RTO (`tcp_event_data_recv()`); an expired timer doubles it, capped by the RTO
//!   (`tcp_delack_timer_handler()`). `tcp_send_delayed_ack()` bounds it by 500 ms and the
//!   smoothed RTT (at least `TCP_DELACK_MIN` 40 ms) when above `TCP_DELACK_MIN`, then by
//!   `TCP_DELACK_MAX` 200 ms (`icsk_delack_max`); a timer already set keeps its earlier time,
//!   and one due within a quarter of `ato` sends the ACK now.
//!
//! Readings: `rcv_mss` is the negotiated segment size (Linux measures it from arriving segments,
//! `tcp_measure_rcv_mss()`); a one-way transfer never enters ping-pong (interactive) mode, nor
//! sets `ICSK_ACK_PUSHED` (which lowers the 500 ms bound to `TCP_DELACK_MAX` and is subsumed by
//! it here); SACK's ACK compression is the `sack-compress` detail (`linux_sack_compress.rs`); an ACK a read sends
//! (`tcp_cleanup_rbuf()`) stays the BSD window-update rule of `tcp_output`.

use super::{DelayedAck, Tcp};
use crate::time::{Time, MS};

/// `TCP_ATO_MIN` and `TCP_DELACK_MIN`: HZ/25, 40 ms.
pub const TCP_ATO_MIN: Time = 40 * MS;
/// `TCP_DELACK_MAX`: HZ/5, 200 ms.
pub const TCP_DELACK_MAX: Time = 200 * MS;
/// `TCP_MAX_QUICKACKS`: 16.
pub const TCP_MAX_QUICKACKS: u32 = 16;

/// `icsk_ack` of `struct inet_connection_sock`: all times in jiffies.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LinuxAck {
    /// Quick ACKs left (`icsk_ack.quick`).
    pub quick: u32,
    /// The ACK timeout, jiffies; 0 before the first data (`icsk_ack.ato`).
    pub ato: u64,
    /// When data last arrived, in jiffies (`icsk_ack.lrcvtime`).
    lrcvtime: u64,
    /// An ACK is owed (`ICSK_ACK_SCHED`).
    scheduled: bool,
    /// The jiffy the delayed-ACK timer is set for (`icsk_ack.timeout` with `ICSK_ACK_TIMER`).
    timeout: Option<u64>,
}

impl Tcp {
    fn linux_delack(&self) -> bool {
        self.cfg.host.delayed_ack == DelayedAck::Linux
    }

    /// The receiver's RTO in jiffies (`icsk_rto`), whichever estimator runs it.
    fn rto_jiffies(&self) -> u64 {
        let clock = self.cfg.host.timer_clock;
        match &self.linux_rtt {
            Some(l) => l.rto_jiffies,
            None => clock.to_jiffies(u64::from(self.rtt.rxtcur) * self.cfg.timers.slow_tick),
        }
    }

    /// `tcp_incr_quickack()`: allow `rcv_wnd / (2 * rcv_mss)` quick ACKs, 2 at least,
    /// `max_quickacks` at most, never fewer than are left.
    fn incr_quickack(&mut self, max_quickacks: u32) {
        let rcv_wnd = self.rcv_adv.since(self.rcv_wup);
        let mut quickacks = rcv_wnd / (2 * self.maxseg.max(1));
        if quickacks == 0 {
            quickacks = 2;
        }
        quickacks = quickacks.min(max_quickacks);
        if quickacks > self.linux_ack.quick {
            self.linux_ack.quick = quickacks;
        }
    }

    /// `tcp_enter_quickack_mode()` for a duplicate or out-of-window segment, with
    /// `inet_csk_schedule_ack()`. No-op unless the host has Linux's delayed ACK.
    pub(super) fn linux_enter_quickack(&mut self) {
        if !self.linux_delack() {
            return;
        }
        self.incr_quickack(TCP_MAX_QUICKACKS);
        let clock = self.cfg.host.timer_clock;
        self.linux_ack.ato = clock.to_jiffies(TCP_ATO_MIN);
        self.linux_ack.scheduled = true;
    }

    /// `tcp_event_data_recv()`: in-order data arrived at `now`; the ACK is owed and `ato`
    /// adapts to the arrival gap.
    pub(super) fn linux_data_recv(&mut self, now: Time) {
        let jiffies = self.cfg.host.timer_clock.jiffies(now);
        self.linux_data_recv_at(jiffies);
    }

    /// `tcp_event_data_recv()` then `__tcp_ack_snd_check()`, for in-order data at `now`: the
    /// current jiffy taken once for both (and one call where there were two: every data segment
    /// a Linux receiver takes in order comes here; docs/speed.md, issue 50, h29).
    #[inline(never)]
    pub(super) fn linux_data_recv_and_ack_check(&mut self, now: Time) {
        let jiffies = self.cfg.host.timer_clock.jiffies(now);
        self.linux_data_recv_at(jiffies);
        if self.linux_ack_due_now() {
            self.ack_now = true;
        } else {
            self.linux_send_delayed_ack(now, jiffies);
        }
    }

    /// [`Tcp::linux_data_recv`] in jiffy `jiffies` (`jiffies(now)`).
    #[inline(always)]
    fn linux_data_recv_at(&mut self, jiffies: u64) {
        let ato_min = self.cfg.host.timer_clock.to_jiffies(TCP_ATO_MIN);
        self.linux_ack.scheduled = true;
        if self.linux_ack.ato == 0 {
            self.incr_quickack(TCP_MAX_QUICKACKS);
            self.linux_ack.ato = ato_min;
        } else {
            let m = jiffies.saturating_sub(self.linux_ack.lrcvtime);
            let rto = self.rto_jiffies();
            if m <= ato_min / 2 {
                self.linux_ack.ato = (self.linux_ack.ato >> 1) + ato_min / 2;
            } else if m < self.linux_ack.ato {
                self.linux_ack.ato = ((self.linux_ack.ato >> 1) + m).min(rto);
            } else if m > rto {
                self.incr_quickack(TCP_MAX_QUICKACKS);
            }
        }
        self.linux_ack.lrcvtime = jiffies;
    }

    /// `__tcp_ack_snd_check()`'s first test: the ACK is due now when more than one full segment
    /// arrived since the last ACK and the window would not shrink, in quick-ACK mode, or when
    /// `ack_now` (`ICSK_ACK_NOW`) is set.
    pub(super) fn linux_ack_due_now(&self) -> bool {
        let more_than_one_segment = self.rcv_nxt.since(self.rcv_wup) > self.maxseg;
        let window_not_shrinking =
            self.receive_space().min(super::TCP_MAXWIN) >= self.rcv_adv.since(self.rcv_wup);
        (more_than_one_segment && window_not_shrinking) || self.linux_ack.quick > 0 || self.ack_now
    }

    /// `inet_csk_schedule_ack()` in `tcp_data_queue_ofo()`: an out-of-order segment owes an
    /// ACK, so the ACK that answers it uses up a quick ACK (`tcp_dec_quickack_mode()`).
    pub(super) fn linux_schedule_ack(&mut self) {
        if self.linux_delack() {
            self.linux_ack.scheduled = true;
        }
    }

    /// `tcp_send_delayed_ack()` at `now`, in jiffy `jiffies`.
    fn linux_send_delayed_ack(&mut self, now: Time, jiffies: u64) {
        let clock = self.cfg.host.timer_clock;
        let delack_min = clock.to_jiffies(TCP_ATO_MIN);
        let mut ato = self.linux_ack.ato;
        if ato > delack_min {
            // no ping-pong, no ICSK_ACK_PUSHED: HZ/2
            let mut max_ato = clock.to_jiffies(500 * MS);
            if let Some(srtt) = self.linux_rtt.as_ref().and_then(|l| l.srtt()) {
                let rtt = clock.to_jiffies(srtt).max(delack_min);
                max_ato = max_ato.min(rtt);
            }
            ato = ato.min(max_ato);
        }
        ato = ato.min(clock.to_jiffies(TCP_DELACK_MAX));
        let mut timeout = jiffies + ato;
        if let Some(pending) = self.linux_ack.timeout {
            if pending <= jiffies + (ato >> 2) {
                self.ack_now = true;
                return;
            }
            timeout = timeout.min(pending);
        }
        self.linux_ack.timeout = Some(timeout);
        self.delack_at = Some(self.clock_expiry(now, jiffies, timeout));
    }

    /// `tcp_delack_timer_handler()`: the owed ACK goes out; a missed delay doubles `ato`, at most
    /// the RTO.
    pub(super) fn linux_delack_expired(&mut self) {
        if self.linux_ack.scheduled {
            self.linux_ack.ato = (self.linux_ack.ato << 1).min(self.rto_jiffies());
        }
    }

    /// `tcp_event_ack_sent()`: `tcp_dec_quickack_mode()` (one quick ACK used if one was owed;
    /// the last one restores `ato` to `TCP_ATO_MIN`), then the delayed-ACK timer and the owed
    /// ACK are cleared (`inet_csk_clear_xmit_timer(ICSK_TIME_DACK)`).
    pub(super) fn linux_ack_sent(&mut self) {
        let a = &mut self.linux_ack;
        if a.quick > 0 && a.scheduled {
            if a.quick <= 1 {
                a.quick = 0;
                a.ato = self.cfg.host.timer_clock.to_jiffies(TCP_ATO_MIN);
            } else {
                a.quick -= 1;
            }
        }
        a.scheduled = false;
        a.timeout = None;
    }
}
