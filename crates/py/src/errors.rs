//! How the library's errors reach Python. A refusal, whether of the settings, a scenario the
//! engine will not run, a file it cannot read or whatever else the engine refuses up front, is
//! the caller's `ValueError` with the one line the command line prints after `error:`; only a
//! failure that is not about the input (threads that would not start, a bug) is a
//! `RuntimeError`, and a panic is caught before it reaches Python as one.

use std::any::Any;

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::PyErr;
use snooplab_lab::Error;

/// The library's error as Python's exception.
pub fn py_err(e: Error) -> PyErr {
    match e {
        Error::Threads(m) => PyRuntimeError::new_err(m),
        Error::Cancelled => PyRuntimeError::new_err("interrupted"),
        // every other kind, including any the engine adds, is a refusal of the input: the
        // engine's own message, kept to one line as the command line keeps it
        other => PyValueError::new_err(one_line(&other.to_string())),
    }
}

/// A message on one line: the command line prints one (docs/architecture.md, Rules), and so does
/// a Python traceback's last line.
fn one_line(m: &str) -> String {
    m.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A panic in the runs, as the `RuntimeError` it reaches Python as: a bug, with the panic's
/// message, rather than PyO3's `PanicException` (which `except Exception` does not catch) or a
/// bare "the runs stopped".
pub fn panicked(payload: Box<dyn Any + Send>) -> PyErr {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".into());
    PyRuntimeError::new_err(format!(
        "internal error in snooplab (a bug, please report it): {}",
        one_line(&what)
    ))
}
