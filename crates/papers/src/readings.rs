//! Readings: details a paper's text leaves open, each read in named ways with a source per way
//! (issue 28). A paper's testbed carries its readings as data (`paperNNN/readings.rs`); the first
//! value of each is the default, what the text says where it says something, and every other
//! value is one the sources allow. `reproduce` runs the parts a reading affects under every value,
//! the default runs first (so the default's results, and the claims checked on them, are those of
//! a paper without readings), and the report shows the values side by side. Nothing here is fitted
//! to a paper's number: a reading is never chosen by its result, and both are always shown.

use serde::Serialize;

use crate::claim::Claim;
use crate::document::{Cell, Document, Row, Table};

/// One way to read a detail, and where it comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Value {
    /// Its name in the report (`as-stated-64k`).
    pub name: &'static str,
    /// What it sets, in words.
    pub sets: &'static str,
    /// Its source, one line: the paper's words, a file and line of a public source.
    pub source: &'static str,
}

/// A detail the paper leaves open, and the ways to read it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Reading {
    /// Its name in the report (`window`).
    pub name: &'static str,
    /// What the paper leaves open, in words.
    pub question: &'static str,
    /// The values, the default first.
    pub values: &'static [Value],
    /// The parts of the paper it affects (those `reproduce` runs under every value).
    pub affects: &'static str,
}

impl Reading {
    /// The default value: what the text says where it says something.
    pub fn default_value(&self) -> &'static Value {
        &self.values[0]
    }
}

