//! `snooplab reproduce paper000`: the paper's tables with ours beside them, its claims checked, and
//! `--ablation`, what each host detail is worth.

use std::fmt::Write as _;
use std::path::Path;

use snooplab_papers::paper000::ablation::{ablation_jobs, Ablation, ABLATION_PARTS};
use snooplab_papers::paper000::{CellReport, Experiment, Paper000, Part, Report};
use snooplab_papers::{Claim, Paper};
use snooplab_proto::tcp::HostPreset;
use snooplab_sim::RunResult;

use snooplab_papers::paper000::{Plan000, Run000};
use snooplab_papers::select::Common;

use super::Reproduced;
use crate::cli::ReproduceArgs;
use crate::files::{create_dir, write_file};

/// The two profiles of `--ablation`, checked.
pub fn ablation_profiles(
    host: Option<HostPreset>,
    against: &str,
) -> Result<(HostPreset, HostPreset), String> {
    let from = host.unwrap_or_else(|| Paper::Paper000.default_host());
    let to = HostPreset::parse(against)?;
    if from == to {
        return Err(format!(
            "--ablation compares two host profiles, but --host and --against are both {}",
            from.name()
        ));
    }
    Ok((from, to))
}

/// Runs the chosen parts with every seed; returns the paper's outputs and the number of runs.
pub fn run(words: &[String], common: &Common) -> Result<(Box<dyn Reproduced>, usize), String> {
    let plan = Plan000::new(words, common)?;
    let jobs = plan.jobs();
    let results = crate::parallel::run_jobs(&jobs, common.threads, "reproduce")?;
    Ok((Box::new(plan.finish(&results)), jobs.len()))
}

impl Reproduced for Run000 {
    fn paper(&self) -> Paper {
        Paper::Paper000
    }
    fn claims(&self) -> &[Claim] {
        &self.report.claims
    }
    fn text(&self) -> String {
        render(&self.report)
    }
    fn json(&self) -> Result<serde_json::Value, String> {
        serde_json::to_value(&self.report).map_err(|e| format!("cannot encode report: {e}"))
    }
    fn write_outputs(&self, dir: &Path) -> Result<(), String> {
        write_outputs(dir, &self.exps, &self.per, &self.report)
    }
    fn report_section(&self, dir: &Path) -> Result<String, String> {
        crate::report::paper000::section(dir, &self.report, &self.exps)
    }
}

const W: usize = 24;

/// What the cells and the `error` line say.
pub const LEGEND: &str = "Each cell: throughput Mb/s (wireless / wired goodput %); 'paper' is the paper's value. \
'error': our throughput relative to the paper's, then 'ok' if within 15% or 'MISS', then for the \
goodputs 'gp ok' if both are within 1 point of the paper's or 'gp MISS' (no 'gp' where the paper gives \
no goodputs). '-': not run (the paper ran no E2E-SMART in the WAN).";

fn render(r: &Report) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "snooplab reproduce: paper 000 (Balakrishnan et al. 1997), 8 MB transfers, 1400-byte segments, \
         {} hosts, mean of {} seeds.\n{LEGEND}\n",
        r.host,
        r.seeds
    );
    for t in &r.tables {
        let _ = writeln!(s, "{}", t.title);
        let _ = write!(s, "{:<9}", "");
        for p in &t.protocols {
            let _ = write!(s, "{p:<W$}");
        }
        let _ = writeln!(s);
        for row in &t.rows {
            // each value under its protocol's heading: a row may lack a protocol (E2E-SMART in
            // the WAN), which is then marked, not skipped
            let line = |f: &dyn Fn(&CellReport) -> String| -> String {
                t.protocols
                    .iter()
                    .map(|p| {
                        let text = row
                            .cells
                            .iter()
                            .find(|c| &c.protocol == p)
                            .map_or_else(|| "-".to_string(), f);
                        format!("{text:<W$}")
                    })
                    .collect()
            };
            let _ = writeln!(s, "{:<9}{}", row.row, line(&ours));
            if row.cells.iter().any(|c| c.paper_throughput_mbps.is_some()) {
                let _ = writeln!(s, "{:<9}{}", "  paper", line(&theirs));
                let _ = writeln!(s, "{:<9}{}", "  error", line(&verdict));
                match row.ordering_agrees {
                    Some(true) => {
                        let _ = writeln!(s, "  ordering agrees with the paper");
                    }
                    Some(false) => {
                        let _ = writeln!(
                            s,
                            "  ordering DIFFERS: {}",
                            row.ordering_differences.join("; ")
                        );
                    }
                    None => {}
                }
            }
        }
        let _ = writeln!(s);
    }
    if !r.claims.is_empty() {
        s.push_str(&super::claims_text(&r.claims));
        s.push('\n');
    }
    s
}

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

