//! The kernel check as a study `reproduce` runs: every point the kernel data file holds, run in
//! the simulator with the `linux` host (CUBIC) or `linux-reno` (Reno) and the point's seeds, side
//! by side with the kernel's runs, and the three claims checked: throughput within 15% of
//! the kernel's at every point, retransmissions within 25%, and snoop's gain for CUBIC on the
//! LAN within 0.05 of the kernel's (docs/kernel-check.md).

use serde::Serialize;
use snooplab_proto::tcp::HostPreset;
use snooplab_sim::scenario::Scenario;
use snooplab_sim::stats::{means_within_noise, summarize, Summary};
use snooplab_sim::{Job, Observer, RunResult, Simulation};

use super::data::{thin, KernelData, PointRuns, MAX_TRACE_SAMPLES};
use super::grid::{self, Errors, Point};
pub use super::report::Report;
use crate::claim::Claim;
use crate::study::{no_parts, About, Common, Plan, Planned, Reported, Study};

/// The kernel's side, as committed (`snooplab kernel-check measure` writes it).
pub(crate) const KERNEL_DATA: &str = include_str!("../../../../data/kernel-check/linux.json");

/// Throughput within this fraction of the kernel's at every point (the bound; goal 10%).
pub const THROUGHPUT_WITHIN: f64 = 0.15;
/// Retransmitted segments within this fraction of the kernel's.
pub const RETRANSMISSIONS_WITHIN: f64 = 0.25;
/// Snoop's gain for CUBIC within this much of the kernel's measured gain.
pub const GAIN_WITHIN: f64 = 0.05;

pub static ABOUT: About = About {
    name: "kernel-check",
    citation: "snooplab's kernel check: the linux host profile held to the Linux kernel measured \
               on paper 000's testbed (data/kernel-check/linux.json)",
    // `--seeds` runs seeds 1 to N; without it each point runs the kernel's own seeds (10 each
    // in the committed data), then the next ones to 10 if it has fewer: the issue's "at least 5
    // live runs and 10 seeds per point"
    default_seeds: 10,
    default_host: HostPreset::Linux,
    parts: "the points measured (every point in the data file)",
};

/// The kernel check for `reproduce`.
pub struct KernelCheck;

impl Study for KernelCheck {
    fn about(&self) -> &'static About {
        &ABOUT
    }
    fn check_parts(&self, words: &[String]) -> Result<(), String> {
        no_parts(
            words,
            ABOUT.name,
            "it runs every point the kernel data holds",
        )
    }
    fn plan(&self, words: &[String], common: &Common) -> Result<Box<dyn Planned>, String> {
        self.check_parts(words)?;
        let data = KernelData::parse(KERNEL_DATA)?;
        let points = data
            .points
            .iter()
            .map(|p| grid::select(&p.id).map(|g| g[0]))
            .collect::<Result<Vec<Point>, String>>()?;
        let seeds = data
            .points
            .iter()
            .map(|k| match common.seeds {
                Some(n) => (1..=n).collect(),
                None => kernel_seeds_first(
                    &k.runs.iter().map(|r| r.seed).collect::<Vec<_>>(),
                    ABOUT.default_seeds,
                ),
            })
            .collect();
        Ok(Box::new(CheckPlan {
            data,
            points,
            seeds,
            paired: common.seeds.is_none(),
            cubic_host: common.host(&ABOUT),
        }))
    }
}

/// A point's seeds by default: the kernel's runs' own first (a seed gives the live emulator the
/// simulator's channel, so the two clocks see the same errors until their senders part), then
/// the seeds after the largest of them, to `n` in all (a few seeds make a mean as noisy as the
/// kernel's own: docs/kernel-check.md, "The simulator's side" and "The whole grid with the
/// kernel's ten seeds").
fn kernel_seeds_first(kernel: &[u64], n: u64) -> Vec<u64> {
    let mut seeds: Vec<u64> = vec![];
    for &s in kernel {
        if !seeds.contains(&s) {
            seeds.push(s);
        }
    }
    let mut next = seeds.iter().max().map_or(1, |m| m.saturating_add(1));
    while (seeds.len() as u64) < n && next < u64::MAX {
        seeds.push(next);
        next += 1;
    }
    seeds
}

