//! A sweep's grid: every combination of the listed settings over a base scenario, each run with
//! every seed, in a fixed order, so results never depend on threads or on how the runs are split
//! between machines. The command line reads its list flags into [`SweepSettings`]; the Python
//! package reads a dict ([`SweepSettings::from_json`]).

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Deserialize;
use snooplab_proto::tcp::HostPreset;
use snooplab_sim::scenario::{default_scenario, size_u32, ScenarioFile};
use snooplab_sim::{Env, Protocol, RunResult, Scenario};

use crate::settings::{apply_host_details, parse_seed, parse_size_of, parse_u32, split_distinct};
use crate::summary::{summarize, ConfigSummary};
use crate::Error;

/// The most runs one sweep plans (documented in `--help` and docs/outputs.md): every planned
/// scenario and every result is held in memory until the summaries are made, so a cross
/// product of tens of millions would exhaust the machine before the first run ends.
pub const MAX_PLANNED_RUNS: u64 = 100_000;

/// What every combination starts from.
#[derive(Clone, Debug, Default)]
pub enum Base {
    /// The defaults of `snooplab run`.
    #[default]
    Default,
    /// A scenario file over the defaults (trace names relative to its directory).
    File(PathBuf),
    /// Scenario-file settings already read (TOML text or a dict) over the defaults.
    Settings(Box<ScenarioFile>),
}

/// A sweep as text settings: each list comma-separated, `None` to keep the base's value.
#[derive(Clone, Debug)]
pub struct SweepSettings {
    pub base: Base,
    pub protocol: Option<String>,
    pub env: Option<String>,
    pub buffer: Option<String>,
    pub mss: Option<String>,
    pub error_every: Option<String>,
    pub burst: Option<String>,
    pub host: Option<String>,
    /// Transfer sizes of every flow (runs of one combination that differ only in their
    /// transfers are made as one run that forks, `sim/src/run/sharing/fork.rs`).
    pub transfer: Option<String>,
    pub host_detail: Vec<String>,
    pub seeds: String,
    pub seed_base: String,
    pub threads: Option<usize>,
}

impl Default for SweepSettings {
    /// The command line's defaults: 10 seeds from seed 1.
    fn default() -> SweepSettings {
        SweepSettings {
            base: Base::Default,
            protocol: None,
            env: None,
            buffer: None,
            mss: None,
            error_every: None,
            burst: None,
            host: None,
            transfer: None,
            host_detail: vec![],
            seeds: "10".into(),
            seed_base: "1".into(),
            threads: None,
        }
    }
}

/// What a sweep runs: every combination, each with seeds `seed_base ..= seed_base + seeds - 1`.
#[derive(Clone, Debug)]
pub struct Plan {
    pub configs: Vec<Scenario>,
    pub seeds: u64,
    pub seed_base: u64,
}

impl Plan {
    /// Every run: each combination with each seed, combinations in order.
    pub fn jobs(&self) -> Vec<Scenario> {
        self.configs
            .iter()
            .flat_map(|sc| {
                (0..self.seeds).map(move |i| Scenario {
                    seed: self.seed_base + i,
                    ..sc.clone()
                })
            })
            .collect()
    }

    /// The combinations `first .. first + count` (fewer at the end) with the same seeds: a part of
    /// the sweep for one task, whose runs and summaries are those of the whole in that range.
    pub fn part(&self, first: usize, count: usize) -> Plan {
        let end = first.saturating_add(count).min(self.configs.len());
        Plan {
            configs: self.configs[first.min(end)..end].to_vec(),
            ..self.clone()
        }
    }

    /// One summary per combination over its seeds; `results` are [`Plan::jobs`]'s, in order.
    pub fn summaries(&self, results: &[RunResult]) -> Vec<ConfigSummary> {
        self.configs
            .iter()
            .zip(results.chunks(self.seeds.max(1) as usize))
            .map(|(sc, runs)| summarize(sc, runs))
            .collect()
    }
}

