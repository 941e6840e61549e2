//! Linux's round-trip estimator and retransmission timeout (RFC 6298 as net/ipv4/tcp_input.c
//! computes it), the `rtt-estimator = linux` host detail.
//!
//! - Samples: `tcp_clean_rtx_queue()` takes one per ACK that advances `snd_una`: the time since
//!   the first fully acknowledged segment was sent, in microseconds, unless the ACK covers a
//!   retransmitted segment (`FLAG_RETRANS_DATA_ACKED`: Karn's rule, RFC 6298 section 3). A
//!   partially acknowledged segment gives none (`tcp_skb_pcount() == 1`, no TSO here).
//! - `tcp_rtt_estimator()`: srtt scaled by 8, `mdev` by 4 (it holds 4 x the mean deviation);
//!   when the sample is below srtt the deviation's gain is 1/32 instead of 1/4 ("mdev decays
//!   slowly", the Eifel-like rule); `mdev_max` is the largest `mdev` of the current round trip
//!   and `rttvar` follows it up at once and down by a quarter of the gap once per round trip
//!   (`after(snd_una, rtt_seq)`), never below `tcp_rto_min()` (`mdev_max` restarts there).
//! - `tcp_set_rto()`: `icsk_rto = usecs_to_jiffies((srtt >> 3) + rttvar)`, at most `TCP_RTO_MAX`
//!   120 s (`tcp_bound_rto()`). The minimum RTO acts through rttvar, so the RTO is at least
//!   srtt + `TCP_RTO_MIN` (200 ms), not max(RTO, 1 s) as RFC 6298 (2.4) says.
//! - Before any sample: `TCP_TIMEOUT_INIT` 1 s (`tcp_init_sock()`, RFC 6298 2.1); established
//!   without a sample (the SYN or SYN-ACK was resent) it falls back to `TCP_TIMEOUT_FALLBACK` 3 s
//!   (`tcp_init_metrics()`, RFC 6298 5.7; no cached route metrics here).
//! - A timeout doubles the RTO up to `TCP_RTO_MAX` (`tcp_retransmit_timer()`, net/ipv4/tcp_timer.c)
//!   and keeps srtt; a valid sample recomputes it and resets the backoff (`tcp_ack_update_rtt()`).
//! - One queue of send times for the estimator and the congestion controller: Linux's
//!   `tcp_clean_rtx_queue()` takes the estimator's sample (`first_ackt`) and the controller's
//!   (`last_ackt`, `ca_rtt_us`) in one walk of the retransmission queue. The walk here notes,
//!   beside its own sample, the send time of the newest segment of new data the ACKs covered
//!   since CUBIC last asked ([`LinuxRtt::take_ca_sent`]), which `cc/sent_times.rs` would
//!   otherwise keep a queue of its own for; each sample keeps its own reading of what was
//!   resent (docs/speed.md, issue 50, h31).

use std::collections::VecDeque;

use crate::seq::Seq;
use crate::time::{Time, MS, SEC, US};

use super::clock::TimerClock;

/// `TCP_RTO_MIN`: HZ/5, 200 ms (include/net/tcp.h); `ip route ... rto_min` changes it per route.
pub const TCP_RTO_MIN: Time = 200 * MS;
/// `TCP_RTO_MAX`: 120 s.
pub const TCP_RTO_MAX: Time = 120 * SEC;
/// `TCP_TIMEOUT_INIT`: 1 s (RFC 6298 2.1).
pub const TCP_TIMEOUT_INIT: Time = SEC;
/// `TCP_TIMEOUT_FALLBACK`: 3 s, RFC 1122's initial RTO, after a handshake without a sample.
pub const TCP_TIMEOUT_FALLBACK: Time = 3 * SEC;

/// One transmission of sequence space `[start, end)` the estimator may time.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Sent {
    start: Seq,
    end: Seq,
    at: Time,
    retransmitted: bool,
    /// New data whose send time the congestion controller's sample may be (`SentTimes`'s
    /// entries), not yet noted for it.
    ca: bool,
    /// `end` is past a FIN: the controller's entry ends one before it, at the data's end.
    fin: bool,
}

