//! Paper 004's report from its runs: Fig. 2's throughputs, timeouts and ratios to Reno at each
//! error rate, and the claims they check.

use snooplab_sim::metrics::RunResult;
use snooplab_sim::stats::summarize;

use super::claims::claims;
use super::data::Paper004;
use super::experiments::PROTOCOLS;
use super::report::{Point, Report004};

/// The report from the runs of [`jobs`](super::experiments::jobs), in its order.
pub fn evaluate(paper: &Paper004, seeds: u64, runs: &[RunResult]) -> Report004 {
    let per = seeds as usize;
    let mut points = vec![];
    for (i, &kb) in paper.kbytes_between_errors.iter().enumerate() {
        let base = i * PROTOCOLS.len() * per;
        let of = |p: usize| {
            &runs[(base + p * per).min(runs.len())..(base + (p + 1) * per).min(runs.len())]
        };
        let col = |p: usize, f: &dyn Fn(&RunResult) -> f64| {
            summarize(&of(p).iter().map(f).collect::<Vec<_>>())
        };
        let ratio = |p: usize| {
            let v: Vec<f64> = of(p)
                .iter()
                .zip(of(0))
                .filter(|(_, r)| r.flow().throughput_mbps > 0.0)
                .map(|(a, r)| a.flow().throughput_mbps / r.flow().throughput_mbps)
                .collect();
            summarize(&v)
        };
        points.push(Point {
            kbytes_between_errors: kb,
            throughput_mbps: (0..PROTOCOLS.len())
                .map(|p| col(p, &|r| r.flow().throughput_mbps))
                .collect(),
            timeouts: (0..PROTOCOLS.len())
                .map(|p| col(p, &|r| r.flow().timeouts as f64))
                .collect(),
            eln_over_reno: ratio(1),
            nack_over_reno: ratio(2),
            failures: (0..PROTOCOLS.len())
                .map(|p| {
                    of(p)
                        .iter()
                        .filter(|r| !r.invariants.ok() || !r.invariants.complete)
                        .count()
                })
                .collect(),
        });
    }
    let claims = claims(&points);
    Report004 {
        seeds,
        host: runs
            .first()
            .map_or_else(String::new, |r| r.flow().host.clone()),
        protocols: PROTOCOLS.iter().map(|p| p.name().to_string()).collect(),
        points,
        claims,
    }
}
