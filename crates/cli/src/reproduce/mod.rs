//! `snooplab reproduce`: each built paper's experiments with ours beside the paper's numbers and
//! its claims checked. This module reads the arguments (which papers, which of their parts) and
//! hands each paper to its module, which runs it and renders it as text, JSON, files and a
//! section of the HTML report.

mod paper000;
mod paper001;
mod paper004;

use std::path::Path;
use std::time::Instant;

use snooplab_proto::tcp::HostPreset;
use snooplab_sim::reproduce::{Claim, Paper};

use crate::cli::ReproduceArgs;
use crate::files::create_dir;
use crate::settings::parse_seed;

pub use paper000::{ours, theirs, verdict};

/// A paper, run: what each output of `reproduce` needs from it.
pub trait Reproduced {
    fn paper(&self) -> Paper;
    /// The tables and claims as text, for the terminal.
    fn text(&self) -> String;
    /// The report as JSON (the value under the paper's name in `--json`).
    fn json(&self) -> Result<serde_json::Value, String>;
    /// Every run and the report into `dir` (`--out`; `dir` is the paper's own directory).
    fn write_outputs(&self, dir: &Path) -> Result<(), String>;
    /// The paper's section of `index.html`; its figures go into `dir/<paper>/`.
    fn report_section(&self, dir: &Path) -> Result<String, String>;
}

/// A paper's claims for the terminal: each marked holds / FAILS / n/a, with what we measured.
pub fn claims_text(claims: &[Claim]) -> String {
    let mut s = String::from("The paper's claims, measured:\n");
    for c in claims {
        let mark = match c.holds {
            Some(true) => "holds ",
            Some(false) => "FAILS ",
            None => "n/a   ",
        };
        s.push_str(&format!(
            "  {mark} {}\n         measured: {}\n",
            c.paper, c.measured
        ));
    }
    s
}

/// One paper and what of it to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selection {
    pub paper: Paper,
    /// The parts named after the paper (empty: all of it).
    pub parts: Vec<String>,
}

/// What every paper's run shares.
#[derive(Clone, Debug)]
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
pub fn selections(words: &[String]) -> Result<Vec<Selection>, String> {
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
                return Err(format!("{} is named twice", paper.name()));
            }
            out.push(Selection {
                paper,
                parts: vec![],
            });
            continue;
        }
        if w.trim().to_ascii_lowercase().starts_with("paper") {
            let built: Vec<&str> = Paper::BUILT.iter().map(|p| p.name()).collect();
            return Err(format!("unknown paper '{w}' (built: {})", built.join(", ")));
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

/// Checks the arguments without running anything: the papers and parts, the seeds, the host
/// profiles, the threads.
pub fn plan(a: &ReproduceArgs) -> Result<(Vec<Selection>, Common), String> {
    let sels = selections(&a.what)?;
    for s in &sels {
        match s.paper {
            Paper::Paper000 => {
                paper000::parts(&s.parts)?;
            }
            Paper::Paper001 => {
                paper001::parts(&s.parts)?;
            }
            Paper::Paper004 => paper004::parts(&s.parts)?,
        }
    }
    let seeds = match &a.seeds {
        None => None,
        Some(text) => {
            let n = parse_seed(text).map_err(|e| e.to_string().replace("seed", "seeds"))?;
            if n == 0 || n > 10_000 {
                return Err(format!("seeds {n} is out of range: use 1 to 10000"));
            }
            Some(n)
        }
    };
    let host = a.host.as_deref().map(HostPreset::parse).transpose()?;
    if a.ablation {
        let paper000_only = a.what.is_empty()
            || (sels.len() == 1 && sels[0].paper == Paper::Paper000 && sels[0].parts.is_empty());
        if !paper000_only {
            return Err(
                "--ablation runs paper 000's Tables III and IV; leave out papers and parts".into(),
            );
        }
        paper000::ablation_profiles(host, &a.against)?;
    }
    if a.threads == Some(0) {
        return Err("threads must be at least 1".into());
    }
    Ok((
        sels,
        Common {
            seeds,
            host,
            threads: a.threads,
        },
    ))
}

pub fn reproduce(a: ReproduceArgs) -> Result<(), String> {
    let (sels, common) = plan(&a)?;
    if a.ablation {
        return paper000::ablation(&a, &common);
    }
    let mut done: Vec<Box<dyn Reproduced>> = vec![];
    for s in &sels {
        let started = Instant::now();
        let (r, runs) = match s.paper {
            Paper::Paper000 => paper000::run(&s.parts, &common)?,
            Paper::Paper001 => paper001::run(&s.parts, &common)?,
            Paper::Paper004 => paper004::run(&s.parts, &common)?,
        };
        if !a.json {
            print!("{}", r.text());
            eprintln!(
                "{}: {runs} runs in {:.1} s",
                s.paper.name(),
                started.elapsed().as_secs_f64()
            );
        }
        if let Some(dir) = &a.out {
            let sub = dir.join(s.paper.name());
            create_dir(&sub)?;
            r.write_outputs(&sub)?;
        }
        done.push(r);
    }
    if let Some(dir) = &a.report {
        crate::report::write_page(dir, &done)?;
        eprintln!("wrote {}", dir.join("index.html").display());
    }
    if a.json {
        let mut all = serde_json::Map::new();
        for r in &done {
            all.insert(r.paper().name().into(), r.json()?);
        }
        let text = serde_json::to_string(&serde_json::Value::Object(all))
            .map_err(|e| format!("cannot encode report: {e}"))?;
        println!("{text}");
    }
    Ok(())
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
        assert!(e.contains("unknown paper 'paper009'"), "{e}");
    }
}
