//! Paper 001's section of the report: Figs. 15-19 as charts, the 8 MB aggregate throughputs as a
//! table, traced runs of three Reno and three EFR senders (`snd_cur` over time, as the paper's
//! Figs. 7-11), the tables as `reproduce` prints them, and the claims.

use std::fmt::Write as _;
use std::path::Path;

use snooplab_papers::paper001::{paper001_network, Run001};
use snooplab_papers::paper001::{Experiment, Part, Report, RETRANSMISSION_TRANSFER};
use snooplab_papers::Paper;
use snooplab_sim::Protocol;

use super::{claims_html, esc, example_network, img};
use crate::files::create_dir;
use crate::plot::paper_plots::{Bar, BarSeries, Bars};
use crate::plot::save;

/// The section's HTML; its figures go into `page/paper001/`.
pub fn section(page: &Path, run: &Run001, text: &str) -> Result<String, String> {
    let r = &run.report;
    let dir = page.join(Paper::Paper001.name());
    create_dir(&dir)?;
    let mut h = String::new();
    let p = Paper::Paper001;
    let _ = writeln!(
        h,
        "<h1 id=\"{}\">{}</h1>\n<p>{}</p><p>Two to four mobile hosts send at once through one \
         WaveLAN cell (CSMA/CA) to one host on 10BASE-T; {} trials per bar (whiskers: the 95% \
         interval of the mean, in Fig. 19 the range over trials). The paper's figures are not in \
         our copy of it, only the numbers its text quotes: they are in the claims below. \
         docs/paper001.md explains each result.</p>",
        p.name(),
        p.name(),
        esc(p.citation()),
        r.seeds
    );
    for (stem, chart, alt) in charts(r) {
        let fig = save(&dir, &stem, (1000, 560), &chart)?;
        h.push_str(&img(page, &fig, &alt)?);
    }
    eight_mb_table(&mut h, r);
    if r.retransmissions.iter().any(|row| row.hosts == 3) {
        let _ = writeln!(
            h,
            "<h2>Traced runs: three hosts, 10 MB each, seed 1 (host 1's sequence numbers and \
             <code>snd_cur</code>, as the paper's Figs. 2-5 and 7-11)</h2>"
        );
        for protocol in [Protocol::E2e, Protocol::Efr] {
            let e = Experiment {
                part: Part::Retransmissions,
                hosts: 3,
                protocol,
                transfer: RETRANSMISSION_TRANSFER,
            };
            let net = paper001_network(&e, 1, run.host);
            let stem = format!("trace-3-hosts-{}", protocol.name());
            // every host's plots are written beside the page; host 1's are shown
            for (fig, caption) in example_network(&dir, &net, "paper001", &stem)? {
                if fig.png.to_string_lossy().contains("flow0") {
                    h.push_str(&img(page, &fig, &format!("host 1 of 3, {caption}"))?);
                }
            }
        }
    }
    let _ = writeln!(h, "<h2>All tables</h2><pre>{}</pre>", esc(text));
    h.push_str(&claims_html(&r.claims));
    Ok(h)
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

/// Figs. 15-19 as bar charts: (file stem, chart, caption).
fn charts(r: &Report) -> Vec<(String, Bars, String)> {
    let mut out = vec![];
    let rows = &r.retransmissions;
    if !rows.is_empty() {
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
                    "Fig. 17: timeouts after i duplicate ACKs per host and trial, {}{}",
                    hosts_label(n),
                    if n == 2 {
                        " (the paper: N_dup(1) 12 -> 8 and N_dup(2) 30 -> 7 with EFR)"
                    } else {
                        ""
                    }
                ),
            ));
        }
    }
    let sizes = &r.sizes;
    if !sizes.is_empty() {
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
                "Fig. 18: aggregate throughput, 8 MB per host (the paper: EFR +14.4% with 3 \
                 hosts, +12.2% with 4)"
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
    }
    out
}

fn hosts_label(n: usize) -> String {
    if n == 1 {
        "1 host".into()
    } else {
        format!("{n} hosts")
    }
}

/// Fig. 18's numbers as a table: mean, interval, range and the change from Reno.
fn eight_mb_table(h: &mut String, r: &Report) {
    let eight: Vec<_> = r
        .sizes
        .iter()
        .filter(|s| s.transfer_bytes == 8 << 20)
        .collect();
    if eight.is_empty() {
        return;
    }
    let _ = writeln!(
        h,
        "<h2>Fig. 18: aggregate throughput, 8 MB per host (Mb/s, mean of {} trials)</h2><table>\
         <tr><th>hosts</th><th>protocol</th><th>mean</th><th>95% interval</th><th>range</th>\
         <th>vs Reno</th></tr>",
        r.seeds
    );
    for s in eight {
        let a = s.aggregate_throughput_mbps;
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td>{}</td><td>{:.3}</td><td>± {}</td><td>{:.3}-{:.3}</td>\
             <td>{}</td></tr>",
            s.hosts,
            esc(&display(&s.protocol)),
            a.mean,
            a.ci_text(3),
            a.min,
            a.max,
            s.gain_over_reno_pct
                .map_or_else(|| "n/a".to_string(), |g| format!("{g:+.1}%"))
        );
    }
    let _ = writeln!(h, "</table>");
}
