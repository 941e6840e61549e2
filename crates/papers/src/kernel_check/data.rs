//! The kernel's side of the kernel check as data: what `snooplab kernel-check measure` measured
//! with kernel hosts, point by point and run by run, with the kernel, machine and date it was
//! measured on, so that the simulator's side is held to it in a test that needs no root.
//!
//! The file is JSON (`data/kernel-check/linux.json`); each point keeps every run's summary and one
//! run's congestion-window trace (the kernel's `TCP_INFO`, thinned to at most
//! [`MAX_TRACE_SAMPLES`] samples so that the committed file stays small).

use serde::{Deserialize, Serialize};

/// Where the committed kernel data lives, from the workspace root.
pub const DATA_FILE: &str = "data/kernel-check/linux.json";

/// The most an emulated link may run late before a live run is taken to have measured the machine,
/// not the path (a 1440-byte frame takes 6 ms on the wireless hop; the runs of a quiet machine stay
/// under about 35 ms, and one measured while other work held the CPU ran 16 s late, at half the
/// throughput): `kernel-check measure` runs such a run again, and the committed data holds none.
pub const MAX_LATENESS_MS: f64 = 100.0;

/// The most cwnd samples one point's trace keeps in the data file.
pub const MAX_TRACE_SAMPLES: usize = 256;

/// The kernel's side of the check.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct KernelData {
    /// `uname -r` of the machine that ran the kernel hosts.
    pub kernel: String,
    /// What machine it was (`uname -m`, the CPU count).
    pub machine: String,
    /// When it was measured (UTC, RFC 3339).
    pub date: String,
    /// The command that measured it.
    pub command: String,
    /// The live profile and what it sets (sysctls, route options).
    pub profile: String,
    pub buffer_bytes: u32,
    pub transfer_bytes: u64,
    pub mss: u32,
    pub points: Vec<PointRuns>,
}

/// One point's runs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PointRuns {
    /// The point's id (`grid::Point::id`).
    pub id: String,
    pub runs: Vec<KernelRun>,
    /// The first run's sender `TCP_INFO` over time: (seconds, cwnd bytes, ssthresh bytes or
    /// `null`, retransmitted segments so far).
    pub trace: Vec<TraceSample>,
}

/// One live run's summary.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct KernelRun {
    pub seed: u64,
    pub throughput_mbps: f64,
    /// Segments the kernel sender retransmitted (`tcpi_total_retrans`).
    pub retransmitted: u64,
    /// Retransmission timeouts (the sender namespace's `TCPTimeouts`).
    pub timeouts: u64,
    pub duration_s: f64,
    /// How late the engine ran the emulated links (its largest lateness, ms): a run whose
    /// emulator fell behind measured the machine, not the path.
    pub max_lateness_ms: f64,
}

/// One sample of a point's cwnd trace.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TraceSample {
    pub t_s: f64,
    pub cwnd_bytes: u64,
    pub ssthresh_bytes: Option<u64>,
    pub retransmitted: u32,
}

impl KernelData {
    /// Reads the data file's text; the error says what is wrong with it.
    pub fn parse(text: &str) -> Result<KernelData, String> {
        serde_json::from_str(text).map_err(|e| format!("kernel-check data: {e}"))
    }

    /// The runs of the point `id`, if measured.
    pub fn point(&self, id: &str) -> Option<&PointRuns> {
        self.points.iter().find(|p| p.id == id)
    }

    /// Adds or replaces the runs of one point, keeping the file's points in the order first met.
    pub fn put(&mut self, runs: PointRuns) {
        match self.points.iter_mut().find(|p| p.id == runs.id) {
            Some(p) => *p = runs,
            None => self.points.push(runs),
        }
    }

    /// Adds the runs of one point to those it has (`kernel-check measure --add`): a run of a
    /// seed the point already has replaces it, the others are kept, in seed order; the point's
    /// trace (its first measured run's) stays unless it had none.
    pub fn add(&mut self, new: PointRuns) {
        let Some(p) = self.points.iter_mut().find(|p| p.id == new.id) else {
            self.points.push(new);
            return;
        };
        for run in new.runs {
            match p.runs.iter_mut().find(|r| r.seed == run.seed) {
                Some(r) => *r = run,
                None => p.runs.push(run),
            }
        }
        p.runs.sort_by_key(|r| r.seed);
        if p.trace.is_empty() {
            p.trace = new.trace;
        }
    }

    /// Why runs measured on `kernel` with these settings cannot join this file's runs, if they
    /// cannot: one point's runs are of one kernel version and one transfer, or their mean means
    /// nothing. Builds of one version (`6.18.44-fc-v1272` and `-v1300`, the same upstream
    /// source with another local suffix) may join.
    pub fn cannot_add(&self, kernel: &str, buffer: u32, transfer: u64, mss: u32) -> Option<String> {
        if self.points.is_empty() {
            return None;
        }
        let version = |k: &str| k.split('-').next().unwrap_or_default().to_string();
        if version(&self.kernel) != version(kernel) {
            return Some(format!(
                "its runs are of kernel {}, this machine runs {kernel}",
                self.kernel
            ));
        }
        let here = (buffer, transfer, mss);
        let there = (self.buffer_bytes, self.transfer_bytes, self.mss);
        (here != there).then(|| {
            format!(
                "its runs are of a {}-byte buffer, {}-byte transfer and {}-byte MSS, the grid's \
                 now of {buffer}, {transfer} and {mss}",
                there.0, there.1, there.2
            )
        })
    }
}

