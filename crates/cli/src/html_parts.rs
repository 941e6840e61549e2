//! The pieces of HTML a paper's section of the report (`render.rs`) and the page (`report/`) are
//! made of: text made safe, an embedded figure, the claims as a list, an example run's traced
//! network.

use std::fmt::Write as _;
use std::path::Path;

use base64::Engine as _;
use snooplab_papers::Claim;
use snooplab_sim::trace::{SendKind, TraceLog};
use snooplab_sim::{Observer, Simulation};

use crate::plot::trace_plots::{plot_trace, View};
use crate::plot::Figure;
use crate::plot_cmd::run_title;
use crate::run_cmd::write_trace;

/// Text made safe for HTML.
pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A figure embedded as PNG data, with a link to its SVG (a path relative to the page in `dir`).
pub fn img(dir: &Path, fig: &Figure, alt: &str) -> Result<String, String> {
    let png =
        std::fs::read(&fig.png).map_err(|e| format!("cannot read {}: {e}", fig.png.display()))?;
    let data = base64::engine::general_purpose::STANDARD.encode(png);
    let svg = fig
        .svg
        .strip_prefix(dir)
        .unwrap_or(&fig.svg)
        .to_string_lossy()
        .into_owned();
    Ok(format!(
        "<figure><img alt=\"{}\" src=\"data:image/png;base64,{data}\"><figcaption>{} \
         (<a href=\"{svg}\">SVG</a>)</figcaption></figure>\n",
        esc(alt),
        esc(alt)
    ))
}

/// A paper's claims as a list, each marked holds / FAILS / n/a with what we measured.
pub fn claims_html(claims: &[Claim]) -> String {
    let mut h = String::new();
    if claims.is_empty() {
        return h;
    }
    let _ = writeln!(h, "<h2>The paper's claims, measured</h2><ul>");
    for c in claims {
        let (class, mark) = match c.holds {
            Some(true) => ("holds", "holds"),
            Some(false) => ("fails", "FAILS"),
            None => ("", "n/a"),
        };
        let _ = writeln!(
            h,
            "<li class=\"{class}\"><b>{mark}</b>: {}<br><small>measured: {}</small></li>",
            esc(c.paper),
            esc(&c.measured)
        );
    }
    let _ = writeln!(h, "</ul>");
    h
}

/// Traces one run of `net` for the report's example figures (in `dir/stem/`), each with a caption.
pub fn example_network(
    dir: &Path,
    net: &snooplab_sim::Network,
    env: &str,
    stem: &str,
) -> Result<Vec<(Figure, String)>, String> {
    let (r, obs) =
        Simulation::observed_network(net, env, Observer::default().with_trace()).run_observed();
    let trace = obs.trace.unwrap_or_else(TraceLog::default);
    let sub = dir.join(stem);
    write_trace(&sub, &trace, &r)?;
    let title = run_title(&r);
    let figs = plot_trace(&sub, &View::whole(&trace, title.clone()))?;
    let summary = format!(
        "{title}: {:.3} Mb/s, {}, {} fast retransmissions, {} local retransmissions",
        r.flow().throughput_mbps,
        timeouts_in_words(r.flow().timeouts, timeout_segments(&trace)),
        r.flow().fast_retransmits,
        r.agent_total("local_retransmissions")
    );
    Ok(figs.into_iter().map(|f| (f, summary.clone())).collect())
}

/// Segments the flow's own sender resent after its timeouts (the plot's crosses).
fn timeout_segments(t: &TraceLog) -> usize {
    t.segments
        .iter()
        .filter(|r| r.flow == 0 && r.kind == SendKind::Timeout && !t.is_base_station(r.sender))
        .count()
}

/// The timeouts and the segments they resent: a timeout resends the first unacknowledged segment
/// and, as slow start reopens the window, the ones after it, so the plot's crosses (segments)
/// outnumber the timeouts.
pub fn timeouts_in_words(timeouts: u64, segments: usize) -> String {
    if segments as u64 == timeouts {
        format!("{timeouts} timeouts (each resending one segment)")
    } else {
        format!(
            "{timeouts} timeouts, which resent {segments} segments (after a timeout the sender \
             goes back to the first unacknowledged segment and resends it and, as slow start \
             reopens its window, the ones after it)"
        )
    }
}
