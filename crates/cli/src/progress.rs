//! Progress of parallel jobs of many runs (`sweep`, `reproduce`) on stderr: a bar on a terminal;
//! elsewhere (a log file, a pipe, CI) a plain line per tenth of the job and at least one a minute,
//! because a bar is invisible there and a job of hours would otherwise say nothing until it ends.
//! `--quiet` silences it all. (One long run at a time, as `run`, `bench` and `live` make, has a
//! line of its own: `run_progress.rs`.)

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

/// A plain line at least this often when a tenth of the job takes longer.
const LINE_EVERY: Duration = Duration::from_secs(60);

pub struct Progress {
    what: &'static str,
    total: u64,
    done: AtomicU64,
    started: Instant,
    /// The bar on a terminal; `None` means plain lines.
    bar: Option<ProgressBar>,
    /// When the last plain line was printed.
    last_line: Mutex<Instant>,
    /// `--quiet`: nothing is printed.
    quiet: bool,
}

impl Progress {
    /// `what` prefixes the plain lines (`sweep: 3/10 runs done`); `quiet` prints nothing.
    pub fn new(what: &'static str, total: u64, quiet: bool) -> Result<Progress, String> {
        let bar = if !quiet && std::io::stderr().is_terminal() {
            let bar = ProgressBar::new(total);
            bar.set_style(
                ProgressStyle::with_template(
                    "{bar:40} {pos}/{len} runs, {elapsed} elapsed, ~{eta} left",
                )
                .map_err(|e| format!("progress bar: {e}"))?,
            );
            Some(bar)
        } else {
            None
        };
        let now = Instant::now();
        Ok(Progress {
            what,
            total,
            done: AtomicU64::new(0),
            started: now,
            bar,
            last_line: Mutex::new(now),
            quiet,
        })
    }

    /// One more run done (from any thread).
    pub fn inc(&self) {
        if let Some(bar) = &self.bar {
            bar.inc(1);
            return;
        }
        if self.quiet {
            return;
        }
        // counted under the lock, so the lines of several threads come out in order; a poisoned
        // lock only means another thread panicked while printing, which does not matter here
        let mut last = self
            .last_line
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        let total = self.total.max(1);
        let new_tenth = done * 10 / total != (done - 1) * 10 / total;
        if new_tenth || last.elapsed() >= LINE_EVERY {
            *last = Instant::now();
            eprintln!(
                "{}: {done}/{} runs done, {:.0} s elapsed",
                self.what,
                self.total,
                self.started.elapsed().as_secs_f64()
            );
        }
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }

    /// The job is done: the bar goes, and one line says how fast it ran on `threads` threads
    /// (runs per second: what scales with the threads, docs/speed.md).
    pub fn finish_with_rate(&self, threads: usize) {
        self.finish();
        if self.quiet {
            return;
        }
        let secs = self.started.elapsed().as_secs_f64();
        eprintln!(
            "{}: {} runs in {secs:.1} s on {threads} thread{}, {:.1} runs/s",
            self.what,
            self.total,
            if threads == 1 { "" } else { "s" },
            self.total as f64 / secs.max(1e-9)
        );
    }
}
