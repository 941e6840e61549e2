//! `snooplab._native`, the Rust half of the Python package: every function takes the scenario or
//! the grid as text (JSON from a dict, or a scenario file's TOML) and returns the JSON the command
//! line prints, so that `snooplab.run` is `snooplab run --json` byte for byte, and the Python half
//! (`python/snooplab/`) only turns that into dicts and DataFrames. Simulations run with the GIL
//! released, on rayon's threads, and a Ctrl-C in Python stops a sweep between runs. Every
//! argument is checked here, at the boundary (`args.rs`), and every error of the library arrives
//! as a `ValueError` with its one-line message (`errors.rs`).

mod args;
mod errors;
mod settings;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use snooplab_lab::grid::{Plan, SweepSettings, MAX_PLANNED_RUNS};
use snooplab_lab::parallel::{useful_threads, Runner, MAX_THREADS};
use snooplab_lab::reproduce::report_json;
use snooplab_lab::Error;
use snooplab_papers::select::{check_parts, selections, MAX_SEEDS};
use snooplab_papers::study::Common;
use snooplab_papers::{find, PAPERS};
use snooplab_proto::tcp::HostPreset;
use snooplab_sim::{Observer, Protocol, RunResult, Scenario, Simulation};

use args::Bounds;
use errors::{panicked, py_err};

/// How often a waiting call looks for a signal (Ctrl-C) while the runs go on.
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// `threads`: at least one, at most the runner's [`MAX_THREADS`] (`--threads` lowers a larger
/// request with a note; a Python call has nowhere to show one, so it is refused instead).
const THREADS: Bounds = Bounds {
    low: 1,
    high: Some(MAX_THREADS as u64),
};

/// A sweep's `seeds`: 1 to [`MAX_PLANNED_RUNS`] (the grid refuses more seeds than one sweep
/// plans runs, `lab/src/grid.rs`).
const SWEEP_SEEDS: Bounds = Bounds {
    low: 1,
    high: Some(MAX_PLANNED_RUNS),
};

/// A sweep's `seed_base`: any seed (the sweep then checks that its last seed fits).
const SEED_BASE: Bounds = Bounds {
    low: 0,
    high: Some(u64::MAX),
};

/// `reproduce`'s `seeds`: 1 to [`MAX_SEEDS`] per configuration, as `reproduce --seeds`.
const PAPER_SEEDS: Bounds = Bounds {
    low: 1,
    high: Some(MAX_SEEDS),
};

/// A sweep part's `first` and `count` (the Ray sweep's tasks): any combination index.
const INDEX: Bounds = Bounds { low: 0, high: None };

/// `threads` as the runner takes it.
fn threads(value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<usize>> {
    Ok(args::optional_integer(value, "threads", THREADS)?
        .map(|n| usize::try_from(n).unwrap_or(MAX_THREADS)))
}

fn to_json<T: serde::Serialize>(v: &T) -> PyResult<String> {
    serde_json::to_string(v)
        .map_err(|e| PyRuntimeError::new_err(format!("cannot encode results: {e}")))
}

/// A scenario from `text`: JSON (`format = "json"`, a dict's keys; messages name the key) or a
/// scenario file's TOML.
fn scenario(text: &str, format: &str) -> Result<Scenario, Error> {
    match format {
        "json" => settings::scenario(text),
        "toml" => snooplab_lab::scenario::from_toml(text),
        other => Err(Error::Invalid(format!(
            "unknown scenario format '{other}' (known: json, toml)"
        ))),
    }
}

/// Runs `jobs` on rayon's threads without the GIL (see [`interruptible`]); `progress` is called
/// with (runs done, runs in all) as they end.
fn run_interruptible(
    py: Python<'_>,
    jobs: Vec<Scenario>,
    threads: Option<usize>,
    progress: Option<Py<PyAny>>,
) -> PyResult<Vec<RunResult>> {
    let (threads, _) = useful_threads(threads, jobs.len()).map_err(py_err)?;
    let progress = progress.map(|f| (f, jobs.len()));
    interruptible(py, threads, progress, move |r| r.run_all(&jobs))
}

/// `work` on a runner of `threads` in a thread of its own, without the GIL, looking for signals
/// meanwhile: a KeyboardInterrupt raises the runner's cancel flag and returns at once (the runs
/// already started finish in the background and are dropped; none starts after). With
/// `progress = (f, total)`, `f(done, total)` is called from this thread, with the GIL, whenever
/// runs ended since the last look (every [`SIGNAL_POLL`]) and once at the end; an exception it
/// raises stops the runs as a Ctrl-C does.
fn interruptible<T: Send + 'static>(
    py: Python<'_>,
    threads: Option<usize>,
    progress: Option<(Py<PyAny>, usize)>,
    work: impl FnOnce(&Runner) -> Result<T, Error> + Send + 'static,
) -> PyResult<T> {
    let cancel = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicUsize::new(0));
    let (tx, rx) = mpsc::channel();
    let (flag, count) = (Arc::clone(&cancel), Arc::clone(&done));
    std::thread::Builder::new()
        .name("snooplab-runs".into())
        .spawn(move || {
            let one_done = || {
                count.fetch_add(1, Ordering::Relaxed);
            };
            // a panic (a bug) in the runs, rayon's threads' included, comes back as a value
            let r = catch_unwind(AssertUnwindSafe(|| {
                work(&Runner {
                    threads,
                    on_done: Some(&one_done),
                    cancel: Some(&flag),
                })
            }));
            // the caller may have gone (interrupted); then nobody wants the results
            let _ = tx.send(r);
        })
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start the runs: {e}")))?;
    let mut shown = 0;
    let mut report = |py: Python<'_>| -> PyResult<()> {
        let Some((f, total)) = &progress else {
            return Ok(());
        };
        let now = done.load(Ordering::Relaxed);
        if now != shown {
            shown = now;
            f.call1(py, (now, *total))?;
        }
        Ok(())
    };
    let mut rx = rx;
    loop {
        // the receiver goes into the GIL-free wait and comes back (it is Send, not Sync)
        let (got, back) = py.detach(move || (rx.recv_timeout(SIGNAL_POLL), rx));
        rx = back;
        match got {
            Ok(r) => {
                let r = r.map_err(panicked)?.map_err(py_err)?;
                report(py)?;
                return Ok(r);
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if let Err(e) = py.check_signals().and_then(|()| report(py)) {
                    cancel.store(true, Ordering::Relaxed);
                    return Err(e);
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(PyRuntimeError::new_err("the runs stopped without a result"))
            }
        }
    }
}

