//! When a TCP timer that is due after some time really fires: on BSD's slow and fast ticks, or
//! on Linux's jiffies through the kernel's timer wheel (the `timer-clock` host detail).
//!
//! Linux arms its retransmission and delayed-ACK timers with `sk_reset_timer(sk, timer,
//! jiffies + when)`, a `timer_list` on the timer wheel (net/core/sock.c, kernel/time/timer.c).
//! The wheel never fires a timer early: `calc_wheel_index()` picks the level by the distance
//! `expires - clk` (level 0 below `LVL_START(1)` = 63 jiffies, then 8 times coarser per level)
//! and `calc_index()` rounds up to that level's granularity, `((expires >> LVL_SHIFT(lvl)) + 1)
//! << LVL_SHIFT(lvl)`, "the timer wheel has to guarantee that a timer does not fire early ...
//! armed at the edge of a tick" (Linux 5.x-6.x; the earlier `(expires + LVL_GRAN(lvl)) >>
//! LVL_SHIFT(lvl)` is the same number). Readings: the wheel's clock `clk` is the current jiffy
//! (a busy CPU's, never forwarded late), jiffies tick at whole multiples of 1/HZ from time 0, and
//! the softirq runs the bucket the moment its jiffy begins.

use crate::time::{Time, SEC};

/// The clock a host's TCP timers run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TimerClock {
    /// 4.4BSD: `tcp_slowtimo` every 500 ms runs the retransmission timer, `tcp_fasttimo` every
    /// 200 ms sends delayed ACKs (`config::TimerConfig`); a timer fires on a tick.
    BsdTicks,
    /// Linux: jiffies at `CONFIG_HZ` = `hz` (100, 250, 300 or 1000) and the timer wheel's rounding
    /// (this module's header). Linux's own timer arithmetic (RTO, ATO) is in these jiffies.
    Jiffies { hz: u32 },
}

/// `CONFIG_HZ` values the kernel's Kconfig offers (kernel/Kconfig.hz).
pub const KERNEL_HZ: [u32; 4] = [100, 250, 300, 1000];

/// `LVL_CLK_SHIFT`: each wheel level is 8 times coarser than the one below.
const LVL_CLK_SHIFT: u32 = 3;
/// `LVL_BITS`: 64 buckets per level.
const LVL_BITS: u32 = 6;
/// `LVL_DEPTH` at HZ > 100 (9 levels; 8 at HZ <= 100): the last level takes every longer timer.
const LVL_DEPTH: u32 = 9;

/// How long a jiffy lasts in whole nanoseconds, where `HZ` divides a second (100, 250, 1000; not
/// 300). A Linux sender turns jiffies into time on every ACK (the retransmission timer, TLP's
/// probe, the delayed ACK): a multiplication by this length gives the quotient the division by
/// `HZ` gives, without a `div` by a variable, which costs tens of cycles (issue 50,
/// docs/speed.md).
fn whole_jiffy(hz: u64) -> Option<Time> {
    match hz {
        1000 => Some(SEC / 1000),
        250 => Some(SEC / 250),
        100 => Some(SEC / 100),
        _ => None,
    }
}

/// [`TimerClock::jiffies`] where `now * hz` does not fit 64 bits (after 213 days at HZ = 1000):
/// in 128 bits, out of the per-ACK path's code.
#[cold]
#[inline(never)]
fn wide_jiffies(now: Time, hz: u64) -> u64 {
    ((u128::from(now) * u128::from(hz)) / u128::from(SEC)) as u64
}

/// [`TimerClock::to_jiffies`] where `d * hz` does not fit 64 bits.
#[cold]
#[inline(never)]
fn wide_to_jiffies(d: Time, hz: u64) -> u64 {
    (u128::from(d) * u128::from(hz)).div_ceil(u128::from(SEC)) as u64
}

/// [`TimerClock::from_jiffies`] where `j * SEC` does not fit 64 bits.
#[cold]
#[inline(never)]
fn wide_from_jiffies(j: u64, hz: u64) -> Time {
    (u128::from(j) * u128::from(SEC)).div_ceil(u128::from(hz)) as Time
}

impl TimerClock {
    /// `HZ`; under BSD's ticks 1000, the jiffy a Linux estimator or delayed ACK on that clock
    /// counts in (a reading).
    fn hz(self) -> u64 {
        match self {
            TimerClock::BsdTicks => 1000,
            TimerClock::Jiffies { hz } => u64::from(hz.max(1)),
        }
    }

    /// How long one jiffy lasts (rounded down to a nanosecond at HZ = 300).
    pub fn jiffy(self) -> Time {
        whole_jiffy(self.hz()).unwrap_or_else(|| SEC / self.hz())
    }

    /// The current jiffy at `now` (`jiffies`).
    pub fn jiffies(self, now: Time) -> u64 {
        // in 64 bits while the product fits (213 days at HZ = 1000): the same number, without
        // the 128-bit division's call, on every ACK of a Linux sender (docs/speed.md, issue 50)
        match now.checked_mul(self.hz()) {
            Some(p) => p / SEC,
            None => wide_jiffies(now, self.hz()),
        }
    }

    /// `usecs_to_jiffies()`/`msecs_to_jiffies()`: a duration in whole jiffies, rounded up.
    pub fn to_jiffies(self, d: Time) -> u64 {
        match d.checked_mul(self.hz()) {
            Some(p) => p.div_ceil(SEC),
            None => wide_to_jiffies(d, self.hz()),
        }
    }

