//! The Web study's results: per configuration, the pages of every seed pooled (median, 90th and
//! 99th percentile page and object latency, the latency distribution), the per-seed medians and
//! 90th percentiles (their means and 95% intervals, for the claims), and the share of page
//! latency spent waiting on retransmission timers in setup, in the middle and at the tail
//! (`sim/src/run/web_stalls.rs`).

use serde::Serialize;
use snooplab_sim::metrics::{PagesResult, TimeoutWait, TimeoutsByPhase};
use snooplab_sim::stats::{summarize, Summary};
use snooplab_sim::RunResult;

use super::grid::{http_name, Config};
use crate::claim::Claim;
use crate::study::Reported;

/// Nearest-rank percentiles of a set of latencies, seconds (`metrics::Latencies`' rule: each a
/// latency that was measured); `None` for an empty set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Quantiles {
    pub count: usize,
    pub median_s: Option<f64>,
    pub p90_s: Option<f64>,
    pub p99_s: Option<f64>,
    pub mean_s: Option<f64>,
}

/// The value at or below which `p` percent of `sorted` lie (nearest rank).
pub fn rank(sorted: &[f64], p: usize) -> Option<f64> {
    let n = sorted.len();
    (n > 0).then(|| sorted[(p * n).div_ceil(100).clamp(1, n) - 1])
}

impl Quantiles {
    pub fn of(sorted: &[f64]) -> Quantiles {
        Quantiles {
            count: sorted.len(),
            median_s: rank(sorted, 50),
            p90_s: rank(sorted, 90),
            p99_s: rank(sorted, 99),
            mean_s: (!sorted.is_empty()).then(|| sorted.iter().sum::<f64>() / sorted.len() as f64),
        }
    }
}

/// The share of the summed page latency spent waiting on timers, by phase.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Share {
    pub setup: f64,
    pub middle: f64,
    pub tail: f64,
}

/// One configuration over its seeds.
#[derive(Clone, Debug, Serialize)]
pub struct WebCell {
    pub sender: &'static str,
    pub host: &'static str,
    pub protocol: &'static str,
    pub channel: String,
    pub http: String,
    pub pages: u64,
    pub pages_completed: u64,
    pub page_latency: Quantiles,
    pub object_latency: Quantiles,
    /// Each seed's median page latency, over the seeds.
    pub seed_median_s: Summary,
    /// Each seed's 90th-percentile page latency, over the seeds.
    pub seed_p90_s: Summary,
    /// Seconds of the pages' latency waited on timers, summed over the pages fetched whole.
    pub timeout_wait_s: TimeoutWait,
    /// The pages' latencies fetched whole, summed.
    pub latency_sum_s: f64,
    /// `timeout_wait_s` over `latency_sum_s`.
    pub timeout_share: Share,
    /// The retransmission timeouts of every connection, both ends.
    pub timeouts: TimeoutsByPhase,
    /// Runs that did not fetch every page or broke an invariant.
    pub incomplete_runs: usize,
    /// Every page latency fetched whole, sorted (the CDF chart's).
    #[serde(skip)]
    pub sorted_latency_s: Vec<f64>,
    #[serde(skip)]
    pub config: Config,
}

/// The cell of `config` from its seeds' runs.
pub fn cell(config: &Config, runs: &[RunResult]) -> WebCell {
    let pages: Vec<&PagesResult> = runs
        .iter()
        .filter_map(|r| r.flows.first().and_then(|f| f.pages.as_ref()))
        .collect();
    let latencies = |p: &PagesResult| -> Vec<f64> {
        let mut v: Vec<f64> = p.per_page.iter().filter_map(|x| x.latency_s).collect();
        v.sort_by(f64::total_cmp);
        v
    };
    let mut all: Vec<f64> = pages.iter().flat_map(|p| latencies(p)).collect();
    all.sort_by(f64::total_cmp);
    let mut objects: Vec<f64> = pages
        .iter()
        .flat_map(|p| p.per_object.iter().filter_map(|o| o.complete_s))
        .collect();
    objects.sort_by(f64::total_cmp);
    let per_seed = |q: usize| {
        summarize(
            &pages
                .iter()
                .filter_map(|p| rank(&latencies(p), q))
                .collect::<Vec<_>>(),
        )
    };
    let wait = pages
        .iter()
        .fold(TimeoutWait::default(), |w, p| w.plus(p.timeout_wait));
    let latency_sum: f64 = pages.iter().map(|p| p.latency_sum_s).sum();
    let share = |x: f64| {
        if latency_sum > 0.0 {
            x / latency_sum
        } else {
            0.0
        }
    };
    let timeouts = pages.iter().fold(TimeoutsByPhase::default(), |t, p| {
        let o = p.timeouts_by_phase;
        TimeoutsByPhase {
            setup: t.setup + o.setup,
            middle: t.middle + o.middle,
            tail: t.tail + o.tail,
        }
    });
    WebCell {
        sender: config.sender.name,
        host: config.sender.preset.name(),
        protocol: config.sender.protocol.name(),
        channel: config.channel.name(),
        http: http_name(config.http),
        pages: pages.iter().map(|p| p.pages).sum(),
        pages_completed: pages.iter().map(|p| p.pages_completed).sum(),
        page_latency: Quantiles::of(&all),
        object_latency: Quantiles::of(&objects),
        seed_median_s: per_seed(50),
        seed_p90_s: per_seed(90),
        timeout_wait_s: wait,
        latency_sum_s: latency_sum,
        timeout_share: Share {
            setup: share(wait.setup_s),
            middle: share(wait.middle_s),
            tail: share(wait.tail_s),
        },
        timeouts,
        incomplete_runs: runs
            .iter()
            .filter(|r| !(r.invariants.ok() && r.invariants.complete))
            .count(),
        sorted_latency_s: all,
        config: *config,
    }
}

/// The study's report (`reproduce --json`'s value under `web`).
#[derive(Clone, Debug, Serialize)]
pub struct WebReport {
    /// The pages' model, labelled unverified where its numbers were not checked.
    pub workload: String,
    pub workload_verified: bool,
    pub seeds: u64,
    pub pages_per_seed: u32,
    pub cells: Vec<WebCell>,
    pub claims: Vec<Claim>,
}

/// The study run.
pub type WebRun = Reported<WebReport>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_are_measured_values() {
        let v = [1.0, 2.0, 3.0, 4.0, 10.0];
        assert_eq!(rank(&v, 50), Some(3.0));
        assert_eq!(rank(&v, 90), Some(10.0));
        assert_eq!(rank(&v, 1), Some(1.0));
        assert_eq!(rank(&[], 50), None);
        let q = Quantiles::of(&v);
        assert_eq!((q.count, q.mean_s), (5, Some(4.0)));
    }
}
