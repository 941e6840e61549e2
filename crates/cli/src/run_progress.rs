//! The progress line of one long job on stderr, for every command that runs one thing at a time
//! (`run`, `bench`, each run of `live`): nothing until the job has taken [`QUIET_FOR`] of wall
//! time (short jobs, and the tests, print nothing), then on a terminal one line rewritten in
//! place every [`REDRAW_EVERY`], elsewhere (a log file, a pipe, CI) a plain line every
//! [`LINE_EVERY`]. The caller says what the line says; this file says when, and where. `--quiet`
//! silences it all.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use snooplab_proto::time::as_secs_f64;
use snooplab_sim::run::RunProgress;

/// Jobs shorter than this say nothing.
pub const QUIET_FOR: Duration = Duration::from_secs(2);
/// How often the line on a terminal is rewritten.
const REDRAW_EVERY: Duration = Duration::from_millis(250);
/// How often a plain line is written elsewhere.
const LINE_EVERY: Duration = Duration::from_secs(10);

/// Where a ticker reads the time: the wall clock, or a test's own.
pub trait Clock {
    /// The time since a fixed origin of this clock's own.
    fn now(&self) -> Duration;
}

/// The wall clock, from when it was made.
pub struct WallClock(Instant);

impl Clock for WallClock {
    fn now(&self) -> Duration {
        self.0.elapsed()
    }
}

/// Decides when a progress line is shown and writes it: [`Ticker::tick`] as the job goes,
/// [`Ticker::say`] for a line that is always shown (a live run's start and end).
pub struct Ticker<C: Clock = WallClock, W: Write = std::io::Stderr> {
    clock: C,
    out: W,
    started: Duration,
    /// When the last line was shown, since `started`.
    last: Option<Duration>,
    terminal: bool,
    quiet: bool,
    /// A line is on the terminal and must be cleared before anything else is written.
    drawn: bool,
}

impl Ticker {
    /// On stderr, timed from now by the wall clock; `quiet` (`--quiet`) shows nothing.
    pub fn stderr(quiet: bool) -> Ticker {
        let terminal = std::io::stderr().is_terminal();
        Ticker::new(
            WallClock(Instant::now()),
            std::io::stderr(),
            terminal,
            quiet,
        )
    }
}

impl<C: Clock, W: Write> Ticker<C, W> {
    /// Timed from `clock`'s now, writing to `out` as to a terminal (`terminal`: one line
    /// rewritten in place) or a log.
    pub fn new(clock: C, out: W, terminal: bool, quiet: bool) -> Ticker<C, W> {
        Ticker {
            started: clock.now(),
            clock,
            out,
            last: None,
            terminal,
            quiet,
            drawn: false,
        }
    }

    /// The wall time since the ticker was made.
    pub fn elapsed(&self) -> Duration {
        self.clock.now().saturating_sub(self.started)
    }

    /// Shows `line(elapsed)` if it is time to: once the job has taken [`QUIET_FOR`], and then
    /// every [`REDRAW_EVERY`] on a terminal or [`LINE_EVERY`] elsewhere. `line` is only called
    /// then, so a caller may tick as often as it likes.
    pub fn tick(&mut self, line: impl FnOnce(Duration) -> String) {
        if self.quiet {
            return;
        }
        let now = self.elapsed();
        if now < QUIET_FOR {
            return;
        }
        let every = if self.terminal {
            REDRAW_EVERY
        } else {
            LINE_EVERY
        };
        if self.last.is_some_and(|l| now.saturating_sub(l) < every) {
            return;
        }
        self.last = Some(now);
        let text = line(now);
        // a progress line that cannot be written is not worth stopping the job for
        if self.terminal {
            let _ = write!(self.out, "\r\x1b[2K{text}");
            self.drawn = true;
        } else {
            let _ = writeln!(self.out, "{text}");
        }
        let _ = self.out.flush();
    }

    /// Shows `line` now, whatever the time (unless quiet), on a line of its own: on a terminal
    /// it replaces the line drawn in place.
    pub fn say(&mut self, line: &str) {
        if self.quiet {
            return;
        }
        self.clear();
        let _ = writeln!(self.out, "{line}");
    }

    /// Clears the terminal's line, so that what follows starts on a clean one.
    pub fn clear(&mut self) {
        if self.drawn {
            let _ = write!(self.out, "\r\x1b[2K");
            let _ = self.out.flush();
            self.drawn = false;
        }
    }
}

impl<C: Clock, W: Write> Drop for Ticker<C, W> {
    /// The results start on a clean line.
    fn drop(&mut self) {
        self.clear();
    }
}

/// How far a simulated run has come: `812.3 of 3600 s simulated, 3.1 of 8.0 MB delivered, 2.4 M
/// events` (the middle of `run`'s and `bench`'s lines).
pub fn sim_progress(p: &RunProgress) -> String {
    let mb = |b: u64| b as f64 / (1 << 20) as f64;
    format!(
        "{:.1} of {:.0} s simulated, {:.1} of {:.1} MB delivered, {:.1} M events",
        as_secs_f64(p.now),
        as_secs_f64(p.max_time),
        mb(p.delivered),
        mb(p.transfer),
        p.events as f64 / 1e6,
    )
}

