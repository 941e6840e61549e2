//! A two-state Gilbert-Elliott channel (Gilbert 1960, Elliott 1963; paper 002 section 7 tried one
//! for the WaveLAN): the channel is either *good* or *bad*, each with its own bit-error rate, and
//! stays in a state for an exponentially distributed time with the state's own mean (a continuous-time
//! Markov chain). The state runs on the simulated clock, not on the bytes sent: an idle channel still
//! changes state, which is why the seam gives every model the time.
//!
//! A frame is judged by the state at the moment it starts on the air (a frame lasts about 6 ms at
//! 2 Mb/s, short against the sojourn times such a channel is used for). In that state bit errors fall
//! with exponential gaps of mean `every` bytes (BER = 1 / (8 * every)), as in the exponential model, so
//! the frame is corrupted with probability `1 - exp(-bytes / every)`; `every = 0` means no errors in
//! that state.
//!
//! The state process and the frames' errors draw from two streams (`rng::ChannelStreams`): the
//! chain's periods are then a function of the seed and the time alone, as the model says, and two
//! runs whose frames fall differently (the simulator's sender and the kernel's, `docs/kernel-check.md`)
//! see the same periods; with one stream a period that judged one frame more would shift every
//! later period.

use snooplab_proto::duration::{self, Range, DAY};
use snooplab_proto::time::US;
use snooplab_proto::Time;

use crate::rng::{ChannelStreams, Rng};

/// The parameters: mean bytes between bit errors and mean sojourn time of each state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GilbertElliottParams {
    /// Mean bytes between bit errors in the good state (0 = error-free).
    pub good_every: u64,
    /// Mean bytes between bit errors in the bad state (0 = error-free).
    pub bad_every: u64,
    /// Mean time spent in the good state before turning bad, in ns.
    pub good_time: Time,
    /// Mean time spent in the bad state before turning good, in ns.
    pub bad_time: Time,
}

impl GilbertElliottParams {
    /// The long-run share of time the channel is bad: `bad_time / (good_time + bad_time)`.
    pub fn bad_share(&self) -> f64 {
        self.bad_time as f64 / (self.good_time as f64 + self.bad_time as f64)
    }

    /// The probability that a frame of `bytes` bytes is corrupted in a state with mean gap `every`.
    pub(crate) fn frame_loss(every: u64, bytes: u32) -> f64 {
        if every == 0 {
            0.0
        } else {
            1.0 - (-(f64::from(bytes)) / every as f64).exp()
        }
    }

    /// The long-run share of `bytes`-byte frames the channel corrupts (frames sent independently of
    /// the channel's state).
    pub(crate) fn loss_rate(&self, bytes: u32) -> f64 {
        let bad = self.bad_share();
        bad * Self::frame_loss(self.bad_every, bytes)
            + (1.0 - bad) * Self::frame_loss(self.good_every, bytes)
    }

    /// For frames sent every `spacing` ns: the probability that the channel bad at one frame is bad at
    /// the next (the two-state chain sampled at `spacing`: `pi_bad + pi_good * exp(-(r_g + r_b) * t)`).
    pub fn stay_bad(&self, spacing: Time) -> f64 {
        let rate = 1.0 / self.good_time as f64 + 1.0 / self.bad_time as f64;
        let bad = self.bad_share();
        bad + (1.0 - bad) * (-rate * spacing as f64).exp()
    }

    /// Checks the parameters; the message names the key.
    pub fn validate(&self) -> Result<(), String> {
        for (key, every) in [
            ("good-every", self.good_every),
            ("bad-every", self.bad_every),
        ] {
            if every != 0 && every < 64 {
                return Err(format!(
                    "{key} {every} is too small: use 0 (no errors in that state) or at least 64 bytes"
                ));
            }
        }
        for (key, t) in [("good-time", self.good_time), ("bad-time", self.bad_time)] {
            if !STATE_TIME_RANGE.contains(t) {
                return Err(duration::out_of_range(
                    key,
                    &duration::format_duration(t),
                    STATE_TIME_RANGE,
                ));
            }
        }
        Ok(())
    }
}

/// The mean time in either state (`good-time`, `bad-time`): at least 1 us, about two bits at the
/// 2 Mb/s WaveLAN (paper 000 section IV-A), below which a state is over before it could decide
/// any frame's fate; at most a day, beyond which a state outlasts any paper's run (our bounds).
pub const STATE_TIME_RANGE: Range = Range::new(US, DAY);

/// The running state of one direction's Gilbert-Elliott channel.
#[derive(Clone, Debug)]
pub struct GilbertElliott {
    p: GilbertElliottParams,
    /// The frames' errors within a state.
    errors: Rng,
    /// The state process: the initial state and every period's length.
    states: Rng,
    bad: bool,
    /// When the current state ends.
    until: Time,
}

impl GilbertElliott {
    /// Starts in a state drawn from the chain's stationary distribution, so that the long-run loss
    /// rate holds from the first frame. The state process draws from the streams' state stream
    /// only, the frames' errors from their error stream only.
    pub fn new(p: GilbertElliottParams, streams: &ChannelStreams) -> GilbertElliott {
        let (errors, mut states) = (streams.errors(), streams.states());
        let bad = states.unit() < p.bad_share();
        let mut g = GilbertElliott {
            p,
            errors,
            states,
            bad,
            until: 0,
        };
        g.until = g.sojourn();
        g
    }

