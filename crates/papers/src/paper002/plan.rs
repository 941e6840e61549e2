//! Paper 002 planned and run: its jobs with every seed, every host on the chosen profile, and the
//! report from their results.

use snooplab_proto::tcp::HostPreset;
use snooplab_sim::{Job, RunResult};

use super::data::{Paper002Data, ABOUT};
use super::evaluate::evaluate;
use super::experiments::{experiments, network_read, Experiment, Parts};
use super::readings::Read002;
use super::report::Report002;
use crate::study::{Common, Plan, Reported};

/// Paper 002 planned: its jobs, each to run with every seed.
pub struct Plan002 {
    paper: Paper002Data,
    exps: Vec<(Experiment, Read002)>,
    seeds: u64,
    host: HostPreset,
}

/// Paper 002 run: every run and the report.
pub type Run002 = Reported<Report002>;

impl Plan002 {
    /// The environment label of its runs.
    pub const ENV: &'static str = "lan";

    pub fn new(words: &[String], common: &Common) -> Result<Plan002, String> {
        let parts = parts(words)?;
        let paper = Paper002Data::load()?;
        Ok(Plan002 {
            exps: experiments(&paper, parts),
            paper,
            seeds: common.seeds(&ABOUT),
            host: common.host(&ABOUT),
        })
    }
}

/// The plan as `reproduce` runs it (`study::Plan`).
impl Plan for Plan002 {
    type Run = Run002;

    /// Every job's network with every seed, in order, every host with the plan's profile.
    fn jobs(&self) -> Vec<Job> {
        self.exps
            .iter()
            .flat_map(|&(j, read)| {
                (1..=self.seeds).map(move |s| {
                    let mut net = network_read(j, read, s);
                    for f in &mut net.flows {
                        f.host_preset = self.host;
                        f.host = self.host.profile();
                    }
                    Job::new(net, Self::ENV)
                })
            })
            .collect()
    }

    fn finish(self, results: Vec<RunResult>) -> Run002 {
        let report = evaluate(&self.paper, &self.exps, self.seeds, &results);
        Run002 {
            runs: results,
            report,
        }
    }
}

/// Paper 002's parts named by words (none: all of them).
pub fn parts(words: &[String]) -> Result<Parts, String> {
    Parts::parse(words)
}