/// The kernel check planned: every measured point with its seeds.
pub struct CheckPlan {
    data: KernelData,
    points: Vec<Point>,
    /// Each point's seeds: the kernel's runs' own and more to 10, or 1 to `--seeds`.
    seeds: Vec<Vec<u64>>,
    /// Whether the seeds start with the kernel's (no `--seeds`).
    paired: bool,
    /// The host of the CUBIC points (`--host`, default `linux`); Reno's is `linux-reno`.
    cubic_host: HostPreset,
}

/// The simulator's run of point `p` with `seed`: paper 000's testbed with the grid's settings.
pub fn scenario(p: &Point, seed: u64, cubic_host: HostPreset) -> Scenario {
    let s = grid::SETTINGS;
    let mut sc = Scenario::paper000(p.protocol, p.path.env(), s.buffer, seed);
    sc.wired = p.path.wired();
    sc.transfer = s.transfer;
    sc.mss = s.mss;
    match p.errors {
        Errors::Every(b) => sc.error_every = b,
        e => {
            sc.channel_down = Some(e.channel());
            sc.channel_up = Some(e.channel());
        }
    }
    sc.set_host(if p.cc == "reno" {
        HostPreset::LinuxReno
    } else {
        cubic_host
    });
    sc
}

impl Plan for CheckPlan {
    type Run = CheckRun;

    fn jobs(&self) -> Vec<Job> {
        let mut out = vec![];
        for (p, seeds) in self.points.iter().zip(&self.seeds) {
            for &seed in seeds {
                out.push(Job::from(&scenario(p, seed, self.cubic_host)));
            }
        }
        out
    }

    fn finish(self, results: Vec<RunResult>) -> CheckRun {
        let mut rows = vec![];
        let mut next = 0;
        for ((p, k), seeds) in self.points.iter().zip(&self.data.points).zip(&self.seeds) {
            let runs = results.get(next..next + seeds.len()).unwrap_or_default();
            next += seeds.len();
            let mut row = PointRow::of(p, k, runs);
            row.kernel_cwnd = k
                .trace
                .iter()
                .map(|s| (s.t_s, s.cwnd_bytes as f64 / 1024.0))
                .collect();
            row.sim_cwnd = sim_cwnd(&scenario(p, 1, self.cubic_host));
            rows.push(row);
        }
        let claims = claims(&rows);
        CheckRun {
            runs: results,
            report: Report {
                kernel: self.data.kernel.clone(),
                machine: self.data.machine.clone(),
                date: self.data.date.clone(),
                seeds: self.seeds.iter().map(Vec::len).max().unwrap_or(0) as u64,
                kernel_runs: {
                    let runs = self.data.points.iter().map(|p| p.runs.len());
                    (runs.clone().min().unwrap_or(0), runs.max().unwrap_or(0))
                },
                paired: self.paired,
                points: rows,
                claims,
            },
        }
    }
}

/// One point, both sides.
#[derive(Clone, Debug, Serialize)]
pub struct PointRow {
    pub id: String,
    pub kernel_throughput_mbps: Summary,
    pub sim_throughput_mbps: Summary,
    pub kernel_retransmitted: Summary,
    pub sim_retransmitted: Summary,
    pub kernel_timeouts: Summary,
    pub sim_timeouts: Summary,
    /// Runs that did not complete or failed an invariant.
    pub sim_failures: usize,
    /// The kernel's congestion window over its first run, (s, KB), from `TCP_INFO` (the report's
    /// plots; not in the JSON, where the data file has it).
    #[serde(skip)]
    pub kernel_cwnd: Vec<(f64, f64)>,
    /// The model's over its first seed's run, (s, KB), from its trace (`run --trace` gives it
    /// whole).
    #[serde(skip)]
    pub sim_cwnd: Vec<(f64, f64)>,
}

