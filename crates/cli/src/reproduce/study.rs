//! A paper made a study (`snooplab_papers::study`): planned, run on the cores with a progress line,
//! and its outcome shown through the renderers every study shares (`crate::render`).

use std::path::Path;

use snooplab_papers::study::{Outcome, Study};
use snooplab_papers::{Claim, Paper};

use super::{Common, Reproduced};
use crate::files::write_file;

/// A study's outcome with the paper it is of.
struct Studied {
    paper: Paper,
    outcome: Box<dyn Outcome>,
}

/// Plans `study` for the parts `words` name and runs it; returns its outputs and the number of
/// runs.
pub fn run(
    paper: Paper,
    study: &dyn Study,
    words: &[String],
    common: &Common,
) -> Result<(Box<dyn Reproduced>, usize), String> {
    let plan = study.plan(words, common)?;
    let jobs = plan.jobs();
    let results = crate::parallel::run_jobs(&jobs, common.threads, "reproduce")?;
    Ok((
        Box::new(Studied {
            paper,
            outcome: plan.finish(results),
        }),
        jobs.len(),
    ))
}

impl Reproduced for Studied {
    fn paper(&self) -> Paper {
        self.paper
    }
    fn claims(&self) -> &[Claim] {
        self.outcome.claims()
    }
    fn text(&self) -> String {
        crate::render::text(self.paper, &self.outcome.document())
    }
    fn json(&self) -> Result<serde_json::Value, String> {
        self.outcome.json()
    }
    fn write_outputs(&self, dir: &Path) -> Result<(), String> {
        for (name, contents) in self.outcome.files()? {
            write_file(&dir.join(name), contents)?;
        }
        Ok(())
    }
    fn report_section(&self, dir: &Path) -> Result<String, String> {
        crate::render::html_section(dir, self.paper, &self.outcome.document())
    }
}
