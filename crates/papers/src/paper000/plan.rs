//! Paper 000 planned and run: its experiments with every seed, every host on the chosen profile,
//! and the report from their results.

use snooplab_sim::{Job, RunResult, Scenario};

use super::data::{Paper000, ABOUT};
use super::evaluate::evaluate;
use super::experiments::{experiments, Experiment, Part};
use super::report::Report;
use crate::study::{Common, Plan};

/// Paper 000 planned: its experiments, each to run with every seed.
pub struct Plan000 {
    parts: Vec<Part>,
    exps: Vec<Experiment>,
    seeds: u64,
    paper: Paper000,
}

/// Paper 000 run: its experiments, every seed's result, the report.
pub struct Run000 {
    pub exps: Vec<Experiment>,
    pub per: Vec<Vec<RunResult>>,
    pub report: Report,
}

impl Plan000 {
    /// The parts the words name, every host with `common`'s profile (default: the paper's).
    pub fn new(words: &[String], common: &Common) -> Result<Plan000, String> {
        let parts = parts(words)?;
        let seeds = common.seeds(&ABOUT);
        let host = common.host(&ABOUT);
        let paper = Paper000::load()?;
        let mut exps = experiments(&parts);
        for e in &mut exps {
            e.scenario.set_host(host);
        }
        Ok(Plan000 {
            parts,
            exps,
            seeds,
            paper,
        })
    }

    /// Every run: each experiment with seeds 1 ..= seeds.
    pub fn scenarios(&self) -> Vec<Scenario> {
        self.exps
            .iter()
            .flat_map(|e| {
                (1..=self.seeds).map(move |s| Scenario {
                    seed: s,
                    ..e.scenario.clone()
                })
            })
            .collect()
    }
}

/// The plan as `reproduce` runs it (`study::Plan`).
impl Plan for Plan000 {
    type Run = Run000;

    /// [`Plan000::scenarios`] as jobs.
    fn jobs(&self) -> Vec<Job> {
        self.scenarios().iter().map(Job::from).collect()
    }

    /// The report from [`Plan000::jobs`]'s results, in order.
    fn finish(self, results: Vec<RunResult>) -> Run000 {
        let results = &results[..];
        let per: Vec<Vec<RunResult>> = results
            .chunks(self.seeds as usize)
            .map(<[_]>::to_vec)
            .collect();
        let report = evaluate(&self.parts, &self.exps, &per, &self.paper, self.seeds);
        Run000 {
            exps: self.exps,
            per,
            report,
        }
    }
}

/// Paper 000's parts named by words (none: all of them).
pub fn parts(words: &[String]) -> Result<Vec<Part>, String> {
    crate::study::parts(words, &Part::ALL, Part::parse)
}
