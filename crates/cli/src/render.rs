//! A paper's [`Document`] rendered: as text for the terminal, and as the paper's section of the
//! HTML report with its charts drawn and its example runs traced. Every paper made a study renders
//! here; none writes its own renderer.

use std::fmt::Write as _;
use std::path::Path;

use snooplab_papers::document::{Block, Chart, Document, Row, Table};
use snooplab_papers::{Claim, Paper};

use crate::files::create_dir;
use crate::html_parts::{claims_html, esc, example_network, img};
use crate::plot::save;

/// The text for the terminal: a first line naming the paper, then the blocks the terminal shows.
pub fn text(paper: Paper, d: &Document) -> String {
    let mut s = format!(
        "snooplab reproduce: paper {}, {}\n",
        paper.name().trim_start_matches("paper"),
        paper.citation()
    );
    for (i, b) in d.blocks.iter().enumerate() {
        match b {
            // a section the terminal shows nothing of (traces, charts) gets no heading either
            Block::Heading(h) if shows_on_terminal(&d.blocks[i + 1..]) => {
                let _ = writeln!(s, "{h}");
            }
            Block::Heading(_) => {}
            Block::Text(t) => {
                let _ = writeln!(s, "{t}\n");
            }
            Block::Table(t) => s.push_str(&table_text(t)),
            Block::Claims(c) => {
                s.push_str(&claims_text(c));
                s.push('\n');
            }
            Block::PageOnly(_) | Block::Chart { .. } | Block::Example { .. } => {}
        }
    }
    s
}

/// Whether the section that starts with `rest` (up to the next heading) has anything the
/// terminal shows.
fn shows_on_terminal(rest: &[Block]) -> bool {
    rest.iter()
        .take_while(|b| !matches!(b, Block::Heading(_)))
        .any(|b| matches!(b, Block::Text(_) | Block::Table(_) | Block::Claims(_)))
}

/// A table as aligned columns, each as wide as its widest entry and two spaces.
fn table_text(t: &Table) -> String {
    let mut widths: Vec<usize> = t.columns.iter().map(|c| c.chars().count()).collect();
    for r in &t.rows {
        if let Row::Cells(cells) | Row::Under(cells) = r {
            for (i, c) in cells.iter().enumerate() {
                let n = c.text.chars().count() + if i == 0 { 2 } else { 0 };
                match widths.get_mut(i) {
                    Some(w) => *w = (*w).max(n),
                    None => widths.push(n),
                }
            }
        }
    }
    let line = |cells: &mut dyn Iterator<Item = String>| -> String {
        let mut l = String::new();
        for (i, c) in cells.enumerate() {
            let w = widths.get(i).copied().unwrap_or(0) + 2;
            let _ = write!(l, "{c:<w$}");
        }
        l.trim_end().to_string()
    };
    let mut s = String::new();
    if let Some(title) = &t.title {
        let _ = writeln!(s, "{title}");
    }
    let _ = writeln!(s, "{}", line(&mut t.columns.iter().cloned()));
    for r in &t.rows {
        let _ = match r {
            Row::Cells(cells) => writeln!(s, "{}", line(&mut cells.iter().map(|c| c.text.clone()))),
            Row::Under(cells) => writeln!(
                s,
                "{}",
                line(&mut cells.iter().enumerate().map(|(i, c)| {
                    if i == 0 {
                        format!("  {}", c.text)
                    } else {
                        c.text.clone()
                    }
                }))
            ),
            Row::Note(n) => writeln!(s, "  {n}"),
        };
    }
    s.push('\n');
    s
}

/// The paper's section of `index.html`; its charts and example runs go into `page/<paper>/`.
pub fn html_section(page: &Path, paper: Paper, d: &Document) -> Result<String, String> {
    let name = paper.name();
    let dir = page.join(name);
    create_dir(&dir)?;
    let mut h = String::new();
    let _ = writeln!(
        h,
        "<h1 id=\"{name}\">Paper {} reproduced</h1><p>{}</p>",
        name.trim_start_matches("paper"),
        esc(paper.citation())
    );
    for b in &d.blocks {
        match b {
            Block::Heading(t) => {
                let _ = writeln!(h, "<h2>{}</h2>", esc(t));
            }
            Block::Text(t) | Block::PageOnly(t) => {
                let _ = writeln!(h, "<p>{}</p>", esc(t));
            }
            Block::Table(t) => h.push_str(&table_html(t)),
            Block::Claims(c) => h.push_str(&claims_html(c)),
            Block::Chart {
                chart,
                file,
                caption,
            } => {
                let fig = match chart {
                    Chart::Bars(c) => save(&dir, file, (1000, 600), c)?,
                    Chart::Sweep(c) => save(&dir, file, (1000, 600), c)?,
                    Chart::Series(c) => save(&dir, file, (1000, 450), c)?,
                    Chart::Heat(c) => save(&dir, file, (800, 400), c)?,
                };
                h.push_str(&img(page, &fig, caption)?);
            }
            Block::Example {
                job,
                file,
                flow,
                label,
            } => {
                for (f, summary) in example_network(&dir, &job.network, &job.env, file)? {
                    // a run of several flows plots each into files named after it
                    // (`sequence-flow0.png`)
                    let shown = flow.is_none_or(|n| {
                        f.png
                            .file_stem()
                            .is_some_and(|s| s.to_string_lossy().ends_with(&format!("-flow{n}")))
                    });
                    if shown {
                        let caption = match label {
                            Some(l) => format!("{l}, {summary}"),
                            None => summary,
                        };
                        h.push_str(&img(page, &f, &caption)?);
                    }
                }
            }
        }
    }
    Ok(h)
}

