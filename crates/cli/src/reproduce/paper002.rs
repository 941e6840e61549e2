//! `snooplab reproduce paper002`: Table 1 (handoffs at a fixed interval), Figs. 7 and 11 (snoop and
//! Reno across bit-error rates, without and with handoffs) and Fig. 10 (handoff latency) of
//! Balakrishnan et al. 1995 as tables beside the paper's numbers, its claims checked, and its
//! section of the report.

use std::fmt::Write as _;
use std::path::Path;

use snooplab_papers::paper002::Report002;
use snooplab_papers::{Claim, Paper};

use snooplab_papers::paper002::{Plan002, Run002};
use snooplab_papers::select::Common;

use super::Reproduced;

pub fn run(words: &[String], common: &Common) -> Result<(Box<dyn Reproduced>, usize), String> {
    let plan = Plan002::new(words, common)?;
    let nets = plan.jobs();
    let runs = crate::parallel::run_jobs(&nets, common.threads, "reproduce paper002")?;
    Ok((Box::new(plan.finish(runs)), nets.len()))
}

fn mbps(s: &snooplab_sim::stats::Summary) -> String {
    s.mean_ci(3)
}

/// A series of Figs. 7 and 11 at one error rate: `n/a` when every run failed, its failures
/// flagged (`!n`) as the other tables flag theirs, `-` when not run.
fn series(x: &Option<snooplab_sim::stats::Summary>, failures: usize, runs: u64) -> String {
    let bad = if failures > 0 {
        format!(" !{failures}")
    } else {
        String::new()
    };
    match x {
        Some(s) => format!("{}{bad}", mbps(s)),
        None if failures > 0 && failures as u64 == runs => format!("n/a{bad}"),
        None => "-".into(),
    }
}

