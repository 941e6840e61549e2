//! What each host detail is worth: paper 000's Table III and Table IV cells run with one host
//! detail at a time switched from one profile to the other, in both directions (paper 000's part
//! `ablation`: `snooplab reproduce paper000 ablation`, or `reproduce --ablation`).

use serde::Serialize;
use snooplab_proto::tcp::HostPreset;

use super::data::{Paper000, ABOUT};
use super::experiments::{experiments, Experiment, Part};
use snooplab_sim::metrics::RunResult;
use snooplab_sim::scenario::Scenario;
use snooplab_sim::stats::{summarize, Summary};
use snooplab_sim::Job;

use crate::claim::Claim;
use crate::document::{Document, Row, Table};
use crate::study::{Common, Outcome, Plan};

/// The word that names the ablation among paper 000's parts. It runs alone, and "all" (or no
/// part) does not include it: it is a study of our host model, not one of the paper's tables.
pub const ABLATION: &str = "ablation";

/// The other profile when `--against` is not given: BSD 4.4-Lite, the TCP the hosts were
/// modelled on before profiles (docs/host-profiles.md).
pub const DEFAULT_AGAINST: HostPreset = HostPreset::Bsd44Lite;

/// Whether the words name the ablation; refuses it beside other parts.
pub fn named(words: &[String]) -> Result<bool, String> {
    let is = |w: &String| w.trim().eq_ignore_ascii_case(ABLATION);
    match words.iter().filter(|w| is(w)).count() {
        0 => Ok(false),
        n if n == words.len() => Ok(true),
        _ => Err(format!(
            "the part {ABLATION} runs alone (Tables III and IV with each host detail switched); \
             name it without other parts"
        )),
    }
}

/// The two profiles of the ablation, checked: `--host` (default: the paper's) and `--against`
/// (default: [`DEFAULT_AGAINST`]).
pub fn profiles(common: &Common) -> Result<(HostPreset, HostPreset), String> {
    let from = common.host(&ABOUT);
    let to = common.against.unwrap_or(DEFAULT_AGAINST);
    if from == to {
        return Err(format!(
            "--ablation compares two host profiles, but --host and --against are both {}",
            from.name()
        ));
    }
    Ok((from, to))
}

/// The ablation planned: its two profiles and seeds.
pub struct AblationPlan {
    from: HostPreset,
    to: HostPreset,
    seeds: u64,
    paper: Paper000,
}

impl AblationPlan {
    pub fn new(common: &Common) -> Result<AblationPlan, String> {
        let (from, to) = profiles(common)?;
        Ok(AblationPlan {
            from,
            to,
            seeds: common.seeds(&ABOUT),
            paper: Paper000::load()?,
        })
    }
}

impl Plan for AblationPlan {
    type Run = Ablation;

    /// [`ablation_jobs`] as jobs.
    fn jobs(&self) -> Vec<Job> {
        ablation_jobs(self.from, self.to, self.seeds)
            .iter()
            .map(Job::from)
            .collect()
    }

    fn finish(self, results: Vec<RunResult>) -> Ablation {
        Ablation::evaluate(self.from, self.to, self.seeds, &results, &self.paper)
    }
}

/// The ablation checks no claim of the paper's: it measures what each detail of our host model
/// is worth.
impl Outcome for Ablation {
    fn claims(&self) -> &[Claim] {
        &[]
    }
    fn json(&self) -> Result<serde_json::Value, String> {
        serde_json::to_value(self).map_err(|e| format!("cannot encode the ablation: {e}"))
    }
    fn files(&self) -> Result<Vec<(String, String)>, String> {
        let json = serde_json::to_string_pretty(self)
            .map_err(|e| format!("cannot encode the ablation: {e}"))?;
        Ok(vec![("ablation.json".into(), json)])
    }
    fn document(&self) -> Document {
        Ablation::document(self)
    }
}

/// The parts whose cells the ablation runs: the end-to-end and split-connection tables, where the
/// hosts' TCP does the recovering.
pub const ABLATION_PARTS: [Part; 2] = [Part::Table3, Part::Table4];

/// One host configuration of the ablation: a profile, with at most one detail taken from the other.
#[derive(Clone, Debug, Serialize)]
pub struct Variant {
    /// The profile it starts from.
    pub profile: String,
    /// The detail set to the other profile's value, if any.
    pub detail: Option<String>,
    /// The detail's value in this variant.
    pub value: Option<String>,
}

