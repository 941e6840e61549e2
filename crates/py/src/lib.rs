//! `snooplab._native`, the Rust half of the Python package: every function takes the scenario or
//! the grid as text (JSON from a dict, or a scenario file's TOML) and returns the JSON the command
//! line prints, so that `snooplab.run` is `snooplab run --json` byte for byte, and the Python half
//! (`python/snooplab/`) only turns that into dicts and DataFrames. Simulations run with the GIL
//! released, on rayon's threads, and a Ctrl-C in Python stops a sweep between runs.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use snooplab_lab::grid::{Plan, SweepSettings};
use snooplab_lab::parallel::{useful_threads, Runner, MAX_THREADS};
use snooplab_lab::reproduce::report_json;
use snooplab_lab::Error;
use snooplab_papers::select::{check_parts, check_seeds, selections};
use snooplab_papers::study::Common;
use snooplab_proto::tcp::HostPreset;
use snooplab_sim::{Observer, Protocol, RunResult, Scenario, Simulation};

/// How often a waiting call looks for a signal (Ctrl-C) while the runs go on.
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// Bad settings are the caller's `ValueError`, with the command line's message.
fn py_err(e: Error) -> PyErr {
    match e {
        Error::Invalid(m) | Error::File(m) => PyValueError::new_err(m),
        Error::Threads(m) => PyRuntimeError::new_err(m),
        Error::Cancelled => PyRuntimeError::new_err("interrupted"),
    }
}

fn to_json<T: serde::Serialize>(v: &T) -> PyResult<String> {
    serde_json::to_string(v)
        .map_err(|e| PyRuntimeError::new_err(format!("cannot encode results: {e}")))
}

/// A scenario from `text`: JSON (`format = "json"`, a dict's keys) or a scenario file's TOML.
fn scenario(text: &str, format: &str) -> Result<Scenario, Error> {
    match format {
        "json" => snooplab_lab::scenario::from_json(text),
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
            let r = work(&Runner {
                threads,
                on_done: Some(&one_done),
                cancel: Some(&flag),
            });
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
                let r = r.map_err(py_err)?;
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
    py.detach(move || {
        let (r, o) = Simulation::observed(&sc, Observer::default().with_trace()).run_observed();
        if let Some(t) = &o.trace {
            t.write_csv(&dir).map_err(|e| {
                PyRuntimeError::new_err(format!("cannot write the trace in {}: {e}", dir.display()))
            })?;
        }
        to_json(&r)
    })
}

/// The plan of a grid (JSON, `SweepSettings::from_json`); the seeds as text, checked as the
/// command line checks `--seeds` and `--seed-base`.
fn plan(grid: &str, seeds: &str, seed_base: &str) -> Result<Plan, Error> {
    SweepSettings::from_json(grid, seeds, seed_base)?.plan()
}

/// How many combinations a grid has (a Ray sweep splits them into tasks).
#[pyfunction]
fn combinations(grid: &str, seeds: &str, seed_base: &str) -> PyResult<usize> {
    Ok(plan(grid, seeds, seed_base).map_err(py_err)?.configs.len())
}

/// A sweep, or its combinations `first .. first + count`: `{"summaries": [...], "runs": [...]}` as
/// `snooplab sweep --json` prints them (for that range). `progress(done, total)` is called as
/// runs end.
#[pyfunction]
#[pyo3(signature = (grid, seeds, seed_base, threads=None, first=0, count=None, progress=None))]
#[allow(clippy::too_many_arguments)]
fn sweep(
    py: Python<'_>,
    grid: &str,
    seeds: &str,
    seed_base: &str,
    threads: Option<usize>,
    first: usize,
    count: Option<usize>,
    progress: Option<Py<PyAny>>,
) -> PyResult<String> {
    let mut plan = plan(grid, seeds, seed_base).map_err(py_err)?;
    if first > 0 || count.is_some() {
        plan = plan.part(first, count.unwrap_or(usize::MAX));
    }
    let results = run_interruptible(py, plan.jobs(), threads, progress)?;
    let summaries = plan.summaries(&results);
    to_json(&serde_json::json!({ "summaries": summaries, "runs": results }))
}

/// Papers reproduced: `{"paper000": report, ...}` as `snooplab reproduce WORDS --json` prints it
/// (words: papers, each followed by its parts; none: every built paper).
#[pyfunction]
#[pyo3(signature = (words, seeds=None, host=None, threads=None))]
fn reproduce(
    py: Python<'_>,
    words: Vec<String>,
    seeds: Option<u64>,
    host: Option<&str>,
    threads: Option<usize>,
) -> PyResult<String> {
    let sels = selections(&words).map_err(PyValueError::new_err)?;
    check_parts(&sels).map_err(PyValueError::new_err)?;
    let common = Common {
        seeds: seeds
            .map(check_seeds)
            .transpose()
            .map_err(PyValueError::new_err)?,
        host: host
            .map(HostPreset::parse)
            .transpose()
            .map_err(PyValueError::new_err)?,
        threads: useful_threads(threads, MAX_THREADS).map_err(py_err)?.0,
    };
    let doc = interruptible(py, common.threads, None, move |r| {
        let mut all = serde_json::Map::new();
        for s in &sels {
            all.insert(s.paper.name().into(), report_json(s, &common, r)?);
        }
        Ok(serde_json::Value::Object(all))
    })?;
    to_json(&doc)
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
    Ok(())
}
