//! Paper 000's experiments (Tables II-V, Fig. 12), run and set beside the
//! paper's numbers, with the paper's claims checked as measured ratios.

pub mod ablation;
mod claims;
pub mod data;
mod document;
pub mod plan;

pub use document::{ours, theirs, verdict, Reproduction};
pub use plan::{Plan000, Run000};

pub use crate::Claim;
pub use claims::check_claims;
pub use data::{Cell, Paper000};

use crate::study::About;
use serde::Serialize;
use snooplab_proto::tcp::HostPreset;

use snooplab_sim::metrics::RunResult;
use snooplab_sim::scenario::{Env, Scenario};
use snooplab_sim::size::format_size;
use snooplab_sim::stats::{summarize, Summary};
use snooplab_sim::Protocol;

/// Who paper 000 is for `reproduce`: "10 runs" per configuration (section IV), BSD/OS 2.1 hosts
/// ("all running BSD/OS 2.1", section IV-A; docs/host-profiles.md).
pub const ABOUT: About = About {
    name: "paper000",
    citation: "Balakrishnan, Padmanabhan, Seshan and Katz, \"A Comparison of Mechanisms for \
               Improving TCP Performance over Wireless Links\" (1997)",
    default_seeds: 10,
    default_host: HostPreset::Bsdos21,
};

/// Throughput must be within this relative error of the paper's.
pub const THROUGHPUT_TOLERANCE: f64 = 0.15;
/// Goodputs must be within this many percentage points.
pub const GOODPUT_TOLERANCE: f64 = 1.0;
/// Orderings are compared only where the paper's values differ by more than this (relative).
pub const ORDERING_MARGIN: f64 = 0.05;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Part {
    Table2,
    Table3,
    Table4,
    Table5,
    Fig12,
}

impl Part {
    pub const ALL: [Part; 5] = [
        Part::Table2,
        Part::Table3,
        Part::Table4,
        Part::Table5,
        Part::Fig12,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Part::Table2 => "table2",
            Part::Table3 => "table3",
            Part::Table4 => "table4",
            Part::Table5 => "table5",
            Part::Fig12 => "fig12",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Part::Table2 => "Table II: link-layer schemes, 1 error / 64 KB",
            Part::Table3 => "Table III: end-to-end schemes, 1 error / 64 KB",
            Part::Table4 => "Table IV: split-connection schemes, 1 error / 64 KB",
            Part::Table5 => {
                "Table V: burst errors (LAN, 32 KB), one event / 64 KB destroying k packets"
            }
            Part::Fig12 => "Fig. 12: LAN (32 KB) across error rates, throughput in Mb/s",
        }
    }

    pub fn parse(s: &str) -> Result<Vec<Part>, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "all" => Ok(Part::ALL.to_vec()),
            other => Part::ALL
                .iter()
                .copied()
                .find(|p| p.name() == other)
                .map(|p| vec![p])
                .ok_or_else(|| {
                    format!(
                        "unknown part '{s}' (known: table2, table3, table4, table5, fig12, all)"
                    )
                }),
        }
    }

    /// The protocols that are the table's columns, in the paper's order.
    pub fn protocols(self) -> Vec<Protocol> {
        match self {
            Part::Table2 => vec![
                Protocol::Ll,
                Protocol::LlTcpAware,
                Protocol::LlSmart,
                Protocol::LlSmartTcpAware,
            ],
            Part::Table3 => vec![
                Protocol::E2e,
                Protocol::E2eNewReno,
                Protocol::E2eSmart,
                Protocol::E2eIetfSack,
                Protocol::E2eEln,
                Protocol::E2eElnRxmt,
            ],
            Part::Table4 => vec![Protocol::Split, Protocol::SplitSmart],
            Part::Table5 => vec![Protocol::LlTcpAware, Protocol::LlSmartTcpAware],
            Part::Fig12 => vec![
                Protocol::E2e,
                Protocol::LlTcpAware,
                Protocol::LlSmartTcpAware,
                Protocol::E2eSmart,
                Protocol::E2eIetfSack,
                Protocol::SplitSmart,
            ],
        }
    }

    /// The rows: a label and the scenario for `protocol` in that row (seed left at 1).
    pub fn rows(self) -> Vec<(String, RowScenario)> {
        fn lan8(p: Protocol) -> Scenario {
            Scenario::paper000(p, Env::Lan, 8192, 1)
        }
        fn lan32(p: Protocol) -> Scenario {
            Scenario::paper000(p, Env::Lan, 32768, 1)
        }
        fn wan32(p: Protocol) -> Scenario {
            Scenario::paper000(p, Env::Wan, 32768, 1)
        }
        fn burst(k: u32) -> impl Fn(Protocol) -> Scenario {
            move |p| Scenario {
                burst: k,
                ..lan32(p)
            }
        }
        fn errors(n: u64) -> impl Fn(Protocol) -> Scenario {
            move |p| Scenario {
                error_every: n,
                ..lan32(p)
            }
        }
        match self {
            Part::Table2 | Part::Table3 | Part::Table4 => vec![
                ("lan-8k".into(), lan8 as RowScenario),
                ("lan-32k".into(), lan32),
                ("wan-32k".into(), wan32),
            ],
            Part::Table5 => vec![
                ("burst 2".into(), |p| burst(2)(p)),
                ("burst 4".into(), |p| burst(4)(p)),
                ("burst 6".into(), |p| burst(6)(p)),
            ],
            Part::Fig12 => vec![
                (format!("1/{}", format_size(16384)), |p| errors(16384)(p)),
                (format!("1/{}", format_size(32768)), |p| errors(32768)(p)),
                (format!("1/{}", format_size(65536)), |p| errors(65536)(p)),
                (format!("1/{}", format_size(131072)), |p| errors(131072)(p)),
                (format!("1/{}", format_size(262144)), |p| errors(262144)(p)),
            ],
        }
    }
}

