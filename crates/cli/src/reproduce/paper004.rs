//! `snooplab reproduce paper004`: Fig. 2 (a mobile host sending over the WAN, Reno against
//! Reno+ELN and the NACK scheme across error rates) as a table with the ratios, the paper's two
//! statements checked, and its section of the report.

use std::fmt::Write as _;
use std::path::Path;

use snooplab_papers::paper004::{Report004, ABOUT_TWO, CLOSE};
use snooplab_papers::{Claim, Paper};

use snooplab_papers::paper004::{Plan004, Run004};
use snooplab_papers::select::Common;

use super::Reproduced;
use crate::files::write_file;

pub fn run(words: &[String], common: &Common) -> Result<(Box<dyn Reproduced>, usize), String> {
    let plan = Plan004::new(words, common)?;
    let jobs = plan.jobs();
    let runs = crate::parallel::run_jobs(&jobs, common.threads, "reproduce paper004")?;
    Ok((Box::new(plan.finish(runs)), jobs.len()))
}

const W: usize = 20;

/// The table's column heads: the protocol and what it is in the paper.
fn heading(name: &str) -> String {
    match name {
        "e2e" => "e2e (Reno)".into(),
        "bs-eln" => "bs-eln (Reno+ELN)".into(),
        "bs-nack" => "bs-nack (NACKs)".into(),
        other => other.into(),
    }
}

pub fn render(r: &Report004) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "snooplab reproduce: paper 004 (Balakrishnan and Katz 1998), Fig. 2: the mobile host sends 8 MB \
         to the fixed host over the WAN (one WaveLAN hop and 16 Internet hops, paper 000's WAN path), \
         32 KB buffers, 1400-byte segments, bit errors both ways, {} hosts, mean of {} seeds.\n\
         Each cell: throughput Mb/s ± the 95% interval; the ratios are per seed (the same seed is the \
         same error process), then averaged. The paper gives the figure, not its values.\n",
        r.host, r.seeds
    );
    let _ = write!(s, "{:<14}", "1 error every");
    for p in &r.protocols {
        let _ = write!(s, "{:<W$}", heading(p));
    }
    let _ = writeln!(s, "{:<16}{:<16}", "ELN / Reno", "NACK / Reno");
    for p in &r.points {
        let _ = write!(s, "{:<14}", format!("{} KB", p.kbytes_between_errors));
        for (i, t) in p.throughput_mbps.iter().enumerate() {
            let failed = p.failures.get(i).copied().unwrap_or(0);
            let bad = if failed > 0 {
                format!(" !{failed}")
            } else {
                String::new()
            };
            // every run failed: their 0 Mb/s is no measurement
            let value = if failed > 0 && failed == t.n {
                "n/a".to_string()
            } else {
                t.mean_ci(3)
            };
            let _ = write!(s, "{:<W$}", format!("{value}{bad}"));
        }
        let _ = writeln!(
            s,
            "{:<16}{:<16}",
            p.eln_over_reno.mean_ci(2),
            p.nack_over_reno.mean_ci(2)
        );
    }
    s.push('\n');
    s.push_str(&super::claims_text(&r.claims));
    let _ = writeln!(
        s,
        "  ('roughly a factor of 2' is read as {:.1}-{:.1}; 'not as pronounced' as within {:.0}% of Reno; \
         docs/paper004.md explains the misses.)\n",
        ABOUT_TWO.0,
        ABOUT_TWO.1,
        100.0 * CLOSE
    );
    s
}

impl Reproduced for Run004 {
    fn paper(&self) -> Paper {
        Paper::Paper004
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
        super::write_report_and_runs(dir, &self.report, &self.runs)?;
        let mut csv = String::from(
            "protocol,error_every_bytes,seed,throughput_mbps,wireless_goodput_pct,timeouts,\
             fast_retransmits,eln_retransmits,holes,eln_marked_acks,nacks,duration_s,invariants_ok\n",
        );
        for r in &self.runs {
            let _ = writeln!(
                csv,
                "{},{},{},{},{},{},{},{},{},{},{},{},{}",
                r.protocol,
                r.error_every_bytes,
                r.seed,
                r.throughput_mbps,
                r.wireless_goodput_pct,
                r.timeouts,
                r.fast_retransmits,
                r.eln_retransmits,
                r.holes,
                r.eln_marked_acks,
                r.nacks,
                r.duration_s,
                r.invariants.ok() && r.invariants.complete
            );
        }
        write_file(&dir.join("runs.csv"), &csv)
    }
    fn report_section(&self, dir: &Path) -> Result<String, String> {
        crate::report::paper004::section(dir, &self.report)
    }
}
