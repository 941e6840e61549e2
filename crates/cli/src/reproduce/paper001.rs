//! `snooplab reproduce paper001`: Figs. 15-19 of Tamura et al. as tables, ours beside the paper's
//! numbers where its text gives them, and its claims checked.

use std::fmt::Write as _;
use std::path::Path;

use snooplab_papers::paper001::{Experiment, Report};
use snooplab_papers::{Claim, Paper};
use snooplab_sim::RunResult;

use snooplab_papers::paper001::{Plan001, Run001};
use snooplab_papers::select::Common;

use super::Reproduced;
use crate::files::{create_dir, write_file};

/// Runs the chosen parts with every seed, every host with `--host`'s profile (default: the
/// paper's FreeBSD 2.2.1).
pub fn run(words: &[String], common: &Common) -> Result<(Box<dyn Reproduced>, usize), String> {
    let plan = Plan001::new(words, common)?;
    let jobs = plan.jobs();
    let results = crate::parallel::run_jobs(&jobs, common.threads, "reproduce")?;
    Ok((Box::new(plan.finish(&results)), jobs.len()))
}

impl Reproduced for Run001 {
    fn paper(&self) -> Paper {
        Paper::Paper001
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
        crate::report::paper001::section(dir, self, &self.text())
    }
}

fn mb(bytes: u64) -> u64 {
    bytes >> 20
}

/// A ratio or share that may have no denominator (no timeout, no loss): `n/a` then.
fn or_na(v: Option<f64>, f: impl Fn(f64) -> String) -> String {
    v.map_or_else(|| "n/a".to_string(), f)
}

/// The tables as text.
pub fn render(r: &Report) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "snooplab reproduce: paper 001 (Tamura et al. 1998), n mobile FreeBSD 2.2 senders to one \
         host through one WaveLAN cell (CSMA/CA), 1440-byte segments, 16 KB windows, mean of {} \
         trials.\n",
        r.seeds
    );
    if !r.retransmissions.is_empty() {
        let _ = writeln!(
            s,
            "Figs. 15-17: 10 MB per host, per host and trial: retransmitted segments (95% interval), \
             timeouts, fast retransmits (fr<3: at a threshold below 3), fast retransmits per \
             timeout, N_dup(0..3), loss per data frame (share from collisions), aggregate Mb/s"
        );
        let _ = writeln!(
            s,
            "{:<6}{:<7}{:>16}{:>9}{:>7}{:>7}{:>8}  {:<24}{:>16}{:>9}",
            "hosts",
            "proto",
            "rexmt segs",
            "timeouts",
            "fr",
            "fr<3",
            "fr/to",
            "N_dup(0,1,2,>=3)",
            "loss (coll.)",
            "Mb/s"
        );
        for row in &r.retransmissions {
            let n = row.n_dup_per_host;
            let _ = writeln!(
                s,
                "{:<6}{:<7}{:>16}{:>9.1}{:>7.1}{:>7.1}{:>8}  {:<24}{:>16}{:>9.3}{}",
                row.hosts,
                row.protocol,
                row.retransmitted_segments_per_host.mean_ci(1),
                row.timeouts_per_host.mean,
                row.fast_retransmits_per_host.mean,
                row.early_fast_retransmits_per_host,
                or_na(row.fast_per_timeout, |x| format!("{x:.2}")),
                format!("{:.1} {:.1} {:.1} {:.1}", n[0], n[1], n[2], n[3]),
                format!(
                    "{:.2e} ({})",
                    row.segment_loss_rate,
                    or_na(row.collided_share, |c| format!("{:.0}%", 100.0 * c))
                ),
                row.aggregate_throughput_mbps.mean,
                if row.failures > 0 {
                    format!(" !{}", row.failures)
                } else {
                    String::new()
                }
            );
        }
        let _ = writeln!(
            s,
            "  paper (2 hosts): N_dup(1) 12 -> 8 and N_dup(2) 30 -> 7 with EFR; retransmitted \
             segments about -10% with EFR for 2-4 hosts; one host alone loses 3.0e-4\n"
        );
    }
    if !r.sizes.is_empty() {
        let _ = writeln!(
            s,
            "Figs. 18-19: aggregate throughput of all hosts, Mb/s: mean ± 95% interval [range], \
             change from Reno"
        );
        let mut sizes: Vec<u64> = r.sizes.iter().map(|x| x.transfer_bytes).collect();
        sizes.dedup();
        for t in sizes {
            let _ = writeln!(s, "{} MB per host", mb(t));
            for row in r.sizes.iter().filter(|x| x.transfer_bytes == t) {
                let a = row.aggregate_throughput_mbps;
                let _ = writeln!(
                    s,
                    "  {} hosts {:<7}{:>8.3} ± {} [{:.3}, {:.3}] {:>8}   sum of hosts {:.3}{}",
                    row.hosts,
                    row.protocol,
                    a.mean,
                    a.ci_text(3),
                    a.min,
                    a.max,
                    or_na(row.gain_over_reno_pct, |g| format!("{g:+.1}%")),
                    row.sum_of_hosts_mbps.mean,
                    if row.failures > 0 {
                        format!(" !{}", row.failures)
                    } else {
                        String::new()
                    }
                );
            }
        }
        let _ = writeln!(s);
        for g in &r.gains {
            let _ = writeln!(
                s,
                "EFR over Reno, {} hosts, 8 MB: {:+.1}% ± {} (paper {:+.1}%): {}",
                g.hosts,
                g.gain_pct,
                or_na(g.gain_ci95_pct, |c| format!("{c:.1}")),
                g.paper_pct,
                if g.within_tolerance {
                    "within 5 points"
                } else {
                    "MISS"
                }
            );
        }
        let _ = writeln!(s);
    }
    if !r.claims.is_empty() {
        s.push_str(&super::claims_text(&r.claims));
        s.push('\n');
    }
    s
}

fn write_outputs(
    dir: &Path,
    exps: &[Experiment],
    per: &[Vec<RunResult>],
    report: &Report,
) -> Result<(), String> {
    create_dir(dir)?;
    write_file(
        &dir.join("report.json"),
        serde_json::to_string_pretty(report).map_err(|e| format!("cannot encode report: {e}"))?,
    )?;
    let mut csv = String::from(
        "part,hosts,protocol,transfer_bytes,seed,flow,throughput_mbps,aggregate_throughput_mbps,\
         retransmitted_segments,timeouts,fast_retransmits,fast_retransmits_below_three,\
         limited_transmits,ndup0,ndup1,ndup2,ndup3,wireless_data_frames,wireless_data_frames_lost,\
         wireless_data_frames_collided,invariants_ok\n",
    );
    for (e, rs) in exps.iter().zip(per) {
        for r in rs {
            for f in &r.flows {
                let n = f.timeouts_after_dupacks;
                let _ = writeln!(
                    csv,
                    "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                    e.part.name(),
                    e.hosts,
                    r.protocol,
                    e.transfer,
                    r.seed,
                    f.flow,
                    f.throughput_mbps,
                    r.aggregate.throughput_mbps,
                    f.sender_retransmitted_segments,
                    f.timeouts,
                    f.fast_retransmits,
                    f.fast_retransmits_below_three,
                    f.limited_transmits,
                    n[0],
                    n[1],
                    n[2],
                    n[3],
                    f.wireless_data_frames,
                    f.wireless_data_frames_lost,
                    f.wireless_data_frames_collided,
                    f.invariants.ok()
                );
            }
        }
    }
    write_file(&dir.join("runs.csv"), csv)
}
