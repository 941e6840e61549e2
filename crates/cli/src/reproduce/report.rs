//! `snooplab reproduce --report DIR`: one self-contained `index.html` with a section per paper:
//! every table and figure, ours beside the paper's, each configuration stated, the paper's claims
//! with our measured ratios, and traces of example runs. Figures are embedded as PNG data; the PNG
//! and SVG files are written beside the page too (in a directory per paper). Nothing is fetched
//! from a network. The pieces of HTML each paper's section is made of are `html_parts.rs`'s (`crate::html_parts`, beside `render.rs`, which uses them too).

use std::fmt::Write as _;
use std::path::Path;

use super::study::{verdict_line, Studied};
use crate::files::{create_dir, write_file};
use crate::html_parts::esc;

const STYLE: &str = "body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}\
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #bbb;padding:4px 8px;\
text-align:center;font-size:14px}tr.paper td{color:#555}\
td.miss{background:#fde2e2}tr.ord td{text-align:left;font-size:12px;color:#444}\
figure{margin:1em 0}figure img{max-width:100%}figcaption{font-size:13px;color:#444}\
li.holds{color:#185}li.fails{color:#a11}";

/// Writes `dir/index.html`: a contents list, then each paper's section.
pub fn write_page(dir: &Path, papers: &[Studied]) -> Result<(), String> {
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
            let name = p.paper.name();
            format!(
                "<a href=\"#{name}\">{name}</a> ({})",
                esc(p.paper.citation())
            )
        })
        .collect();
    let _ = writeln!(h, "{}</p>", links.join("; "));
    if let Some(line) = verdict_line(papers) {
        let _ = writeln!(h, "<p><b>{}</b></p>", esc(&line));
    }
    for p in papers {
        h.push_str(&p.report_section(dir)?);
    }
    let _ = writeln!(h, "</body></html>");
    write_file(&dir.join("index.html"), h)
}