    /// A sojourn in the current state, at least 1 ns.
    fn sojourn(&mut self) -> Time {
        let mean = if self.bad {
            self.p.bad_time
        } else {
            self.p.good_time
        };
        (self.states.exponential(mean as f64).ceil() as Time).max(1)
    }

    /// Whether the channel is bad at `now` (times must not go backwards).
    pub(crate) fn is_bad(&mut self, now: Time) -> bool {
        while self.until <= now {
            self.bad = !self.bad;
            let d = self.sojourn();
            self.until = self.until.saturating_add(d);
        }
        self.bad
    }

    /// When the current state ends (the next change after the last [`GilbertElliott::is_bad`]).
    pub(crate) fn state_ends(&self) -> Time {
        self.until
    }

    /// A frame of `bytes` bytes starts at `now`; true if it is corrupted.
    pub fn corrupts(&mut self, now: Time, bytes: u32) -> bool {
        let every = if self.is_bad(now) {
            self.p.bad_every
        } else {
            self.p.good_every
        };
        if every == 0 {
            return false;
        }
        // memoryless bit errors: the frame is hit if the gap to the next error is inside it
        self.errors.exponential(every as f64) < f64::from(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    fn params() -> GilbertElliottParams {
        GilbertElliottParams {
            good_every: 0,
            bad_every: 64, // a frame in the bad state is almost surely lost
            good_time: 200 * MS,
            bad_time: 20 * MS,
        }
    }

    /// Runs of consecutive corrupted frames, for frames every `spacing`.
    fn runs(p: GilbertElliottParams, spacing: Time, n: u64) -> (f64, f64) {
        let mut g = GilbertElliott::new(p, &ChannelStreams::down(9, 0));
        let (mut lost, mut run, mut runs, mut total_run) = (0u64, 0u64, 0u64, 0u64);
        for i in 0..n {
            if g.corrupts(i * spacing, 1440) {
                lost += 1;
                run += 1;
            } else if run > 0 {
                runs += 1;
                total_run += run;
                run = 0;
            }
        }
        (lost as f64 / n as f64, total_run as f64 / runs as f64)
    }

    #[test]
    fn loss_rate_and_burst_length_match_the_chain() {
        let p = params();
        let spacing = 6 * MS;
        let (rate, burst) = runs(p, spacing, 2_000_000);
        let want_rate = p.loss_rate(1440);
        // with every bad-state frame lost, a run of losses is a run of bad samples: geometric
        let want_burst = 1.0 / (1.0 - p.stay_bad(spacing));
        assert!(
            (rate / want_rate - 1.0).abs() < 0.05,
            "loss rate {rate} vs {want_rate}"
        );
        assert!(
            (burst / want_burst - 1.0).abs() < 0.05,
            "burst {burst} vs {want_burst}"
        );
    }

    #[test]
    fn the_state_runs_on_time_not_on_frames() {
        // one frame a minute: samples far apart are independent, so bursts are about one frame long
        let (rate, burst) = runs(params(), 60_000 * MS, 200_000);
        assert!((rate - params().loss_rate(1440)).abs() < 0.01, "{rate}");
        assert!(burst < 1.2, "{burst}");
    }

    #[test]
    fn good_state_errors_follow_the_exponential_rule() {
        let p = GilbertElliottParams {
            good_every: 65536,
            bad_every: 65536,
            good_time: MS,
            bad_time: MS,
        };
        let mut g = GilbertElliott::new(p, &ChannelStreams::up(4, 0));
        let n = 400_000u64;
        let lost = (0..n).filter(|&i| g.corrupts(i * MS, 1440)).count() as f64 / n as f64;
        assert!((lost - 0.02173).abs() < 0.0015, "{lost}");
    }

    /// The periods are the seed's and the clock's alone: two channels of one seed, one judging a
    /// frame every 1 ms and the other every 7 ms, of other sizes, are in the same state at every
    /// time. With one stream for both the first bad period that judged a different number of
    /// frames would shift every later one.
    #[test]
    fn the_periods_do_not_depend_on_the_frames_judged() {
        let p = GilbertElliottParams {
            good_every: 4096,
            bad_every: 1024,
            good_time: 100 * MS,
            bad_time: 20 * MS,
        };
        let mut busy = GilbertElliott::new(p, &ChannelStreams::down(5, 0));
        let mut sparse = GilbertElliott::new(p, &ChannelStreams::down(5, 0));
        let mut changes = 0;
        let mut was_bad = busy.is_bad(0);
        for t in (0..60_000 * MS).step_by(MS as usize) {
            busy.corrupts(t, 1440);
            if t % (7 * MS) == 0 {
                sparse.corrupts(t, 40);
            }
            let bad = busy.is_bad(t);
            assert_eq!(bad, sparse.is_bad(t), "parted at {t} ns");
            changes += u32::from(bad != was_bad);
            was_bad = bad;
        }
        assert!(changes > 500, "{changes} changes of state");
    }

    #[test]
    fn validation_names_the_key() {
        let mut p = params();
        p.bad_every = 10;
        assert!(p.validate().unwrap_err().starts_with("bad-every"));
        let mut p = params();
        p.good_time = 0;
        assert!(p.validate().unwrap_err().starts_with("good-time"));
        assert!(params().validate().is_ok());
    }
}
