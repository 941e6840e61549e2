//! CUBIC (RFC 9438) as Linux runs it (net/ipv4/tcp_cubic.c, Linux 6.x), the controller of a
//! host whose `congestion-control` detail is `cubic` (`host.rs`), with HyStart (`hystart.rs`).
//!
//! The TCP's side of it as Linux has it (windows in packets, slow start by packets, growth only
//! while cwnd-limited, the timeout's window, the restart after idle) is `linux.rs`'s, with its
//! readings. Time since the epoch is kept as Linux keeps it, in units of 1/1024 s
//! (`BICTCP_HZ` = 10); `C` is 0.4 segments per s^3 (`bic_scale` = 41, see [`CUBE_RTT_SCALE`])
//! and `beta` is 717 / 1024.
//!
//! The events, each as the kernel has it:
//! - an ACK: `cubictcp_acked` (the RTT sample, `delay_min`, HyStart), then
//!   `cubictcp_cong_avoid` when the sender is cwnd-limited: `tcp_slow_start` below ssthresh
//!   (one segment per segment ACKed, appropriate byte counting, capped at ssthresh, the rest to
//!   the curve), `bictcp_update` and `tcp_cong_avoid_ai` above it;
//! - a loss detected by duplicate ACKs or SACK: `cubictcp_recalc_ssthresh` (beta, fast
//!   convergence); the window goes to ssthresh (`tcp_end_cwnd_reduction`) with the recovery
//!   part's inflation on top, as RFC 5681's fast recovery has it (Linux runs PRR, RFC 6937);
//! - a timeout: `tcp_enter_loss` takes ssthresh from `cubictcp_recalc_ssthresh` and sets the
//!   window to one segment, and `cubictcp_state(TCP_CA_Loss)` resets CUBIC and HyStart;
//! - sending again with nothing outstanding: `tcp_slow_start_after_idle_check` and
//!   `tcp_cwnd_restart` (include/net/tcp.h, net/ipv4/tcp_output.c), then
//!   `cubictcp_cwnd_event(CA_EVENT_TX_START)`, which moves the epoch on by the idle time.
//!
//! Where Linux differs from RFC 9438, it is Linux's rule that is here, each named where it acts:
//! - the target is the curve at `t + min_rtt` (`delay_min`, `bictcp_update`), not `t + RTT` with
//!   the smoothed RTT (RFC 9438 section 4.2);
//! - the increase per ACK is `1 / cnt` segment with `cnt = cwnd / (target - cwnd)`, at least 2
//!   (at most one segment per two ACKed: "cwnd grows at 1.5x per RTT"), and a tiny increase
//!   (`cnt = 100 * cwnd`) when the target is not above cwnd (`bictcp_update`); the RFC clamps the
//!   target to `[cwnd, 1.5 cwnd]` and adds `(target - cwnd) / cwnd`;
//! - before the first loss (no `W_max`), `cnt` is at most 20: at least 5% growth per RTT
//!   (`bictcp_update`); the RFC has no such rule;
//! - the Reno-friendly estimate grows by one segment per `cwnd * beta_scale / 8` segments ACKed,
//!   `beta_scale = 8 (1024 + beta) / 3 / (1024 - beta)` = 15 in integers, so alpha = 8/15 (RFC
//!   9438 section 4.3: `3 (1 - beta) / (1 + beta)` = 0.529, and 1 once `W_est` reaches
//!   `cwnd_prior`, which Linux does not do);
//! - the window grows only while the sender is cwnd-limited (`tcp_is_cwnd_limited`), RFC 9438
//!   section 5.8's "application-limited" rule in Linux's form.
//!
//! Readings and known differences:
//! - the cube root is exact here (floor); Linux's `cubic_root` is a table lookup and one
//!   Newton-Raphson step (about 0.2% average error), a difference of at most a few 1/1024 s in `K`;
//! - Linux recomputes `cnt` at most once per jiffy; here on every ACK (the 1/32 s rule for an
//!   unchanged window, `HZ / 32`, is kept); the clock is the simulator's nanoseconds, not jiffies;

