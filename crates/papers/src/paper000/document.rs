//! Paper 000 as a study: every table beside the paper's numbers with each configuration stated,
//! a chart per table, the claims, the traces of an E2E and an LL-TCP-AWARE run, and the `--out`
//! files (runs.json with each run's part and row, runs.csv).

use std::fmt::Write as _;

use snooplab_sim::{Env, Job, Protocol, RunResult, Scenario};

use super::ablation;
use super::data::ABOUT;
use super::experiments::{Experiment, Part};
use super::plan::{parts, Plan000, Run000};
use super::report::{CellReport, Report, TableReport};
use crate::claim::Claim;
use crate::document::{Bar, BarSeries, Bars, Cell, Chart, Document, Line, Row, Sweep, Table};
use crate::study::{About, Common, Outcome, Planned, Study};
use crate::units::format_bytes as bytes;

/// Paper 000 for `reproduce`.
pub struct Reproduction;

impl Study for Reproduction {
    fn about(&self) -> &'static About {
        &ABOUT
    }
    fn check_parts(&self, words: &[String]) -> Result<(), String> {
        if ablation::named(words)? {
            return Ok(());
        }
        parts(words).map(|_| ())
    }
    fn plan(&self, words: &[String], common: &Common) -> Result<Box<dyn Planned>, String> {
        if ablation::named(words)? {
            return Ok(Box::new(ablation::AblationPlan::new(common)?));
        }
        Ok(Box::new(Plan000::new(words, common)?))
    }
}

impl Outcome for Run000 {
    fn claims(&self) -> &[Claim] {
        &self.report.claims
    }
    fn json(&self) -> Result<serde_json::Value, String> {
        serde_json::to_value(&self.report).map_err(|e| format!("cannot encode report: {e}"))
    }
    fn files(&self) -> Result<Vec<(String, String)>, String> {
        let runs: Vec<serde_json::Value> = self
            .exps
            .iter()
            .zip(&self.per)
            .flat_map(|(e, rs)| {
                rs.iter().map(
                    move |r| serde_json::json!({ "part": e.part.name(), "row": e.row, "run": r }),
                )
            })
            .collect();
        Ok(vec![
            (
                "runs.json".into(),
                serde_json::to_string(&runs).map_err(|e| format!("cannot encode runs: {e}"))?,
            ),
            (
                "report.json".into(),
                serde_json::to_string_pretty(&self.report)
                    .map_err(|e| format!("cannot encode report: {e}"))?,
            ),
            ("runs.csv".into(), runs_csv(&self.exps, &self.per)),
        ])
    }
    fn document(&self) -> Document {
        document(&self.report, &self.exps)
    }
}

/// What the cells and the `error` line say.
const LEGEND: &str = "Each cell: throughput Mb/s (wireless / wired goodput %); 'paper' is the \
paper's value. 'error': our throughput relative to the paper's, then 'ok' if within 15% or 'MISS', \
then for the goodputs 'gp ok' if both are within 1 point of the paper's or 'gp MISS' (no 'gp' where \
the paper gives no goodputs). '-': not run (the paper ran no E2E-SMART in the WAN).";

fn document(r: &Report, exps: &[Experiment]) -> Document {
    let mut d = Document::default();
    d.text(format!(
        "Tables II-V and Fig. 12: 8 MB transfers, 1400-byte segments, {} hosts, mean of {} seeds \
         (on the page, ± the 95% interval of the mean under each cell). {LEGEND}",
        r.host, r.seeds
    ));
    d.page_only("docs/paper000.md explains each miss.");
    for t in &r.tables {
        let configs: Vec<String> = t
            .rows
            .iter()
            .filter_map(|row| {
                exps.iter()
                    .find(|e| e.part == t.part && e.row == row.row)
                    .map(|e| format!("{}: {}", row.row, configuration(&e.scenario)))
            })
            .collect();
        d.page_only(configs.join(". "));
        d.table(table(t));
        let (chart, caption) = if t.part == Part::Fig12 {
            (
                Chart::Sweep(sweep_of_table(t)),
                "Throughput against error rate (ours)".to_string(),
            )
        } else {
            (
                Chart::Bars(bars_of_table(t)),
                format!("{}: ours (solid) beside the paper's (light)", t.title),
            )
        };
        d.chart(chart, t.part.name(), caption);
    }
    d.claims(&r.claims);
    d.heading("Inside two runs");
    d.page_only(
        "LAN, 32 KB buffers, one error every 64 KB, seed 1: the fixed host's sequence numbers \
         with every retransmission marked (as paper 000 Figs. 5 and 7), and its congestion window \
         (as Figs. 4 and 8). E2E stalls at each coarse timeout; with LL-TCP-AWARE (snoop) the base \
         station repairs the losses locally and the sender's line stays straight. Trace CSVs are \
         in the subdirectories.",
    );
    let host = exps.first().map(|e| e.scenario.host_preset);
    for (p, file) in [
        (Protocol::E2e, "example-e2e"),
        (Protocol::LlTcpAware, "example-ll-tcp-aware"),
    ] {
        let mut sc = Scenario::paper000(p, Env::Lan, 32768, 1);
        if let Some(h) = host {
            sc.set_host(h);
        }
        d.example(Job::from(&sc), file);
    }
    d
}

