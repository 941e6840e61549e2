//! Simulated and real time as integer nanoseconds (docs/architecture.md#rules: no floating-point clock).

/// A point in time, in nanoseconds since the start of the run.
pub type Time = u64;

/// One microsecond.
pub const US: Time = 1_000;
/// One millisecond.
pub const MS: Time = 1_000_000;
/// One second.
pub const SEC: Time = 1_000_000_000;

/// Seconds as a float, for reports only (never fed back into the model).
pub fn as_secs_f64(t: Time) -> f64 {
    t as f64 / SEC as f64
}

/// The earlier of two optional deadlines (`None`: no deadline). The event loop re-arms timers
/// after every packet, and this is cheaper than an iterator's `flatten().min()`.
#[inline]
pub fn earliest(a: Option<Time>, b: Option<Time>) -> Option<Time> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    }
}

/// The first instant strictly after `now` that lies on the grid `phase + k * period`.
///
/// BSD's coarse timers (`tcp_slowtimo`, `tcp_fasttimo`) run on a free-running clock, so a timer set
/// at `now` is looked at on the next tick of that clock, not `period` after `now`.
pub fn next_tick_after(now: Time, phase: Time, period: Time) -> Time {
    debug_assert!(period > 0 && phase < period);
    if now < phase {
        return phase;
    }
    let k = (now - phase) / period + 1;
    phase + k * period
}

/// How many ticks of the grid `phase + k * period` fall in the half-open interval `(from, to]`.
pub fn ticks_between(from: Time, to: Time, phase: Time, period: Time) -> u64 {
    if to <= from {
        return 0;
    }
    let count_upto = |t: Time| -> u64 {
        // ticks at or before t (ticks are at phase, phase+period, ...)
        if t < phase {
            0
        } else {
            (t - phase) / period + 1
        }
    };
    count_upto(to) - count_upto(from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn next_tick_is_strictly_after() {
        assert_eq!(next_tick_after(0, 0, 500), 500);
        assert_eq!(next_tick_after(499, 0, 500), 500);
        assert_eq!(next_tick_after(500, 0, 500), 1000);
        assert_eq!(next_tick_after(10, 100, 500), 100);
        assert_eq!(next_tick_after(100, 100, 500), 600);
    }

    proptest! {
        #[test]
        fn ticks_between_counts_grid_points(from in 0u64..10_000, len in 0u64..10_000, phase in 0u64..500) {
            let to = from + len;
            let brute = (from + 1..=to).filter(|t| *t >= phase && (t - phase) % 500 == 0).count() as u64;
            prop_assert_eq!(ticks_between(from, to, phase, 500), brute);
        }

        #[test]
        fn next_tick_is_on_grid_and_minimal(now in 0u64..100_000, phase in 0u64..500) {
            let t = next_tick_after(now, phase, 500);
            prop_assert!(t > now);
            prop_assert_eq!((t - phase) % 500, 0);
            prop_assert!(t - now <= 500 || now < phase);
        }
    }
}