use super::hystart::HyStart;
use super::linux::LinuxSide;
use super::sent_times::SentTimes;
use super::{AckInfo, Window};
use crate::seq::Seq;
use crate::time::{Time, SEC};

/// `beta` of tcp_cubic.c, over [`BETA_SCALE`]: the window after a loss is 717/1024 = 0.7 of it
/// (RFC 9438 section 4.6, `beta_cubic` = 0.7).
pub const BETA: u64 = 717;
/// `BICTCP_BETA_SCALE`.
pub const BETA_SCALE: u64 = 1024;
/// `BICTCP_HZ`: time since the epoch in units of 2^-10 s.
const HZ_SHIFT: u32 = 10;
/// `bic_scale` = 41: C = 41 * 10 / 1024 = 0.40039 (RFC 9438 section 5: "C SHOULD be set to
/// 0.4"; Linux's is 0.1% above it).
const BIC_SCALE: u64 = 41;
/// `cube_rtt_scale = bic_scale * 10` (tcp_cubic.c `cubictcp_register`): `delta = cube_rtt_scale
/// * offs^3 >> (10 + 3 * BICTCP_HZ)` is `C * (t - K)^3` in segments with `offs` in 2^-10 s.
pub const CUBE_RTT_SCALE: u64 = BIC_SCALE * 10;
/// `cube_factor = 2^(10 + 3 * BICTCP_HZ) / (bic_scale * 10)`: `K = cbrt(cube_factor * (W_max -
/// cwnd))` in 2^-10 s (RFC 9438 section 4.2, equation 2, `K = cbrt((W_max - cwnd_epoch) / C)`).
pub const CUBE_FACTOR: u64 = (1 << (10 + 3 * HZ_SHIFT)) / CUBE_RTT_SCALE;
/// `beta_scale = 8 * (BICTCP_BETA_SCALE + beta) / 3 / (BICTCP_BETA_SCALE - beta)` = 15: the
/// Reno-friendly estimate's pace (tcp_cubic.c `cubictcp_register`).
const FRIENDLY_SCALE: u64 = 8 * (BETA_SCALE + BETA) / 3 / (BETA_SCALE - BETA);
/// `bictcp_update`: with the window unchanged, `cnt` is kept for `HZ / 32` (1/32 s).
const UPDATE_INTERVAL: Time = SEC / 32;
/// `cubictcp_acked`: RTT samples within `HZ` (1 s) of an epoch's start are not taken ("Discard
/// delay samples right after fast recovery").
const AFTER_EPOCH_DISCARD: Time = SEC;

/// CUBIC's state beside the window (tcp_cubic.c `struct bictcp`), in segments.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cubic {
    /// The Linux TCP around the controller.
    linux: LinuxSide,
    /// `last_max_cwnd`, RFC 9438's `W_max`; 0 before the first loss and after a timeout.
    w_max: u32,
    /// `epoch_start`: when this congestion-avoidance epoch began; `None` after a reduction.
    epoch: Option<Time>,
    /// `last_cwnd`, `last_time`: the window `cnt` was last computed for, and when.
    last_cwnd: u32,
    last_time: Time,
    /// `bic_K`, in 2^-10 s.
    k: u64,
    /// `bic_origin_point`: the window the curve levels off at.
    origin: u32,
    /// `delay_min`: the least RTT sample seen since the last timeout.
    min_rtt: Option<Time>,
    /// `cnt`: the ACKed segments per one more segment of window.
    cnt: u32,
    /// `tcp_cwnd`, the Reno-friendly estimate `W_est`, and `ack_cnt` towards its next segment.
    w_est: u32,
    ack_cnt: u32,
    /// Slow start's exit before a loss.
    hystart: HyStart,
    /// The send times the per-ACK RTT samples come from.
    sent: SentTimes,
}

