//! Runs many scenarios on all cores with a progress bar on stderr; results come back in the order
//! of the input, so they never depend on the number of threads.

use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use snooplab_sim::{run, RunResult, Scenario};

pub fn run_all(jobs: &[Scenario], threads: Option<usize>) -> Result<Vec<RunResult>, String> {
    let bar = ProgressBar::new(jobs.len() as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} runs, {elapsed} elapsed, ~{eta} left")
            .map_err(|e| format!("progress bar: {e}"))?,
    );
    let work = || -> Vec<RunResult> {
        jobs.par_iter()
            .map(|sc| {
                let r = run(sc);
                bar.inc(1);
                r
            })
            .collect()
    };
    let results = match threads {
        Some(0) => return Err("threads must be at least 1".into()),
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .map_err(|e| format!("cannot start {n} threads: {e}"))?
            .install(work),
        None => work(),
    };
    bar.finish_and_clear();
    Ok(results)
}