/// A table as HTML: the first entry of each row heads it, rows under a row in a lighter style,
/// a cell that marks a miss shaded.
fn table_html(t: &Table) -> String {
    let mut h = String::new();
    if let Some(title) = &t.title {
        let _ = writeln!(h, "<h3>{}</h3>", esc(title));
    }
    let _ = write!(h, "<table><tr>");
    for c in &t.columns {
        let _ = write!(h, "<th>{}</th>", esc(c));
    }
    let _ = writeln!(h, "</tr>");
    for r in &t.rows {
        let (class, cells) = match r {
            Row::Cells(cells) => ("", cells),
            Row::Under(cells) => (" class=\"paper\"", cells),
            Row::Note(n) => {
                let _ = writeln!(
                    h,
                    "<tr class=\"ord\"><td colspan=\"{}\">{}</td></tr>",
                    t.columns.len().max(1),
                    esc(n)
                );
                continue;
            }
        };
        let _ = write!(h, "<tr{class}>");
        for (i, c) in cells.iter().enumerate() {
            let tag = if i == 0 { "th" } else { "td" };
            let miss = if c.miss { " class=\"miss\"" } else { "" };
            let detail = c
                .detail
                .as_ref()
                .map_or_else(String::new, |d| format!("<br><small>{}</small>", esc(d)));
            let _ = write!(h, "<{tag}{miss}>{}{detail}</{tag}>", esc(&c.text));
        }
        let _ = writeln!(h, "</tr>");
    }
    let _ = writeln!(h, "</table>");
    h
}

/// A paper's claims for the terminal: each marked holds / FAILS / n/a, with what we measured.
pub fn claims_text(claims: &[Claim]) -> String {
    let mut s = String::from("The paper's claims, measured:\n");
    for c in claims {
        let mark = match c.holds {
            Some(true) => "holds ",
            Some(false) => "FAILS ",
            None => "n/a   ",
        };
        s.push_str(&format!(
            "  {mark} {}\n         measured: {}\n",
            c.paper, c.measured
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use snooplab_papers::document::Cell;

    fn table() -> Table {
        Table {
            title: Some("Table X".into()),
            columns: vec!["".into(), "e2e".into(), "snoop".into()],
            rows: vec![
                Row::cells(["lan", "1.000 ± 0.010", "1.5"]),
                Row::Under(vec!["paper".into(), "0.9".into(), Cell::miss("1.2", true)]),
                Row::Note("ordering agrees".into()),
            ],
        }
    }

    #[test]
    fn a_text_table_aligns_every_column_under_its_heading() {
        let t = table_text(&table());
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[0], "Table X");
        // "e2e" heads the column its values start in, "snoop" the next
        let at = |l: &str, w: &str| l.char_indices().position(|(i, _)| l[i..].starts_with(w));
        assert_eq!(at(lines[1], "e2e"), at(lines[2], "1.000"));
        assert_eq!(at(lines[1], "snoop"), at(lines[2], "1.5"));
        assert_eq!(at(lines[1], "snoop"), at(lines[3], "1.2"));
        assert!(lines[3].starts_with("  paper"));
        assert_eq!(lines[4], "  ordering agrees");
        assert!(lines[2].contains("1.000 ± 0.010"));
    }

    #[test]
    fn an_html_table_escapes_and_marks_misses() {
        let mut t = table();
        t.columns[1] = "a<b".into();
        let h = table_html(&t);
        assert!(h.contains("<th>a&lt;b</th>"), "{h}");
        assert!(h.contains("<td class=\"miss\">1.2</td>"), "{h}");
        assert!(h.contains("<tr class=\"paper\">"), "{h}");
        assert!(h.contains("<td colspan=\"3\">ordering agrees</td>"), "{h}");
    }
}
