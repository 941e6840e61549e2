//! Reproducing a paper: which papers and parts the words name, the runs each needs and its report
//! from their results. The command line renders the reports (text, files, the HTML page) and the
//! Python package returns them as dicts; both run the same jobs through the parallel runner.

use snooplab_proto::tcp::HostPreset;
use snooplab_sim::reproduce::paper000::{self, Paper000};
use snooplab_sim::reproduce::paper001;
use snooplab_sim::reproduce::paper002::{self, Paper002Data, Report002};
use snooplab_sim::reproduce::paper004::{self, Paper004, Report004};
use snooplab_sim::reproduce::Paper;
use snooplab_sim::{Network, RunResult, Scenario};

use crate::parallel::Runner;
use crate::Error;

/// One paper and what of it to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selection {
    pub paper: Paper,
    /// The parts named after the paper (empty: all of it).
    pub parts: Vec<String>,
}

/// What every paper's run shares.
#[derive(Clone, Debug, Default)]
pub struct Common {
    /// `None`: the paper's own number of trials.
    pub seeds: Option<u64>,
    /// `None`: the paper's hosts.
    pub host: Option<HostPreset>,
    pub threads: Option<usize>,
}

impl Common {
    pub fn seeds(&self, paper: Paper) -> u64 {
        self.seeds.unwrap_or_else(|| paper.default_seeds())
    }
    pub fn host(&self, paper: Paper) -> HostPreset {
        self.host.unwrap_or_else(|| paper.default_host())
    }
}

/// The papers and parts the words name, in the order given (no words: every built paper). A word
/// that is not a paper is a part of the paper before it, or of paper 000 when it comes first.
pub fn selections(words: &[String]) -> Result<Vec<Selection>, Error> {
    if words.is_empty() {
        return Ok(Paper::BUILT
            .iter()
            .map(|&paper| Selection {
                paper,
                parts: vec![],
            })
            .collect());
    }
    let mut out: Vec<Selection> = vec![];
    for w in words {
        if let Some(paper) = Paper::parse(w) {
            if out.iter().any(|s| s.paper == paper) {
                return Err(Error::Invalid(format!("{} is named twice", paper.name())));
            }
            out.push(Selection {
                paper,
                parts: vec![],
            });
            continue;
        }
        if w.trim().to_ascii_lowercase().starts_with("paper") {
            let built: Vec<&str> = Paper::BUILT.iter().map(|p| p.name()).collect();
            return Err(Error::Invalid(format!(
                "unknown paper '{w}' (built: {})",
                built.join(", ")
            )));
        }
        match out.last_mut() {
            Some(s) => s.parts.push(w.clone()),
            None => out.push(Selection {
                paper: Paper::Paper000,
                parts: vec![w.clone()],
            }),
        }
    }
    Ok(out)
}