/// The values of a list setting, or `[None]` (keep the base scenario's) when it is absent. A value
/// named twice (`e2e,e2e`, or `snoop,ll-tcp-aware`, one protocol by two names) is refused: every
/// combination with it would run twice and count twice in the summaries.
fn list<T: Copy + Eq + std::hash::Hash>(
    text: &Option<String>,
    what: &str,
    parse: impl Fn(&str) -> Result<T, Error>,
) -> Result<Vec<Option<T>>, Error> {
    let Some(t) = text else {
        return Ok(vec![None]);
    };
    let out = split_distinct(t, what, "each combination would run twice", parse)?;
    Ok(out.into_iter().map(Some).collect())
}

impl SweepSettings {
    /// Checks every setting and builds the combinations, without running anything.
    pub fn plan(&self) -> Result<Plan, Error> {
        let (configs, seeds) = self.scenarios()?;
        let seed_base = parse_seed(&self.seed_base)
            .map_err(|e| Error::Invalid(e.to_string().replace("seed", "seed-base")))?;
        if seed_base.checked_add(seeds - 1).is_none() {
            return Err(Error::Invalid(format!(
                "seed-base {seed_base} with {seeds} seeds goes past the largest seed, {}",
                u64::MAX
            )));
        }
        if self.threads == Some(0) {
            return Err(Error::Invalid("threads must be at least 1".into()));
        }
        Ok(Plan {
            configs,
            seeds,
            seed_base,
        })
    }

    /// Every combination, in a fixed order: the base, then each listed value.
    fn scenarios(&self) -> Result<(Vec<Scenario>, u64), Error> {
        let a = self;
        let inv = Error::Invalid;
        let mut base = default_scenario();
        match &a.base {
            Base::Default => {}
            Base::File(path) => crate::scenario::apply_file(path, &mut base)?,
            Base::Settings(f) => f.apply(&mut base).map_err(inv)?,
        }
        let size = |what: &'static str| move |t: &str| parse_size_of(t, what);
        let protocols = list(&a.protocol, "protocol", |p| Protocol::parse(p).map_err(inv))?;
        let envs = list(&a.env, "env", |e| Env::parse(e).map_err(inv))?;
        let buffers = list(&a.buffer, "buffer", size("buffer"))?;
        let msss = list(&a.mss, "mss", size("mss"))?;
        let errors = list(&a.error_every, "error-every", size("error-every"))?;
        let bursts = list(&a.burst, "burst", |b| parse_u32(b, "burst"))?;
        let hosts = list(&a.host, "host", |h| HostPreset::parse(h).map_err(inv))?;
        let transfers = list(&a.transfer, "transfer", size("transfer"))?;
        let seeds = parse_seed(&a.seeds)
            .map_err(|e| Error::Invalid(e.to_string().replace("seed", "seeds")))?;
        if seeds == 0 || seeds > 100_000 {
            return Err(Error::Invalid(format!(
                "seeds {seeds} is out of range: use 1 to 100000"
            )));
        }
        // counted before anything is built, so a huge cross product costs nothing
        let combinations = [
            protocols.len(),
            hosts.len(),
            envs.len(),
            buffers.len(),
            msss.len(),
            errors.len(),
            bursts.len(),
            transfers.len(),
        ]
        .iter()
        .fold(1u128, |n, &len| n.saturating_mul(len as u128));
        let runs = combinations.saturating_mul(u128::from(seeds));
        if runs > u128::from(MAX_PLANNED_RUNS) {
            return Err(Error::Invalid(format!(
                "the sweep plans {runs} runs ({combinations} combinations x {seeds} seeds), more \
                 than the limit of {MAX_PLANNED_RUNS}: use fewer values or seeds"
            )));
        }
        let mut out = vec![];
        for &p in &protocols {
            for &h in &hosts {
                for &e in &envs {
                    for &b in &buffers {
                        for &m in &msss {
                            for &err in &errors {
                                for (&k, &t) in bursts
                                    .iter()
                                    .flat_map(|k| transfers.iter().map(move |t| (k, t)))
                                {
                                    let mut sc = base.clone();
                                    if let Some(t) = t {
                                        sc.transfer = t;
                                    }
                                    if let Some(p) = p {
                                        sc.protocol = p;
                                    }
                                    if let Some(e) = e {
                                        sc.set_env(e);
                                    }
                                    if let Some(b) = b {
                                        sc.buffer = size_u32(b, "buffer").map_err(inv)?;
                                    }
                                    if let Some(m) = m {
                                        sc.mss = size_u32(m, "mss").map_err(inv)?;
                                    }
                                    if let Some(err) = err {
                                        sc.error_every = err;
                                        sc.error_every_down = None;
                                        sc.error_every_up = None;
                                        sc.channel_down = None;
                                        sc.channel_up = None;
                                    }
                                    if let Some(k) = k {
                                        sc.burst = k;
                                        sc.channel_down = None;
                                        sc.channel_up = None;
                                    }
                                    if let Some(h) = h {
                                        sc.set_host(h);
                                    }
                                    apply_host_details(&mut sc, &a.host_detail)?;
                                    sc.validate().map_err(inv)?;
                                    out.push(sc);
                                }
                            }
                        }
                    }
                }
            }
        }
        Ok((out, seeds))
    }

