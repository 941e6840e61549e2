//! A paper (`snooplab_papers::study`) planned, run on the cores with a progress line, and its
//! outcome shown through the renderers every paper shares (`crate::render`); the verdict line over
//! every paper's claims (the terminal's, and the HTML report's: `report.rs` beside this file, its
//! HTML pieces in `html_parts.rs`).

use std::path::Path;

use snooplab_papers::select::Selection;
use snooplab_papers::study::{Common, Outcome, Planned};
use snooplab_papers::{Claim, Paper};

use crate::files::write_file;

/// A paper's outcome with the paper it is of: what each output of `reproduce` needs.
pub struct Studied {
    pub paper: Paper,
    outcome: Box<dyn Outcome>,
}

/// Runs the paper as planned for the parts the selection names (its progress on stderr unless
/// `quiet`); returns its outcome and the number of runs.
pub fn run(
    sel: &Selection,
    plan: Box<dyn Planned>,
    common: &Common,
    quiet: bool,
) -> Result<(Studied, usize), String> {
    let jobs = plan.jobs();
    // the progress line names the paper it counts
    let results = crate::parallel::run_jobs(&jobs, common.threads, (sel.paper.name(), quiet))?;
    Ok((
        Studied {
            paper: sel.paper,
            outcome: plan.finish(results),
        },
        jobs.len(),
    ))
}

impl Studied {
    /// The paper's claims as checked (counted in the verdict line at the end).
    pub fn claims(&self) -> &[Claim] {
        self.outcome.claims()
    }
    /// The tables and claims as text, for the terminal.
    pub fn text(&self) -> String {
        crate::render::text(self.paper, &self.outcome.document())
    }
    /// The report as JSON (the value under the paper's name in `--json`).
    pub fn json(&self) -> Result<serde_json::Value, String> {
        self.outcome.json()
    }
    /// Every run and the report into `dir` (`--out`; `dir` is the paper's own directory).
    pub fn write_outputs(&self, dir: &Path) -> Result<(), String> {
        for (name, contents) in self.outcome.files()? {
            write_file(&dir.join(name), contents)?;
        }
        Ok(())
    }
    /// The paper's section of `index.html`; its figures go into `dir/<paper>/`.
    pub fn report_section(&self, dir: &Path) -> Result<String, String> {
        crate::render::html_section(dir, self.paper, &self.outcome.document())
    }
}

/// The one-line verdict `reproduce` ends with, from the claims the reports checked: `claims: 9 of
/// 25 hold, 15 fail, 1 not checked (paper000 3/8, ...)`. A claim not checked (`n/a`: its runs
/// were not made, or it is a question rather than a claim) counts in the total, not as a failure.
/// `None` when no paper had a claim to check (paper 000's ablation alone).
pub fn verdict_line(papers: &[Studied]) -> Option<String> {
    let count = |cs: &[Claim], v: Option<bool>| cs.iter().filter(|c| c.holds == v).count();
    let (mut holds, mut fails, mut open, mut all) = (0, 0, 0, 0);
    let per: Vec<String> = papers
        .iter()
        .map(|p| {
            let cs = p.claims();
            holds += count(cs, Some(true));
            fails += count(cs, Some(false));
            open += count(cs, None);
            all += cs.len();
            format!("{} {}/{}", p.paper.name(), count(cs, Some(true)), cs.len())
        })
        .collect();
    let open = if open > 0 {
        format!(", {open} not checked")
    } else {
        String::new()
    };
    (all > 0).then(|| {
        format!(
            "claims: {holds} of {all} hold, {fails} fail{open} ({})",
            per.join(", ")
        )
    })
}
