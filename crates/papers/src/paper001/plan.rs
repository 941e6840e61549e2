//! Paper 001 planned and run: its testbeds with every seed, every host on the chosen profile
//! (default: the paper's FreeBSD 2.2.1), and the report from their results.

use snooplab_proto::tcp::HostPreset;
use snooplab_sim::{Job, Network, RunResult};

use super::data::ABOUT;
use super::evaluate::evaluate;
use super::experiments::{experiments, Experiment, Part};
use super::report::Report;
use crate::study::{Common, Plan};

/// Paper 001 planned: its testbeds, each to run with every seed.
pub struct Plan001 {
    parts: Vec<Part>,
    exps: Vec<Experiment>,
    seeds: u64,
    host: HostPreset,
}

/// Paper 001 run: its experiments, every seed's result, the report.
pub struct Run001 {
    pub exps: Vec<Experiment>,
    pub per: Vec<Vec<RunResult>>,
    pub report: Report,
    /// The hosts' profile of every run.
    pub host: HostPreset,
}

/// One trial of paper 001's testbed with every host on `host`'s profile.
pub fn paper001_network(e: &Experiment, seed: u64, host: HostPreset) -> Network {
    let mut net = e.network(seed);
    for f in &mut net.flows {
        f.host_preset = host;
        f.host = host.profile();
    }
    net
}

impl Plan001 {
    /// The env label of paper 001's runs.
    pub const ENV: &'static str = "paper001";

    /// The parts the words name, every host with `common`'s profile (default: the paper's
    /// FreeBSD 2.2.1).
    pub fn new(words: &[String], common: &Common) -> Result<Plan001, String> {
        let parts = parts(words)?;
        Ok(Plan001 {
            exps: experiments(&parts),
            parts,
            seeds: common.seeds(&ABOUT),
            host: common.host(&ABOUT),
        })
    }
}

/// The plan as `reproduce` runs it (`study::Plan`).
impl Plan for Plan001 {
    type Run = Run001;

    /// Every run: each testbed with seeds 1 ..= seeds.
    fn jobs(&self) -> Vec<Job> {
        self.exps
            .iter()
            .flat_map(|e| {
                (1..=self.seeds)
                    .map(move |s| Job::new(paper001_network(e, s, self.host), Self::ENV))
            })
            .collect()
    }

    /// The report from [`Plan001::jobs`]'s results, in order.
    fn finish(self, results: Vec<RunResult>) -> Run001 {
        let results = &results[..];
        let per: Vec<Vec<RunResult>> = results
            .chunks(self.seeds as usize)
            .map(<[_]>::to_vec)
            .collect();
        let report = evaluate(&self.parts, &self.exps, &per, self.seeds);
        Run001 {
            exps: self.exps,
            per,
            report,
            host: self.host,
        }
    }
}

/// Paper 001's parts named by words (none: all of them).
pub fn parts(words: &[String]) -> Result<Vec<Part>, String> {
    crate::study::parts(words, &Part::ALL, Part::parse)
}
