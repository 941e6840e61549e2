//! Paper 004's section of the report: Fig. 2 as a table and a chart beside the paper's statements,
//! and the traces of a Reno and a Reno+ELN run at one error every 16 KB.

use std::fmt::Write as _;
use std::path::Path;

use snooplab_papers::paper004::{scenario, Report004};
use snooplab_sim::Protocol;

use super::{claims_html, esc, example, img};
use crate::files::create_dir;
use crate::plot::paper_plots::{ErrorRateSweep, Line};
use crate::plot::save;

/// The section's HTML; its figures go into `page/paper004/`.
pub fn section(page: &Path, r: &Report004) -> Result<String, String> {
    let dir = page.join("paper004");
    create_dir(&dir)?;
    let mut h = String::new();
    let _ = writeln!(
        h,
        "<h1 id=\"paper004\">Paper 004 reproduced</h1><p>Balakrishnan and Katz, \"Explicit Loss \
         Notification and Wireless Web Performance\" (1998), Fig. 2: the mobile host sends 8 MB to \
         the fixed host across one WaveLAN hop and 16 Internet hops (paper 000's WAN path), 32 KB \
         buffers, 1400-byte segments, exponentially distributed bit errors in both directions, {} \
         hosts, mean of {} seeds (± the 95% interval). <b>e2e</b> is TCP Reno with a base station that \
         only routes; <b>bs-eln</b> is Reno+ELN (the base station marks ACKs for holes in the mobile \
         host's data; the sender resends on the second mark, once per round trip, with no window \
         change); <b>bs-nack</b> is the NACK scheme of section 3.1 (the base station sends SACK-encoded \
         NACKs to a SACK sender). The paper gives the figure, not its values: ratios are checked \
         against its statements. docs/paper004.md explains each result.</p>",
        esc(&r.host),
        r.seeds
    );
    let _ = write!(h, "<table><tr><th>1 error every</th>");
    for p in &r.protocols {
        let _ = write!(h, "<th>{}</th>", esc(p));
    }
    let _ = writeln!(h, "<th>ELN / Reno</th><th>NACK / Reno</th></tr>");
    for p in &r.points {
        let _ = write!(h, "<tr><th>{} KB</th>", p.kbytes_between_errors);
        for t in &p.throughput_mbps {
            let _ = write!(
                h,
                "<td>{:.3}<br><small>± {}</small></td>",
                t.mean,
                t.ci_text(3)
            );
        }
        let _ = writeln!(
            h,
            "<td>{}</td><td>{}</td></tr>",
            p.eln_over_reno.mean_ci(2),
            p.nack_over_reno.mean_ci(2)
        );
    }
    let _ = writeln!(h, "</table>");
    let chart = ErrorRateSweep {
        title: "Paper 004 Fig. 2: mobile host to fixed host over the WAN".into(),
        lines: r
            .protocols
            .iter()
            .enumerate()
            .map(|(i, name)| Line {
                name: name.clone(),
                points: r
                    .points
                    .iter()
                    .filter_map(|p| {
                        p.throughput_mbps.get(i).map(|t| {
                            (
                                p.kbytes_between_errors * 1024,
                                t.mean,
                                t.ci95.unwrap_or(0.0),
                            )
                        })
                    })
                    .collect(),
            })
            .collect(),
    };
    let fig = save(&dir, "fig2", (1000, 600), &chart)?;
    h.push_str(&img(
        page,
        &fig,
        "Throughput against the error rate (ours; the paper's Fig. 2 has Reno and Reno+ELN)",
    )?);
    h.push_str(&claims_html(&r.claims));
    let _ = writeln!(
        h,
        "<h2>Inside two runs</h2><p>One error every 16 KB, seed 1: the mobile host's sequence \
         numbers with every retransmission marked, and its congestion window. Reno halves its window \
         at every loss and stalls at timeouts; with ELN most losses are resent on the base station's \
         marks with the window kept.</p>"
    );
    for (p, stem) in [
        (Protocol::E2e, "example-e2e"),
        (Protocol::BsEln, "example-bs-eln"),
    ] {
        let mut sc = scenario(p, 16, 1);
        if let Some(host) = snooplab_proto::tcp::HostPreset::ALL
            .iter()
            .find(|h| r.host.starts_with(h.name()))
        {
            sc.set_host(*host);
        }
        for (f, summary) in example(&dir, &sc, stem)? {
            h.push_str(&img(page, &f, &summary)?);
        }
    }
    Ok(h)
}