/// [`Cubic::window_at`]'s time in 2^-10 s where `t << 10` does not fit 64 bits (208 days): in
/// 128 bits, out of line, as the next, so that the per-ACK path's code stays small (issue 50,
/// docs/speed.md).
#[cold]
#[inline(never)]
fn wide_units(t: Time) -> u64 {
    let t = (u128::from(t) << HZ_SHIFT) / u128::from(SEC);
    u64::try_from(t).unwrap_or(u64::MAX)
}

/// [`Cubic::window_at`]'s `delta` for `offs` from 2^18 units up (at most 2^36), in 128 bits,
/// clamped to a `u32` window.
#[cold]
#[inline(never)]
fn wide_delta(offs: u64) -> u32 {
    let delta = (u128::from(CUBE_RTT_SCALE) * u128::from(offs).pow(3)) >> (10 + 3 * HZ_SHIFT);
    u32::try_from(delta).unwrap_or(u32::MAX)
}

/// The floor of the cube root of `a`.
fn cube_root(a: u64) -> u64 {
    if a == 0 {
        return 0;
    }
    // Newton's method from above converges to the floor for integers.
    let mut x = 1u64 << (64 - a.leading_zeros()).div_ceil(3);
    loop {
        let y = (2 * x + a / (x * x)) / 3;
        if y >= x {
            break;
        }
        x = y;
    }
    while x * x * x > a {
        x -= 1;
    }
    x
}

impl Cubic {
    pub fn new() -> Cubic {
        Cubic {
            linux: LinuxSide::new(),
            ..Cubic::default()
        }
    }

    /// The negotiated segment size and the initial window (bytes) it gives.
    pub(super) fn on_mss(&mut self, mss: u32, init_cwnd: u32) {
        self.linux.on_mss(mss, init_cwnd);
    }

    fn segments(&self, bytes: u32) -> u32 {
        self.linux.segments(bytes)
    }

    /// RFC 9438 section 4.2, equation 1 (`W_cubic(t) = C (t - K)^3 + W_max`), with Linux's
    /// units: the window the curve gives `t` after the epoch began, in segments.
    ///
    /// In 64 bits, as `bictcp_update` computes it (`t <<= BICTCP_HZ; do_div(t, HZ)`, `delta =
    /// (cube_rtt_scale * offs * offs * offs) >> (10 + 3 * BICTCP_HZ)`, all `u64`), while the
    /// numbers fit (208 days since the epoch, and `offs` within 2^18 units, 256 s, of `K`);
    /// beyond, in 128 bits where the kernel would overflow. The same window either way; the
    /// 64-bit division by a constant is a multiplication, the 128-bit one a call on every
    /// update (issue 50, docs/speed.md).
    pub fn window_at(&self, t: Time) -> u32 {
        let t = if t < 1 << (64 - HZ_SHIFT) {
            (t << HZ_SHIFT) / SEC
        } else {
            wide_units(t)
        };
        // 2^36 units (two years) cubed times 410 fits 128 bits, and its delta is far above any
        // u32 window, to which it is clamped; below 2^18 units it fits 64 bits (410 < 2^9)
        let offs = t.abs_diff(self.k).min(1 << 36);
        let delta = if offs < 1 << 18 {
            ((CUBE_RTT_SCALE * offs * offs * offs) >> (10 + 3 * HZ_SHIFT)) as u32
        } else {
            wide_delta(offs)
        };
        if t < self.k {
            self.origin.saturating_sub(delta)
        } else {
            self.origin.saturating_add(delta)
        }
    }

    /// `K` of the current epoch, in 2^-10 s.
    pub fn k(&self) -> u64 {
        self.k
    }

    /// `W_max`, in segments.
    pub fn w_max(&self) -> u32 {
        self.w_max
    }

    /// Which HyStart rule ended slow start, if one did since the last timeout.
    pub fn hystart_exit(&self) -> Option<super::hystart::Exit> {
        self.hystart.found
    }

