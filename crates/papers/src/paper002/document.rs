//! Paper 002 as a study: Table 1, Figs. 7 and 11 as a table and a chart, Fig. 10's latencies, the
//! baselines of section 8 and the crash as tables beside the paper's numbers, its claims, and the
//! traces of Figs. 8 and 9.

use snooplab_proto::tcp::HostPreset;
use snooplab_proto::time::SEC;
use snooplab_proto::Time;
use snooplab_sim::stats::Summary;
use snooplab_sim::Job;

use super::data::ABOUT;
use super::experiments::{
    network, Experiment, CRASH_AT, CRASH_DOWN, LATENCY_HANDOFF, LATENCY_START,
};
use super::plan::{parts, Plan002};
use super::readings::section;
use super::report::{Report002, SweepPoint};
use crate::claim::Claim;
use crate::document::{Cell, Chart, Document, Line, Row, Sweep, Table};
use crate::study::{About, Common, Planned, Study, StudyReport};

/// Paper 002 for `reproduce`.
pub struct Reproduction;

impl Study for Reproduction {
    fn about(&self) -> &'static About {
        &ABOUT
    }
    fn check_parts(&self, words: &[String]) -> Result<(), String> {
        parts(words).map(|_| ())
    }
    fn plan(&self, words: &[String], common: &Common) -> Result<Box<dyn Planned>, String> {
        Ok(Box::new(Plan002::new(words, common)?))
    }
}

impl StudyReport for Report002 {
    fn claims(&self) -> &[Claim] {
        &self.claims
    }
    fn document(&self) -> Document {
        document(self)
    }
}

fn document(r: &Report002) -> Document {
    let mut d = Document::default();
    d.text(format!(
        "Section 7: the fixed host sends 10 MB to the mobile host through its home agent and two \
         base stations (10 Mb/s Ethernet, 2 Mb/s WaveLAN cells on one radio channel), 1460-byte \
         segments, 64 KB windows (the default window reading; the old primary's queue drains, the default \
         of that reading), the mobile host's one card queuing for both cells, Reno with {} hosts, snoop as \
         section 6 sets it, {} seeds; ± the \
         95% interval ('!n': n runs incomplete or with a failed check; n/a: every run failed).",
        r.host, r.seeds
    ));
    d.page_only(
        "The home agent tunnels every packet to the mobile host's multicast group of the two base \
         stations; the primary forwards, the other keeps the last 12 packets and mirrors snoop's \
         cache. Beacons once per second.",
    );
    if !r.table1.is_empty() {
        d.heading(
            "Table 1: handoffs between the two base stations at a fixed interval, no bit errors, \
             snoop",
        );
        d.table(table1(r));
    }
    if !r.sweep.is_empty() {
        d.heading(
            "Figs. 7 and 11: Mb/s across bit-error rates (exponential errors both ways); Fig. 11 \
             hands off every 5 s",
        );
        d.table(sweep_table(r));
        d.chart(
            Chart::Sweep(sweep_chart(r)),
            "fig7-fig11",
            "Throughput against the mean bytes between bit errors (Figs. 7 and 11)",
        );
    }
    if r.latency.is_some() {
        d.heading(format!(
            "Fig. 10: handoff latency (a handoff every {}, the transfer starting at {})",
            secs(LATENCY_HANDOFF),
            secs(LATENCY_START)
        ));
        d.table(latency_table(r));
    }
    if !r.baselines.is_empty() {
        baselines(&mut d, r);
    }
    if !r.crash.is_empty() {
        d.heading("A base station crash");
        d.text(format!(
            "The primary base station loses everything {} into the transfer and comes back {} \
             later (no handoffs, no errors).",
            secs(CRASH_AT),
            secs(CRASH_DOWN)
        ));
        d.table(crash_table(r));
    }
    d.claims(&r.claims);
    section(&mut d, r);
    d.text("(docs/paper002.md explains each result.)");
    examples(&mut d, r);
    d
}

/// A time as the tables write it: `5 s`.
fn secs(t: Time) -> String {
    format!("{} s", t as f64 / SEC as f64)
}

/// ` !n` after a value some of whose `n` runs failed; nothing when none did.
fn flag(failures: usize) -> String {
    if failures > 0 {
        format!(" !{failures}")
    } else {
        String::new()
    }
}

