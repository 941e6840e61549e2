//! An empirical CDF read from a file the user provides: the `(value, cumulative probability)`
//! points Bruce Mah's model is drawn from (`mah_tables.rs`), checked to form a CDF and bounded in
//! size, with one clear error naming the file and line of the first fault.
//!
//! The file form is that of Mah's `.cdf` files, one point a line. GloMoSim 2.02 says its tables
//! are "generated from" them (`application/http_distribution.c`: "HttpThinkTime.cc generated
//! from HttpThinkTime.cdf") and keeps a value and its cumulative probability per point
//! (`DoubleDistElement`, `http_distribution.h`); ns-2's `EmpiricalRandomVariable::loadCDF`
//! (`tools/ranvar.cc`), which its Web model points at Mah's `HttpReplyLength.cdf` and its
//! siblings, reads a line as value, an ignored middle column, and the cumulative probability
//! (`"%lf %*f %lf"`). Reading: a line holds two numbers (value, probability) or three (value,
//! ignored, probability); blank lines and lines starting with `#` are skipped.
//!
//! Nothing here holds a table's numbers: snooplab does not ship Mah's tables
//! (docs/web-workload.md says why and where to get them).

use std::io::Read;
use std::path::Path;

/// A table file above 1 MiB is refused: Mah's longest table has under 2,000 points of a few
/// dozen bytes each, so this is far above any real one and keeps a wrong path (a log, a device)
/// from being read whole.
pub const MAX_CDF_FILE_BYTES: u64 = 1 << 20;

/// A table of more than 100,000 points is refused (a bound on memory and on the check, as
/// above: the real ones are fifty times smaller).
pub const MAX_CDF_POINTS: usize = 100_000;

/// The last probability must be 1 within this: the files print it as `1`, a bound this loose
/// lets a file that prints `0.99999999999` through without letting a truncated table through.
pub const LAST_PROBABILITY_SLACK: f64 = 1e-9;

/// An empirical CDF: values non-decreasing and non-negative, probabilities strictly increasing
/// within `[0, 1]`, the last 1.
#[derive(Clone, Debug, PartialEq)]
pub struct Cdf {
    points: Vec<(f64, f64)>,
}

impl Cdf {
    /// The points, in order.
    pub fn points(&self) -> &[(f64, f64)] {
        &self.points
    }

    /// A CDF from points, or the first fault as "point N: ..." (1-based).
    pub fn from_points(points: Vec<(f64, f64)>) -> Result<Cdf, String> {
        let mut cdf = Cdf { points: Vec::new() };
        for (i, (value, p)) in points.into_iter().enumerate() {
            cdf.push(value, p)
                .map_err(|e| format!("point {}: {e}", i + 1))?;
        }
        let last = cdf.points.len();
        cdf.finish().map_err(|e| at(&format!("point {last}"), e))?;
        Ok(cdf)
    }

    /// A CDF from a file's text, or the first fault as "line N: ..." (1-based).
    pub fn parse(text: &str) -> Result<Cdf, String> {
        let mut cdf = Cdf { points: Vec::new() };
        let mut last_line = 0;
        for (i, line) in text.lines().enumerate() {
            let line_no = i + 1;
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (value, p) = point_of_line(line).map_err(|e| format!("line {line_no}: {e}"))?;
            cdf.push(value, p)
                .map_err(|e| format!("line {line_no}: {e}"))?;
            last_line = line_no;
        }
        cdf.finish()
            .map_err(|e| at(&format!("line {last_line}"), e))?;
        Ok(cdf)
    }

    /// A CDF from a file, or one line naming the file (and the line) of the first fault.
    pub fn read(path: &Path) -> Result<Cdf, String> {
        let shown = path.display();
        let file =
            std::fs::File::open(path).map_err(|e| format!("{shown}: cannot be read: {e}"))?;
        let mut text = String::new();
        file.take(MAX_CDF_FILE_BYTES + 1)
            .read_to_string(&mut text)
            .map_err(|e| format!("{shown}: cannot be read as text: {e}"))?;
        if text.len() as u64 > MAX_CDF_FILE_BYTES {
            return Err(format!(
                "{shown}: larger than {MAX_CDF_FILE_BYTES} bytes, not a CDF table"
            ));
        }
        Cdf::parse(&text).map_err(|e| format!("{shown}: {e}"))
    }

    /// Appends a point if it keeps the table a CDF so far.
    fn push(&mut self, value: f64, p: f64) -> Result<(), String> {
        if self.points.len() >= MAX_CDF_POINTS {
            return Err(format!("more than {MAX_CDF_POINTS} points"));
        }
        if !value.is_finite() || value < 0.0 {
            return Err(format!("value {value} is not a finite non-negative number"));
        }
        if !(0.0..=1.0).contains(&p) {
            return Err(format!("cumulative probability {p} is outside [0, 1]"));
        }
        if let Some(&(prev_value, prev_p)) = self.points.last() {
            if value < prev_value {
                return Err(format!(
                    "value {value} is below the previous {prev_value}: values must not decrease"
                ));
            }
            if p <= prev_p {
                return Err(format!(
                    "cumulative probability {p} is not above the previous {prev_p}"
                ));
            }
        }
        self.points.push((value, p));
        Ok(())
    }

    /// The table is whole: at least one point, the last at probability 1. An error names no
    /// place when there is no point at all (`None`).
    fn finish(&mut self) -> Result<(), Option<String>> {
        let Some(last) = self.points.last_mut() else {
            return Err(None);
        };
        if (last.1 - 1.0).abs() > LAST_PROBABILITY_SLACK {
            return Err(Some(format!(
                "the last cumulative probability is {}, not 1: the table is cut short",
                last.1
            )));
        }
        last.1 = 1.0;
        Ok(())
    }
}

/// `finish`'s error at its place, or the empty table's.
fn at(place: &str, error: Option<String>) -> String {
    match error {
        Some(e) => format!("{place}: {e}"),
        None => "no points: a CDF table needs at least one".into(),
    }
}

/// A line's value and cumulative probability: its first and last of two or three numbers.
fn point_of_line(line: &str) -> Result<(f64, f64), String> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let number = |s: &str| {
        s.parse::<f64>().map_err(|_| {
            let shown: String = s.chars().take(32).collect();
            format!("'{}' is not a number", shown.escape_debug())
        })
    };
    match fields[..] {
        [value, p] => Ok((number(value)?, number(p)?)),
        [value, middle, p] => {
            number(middle)?;
            Ok((number(value)?, number(p)?))
        }
        _ => Err(format!(
            "expected 'value probability' or 'value count probability', got {} fields",
            fields.len()
        )),
    }
}
