//! The progress line of one long `snooplab run` on stderr: simulated time, bytes delivered and
//! events, shown only once the run has taken [`QUIET_FOR`] of wall time (short runs, and the
//! tests, print nothing). On a terminal one line is rewritten in place a few times a second;
//! elsewhere (a log file, a pipe, CI) a plain line is written every [`LINE_EVERY`].

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use snooplab_proto::time::as_secs_f64;
use snooplab_sim::run::RunProgress;

/// Runs shorter than this say nothing.
const QUIET_FOR: Duration = Duration::from_secs(2);
/// How often the line on a terminal is rewritten.
const REDRAW_EVERY: Duration = Duration::from_millis(250);
/// How often a plain line is written elsewhere.
const LINE_EVERY: Duration = Duration::from_secs(10);

pub struct RunTicker {
    started: Instant,
    last: Option<Instant>,
    terminal: bool,
    /// A line is on the terminal and must be cleared at the end.
    drawn: bool,
}

impl RunTicker {
    pub fn new() -> RunTicker {
        RunTicker {
            started: Instant::now(),
            last: None,
            terminal: std::io::stderr().is_terminal(),
            drawn: false,
        }
    }

    /// Called by the simulation every so many events.
    pub fn tick(&mut self, p: RunProgress) {
        let now = Instant::now();
        if now.duration_since(self.started) < QUIET_FOR {
            return;
        }
        let every = if self.terminal {
            REDRAW_EVERY
        } else {
            LINE_EVERY
        };
        if self.last.is_some_and(|l| now.duration_since(l) < every) {
            return;
        }
        self.last = Some(now);
        let line = progress_line(&p, now.duration_since(self.started));
        let mut err = std::io::stderr().lock();
        // a progress line that cannot be written is not worth stopping the run for
        if self.terminal {
            let _ = write!(err, "\r\x1b[2K{line}");
            self.drawn = true;
        } else {
            let _ = writeln!(err, "{line}");
        }
    }
}

impl Drop for RunTicker {
    /// Clears the terminal's line, so the results start on a clean one.
    fn drop(&mut self) {
        if self.drawn {
            let _ = write!(std::io::stderr().lock(), "\r\x1b[2K");
        }
    }
}

/// `run: 812.3 of 3600 s simulated, 3.1 of 8.0 MB delivered, 2.4 M events, 12 s elapsed`.
pub fn progress_line(p: &RunProgress, elapsed: Duration) -> String {
    let mb = |b: u64| b as f64 / (1 << 20) as f64;
    format!(
        "run: {:.1} of {:.0} s simulated, {:.1} of {:.1} MB delivered, {:.1} M events, {:.0} s elapsed",
        as_secs_f64(p.now),
        as_secs_f64(p.max_time),
        mb(p.delivered),
        mb(p.transfer),
        p.events as f64 / 1e6,
        elapsed.as_secs_f64()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_says_time_bytes_and_events() {
        let p = RunProgress {
            now: 812_300_000_000,
            max_time: 3_600_000_000_000,
            events: 2_400_000,
            delivered: 3 << 20,
            transfer: 8 << 20,
        };
        assert_eq!(
            progress_line(&p, Duration::from_secs(12)),
            "run: 812.3 of 3600 s simulated, 3.0 of 8.0 MB delivered, 2.4 M events, 12 s elapsed"
        );
    }
}