/// A table: per row ours, then (where the paper has values) the paper's, our distance from them
/// and whether the row's ordering agrees. A protocol a row lacks (E2E-SMART in the WAN) is `-`.
fn table(t: &TableReport) -> Table {
    let mut columns = vec![String::new()];
    columns.extend(t.protocols.iter().cloned());
    let mut rows = vec![];
    for row in &t.rows {
        let cell = |p: &String| row.cells.iter().find(|c| &c.protocol == p);
        let line = |name: &str, f: &dyn Fn(&CellReport) -> Cell| -> Vec<Cell> {
            let mut cells = vec![Cell::from(name)];
            cells.extend(t.protocols.iter().map(|p| cell(p).map_or("-".into(), f)));
            cells
        };
        rows.push(Row::Cells(line(&row.row, &|c| {
            Cell::with_detail(ours(c), format!("± {}", c.throughput_mbps.ci_text(3)))
        })));
        if row.cells.iter().any(|c| c.paper_throughput_mbps.is_some()) {
            rows.push(Row::Under(line("paper", &|c| theirs(c).into())));
            rows.push(Row::Under(line("error", &|c| {
                let v = verdict(c);
                let miss = v.contains("MISS");
                Cell::miss(v, miss)
            })));
            match row.ordering_agrees {
                Some(true) => rows.push(Row::Note("ordering agrees with the paper".into())),
                Some(false) => rows.push(Row::Note(format!(
                    "ordering DIFFERS: {}",
                    row.ordering_differences.join("; ")
                ))),
                None => {}
            }
        }
    }
    Table {
        title: Some(t.title.clone()),
        columns,
        rows,
    }
}

/// Our cell: throughput (wireless / wired goodput %), `!INV` if a run failed an invariant.
pub fn ours(c: &CellReport) -> String {
    let bad = if c.invariant_failures > 0 {
        " !INV"
    } else {
        ""
    };
    format!(
        "{:.3} ({:.1}/{:.1}){bad}",
        c.throughput_mbps.mean, c.wireless_goodput_pct.mean, c.wired_goodput_pct.mean
    )
}

/// The paper's cell, as much of it as the paper gives.
pub fn theirs(c: &CellReport) -> String {
    match (
        c.paper_throughput_mbps,
        c.paper_wireless_goodput_pct,
        c.paper_wired_goodput_pct,
    ) {
        (Some(t), Some(a), Some(b)) => format!("{t:.2} ({a:.1}/{b:.1})"),
        (Some(t), _, _) => format!("{t:.2}"),
        _ => "-".into(),
    }
}

/// Our distance from the paper and the verdicts on it.
pub fn verdict(c: &CellReport) -> String {
    let Some(e) = c.relative_error else {
        return "-".into();
    };
    let t = if c.throughput_within_tolerance == Some(true) {
        "ok"
    } else {
        "MISS"
    };
    let g = match c.goodput_within_tolerance {
        Some(true) => " gp ok",
        Some(false) => " gp MISS",
        None => "",
    };
    format!("{:+.0}% {t}{g}", 100.0 * e)
}