/// The sender's congestion window over the run of `sc`, (s, KB), thinned as the kernel's trace
/// is: the run again with a trace (the same seed gives the same run).
fn sim_cwnd(sc: &Scenario) -> Vec<(f64, f64)> {
    let job = Job::from(sc);
    let (_, obs) =
        Simulation::observed_network(&job.network, &job.env, Observer::default().with_trace())
            .run_observed();
    let rows: Vec<(f64, f64)> = obs
        .trace
        .map(|t| {
            t.windows
                .iter()
                // a row at time 0 is the window before the handshake (BSD's TCP_MAXWIN, which
                // the model's TCP starts from for every profile), not one the sender used
                .filter(|w| w.flow == 0 && w.at > 0 && !t.is_base_station(w.sender))
                .map(|w| (w.at as f64 / 1e9, f64::from(w.cwnd) / 1024.0))
                .collect()
        })
        .unwrap_or_default();
    thin(&rows, MAX_TRACE_SAMPLES)
}

impl PointRow {
    fn of(p: &Point, k: &PointRuns, runs: &[RunResult]) -> PointRow {
        let sim =
            |f: &dyn Fn(&RunResult) -> f64| summarize(&runs.iter().map(f).collect::<Vec<_>>());
        let kernel = |f: &dyn Fn(&super::KernelRun) -> f64| {
            summarize(&k.runs.iter().map(f).collect::<Vec<_>>())
        };
        PointRow {
            id: p.id(),
            kernel_throughput_mbps: kernel(&|r| r.throughput_mbps),
            sim_throughput_mbps: sim(&|r| r.flow().throughput_mbps),
            kernel_retransmitted: kernel(&|r| r.retransmitted as f64),
            sim_retransmitted: sim(&|r| r.flow().sender_retransmitted_segments as f64),
            kernel_timeouts: kernel(&|r| r.timeouts as f64),
            sim_timeouts: sim(&|r| r.flow().timeouts as f64),
            sim_failures: runs
                .iter()
                .filter(|r| !(r.invariants.ok() && r.invariants.complete))
                .count(),
            kernel_cwnd: Vec::new(),
            sim_cwnd: Vec::new(),
        }
    }

    /// The simulator's mean over the kernel's, minus one.
    pub(super) fn throughput_error(&self) -> f64 {
        relative(
            self.sim_throughput_mbps.mean,
            self.kernel_throughput_mbps.mean,
        )
    }

    fn retransmission_error(&self) -> f64 {
        relative(self.sim_retransmitted.mean, self.kernel_retransmitted.mean)
    }
}

fn relative(sim: f64, kernel: f64) -> f64 {
    if kernel == 0.0 {
        if sim == 0.0 {
            0.0
        } else {
            f64::INFINITY
        }
    } else {
        sim / kernel - 1.0
    }
}

/// The three claims over every point measured.
fn claims(rows: &[PointRow]) -> Vec<Claim> {
    let worst = |f: &dyn Fn(&PointRow) -> f64| {
        rows.iter()
            .map(|r| (r.id.clone(), f(r)))
            .max_by(|a, b| a.1.abs().total_cmp(&b.1.abs()))
    };
    // each point outside with both means (sim against kernel), `digits` after the point: a
    // count of a segment or less a run is "+inf%" or "+50%" alone, which says nothing
    let within = |id: &'static str,
                  paper: &'static str,
                  bound: f64,
                  f: &dyn Fn(&PointRow) -> f64,
                  means: &dyn Fn(&PointRow) -> (f64, f64),
                  noise: &dyn Fn(&PointRow) -> bool,
                  digits: usize| {
        let outside: Vec<String> = rows
            .iter()
            .filter(|r| f(r).abs() > bound)
            .map(|r| {
                let (sim, kernel) = means(r);
                format!(
                    "{} {:+.0}% ({sim:.digits$} against {kernel:.digits$})",
                    r.id,
                    100.0 * f(r)
                )
            })
            .collect();
        // a reading beside the bound, not in place of it: which of the points outside differ
        // by no more than the two clocks' run-to-run noise (a mean of a few resends a run moves
        // by more than 25% from one set of ten seeds to the next)
        let noisy: Vec<&str> = rows
            .iter()
            .filter(|r| f(r).abs() > bound && noise(r))
            .map(|r| r.id.as_str())
            .collect();
        let measured = match worst(f) {
            Some((w, e)) if outside.is_empty() => {
                format!("every point within; the farthest {w} at {:+.0}%", 100.0 * e)
            }
            Some(_) if noisy.is_empty() => format!(
                "outside: {}; none within the run-to-run noise",
                outside.join(", ")
            ),
            Some(_) => format!(
                "outside: {}; of these, {} of {} within the two clocks' run-to-run noise (the \
                 difference of the means inside its 95% interval): {}",
                outside.join(", "),
                noisy.len(),
                outside.len(),
                noisy.join(", ")
            ),
            None => "no point measured".into(),
        };
        Claim {
            id,
            paper,
            measured,
            holds: (!rows.is_empty()).then_some(outside.is_empty()),
        }
    };
    let mut out = vec![
        within(
            "throughput-within-15pct",
            "the linux profile's mean throughput within 15% of the kernel's at every point",
            THROUGHPUT_WITHIN,
            &PointRow::throughput_error,
            &|r| (r.sim_throughput_mbps.mean, r.kernel_throughput_mbps.mean),
            &|r| means_within_noise(&r.sim_throughput_mbps, &r.kernel_throughput_mbps),
            3,
        ),
        within(
            "retransmissions-within-25pct",
            "the linux profile's retransmitted segments within 25% of the kernel's at every point",
            RETRANSMISSIONS_WITHIN,
            &PointRow::retransmission_error,
            &|r| (r.sim_retransmitted.mean, r.kernel_retransmitted.mean),
            &|r| means_within_noise(&r.sim_retransmitted, &r.kernel_retransmitted),
            1,
        ),
    ];
    out.push(gain_claim(rows));
    out
}

