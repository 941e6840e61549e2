//! `snooplab reproduce --report DIR`: one self-contained `index.html` with a section per paper:
//! every table and figure, ours beside the paper's, each configuration stated, the paper's claims
//! with our measured ratios, and traces of example runs. Figures are embedded as PNG data; the PNG
//! and SVG files are written beside the page too (in a directory per paper). Nothing is fetched
//! from a network.

pub mod paper000;
pub mod paper001;

use std::fmt::Write as _;
use std::path::Path;

use base64::Engine as _;
use snooplab_sim::reproduce::Claim;

use crate::files::{create_dir, write_file};
use crate::plot::Figure;
use crate::reproduce::Reproduced;

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

const STYLE: &str = "body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}\
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #bbb;padding:4px 8px;\
text-align:center;font-size:14px}tr.paper td{color:#555}tr.err td{font-size:12px}\
td.miss{background:#fde2e2}tr.ord td{text-align:left;font-size:12px;color:#444}\
figure{margin:1em 0}figure img{max-width:100%}figcaption{font-size:13px;color:#444}\
ul.cfg{font-size:13px;color:#444}li.holds{color:#185}li.fails{color:#a11}";

/// Writes `dir/index.html`: a contents list, then each paper's section.
pub fn write_page(dir: &Path, papers: &[Box<dyn Reproduced>]) -> Result<(), String> {
    create_dir(dir)?;
    let mut h = String::new();
    let _ = writeln!(
        h,
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>snooplab: the papers \
         reproduced</title><style>{STYLE}</style></head><body>\n<p>snooplab {}: ",
        env!("CARGO_PKG_VERSION")
    );
    let links: Vec<String> = papers
        .iter()
        .map(|p| {
            let name = p.paper().name();
            format!(
                "<a href=\"#{name}\">{name}</a> ({})",
                esc(p.paper().citation())
            )
        })
        .collect();
    let _ = writeln!(h, "{}</p>", links.join("; "));
    for p in papers {
        h.push_str(&p.report_section(dir)?);
    }
    let _ = writeln!(h, "</body></html>");
    write_file(&dir.join("index.html"), h)
}
