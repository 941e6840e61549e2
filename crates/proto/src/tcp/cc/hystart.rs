//! HyStart as Linux's CUBIC runs it (net/ipv4/tcp_cubic.c `hystart_update`,
//! `bictcp_hystart_reset`; Ha and Rhee, "Taming the Elephants: New TCP Slow Start", 2011): slow
//! start ends (ssthresh := cwnd) before the first loss when, in one round trip, the ACKs come
//! back as a train longer than half the least RTT, or the least RTT of the round's first eight
//! samples is `clamp(delay_min / 8, 4 ms, 16 ms)` above the least RTT ever seen. Linux 6.x
//! defaults: `hystart=1`, `hystart_detect=3` (both rules), `hystart_low_window=16`,
//! `hystart_ack_delta_us=2000`.
//!
//! This is not HyStart++ (RFC 9406, with its conservative slow start): Linux does not run it.
//!
//! Readings, where the kernel's rule depends on what the model has not:
//! - the ACK train's threshold is `(delay_min + ack_delay) / 2`: halved because the sender does
//!   not pace (`sk_pacing_status == SK_PACING_NONE`, no fq qdisc); `ack_delay` is
//!   `hystart_ack_delay`'s `min(1 ms, 4 * gso_max_size / pacing_rate)`, which is its cap of
//!   1 ms at every pacing rate below 2 Gb/s with the 64 KB `gso_max_size` of a Linux device,
//!   far above any network here, so it is the cap;
//! - a round ends when an ACK passes `snd_max` as it was at the round's start (Linux's `snd_nxt`);
//!   the state is (re)set lazily at the first sample after a timeout, not at the timeout.

use crate::seq::Seq;
use crate::time::{Time, MS};

/// `HYSTART_MIN_SAMPLES`: RTT samples per round before the delay rule may act.
pub const MIN_SAMPLES: u8 = 8;
/// `HYSTART_DELAY_MIN`, `HYSTART_DELAY_MAX`: the delay rule's bounds on `delay_min / 8`.
pub const DELAY_MIN: Time = 4 * MS;
pub const DELAY_MAX: Time = 16 * MS;
/// `hystart_low_window`: no exit below 16 segments.
pub const LOW_WINDOW: u32 = 16;
/// `hystart_ack_delta_us`: ACKs at most 2 ms apart are one train.
pub const ACK_DELTA: Time = 2 * MS;
/// `hystart_ack_delay`'s cap (`USEC_PER_MSEC`), the TSO/GRO cushion (see the module's readings).
pub const ACK_DELAY: Time = MS;

/// Which rule ended slow start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    AckTrain,
    Delay,
}

/// The state of `struct bictcp` that HyStart keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HyStart {
    /// `found`: slow start was ended; no more detection until a timeout resets it.
    pub found: Option<Exit>,
    /// `end_seq`: the round ends when an ACK passes it; `None` before the first round.
    end_seq: Option<Seq>,
    /// `round_start`, `last_ack`: when the round began, and the last ACK of its train.
    round_start: Time,
    last_ack: Time,
    /// `curr_rtt`: the least RTT of this round's first samples, and `sample_cnt` of them.
    curr_rtt: Option<Time>,
    sample_cnt: u8,
}

impl HyStart {
    /// `bictcp_hystart_reset`: a new round starts at `now`, ending once `snd_max` is acknowledged.
    fn reset(&mut self, now: Time, snd_max: Seq) {
        self.round_start = now;
        self.last_ack = now;
        self.end_seq = Some(snd_max);
        self.curr_rtt = None;
        self.sample_cnt = 0;
    }

    /// `hystart_update`: an ACK for `ack` at `now` with RTT sample `delay`, in slow start with
    /// `cwnd` segments; `delay_min` is the least RTT seen. Returns the rule that ends slow start
    /// (the caller sets ssthresh to cwnd), once.
    pub fn update(
        &mut self,
        now: Time,
        ack: Seq,
        snd_max: Seq,
        cwnd: u32,
        delay: Time,
        delay_min: Time,
    ) -> Option<Exit> {
        if self.end_seq.is_none_or(|end| ack.gt(end)) {
            self.reset(now, snd_max);
        }
        if cwnd < LOW_WINDOW {
            return None;
        }
        // the ACK train: ACKs closely spaced for longer than half the least RTT
        if now.saturating_sub(self.last_ack) <= ACK_DELTA {
            self.last_ack = now;
            let threshold = (delay_min + ACK_DELAY) / 2;
            if now.saturating_sub(self.round_start) > threshold {
                self.found = Some(Exit::AckTrain);
            }
        }
        // the delay increase: the round's least RTT over its first samples
        self.curr_rtt = Some(self.curr_rtt.map_or(delay, |c| c.min(delay)));
        if self.sample_cnt < MIN_SAMPLES {
            self.sample_cnt += 1;
        } else if self
            .curr_rtt
            .is_some_and(|c| c > delay_min + (delay_min / 8).clamp(DELAY_MIN, DELAY_MAX))
        {
            self.found = Some(Exit::Delay);
        }
        self.found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Eight samples, then the ninth decides: 100 ms + 12.5 ms is the threshold.
    #[test]
    fn delay_rule_needs_eight_samples_and_the_clamped_threshold() {
        let mut h = HyStart::default();
        let min = 100 * MS;
        // ACKs 10 ms apart: no train
        let mut now = 0;
        for i in 0..8 {
            now += 10 * MS;
            let d = h.update(now, Seq(1000 * i + 1), Seq(100_000), 20, 113 * MS, min);
            assert_eq!(d, None, "sample {i}");
        }
        now += 10 * MS;
        assert_eq!(
            h.update(now, Seq(9001), Seq(100_000), 20, 113 * MS, min),
            Some(Exit::Delay)
        );
        let mut h = HyStart::default();
        for i in 0..9 {
            let d = h.update(
                10 * MS * i,
                Seq(i as u32 + 1),
                Seq(100_000),
                20,
                112 * MS,
                min,
            );
            assert_eq!(d, None, "112 ms is under the threshold");
        }
    }

    /// A round's ACKs within 2 ms of each other for more than half the least RTT end slow start;
    /// below 16 segments nothing does.
    #[test]
    fn ack_train_rule() {
        let min = 20 * MS;
        let mut h = HyStart::default();
        let mut found = None;
        let mut now = 0;
        for i in 0..20u32 {
            found = h.update(now, Seq(i + 1), Seq(100_000), 16, min, min);
            if found.is_some() {
                break;
            }
            now += MS;
        }
        assert_eq!(found, Some(Exit::AckTrain));
        assert_eq!(now, 11 * MS, "first past (20 ms + 1 ms) / 2");
        let mut h = HyStart::default();
        for i in 0..20u32 {
            let d = h.update(MS * u64::from(i), Seq(i + 1), Seq(100_000), 15, min, min);
            assert_eq!(d, None, "low window");
        }
    }
}