/// Makes a row's scenario for a protocol.
pub type RowScenario = fn(Protocol) -> Scenario;

/// One configuration to run with every seed.
#[derive(Clone, Debug)]
pub struct Experiment {
    pub part: Part,
    pub row: String,
    pub protocol: Protocol,
    pub scenario: Scenario,
}

/// Every configuration of the chosen parts, in a fixed order. E2E-SMART was not run in the WAN.
pub fn experiments(parts: &[Part]) -> Vec<Experiment> {
    let mut out = vec![];
    for &part in parts {
        for (row, make) in part.rows() {
            for p in part.protocols() {
                if part == Part::Table3 && p == Protocol::E2eSmart && row.starts_with("wan") {
                    continue;
                }
                out.push(Experiment {
                    part,
                    row: row.clone(),
                    protocol: p,
                    scenario: make(p),
                });
            }
        }
    }
    out
}

#[derive(Clone, Debug, Serialize)]
pub struct CellReport {
    pub protocol: String,
    pub throughput_mbps: Summary,
    pub wireless_goodput_pct: Summary,
    pub wired_goodput_pct: Summary,
    pub timeouts: Summary,
    pub paper_throughput_mbps: Option<f64>,
    pub paper_wireless_goodput_pct: Option<f64>,
    pub paper_wired_goodput_pct: Option<f64>,
    /// (ours - paper) / paper.
    pub relative_error: Option<f64>,
    pub throughput_within_tolerance: Option<bool>,
    pub goodput_within_tolerance: Option<bool>,
    pub invariant_failures: usize,
    /// Share of lost data frames the sender retransmitted too (the LL claim).
    pub double_share: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct RowReport {
    pub row: String,
    pub cells: Vec<CellReport>,
    /// Whether every pair the paper separates by more than 5% is ordered the same way here.
    pub ordering_agrees: Option<bool>,
    /// The pairs ordered differently, as "a > b in the paper".
    pub ordering_differences: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct TableReport {
    pub part: Part,
    pub title: String,
    pub protocols: Vec<String>,
    pub rows: Vec<RowReport>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub seeds: u64,
    /// The host profile of every run.
    pub host: String,
    pub tables: Vec<TableReport>,
    pub claims: Vec<Claim>,
}

impl Report {
    /// Mean throughput of a cell, if it was run.
    pub fn mean(&self, part: Part, row: &str, protocol: Protocol) -> Option<f64> {
        self.cell(part, row, protocol)
            .map(|c| c.throughput_mbps.mean)
    }

    pub fn cell(&self, part: Part, row: &str, protocol: Protocol) -> Option<&CellReport> {
        self.tables
            .iter()
            .find(|t| t.part == part)?
            .rows
            .iter()
            .find(|r| r.row == row)?
            .cells
            .iter()
            .find(|c| c.protocol == protocol.name())
    }
}

/// Builds the report from the runs of each experiment (in the order of [`experiments`]).
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_paper_cell_has_an_experiment() {
        let exps = experiments(&Part::ALL);
        let paper = Paper000::load().expect("paper data");
        for (proto, cfg) in paper.cells.keys() {
            assert!(
                exps.iter()
                    .any(|e| e.protocol.name() == proto && &e.row == cfg && e.part != Part::Fig12),
                "{proto} {cfg}"
            );
        }
        assert!(!exps
            .iter()
            .any(|e| e.protocol == Protocol::E2eSmart && e.row == "wan-32k"));
        assert_eq!(exps.iter().filter(|e| e.part == Part::Fig12).count(), 30);
    }

    #[test]
    fn parts_parse() {
        assert_eq!(Part::parse("all").map(|v| v.len()), Ok(5));
        assert_eq!(Part::parse("Table3"), Ok(vec![Part::Table3]));
        assert!(Part::parse("table9").is_err());
    }
}