/// Parts named by words, each once, in order (none: all of them).
fn parts<P: Copy + PartialEq>(
    words: &[String],
    all: &[P],
    parse: impl Fn(&str) -> Result<Vec<P>, String>,
) -> Result<Vec<P>, Error> {
    if words.is_empty() {
        return Ok(all.to_vec());
    }
    let mut out = vec![];
    for w in words {
        for p in parse(w).map_err(Error::Invalid)? {
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    Ok(out)
}

/// Paper 000's parts named by words (none: all of them).
pub fn paper000_parts(words: &[String]) -> Result<Vec<paper000::Part>, Error> {
    parts(words, &paper000::Part::ALL, paper000::Part::parse)
}

/// Paper 001's parts named by words (none: all of them).
pub fn paper001_parts(words: &[String]) -> Result<Vec<paper001::Part>, Error> {
    parts(words, &paper001::Part::ALL, paper001::Part::parse)
}

/// Paper 002's parts named by words (none: all of them).
pub fn paper002_parts(words: &[String]) -> Result<paper002::Parts, Error> {
    paper002::Parts::parse(words).map_err(Error::Invalid)
}

/// Paper 004 has one figure; a part name is refused.
pub fn paper004_parts(words: &[String]) -> Result<(), Error> {
    match words {
        [] => Ok(()),
        [w] if w.eq_ignore_ascii_case("fig2") || w.eq_ignore_ascii_case("all") => Ok(()),
        [w, ..] => Err(Error::Invalid(format!(
            "unknown part '{w}' of paper004 (known: fig2, all)"
        ))),
    }
}

/// Checks the parts each selection names.
pub fn check_parts(sels: &[Selection]) -> Result<(), Error> {
    for s in sels {
        match s.paper {
            Paper::Paper000 => {
                paper000_parts(&s.parts)?;
            }
            Paper::Paper001 => {
                paper001_parts(&s.parts)?;
            }
            Paper::Paper002 => {
                paper002_parts(&s.parts)?;
            }
            Paper::Paper004 => paper004_parts(&s.parts)?,
        }
    }
    Ok(())
}

/// The most seeds per configuration `reproduce` runs.
pub const MAX_SEEDS: u64 = 10_000;

/// A number of seeds per configuration, 1 to [`MAX_SEEDS`].
pub fn check_seeds(n: u64) -> Result<u64, Error> {
    if n == 0 || n > MAX_SEEDS {
        return Err(Error::Invalid(format!(
            "seeds {n} is out of range: use 1 to {MAX_SEEDS}"
        )));
    }
    Ok(n)
}

/// Paper 000 planned: its experiments, each to run with every seed.
pub struct Plan000 {
    parts: Vec<paper000::Part>,
    exps: Vec<paper000::Experiment>,
    seeds: u64,
    paper: Paper000,
}

/// Paper 000 run: its experiments, every seed's result, the report.
pub struct Run000 {
    pub exps: Vec<paper000::Experiment>,
    pub per: Vec<Vec<RunResult>>,
    pub report: paper000::Report,
}

impl Plan000 {
    /// The parts the words name, every host with `common`'s profile (default: the paper's).
    pub fn new(words: &[String], common: &Common) -> Result<Plan000, Error> {
        let parts = paper000_parts(words)?;
        let seeds = common.seeds(Paper::Paper000);
        let host = common.host(Paper::Paper000);
        let paper = Paper000::load().map_err(Error::Invalid)?;
        let mut exps = paper000::experiments(&parts);
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
    pub fn jobs(&self) -> Vec<Scenario> {
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

    /// The report from [`Plan000::jobs`]'s results, in order.
    pub fn finish(self, results: &[RunResult]) -> Run000 {
        let per: Vec<Vec<RunResult>> = results
            .chunks(self.seeds as usize)
            .map(<[_]>::to_vec)
            .collect();
        let report = paper000::evaluate(&self.parts, &self.exps, &per, &self.paper, self.seeds);
        Run000 {
            exps: self.exps,
            per,
            report,
        }
    }
}

/// Paper 001 planned: its testbeds, each to run with every seed.
pub struct Plan001 {
    parts: Vec<paper001::Part>,
    exps: Vec<paper001::Experiment>,
    seeds: u64,
    host: HostPreset,
}

/// Paper 001 run: its experiments, every seed's result, the report.
pub struct Run001 {
    pub exps: Vec<paper001::Experiment>,
    pub per: Vec<Vec<RunResult>>,
    pub report: paper001::Report,
    /// The hosts' profile of every run.
    pub host: HostPreset,
}

/// One trial of paper 001's testbed with every host on `host`'s profile.
pub fn paper001_network(e: &paper001::Experiment, seed: u64, host: HostPreset) -> Network {
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
    pub fn new(words: &[String], common: &Common) -> Result<Plan001, Error> {
        let parts = paper001_parts(words)?;
        Ok(Plan001 {
            exps: paper001::experiments(&parts),
            parts,
            seeds: common.seeds(Paper::Paper001),
            host: common.host(Paper::Paper001),
        })
    }

    /// Every run: each testbed with seeds 1 ..= seeds.
    pub fn jobs(&self) -> Vec<Network> {
        self.exps
            .iter()
            .flat_map(|e| (1..=self.seeds).map(move |s| paper001_network(e, s, self.host)))
            .collect()
    }

    /// The report from [`Plan001::jobs`]'s results, in order.
    pub fn finish(self, results: &[RunResult]) -> Run001 {
        let per: Vec<Vec<RunResult>> = results
            .chunks(self.seeds as usize)
            .map(<[_]>::to_vec)
            .collect();
        let report = paper001::evaluate(&self.parts, &self.exps, &per, self.seeds);
        Run001 {
            exps: self.exps,
            per,
            report,
            host: self.host,
        }
    }
}

/// Paper 002 planned: its jobs, each to run with every seed.
pub struct Plan002 {
    paper: Paper002Data,
    jobs: Vec<paper002::Job>,
    seeds: u64,
    host: HostPreset,
}

/// Paper 002 run: every run and the report.
pub struct Run002 {
    pub runs: Vec<RunResult>,
    pub report: Report002,
}

impl Plan002 {
    /// The environment label of its runs.
    pub const ENV: &'static str = "lan";

    pub fn new(words: &[String], common: &Common) -> Result<Plan002, Error> {
        let parts = paper002_parts(words)?;
        let paper = Paper002Data::load().map_err(Error::Invalid)?;
        Ok(Plan002 {
            jobs: paper002::jobs(&paper, parts),
            paper,
            seeds: common.seeds(Paper::Paper002),
            host: common.host(Paper::Paper002),
        })
    }

    /// Every job's network with every seed, in order, every host with the plan's profile.
    pub fn jobs(&self) -> Vec<Network> {
        self.jobs
            .iter()
            .flat_map(|&j| {
                (1..=self.seeds).map(move |s| {
                    let mut net = paper002::network(j, s);
                    for f in &mut net.flows {
                        f.host_preset = self.host;
                        f.host = self.host.profile();
                    }
                    net
                })
            })
            .collect()
    }

    pub fn finish(self, results: Vec<RunResult>) -> Run002 {
        let report = paper002::evaluate(&self.paper, &self.jobs, self.seeds, &results);
        Run002 {
            runs: results,
            report,
        }
    }
}

/// Paper 004 planned: Fig. 2's points, each to run with every seed.
pub struct Plan004 {
    paper: Paper004,
    seeds: u64,
    host: HostPreset,
}

/// Paper 004 run: every run and the report.
pub struct Run004 {
    pub runs: Vec<RunResult>,
    pub report: Report004,
}

impl Plan004 {
    pub fn new(words: &[String], common: &Common) -> Result<Plan004, Error> {
        paper004_parts(words)?;
        Ok(Plan004 {
            paper: Paper004::load().map_err(Error::Invalid)?,
            seeds: common.seeds(Paper::Paper004),
            host: common.host(Paper::Paper004),
        })
    }

    pub fn jobs(&self) -> Vec<Scenario> {
        let mut js = paper004::jobs(&self.paper, self.seeds);
        for j in &mut js {
            j.set_host(self.host);
        }
        js
    }

    pub fn finish(self, results: Vec<RunResult>) -> Run004 {
        let report = paper004::evaluate(&self.paper, self.seeds, &results);
        Run004 {
            runs: results,
            report,
        }
    }
}

/// A paper's report as `snooplab reproduce --json` prints it under the paper's name, its runs on
/// `runner`.
pub fn report_json(
    sel: &Selection,
    common: &Common,
    runner: &Runner,
) -> Result<serde_json::Value, Error> {
    let encode = |r: Result<serde_json::Value, serde_json::Error>| {
        r.map_err(|e| Error::Invalid(format!("cannot encode report: {e}")))
    };
    match sel.paper {
        Paper::Paper000 => {
            let plan = Plan000::new(&sel.parts, common)?;
            let results = runner.run_all(&plan.jobs())?;
            encode(serde_json::to_value(plan.finish(&results).report))
        }
        Paper::Paper001 => {
            let plan = Plan001::new(&sel.parts, common)?;
            let results = runner.run_networks(&plan.jobs(), Plan001::ENV)?;
            encode(serde_json::to_value(plan.finish(&results).report))
        }
        Paper::Paper002 => {
            let plan = Plan002::new(&sel.parts, common)?;
            let results = runner.run_networks(&plan.jobs(), Plan002::ENV)?;
            encode(serde_json::to_value(plan.finish(results).report))
        }
        Paper::Paper004 => {
            let plan = Plan004::new(&sel.parts, common)?;
            let results = runner.run_all(&plan.jobs())?;
            encode(serde_json::to_value(plan.finish(results).report))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(w: &[&str]) -> Vec<String> {
        w.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn words_name_papers_and_their_parts() {
        let all = selections(&[]).expect("all");
        assert_eq!(all.len(), Paper::BUILT.len());
        let s = selections(&words(&["table3"])).expect("a part alone");
        assert_eq!(s[0].paper, Paper::Paper000);
        assert_eq!(s[0].parts, ["table3"]);
        let s = selections(&words(&["paper000", "table2", "fig12"])).expect("two parts");
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].parts, ["table2", "fig12"]);
        assert!(selections(&words(&["paper000", "paper0"])).is_err());
        let e = selections(&words(&["paper009"])).expect_err("not built");
        assert!(e.to_string().contains("unknown paper 'paper009'"), "{e}");
    }

    #[test]
    fn a_plan_runs_each_experiment_with_every_seed() {
        let common = Common {
            seeds: Some(2),
            ..Common::default()
        };
        let plan = Plan000::new(&words(&["fig12"]), &common).unwrap();
        let jobs = plan.jobs();
        // six schemes at five error rates, two seeds each
        assert_eq!(jobs.len(), 6 * 5 * 2);
        assert_eq!((jobs[0].seed, jobs[1].seed, jobs[2].seed), (1, 2, 1));
        assert!(paper004_parts(&words(&["fig3"])).is_err());
    }
}
