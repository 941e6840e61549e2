//! Paper 001 as a study: Figs. 15-17 (retransmissions, fast retransmits per timeout, N_dup) and
//! Figs. 18-19 (aggregate throughput by number of hosts and transfer size) as tables and charts,
//! EFR's gain over Reno beside the paper's, the claims, traced runs of three Reno and three EFR
//! senders, and `runs.csv` (one line per flow).

use std::fmt::Write as _;

use snooplab_sim::{Job, Protocol, RunResult};

use super::data::ABOUT;
use super::experiments::{Experiment, Part, RETRANSMISSION_TRANSFER};
use super::plan::{paper001_network, parts, Plan001, Run001};
use super::readings::{section, Mac};
use super::report::Report;
use super::tables::tables;
use crate::claim::Claim;
use crate::document::{Bar, BarSeries, Bars, Chart, Document};
use crate::study::{About, Common, Outcome, Planned, Study};

/// Paper 001 for `reproduce`.
pub struct Reproduction;

impl Study for Reproduction {
    fn about(&self) -> &'static About {
        &ABOUT
    }
    fn check_parts(&self, words: &[String]) -> Result<(), String> {
        parts(words).map(|_| ())
    }
    fn plan(&self, words: &[String], common: &Common) -> Result<Box<dyn Planned>, String> {
        Ok(Box::new(Plan001::new(words, common)?))
    }
}

impl Outcome for Run001 {
    fn claims(&self) -> &[Claim] {
        &self.report.claims
    }
    fn json(&self) -> Result<serde_json::Value, String> {
        serde_json::to_value(&self.report).map_err(|e| format!("cannot encode report: {e}"))
    }
    fn files(&self) -> Result<Vec<(String, String)>, String> {
        Ok(vec![
            (
                "report.json".into(),
                serde_json::to_string_pretty(&self.report)
                    .map_err(|e| format!("cannot encode report: {e}"))?,
            ),
            ("runs.csv".into(), runs_csv(&self.exps, &self.per)),
        ])
    }
    fn document(&self) -> Document {
        let mut d = document(&self.report);
        if self.report.retransmissions.iter().any(|row| row.hosts == 3) {
            traced_runs(&mut d, self);
        }
        d
    }
}

fn document(r: &Report) -> Document {
    let mut d = Document::default();
    d.text(format!(
        "n mobile FreeBSD 2.2 senders to one host through one WaveLAN cell (CSMA/CA), 1440-byte \
         segments, 16 KB windows, the isa-82586 MAC (the default reading), mean of {} trials ('!n': n runs incomplete or with a failed \
         invariant).",
        r.seeds
    ));
    d.page_only(
        "The paper's figures are not in our copy of it, only the numbers its text quotes: they are \
         in the claims below. docs/paper001.md explains each result.",
    );
    tables(&mut d, r);
    for (file, chart, caption) in charts(r) {
        d.chart(Chart::Bars(chart), file, caption);
    }
    d.claims(&r.claims);
    section(&mut d, r);
    d
}

/// Three Reno and three EFR senders traced (10 MB each, seed 1): host 1's plots on the page, as
/// the paper's Figs. 2-5 and 7-11.
fn traced_runs(d: &mut Document, run: &Run001) {
    d.heading("Traced runs: three hosts, 10 MB each, seed 1");
    d.page_only(
        "Host 1's sequence numbers and snd_cur, as the paper's Figs. 2-5 and 7-11; every host's \
         plots are written beside the page.",
    );
    for protocol in [Protocol::E2e, Protocol::Efr] {
        let e = Experiment {
            part: Part::Retransmissions,
            hosts: 3,
            protocol,
            transfer: RETRANSMISSION_TRANSFER,
            mac: Mac::Isa82586,
        };
        let job = Job::new(paper001_network(&e, 1, run.host), Plan001::ENV);
        d.example_of_flow(
            job,
            format!("trace-3-hosts-{}", protocol.name()),
            0,
            "host 1 of 3",
        );
    }
}

/// The protocols in the order the report has them.
fn protocols<'a>(names: impl Iterator<Item = &'a String>) -> Vec<String> {
    let mut out: Vec<String> = vec![];
    for n in names {
        if !out.contains(n) {
            out.push(n.clone());
        }
    }
    out
}

/// A protocol as the paper and docs/paper001.md name it (Reno is the end-to-end sender).
fn display(protocol: &str) -> String {
    match protocol {
        "e2e" => "Reno".into(),
        "er-lt" => "ER+LT".into(),
        p => p.to_uppercase(),
    }
}

/// One series per protocol, a bar per group key, each found by `bar`.
fn series_by<K: Copy>(
    protos: &[String],
    keys: &[K],
    bar: impl Fn(&str, K) -> Option<Bar>,
) -> Vec<BarSeries> {
    protos
        .iter()
        .map(|p| BarSeries {
            name: display(p),
            bars: keys.iter().map(|&k| bar(p, k)).collect(),
        })
        .collect()
}

fn hosts_label(n: usize) -> String {
    if n == 1 {
        "1 host".into()
    } else {
        format!("{n} hosts")
    }
}

/// Figs. 15-19 as bar charts: (file, chart, caption).
fn charts(r: &Report) -> Vec<(String, Bars, String)> {
    let mut out = retransmission_charts(r);
    out.extend(size_charts(r));
    out
}

