//! Paper 004 planned and run: Fig. 2's points with every seed, every host on the chosen profile,
//! and the report from their results.

use snooplab_proto::tcp::HostPreset;
use snooplab_sim::{Job, RunResult};

use super::data::{Paper004, ABOUT};
use super::evaluate::evaluate;
use super::experiments::jobs;
use super::report::Report004;
use crate::study::{Common, Plan, Reported};

/// Paper 004 planned: Fig. 2's points, each to run with every seed.
pub struct Plan004 {
    paper: Paper004,
    seeds: u64,
    host: HostPreset,
}

/// Paper 004 run: every run and the report.
pub type Run004 = Reported<Report004>;

impl Plan004 {
    pub fn new(words: &[String], common: &Common) -> Result<Plan004, String> {
        parts(words)?;
        Ok(Plan004 {
            paper: Paper004::load()?,
            seeds: common.seeds(&ABOUT),
            host: common.host(&ABOUT),
        })
    }
}

/// The plan as `reproduce` runs it (`study::Plan`).
impl Plan for Plan004 {
    type Run = Run004;

    fn jobs(&self) -> Vec<Job> {
        let mut js = jobs(&self.paper, self.seeds);
        for j in &mut js {
            j.set_host(self.host);
        }
        js.iter().map(Job::from).collect()
    }

    fn finish(self, results: Vec<RunResult>) -> Run004 {
        let report = evaluate(&self.paper, self.seeds, &results);
        Run004 {
            runs: results,
            report,
        }
    }
}

/// Paper 004 has one figure; a part name is refused.
pub fn parts(words: &[String]) -> Result<(), String> {
    match words {
        [] => Ok(()),
        [w] if w.eq_ignore_ascii_case("fig2") || w.eq_ignore_ascii_case("all") => Ok(()),
        [w, ..] => Err(format!("unknown part '{w}' of paper004 (known: fig2, all)")),
    }
}