/// Every variant, in a fixed order: `from`; `from` with each differing detail from `to`; `to`;
/// `to` with each differing detail from `from`.
pub fn variants(from: HostPreset, to: HostPreset) -> Vec<(Variant, Scenario)> {
    let mut out = vec![];
    for (base, other) in [(from, to), (to, from)] {
        let mut sc = Scenario::paper000(
            snooplab_sim::Protocol::E2e,
            snooplab_sim::Env::Lan,
            32768,
            1,
        );
        sc.set_host(base);
        out.push((
            Variant {
                profile: base.name().into(),
                detail: None,
                value: None,
            },
            sc.clone(),
        ));
        let (b, o) = (base.profile(), other.profile());
        for key in b.differences(&o) {
            let mut v = sc.clone();
            if let Some(val) = o.get(key) {
                // a value another profile holds always parses
                let _ = v.host.set(key, &val);
            }
            out.push((
                Variant {
                    profile: base.name().into(),
                    detail: Some(key.into()),
                    value: o.get(key),
                },
                v,
            ));
        }
    }
    out
}

/// The runs of the ablation, in order: every experiment of [`ABLATION_PARTS`], every variant,
/// seeds 1..=`seeds`.
pub fn ablation_jobs(from: HostPreset, to: HostPreset, seeds: u64) -> Vec<Scenario> {
    let vars = variants(from, to);
    let mut jobs = vec![];
    for e in experiments(&ABLATION_PARTS) {
        for (_, host_sc) in &vars {
            for seed in 1..=seeds {
                let mut sc = e.scenario.clone();
                sc.host_preset = host_sc.host_preset;
                sc.host = host_sc.host;
                sc.seed = seed;
                jobs.push(sc);
            }
        }
    }
    jobs
}

/// One cell of a table under every variant.
#[derive(Clone, Debug, Serialize)]
pub struct AblationCell {
    pub part: Part,
    pub row: String,
    pub protocol: String,
    pub paper_throughput_mbps: Option<f64>,
    /// Throughput of each variant, in [`Ablation::variants`] order.
    pub throughput_mbps: Vec<Summary>,
    /// Coarse timeouts per run of each variant.
    pub timeouts: Vec<Summary>,
    /// Runs that did not complete or broke an invariant, per variant.
    pub failures: Vec<usize>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Ablation {
    pub from: String,
    pub to: String,
    pub seeds: u64,
    pub variants: Vec<Variant>,
    pub cells: Vec<AblationCell>,
}

impl Ablation {
    /// Builds the report from the runs of [`ablation_jobs`], in that order.
    pub fn evaluate(
        from: HostPreset,
        to: HostPreset,
        seeds: u64,
        runs: &[RunResult],
        paper: &Paper000,
    ) -> Ablation {
        let vars: Vec<Variant> = variants(from, to).into_iter().map(|(v, _)| v).collect();
        let exps: Vec<Experiment> = experiments(&ABLATION_PARTS);
        let per_cell = vars.len() * seeds as usize;
        let cells = exps
            .iter()
            .zip(runs.chunks(per_cell.max(1)))
            .map(|(e, rs)| {
                let by_variant: Vec<&[RunResult]> = rs.chunks(seeds.max(1) as usize).collect();
                let col = |f: &dyn Fn(&RunResult) -> f64| -> Vec<Summary> {
                    by_variant
                        .iter()
                        .map(|v| summarize(&v.iter().map(f).collect::<Vec<_>>()))
                        .collect()
                };
                AblationCell {
                    part: e.part,
                    row: e.row.clone(),
                    protocol: e.protocol.name().into(),
                    paper_throughput_mbps: paper
                        .cell(e.protocol.name(), &e.row)
                        .map(|c| c.throughput),
                    throughput_mbps: col(&|r| r.flow().throughput_mbps),
                    timeouts: col(&|r| r.flow().timeouts as f64),
                    failures: by_variant
                        .iter()
                        .map(|v| {
                            v.iter()
                                .filter(|r| !(r.invariants.ok() && r.invariants.complete))
                                .count()
                        })
                        .collect(),
                }
            })
            .collect();
        Ablation {
            from: from.name().into(),
            to: to.name().into(),
            seeds,
            variants: vars,
            cells,
        }
    }

    /// The indices of the variants that start from `profile`: the profile itself first.
    pub fn group(&self, profile: &str) -> Vec<usize> {
        (0..self.variants.len())
            .filter(|&i| self.variants[i].profile == profile)
            .collect()
    }
}

impl Ablation {
    /// The ablation to read: from each profile, a table of the cells with the change each
    /// detail switched to the other profile's value makes, and the mean change over the cells.
    pub fn document(&self) -> Document {
        let mut d = Document::default();
        let parts: Vec<&str> = ABLATION_PARTS.iter().map(|p| p.name()).collect();
        d.text(format!(
            "--ablation: {} (8 MB, 1 error / 64 KB), mean of {} seeds. Each table starts from one \
             host profile and switches one detail at a time to the other profile's value; the \
             detail columns give the change of the mean throughput from the first column. '!n': \
             n runs incomplete or with a failed invariant.",
            parts.join(" and "),
            self.seeds
        ));
        for (base, other) in [(&self.from, &self.to), (&self.to, &self.from)] {
            if let Some(t) = self.table(base, other) {
                d.table(t);
            }
        }
        d
    }

