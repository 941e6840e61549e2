//! The native functions' arguments, checked where Python hands them over: a wrong type is a
//! `TypeError`, a value out of range a `ValueError`, and both name the argument, say what it may
//! be and show what it got (`threads must be a positive integer (1 to 256), got -1`), where
//! PyO3's own conversion would say `can't convert negative int to unsigned` without a name.

use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyList, PyString, PyTuple};

/// The longest shown value in a message: an error is one short line, and a repr may be huge.
const SHOWN_CHARS: usize = 60;

/// What a value is, for a message: its type and repr (`str '2'`, `float 1.5`), cut short.
pub fn found(value: &Bound<'_, PyAny>) -> String {
    let ty = value
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".into());
    format!("{ty} {}", shown(value))
}

/// A value's repr, cut at [`SHOWN_CHARS`].
fn shown(value: &Bound<'_, PyAny>) -> String {
    let r = value
        .repr()
        .map(|r| r.to_string())
        .unwrap_or_else(|_| "?".into());
    if r.chars().count() <= SHOWN_CHARS {
        return r;
    }
    let cut: String = r.chars().take(SHOWN_CHARS).collect();
    format!("{cut}...")
}

/// The integers an argument may be: `low` to `high` (`None`: no upper bound but u64's).
#[derive(Clone, Copy)]
pub struct Bounds {
    pub low: u64,
    pub high: Option<u64>,
}

impl Bounds {
    /// `a positive integer (1 to 256)`, `an integer (0 or more)`.
    fn describe(self) -> String {
        let kind = if self.low >= 1 {
            "a positive integer"
        } else {
            "an integer"
        };
        match self.high {
            Some(h) => format!("{kind} ({} to {h})", self.low),
            None => format!("{kind} ({} or more)", self.low),
        }
    }
}

/// An integer argument within `bounds`. Anything Python takes as an index is an integer (an int,
/// a NumPy integer); a bool is not (`threads=True` is a mistake, not 1), nor is a float or a
/// string (`seeds=2.5`, `threads="2"`).
pub fn integer(value: &Bound<'_, PyAny>, name: &str, bounds: Bounds) -> PyResult<u64> {
    let py = value.py();
    let wrong_type = || {
        PyTypeError::new_err(format!(
            "{name} must be {}, got {}",
            bounds.describe(),
            found(value)
        ))
    };
    let out_of_range = || {
        PyValueError::new_err(format!(
            "{name} must be {}, got {}",
            bounds.describe(),
            shown(value)
        ))
    };
    if value.is_instance_of::<PyBool>() {
        return Err(wrong_type());
    }
    let n = match value.extract::<u64>() {
        Ok(n) => n,
        // negative, or past u64
        Err(e) if e.is_instance_of::<PyOverflowError>(py) => return Err(out_of_range()),
        Err(e) if e.is_instance_of::<PyTypeError>(py) => return Err(wrong_type()),
        Err(e) => return Err(e),
    };
    if n < bounds.low || bounds.high.is_some_and(|h| n > h) {
        return Err(out_of_range());
    }
    Ok(n)
}

/// [`integer`], or `None` for Python's `None`; a wrong type's message says `None` is allowed.
pub fn optional_integer(
    value: Option<&Bound<'_, PyAny>>,
    name: &str,
    bounds: Bounds,
) -> PyResult<Option<u64>> {
    let Some(v) = value.filter(|v| !v.is_none()) else {
        return Ok(None);
    };
    integer(v, name, bounds).map(Some).map_err(|e| {
        if e.is_instance_of::<PyTypeError>(v.py()) {
            PyTypeError::new_err(format!(
                "{name} must be {} or None, got {}",
                bounds.describe(),
                found(v)
            ))
        } else {
            e
        }
    })
}

/// A string argument; `what` says what it names (`a paper's name such as 'paper000'`).
pub fn text(value: &Bound<'_, PyAny>, name: &str, what: &str) -> PyResult<String> {
    if value.is_instance_of::<PyString>() {
        return value.extract::<String>();
    }
    Err(PyTypeError::new_err(format!(
        "{name} must be {what}, got {}",
        found(value)
    )))
}

/// [`text`], or `None` for Python's `None`.
pub fn optional_text(
    value: Option<&Bound<'_, PyAny>>,
    name: &str,
    what: &str,
) -> PyResult<Option<String>> {
    match value.filter(|v| !v.is_none()) {
        None => Ok(None),
        Some(v) => text(v, name, &format!("{what} or None")).map(Some),
    }
}

/// Names given as one string or a list (or tuple) of strings: one string is one name, never its
/// characters (`parts="fig12"` was read as the parts `f`, `i`, `g`, `1`, `2`).
pub fn names(value: Option<&Bound<'_, PyAny>>, name: &str, what: &str) -> PyResult<Vec<String>> {
    let Some(v) = value.filter(|v| !v.is_none()) else {
        return Ok(vec![]);
    };
    if v.is_instance_of::<PyString>() {
        return Ok(vec![v.extract()?]);
    }
    let items: Vec<Bound<'_, PyAny>> = if let Ok(l) = v.cast::<PyList>() {
        l.iter().collect()
    } else if let Ok(t) = v.cast::<PyTuple>() {
        t.iter().collect()
    } else {
        return Err(PyTypeError::new_err(format!(
            "{name} must be {what}, a list of them or None, got {}",
            found(v)
        )));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| text(item, &format!("{name}[{i}]"), what))
        .collect()
}