pub fn render(r: &Report002) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "snooplab reproduce: paper 002 (Balakrishnan, Seshan and Katz 1995): the fixed host \
         sends 10 MB to the mobile host through its home agent and two base stations (10 Mb/s \
         Ethernet, 2 Mb/s WaveLAN cells on one radio channel), 1460-byte segments, 64 KB windows, \
         Reno with {} hosts, snoop as section 6 sets it, {} seeds; ± the 95% interval.\n",
        r.host, r.seeds
    );
    if !r.table1.is_empty() {
        let _ = writeln!(
            s,
            "Table 1: handoffs between the two base stations at a fixed interval, no bit errors, snoop."
        );
        let _ = writeln!(
            s,
            "{:<22}{:<18}{:<10}{:<14}{:<16}{:<16}",
            "time between handoffs",
            "Mb/s",
            "std dev",
            "paper Mb/s",
            "local rexmits",
            "buffer sent"
        );
        for row in &r.table1 {
            let (label, paper) = (row.label(), row.paper_text());
            let bad = if row.failures > 0 {
                format!(" !{}", row.failures)
            } else {
                String::new()
            };
            let _ = writeln!(
                s,
                "{:<22}{:<18}{:<10}{:<14}{:<16}{:<16}",
                label,
                format!("{}{bad}", mbps(&row.throughput_mbps)),
                format!("{:.3}", row.stddev_mbps),
                paper,
                format!("{:.0}", row.local_retransmissions.mean),
                format!("{:.0}", row.ring_sent.mean)
            );
        }
        s.push('\n');
    }
    if !r.sweep.is_empty() {
        let _ = writeln!(
            s,
            "Figs. 7 and 11: Mb/s across bit-error rates (exponential errors both ways); Fig. 11 hands \
             off every 5 s."
        );
        let _ = writeln!(
            s,
            "{:<14}{:<12}{:<18}{:<18}{:<18}{:<16}",
            "1 error every", "BER", "Reno", "snoop", "snoop, handoffs", "snoop / Reno"
        );
        for p in &r.sweep {
            let _ = writeln!(
                s,
                "{:<14}{:<12}{:<18}{:<18}{:<18}{:<16}",
                format!("{} Kb", p.kbits_between_errors),
                format!("{:.1e}", 1.0 / (p.kbits_between_errors as f64 * 1024.0)),
                series(&p.reno_mbps, p.reno_failures, r.seeds),
                series(&p.snoop_mbps, p.snoop_failures, r.seeds),
                series(&p.snoop_handoff_mbps, p.snoop_handoff_failures, r.seeds),
                // no ratio where Reno has no throughput to divide by
                p.snoop_over_reno.as_ref().map_or_else(
                    || if p.reno_mbps.is_some() { "-" } else { "n/a" }.to_string(),
                    |x| x.mean_ci(2)
                )
            );
        }
        s.push('\n');
    }
    if let Some(l) = &r.latency {
        let _ = writeln!(
            s,
            "Fig. 10: handoff latency (a handoff every 10 s, the transfer starting at 35 s), ms: idle \
             {:.2} (decision to the new base station's confirmation); during the transfer {:.2} to the \
             confirmation, {:.2} to the first packet from the new base station. Paper: 5-10 idle, \
             25-70 during a transfer.\n",
            l.idle_ms.mean, l.transfer_confirm_ms.mean, l.transfer_first_packet_ms.mean
        );
    }
    if !r.baselines.is_empty() {
        let _ = writeln!(
            s,
            "Baselines (section 8): snoop at the base stations (split: a split connection), no bit errors, a \
             handoff every 1 or 5 s."
        );
        let _ = writeln!(
            s,
            "{:<18}{:<10}{:<18}{:<14}{:<12}{:<16}{:<14}",
            "scheme", "interval", "Mb/s", "/ multicast", "timeouts", "fast rexmits", "rexmitted"
        );
        for b in &r.baselines {
            let bad = if b.failures > 0 {
                format!(" !{}", b.failures)
            } else {
                String::new()
            };
            let _ = writeln!(
                s,
                "{:<18}{:<10}{:<18}{:<14}{:<12}{:<16}{:<14}",
                b.scheme,
                format!("{} s", b.seconds),
                format!("{}{bad}", mbps(&b.throughput_mbps)),
                format!("{:.2}", b.over_multicast.mean),
                format!("{:.1}", b.timeouts.mean),
                format!("{:.1}", b.fast_retransmits.mean),
                format!("{:.0}", b.sender_retransmitted_segments.mean)
            );
            if let (Some(c), Some(t)) = (&b.cost_per_handoff_s, &b.state_transfer_s) {
                let _ = writeln!(
                    s,
                    "{:<18}each handoff cost {:.3} s; the state transfer took {:.3} s",
                    "", c.mean, t.mean
                );
            }
        }
        s.push('\n');
    }
    if !r.crash.is_empty() {
        let _ = writeln!(s, "The primary base station crashes 5 s into the transfer and is back 1 s later (no handoffs, no errors).");
        for c in &r.crash {
            let _ = writeln!(
                s,
                "  {:<10} intact {}/{}  bytes acknowledged, never delivered {:.0}  packets lost in the crash {:.0}  Mb/s {}{}",
                c.agent,
                c.intact,
                c.runs,
                c.bytes_lost.mean,
                c.crash_drops.mean,
                c.throughput_mbps.as_ref().map_or_else(|| "n/a".into(), mbps),
                c.first_failure
                    .as_ref()
                    .map_or(String::new(), |m| format!("\n             ({m})"))
            );
        }
        s.push('\n');
    }
    s.push_str(&super::claims_text(&r.claims));
    let _ = writeln!(s, "  (docs/paper002.md explains each result.)\n");
    s
}

impl Reproduced for Run002 {
    fn paper(&self) -> Paper {
        Paper::Paper002
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
        super::write_report_and_runs(dir, &self.report, &self.runs)
    }
    fn report_section(&self, dir: &Path) -> Result<String, String> {
        crate::report::paper002::section(dir, &self.report)
    }
}
