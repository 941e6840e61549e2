//! Runs many scenarios on the cores; results come back in the order of the input, so they never
//! depend on the number of threads. The caller sees progress through a callback (the command
//! line's bar) and may stop the runs with a flag (Ctrl-C in Python): runs not yet started are
//! skipped, and the call returns [`Error::Cancelled`] once the running ones end.

use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;
use snooplab_sim::run::{families, run_family};
use snooplab_sim::{Job, RunResult, Scenario};

use crate::Error;

/// The most worker threads a caller may ask for (documented in `--help` and docs/outputs.md):
/// runs are CPU-bound, so threads beyond the cores only cost memory, and thousands of them exhaust
/// the machine before the first run ends.
pub const MAX_THREADS: usize = 256;

/// The threads worth starting for `runs` runs when `requested` were asked for: never more than
/// the runs, nor [`MAX_THREADS`]. `None` keeps rayon's default (one per core). The note says why
/// a request was lowered, for the caller to show.
pub fn useful_threads(
    requested: Option<usize>,
    runs: usize,
) -> Result<(Option<usize>, Option<String>), Error> {
    let Some(n) = requested else {
        return Ok((None, None));
    };
    if n == 0 {
        return Err(Error::Invalid("threads must be at least 1".into()));
    }
    let useful = n.min(runs.max(1)).min(MAX_THREADS);
    let note = (useful < n).then(|| {
        let why = if useful == MAX_THREADS {
            format!("at most {MAX_THREADS}")
        } else {
            format!("one per run, {runs} runs")
        };
        format!("--threads {n} lowered to {useful} ({why})")
    });
    Ok((Some(useful), note))
}

/// How many of a sweep's scenarios are made into networks at once: [`Runner::run_jobs`] groups
/// jobs into families (`sim/src/run/sharing/family.rs`) from their networks, and a sweep's 100,000 runs'
/// networks held at once took 101 MB. A family that a boundary cuts runs as two, with the same
/// results (a sweep's transfers lie `seeds` jobs apart, well within it).
pub const SCENARIOS_AT_ONCE: usize = 4096;

/// How runs are spread: the threads (`None`: rayon's pool, one per core), what to call after
/// each run, and a flag that stops the runs not yet started.
#[derive(Clone, Copy, Default)]
pub struct Runner<'a> {
    pub threads: Option<usize>,
    pub on_done: Option<&'a (dyn Fn() + Sync)>,
    pub cancel: Option<&'a AtomicBool>,
}

impl Runner<'_> {
    /// Runs scenarios, [`SCENARIOS_AT_ONCE`] at a time.
    pub fn run_all(&self, scenarios: &[Scenario]) -> Result<Vec<RunResult>, Error> {
        let mut results = Vec::with_capacity(scenarios.len());
        for part in scenarios.chunks(SCENARIOS_AT_ONCE) {
            let jobs: Vec<Job> = part.iter().map(Job::from).collect();
            results.extend(self.run_jobs(&jobs)?);
        }
        Ok(results)
    }

    /// Runs jobs (a paper's runs: its preset networks or scenarios of the default testbed).
    /// Jobs that differ only in their transfers run as one run that forks where they part, and
    /// a job that only adds a policy point (Early Retransmit, EFR's threshold) takes its result
    /// from the run without it where the rule never acted, or starts from a copy of that run
    /// taken before it did (`sim/src/run/sharing/family.rs`, `line.rs`): each job has the result of its
    /// own run.
    pub fn run_jobs(&self, jobs: &[Job]) -> Result<Vec<RunResult>, Error> {
        let families = families(jobs);
        let cancelled = || self.cancel.is_some_and(|c| c.load(Ordering::Relaxed));
        // each family in parallel; `on_done` once for each of its runs when it ends
        let work = || -> Option<Vec<Vec<(usize, RunResult)>>> {
            families
                .par_iter()
                .map(|family| {
                    if cancelled() {
                        return None;
                    }
                    let runs = run_family(jobs, family).0;
                    if let Some(f) = self.on_done {
                        runs.iter().for_each(|_| f());
                    }
                    Some(runs)
                })
                .collect()
        };
        let results = match self.threads {
            Some(n) => rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .map_err(|e| Error::Threads(format!("cannot start {n} threads: {e}")))?
                .install(work),
            None => work(),
        };
        let mut in_order: Vec<Option<RunResult>> = vec![None; jobs.len()];
        for (i, r) in results.ok_or(Error::Cancelled)?.into_iter().flatten() {
            in_order[i] = Some(r);
        }
        Ok(in_order.into_iter().flatten().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use snooplab_sim::scenario::default_scenario;

    fn short(seed: u64) -> Scenario {
        Scenario {
            transfer: 64 << 10,
            seed,
            ..default_scenario()
        }
    }

    #[test]
    fn results_keep_the_order_of_the_jobs_whatever_the_threads() {
        let jobs: Vec<Scenario> = (1..=6).map(short).collect();
        let one = Runner {
            threads: Some(1),
            ..Runner::default()
        }
        .run_all(&jobs)
        .unwrap();
        let three = Runner {
            threads: Some(3),
            ..Runner::default()
        }
        .run_all(&jobs)
        .unwrap();
        assert_eq!(one, three);
        let seeds: Vec<u64> = one.iter().map(|r| r.setup.seed).collect();
        assert_eq!(seeds, vec![1, 2, 3, 4, 5, 6]);
    }

    #[test]
    fn a_raised_flag_skips_the_runs_and_says_so() {
        let flag = AtomicBool::new(true);
        let done = std::sync::atomic::AtomicUsize::new(0);
        let count = || {
            done.fetch_add(1, Ordering::Relaxed);
        };
        let r = Runner {
            threads: Some(2),
            on_done: Some(&count),
            cancel: Some(&flag),
        }
        .run_all(&(1..=4).map(short).collect::<Vec<_>>());
        assert_eq!(r, Err(Error::Cancelled));
        assert_eq!(done.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn thread_requests_are_bounded() {
        assert_eq!(useful_threads(None, 5).unwrap(), (None, None));
        assert_eq!(useful_threads(Some(2), 5).unwrap(), (Some(2), None));
        let (n, note) = useful_threads(Some(8), 3).unwrap();
        assert_eq!(n, Some(3));
        assert_eq!(
            note.unwrap(),
            "--threads 8 lowered to 3 (one per run, 3 runs)"
        );
        assert!(useful_threads(Some(0), 3).is_err());
    }
}