impl PointRuns {
    /// Mean throughput over the runs, Mb/s (0 without runs).
    pub fn mean_throughput(&self) -> f64 {
        mean(self.runs.iter().map(|r| r.throughput_mbps))
    }

    /// Mean retransmitted segments per run.
    pub fn mean_retransmitted(&self) -> f64 {
        mean(self.runs.iter().map(|r| r.retransmitted as f64))
    }

    /// Mean timeouts per run.
    pub fn mean_timeouts(&self) -> f64 {
        mean(self.runs.iter().map(|r| r.timeouts as f64))
    }
}

fn mean(xs: impl Iterator<Item = f64>) -> f64 {
    let (n, sum) = xs.fold((0u32, 0.0), |(n, s), x| (n + 1, s + x));
    if n == 0 {
        0.0
    } else {
        sum / f64::from(n)
    }
}

/// At most `max` samples of `trace`, evenly spaced by index, the first and the last kept.
pub fn thin<T: Copy>(trace: &[T], max: usize) -> Vec<T> {
    if trace.len() <= max || max < 2 {
        return trace.iter().copied().take(max).collect();
    }
    let last = trace.len() - 1;
    (0..max).map(|i| trace[i * last / (max - 1)]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thinning_keeps_the_ends_and_the_bound() {
        let xs: Vec<u32> = (0..1000).collect();
        let t = thin(&xs, 256);
        assert_eq!(t.len(), 256);
        assert_eq!((t[0], t[255]), (0, 999));
        assert!(t.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(thin(&xs[..10], 256), xs[..10].to_vec());
    }

    #[test]
    fn data_round_trips_and_points_are_replaced_by_id() {
        let mut d = KernelData {
            kernel: "6.18.0".into(),
            ..KernelData::default()
        };
        let runs = |id: &str, mbps: f64| PointRuns {
            id: id.into(),
            runs: vec![KernelRun {
                seed: 1,
                throughput_mbps: mbps,
                ..KernelRun::default()
            }],
            trace: Vec::new(),
        };
        d.put(runs("lan-16k-e2e-cubic", 1.0));
        d.put(runs("lan-16k-snoop-cubic", 1.2));
        d.put(runs("lan-16k-e2e-cubic", 1.1));
        assert_eq!(d.points.len(), 2);
        assert_eq!(d.points[0].mean_throughput(), 1.1);
        let text = serde_json::to_string(&d).unwrap_or_default();
        assert_eq!(KernelData::parse(&text), Ok(d));
        assert!(KernelData::parse("{").is_err());
    }

    #[test]
    fn added_runs_join_a_points_runs_by_seed_and_only_of_one_kernel_and_transfer() {
        let run = |seed: u64, mbps: f64| KernelRun {
            seed,
            throughput_mbps: mbps,
            ..KernelRun::default()
        };
        let sample = |t_s: f64| TraceSample {
            t_s,
            ..TraceSample::default()
        };
        let mut d = KernelData {
            kernel: "6.18.0".into(),
            buffer_bytes: 65536,
            transfer_bytes: 2 << 20,
            mss: 1400,
            ..KernelData::default()
        };
        d.put(PointRuns {
            id: "lan-16k-e2e-cubic".into(),
            runs: vec![run(1, 1.0), run(2, 1.0)],
            trace: vec![sample(0.5)],
        });
        d.add(PointRuns {
            id: "lan-16k-e2e-cubic".into(),
            runs: vec![run(4, 2.0), run(2, 3.0), run(3, 2.0)],
            trace: vec![sample(9.0)],
        });
        let p = d.point("lan-16k-e2e-cubic").cloned().unwrap_or_default();
        let seeds: Vec<u64> = p.runs.iter().map(|r| r.seed).collect();
        assert_eq!(seeds, [1, 2, 3, 4]);
        assert_eq!(p.runs[1].throughput_mbps, 3.0, "seed 2 measured again");
        assert_eq!(p.trace, [sample(0.5)], "the first trace kept");
        d.add(PointRuns {
            id: "wan-16k-e2e-cubic".into(),
            runs: vec![run(6, 1.0)],
            trace: Vec::new(),
        });
        assert_eq!(d.points.len(), 2);
        assert_eq!(d.cannot_add("6.18.0", 65536, 2 << 20, 1400), None);
        assert!(d.cannot_add("6.19.1", 65536, 2 << 20, 1400).is_some());
        assert_eq!(d.cannot_add("6.18.0-fc-v2", 65536, 2 << 20, 1400), None);
        assert!(d.cannot_add("6.18.0", 65536, 1 << 20, 1400).is_some());
        assert_eq!(KernelData::default().cannot_add("6.19.1", 1, 1, 1), None);
    }
}