/// `run`'s line: `run: 812.3 of 3600 s simulated, 3.1 of 8.0 MB delivered, 2.4 M events, 12 s
/// elapsed`.
pub fn run_line(p: &RunProgress, elapsed: Duration) -> String {
    format!(
        "run: {}, {:.0} s elapsed",
        sim_progress(p),
        elapsed.as_secs_f64()
    )
}

#[cfg(test)]
mod tests {
    use std::cell::{Cell, RefCell};
    use std::rc::Rc;

    use super::*;

    /// A clock the test sets.
    #[derive(Clone, Default)]
    struct TestClock(Rc<Cell<Duration>>);

    impl TestClock {
        fn set_ms(&self, ms: u64) {
            self.0.set(Duration::from_millis(ms));
        }
    }

    impl Clock for TestClock {
        fn now(&self) -> Duration {
            self.0.get()
        }
    }

    /// What the ticker wrote, readable while it lives.
    #[derive(Clone, Default)]
    struct Written(Rc<RefCell<Vec<u8>>>);

    impl Written {
        fn text(&self) -> String {
            String::from_utf8_lossy(&self.0.borrow()).into_owned()
        }
    }

    impl Write for Written {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.borrow_mut().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn ticker(terminal: bool, quiet: bool) -> (TestClock, Written, Ticker<TestClock, Written>) {
        let (clock, out) = (TestClock::default(), Written::default());
        clock.set_ms(5_000); // the clock's origin is not the ticker's
        let t = Ticker::new(clock.clone(), out.clone(), terminal, quiet);
        (clock, out, t)
    }

    fn line(e: Duration) -> String {
        format!("at {} ms", e.as_millis())
    }

    #[test]
    fn a_log_gets_nothing_for_2_s_then_a_line_every_10_s() {
        let (clock, out, mut t) = ticker(false, false);
        for ms in [5_000, 6_000, 6_999] {
            clock.set_ms(ms);
            t.tick(|_| panic!("no line is made before 2 s"));
        }
        assert_eq!(out.text(), "");
        clock.set_ms(7_000);
        t.tick(line);
        assert_eq!(out.text(), "at 2000 ms\n");
        for ms in [7_001, 12_000, 16_999] {
            clock.set_ms(ms);
            t.tick(line);
        }
        assert_eq!(out.text(), "at 2000 ms\n");
        clock.set_ms(17_000);
        t.tick(line);
        assert_eq!(out.text(), "at 2000 ms\nat 12000 ms\n");
        drop(t);
        // nothing drawn in place, nothing to clear
        assert_eq!(out.text(), "at 2000 ms\nat 12000 ms\n");
    }

    #[test]
    fn a_terminal_line_is_redrawn_in_place_and_cleared() {
        let (clock, out, mut t) = ticker(true, false);
        clock.set_ms(7_100);
        t.tick(line);
        clock.set_ms(7_200);
        t.tick(line); // under 250 ms since the last
        clock.set_ms(7_350);
        t.tick(line);
        assert_eq!(out.text(), "\r\x1b[2Kat 2100 ms\r\x1b[2Kat 2350 ms");
        // a line said now replaces the drawn one and ends with a newline
        t.say("live: run 1/1 done");
        assert_eq!(
            out.text(),
            "\r\x1b[2Kat 2100 ms\r\x1b[2Kat 2350 ms\r\x1b[2Klive: run 1/1 done\n"
        );
        drop(t);
        // said lines are not cleared
        assert!(out.text().ends_with("done\n"), "{:?}", out.text());
        let (clock, out, mut t) = ticker(true, false);
        clock.set_ms(8_000);
        t.tick(line);
        drop(t);
        assert_eq!(out.text(), "\r\x1b[2Kat 3000 ms\r\x1b[2K");
    }

    #[test]
    fn quiet_shows_nothing() {
        for terminal in [false, true] {
            let (clock, out, mut t) = ticker(terminal, true);
            t.say("live: run 1/2 started");
            for s in 5..100 {
                clock.set_ms(s * 1_000);
                t.tick(|_| panic!("quiet makes no line"));
            }
            drop(t);
            assert_eq!(out.text(), "");
        }
    }

    #[test]
    fn said_lines_show_before_2_s() {
        let (_clock, out, mut t) = ticker(false, false);
        t.say("live: run 1/2 plain seed 1 started");
        assert_eq!(out.text(), "live: run 1/2 plain seed 1 started\n");
    }

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
            run_line(&p, Duration::from_secs(12)),
            "run: 812.3 of 3600 s simulated, 3.0 of 8.0 MB delivered, 2.4 M events, 12 s elapsed"
        );
    }
}
