//! Paper 001 as a study: Figs. 15-17 (retransmissions, fast retransmits per timeout, N_dup) and
//! Figs. 18-19 (aggregate throughput by number of hosts and transfer size) as tables and charts,
//! EFR's gain over Reno beside the paper's, the claims, traced runs of three Reno and three EFR
//! senders, and `runs.csv` (one line per flow).

use std::fmt::Write as _;

use snooplab_sim::{Job, Protocol, RunResult};

use super::{paper001_network, Experiment, Part, Plan001, Report, Run001, RETRANSMISSION_TRANSFER};
use crate::document::{Bar, BarSeries, Bars, Cell, Chart, Document, Row, Table};
use crate::select::Common;
use crate::study::{About, Outcome, Planned, Study};
use crate::Claim;

/// Paper 001 for `reproduce`.
pub struct Reproduction;

impl Study for Reproduction {
    fn about(&self) -> &'static About {
        &super::ABOUT
    }
    fn check_parts(&self, words: &[String]) -> Result<(), String> {
        super::plan::parts(words).map(|_| ())
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

/// A ratio or share that may have no denominator (no timeout, no loss): `n/a` then.
fn or_na(v: Option<f64>, f: impl Fn(f64) -> String) -> String {
    v.map_or_else(|| "n/a".to_string(), f)
}

/// ` !n` for n failed runs, nothing for none.
fn fails(n: usize) -> String {
    if n == 0 {
        String::new()
    } else {
        format!(" !{n}")
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
    super::readings::section(&mut d, r);
    d
}

/// Figs. 15-19's tables and EFR's gain, those of the parts run.
pub(super) fn tables(d: &mut Document, r: &Report) {
    if !r.retransmissions.is_empty() {
        d.table(retransmissions(r));
    }
    if !r.sizes.is_empty() {
        d.table(sizes(r));
        if !r.gains.is_empty() {
            d.table(gains(r));
        }
    }
}

/// Figs. 15-17 per number of hosts and protocol.
fn retransmissions(r: &Report) -> Table {
    let columns = [
        "hosts",
        "proto",
        "rexmt segs",
        "timeouts",
        "fr",
        "fr<3",
        "fr/to",
        "N_dup(0,1,2,>=3)",
        "loss (coll.)",
        "Mb/s",
    ];
    let mut rows: Vec<Row> = r
        .retransmissions
        .iter()
        .map(|row| {
            let n = row.n_dup_per_host;
            Row::cells([
                row.hosts.to_string(),
                row.protocol.clone(),
                row.retransmitted_segments_per_host.mean_ci(1),
                format!("{:.1}", row.timeouts_per_host.mean),
                format!("{:.1}", row.fast_retransmits_per_host.mean),
                format!("{:.1}", row.early_fast_retransmits_per_host),
                or_na(row.fast_per_timeout, |x| format!("{x:.2}")),
                format!("{:.1} {:.1} {:.1} {:.1}", n[0], n[1], n[2], n[3]),
                format!(
                    "{:.2e} ({})",
                    row.segment_loss_rate,
                    or_na(row.collided_share, |c| format!("{:.0}%", 100.0 * c))
                ),
                format!(
                    "{:.3}{}",
                    row.aggregate_throughput_mbps.mean,
                    fails(row.failures)
                ),
            ])
        })
        .collect();
    rows.push(Row::Note(
        "paper (2 hosts): N_dup(1) 12 -> 8 and N_dup(2) 30 -> 7 with EFR; retransmitted segments \
         about -10% with EFR for 2-4 hosts; one host alone loses 3.0e-4"
            .into(),
    ));
    Table {
        title: Some(
            "Figs. 15-17: 10 MB per host, per host and trial: retransmitted segments (95% \
             interval), timeouts, fast retransmits (fr<3: at a threshold below 3), fast \
             retransmits per timeout, N_dup(0..3), loss per data frame (share from collisions), \
             aggregate Mb/s"
                .into(),
        ),
        columns: columns.map(String::from).to_vec(),
        rows,
    }
}

/// Figs. 18-19: aggregate throughput per transfer size, number of hosts and protocol.
fn sizes(r: &Report) -> Table {
    let rows = r
        .sizes
        .iter()
        .map(|row| {
            let a = row.aggregate_throughput_mbps;
            Row::cells([
                format!("{} MB", row.transfer_bytes >> 20),
                row.hosts.to_string(),
                row.protocol.clone(),
                format!("{:.3} ± {}{}", a.mean, a.ci_text(3), fails(row.failures)),
                format!("{:.3}-{:.3}", a.min, a.max),
                or_na(row.gain_over_reno_pct, |g| format!("{g:+.1}%")),
                format!("{:.3}", row.sum_of_hosts_mbps.mean),
            ])
        })
        .collect();
    Table {
        title: Some(
            "Figs. 18-19: aggregate throughput of all hosts, Mb/s: mean ± 95% interval, range, \
             change from Reno"
                .into(),
        ),
        columns: [
            "per host",
            "hosts",
            "proto",
            "Mb/s",
            "range",
            "vs Reno",
            "sum of hosts",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    }
}

/// EFR's gain over Reno at 8 MB beside the paper's.
fn gains(r: &Report) -> Table {
    let rows = r
        .gains
        .iter()
        .map(|g| {
            Row::Cells(vec![
                g.hosts.to_string().into(),
                format!(
                    "{:+.1}% ± {}",
                    g.gain_pct,
                    or_na(g.gain_ci95_pct, |c| format!("{c:.1}"))
                )
                .into(),
                format!("{:+.1}%", g.paper_pct).into(),
                Cell::miss(
                    if g.within_tolerance {
                        "within 5 points"
                    } else {
                        "MISS"
                    },
                    !g.within_tolerance,
                ),
            ])
        })
        .collect();
    Table {
        title: Some("EFR over Reno, 8 MB per host".into()),
        columns: ["hosts", "ours", "paper", ""].map(String::from).to_vec(),
        rows,
    }
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
            mac: super::readings::Mac::Isa82586,
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
