//! The study's results: every configuration summarised over its seeds, and each agent's gain over
//! no agent for the same sender, path, channel and transfer.

use snooplab_sim::metrics::FlowResult;
use snooplab_sim::protocol::Protocol;
use snooplab_sim::stats::{summarize, Summary};
use snooplab_sim::RunResult;

use super::grid::{Config, Path, Sender};
pub use super::report::{Cell, Gain, KernelGain, Named, PartReport, Report, HEADLINE_AGENTS};
use super::Part;
use crate::kernel_check::study::KERNEL_DATA;
use crate::kernel_check::{KernelData, PointRuns};
use crate::study::Reported;

/// The headline agents' gains for the kernel's CUBIC on every path the kernel data holds both
/// points of.
fn kernel_headline() -> Vec<KernelGain> {
    let Ok(data) = KernelData::parse(KERNEL_DATA) else {
        return vec![];
    };
    let mut out = vec![];
    for agent in HEADLINE_AGENTS {
        let id = match agent {
            Protocol::LlTcpAware => "snoop",
            a => a.name(),
        };
        for p in Path::ALL {
            let (Some(e2e), Some(with)) = (
                data.point(&format!("{}-16k-e2e-cubic", p.name())),
                data.point(&format!("{}-16k-{id}-cubic", p.name())),
            ) else {
                continue;
            };
            let mbps = |p: &PointRuns| {
                summarize(&p.runs.iter().map(|r| r.throughput_mbps).collect::<Vec<_>>())
            };
            if let Some((gain, ci95)) = ratio(&mbps(with), &mbps(e2e)) {
                out.push(KernelGain {
                    agent: agent.name(),
                    path: p.name(),
                    gain,
                    ci95,
                    runs: e2e.runs.len().min(with.runs.len()),
                });
            }
        }
    }
    out
}

/// The study run.
pub type TodayRun = Reported<Report>;

/// The report from the results, read in the plan's order.
pub(super) fn finish(
    parts: &[(Part, Vec<Config>)],
    senders: &[Sender],
    seeds: u64,
    results: Vec<RunResult>,
) -> TodayRun {
    let per = seeds as usize;
    let mut next = 0;
    let mut reports = vec![];
    for (part, configs) in parts {
        let mut cells = vec![];
        for c in configs {
            let runs = results.get(next..next + per).unwrap_or_default();
            next += per;
            cells.push(cell(c, runs, *part));
        }
        let gains = gains(&cells, part.by_completion());
        reports.push(PartReport {
            part: part.name(),
            measure: if part.by_completion() {
                "completion time"
            } else {
                "throughput"
            },
            cells,
            gains,
        });
    }
    let headline = reports
        .iter()
        .filter(|r| r.part == Part::Errors.name())
        .flat_map(|r| &r.gains)
        .filter(|g| {
            HEADLINE_AGENTS.iter().any(|a| a.name() == g.named.agent)
                && g.named.channel == "1/16 KB"
        })
        .cloned()
        .collect();
    let kernel = kernel_headline();
    let today = senders.last().map_or("", |s| s.name);
    let claims = super::claims::claims(&reports, &kernel, today);
    TodayRun {
        runs: results,
        report: Report {
            seeds,
            senders: senders.iter().map(|s| s.name).collect(),
            parts: reports,
            headline,
            kernel_headline: kernel,
            claims,
        },
    }
}

fn cell(c: &Config, runs: &[RunResult], part: Part) -> Cell {
    let s = |f: &dyn Fn(&RunResult) -> f64| summarize(&runs.iter().map(f).collect::<Vec<_>>());
    let several = c.flows > 1;
    let every = |f: fn(&FlowResult) -> f64| move |r: &RunResult| r.flows.iter().map(f).sum::<f64>();
    let throughput = |r: &RunResult| {
        if !several {
            r.flow().throughput_mbps
        } else if r.aggregate.throughput_mbps > 0.0 {
            r.aggregate.throughput_mbps
        } else {
            r.flows.iter().map(|f| f.throughput_mbps).sum()
        }
    };
    Cell {
        named: Named::of(c, part),
        flows: c.flows,
        buffer_bytes: c.buffer,
        throughput_mbps: s(&throughput),
        completion_s: s(&|r| r.flows.iter().map(|f| f.duration_s).fold(0.0, f64::max)),
        timeouts: s(&every(|f| f.timeouts as f64)),
        sender_retransmitted: s(&every(|f| f.sender_retransmitted_segments as f64)),
        local_retransmissions: s(&|r| r.agent_total("local_retransmissions") as f64),
        incomplete: runs
            .iter()
            .filter(|r| !(r.invariants.ok() && r.invariants.complete))
            .count(),
        per_flow_mbps: several.then(|| {
            s(&|r| r.flows.iter().map(|f| f.throughput_mbps).sum::<f64>() / r.flows.len() as f64)
        }),
        fairness: several.then(|| s(&|r| r.aggregate.fairness)),
        config: *c,
    }
}