/// What the claims of a report were checked under, for its text: `window = as-stated-64k`.
pub fn defaults_text(readings: &[&Reading]) -> String {
    readings
        .iter()
        .map(|r| format!("{} = {}", r.name, r.default_value().name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The readings section of a report: what each reading is, its values and their sources, and
/// under which values the claims are checked.
pub fn describe(d: &mut Document, readings: &[&Reading]) {
    if readings.is_empty() {
        return;
    }
    d.heading("Readings: details the paper leaves open");
    let mut rows = vec![];
    for r in readings {
        for (i, v) in r.values.iter().enumerate() {
            rows.push(Row::cells([
                if i == 0 { r.name } else { "" }.to_string(),
                if i == 0 {
                    format!("{} (default)", v.name)
                } else {
                    v.name.to_string()
                },
                v.sets.to_string(),
                v.source.to_string(),
            ]));
        }
        rows.push(Row::Note(format!(
            "{}: {}; runs under every value: {}",
            r.name, r.question, r.affects
        )));
    }
    d.table(Table {
        title: None,
        columns: ["reading", "value", "sets", "source"]
            .map(String::from)
            .to_vec(),
        rows,
    });
    d.text(format!(
        "Every table and claim above this section is under the default readings ({}); the tables \
         below show the parts each reading affects under every value, and which claims hold under \
         each.",
        defaults_text(readings)
    ));
}

/// The claims checked under each value of a reading (or combination of readings, `names` in
/// `by_value`'s order), side by side: a row per claim of the default, `holds`, `fails` or `-` (not
/// checked: the reading does not reach the claim's runs).
pub fn claims_table(by: &str, names: &[String], by_value: &[&[Claim]]) -> Table {
    let Some(first) = by_value.first() else {
        return Table::default();
    };
    let verdict = |c: Option<&Claim>| match c.and_then(|c| c.holds) {
        Some(true) => Cell::from("holds"),
        Some(false) => Cell::miss("fails", true),
        None => Cell::from("-"),
    };
    let rows = first
        .iter()
        .map(|c| {
            let mut cells = vec![Cell::from(c.id)];
            for claims in by_value {
                cells.push(verdict(claims.iter().find(|x| x.id == c.id)));
            }
            Row::Cells(cells)
        })
        .collect();
    let mut columns = vec![format!("claim, by {by}")];
    columns.extend(names.iter().take(by_value.len()).cloned());
    Table {
        title: Some(format!("The claims under each reading of {by}")),
        columns,
        rows,
    }
}

/// Under which values (`names`, in `by_value`'s order) each claim the readings reach holds, in
/// one sentence: the claims that hold under some values with those values, then those that hold
/// under none. A claim a value's runs did not check (`holds` is `None`, or missing) is not
/// reached by that value; a claim no value other than the default reaches is left out.
pub fn claims_summary(names: &[String], by_value: &[&[Claim]]) -> String {
    let Some(first) = by_value.first() else {
        return String::new();
    };
    let mut some = vec![];
    let mut none = vec![];
    for c in first.iter() {
        let verdicts: Vec<Option<bool>> = by_value
            .iter()
            .map(|claims| claims.iter().find(|x| x.id == c.id).and_then(|x| x.holds))
            .collect();
        if verdicts.iter().skip(1).all(Option::is_none) && by_value.len() > 1 {
            continue;
        }
        let holding: Vec<&str> = verdicts
            .iter()
            .zip(names)
            .filter(|(v, _)| **v == Some(true))
            .map(|(_, n)| n.as_str())
            .collect();
        if holding.is_empty() {
            none.push(format!("`{}`", c.id));
        } else {
            some.push(format!("`{}` holds under {}", c.id, and_list(&holding)));
        }
    }
    let mut parts = some;
    if !none.is_empty() {
        let verb = if none.len() == 1 { "holds" } else { "hold" };
        parts.push(format!("{} {verb} under none", none.join(", ")));
    }
    format!("Of the claims the readings reach: {}.", parts.join("; "))
}

/// Names in running text: `a`, `a and b`, `a; b and c` (names may hold commas).
pub fn and_list(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => (*one).to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join("; ")),
    }
}

/// A reading's values' names, in order.
pub fn value_names(reading: &Reading) -> Vec<String> {
    reading.values.iter().map(|v| v.name.to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::Block;

    const R: Reading = Reading {
        name: "window",
        question: "the socket buffers",
        values: &[
            Value {
                name: "a",
                sets: "64 KB",
                source: "the text",
            },
            Value {
                name: "b",
                sets: "8 KB",
                source: "the OS",
            },
        ],
        affects: "Table 1",
    };

    fn claim(id: &'static str, holds: Option<bool>) -> Claim {
        Claim {
            id,
            paper: "",
            measured: String::new(),
            holds,
        }
    }

    #[test]
    fn the_default_is_the_first_value_and_the_report_says_so() {
        assert_eq!(R.default_value().name, "a");
        assert_eq!(defaults_text(&[&R]), "window = a");
        let mut d = Document::default();
        describe(&mut d, &[&R]);
        let said = d.blocks.iter().any(|b| match b {
            Block::Text(t) => t.contains("under the default readings (window = a)"),
            _ => false,
        });
        assert!(said);
    }

    #[test]
    fn the_summary_names_the_values_each_claim_holds_under() {
        let a = [
            claim("x", Some(true)),
            claim("y", Some(false)),
            claim("z", Some(true)),
        ];
        let b = [claim("x", Some(false)), claim("y", Some(false))];
        let c = [claim("x", Some(true)), claim("y", Some(false))];
        let names = ["a".to_string(), "b".into(), "c".into()];
        assert_eq!(and_list(&["a", "b, c", "d"]), "a; b, c and d");
        assert_eq!(
            claims_summary(&names, &[&a, &b, &c]),
            "Of the claims the readings reach: `x` holds under a and c; `y` holds under none."
        );
    }

    #[test]
    fn claims_are_shown_under_every_value() {
        let a = [claim("x", Some(true)), claim("y", Some(false))];
        let b = [claim("x", Some(false))];
        let t = claims_table(R.name, &value_names(&R), &[&a, &b]);
        assert_eq!(t.columns, ["claim, by window", "a", "b"]);
        let texts = |r: &Row| match r {
            Row::Cells(c) => c.iter().map(|c| c.text.clone()).collect::<Vec<_>>(),
            _ => vec![],
        };
        assert_eq!(texts(&t.rows[0]), ["x", "holds", "fails"]);
        assert_eq!(texts(&t.rows[1]), ["y", "fails", "-"]);
    }
}
