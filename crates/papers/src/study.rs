//! What every paper (or study of our own) offers `snooplab reproduce`, the Python package and the
//! report: a plan of runs from the words that name its parts, and, from their results, an outcome
//! that is data (JSON, the `--out` files, a [`Document`]) and never renders itself.

use snooplab_proto::tcp::HostPreset;
use snooplab_sim::{Job, RunResult};

use crate::claim::Claim;
use crate::document::Document;

/// What every paper's run shares: `reproduce`'s `--seeds`, `--host` and `--threads` (a study's
/// [`Study::plan`] takes it).
#[derive(Clone, Debug, Default)]
pub struct Common {
    /// `None`: the paper's own number of trials.
    pub seeds: Option<u64>,
    /// `None`: the paper's hosts.
    pub host: Option<HostPreset>,
    /// `--against`: the other profile of a study that compares two (paper 000's ablation);
    /// `None`: that study's default.
    pub against: Option<HostPreset>,
    pub threads: Option<usize>,
}

impl Common {
    /// `--seeds`, or the paper's own number of trials.
    pub fn seeds(&self, paper: &About) -> u64 {
        self.seeds.unwrap_or(paper.default_seeds)
    }
    /// `--host`, or the paper's hosts.
    pub fn host(&self, paper: &About) -> HostPreset {
        self.host.unwrap_or(paper.default_host)
    }
}

/// What `reproduce` names and prints of a study, and its defaults.
#[derive(Clone, Copy, Debug)]
pub struct About {
    /// The name on the command line and in outputs (`paper000`).
    pub name: &'static str,
    /// Authors, title and year, for headings.
    pub citation: &'static str,
    /// Seeds per configuration when `--seeds` is not given: the paper's own number of trials.
    pub default_seeds: u64,
    /// The TCP implementation of the paper's hosts when `--host` is not given.
    pub default_host: HostPreset,
    /// The words that name its parts, for `reproduce --help` (what `check_parts` takes).
    pub parts: &'static str,
}

/// A paper (or a study of our own) `reproduce` can run. Every one is listed once in
/// [`crate::PAPERS`]; nothing else names it.
pub trait Study: Sync {
    fn about(&self) -> &'static About;
    /// Refuses the words that name none of its parts (before anything runs).
    fn check_parts(&self, words: &[String]) -> Result<(), String>;
    /// Its runs for the parts `words` name (none: every part), with `common`'s seeds and hosts.
    fn plan(&self, words: &[String], common: &Common) -> Result<Box<dyn Planned>, String>;
}

impl dyn Study {
    pub fn name(&self) -> &'static str {
        self.about().name
    }
    pub fn citation(&self) -> &'static str {
        self.about().citation
    }
}

impl std::fmt::Debug for dyn Study {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A study's runs, planned.
pub trait Planned {
    /// Every run, each configuration with every seed, in the order [`Planned::finish`] reads
    /// their results.
    fn jobs(&self) -> Vec<Job>;
    /// The outcome from the results of [`Planned::jobs`], in the same order.
    fn finish(self: Box<Self>, results: Vec<RunResult>) -> Box<dyn Outcome>;
}

/// A study's plan as its own type: its jobs, and its outcome from their results. Every `Plan` is
/// [`Planned`], so a study implements this once and boxes it.
pub trait Plan: Sized + 'static {
    type Run: Outcome + 'static;
    /// Every run, in the order [`Plan::finish`] reads their results.
    fn jobs(&self) -> Vec<Job>;
    /// The outcome from the results of [`Plan::jobs`], in the same order.
    fn finish(self, results: Vec<RunResult>) -> Self::Run;
}

impl<T: Plan> Planned for T {
    fn jobs(&self) -> Vec<Job> {
        Plan::jobs(self)
    }
    fn finish(self: Box<Self>, results: Vec<RunResult>) -> Box<dyn Outcome> {
        Box::new(Plan::finish(*self, results))
    }
}

/// A study, run and evaluated.
pub trait Outcome: Send {
    /// The claims as checked (counted in `reproduce`'s verdict line).
    fn claims(&self) -> &[Claim];
    /// The report as JSON (the value under the paper's name in `reproduce --json`).
    fn json(&self) -> Result<serde_json::Value, String>;
    /// The files `reproduce --out DIR` writes into the paper's directory: (name, contents).
    fn files(&self) -> Result<Vec<(String, String)>, String>;
    /// The report to read: tables, claims, charts and example runs.
    fn document(&self) -> Document;
}

/// A study's report as data: the claims it checked and the document to read. A study whose outcome
/// is its report and every run's result implements this on the report and runs as a
/// [`Reported`] of it.
pub trait StudyReport: serde::Serialize + Send {
    /// The claims as checked.
    fn claims(&self) -> &[Claim];
    /// The report to read (the study's own renderer of its tables, claims and charts).
    fn document(&self) -> Document;
    /// The `--out` files besides `report.json` and `runs.json`, from the runs (none unless the
    /// study writes more, as paper 004's `runs.csv`).
    fn more_files(&self, _runs: &[RunResult]) -> Vec<(String, String)> {
        vec![]
    }
}

/// A study run whose outcome is every run's result, in the plan's order, and the report from
/// them: its JSON is the report, its `--out` files [`report_and_runs`] and the report's own.
pub struct Reported<R> {
    pub runs: Vec<RunResult>,
    pub report: R,
}

impl<R: StudyReport> Outcome for Reported<R> {
    fn claims(&self) -> &[Claim] {
        self.report.claims()
    }
    fn json(&self) -> Result<serde_json::Value, String> {
        serde_json::to_value(&self.report).map_err(|e| format!("cannot encode report: {e}"))
    }
    fn files(&self) -> Result<Vec<(String, String)>, String> {
        let mut files = report_and_runs(&self.report, &self.runs)?;
        files.extend(self.report.more_files(&self.runs));
        Ok(files)
    }
    fn document(&self) -> Document {
        self.report.document()
    }
}

/// Refuses any word for a study that has no parts: `study`'s name and why (`it has no parts`).
pub(crate) fn no_parts(words: &[String], study: &str, why: &str) -> Result<(), String> {
    match words.first() {
        None => Ok(()),
        Some(w) => Err(format!("unknown part '{w}' of {study}: {why}")),
    }
}

/// Parts named by words, each once, in order (none: all of them).
pub(crate) fn parts<P: Copy + PartialEq>(
    words: &[String],
    all: &[P],
    parse: impl Fn(&str) -> Result<Vec<P>, String>,
) -> Result<Vec<P>, String> {
    if words.is_empty() {
        return Ok(all.to_vec());
    }
    let mut out = vec![];
    for w in words {
        for p in parse(w)? {
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    Ok(out)
}

/// `report.json` (indented) and `runs.json` (every run's result), the two files every study
/// writes with `--out`.
pub fn report_and_runs<R: serde::Serialize, U: serde::Serialize>(
    report: &R,
    runs: &U,
) -> Result<Vec<(String, String)>, String> {
    let report =
        serde_json::to_string_pretty(report).map_err(|e| format!("cannot encode report: {e}"))?;
    let runs = serde_json::to_string(runs).map_err(|e| format!("cannot encode runs: {e}"))?;
    Ok(vec![
        ("report.json".into(), report),
        ("runs.json".into(), runs),
    ])
}
