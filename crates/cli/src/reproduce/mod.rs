//! `snooplab reproduce`: each built paper's experiments with ours beside the paper's numbers and
//! its claims checked. This module reads the arguments (which papers, which of their parts) and
//! hands each paper's study to `study.rs`, which runs it and renders its document as text, JSON,
//! files and a section of the HTML report (`crate::render`).

mod report;
pub mod study;

use std::path::Path;

use snooplab_papers::paper000;
use snooplab_papers::study::Planned;
use snooplab_proto::tcp::HostPreset;
use study::{verdict_line, Studied};

use crate::cli::ReproduceArgs;
use crate::files::create_dir;
use crate::settings::parse_seed;
pub use snooplab_papers::select::{check_parts, check_seeds, selections, Selection};
pub use snooplab_papers::study::Common;

/// Creates `dir` and writes a file in it, so that a directory that cannot take the outputs
/// (`--out`, `--report`) is refused before the runs, not after minutes of them.
fn check_writable(dir: &Path) -> Result<(), String> {
    create_dir(dir)?;
    let probe = dir.join(format!(".snooplab-check-{}", std::process::id()));
    crate::files::write_file(&probe, b"")?;
    std::fs::remove_file(&probe).map_err(|e| format!("cannot remove {}: {e}", probe.display()))
}

/// The papers and parts, each planned, with what every paper's run shares.
pub type Plans = (Vec<(Selection, Box<dyn Planned>)>, Common);

/// Checks the arguments and plans every paper without running anything: the papers and parts,
/// the seeds, the host profiles, the threads.
pub fn plan(a: &ReproduceArgs) -> Result<Plans, String> {
    let mut sels = selections(&a.what)?;
    check_parts(&sels)?;
    let seeds = match &a.seeds {
        None => None,
        Some(text) => {
            let n = parse_seed(text).map_err(|e| e.to_string().replace("seed", "seeds"))?;
            Some(check_seeds(n)?)
        }
    };
    let host = a.host.as_deref().map(HostPreset::parse).transpose()?;
    let against = Some(HostPreset::parse(&a.against)?);
    if a.ablation {
        let paper000_only = a.what.is_empty()
            || (sels.len() == 1
                && sels[0].paper.name() == paper000::ABOUT.name
                && sels[0].parts.is_empty());
        if !paper000_only {
            return Err(
                "--ablation runs paper 000's Tables III and IV; leave out papers and parts".into(),
            );
        }
        // --ablation is paper 000's part `ablation`
        sels = vec![Selection {
            paper: &paper000::Reproduction,
            parts: vec![paper000::ablation::ABLATION.into()],
        }];
    }
    if a.threads == Some(0) {
        return Err("threads must be at least 1".into());
    }
    let common = Common {
        seeds,
        host,
        against,
        threads: a.threads,
    };
    // every paper planned before any runs, so that a bad combination stops nothing half-way
    let planned = sels
        .into_iter()
        .map(|s| {
            let p = s.paper.plan(&s.parts, &common)?;
            Ok((s, p))
        })
        .collect::<Result<_, String>>()?;
    Ok((planned, common))
}

pub fn reproduce(a: ReproduceArgs) -> Result<(), String> {
    let (planned, common) = plan(&a)?;
    // where the outputs go, before anything runs
    if let Some(dir) = &a.out {
        for (s, _) in &planned {
            check_writable(&dir.join(s.paper.name()))?;
        }
    }
    if let Some(dir) = &a.report {
        check_writable(dir)?;
    }
    let mut done: Vec<Studied> = vec![];
    for (s, p) in planned {
        // the runner says how many runs took how long on how many threads
        let (r, _runs) = study::run(&s, p, &common, a.quiet)?;
        if !a.json {
            print!("{}", r.text());
        }
        if let Some(dir) = &a.out {
            let sub = dir.join(s.paper.name());
            create_dir(&sub)?;
            r.write_outputs(&sub)?;
        }
        done.push(r);
    }
    if let Some(dir) = &a.report {
        report::write_page(dir, &done)?;
        eprintln!("wrote {}", dir.join("index.html").display());
    }
    if !a.json {
        if let Some(line) = verdict_line(&done) {
            println!("{line}");
        }
    }
    if a.json {
        let mut all = serde_json::Map::new();
        for r in &done {
            all.insert(r.paper.name().into(), r.json()?);
        }
        let text = serde_json::to_string(&serde_json::Value::Object(all))
            .map_err(|e| format!("cannot encode report: {e}"))?;
        println!("{text}");
    }
    Ok(())
}