/// Linux's estimator state (`struct tcp_sock`'s `srtt_us`, `mdev_us`, `mdev_max_us`,
/// `rttvar_us`, `rtt_seq`; `icsk_rto`, `icsk_backoff`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinuxRtt {
    /// Smoothed RTT in microseconds, scaled by 8; 0 means no sample yet.
    pub srtt_us: u64,
    /// 4 x the mean deviation, microseconds.
    pub mdev_us: u64,
    /// The largest `mdev_us` in the current round trip.
    pub mdev_max_us: u64,
    /// The variance term the RTO adds to srtt, microseconds.
    pub rttvar_us: u64,
    /// `rtt_seq`: `snd_nxt` when the current round of `mdev_max` began.
    rtt_seq: Seq,
    /// `icsk_rto` in jiffies.
    pub rto_jiffies: u64,
    /// Consecutive timeouts since the last valid sample (`icsk_backoff`).
    pub backoff: u32,
    rto_min_us: u64,
    clock: TimerClock,
    /// `TCP_RTO_MAX` in jiffies of `clock`, taken once: every sample and timeout bounds the RTO
    /// by it (docs/speed.md, issue 50, h29).
    rto_max_jiffies: u64,
    /// What is outstanding, oldest first (the retransmission queue's send times).
    sent: VecDeque<Sent>,
    /// The send time of the newest segment of new data that the ACKs since the controller last
    /// took it ([`LinuxRtt::take_ca_sent`]) covered.
    ca_sent: Option<Time>,
}

fn us(t: Time) -> u64 {
    t / US
}

impl LinuxRtt {
    /// `tcp_init_sock()`: no sample, `mdev_us` = `TCP_TIMEOUT_INIT`, RTO 1 s.
    pub fn new(rto_min: Time, clock: TimerClock) -> LinuxRtt {
        LinuxRtt {
            srtt_us: 0,
            mdev_us: us(TCP_TIMEOUT_INIT),
            mdev_max_us: 0,
            rttvar_us: 0,
            rtt_seq: Seq(0),
            rto_jiffies: clock.to_jiffies(TCP_TIMEOUT_INIT),
            backoff: 0,
            rto_min_us: us(rto_min),
            clock,
            rto_max_jiffies: clock.to_jiffies(TCP_RTO_MAX),
            sent: VecDeque::new(),
            ca_sent: None,
        }
    }

    /// The current RTO as a duration.
    pub fn rto(&self) -> Time {
        self.clock.from_jiffies(self.rto_jiffies)
    }

    /// The minimum RTO (`tcp_rto_min()`): `TCP_RTO_MIN` or the route's `rto_min`.
    pub fn rto_min(&self) -> Time {
        self.rto_min_us * US
    }

    /// The smoothed RTT, if measured.
    pub fn srtt(&self) -> Option<Time> {
        (self.srtt_us != 0).then_some((self.srtt_us >> 3) * US)
    }

    /// `[start, end)` left at `now`: a new segment is queued for timing; any part sent before is
    /// marked retransmitted (`TCPCB_RETRANS`), so its ACK gives no sample. `ca`: it carries new
    /// data, which the controller's sample may come from (then it is queued, as its end is past
    /// every end queued before); `fin`: `end` is past a FIN.
    pub fn on_send(&mut self, now: Time, start: Seq, end: Seq, ca: bool, fin: bool) {
        let last_end = self.sent.back().map(|s| s.end);
        if last_end.is_some_and(|e| start.lt(e)) {
            self.mark_retransmitted(start, end);
        }
        if last_end.is_none_or(|e| end.gt(e)) {
            self.sent.push_back(Sent {
                start: last_end.map_or(start, |e| e.max(start)),
                end,
                at: now,
                retransmitted: last_end.is_some_and(|e| start.lt(e)),
                ca,
                fin,
            });
        }
    }

    /// What of `[start, end)` was sent before is sent again. Out of line: a resend's, not
    /// every segment's, so that [`LinuxRtt::on_send`]'s push saves no registers for it (issue
    /// 50, docs/speed.md).
    #[cold]
    #[inline(never)]
    fn mark_retransmitted(&mut self, start: Seq, end: Seq) {
        for s in self.sent.iter_mut() {
            if s.end.gt(start) && s.start.lt(end) {
                s.retransmitted = true;
            }
        }
    }

