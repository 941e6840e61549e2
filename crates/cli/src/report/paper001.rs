//! Paper 001's section of the report: its tables (as `reproduce` prints them) and its claims.

use std::fmt::Write as _;

use snooplab_sim::reproduce::paper001::Report;
use snooplab_sim::reproduce::Paper;

use super::{claims_html, esc};

/// The section: a heading, the tables as preformatted text, a table of the 8 MB aggregate
/// throughputs, and the claims.
pub fn section(r: &Report, text: &str) -> String {
    let mut h = String::new();
    let p = Paper::Paper001;
    let _ = writeln!(
        h,
        "<h1 id=\"{}\">{}</h1>\n<p>{}</p>",
        p.name(),
        p.name(),
        esc(p.citation())
    );
    let eight: Vec<_> = r
        .sizes
        .iter()
        .filter(|s| s.transfer_bytes == 8 << 20)
        .collect();
    if !eight.is_empty() {
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
                "<tr><td>{}</td><td>{}</td><td>{:.3}</td><td>± {:.3}</td><td>{:.3}-{:.3}</td>\
                 <td>{:+.1}%</td></tr>",
                s.hosts,
                esc(&s.protocol),
                a.mean,
                a.ci95,
                a.min,
                a.max,
                s.gain_over_reno_pct
            );
        }
        let _ = writeln!(h, "</table>");
    }
    let _ = writeln!(h, "<h2>All tables</h2><pre>{}</pre>", esc(text));
    h.push_str(&claims_html(&r.claims));
    h
}
