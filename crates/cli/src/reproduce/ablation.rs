//! `snooplab reproduce --ablation`: paper 000's Tables III and IV with one host detail at a time
//! switched between two host profiles, both ways (the cells and the document are
//! `snooplab_papers::paper000::ablation`'s).

use snooplab_papers::paper000::ablation::{ablation_jobs, Ablation};
use snooplab_papers::paper000::{Paper000, Reproduction, ABOUT};
use snooplab_papers::study::Common;
use snooplab_proto::tcp::HostPreset;

use crate::cli::ReproduceArgs;
use crate::files::{create_dir, write_file};

/// The two profiles of `--ablation`, checked.
pub fn ablation_profiles(
    host: Option<HostPreset>,
    against: &str,
) -> Result<(HostPreset, HostPreset), String> {
    let from = host.unwrap_or(ABOUT.default_host);
    let to = HostPreset::parse(against)?;
    if from == to {
        return Err(format!(
            "--ablation compares two host profiles, but --host and --against are both {}",
            from.name()
        ));
    }
    Ok((from, to))
}

/// `reproduce --ablation`: Tables III and IV with one host detail at a time switched between two
/// profiles, both ways.
pub fn ablation(a: &ReproduceArgs, common: &Common) -> Result<(), String> {
    let (from, to) = ablation_profiles(common.host, &a.against)?;
    let seeds = common.seeds(&ABOUT);
    let paper = Paper000::load()?;
    let jobs = ablation_jobs(from, to, seeds);
    let started = std::time::Instant::now();
    let results = crate::parallel::run_all(&jobs, a.threads, ("reproduce", a.quiet))?;
    let ab = Ablation::evaluate(from, to, seeds, &results, &paper);
    if let Some(dir) = &a.out {
        let dir = dir.join(ABOUT.name);
        create_dir(&dir)?;
        let json = serde_json::to_string_pretty(&ab)
            .map_err(|e| format!("cannot encode the ablation: {e}"))?;
        write_file(&dir.join("ablation.json"), json)?;
    }
    if a.json {
        let text =
            serde_json::to_string(&ab).map_err(|e| format!("cannot encode the ablation: {e}"))?;
        println!("{text}");
    } else {
        print!("{}", crate::render::text(&Reproduction, &ab.document()));
        eprintln!(
            "{} runs in {:.1} s",
            jobs.len(),
            started.elapsed().as_secs_f64()
        );
    }
    Ok(())
}