fn table1(r: &Report002) -> Table {
    let mut rows: Vec<Row> = r
        .table1
        .iter()
        .map(|row| {
            Row::cells([
                row.label(),
                format!("{}{}", row.throughput_mbps.mean_ci(3), flag(row.failures)),
                format!("{:.3}", row.stddev_mbps),
                row.paper_text(),
                format!("{:.0}", row.local_retransmissions.mean),
                format!("{:.0}", row.ring_sent.mean),
            ])
        })
        .collect();
    if r.table1.iter().any(|row| !row.shared_channel) {
        rows.push(Row::Note(
            "two media: each cell on a medium of its own, a check of ours (the paper's cells \
             share one channel)"
                .into(),
        ));
    }
    Table {
        title: None,
        columns: [
            "time between handoffs",
            "Mb/s",
            "std dev",
            "paper Mb/s",
            "local retransmissions",
            "buffered packets sent",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    }
}

/// A series of Figs. 7 and 11 at one error rate: `n/a` when every run failed, its failures
/// flagged (`!n`) as the other tables flag theirs, `-` when not run.
fn series(x: &Option<Summary>, failures: usize, runs: u64) -> String {
    match x {
        Some(s) => format!("{}{}", s.mean_ci(3), flag(failures)),
        None if failures > 0 && failures as u64 == runs => format!("n/a{}", flag(failures)),
        None => "-".into(),
    }
}

fn sweep_table(r: &Report002) -> Table {
    let rows = r
        .sweep
        .iter()
        .map(|p| {
            Row::cells([
                format!("{} Kb", p.kbits_between_errors),
                format!("{:.1e}", 1.0 / (p.kbits_between_errors as f64 * 1024.0)),
                series(&p.reno_mbps, p.reno_failures, r.seeds),
                series(&p.snoop_mbps, p.snoop_failures, r.seeds),
                series(&p.snoop_handoff_mbps, p.snoop_handoff_failures, r.seeds),
                // no ratio where Reno has no throughput to divide by
                p.snoop_over_reno.as_ref().map_or_else(
                    || if p.reno_mbps.is_some() { "-" } else { "n/a" }.to_string(),
                    |x| x.mean_ci(2),
                ),
            ])
        })
        .collect();
    Table {
        title: None,
        columns: [
            "1 error every",
            "BER",
            "Reno",
            "snoop",
            "snoop, handoffs",
            "snoop / Reno",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    }
}

/// Figs. 7 and 11 as a chart: a line per series that has a point.
fn sweep_chart(r: &Report002) -> Sweep {
    let line = |name: &str, get: &dyn Fn(&SweepPoint) -> Option<Summary>| Line {
        name: name.into(),
        points: r
            .sweep
            .iter()
            .filter_map(|p| {
                get(p).map(|s| {
                    (
                        p.kbits_between_errors * 1024 / 8,
                        s.mean,
                        s.ci95.unwrap_or(0.0),
                    )
                })
            })
            .collect(),
    };
    Sweep {
        title: "Paper 002 Figs. 7 and 11: throughput at the mobile host".into(),
        lines: [
            line("Reno", &|p| p.reno_mbps),
            line("snoop", &|p| p.snoop_mbps),
            line("snoop, handoff every 5 s", &|p| p.snoop_handoff_mbps),
        ]
        .into_iter()
        .filter(|l| !l.points.is_empty())
        .collect(),
    }
}

fn latency_table(r: &Report002) -> Table {
    let rows = r.latency.as_ref().map_or_else(Vec::new, |l| {
        vec![
            Row::cells([
                "idle (decision to confirmation)".to_string(),
                l.idle_ms.mean_ci(2),
                "5-10".into(),
            ]),
            Row::cells([
                "during a transfer, to the confirmation".to_string(),
                l.transfer_confirm_ms.mean_ci(2),
                "25-70".into(),
            ]),
            Row::cells([
                "during a transfer, to the first packet from the new base station".to_string(),
                l.transfer_first_packet_ms.mean_ci(2),
                "25-70".into(),
            ]),
        ]
    });
    Table {
        title: None,
        columns: ["", "ours, ms", "paper, ms"].map(String::from).to_vec(),
        rows,
    }
}

/// Section 8's baselines: what each scheme is, then its row, a split row followed by what its
/// handoffs cost.
fn baselines(d: &mut Document, r: &Report002) {
    d.heading("Baselines (section 8)");
    d.text(
        "Snoop at the base stations (split: a split connection), no bit errors, a handoff every 1 \
         or 5 s.",
    );
    d.page_only(
        "hard: plain Mobile IP, the home agent tunnels to the primary alone, nothing is buffered \
         and the old cell's packets are lost; fast-retransmit: the same, and the mobile host sends \
         three duplicate ACKs once the handoff is confirmed (Caceres and Iftode); split: a split \
         connection (I-TCP) whose state moves to the new base station in 265 ms plus 36 ms per KB \
         it holds.",
    );
    let mut rows = vec![];
    for b in &r.baselines {
        rows.push(Row::cells([
            b.scheme.clone(),
            format!("{} s", b.seconds),
            format!("{}{}", b.throughput_mbps.mean_ci(3), flag(b.failures)),
            format!("{:.2}", b.over_multicast.mean),
            format!("{:.1}", b.timeouts.mean),
            format!("{:.1}", b.fast_retransmits.mean),
            format!("{:.0}", b.sender_retransmitted_segments.mean),
        ]));
        if let (Some(c), Some(t)) = (&b.cost_per_handoff_s, &b.state_transfer_s) {
            rows.push(Row::Note(format!(
                "each handoff cost {:.3} s; the state transfer took {:.3} s",
                c.mean, t.mean
            )));
        }
    }
    d.table(Table {
        title: None,
        columns: [
            "scheme",
            "interval",
            "Mb/s",
            "/ multicast",
            "timeouts",
            "fast retransmissions",
            "retransmitted segments",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    });
}

fn crash_table(r: &Report002) -> Table {
    let mut rows = vec![];
    for c in &r.crash {
        rows.push(Row::Cells(vec![
            Cell::from(c.agent.clone()),
            format!("{} of {}", c.intact, c.runs).into(),
            format!("{:.0}", c.bytes_lost.mean).into(),
            format!("{:.0}", c.crash_drops.mean).into(),
            c.throughput_mbps
                .as_ref()
                .map_or_else(|| "n/a".to_string(), |s| s.mean_ci(3))
                .into(),
        ]));
        if let Some(m) = &c.first_failure {
            rows.push(Row::Note(format!("({m})")));
        }
    }
    Table {
        title: None,
        columns: [
            "agent",
            "intact runs",
            "bytes acknowledged, never delivered",
            "packets lost in the crash",
            "Mb/s",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    }
}

/// Figs. 8 and 9: three runs of seed 1 traced, every host on the report's profile.
fn examples(d: &mut Document, r: &Report002) {
    d.heading("Figs. 8 and 9: inside three runs");
    d.page_only(
        "Seed 1. Fig. 8: one error per 256 Kbits, Reno with routers and with snoop at the base \
         stations, no handoffs. Fig. 9: no errors, a handoff every 10 s (the times are in the \
         run's handoffs.csv).",
    );
    let host = HostPreset::ALL
        .iter()
        .find(|p| r.host.starts_with(p.name()))
        .copied();
    for (job, file) in [
        (Experiment::Sweep(256, false, None), "fig8-reno"),
        (Experiment::Sweep(256, true, None), "fig8-snoop"),
        (Experiment::Table1(Some(10 * SEC), true), "fig9-handoffs"),
    ] {
        let mut net = network(job, 1);
        if let Some(h) = host {
            for f in &mut net.flows {
                f.host_preset = h;
                f.host = h.profile();
            }
        }
        d.example(Job::new(net, Plan002::ENV), file);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::Block;
    use crate::paper002::report::{BaselineRow, CrashRow, Latency, Table1Row};
    use snooplab_sim::stats::summarize;

    fn s(xs: &[f64]) -> Summary {
        summarize(xs)
    }

    fn table1_row(seconds: Option<f64>, shared_channel: bool, failures: usize) -> Table1Row {
        Table1Row {
            seconds,
            beacons: true,
            shared_channel,
            throughput_mbps: s(&[1.4, 1.5]),
            stddev_mbps: 0.07,
            paper_mbps: shared_channel.then_some(1.42),
            paper_stddev_mbps: shared_channel.then_some(0.011),
            local_retransmissions: s(&[10.0, 12.0]),
            ring_sent: s(&[5.0, 7.0]),
            failures,
        }
    }

    fn baseline(scheme: &str, split: bool) -> BaselineRow {
        BaselineRow {
            scheme: scheme.into(),
            seconds: 5.0,
            throughput_mbps: s(&[0.7, 0.8]),
            timeouts: s(&[20.0, 25.0]),
            fast_retransmits: s(&[0.0, 0.0]),
            sender_retransmitted_segments: s(&[30.0, 40.0]),
            over_multicast: s(&[0.5, 0.6]),
            cost_per_handoff_s: split.then(|| s(&[2.0, 3.0])),
            state_transfer_s: split.then(|| s(&[2.5, 2.5])),
            failures: 0,
        }
    }

    /// Two seeds: Reno failed in both at the highest error rate, snoop in one; no Fig. 11.
    fn report() -> Report002 {
        let point = |kb: u64, reno: Option<Summary>, reno_failures: usize| SweepPoint {
            kbits_between_errors: kb,
            snoop_over_reno: reno.map(|_| s(&[2.0, 3.0])),
            reno_mbps: reno,
            snoop_mbps: Some(s(&[0.2, 0.3])),
            snoop_handoff_mbps: None,
            failures: reno_failures + 1,
            reno_failures,
            snoop_failures: 1,
            snoop_handoff_failures: 0,
        };
        Report002 {
            seeds: 2,
            host: "freebsd-2.2 (FreeBSD 2.2.8)".into(),
            table1: vec![table1_row(Some(1.0), true, 1), table1_row(None, false, 0)],
            sweep: vec![point(16, None, 2), point(64, Some(s(&[0.1, 0.2])), 0)],
            latency: Some(Latency {
                idle_ms: s(&[4.0, 5.0]),
                transfer_confirm_ms: s(&[7.0, 8.0]),
                transfer_first_packet_ms: s(&[20.0, 21.0]),
            }),
            baselines: vec![baseline("multicast", false), baseline("split", true)],
            crash: vec![CrashRow {
                agent: "split".into(),
                intact: 0,
                runs: 2,
                bytes_lost: s(&[60000.0, 61000.0]),
                crash_drops: s(&[44.0, 44.0]),
                throughput_mbps: None,
                first_failure: Some("flow0: reset".into()),
            }],
            claims: vec![],
            readings: vec![],
        }
    }

    fn tables(d: &Document) -> Vec<&Table> {
        d.blocks
            .iter()
            .filter_map(|b| match b {
                Block::Table(t) => Some(t),
                _ => None,
            })
            .collect()
    }

    fn texts(r: &Row) -> Vec<&str> {
        match r {
            Row::Cells(c) | Row::Under(c) => c.iter().map(|c| c.text.as_str()).collect(),
            Row::Note(n) => vec![n.as_str()],
        }
    }

    #[test]
    fn the_document_flags_failed_runs_and_keeps_every_part() {
        let d = document(&report());
        let t = tables(&d);
        assert_eq!(
            t.len(),
            6,
            "Table 1, Figs. 7/11, Fig. 10, baselines, crash, the readings"
        );
        // Table 1: a failure flagged; the two-media row explained under the table
        assert_eq!(texts(&t[0].rows[0])[1], "1.450 ± 0.635 !1");
        assert!(matches!(t[0].rows.last(), Some(Row::Note(n)) if n.starts_with("two media")));
        // the sweep: every Reno run failed (n/a, flagged), one snoop run failed, Fig. 11 not run
        assert_eq!(
            texts(&t[1].rows[0]),
            ["16 Kb", "6.1e-5", "n/a !2", "0.250 ± 0.635 !1", "-", "n/a"]
        );
        assert_eq!(texts(&t[1].rows[1])[2], "0.150 ± 0.635");
        // Fig. 10 beside the paper's ranges
        assert_eq!(texts(&t[2].rows[2])[1..], ["20.50 ± 6.35", "25-70"]);
        // the split baseline's handoff cost under its row
        assert_eq!(
            texts(&t[3].rows[2]),
            ["each handoff cost 2.500 s; the state transfer took 2.500 s"]
        );
        // a crash with no intact run has no throughput, and says why the first run stopped
        assert_eq!(texts(&t[4].rows[0])[1..], ["0 of 2", "60500", "44", "n/a"]);
        assert_eq!(texts(&t[4].rows[1]), ["(flow0: reset)"]);
    }

    #[test]
    fn the_chart_has_a_line_per_series_run_and_the_examples_use_the_reports_hosts() {
        let d = document(&report());
        let sweep = d.blocks.iter().find_map(|b| match b {
            Block::Chart {
                chart: Chart::Sweep(s),
                file,
                ..
            } => Some((s, file)),
            _ => None,
        });
        let Some((sweep, file)) = sweep else {
            panic!("no chart")
        };
        assert_eq!(file, "fig7-fig11");
        let names: Vec<&str> = sweep.lines.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["Reno", "snoop"], "Fig. 11 was not run");
        // Reno has no point where every run failed; x is bytes between errors
        assert_eq!(sweep.lines[0].points.len(), 1);
        assert_eq!(sweep.lines[0].points[0].0, 64 * 1024 / 8);
        let examples: Vec<(&Job, &str)> = d
            .blocks
            .iter()
            .filter_map(|b| match b {
                Block::Example { job, file, .. } => Some((job.as_ref(), file.as_str())),
                _ => None,
            })
            .collect();
        let files: Vec<&str> = examples.iter().map(|e| e.1).collect();
        assert_eq!(files, ["fig8-reno", "fig8-snoop", "fig9-handoffs"]);
        for (job, _) in examples {
            assert_eq!(job.env, Plan002::ENV);
            assert!(job
                .network
                .flows
                .iter()
                .all(|f| f.host_preset == HostPreset::Freebsd22));
        }
    }
}
