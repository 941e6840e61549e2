//! Runs many scenarios on all cores with progress on stderr; results come back in the order of the
//! input, so they never depend on the number of threads.

use rayon::prelude::*;
use snooplab_sim::{run, RunResult, Scenario};

use crate::progress::Progress;

/// The most worker threads `--threads` starts (documented in `--help` and docs/outputs.md): runs
/// are CPU-bound, so threads beyond the cores only cost memory, and thousands of them exhaust the
/// machine before the first run ends.
pub const MAX_THREADS: usize = 256;

/// The threads worth starting for `runs` runs when `requested` were asked for: never more than
/// the runs, nor [`MAX_THREADS`]. `None` keeps rayon's default (one per core). Says so on stderr
/// when it lowers the request.
pub fn useful_threads(requested: Option<usize>, runs: usize) -> Result<Option<usize>, String> {
    let Some(n) = requested else {
        return Ok(None);
    };
    if n == 0 {
        return Err("threads must be at least 1".into());
    }
    let useful = n.min(runs.max(1)).min(MAX_THREADS);
    if useful < n {
        let why = if useful == MAX_THREADS {
            format!("at most {MAX_THREADS}")
        } else {
            format!("one per run, {runs} runs")
        };
        eprintln!("note: --threads {n} lowered to {useful} ({why})");
    }
    Ok(Some(useful))
}

/// Runs `jobs` on `threads` workers (`None`: one per core), reporting progress as `what`.
pub fn run_all(
    jobs: &[Scenario],
    threads: Option<usize>,
    what: &'static str,
) -> Result<Vec<RunResult>, String> {
    run_each(jobs, threads, what, run)
}

/// Runs networks (a paper's preset, `env` labelling the results) as [`run_all`] runs scenarios.
pub fn run_networks(
    jobs: &[snooplab_sim::Network],
    env: &str,
    threads: Option<usize>,
    what: &'static str,
) -> Result<Vec<RunResult>, String> {
    run_each(jobs, threads, what, |net| {
        snooplab_sim::run_network(net, env)
    })
}

/// `one` on every job, in parallel, results in the jobs' order.
fn run_each<J: Sync>(
    jobs: &[J],
    threads: Option<usize>,
    what: &'static str,
    one: impl Fn(&J) -> RunResult + Sync,
) -> Result<Vec<RunResult>, String> {
    let threads = useful_threads(threads, jobs.len())?;
    let progress = Progress::new(what, jobs.len() as u64)?;
    let work = || -> Vec<RunResult> {
        jobs.par_iter()
            .map(|j| {
                let r = one(j);
                progress.inc();
                r
            })
            .collect()
    };
    let results = match threads {
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .map_err(|e| format!("cannot start {n} threads: {e}"))?
            .install(work),
        None => work(),
    };
    progress.finish();
    Ok(results)
}
