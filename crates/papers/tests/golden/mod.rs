//! What the golden tables of papers 000, 001, 002 and 004 (`paper00N_fixed.rs`) share: running their
//! jobs on a few threads, results in the jobs' order, and comparing the measured rows with the
//! table, or writing them into it with `SNOOPLAB_BLESS=1` (`scripts/bless` regenerates them all).
//!
//! Each table is a `const GOLDEN` whose rows sit between two marker comments, one row per line
//! (`#[rustfmt::skip]`), so a regenerated table shows in `git diff` as the rows that moved.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use snooplab_sim::RunResult;

/// The line before the first row of a table.
pub const BEGIN: &str = "// golden rows: begin";
/// The line after the last row.
pub const END: &str = "// golden rows: end";

/// `SNOOPLAB_BLESS=1` (any value but empty or `0`): write the measured rows into the table instead
/// of comparing.
pub fn blessing() -> bool {
    std::env::var("SNOOPLAB_BLESS").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// `one` on every job, on as many threads as the machine has cores (at most 4), the results in the
/// jobs' order: a run depends on its job alone, so the threads change only how long the test takes.
pub fn run_all<J: Sync>(jobs: &[J], one: impl Fn(&J) -> RunResult + Sync) -> Vec<RunResult> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 4);
    let next = AtomicUsize::new(0);
    let out: Mutex<Vec<Option<RunResult>>> = Mutex::new(vec![None; jobs.len()]);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(j) = jobs.get(i) else { break };
                let r = one(j);
                out.lock().expect("results")[i] = Some(r);
            });
        }
    });
    out.into_inner()
        .expect("results")
        .into_iter()
        .map(|r| r.expect("every job ran"))
        .collect()
}

/// Compares the table's rows with the measured ones (`same[i]`: row `i` is bit for bit the same;
/// one entry per row both have),
/// each row given as its source line; or, blessing, writes the measured lines into `source` (the
/// test's file) between [`BEGIN`] and [`END`].
pub fn settle(source: &str, golden: &[String], measured: &[String], same: &[bool]) {
    if blessing() {
        let text = std::fs::read_to_string(source).unwrap_or_else(|e| panic!("{source}: {e}"));
        let lines: Vec<&str> = text.lines().collect();
        let at = |marker: &str| {
            lines
                .iter()
                .position(|l| l.trim() == marker)
                .unwrap_or_else(|| panic!("{source}: no line '{marker}'"))
        };
        let (b, e) = (at(BEGIN), at(END));
        assert!(b < e, "{source}: the markers are out of order");
        let mut out: Vec<String> = lines[..=b].iter().map(|l| l.to_string()).collect();
        out.extend(measured.iter().cloned());
        out.extend(lines[e..].iter().map(|l| l.to_string()));
        let mut new = out.join("\n");
        new.push('\n');
        std::fs::write(source, new).unwrap_or_else(|e| panic!("{source}: {e}"));
        eprintln!(
            "SNOOPLAB_BLESS: wrote {} rows into {source}",
            measured.len()
        );
        return;
    }
    let mut changed = vec![];
    for (i, m) in measured.iter().enumerate() {
        match golden.get(i) {
            Some(_) if same.get(i) == Some(&true) => {}
            Some(g) => changed.push(format!(
                "row {}:\n  was {}\n  now {}",
                i + 1,
                g.trim(),
                m.trim()
            )),
            None => changed.push(format!("row {}: new {}", i + 1, m.trim())),
        }
    }
    for (i, g) in golden.iter().enumerate().skip(measured.len()) {
        changed.push(format!("row {}: gone {}", i + 1, g.trim()));
    }
    assert!(
        changed.is_empty(),
        "{} of {} rows changed ({} measured); if the change is meant, regenerate with \
         SNOOPLAB_BLESS=1 and say why in the file's doc comment ({source}):\n{}",
        changed.len(),
        golden.len(),
        measured.len(),
        changed.join("\n")
    );
}