/// What the runs of a table row had in common, in words.
fn configuration(s: &Scenario) -> String {
    let env = match s.env {
        Env::Lan => "LAN (10 Mb/s Ethernet to the base station)",
        Env::Wan => "WAN (16 Internet hops, about 135 ms round trip, 1.39 Mb/s path)",
    };
    let errors = if s.error_every == 0 {
        "no errors".to_string()
    } else if s.burst > 1 {
        format!(
            "one error event every {} on average (exponential), each destroying {} frames",
            bytes(s.error_every),
            s.burst
        )
    } else {
        format!(
            "one bit error every {} on average (exponential), both directions",
            bytes(s.error_every)
        )
    };
    format!(
        "{env}; 2 Mb/s WaveLAN to the mobile host; {} socket buffers; {} B segments; {} \
         transfer; {errors}",
        bytes(u64::from(s.buffer)),
        s.mss,
        bytes(s.transfer)
    )
}

/// A throughput table as bars: a group per protocol, a series per row of the table.
fn bars_of_table(t: &TableReport) -> Bars {
    let series = t
        .rows
        .iter()
        .map(|row| BarSeries {
            name: row.row.clone(),
            bars: t
                .protocols
                .iter()
                .map(|p| {
                    row.cells.iter().find(|c| &c.protocol == p).map(|c| Bar {
                        paper: c.paper_throughput_mbps,
                        ..Bar::mean_ci(&c.throughput_mbps)
                    })
                })
                .collect(),
        })
        .collect();
    Bars {
        title: t.title.clone(),
        y_desc: "throughput (Mb/s)".into(),
        groups: t.protocols.clone(),
        series,
    }
}

/// Fig. 12 as a chart: a line per protocol across the error rates of its rows.
fn sweep_of_table(t: &TableReport) -> Sweep {
    let x: Vec<u64> = t
        .part
        .rows()
        .iter()
        .map(|(_, make)| make(Protocol::E2e).error_every)
        .collect();
    let lines = t
        .protocols
        .iter()
        .map(|proto| Line {
            name: proto.clone(),
            points: t
                .rows
                .iter()
                .zip(&x)
                .filter_map(|(r, &x)| {
                    r.cells.iter().find(|c| &c.protocol == proto).map(|c| {
                        let t = &c.throughput_mbps;
                        (x, t.mean, t.ci95.unwrap_or(0.0))
                    })
                })
                .collect(),
        })
        .collect();
    Sweep {
        title: t.title.clone(),
        lines,
    }
}

/// Every run with its part and row, one line each.
fn runs_csv(exps: &[Experiment], per: &[Vec<RunResult>]) -> String {
    let mut csv = String::from(
        "part,row,protocol,env,buffer_bytes,mss,transfer_bytes,error_every_bytes,burst,seed,\
         throughput_mbps,wireless_goodput_pct,wired_goodput_pct,timeouts,fast_retransmits,\
         local_retransmissions,dupacks_suppressed,duration_s,events,invariants_ok,\
         relay_timeouts,relay_fast_retransmits,relay_retransmitted_segments\n",
    );
    for (e, rs) in exps.iter().zip(per) {
        for r in rs {
            // a split run's relay sender (base station to mobile host); empty for the others
            let relay = r.flow().relay.as_ref().map_or_else(
                || ",,".to_string(),
                |c| {
                    format!(
                        "{},{},{}",
                        c.timeouts, c.fast_retransmits, c.retransmitted_segments
                    )
                },
            );
            let _ = writeln!(
                csv,
                "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{relay}",
                e.part.name(),
                e.row.replace(',', " "),
                r.flow().protocol,
                r.setup.env,
                r.flow().buffer_bytes,
                r.flow().mss,
                r.flow().transfer_bytes,
                r.setup.error_every_bytes,
                r.setup.burst,
                r.setup.seed,
                r.flow().throughput_mbps,
                r.flow().wireless_goodput_pct.unwrap_or(0.0),
                r.flow().wired_goodput_pct,
                r.flow().timeouts,
                r.flow().fast_retransmits,
                r.agent_total("local_retransmissions"),
                r.agent_total("dupacks_suppressed"),
                r.flow().duration_s,
                r.events,
                r.invariants.ok()
            );
        }
    }
    csv
}