    /// A new ACK (not one in recovery): the per-ACK RTT sample and HyStart (`cubictcp_acked`),
    /// then the window (`cubictcp_cong_avoid`) if the sender was cwnd-limited. `timed`: the
    /// newest send time the Linux estimator's queue gave, if the TCP has one
    /// ([`SentTimes::on_ack`]).
    pub(super) fn on_ack(&mut self, w: &mut Window, a: &AckInfo, timed: Option<Option<Time>>) {
        if let Some(rtt) = self.sent.on_ack(a.now, a.una, a.ack, timed) {
            self.acked(w, a.now, a.ack, a.snd_max, rtt);
        }
        let (acked, grows) = self.linux.on_ack(w, a);
        if grows {
            self.cong_avoid(w, a.now, acked);
        }
    }

    /// `cubictcp_acked`: the least RTT, and HyStart while in slow start.
    fn acked(&mut self, w: &mut Window, now: Time, ack: Seq, snd_max: Seq, rtt: Time) {
        if self
            .epoch
            .is_some_and(|e| now.saturating_sub(e) < AFTER_EPOCH_DISCARD)
        {
            return;
        }
        let delay = rtt.max(1);
        let delay_min = self.min_rtt.map_or(delay, |m| m.min(delay));
        self.min_rtt = Some(delay_min);
        if self.hystart.found.is_none() && w.cwnd < w.ssthresh {
            self.hystart_update(w, now, ack, snd_max, delay, delay_min);
        }
    }

    /// `cubictcp_acked`'s `hystart_update` in slow start: slow start ends at the window where
    /// a HyStart rule found its exit. Out of line: it runs only until the first exit or loss,
    /// and the ACKs after that need not carry its code (issue 50, docs/speed.md).
    #[inline(never)]
    fn hystart_update(
        &mut self,
        w: &mut Window,
        now: Time,
        ack: Seq,
        snd_max: Seq,
        delay: Time,
        delay_min: Time,
    ) {
        let cwnd = self.segments(w.cwnd);
        if self
            .hystart
            .update(now, ack, snd_max, cwnd, delay, delay_min)
            .is_some()
        {
            w.ssthresh = w.cwnd;
        }
    }

    /// `cubictcp_cong_avoid` for `acked` segments at `now`: slow start below ssthresh
    /// (`tcp_slow_start`: one segment per segment ACKed, what is left over goes to congestion
    /// avoidance), then the curve.
    fn cong_avoid(&mut self, w: &mut Window, now: Time, acked: u32) {
        let mut acked = acked;
        if w.cwnd < w.ssthresh {
            acked = self.linux.slow_start(w, acked);
            if acked == 0 {
                return;
            }
        }
        self.update(self.segments(w.cwnd), now, acked);
        self.linux.cong_avoid_ai(w, self.cnt, acked);
    }

    /// `bictcp_update`: `cnt` from the curve and the Reno-friendly estimate.
    fn update(&mut self, cwnd: u32, now: Time, acked: u32) {
        self.ack_cnt += acked;
        if self.last_cwnd == cwnd && now.saturating_sub(self.last_time) <= UPDATE_INTERVAL {
            return;
        }
        self.last_cwnd = cwnd;
        self.last_time = now;
        let epoch = match self.epoch {
            Some(e) => e,
            None => self.start_epoch(cwnd, now, acked),
        };
        let t = now.saturating_sub(epoch) + self.min_rtt.unwrap_or(0);
        let target = self.window_at(t);
        self.cnt = if target > cwnd {
            cwnd / (target - cwnd)
        } else {
            cwnd.saturating_mul(100)
        };
        if self.w_max == 0 {
            self.cnt = self.cnt.min(20);
        }
        let per = ((u64::from(cwnd) * FRIENDLY_SCALE) >> 3).max(1) as u32;
        while self.ack_cnt > per {
            self.ack_cnt -= per;
            self.w_est += 1;
        }
        if self.w_est > cwnd {
            self.cnt = self.cnt.min(cwnd / (self.w_est - cwnd));
        }
        self.cnt = self.cnt.max(2);
    }

