//! Each `snooplab live` run's progress on stderr: a line as it starts and one as it ends, and,
//! once it has taken 2 s, the progress line of `run_progress.rs` (time elapsed, and the bytes
//! delivered where snooplab's own receivers count them). A run of minutes says where it is.

use std::time::Duration;

use crate::run_progress::Ticker;

/// One live run's lines, from its start to its end.
pub struct LiveRunProgress {
    ticker: Ticker,
    /// `run 2/5 ll-tcp-aware seed 2`.
    label: String,
}

impl LiveRunProgress {
    /// Says that run `label` starts (`quiet`: says nothing, now or later).
    pub fn start(label: String, quiet: bool) -> LiveRunProgress {
        let mut ticker = Ticker::stderr(quiet);
        ticker.say(&format!("live: {label} started"));
        LiveRunProgress { ticker, label }
    }

    /// Told as the run goes: the bytes the receivers have got of all the flows' bytes, `None`
    /// where they are not known (the `--exec` commands carry the traffic).
    pub fn tick(&mut self, delivered: Option<(u64, u64)>) {
        let label = &self.label;
        self.ticker
            .tick(|elapsed| running_line(label, elapsed, delivered));
    }

    /// Says that the run ended, with its throughput where it has one.
    pub fn done(mut self, mbps: Option<f64>) {
        let line = end_line(&self.label, self.ticker.elapsed(), mbps);
        self.ticker.say(&line);
    }

    /// Says that the run ended without a result (the error line follows).
    pub fn failed(mut self) {
        let line = format!(
            "live: {} failed after {:.1} s",
            self.label,
            self.ticker.elapsed().as_secs_f64()
        );
        self.ticker.say(&line);
    }
}

/// `live: run 2/5 ll-tcp-aware seed 2: 3.1 of 8.0 MB delivered, 12 s elapsed`, or without the
/// bytes when they are not known.
fn running_line(label: &str, elapsed: Duration, delivered: Option<(u64, u64)>) -> String {
    let mb = |b: u64| b as f64 / (1 << 20) as f64;
    let bytes = delivered.map_or(String::new(), |(got, of)| {
        format!("{:.1} of {:.1} MB delivered, ", mb(got), mb(of))
    });
    format!(
        "live: {label}: {bytes}{:.0} s elapsed",
        elapsed.as_secs_f64()
    )
}

/// `live: run 2/5 ll-tcp-aware seed 2 done in 45.1 s, 1.23 Mb/s`.
fn end_line(label: &str, elapsed: Duration, mbps: Option<f64>) -> String {
    let rate = mbps.map_or(String::new(), |m| format!(", {m:.2} Mb/s"));
    format!("live: {label} done in {:.1} s{rate}", elapsed.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lines_say_which_run_how_far_and_how_fast() {
        let label = "run 2/5 ll-tcp-aware seed 2";
        assert_eq!(
            running_line(label, Duration::from_secs(12), Some((3 << 20, 8 << 20))),
            "live: run 2/5 ll-tcp-aware seed 2: 3.0 of 8.0 MB delivered, 12 s elapsed"
        );
        assert_eq!(
            running_line("run 1/1 plain", Duration::from_millis(7_400), None),
            "live: run 1/1 plain: 7 s elapsed"
        );
        assert_eq!(
            end_line(label, Duration::from_millis(45_120), Some(1.234)),
            "live: run 2/5 ll-tcp-aware seed 2 done in 45.1 s, 1.23 Mb/s"
        );
        assert_eq!(
            end_line("run 1/1 plain", Duration::from_secs(3), None),
            "live: run 1/1 plain done in 3.0 s"
        );
    }
}