    /// An ACK up to `ack` (already `snd_una`) arrived at `now` with `snd_nxt` as it is:
    /// `tcp_clean_rtx_queue()` and `tcp_ack_update_rtt()`. Returns the RTT of the last segment
    /// it acknowledged (`ca_rtt_us`, what congestion control is given), if it gave a sample.
    pub fn on_ack(&mut self, now: Time, ack: Seq, snd_nxt: Seq) -> Option<Time> {
        let (mut first, mut last, mut retrans) = (None, None, false);
        // each entry looked at once, and dropped without being moved out
        while let Some(s) = self.sent.front_mut() {
            if !s.end.le(ack) {
                if s.fin && s.ca && s.end - 1 == ack {
                    // the data acknowledged, not the FIN: the controller's entry ends here
                    s.ca = false;
                    self.ca_sent = Some(s.at);
                }
                break;
            }
            if s.ca {
                self.ca_sent = Some(s.at);
            }
            if s.retransmitted {
                retrans = true;
            } else {
                first.get_or_insert(s.at);
                last = Some(s.at);
            }
            self.sent.pop_front();
        }
        let (first, last) = (first?, last?);
        if retrans {
            return None;
        }
        let seq_rtt = us(now.saturating_sub(first));
        self.estimate(seq_rtt, ack, snd_nxt);
        self.set_rto();
        self.backoff = 0;
        Some(now.saturating_sub(last))
    }

    /// The send time of the newest segment of new data that the ACKs since the last call
    /// covered, if any: the congestion controller's RTT sample is from it (`cc/sent_times.rs`).
    pub fn take_ca_sent(&mut self) -> Option<Time> {
        self.ca_sent.take()
    }

    /// A sample from the echoed timestamp of an ACK up to `ack` whose segments gave none by
    /// their send times (all of them resent): `tcp_ack_update_rtt()` takes
    /// `tcp_rtt_tsopt_us(tp, 1)` when `seq_rtt_us < 0` and the ACK carried a TSecr.
    pub fn on_timestamp_sample(&mut self, rtt: Time, ack: Seq, snd_nxt: Seq) {
        self.estimate(us(rtt), ack, snd_nxt);
        self.set_rto();
        self.backoff = 0;
    }

    /// `tcp_rtt_estimator(sk, mrtt_us)` with `snd_una` = `ack`.
    fn estimate(&mut self, mrtt_us: u64, ack: Seq, snd_nxt: Seq) {
        let mut m = mrtt_us as i64;
        let mut srtt = self.srtt_us as i64;
        if srtt != 0 {
            m -= srtt >> 3; // the error in the estimate
            srtt += m; // srtt = 7/8 srtt + 1/8 sample
            let mut mdev = self.mdev_us as i64;
            if m < 0 {
                m = -m;
                m -= mdev >> 2;
                // the sample fell: a finer gain (alpha * beta), so the RTO neither grows nor
                // drops too fast
                if m > 0 {
                    m >>= 3;
                }
            } else {
                m -= mdev >> 2;
            }
            mdev += m; // mdev = 3/4 mdev + 1/4 |error|
            self.mdev_us = mdev.max(0) as u64;
            if self.mdev_us > self.mdev_max_us {
                self.mdev_max_us = self.mdev_us;
                if self.mdev_max_us > self.rttvar_us {
                    self.rttvar_us = self.mdev_max_us;
                }
            }
            if ack.gt(self.rtt_seq) {
                if self.mdev_max_us < self.rttvar_us {
                    self.rttvar_us -= (self.rttvar_us - self.mdev_max_us) >> 2;
                }
                self.rtt_seq = snd_nxt;
                self.mdev_max_us = self.rto_min_us;
            }
        } else {
            srtt = m << 3;
            self.mdev_us = (m << 1) as u64; // so that the first RTO is 3 x the sample
            self.rttvar_us = self.mdev_us.max(self.rto_min_us);
            self.mdev_max_us = self.rttvar_us;
            self.rtt_seq = snd_nxt;
        }
        self.srtt_us = srtt.max(1) as u64;
    }

    /// `tcp_set_rto()`: `__tcp_set_rto()` then `tcp_bound_rto()`.
    fn set_rto(&mut self) {
        let rto_us = (self.srtt_us >> 3) + self.rttvar_us;
        let rto = self.clock.to_jiffies(rto_us * US);
        self.rto_jiffies = rto.min(self.rto_max_jiffies);
    }

    /// `tcp_init_metrics()` at the end of the handshake: no sample (the SYN or SYN-ACK was
    /// resent) puts rttvar and the RTO at `TCP_TIMEOUT_FALLBACK`.
    pub fn on_established(&mut self) {
        if self.srtt_us == 0 {
            self.rttvar_us = us(TCP_TIMEOUT_FALLBACK);
            self.mdev_us = self.rttvar_us;
            self.mdev_max_us = self.rttvar_us;
            self.rto_jiffies = self.clock.to_jiffies(TCP_TIMEOUT_FALLBACK);
        }
    }