    /// The table that starts from `base`, its last column `other` itself.
    fn table(&self, base: &str, other: &str) -> Option<Table> {
        let idx = self.group(base);
        let (&first, rest) = idx.split_first()?;
        let mut columns = vec!["cell".to_string(), "paper".to_string(), base.to_string()];
        columns.extend(rest.iter().map(|&i| {
            let v = &self.variants[i];
            format!(
                "{}={}",
                v.detail.clone().unwrap_or_default(),
                v.value.clone().unwrap_or_default()
            )
        }));
        let other_idx = self.group(other).first().copied();
        columns.push(other.to_string());
        let mut rows = vec![];
        let mut sums = vec![0.0; rest.len()];
        for c in &self.cells {
            let part = if c.part == Part::Table3 { "III" } else { "IV" };
            let b = c.throughput_mbps[first].mean;
            let mut cells = vec![
                format!("{part} {} {}", c.row, c.protocol),
                c.paper_throughput_mbps
                    .map_or("-".to_string(), |p| format!("{p:.2}")),
                format!("{b:.3}{}", fails(c.failures[first])),
            ];
            for (k, &i) in rest.iter().enumerate() {
                let v = c.throughput_mbps[i].mean;
                let change = if b > 0.0 { 100.0 * (v - b) / b } else { 0.0 };
                sums[k] += change.abs();
                cells.push(format!("{change:+.1}%{}", fails(c.failures[i])));
            }
            if let Some(o) = other_idx {
                cells.push(format!(
                    "{:.3}{}",
                    c.throughput_mbps[o].mean,
                    fails(c.failures[o])
                ));
            }
            rows.push(Row::cells(cells));
        }
        let n = self.cells.len().max(1) as f64;
        let mut mean = vec![
            "mean |change| over the cells".to_string(),
            String::new(),
            String::new(),
        ];
        mean.extend(sums.iter().map(|s| format!("{:.1}%", s / n)));
        rows.push(Row::cells(mean));
        Some(Table {
            title: Some(format!(
                "From {base}, one detail at a time set to {other}'s:"
            )),
            columns,
            rows,
        })
    }
}

/// ` !n` for n failed runs, nothing for none.
fn fails(n: usize) -> String {
    if n == 0 {
        String::new()
    } else {
        format!(" !{n}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(w: &[&str]) -> Vec<String> {
        w.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_part_ablation_runs_alone_as_paper_000s_plan() {
        use crate::study::Study;
        let study = crate::paper000::Reproduction;
        assert_eq!(named(&words(&["Ablation"])), Ok(true));
        assert_eq!(named(&words(&["table3"])), Ok(false));
        assert!(named(&words(&["ablation", "table3"])).is_err());
        assert!(study.check_parts(&words(&["table3", "ablation"])).is_err());
        let common = Common {
            seeds: Some(2),
            ..Common::default()
        };
        let plan = study.plan(&words(&["ablation"]), &common).expect("plan");
        // bsdos-2.1 against the default bsd44-lite: every Table III and IV cell, each variant
        let jobs = ablation_jobs(HostPreset::Bsdos21, DEFAULT_AGAINST, 2);
        assert_eq!(plan.jobs().len(), jobs.len());
        assert_eq!(jobs.len(), (17 + 6) * 10 * 2);
        let same = Common {
            against: Some(HostPreset::Bsdos21),
            ..common
        };
        let e = study
            .plan(&words(&["ablation"]), &same)
            .err()
            .expect("one profile");
        assert!(e.contains("both bsdos-2.1"), "{e}");
    }

    #[test]
    fn variants_switch_one_detail_at_a_time_both_ways() {
        let v = variants(HostPreset::Bsdos21, HostPreset::Bsd44Lite);
        let names: Vec<String> = v
            .iter()
            .map(|(v, _)| format!("{}:{}", v.profile, v.detail.clone().unwrap_or_default()))
            .collect();
        assert_eq!(
            names,
            vec![
                "bsdos-2.1:",
                "bsdos-2.1:ca-increment",
                "bsdos-2.1:reader",
                "bsdos-2.1:header-prediction",
                "bsdos-2.1:persist",
                "bsd44-lite:",
                "bsd44-lite:ca-increment",
                "bsd44-lite:reader",
                "bsd44-lite:header-prediction",
                "bsd44-lite:persist",
            ]
        );
        // each switched variant differs from its base in exactly that detail
        let base = v[0].1.host;
        for (var, sc) in &v[1..5] {
            let key = var.detail.clone().unwrap_or_default();
            assert_eq!(base.differences(&sc.host), vec![key.as_str()]);
        }
        assert_eq!(v[1].1.host_label(), "bsdos-2.1 [ca-increment=plus-eighth]");
    }
}
