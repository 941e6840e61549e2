//! Paper 000's report from its runs: every cell's throughput and goodputs beside the paper's,
//! within the tolerances below, each row's ordering of the schemes, and the claims.

use snooplab_sim::metrics::RunResult;
use snooplab_sim::stats::summarize;
use snooplab_sim::Protocol;

use super::claims::check_claims;
use super::data::Paper000;
use super::experiments::{Experiment, Part};
use super::report::{CellReport, Report, RowReport, TableReport};

/// Throughput must be within this relative error of the paper's.
pub const THROUGHPUT_TOLERANCE: f64 = 0.15;
/// Goodputs must be within this many percentage points.
pub const GOODPUT_TOLERANCE: f64 = 1.0;
/// Orderings are compared only where the paper's values differ by more than this (relative).
pub const ORDERING_MARGIN: f64 = 0.05;

/// Builds the report from the runs of each experiment (in the order of
/// [`experiments`](super::experiments::experiments)).
pub fn evaluate(
    parts: &[Part],
    exps: &[Experiment],
    runs: &[Vec<RunResult>],
    paper: &Paper000,
    seeds: u64,
) -> Report {
    let mut tables = vec![];
    for &part in parts {
        let mut rows = vec![];
        for (row, _) in part.rows() {
            let mut cells = vec![];
            for (e, rs) in exps.iter().zip(runs) {
                if e.part != part || e.row != row {
                    continue;
                }
                cells.push(cell_report(part, &row, e.protocol, rs, paper));
            }
            let (agrees, diffs) = ordering(&cells);
            rows.push(RowReport {
                row,
                cells,
                ordering_agrees: agrees,
                ordering_differences: diffs,
            });
        }
        tables.push(TableReport {
            part,
            title: part.title().into(),
            protocols: part.protocols().iter().map(|p| p.name().into()).collect(),
            rows,
        });
    }
    let mut report = Report {
        seeds,
        host: exps
            .first()
            .map_or_else(String::new, |e| e.scenario.host_label()),
        tables,
        claims: vec![],
    };
    report.claims = check_claims(&report);
    report
}

fn cell_report(
    part: Part,
    row: &str,
    protocol: Protocol,
    rs: &[RunResult],
    paper: &Paper000,
) -> CellReport {
    let col = |f: &dyn Fn(&RunResult) -> f64| summarize(&rs.iter().map(f).collect::<Vec<_>>());
    let thr = col(&|r| r.flow().throughput_mbps);
    let wl = col(&|r| r.flow().wireless_goodput_pct.unwrap_or(0.0));
    let wd = col(&|r| r.flow().wired_goodput_pct);
    let (pt, pwl, pwd) = match part {
        Part::Table2 | Part::Table3 | Part::Table4 => match paper.cell(protocol.name(), row) {
            Some(c) => (
                Some(c.throughput),
                Some(c.wireless_goodput),
                Some(c.wired_goodput),
            ),
            None => (None, None, None),
        },
        Part::Table5 => {
            let k: u32 = row.trim_start_matches("burst ").parse().unwrap_or(0);
            (
                paper.table5.get(&(protocol.name().to_string(), k)).copied(),
                None,
                None,
            )
        }
        Part::Fig12 => (None, None, None),
    };
    let rel = pt.map(|p| (thr.mean - p) / p);
    let gp_ok = match (pwl, pwd) {
        (Some(a), Some(b)) => Some(
            (wl.mean - a).abs() <= GOODPUT_TOLERANCE && (wd.mean - b).abs() <= GOODPUT_TOLERANCE,
        ),
        _ => None,
    };
    CellReport {
        protocol: protocol.name().into(),
        throughput_mbps: thr,
        wireless_goodput_pct: wl,
        wired_goodput_pct: wd,
        timeouts: col(&|r| r.flow().timeouts as f64),
        paper_throughput_mbps: pt,
        paper_wireless_goodput_pct: pwl,
        paper_wired_goodput_pct: pwd,
        relative_error: rel,
        throughput_within_tolerance: rel.map(|e| e.abs() <= THROUGHPUT_TOLERANCE),
        goodput_within_tolerance: gp_ok,
        invariant_failures: rs.iter().filter(|r| !r.invariants.ok()).count(),
        double_share: {
            let lost: u64 = rs.iter().map(|r| r.flat().frames_corrupted_down).sum();
            let both: u64 = rs
                .iter()
                .map(|r| {
                    r.flow()
                        .sender_retransmitted_segments
                        .min(r.agent_total("local_retransmissions"))
                })
                .sum();
            if lost == 0 {
                0.0
            } else {
                both as f64 / lost as f64
            }
        },
    }
}

/// Compares the order of every pair of cells the paper separates by more than 5%.
fn ordering(cells: &[CellReport]) -> (Option<bool>, Vec<String>) {
    let mut compared = 0;
    let mut diffs = vec![];
    for (i, a) in cells.iter().enumerate() {
        for b in &cells[i + 1..] {
            let (Some(pa), Some(pb)) = (a.paper_throughput_mbps, b.paper_throughput_mbps) else {
                continue;
            };
            if (pa - pb).abs() <= ORDERING_MARGIN * pa.min(pb) {
                continue;
            }
            compared += 1;
            let (oa, ob) = (a.throughput_mbps.mean, b.throughput_mbps.mean);
            if (pa > pb) != (oa > ob) {
                let (hi, lo) = if pa > pb { (a, b) } else { (b, a) };
                diffs.push(format!("{} > {} in the paper", hi.protocol, lo.protocol));
            }
        }
    }
    if compared == 0 {
        (None, diffs)
    } else {
        (Some(diffs.is_empty()), diffs)
    }
}
