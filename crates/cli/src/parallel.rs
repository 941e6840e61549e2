//! The library's parallel runner (`snooplab_lab::parallel`) with the command line's progress on
//! stderr and its note when `--threads` is lowered.

use snooplab_lab::parallel::{useful_threads, Runner};
use snooplab_sim::{RunResult, Scenario};

use crate::progress::Progress;

/// Runs `jobs` on `threads` workers (`None`: one per core), reporting progress as `what` (or
/// not at all when `quiet`).
pub fn run_all(
    jobs: &[Scenario],
    threads: Option<usize>,
    (what, quiet): (&'static str, bool),
) -> Result<Vec<RunResult>, String> {
    with_progress(jobs.len(), threads, (what, quiet), |r| r.run_all(jobs))
}

/// Runs jobs (a paper's runs) as [`run_all`] runs scenarios.
pub fn run_jobs(
    jobs: &[snooplab_sim::Job],
    threads: Option<usize>,
    (what, quiet): (&'static str, bool),
) -> Result<Vec<RunResult>, String> {
    with_progress(jobs.len(), threads, (what, quiet), |r| r.run_jobs(jobs))
}

/// `go` with a runner of the useful threads that counts each run on the progress line.
fn with_progress(
    runs: usize,
    threads: Option<usize>,
    (what, quiet): (&'static str, bool),
    go: impl FnOnce(&Runner) -> Result<Vec<RunResult>, snooplab_lab::Error>,
) -> Result<Vec<RunResult>, String> {
    let (threads, note) = useful_threads(threads, runs)?;
    if let Some(note) = note {
        eprintln!("note: {note}");
    }
    let progress = Progress::new(what, runs as u64, quiet)?;
    let inc = || progress.inc();
    let results = go(&Runner {
        threads,
        on_done: Some(&inc),
        cancel: None,
    })?;
    // the pool the runs had: the one asked for, or rayon's global one (a thread per core)
    progress.finish_with_rate(threads.unwrap_or_else(rayon::current_num_threads));
    Ok(results)
}