fn write_outputs(
    dir: &Path,
    exps: &[Experiment],
    per: &[Vec<RunResult>],
    report: &Report,
) -> Result<(), String> {
    create_dir(dir)?;
    let write = |name: &str, text: &str| write_file(&dir.join(name), text);
    let runs: Vec<serde_json::Value> = exps
        .iter()
        .zip(per)
        .flat_map(|(e, rs)| {
            rs.iter()
                .map(move |r| serde_json::json!({ "part": e.part.name(), "row": e.row, "run": r }))
        })
        .collect();
    write(
        "runs.json",
        &serde_json::to_string(&runs).map_err(|e| format!("cannot encode runs: {e}"))?,
    )?;
    write(
        "report.json",
        &serde_json::to_string_pretty(report).map_err(|e| format!("cannot encode report: {e}"))?,
    )?;
    let mut csv = String::from(
        "part,row,protocol,env,buffer_bytes,mss,transfer_bytes,error_every_bytes,burst,seed,\
         throughput_mbps,wireless_goodput_pct,wired_goodput_pct,timeouts,fast_retransmits,\
         local_retransmissions,dupacks_suppressed,duration_s,events,invariants_ok,\
         relay_timeouts,relay_fast_retransmits,relay_retransmitted_segments\n",
    );
    for (e, rs) in exps.iter().zip(per) {
        for r in rs {
            // a split run's relay sender (base station to mobile host); empty for the others
            let relay = r.relay.as_ref().map_or_else(
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
                r.protocol,
                r.env,
                r.buffer_bytes,
                r.mss,
                r.transfer_bytes,
                r.error_every_bytes,
                r.burst,
                r.seed,
                r.throughput_mbps,
                r.wireless_goodput_pct,
                r.wired_goodput_pct,
                r.timeouts,
                r.fast_retransmits,
                r.local_retransmissions,
                r.dupacks_suppressed,
                r.duration_s,
                r.events,
                r.invariants.ok()
            );
        }
    }
    write("runs.csv", &csv)
}

/// `reproduce --ablation`: Tables III and IV with one host detail at a time switched between two
/// profiles, both ways.
pub fn ablation(a: &ReproduceArgs, common: &Common) -> Result<(), String> {
    let (from, to) = ablation_profiles(common.host, &a.against)?;
    let seeds = common.seeds(Paper::Paper000);
    let paper = Paper000::load()?;
    let jobs = ablation_jobs(from, to, seeds);
    let started = std::time::Instant::now();
    let results = crate::parallel::run_all(&jobs, a.threads, "reproduce")?;
    let ab = Ablation::evaluate(from, to, seeds, &results, &paper);
    if let Some(dir) = &a.out {
        let dir = dir.join(Paper::Paper000.name());
        create_dir(&dir)?;
        let json = serde_json::to_string_pretty(&ab)
            .map_err(|e| format!("cannot encode the ablation: {e}"))?;
        write_file(&dir.join("ablation.json"), json)?;
    }
    if a.json {
        let text =
            serde_json::to_string(&ab).map_err(|e| format!("cannot encode the ablation: {e}"))?;
        println!("{text}");
    } else {
        print!("{}", render_ablation(&ab));
        eprintln!(
            "{} runs in {:.1} s",
            jobs.len(),
            started.elapsed().as_secs_f64()
        );
    }
    Ok(())
}

fn render_ablation(ab: &Ablation) -> String {
    let mut s = String::new();
    let parts: Vec<&str> = ABLATION_PARTS.iter().map(|p| p.name()).collect();
    let _ = writeln!(
        s,
        "snooplab reproduce --ablation: paper 000 {} (8 MB, 1 error / 64 KB), mean of {} seeds.\n\
         Each table starts from one host profile and switches one detail at a time to the other \
         profile's value;\nthe detail columns give the change of the mean throughput from the \
         first column. '!n': n runs incomplete or with a failed invariant.\n",
        parts.join(" and "),
        ab.seeds
    );
    for (base, other) in [(&ab.from, &ab.to), (&ab.to, &ab.from)] {
        let idx = ab.group(base);
        let Some((&first, rest)) = idx.split_first() else {
            continue;
        };
        let _ = writeln!(s, "From {base}, one detail at a time set to {other}'s:");
        let labels: Vec<String> = rest
            .iter()
            .map(|&i| {
                let v = &ab.variants[i];
                format!(
                    "{}={}",
                    v.detail.clone().unwrap_or_default(),
                    v.value.clone().unwrap_or_default()
                )
            })
            .collect();
        let widths: Vec<usize> = labels.iter().map(|l| l.len().max(9) + 2).collect();
        let _ = write!(s, "{:<30}{:>7}{:>12}", "cell", "paper", base);
        for (l, w) in labels.iter().zip(&widths) {
            let _ = write!(s, "{l:>w$}");
        }
        let other_idx = ab.group(other).first().copied();
        let _ = writeln!(s, "{:>14}", other);
        let mut sums = vec![0.0; rest.len()];
        for c in &ab.cells {
            let cell = format!(
                "{} {} {}",
                if c.part == Part::Table3 { "III" } else { "IV" },
                c.row,
                c.protocol
            );
            let paper = c
                .paper_throughput_mbps
                .map_or("-".to_string(), |p| format!("{p:.2}"));
            let b = c.throughput_mbps[first].mean;
            let _ = write!(
                s,
                "{cell:<30}{paper:>7}{:>12}",
                format!("{b:.3}{}", fails(c.failures[first]))
            );
            for (k, (&i, w)) in rest.iter().zip(&widths).enumerate() {
                let v = c.throughput_mbps[i].mean;
                let change = if b > 0.0 { 100.0 * (v - b) / b } else { 0.0 };
                sums[k] += change.abs();
                let _ = write!(
                    s,
                    "{:>w$}",
                    format!("{change:+.1}%{}", fails(c.failures[i]))
                );
            }
            if let Some(o) = other_idx {
                let _ = write!(
                    s,
                    "{:>14}",
                    format!("{:.3}{}", c.throughput_mbps[o].mean, fails(c.failures[o]))
                );
            }
            let _ = writeln!(s);
        }
        let n = ab.cells.len().max(1) as f64;
        let _ = write!(s, "{:<49}", "mean |change| over the cells");
        for (sum, w) in sums.iter().zip(&widths) {
            let _ = write!(s, "{:>w$}", format!("{:.1}%", sum / n));
        }
        let _ = writeln!(s, "\n");
    }
    s
}

fn fails(n: usize) -> String {
    if n == 0 {
        String::new()
    } else {
        format!(" !{n}")
    }
}