/// Snoop's gain for CUBIC on the LAN at one error per 16 KB and per 64 KB, the simulator's
/// against the kernel's.
fn gain_claim(rows: &[PointRow]) -> Claim {
    let find = |id: &str| rows.iter().find(|r| r.id == id);
    let mut parts = vec![];
    let mut holds = Some(true);
    for errors in ["16k", "64k"] {
        let (e2e, snoop) = (
            find(&format!("lan-{errors}-e2e-cubic")),
            find(&format!("lan-{errors}-snoop-cubic")),
        );
        match (e2e, snoop) {
            (Some(e), Some(s)) => {
                let gain = |f: fn(&PointRow) -> f64| f(s) / f(e);
                let kernel = gain(|r| r.kernel_throughput_mbps.mean);
                let sim = gain(|r| r.sim_throughput_mbps.mean);
                let ok = (sim - kernel).abs() <= GAIN_WITHIN;
                holds = holds.map(|h| h && ok);
                parts.push(format!(
                    "one error per {}: kernel {kernel:.2}x, simulator {sim:.2}x",
                    errors.to_uppercase().replace('K', " KB")
                ));
            }
            _ => holds = None,
        }
    }
    Claim {
        id: "snoop-gain-within-0.05",
        paper: "snoop's gain for CUBIC on the LAN (one error per 16 KB and per 64 KB) within \
                0.05 of the kernel's measured gain",
        measured: if parts.is_empty() {
            "the headline points are not in the kernel data".into()
        } else {
            parts.join("; ")
        },
        holds,
    }
}