    /// A grid as JSON (the Python package's dict): `scenario` (an object with a scenario file's
    /// keys, or its TOML text), the lists `protocol`, `env`, `buffer`, `mss`, `error-every`,
    /// `burst`, `host`, `transfer` (a list or one value each), and `host-details` (a table of
    /// details); unknown keys are refused.
    pub fn from_json(text: &str, seeds: &str, seed_base: &str) -> Result<SweepSettings, Error> {
        let g: GridJson = serde_json::from_str(text).map_err(|e| Error::Invalid(e.to_string()))?;
        let base = match g.scenario {
            None => Base::Default,
            Some(serde_json::Value::String(toml)) => Base::Settings(Box::new(
                ScenarioFile::parse(&toml).map_err(Error::Invalid)?,
            )),
            Some(v) => Base::Settings(Box::new(
                serde_json::from_value(v).map_err(|e| Error::Invalid(e.to_string()))?,
            )),
        };
        let host_detail = g
            .host_details
            .iter()
            .flatten()
            .map(|(k, v)| Ok(format!("{k}={}", scalar(v, "host-details")?)))
            .collect::<Result<Vec<_>, Error>>()?;
        Ok(SweepSettings {
            base,
            protocol: values(&g.protocol, "protocol")?,
            env: values(&g.env, "env")?,
            buffer: values(&g.buffer, "buffer")?,
            mss: values(&g.mss, "mss")?,
            error_every: values(&g.error_every, "error-every")?,
            burst: values(&g.burst, "burst")?,
            host: values(&g.host, "host")?,
            transfer: values(&g.transfer, "transfer")?,
            host_detail,
            seeds: seeds.into(),
            seed_base: seed_base.into(),
            threads: None,
        })
    }
}

/// The JSON form of a grid ([`SweepSettings::from_json`]).
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct GridJson {
    scenario: Option<serde_json::Value>,
    protocol: Option<serde_json::Value>,
    env: Option<serde_json::Value>,
    buffer: Option<serde_json::Value>,
    mss: Option<serde_json::Value>,
    error_every: Option<serde_json::Value>,
    burst: Option<serde_json::Value>,
    host: Option<serde_json::Value>,
    transfer: Option<serde_json::Value>,
    host_details: Option<BTreeMap<String, serde_json::Value>>,
}

/// One value as the text a flag would carry.
fn scalar(v: &serde_json::Value, what: &str) -> Result<String, Error> {
    match v {
        serde_json::Value::String(s) => Ok(s.clone()),
        serde_json::Value::Number(n) => Ok(n.to_string()),
        serde_json::Value::Bool(b) => Ok(if *b { "on" } else { "off" }.into()),
        other => Err(Error::Invalid(format!(
            "{what}: expected a string or number, got {other}"
        ))),
    }
}