/// Every agent's gain over no agent in the same setting.
fn gains(cells: &[Cell], by_completion: bool) -> Vec<Gain> {
    let mut out = vec![];
    for c in cells.iter().filter(|c| c.config.agent != Protocol::E2e) {
        let Some(base) = cells.iter().find(|b| b.config == c.config.without_agent()) else {
            continue;
        };
        let (num, den) = if by_completion {
            (&base.completion_s, &c.completion_s)
        } else {
            (&c.throughput_mbps, &base.throughput_mbps)
        };
        let Some((gain, ci95)) = ratio(num, den) else {
            continue;
        };
        out.push(Gain {
            named: c.named.clone(),
            gain,
            ci95,
        });
    }
    out
}

/// `a / b` and its interval's half-width by the delta method; `None` when `b`'s mean is 0.
pub(super) fn ratio(a: &Summary, b: &Summary) -> Option<(f64, Option<f64>)> {
    if b.mean == 0.0 {
        return None;
    }
    let r = a.mean / b.mean;
    let rel = |s: &Summary| s.ci95.map(|c| if s.mean == 0.0 { 0.0 } else { c / s.mean });
    let ci = match (rel(a), rel(b)) {
        (Some(x), Some(y)) => Some(r * x.hypot(y)),
        _ => None,
    };
    Some((r, ci))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kernels_gains_come_from_the_committed_data() {
        let k = kernel_headline();
        let lan = k
            .iter()
            .find(|g| g.path == "lan" && g.agent == "ll-tcp-aware");
        assert!(
            lan.is_some_and(|g| g.runs >= 5 && g.gain > 0.5 && g.gain < 2.0),
            "{k:?}"
        );
    }

    #[test]
    fn a_cell_of_several_flows_counts_them_all() {
        use super::super::grid::{today, Channel};
        use snooplab_proto::tcp::HostPreset;
        let c = Config {
            flows: 3,
            ..Config::new(
                today(HostPreset::Linux),
                Protocol::LlTcpAware,
                Path::Lan,
                Channel::Every(16 << 10),
                100 << 10,
            )
        };
        let runs: Vec<RunResult> = (1..=2).map(|s| c.job(s).run()).collect();
        assert!(runs.iter().all(|r| r.flows.len() == 3));
        let cell = cell(&c, &runs, Part::Flows);
        let aggregate: Vec<f64> = runs.iter().map(|r| r.aggregate.throughput_mbps).collect();
        assert!(aggregate.iter().all(|&t| t > 0.0), "{aggregate:?}");
        assert!((cell.throughput_mbps.mean - (aggregate[0] + aggregate[1]) / 2.0).abs() < 1e-9);
        let per_flow = cell.per_flow_mbps.map(|s| s.mean).unwrap_or_default();
        let each = |r: &RunResult| r.flows.iter().map(|f| f.throughput_mbps).sum::<f64>() / 3.0;
        assert!((per_flow - (each(&runs[0]) + each(&runs[1])) / 2.0).abs() < 1e-9);
        assert!(cell.fairness.is_some_and(|f| f.mean > 0.5 && f.mean <= 1.0));
        let retransmitted: u64 = runs[0]
            .flows
            .iter()
            .map(|f| f.sender_retransmitted_segments)
            .sum();
        assert!(cell.sender_retransmitted.max >= retransmitted as f64);
        assert_eq!((cell.flows, cell.incomplete), (3, 0));
        assert_eq!(cell.named.setting, "1/16 KB, 3 flows");
    }

    #[test]
    fn a_ratio_carries_both_intervals() {
        let s = |mean: f64, ci: Option<f64>| Summary {
            n: 10,
            mean,
            ci95: ci,
            min: mean,
            max: mean,
        };
        let (r, ci) = ratio(&s(2.0, Some(0.2)), &s(1.0, Some(0.1))).unwrap_or_default();
        assert!((r - 2.0).abs() < 1e-12);
        // 10% and 10% relative: 2 * sqrt(0.02)
        assert!((ci.unwrap_or_default() - 2.0 * 0.02f64.sqrt()).abs() < 1e-12);
        assert_eq!(ratio(&s(1.0, None), &s(1.0, Some(0.1))), Some((1.0, None)));
        assert_eq!(ratio(&s(1.0, None), &s(0.0, None)), None);
    }
}