/// The kernel check run.
pub type CheckRun = Reported<Report>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_kernel_data_names_grid_points() {
        let data = KernelData::parse(KERNEL_DATA).unwrap_or_default();
        assert!(!data.points.is_empty());
        assert!(data.kernel.starts_with("6."), "{}", data.kernel);
        for p in &data.points {
            assert!(grid::select(&p.id).is_ok(), "{}", p.id);
            assert!(p.runs.len() >= 5, "{}: {} runs", p.id, p.runs.len());
            for r in &p.runs {
                assert!(
                    r.max_lateness_ms <= super::super::data::MAX_LATENESS_MS,
                    "{} seed {}: the emulator ran {} ms late: measure the point again",
                    p.id,
                    r.seed,
                    r.max_lateness_ms
                );
            }
        }
    }

    #[test]
    fn a_point_runs_the_kernels_seeds_first_then_more_to_ten() {
        assert_eq!(
            kernel_seeds_first(&[1, 2, 3, 4, 5], 10),
            (1..=10).collect::<Vec<_>>()
        );
        assert_eq!(kernel_seeds_first(&[7, 3, 7], 4), vec![7, 3, 8, 9]);
        assert_eq!(kernel_seeds_first(&[1, 2, 3], 2), vec![1, 2, 3]);
        assert_eq!(kernel_seeds_first(&[], 2), vec![1, 2]);
        assert_eq!(kernel_seeds_first(&[u64::MAX], 3), vec![u64::MAX]);
    }

    #[test]
    fn a_point_runs_the_linux_host_of_its_congestion_control() {
        let p = grid::select("wan-64k-snoop-reno").unwrap_or_default()[0];
        let sc = scenario(&p, 3, HostPreset::Linux);
        assert_eq!(sc.host_preset, HostPreset::LinuxReno);
        assert_eq!(sc.error_every, 64 << 10);
        let ge = grid::select("lan-ge-e2e-cubic").unwrap_or_default()[0];
        let sc = scenario(&ge, 1, HostPreset::Linux);
        assert_eq!(sc.channel(true), Errors::GilbertElliott.channel());
        assert_eq!(sc.channel(false), Errors::GilbertElliott.channel());
        assert_eq!(sc.transfer, 2 << 20);
        let q = grid::select("lan-16k-e2e-cubic").unwrap_or_default()[0];
        assert_eq!(
            scenario(&q, 1, HostPreset::Linux).host_preset,
            HostPreset::Linux
        );
    }

    #[test]
    fn the_model_traces_its_senders_window() {
        let p = grid::select("lan-64k-e2e-cubic").unwrap_or_default()[0];
        let w = sim_cwnd(&scenario(&p, 1, HostPreset::Linux));
        assert!(w.len() > 10, "{} samples", w.len());
        assert!(w.len() <= MAX_TRACE_SAMPLES);
        assert!(w.windows(2).all(|p| p[0].0 <= p[1].0), "in time order");
        // Linux's initial window (RFC 6928): ten segments of 1388 bytes (1400 less the 12 bytes
        // of the timestamp option)
        assert!(
            (w[0].1 - 10.0 * 1388.0 / 1024.0).abs() < 0.01,
            "{:?}",
            &w[..5]
        );
    }

    #[test]
    fn a_point_outside_the_bound_fails_its_claim() {
        let s = |m: f64| summarize(&[m, m]);
        let row = |id: &str, k: f64, sim: f64| PointRow {
            id: id.into(),
            kernel_throughput_mbps: s(k),
            sim_throughput_mbps: s(sim),
            kernel_retransmitted: s(100.0),
            sim_retransmitted: s(110.0),
            kernel_timeouts: s(1.0),
            sim_timeouts: s(1.0),
            sim_failures: 0,
            kernel_cwnd: vec![],
            sim_cwnd: vec![],
        };
        let rows = vec![
            row("lan-16k-e2e-cubic", 1.0, 0.9),
            row("lan-16k-snoop-cubic", 1.1, 1.2),
        ];
        let c = claims(&rows);
        assert_eq!(c[0].holds, Some(true), "{}", c[0].measured);
        assert_eq!(c[1].holds, Some(true));
        // gain: kernel 1.10, simulator 1.33: outside 0.05; the 64k points missing
        assert_eq!(c[2].holds, None);
        let far = vec![row("lan-16k-e2e-cubic", 1.0, 0.8)];
        assert_eq!(claims(&far)[0].holds, Some(false));
        assert!(claims(&far)[0]
            .measured
            .contains("lan-16k-e2e-cubic -20% (0.800 against 1.000)"));
        assert!(claims(&far)[0]
            .measured
            .contains("none within the run-to-run noise"));
        // a mean of a few resends a run, 40% apart but inside the runs' spread: still outside
        // the bound, and named as within the noise
        let noisy = PointRow {
            kernel_retransmitted: summarize(&[0.0, 2.0, 4.0, 4.0, 0.0]),
            sim_retransmitted: summarize(&[1.0, 6.0, 0.0, 5.0, 2.0]),
            ..row("wan-16k-snoop-cubic", 1.0, 1.0)
        };
        let c = claims(&[noisy]);
        assert_eq!(c[1].holds, Some(false), "{}", c[1].measured);
        assert!(
            c[1].measured.ends_with(
                "of these, 1 of 1 within the two clocks' run-to-run noise \
                 (the difference of the means inside its 95% interval): wan-16k-snoop-cubic"
            ),
            "{}",
            c[1].measured
        );
    }
}