    /// The retransmission timer expired: `icsk_rto = min(icsk_rto << 1, TCP_RTO_MAX)`. Returns
    /// false when the segment has been resent `max_backoffs` times and the connection is
    /// dropped (the BSD count, `TimerConfig::max_rxtshift`: Linux's `tcp_retries2` = 15 bounds
    /// the time instead, `retransmits_timed_out()`, not modelled).
    pub fn on_timeout(&mut self, max_backoffs: u32) -> bool {
        self.backoff += 1;
        if self.backoff > max_backoffs {
            return false;
        }
        self.rto_jiffies = (self.rto_jiffies << 1).min(self.rto_max_jiffies);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rtt() -> LinuxRtt {
        LinuxRtt::new(TCP_RTO_MIN, TimerClock::Jiffies { hz: 1000 })
    }

    /// One segment per round trip, each sample `rtt_ms` long.
    fn feed(r: &mut LinuxRtt, start: &mut u32, now: &mut Time, rtt_ms: u64) {
        r.on_send(*now, Seq(*start), Seq(*start + 1000), true, false);
        *now += rtt_ms * MS;
        *start += 1000;
        r.on_ack(*now, Seq(*start), Seq(*start));
    }

    #[test]
    fn first_sample_gives_srtt_plus_rto_min() {
        let mut r = rtt();
        assert_eq!(r.rto(), SEC);
        let (mut s, mut now) = (1, 0);
        feed(&mut r, &mut s, &mut now, 50);
        // mdev = 2 x 50 ms = 100 ms < 200 ms: rttvar = 200 ms, RTO 250 ms
        assert_eq!(r.rttvar_us, 200_000);
        assert_eq!(r.rto(), 250 * MS);
        // a LAN: the RTO stays srtt + 200 ms however steady the samples
        for _ in 0..50 {
            feed(&mut r, &mut s, &mut now, 2);
        }
        assert!(r.rto() >= 202 * MS && r.rto() < 210 * MS, "{}", r.rto());
    }

    #[test]
    fn a_falling_sample_moves_mdev_by_a_32nd() {
        let mut r = LinuxRtt::new(0, TimerClock::Jiffies { hz: 1000 });
        let (mut s, mut now) = (1, 0);
        feed(&mut r, &mut s, &mut now, 100); // srtt 100 ms, mdev 200 ms
        let before = r.mdev_us;
        feed(&mut r, &mut s, &mut now, 20); // error -80 ms
                                            // |m| = 80 ms - mdev/4 = 30 ms > 0, then / 8: mdev grows by 3.75 ms only
        assert_eq!(r.mdev_us, before + 3_750);
    }

    #[test]
    fn karn_no_sample_from_a_retransmitted_segment() {
        let mut r = rtt();
        r.on_send(0, Seq(1), Seq(1001), true, false);
        r.on_send(SEC, Seq(1), Seq(1001), false, false);
        assert_eq!(r.on_ack(SEC + 10 * MS, Seq(1001), Seq(1001)), None);
        assert_eq!(r.srtt_us, 0);
    }

    #[test]
    fn a_resent_segment_leaves_the_later_ones_timed() {
        let mut r = rtt();
        for i in 0..3 {
            r.on_send(0, Seq(1 + i * 1000), Seq(1001 + i * 1000), true, false);
        }
        r.on_send(SEC, Seq(1), Seq(1001), false, false);
        assert_eq!(r.on_ack(SEC + MS, Seq(1001), Seq(3001)), None, "Karn");
        assert_eq!(
            r.on_ack(SEC + 2 * MS, Seq(2001), Seq(3001)),
            Some(SEC + 2 * MS)
        );
        assert_eq!(r.srtt(), Some(SEC + 2 * MS));
    }

    #[test]
    fn timeout_doubles_to_120_s_and_fallback_is_3_s() {
        let mut r = rtt();
        r.on_established();
        assert_eq!(r.rto(), 3 * SEC);
        let mut seen = vec![];
        for _ in 0..8 {
            assert!(r.on_timeout(12));
            seen.push(r.rto() / SEC);
        }
        assert_eq!(seen, vec![6, 12, 24, 48, 96, 120, 120, 120]);
    }
}