/// A list (or one value) as the comma-separated text of a list flag.
fn values(v: &Option<serde_json::Value>, what: &str) -> Result<Option<String>, Error> {
    match v {
        None => Ok(None),
        Some(serde_json::Value::Array(items)) => {
            if items.is_empty() {
                return Err(Error::Invalid(format!("{what}: the list is empty")));
            }
            let texts = items
                .iter()
                .map(|i| scalar(i, what))
                .collect::<Result<Vec<_>, Error>>()?;
            Ok(Some(texts.join(",")))
        }
        Some(one) => scalar(one, what).map(Some),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plan of a JSON grid.
    fn json_plan(grid: &str, seeds: &str, seed_base: &str) -> Plan {
        SweepSettings::from_json(grid, seeds, seed_base)
            .and_then(|s| s.plan())
            .unwrap()
    }

    #[test]
    fn a_json_grid_plans_as_the_flags_do() {
        let flags = SweepSettings {
            protocol: Some("e2e,snoop".into()),
            buffer: Some("8k,32k".into()),
            seeds: "3".into(),
            seed_base: "5".into(),
            ..SweepSettings::default()
        }
        .plan()
        .unwrap();
        let grid = r#"{"protocol": ["e2e", "snoop"], "buffer": ["8k", 32768]}"#;
        let json = json_plan(grid, "3", "5");
        assert_eq!(flags.configs, json.configs);
        let jobs = json.jobs();
        assert_eq!(jobs.len(), 12);
        assert_eq!((jobs[0].seed, jobs[2].seed, jobs[3].seed), (5, 7, 5));
        assert_eq!(jobs[3].buffer, 32768);
        assert_eq!(jobs[6].protocol.name(), "ll-tcp-aware");
        let part = json.part(1, 2);
        assert_eq!(part.configs, json.configs[1..3]);
        assert_eq!(part.jobs(), jobs[3..9]);
        assert!(json.part(4, 2).configs.is_empty());
    }

    #[test]
    fn a_transfer_list_is_one_more_dimension_and_its_runs_fork() {
        let plan = SweepSettings {
            protocol: Some("e2e,er".into()),
            transfer: Some("100k,40k".into()),
            seeds: "4".into(),
            ..SweepSettings::default()
        }
        .plan()
        .unwrap();
        let configs: Vec<(&str, u64)> = plan
            .configs
            .iter()
            .map(|c| (c.protocol.name(), c.transfer))
            .collect();
        assert_eq!(
            configs,
            [
                ("e2e", 102_400),
                ("e2e", 40_960),
                ("er", 102_400),
                ("er", 40_960)
            ]
        );
        let grid = r#"{"protocol": ["e2e", "er"], "transfer": ["100k", 40960]}"#;
        let json = json_plan(grid, "4", "1");
        assert_eq!(json.configs, plan.configs);
        // the runner forks the 40 KB runs from the 100 KB ones and takes ER's from Reno's where
        // the rule never acted: the same results as running each alone
        let jobs = plan.jobs();
        let shared = crate::parallel::Runner::default().run_all(&jobs).unwrap();
        let own: Vec<RunResult> = jobs.iter().map(snooplab_sim::run).collect();
        assert_eq!(shared, own);
    }

    #[test]
    fn bad_grids_say_what_is_wrong() {
        let e = SweepSettings::from_json(r#"{"protocols": ["e2e"]}"#, "1", "1").unwrap_err();
        assert!(e.to_string().contains("unknown field `protocols`"), "{e}");
        let e = SweepSettings::from_json(r#"{"protocol": ["tahoe"]}"#, "1", "1")
            .and_then(|s| s.plan())
            .unwrap_err();
        assert!(e.to_string().starts_with("unknown protocol 'tahoe'"), "{e}");
        let e = SweepSettings::from_json(r#"{"buffer": []}"#, "1", "1").unwrap_err();
        assert_eq!(e.to_string(), "buffer: the list is empty");
        let twice = |g: &str| {
            SweepSettings::from_json(g, "1", "1")
                .and_then(|s| s.plan())
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            twice(r#"{"protocol": ["e2e", "snoop", "e2e"]}"#),
            "protocol list 'e2e,snoop,e2e' names 'e2e' twice: each combination would run twice"
        );
        assert!(
            twice(r#"{"protocol": ["snoop", "ll-tcp-aware"]}"#)
                .contains("one value twice, as 'snoop' and 'll-tcp-aware'"),
            "{}",
            twice(r#"{"protocol": ["snoop", "ll-tcp-aware"]}"#)
        );
        assert!(twice(r#"{"buffer": ["8k", 8192]}"#).contains("as '8k' and '8192'"));
    }
}
