//! How late the live loop released what it scheduled (docs/live.md, "A busy machine"): the link
//! models keep exact time however late the loop runs, but a packet released late reaches its host
//! late, and the hosts see a slower path than the one modelled. A run that was late too often
//! carries a warning.

use snooplab_proto::time::MS;
use snooplab_proto::Time;

/// An emulator delivery released more than this after its scheduled time is late: the loop could
/// not keep the emulated links' timing. 1 ms is a sixth of one 1440-byte frame's airtime on the
/// 2 Mb/s WaveLAN and 5% of the LAN round trip; an idle machine releases every delivery within a
/// few tens of microseconds.
pub(crate) const LATE_THRESHOLD: Time = MS;
/// A run whose late deliveries are more than this fraction of all gets a warning.
pub const LATE_WARN_FRACTION: f64 = 0.01;

/// How late the base station released the emulator's deliveries (packets leaving an emulated link
/// towards a host or the agent) against the times the link models scheduled them for. The models
/// keep exact time however late the loop runs, but a late delivery reaches its host late: the
/// hosts see a slower path than the one emulated (a busy machine halves the throughput).
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct Lateness {
    /// Deliveries released.
    pub deliveries: u64,
    /// Released more than [`LATE_THRESHOLD`] after their time.
    pub late: u64,
    /// The latest, ms.
    pub max_ms: f64,
    /// Mean over all deliveries, ms.
    pub mean_ms: f64,
    #[serde(skip)]
    sum: Time,
    #[serde(skip)]
    max: Time,
}

impl Lateness {
    /// A delivery scheduled for `at`, released at `now`. Counts only: the figures in ms are
    /// [`Lateness::settled`]'s (two divisions per packet were 2% of the live engine's user time).
    #[inline]
    pub fn record(&mut self, at: Time, now: Time) {
        let late = now.saturating_sub(at);
        self.deliveries += 1;
        self.late += u64::from(late > LATE_THRESHOLD);
        self.sum += late;
        self.max = self.max.max(late);
    }

    /// The counts with [`Lateness::max_ms`] and [`Lateness::mean_ms`] worked out from them, as
    /// a run hands them on.
    pub fn settled(mut self) -> Lateness {
        self.max_ms = self.max as f64 / MS as f64;
        self.mean_ms = if self.deliveries == 0 {
            0.0
        } else {
            self.sum as f64 / MS as f64 / self.deliveries as f64
        };
        self
    }

    /// The fraction of deliveries that were late.
    pub fn late_fraction(&self) -> f64 {
        if self.deliveries == 0 {
            0.0
        } else {
            self.late as f64 / self.deliveries as f64
        }
    }

    /// The warning the result carries, if `who` (the emulator, the engine) ran late too often.
    pub fn warning(&self, who: &str) -> Option<String> {
        (self.late_fraction() > LATE_WARN_FRACTION).then(|| {
            let s = self.settled();
            format!(
                "{who} released {} of {} packets ({:.1}%) more than {} ms late (at most \
                 {:.1} ms, {:.2} ms on average): the machine was too busy to keep the emulated \
                 links' timing, so the hosts saw a slower path; rerun on an idle machine",
                self.late,
                self.deliveries,
                100.0 * self.late_fraction(),
                LATE_THRESHOLD / MS,
                s.max_ms,
                s.mean_ms
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lateness_counts_deliveries_beyond_the_threshold_and_warns_above_the_fraction() {
        let mut l = Lateness::default();
        assert_eq!(l.warning("the emulator"), None);
        for i in 0..1000 {
            l.record(i * MS, i * MS + 10_000);
        }
        assert_eq!((l.deliveries, l.late), (1000, 0));
        assert_eq!(l.warning("the emulator"), None, "10 us late is on time");
        for i in 0..10 {
            l.record(i * MS, i * MS + 5 * MS);
        }
        assert_eq!(l.late, 10);
        assert_eq!(l.warning("the emulator"), None, "10 of 1010 is under 1%");
        l.record(0, 30 * MS);
        assert_eq!(l.late, 11);
        assert!((l.settled().max_ms - 30.0).abs() < 1e-9);
        assert_eq!(l.max_ms, 0.0, "worked out when settled, not per packet");
        let w = l.warning("the emulator").unwrap_or_default();
        assert!(w.contains("11 of 1011 packets"), "{w}");
        assert!(w.contains("at most 30.0 ms"), "{w}");
        // released early (the emulator off delivers at once) counts as on time
        l.record(5 * MS, MS);
        assert_eq!(l.late, 11);
    }
}