/// One run's result as `snooplab run --json` prints it.
#[pyfunction]
fn run(py: Python<'_>, scenario_text: &str, format: &str) -> PyResult<String> {
    let sc = scenario(scenario_text, format).map_err(py_err)?;
    let mut results = run_interruptible(py, vec![sc], None, None)?;
    let r = results
        .pop()
        .ok_or_else(|| PyRuntimeError::new_err("the run returned no result"))?;
    to_json(&r)
}

/// One run traced: the trace tables as CSV files in `dir` (as `snooplab run --trace DIR`); returns
/// the run's result as JSON.
#[pyfunction]
fn trace(py: Python<'_>, scenario_text: &str, format: &str, dir: &str) -> PyResult<String> {
    let sc = scenario(scenario_text, format).map_err(py_err)?;
    let dir = std::path::PathBuf::from(dir);
    // on the runs' thread, as a run is: Ctrl-C returns at once, a panic is a RuntimeError
    let r = interruptible(py, None, None, move |runner| {
        let (r, o) = Simulation::observed(&sc, Observer::default().with_trace()).run_observed();
        // interrupted: the caller has gone and removed `dir`, which writing would make anew
        if runner.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
            return Err(Error::Cancelled);
        }
        if let Some(t) = &o.trace {
            t.write_csv(&dir).map_err(|e| {
                Error::File(format!("cannot write the trace in {}: {e}", dir.display()))
            })?;
        }
        Ok(r)
    })?;
    to_json(&r)
}

/// The plan of a grid (JSON, `SweepSettings::from_json`, its scenario's keys named in messages)
/// with `seeds` seeds from `seed_base`, both checked as arguments first.
fn plan(grid: &str, seeds: &Bound<'_, PyAny>, seed_base: &Bound<'_, PyAny>) -> PyResult<Plan> {
    let seeds = args::integer(seeds, "seeds", SWEEP_SEEDS)?;
    let seed_base = args::integer(seed_base, "seed_base", SEED_BASE)?;
    settings::check_grid(grid).map_err(py_err)?;
    SweepSettings::from_json(grid, &seeds.to_string(), &seed_base.to_string())
        .and_then(|s| s.plan())
        .map_err(py_err)
}

/// How many combinations a grid has (a Ray sweep splits them into tasks).
#[pyfunction]
fn combinations(
    grid: &str,
    seeds: &Bound<'_, PyAny>,
    seed_base: &Bound<'_, PyAny>,
) -> PyResult<usize> {
    Ok(plan(grid, seeds, seed_base)?.configs.len())
}