    /// `j` jiffies as a duration; also when jiffy `j` begins.
    pub fn from_jiffies(self, j: u64) -> Time {
        match j.checked_mul(SEC) {
            // j * SEC / HZ = j * (SEC / HZ) exactly where HZ divides SEC
            Some(p) => whole_jiffy(self.hz()).map_or_else(|| p.div_ceil(self.hz()), |len| j * len),
            None => wide_from_jiffies(j, self.hz()),
        }
    }

    /// When a wheel timer armed at `now` with `expires` (an absolute jiffy) fires.
    pub fn wheel_expiry(self, now: Time, expires: u64) -> Time {
        self.wheel_expiry_at_jiffy(self.jiffies(now), expires)
    }

    /// [`TimerClock::wheel_expiry`] armed in jiffy `clk` (`jiffies(now)`, which the caller has
    /// already taken: the arming paths of a Linux host take it once, not once for the timeout
    /// and again for the wheel; docs/speed.md, issue 50, h29).
    pub fn wheel_expiry_at_jiffy(self, clk: u64, expires: u64) -> Time {
        let delta = expires.saturating_sub(clk);
        // LVL_START(n) = (LVL_SIZE - 1) << ((n - 1) * LVL_CLK_SHIFT)
        let lvl_start = |n: u32| ((1u64 << LVL_BITS) - 1) << ((n - 1) * LVL_CLK_SHIFT);
        let lvl = (1..LVL_DEPTH)
            .find(|&n| delta < lvl_start(n))
            .map_or(LVL_DEPTH - 1, |n| n - 1);
        let shift = lvl * LVL_CLK_SHIFT;
        let bucket = ((expires >> shift) + 1) << shift;
        self.from_jiffies(bucket)
    }

    /// When a timer armed at `now` to run `jiffies` jiffies later fires on the wheel.
    pub fn wheel_after(self, now: Time, jiffies: u64) -> Time {
        let clk = self.jiffies(now);
        self.wheel_expiry_at_jiffy(clk, clk + jiffies)
    }

    /// The host detail's text.
    pub fn name(self) -> String {
        match self {
            TimerClock::BsdTicks => "bsd-ticks".into(),
            TimerClock::Jiffies { hz } => format!("jiffies:{hz}"),
        }
    }

    /// Reads `bsd-ticks`, `jiffies` (HZ = 1000) or `jiffies:HZ`.
    pub fn parse(v: &str) -> Option<TimerClock> {
        match v {
            "bsd-ticks" => Some(TimerClock::BsdTicks),
            "jiffies" => Some(TimerClock::Jiffies { hz: 1000 }),
            _ => {
                let hz: u32 = v.strip_prefix("jiffies:")?.parse().ok()?;
                KERNEL_HZ
                    .contains(&hz)
                    .then_some(TimerClock::Jiffies { hz })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::MS;

    #[test]
    fn wheel_rounds_up_by_level() {
        let c = TimerClock::Jiffies { hz: 1000 };
        // level 0: one jiffy late at most (armed mid-jiffy 10 at 10.5 ms, 40 jiffies: jiffy 51)
        assert_eq!(c.wheel_after(10 * MS + MS / 2, 40), 51 * MS);
        // level 1 (63..503 jiffies): 8-jiffy buckets; 200 jiffies from jiffy 3 = 203 -> 208
        assert_eq!(c.wheel_after(3 * MS, 200), 208 * MS);
        // level 2 (504..4031): 64-jiffy buckets; 1000 from 0 -> 1024
        assert_eq!(c.wheel_after(0, 1000), 1024 * MS);
        let c250 = TimerClock::Jiffies { hz: 250 };
        assert_eq!(c250.jiffy(), 4 * MS);
        assert_eq!(c250.to_jiffies(201 * MS), 51);
        // HZ = 300: 40 ms is 12 jiffies, and jiffy 300 begins at 1 s
        let c300 = TimerClock::Jiffies { hz: 300 };
        assert_eq!(c300.to_jiffies(40 * MS), 12);
        assert_eq!(c300.jiffies(SEC), 300);
        assert_eq!(c300.wheel_after(0, 12), c300.from_jiffies(13));
    }

    /// The 64-bit arithmetic gives the 128-bit numbers, on both sides of where the product
    /// stops fitting.
    #[test]
    fn jiffies_in_64_bits_as_in_128() {
        for hz in KERNEL_HZ {
            let c = TimerClock::Jiffies { hz };
            let h = u128::from(hz);
            let edge = u64::MAX / u64::from(hz);
            for t in [0, 1, MS - 1, SEC + 7, edge - 1, edge, edge + 1, u64::MAX] {
                let jiffies = (u128::from(t) * h / u128::from(SEC)) as u64;
                assert_eq!(c.jiffies(t), jiffies, "HZ {hz}, {t} ns");
                let to = (u128::from(t) * h).div_ceil(u128::from(SEC)) as u64;
                assert_eq!(c.to_jiffies(t), to, "HZ {hz}, {t} ns");
                let from = (u128::from(t) * u128::from(SEC)).div_ceil(h) as u64;
                assert_eq!(c.from_jiffies(t), from, "HZ {hz}, jiffy {t}");
            }
        }
    }

    #[test]
    fn names_round_trip() {
        for c in [
            TimerClock::BsdTicks,
            TimerClock::Jiffies { hz: 250 },
            TimerClock::Jiffies { hz: 1000 },
        ] {
            assert_eq!(TimerClock::parse(&c.name()), Some(c));
        }
        assert_eq!(TimerClock::parse("jiffies:333"), None);
    }
}
