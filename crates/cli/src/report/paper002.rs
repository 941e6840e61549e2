//! Paper 002's section of the report: Table 1 and Fig. 10 as tables, Figs. 7 and 11 as charts, and
//! the traces of Figs. 8 (snoop and Reno at one error per 256 Kbits) and 9 (handoffs every 10 s).

use std::fmt::Write as _;
use std::path::Path;

use snooplab_papers::paper002::{network, Experiment, Report002};
use snooplab_proto::time::SEC;
use snooplab_sim::stats::Summary;

use super::{claims_html, esc, example_network, img};
use crate::files::create_dir;
use crate::plot::paper_plots::{ErrorRateSweep, Line};
use crate::plot::save;

fn cell(s: &Summary) -> String {
    format!("{:.3}<br><small>± {}</small>", s.mean, s.ci_text(3))
}

/// The section's HTML; its figures go into `page/paper002/`.
pub fn section(page: &Path, r: &Report002) -> Result<String, String> {
    let dir = page.join("paper002");
    create_dir(&dir)?;
    let mut h = String::new();
    let _ = writeln!(
        h,
        "<h1 id=\"paper002\">Paper 002 reproduced</h1><p>Balakrishnan, Seshan and Katz, \
         \"Improving Reliable Transport and Handoff Performance in Cellular Wireless Networks\" \
         (1995), section 7: the fixed host \
         sends 10 MB to the mobile host through its home agent, which tunnels every packet to the \
         mobile host's multicast group of two base stations, their cells on one radio channel; the \
         primary forwards, the other keeps the last 12 packets and mirrors snoop's cache. \
         1460-byte segments, 64 KB windows, Reno \
         with {} hosts, snoop with paper 002's settings, beacons once per second, {} seeds (± the \
         95% interval). docs/paper002.md explains each result.</p>",
        esc(&r.host),
        r.seeds
    );
    if !r.table1.is_empty() {
        let _ = writeln!(
            h,
            "<h2>Table 1: handoffs at a fixed interval, no bit errors</h2><table><tr><th>time \
             between handoffs</th><th>Mb/s</th><th>std dev</th><th>paper</th><th>local \
             retransmissions</th><th>buffered packets sent</th></tr>"
        );
        for row in &r.table1 {
            let (label, paper) = (row.label(), row.paper_text());
            let _ = writeln!(
                h,
                "<tr><th>{label}</th><td>{}</td><td>{:.3}</td><td>{paper}</td><td>{:.0}</td><td>{:.0}</td></tr>",
                cell(&row.throughput_mbps),
                row.stddev_mbps,
                row.local_retransmissions.mean,
                row.ring_sent.mean
            );
        }
        let _ = writeln!(h, "</table>");
    }
    if !r.sweep.is_empty() {
        let line =
            |name: &str,
             get: &dyn Fn(&snooplab_papers::paper002::SweepPoint) -> Option<Summary>| {
                Line {
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
                }
            };
        let chart = ErrorRateSweep {
            title: "Paper 002 Figs. 7 and 11: throughput at the mobile host".into(),
            lines: [
                line("Reno", &|p| p.reno_mbps),
                line("snoop", &|p| p.snoop_mbps),
                line("snoop, handoff every 5 s", &|p| p.snoop_handoff_mbps),
            ]
            .into_iter()
            .filter(|l| !l.points.is_empty())
            .collect(),
        };
        let fig = save(&dir, "fig7-fig11", (1000, 600), &chart)?;
        h.push_str(&img(
            page,
            &fig,
            "Throughput against the mean bytes between bit errors (Figs. 7 and 11)",
        )?);
    }
    if let Some(l) = &r.latency {
        let _ = writeln!(
            h,
            "<h2>Fig. 10: handoff latency</h2><table><tr><th></th><th>ours, ms</th><th>paper, \
             ms</th></tr><tr><th>idle (decision to confirmation)</th><td>{}</td><td>5-10</td></tr>\
             <tr><th>during a transfer, to the confirmation</th><td>{}</td><td rowspan=2>25-70</td>\
             </tr><tr><th>during a transfer, to the first packet from the new base \
             station</th><td>{}</td></tr></table>",
            cell(&l.idle_ms),
            cell(&l.transfer_confirm_ms),
            cell(&l.transfer_first_packet_ms)
        );
    }
    if !r.baselines.is_empty() {
        let _ = writeln!(
            h,
            "<h2>Baselines (section 8)</h2><p>Snoop at the base stations, no bit errors. <b>hard</b>: \
             plain Mobile IP, the home agent tunnels to the primary alone, nothing is buffered and the \
             old cell's packets are lost; <b>fast-retransmit</b>: the same, and the mobile host sends \
             three duplicate ACKs once the handoff is confirmed (Caceres and Iftode); <b>split</b>: a split \
             connection (I-TCP) whose state moves to the new base station in 265 ms plus 36 ms per KB \
             it holds.</p><table><tr>\
             <th>scheme</th><th>interval</th><th>Mb/s</th><th>/ multicast</th><th>timeouts</th>\
             <th>fast retransmissions</th></tr>"
        );
        for b in &r.baselines {
            let _ = writeln!(
                h,
                "<tr><th>{}</th><td>{} s</td><td>{}</td><td>{:.2}</td><td>{:.1}</td><td>{:.1}</td></tr>",
                esc(&b.scheme),
                b.seconds,
                cell(&b.throughput_mbps),
                b.over_multicast.mean,
                b.timeouts.mean,
                b.fast_retransmits.mean
            );
        }
        let _ = writeln!(h, "</table>");
    }
    if !r.crash.is_empty() {
        let _ = writeln!(
            h,
            "<h2>A base station crash</h2><p>The primary base station loses everything 5 s into the \
             transfer and comes back 1 s later; no handoffs, no errors.</p><table><tr><th>agent</th>\
             <th>intact runs</th><th>bytes acknowledged, never delivered</th><th>packets lost in the \
             crash</th><th>Mb/s</th></tr>"
        );
        for c in &r.crash {
            let _ = writeln!(
                h,
                "<tr><th>{}</th><td>{} of {}</td><td>{:.0}</td><td>{:.0}</td><td>{}</td></tr>",
                esc(&c.agent),
                c.intact,
                c.runs,
                c.bytes_lost.mean,
                c.crash_drops.mean,
                c.throughput_mbps
                    .as_ref()
                    .map_or_else(|| "n/a".into(), cell)
            );
        }
        let _ = writeln!(h, "</table>");
    }
    h.push_str(&claims_html(&r.claims));
    let _ = writeln!(
        h,
        "<h2>Figs. 8 and 9: inside three runs</h2><p>Seed 1. Fig. 8: one error per 256 Kbits, Reno \
         with routers and with snoop at the base stations, no handoffs. Fig. 9: no errors, a \
         handoff every 10 s (the times are in the run's handoffs.csv).</p>"
    );
    for (job, stem) in [
        (Experiment::Sweep(256, false, None), "fig8-reno"),
        (Experiment::Sweep(256, true, None), "fig8-snoop"),
        (Experiment::Table1(Some(10 * SEC), true), "fig9-handoffs"),
    ] {
        let mut net = network(job, 1);
        if let Some(host) = snooplab_proto::tcp::HostPreset::ALL
            .iter()
            .find(|p| r.host.starts_with(p.name()))
        {
            for f in &mut net.flows {
                f.host_preset = *host;
                f.host = host.profile();
            }
        }
        for (f, summary) in example_network(&dir, &net, "lan", stem)? {
            h.push_str(&img(page, &f, &summary)?);
        }
    }
    Ok(h)
}