/// A sweep, or its combinations `first .. first + count`: `{"summaries": [...], "runs": [...]}` as
/// `snooplab sweep --json` prints them (for that range). `progress(done, total)` is called as
/// runs end.
#[pyfunction]
#[pyo3(signature = (grid, seeds, seed_base, threads=None, first=None, count=None, progress=None))]
#[allow(clippy::too_many_arguments)]
fn sweep(
    py: Python<'_>,
    grid: &str,
    seeds: &Bound<'_, PyAny>,
    seed_base: &Bound<'_, PyAny>,
    threads: Option<&Bound<'_, PyAny>>,
    first: Option<&Bound<'_, PyAny>>,
    count: Option<&Bound<'_, PyAny>>,
    progress: Option<Bound<'_, PyAny>>,
) -> PyResult<String> {
    let threads = self::threads(threads)?;
    // past usize a part is all the rest, as usize::MAX is
    let index = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
    let first = args::optional_integer(first, "first", INDEX)?.map_or(0, index);
    let count = args::optional_integer(count, "count", INDEX)?.map(index);
    let progress = match progress.filter(|p| !p.is_none()) {
        Some(p) if !p.is_callable() => {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "progress must be a callable f(done, total) or None, got {}",
                args::found(&p)
            )))
        }
        p => p.map(Bound::unbind),
    };
    let mut plan = plan(grid, seeds, seed_base)?;
    if first > 0 || count.is_some() {
        plan = plan.part(first, count.unwrap_or(usize::MAX));
    }
    let results = run_interruptible(py, plan.jobs(), threads, progress)?;
    let summaries = plan.summaries(&results);
    to_json(&serde_json::json!({ "summaries": summaries, "runs": results }))
}

/// One paper reproduced: its report as `snooplab reproduce PAPER [PART...] --json` prints it
/// under the paper's name. `parts`: one part's name or a list of them (none: all of it).
#[pyfunction]
#[pyo3(signature = (paper, parts=None, seeds=None, host=None, threads=None))]
fn reproduce(
    py: Python<'_>,
    paper: &Bound<'_, PyAny>,
    parts: Option<&Bound<'_, PyAny>>,
    seeds: Option<&Bound<'_, PyAny>>,
    host: Option<&Bound<'_, PyAny>>,
    threads: Option<&Bound<'_, PyAny>>,
) -> PyResult<String> {
    let built = || {
        PAPERS
            .iter()
            .map(|p| p.name())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let paper = args::text(paper, "paper", "a paper's name such as 'paper000'")?;
    if find(&paper).is_none() {
        // a word that is not a paper, as the command line names it; a part's name given as the
        // paper (`reproduce("fig12")`) is a mistake here, where parts have their own argument
        let msg = match selections(std::slice::from_ref(&paper)) {
            Err(m) => m,
            Ok(_) => format!(
                "paper must be one of {} (a part such as '{paper}' goes in parts), got '{paper}'",
                built()
            ),
        };
        return Err(PyValueError::new_err(msg));
    }
    let parts = args::names(parts, "parts", "a part's name such as 'fig12'")?;
    if let Some(p) = parts.iter().find(|p| find(p).is_some()) {
        return Err(PyValueError::new_err(format!(
            "parts: '{p}' is a paper, not a part of {paper} (one paper per call; built: {})",
            built()
        )));
    }
    let words: Vec<String> = std::iter::once(paper).chain(parts).collect();
    let mut sels = selections(&words).map_err(PyValueError::new_err)?;
    check_parts(&sels).map_err(PyValueError::new_err)?;
    // one paper, checked above
    let sel = sels
        .pop()
        .ok_or_else(|| PyValueError::new_err("no paper to reproduce"))?;
    let common = Common {
        seeds: args::optional_integer(seeds, "seeds", PAPER_SEEDS)?,
        host: args::optional_text(host, "host", "a host profile's name such as 'bsdos-2.1'")?
            .map(|h| HostPreset::parse(&h))
            .transpose()
            .map_err(PyValueError::new_err)?,
        // the ablation's other profile: its default (bsd44-lite)
        against: None,
        threads: useful_threads(self::threads(threads)?, MAX_THREADS)
            .map_err(py_err)?
            .0,
    };
    let report = interruptible(py, common.threads, None, move |r| {
        report_json(&sel, &common, r)
    })?;
    to_json(&report)
}

/// An integer argument of the Python half checked as the native functions check theirs:
/// `name` must be `low` to `high` (`None`: no upper bound); returns it.
#[pyfunction]
#[pyo3(signature = (value, name, low, high=None))]
fn check_integer(
    value: &Bound<'_, PyAny>,
    name: &str,
    low: u64,
    high: Option<u64>,
) -> PyResult<u64> {
    args::integer(value, name, Bounds { low, high })
}

/// Every protocol: (name, description), as `snooplab protocols` lists them.
#[pyfunction]
fn protocols() -> Vec<(String, String)> {
    Protocol::ALL
        .iter()
        .map(|p| (p.name().to_string(), p.description().to_string()))
        .collect()
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(trace, m)?)?;
    m.add_function(wrap_pyfunction!(combinations, m)?)?;
    m.add_function(wrap_pyfunction!(sweep, m)?)?;
    m.add_function(wrap_pyfunction!(reproduce, m)?)?;
    m.add_function(wrap_pyfunction!(protocols, m)?)?;
    m.add_function(wrap_pyfunction!(check_integer, m)?)?;
    m.add("MAX_THREADS", MAX_THREADS)?;
    Ok(())
}