/// Figs. 15-17 from the retransmission rows.
fn retransmission_charts(r: &Report) -> Vec<(String, Bars, String)> {
    let mut out = vec![];
    let rows = &r.retransmissions;
    if rows.is_empty() {
        return out;
    }
    let protos = protocols(rows.iter().map(|x| &x.protocol));
    let mut hosts: Vec<usize> = rows.iter().map(|x| x.hosts).collect();
    hosts.dedup();
    let row = |p: &str, n: usize| rows.iter().find(|x| x.hosts == n && x.protocol == p);
    let groups: Vec<String> = hosts.iter().map(|n| hosts_label(*n)).collect();
    out.push((
        "fig15".into(),
        Bars {
            title: "Fig. 15: segments retransmitted per host (10 MB each)".into(),
            y_desc: "retransmitted segments".into(),
            groups: groups.clone(),
            series: series_by(&protos, &hosts, |p, n| {
                row(p, n).map(|x| Bar::mean_ci(&x.retransmitted_segments_per_host))
            }),
        },
        "Fig. 15: segments each host's sender retransmitted, mean of the trials".into(),
    ));
    out.push((
        "fig16".into(),
        Bars {
            title: "Fig. 16: fast retransmits per timeout".into(),
            y_desc: "fast retransmits / timeouts".into(),
            groups,
            series: series_by(&protos, &hosts, |p, n| {
                // no bar where there was no timeout to divide by
                row(p, n).and_then(|x| x.fast_per_timeout.map(Bar::plain))
            }),
        },
        "Fig. 16: fast retransmits per timeout, all hosts and trials together".into(),
    ));
    for &n in hosts.iter().filter(|&&n| n > 1) {
        let protos: Vec<String> = protos
            .iter()
            .filter(|p| row(p, n).is_some())
            .cloned()
            .collect();
        let paper = if n == 2 {
            " (the paper: N_dup(1) 12 -> 8 and N_dup(2) 30 -> 7 with EFR)"
        } else {
            ""
        };
        out.push((
            format!("fig17-{n}-hosts"),
            Bars {
                title: format!("Fig. 17: N_dup(i), {}", hosts_label(n)),
                y_desc: "timeouts per host".into(),
                groups: ["i = 0", "i = 1", "i = 2", "i >= 3"]
                    .map(String::from)
                    .to_vec(),
                series: series_by(&protos, &[0, 1, 2, 3], |p, i: usize| {
                    row(p, n).map(|x| Bar::plain(x.n_dup_per_host[i]))
                }),
            },
            format!(
                "Fig. 17: timeouts after i duplicate ACKs per host and trial, {}{paper}",
                hosts_label(n)
            ),
        ));
    }
    out
}

/// Figs. 18 and 19 from the size rows.
fn size_charts(r: &Report) -> Vec<(String, Bars, String)> {
    let mut out = vec![];
    let sizes = &r.sizes;
    if sizes.is_empty() {
        return out;
    }
    let protos = protocols(sizes.iter().map(|x| &x.protocol));
    let mut hosts: Vec<usize> = sizes.iter().map(|x| x.hosts).collect();
    hosts.sort_unstable();
    hosts.dedup();
    let mut bytes: Vec<u64> = sizes.iter().map(|x| x.transfer_bytes).collect();
    bytes.sort_unstable();
    bytes.dedup();
    let size = |p: &str, n: usize, b: u64| {
        sizes
            .iter()
            .find(|x| x.transfer_bytes == b && x.hosts == n && x.protocol == p)
            .map(|x| &x.aggregate_throughput_mbps)
    };
    let eight = 8 << 20;
    if bytes.contains(&eight) {
        out.push((
            "fig18".into(),
            Bars {
                title: "Fig. 18: aggregate throughput of all hosts, 8 MB each".into(),
                y_desc: "throughput (Mb/s)".into(),
                groups: hosts.iter().map(|n| hosts_label(*n)).collect(),
                series: series_by(&protos, &hosts, |p, n| size(p, n, eight).map(Bar::mean_ci)),
            },
            "Fig. 18: aggregate throughput, 8 MB per host (the paper: EFR +14.4% with 3 hosts, \
             +12.2% with 4)"
                .into(),
        ));
    }
    for &n in &hosts {
        out.push((
            format!("fig19-{n}-hosts"),
            Bars {
                title: format!("Fig. 19: throughput by transfer size, {}", hosts_label(n)),
                y_desc: "throughput (Mb/s)".into(),
                groups: bytes.iter().map(|b| format!("{} MB", b >> 20)).collect(),
                series: series_by(&protos, &bytes, |p, b| size(p, n, b).map(Bar::mean_range)),
            },
            format!(
                "Fig. 19: aggregate throughput by size, {}, mean and range of the trials",
                hosts_label(n)
            ),
        ));
    }
    out
}

/// Every flow of every run, one line each.
fn runs_csv(exps: &[Experiment], per: &[Vec<RunResult>]) -> String {
    let mut csv = String::from(
        "part,hosts,protocol,transfer_bytes,seed,flow,throughput_mbps,aggregate_throughput_mbps,\
         retransmitted_segments,timeouts,fast_retransmits,fast_retransmits_below_three,\
         limited_transmits,ndup0,ndup1,ndup2,ndup3,wireless_data_frames,wireless_data_frames_lost,\
         wireless_data_frames_collided,invariants_ok,mac\n",
    );
    for (e, rs) in exps.iter().zip(per) {
        for r in rs {
            for f in &r.flows {
                let n = f.timeouts_after_dupacks;
                let _ = writeln!(
                    csv,
                    "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                    e.part.name(),
                    e.hosts,
                    r.flow().protocol,
                    e.transfer,
                    r.setup.seed,
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
                    f.invariants.ok(),
                    e.mac.name()
                );
            }
        }
    }
    csv
}
