//! Paper 000's section of the report: every table and figure beside the paper's, each
//! configuration stated, the claims with our measured ratios, and the sequence and window traces of
//! two example runs.

use std::fmt::Write as _;
use std::path::Path;

use crate::units::format_bytes as bytes;
use snooplab_papers::paper000::{Experiment, Part, Report, TableReport};
use snooplab_proto::tcp::HostPreset;
use snooplab_sim::{Protocol, Scenario};

use super::{claims_html, esc, example, img};
use crate::files::create_dir;
use crate::plot::paper_plots::plot_tables;
use crate::reproduce::{ours, theirs, verdict};

/// What the runs of a table row had in common, in words.
fn configuration(s: &Scenario) -> String {
    let env = match s.env {
        snooplab_sim::Env::Lan => "LAN (10 Mb/s Ethernet to the base station)",
        snooplab_sim::Env::Wan => "WAN (16 Internet hops, about 135 ms round trip, 1.39 Mb/s path)",
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

fn table_html(t: &TableReport, exps: &[Experiment]) -> String {
    let mut h = String::new();
    let _ = writeln!(h, "<h2>{}</h2>", esc(&t.title));
    let _ = writeln!(h, "<ul class=\"cfg\">");
    for row in &t.rows {
        if let Some(e) = exps.iter().find(|e| e.part == t.part && e.row == row.row) {
            let _ = writeln!(
                h,
                "<li><b>{}</b>: {}</li>",
                esc(&row.row),
                esc(&configuration(&e.scenario))
            );
        }
    }
    let _ = writeln!(h, "</ul>");
    let _ = writeln!(h, "<table><tr><th></th>");
    for p in &t.protocols {
        let _ = write!(h, "<th>{}</th>", esc(p));
    }
    let _ = writeln!(h, "</tr>");
    for row in &t.rows {
        let cell = |p: &str| row.cells.iter().find(|c| c.protocol == p);
        let _ = write!(h, "<tr><th>{}<br><small>ours</small></th>", esc(&row.row));
        for p in &t.protocols {
            let text = cell(p).map_or_else(
                || "-".into(),
                |c| {
                    format!(
                        "{}<br><small>± {}</small>",
                        esc(&ours(c)),
                        c.throughput_mbps.ci_text(3)
                    )
                },
            );
            let _ = write!(h, "<td>{text}</td>");
        }
        let _ = writeln!(h, "</tr>");
        if row.cells.iter().any(|c| c.paper_throughput_mbps.is_some()) {
            let _ = write!(h, "<tr class=\"paper\"><th>paper</th>");
            for p in &t.protocols {
                let text = cell(p).map_or_else(|| "-".into(), theirs);
                let _ = write!(h, "<td>{}</td>", esc(&text));
            }
            let _ = writeln!(h, "</tr>");
            let _ = write!(h, "<tr class=\"err\"><th>error</th>");
            for p in &t.protocols {
                let text = cell(p).map_or_else(|| "-".into(), verdict);
                let class = if text.contains("MISS") {
                    " class=\"miss\""
                } else {
                    ""
                };
                let _ = write!(h, "<td{class}>{}</td>", esc(&text));
            }
            let _ = writeln!(h, "</tr>");
            let ord = match row.ordering_agrees {
                Some(true) => "ordering agrees with the paper".to_string(),
                Some(false) => format!("ordering DIFFERS: {}", row.ordering_differences.join("; ")),
                None => String::new(),
            };
            if !ord.is_empty() {
                let n = t.protocols.len() + 1;
                let _ = writeln!(
                    h,
                    "<tr class=\"ord\"><td colspan=\"{n}\">{}</td></tr>",
                    esc(&ord)
                );
            }
        }
    }
    let _ = writeln!(h, "</table>");
    h
}

/// The section's HTML; its figures and example traces go into `page/paper000/`.
pub fn section(page: &Path, report: &Report, exps: &[Experiment]) -> Result<String, String> {
    let dir = page.join("paper000");
    create_dir(&dir)?;
    let figs = plot_tables(&dir, &report.tables)?;
    let mut h = String::new();
    let _ = writeln!(
        h,
        "<h1 id=\"paper000\">Paper 000 reproduced</h1><p>Balakrishnan, Padmanabhan, Seshan and Katz, \
         \"A Comparison of Mechanisms for Improving TCP Performance over Wireless Links\" \
         (1997), simulated by snooplab {} with {} hosts. Every cell is the mean of {} seeds (± \
         the 95% confidence interval of the mean), throughput in Mb/s with (wireless / wired \
         goodput %); the paper's value is below it, then our relative error. In that row, \
         'ok' or MISS judges the throughput (MISS: more than 15% off) and 'gp ok' or 'gp MISS' \
         the two goodputs (MISS: either more than 1 point off; no 'gp' where the paper gives no \
         goodputs); '-' marks a configuration not run (the paper ran no E2E-SMART in the WAN). \
         docs/paper000.md explains each miss.</p>",
        env!("CARGO_PKG_VERSION"),
        esc(&report.host),
        report.seeds
    );
    for t in &report.tables {
        h.push_str(&table_html(t, exps));
        if let Some((_, f)) = figs.iter().find(|(stem, _)| stem == t.part.name()) {
            let alt = if t.part == Part::Fig12 {
                "Throughput against error rate (ours)".to_string()
            } else {
                format!("{}: ours (solid) beside the paper's (light)", t.title)
            };
            h.push_str(&img(page, f, &alt)?);
        }
    }
    h.push_str(&claims_html(&report.claims));
    let _ = writeln!(
        h,
        "<h2>Inside two runs</h2><p>LAN, 32 KB buffers, one error every 64 KB, seed 1: the \
         fixed host's sequence numbers with every retransmission marked (as paper 000 Figs. 5 \
         and 7), and its congestion window (as Figs. 4 and 8). E2E stalls at each coarse \
         timeout; with LL-TCP-AWARE (snoop) the base station repairs the losses locally and \
         the sender's line stays straight. Trace CSVs are in the subdirectories.</p>"
    );
    for (p, stem) in [
        (Protocol::E2e, "example-e2e"),
        (Protocol::LlTcpAware, "example-ll-tcp-aware"),
    ] {
        let host = exps
            .first()
            .map_or(HostPreset::Bsdos21, |e| e.scenario.host_preset);
        let mut sc = Scenario::paper000(p, snooplab_sim::Env::Lan, 32768, 1);
        sc.set_host(host);
        for (f, summary) in example(&dir, &sc, stem)? {
            h.push_str(&img(page, &f, &summary)?);
        }
    }
    Ok(h)
}