    /// `bictcp_update` without an epoch: one begins at `now` with the window `cwnd`; `K` and
    /// the origin from `W_max`. Out of line: once per epoch, not per ACK (issue 50).
    #[cold]
    #[inline(never)]
    fn start_epoch(&mut self, cwnd: u32, now: Time, acked: u32) -> Time {
        self.epoch = Some(now);
        self.ack_cnt = acked;
        self.w_est = cwnd;
        if self.w_max <= cwnd {
            self.k = 0;
            self.origin = cwnd;
        } else {
            self.k = cube_root(CUBE_FACTOR * u64::from(self.w_max - cwnd));
            self.origin = self.w_max;
        }
        now
    }

    /// `cubictcp_recalc_ssthresh` for a window of `cwnd` bytes (RFC 9438 sections 4.6 and 4.7):
    /// the epoch ends, `W_max` is the window (less with fast convergence, when it is below the
    /// last `W_max`: `cwnd (1 + beta) / 2`), and the threshold, in bytes, is `beta` of the
    /// window, at least two segments.
    pub(super) fn ssthresh_after_loss(&mut self, cwnd: u32) -> u32 {
        let cwnd = self.segments(cwnd);
        self.epoch = None;
        self.linux.on_recovery();
        self.w_max = if cwnd < self.w_max {
            (u64::from(cwnd) * (BETA_SCALE + BETA) / (2 * BETA_SCALE)) as u32
        } else {
            cwnd
        };
        let ssthresh = ((u64::from(cwnd) * BETA / BETA_SCALE) as u32).max(2);
        self.linux.bytes(ssthresh)
    }

    /// A partial ACK in NewReno's recovery: it advances `snd_una`, which after a timeout
    /// (`TCP_CA_Loss`) resets `icsk_retransmits`, so a further timeout takes a new ssthresh.
    pub(super) fn on_partial_ack(&mut self) {
        self.linux.on_partial_ack();
    }

    /// A loss detected by duplicate ACKs or SACK: ssthresh, and the window at it.
    pub fn on_congestion_event(&mut self, w: &mut Window) {
        w.ssthresh = self.ssthresh_after_loss(w.cwnd);
        w.cwnd = w.ssthresh;
    }

    /// The retransmission timer expired at `snd_max`: `tcp_enter_loss` takes ssthresh from the
    /// controller (unless the window was reduced with no ACK since, see the module's readings),
    /// sets the window to one segment and `snd_cwnd_cnt` to 0; `cubictcp_state(TCP_CA_Loss)`
    /// runs `bictcp_reset` (`W_max`, `delay_min` and HyStart's `found` forgotten): the next
    /// epoch starts with `K = 0` at the window it starts from, as RFC 9438 section 4.8 asks.
    pub(super) fn on_rto(&mut self, w: &mut Window, snd_max: Seq) {
        if self.linux.takes_loss_ssthresh() {
            w.ssthresh = self.ssthresh_after_loss(w.cwnd);
        }
        self.linux.loss_window(w);
        let mut sent = std::mem::take(&mut self.sent);
        sent.on_rto(snd_max);
        *self = Cubic {
            linux: std::mem::take(&mut self.linux),
            sent,
            ..Cubic::default()
        };
    }

    /// Data leaves the sender (`linux.rs`: the restart after idle); sending again from idle,
    /// the epoch moves on by the idle time, so the curve does not count it
    /// (`cubictcp_cwnd_event(CA_EVENT_TX_START)`: `epoch_start += now - lsndtime`, at most now).
    pub(super) fn on_data_sent(&mut self, w: &mut Window, s: &super::SentInfo) {
        if let Some(idle) = self.linux.on_data_sent(w, s) {
            if let Some(e) = self.epoch {
                self.epoch = Some((e + idle).min(s.now));
            }
        }
        self.sent.on_send(s.now, s.start, s.len, s.snd_max, s.timed);
    }
}

#[cfg(test)]
#[path = "cubic_curve_tests.rs"]
mod tests;
