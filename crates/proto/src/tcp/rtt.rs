//! BSD round-trip estimation and retransmission timeout (`tcp_xmit_timer`, `TCP_REXMTVAL`,
//! `tcp_backoff`; Stevens, TCP/IP Illustrated vol. 2, sections 25.10-25.11).
//!
//! All values are in slow-timer ticks (500 ms), kept as fixed-point numbers. 4.4BSD-Lite and Lite2
//! scale srtt by 8 and rttvar by 4. FreeBSD 2.2 keeps more fraction bits (srtt by 32, rttvar by 16)
//! and computes the deltas with `TCP_DELTA_SHIFT` = 2 extra bits; Lite's arithmetic is the same code
//! with a delta shift of 0, so one estimator serves both ([`RttEstimator`]).

use crate::tcp::config::TimerConfig;
use crate::tcp::host::RttEstimator;

/// `tcp_backoff[]`: the RTO multiplier after the n-th consecutive timeout.
pub const BACKOFF: [u32; 13] = [1, 2, 4, 8, 16, 32, 64, 64, 64, 64, 64, 64, 64];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BsdRtt {
    /// Smoothed RTT in ticks, scaled by `1 << TCP_RTT_SHIFT`; 0 means no sample yet.
    pub srtt: i32,
    /// Mean deviation in ticks, scaled by `1 << TCP_RTTVAR_SHIFT`.
    pub rttvar: i32,
    /// Consecutive timeouts of the current segment, or persist backoffs (`t_rxtshift`).
    pub rxtshift: u32,
    /// Current RTO in ticks (`t_rxtcur`).
    pub rxtcur: u32,
    kind: RttEstimator,
    rttmin: u32,
    rexmtmax: u32,
}

fn rangeset(value: i64, min: u32, max: u32) -> u32 {
    value.clamp(i64::from(min), i64::from(max.max(min))) as u32
}

impl BsdRtt {
    /// The state `tcp_newtcpcb` leaves: no sample, the default rttvar, the initial RTO.
    pub fn new(t: &TimerConfig, kind: RttEstimator) -> Self {
        let dflt = t.srtt_default_ticks as i32;
        let (rttvar, rxtcur) = match kind {
            RttEstimator::Lite | RttEstimator::Linux { .. } => {
                (dflt << 2, i64::from((dflt << 2) >> 1))
            }
            // TCPTV_RTOBASE is TCPTV_SRTTDFLT (3 s) in FreeBSD 2.2's tcp_timer.h
            RttEstimator::Fine => ((dflt << 4) / 4, i64::from(dflt)),
        };
        BsdRtt {
            srtt: 0,
            rttvar,
            rxtshift: 0,
            rxtcur: rangeset(rxtcur, t.rttmin_ticks, t.rexmtmax_ticks),
            kind,
            rttmin: t.rttmin_ticks,
            rexmtmax: t.rexmtmax_ticks,
        }
    }

    /// `TCP_REXMTVAL`: srtt + 4 * mean deviation, in ticks.
    pub fn rexmtval(&self) -> i64 {
        let (rtt_shift, _, delta) = self.kind.shifts();
        i64::from(((self.srtt >> (rtt_shift - delta)) + self.rttvar) >> delta)
    }

    /// The smoothed round trip in whole ticks, at least one (the sender's notion of "one round
    /// trip"; before any sample, one tick).
    pub fn srtt_ticks(&self) -> u32 {
        let (rtt_shift, _, _) = self.kind.shifts();
        ((self.srtt >> rtt_shift).max(1)) as u32
    }

    /// `tcp_xmit_timer`: fold in a sample of `rtt` ticks (the counter started at 1 when the segment was
    /// sent, so one tick boundary crossed gives 2).
    pub fn sample(&mut self, rtt: u32) {
        let (rtt_shift, rttvar_shift, delta_shift) = self.kind.shifts();
        let rtt = rtt.min(1 << 20) as i32;
        if self.srtt != 0 {
            let mut delta = ((rtt - 1) << delta_shift) - (self.srtt >> (rtt_shift - delta_shift));
            self.srtt += delta;
            if self.srtt <= 0 {
                self.srtt = 1;
            }
            if delta < 0 {
                delta = -delta;
            }
            delta -= self.rttvar >> (rttvar_shift - delta_shift);
            self.rttvar += delta;
            if self.rttvar <= 0 {
                self.rttvar = 1;
            }
        } else {
            self.srtt = rtt << rtt_shift;
            self.rttvar = rtt << (rttvar_shift - 1);
        }
        self.rxtshift = 0;
        let floor = match self.kind {
            RttEstimator::Lite | RttEstimator::Linux { .. } => self.rttmin,
            RttEstimator::Fine => self.rttmin.max(rtt as u32 + 2),
        };
        self.rxtcur = rangeset(self.rexmtval(), floor, self.rexmtmax);
    }

    /// The persist interval `tcp_setpersist` sets (Lite2 tcp_output.c lines 587-603, unchanged in
    /// FreeBSD 2.2): `((t_srtt >> 2) + t_rttvar) >> 1` times the backoff for `t_rxtshift`, within
    /// [`TimerConfig::persmin_ticks`, `TimerConfig::persmax_ticks`]. With Lite's scales that is
    /// srtt + 2 * mean deviation; FreeBSD kept the formula when it refined the scales, so there it
    /// is four times that.
    pub fn persist_ticks(&self, t: &TimerConfig) -> u32 {
        let base = i64::from(((self.srtt >> 2) + self.rttvar) >> 1);
        let idx = (self.rxtshift as usize).min(BACKOFF.len() - 1);
        rangeset(
            base * i64::from(BACKOFF[idx]),
            t.persmin_ticks,
            t.persmax_ticks,
        )
    }

    /// `if (t_rxtshift < TCP_MAXRXTSHIFT) t_rxtshift++` after a persist interval is set.
    pub fn bump_shift(&mut self, max_rxtshift: u32) {
        if self.rxtshift < max_rxtshift {
            self.rxtshift += 1;
        }
    }

    /// The retransmission timer expired (`tcp_timers`, `TCPT_REXMT`). Returns false when the segment has
    /// been retransmitted `max_rxtshift` times and the connection must be dropped.
    pub fn on_timeout(&mut self, max_rxtshift: u32) -> bool {
        self.rxtshift += 1;
        if self.rxtshift > max_rxtshift {
            return false;
        }
        let idx = (self.rxtshift as usize).min(BACKOFF.len() - 1);
        let rexmt = self.rexmtval() * i64::from(BACKOFF[idx]);
        self.rxtcur = rangeset(rexmt, self.rttmin, self.rexmtmax);
        // After four backoffs the estimate is probably wrong: keep the variance, forget srtt
        // (`t_rttvar += t_srtt >> TCP_RTT_SHIFT`, in both BSDs' own scales).
        if self.rxtshift > max_rxtshift / 4 {
            let (rtt_shift, _, _) = self.kind.shifts();
            self.rttvar += self.srtt >> rtt_shift;
            self.srtt = 0;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lite() -> BsdRtt {
        BsdRtt::new(&TimerConfig::default(), RttEstimator::Lite)
    }
    fn fine() -> BsdRtt {
        BsdRtt::new(&TimerConfig::default(), RttEstimator::Fine)
    }

    #[test]
    fn initial_rto_is_six_seconds_in_lite_and_three_in_freebsd() {
        let r = lite();
        assert_eq!(r.rxtcur, 12);
        assert_eq!(r.rexmtval(), 24);
        let f = fine();
        assert_eq!(f.rxtcur, 6);
        assert_eq!(f.rexmtval(), 6);
    }

    #[test]
    fn first_sample_sets_srtt_and_half_rttvar() {
        let mut r = lite();
        r.sample(1);
        assert_eq!(r.srtt, 8);
        assert_eq!(r.rttvar, 2);
        // srtt 1 + 4 * 0.5 = 3 ticks
        assert_eq!(r.rxtcur, 3);
        let mut f = fine();
        f.sample(1);
        assert_eq!((f.srtt, f.rttvar), (32, 8));
        // ((32 >> 3) + 8) >> 2 = 3 ticks, also at least the sample + 2
        assert_eq!(f.rxtcur, 3);
    }

    #[test]
    fn lan_samples_settle_at_three_ticks() {
        let mut r = lite();
        let mut f = fine();
        for _ in 0..50 {
            r.sample(1);
            f.sample(1);
        }
        assert_eq!(r.rxtcur, 3);
        // FreeBSD's estimate is lower, but the RTO is at least the sample + 2 ticks
        assert!(f.rexmtval() < 3);
        assert_eq!(f.rxtcur, 3);
    }

    #[test]
    fn freebsd_rto_is_lower_when_samples_vary() {
        // samples of 1 and 2 ticks in turn: Lite's truncation keeps half a tick more of each
        let (mut r, mut f) = (lite(), fine());
        let (mut rs, mut fs) = (vec![], vec![]);
        for i in 0..60 {
            r.sample(1 + i % 2);
            f.sample(1 + i % 2);
            rs.push(r.rxtcur);
            fs.push(f.rxtcur);
        }
        assert_eq!(&rs[56..], &[4, 5, 4, 5]);
        assert_eq!(&fs[56..], &[3, 4, 3, 4]);
    }

    #[test]
    fn freebsd_rto_is_at_least_the_sample_plus_two_ticks() {
        let mut f = fine();
        for _ in 0..50 {
            f.sample(1);
        }
        f.sample(6);
        assert!(f.rxtcur >= 8, "rxtcur {} after a 6-tick sample", f.rxtcur);
    }

    #[test]
    fn rto_is_bounded_below_by_rttmin() {
        // an estimate below TCPTV_MIN (2 ticks): srtt and rttvar nearly 0, a 1-tick sample
        let mut r = lite();
        r.srtt = 1;
        r.rttvar = 0;
        r.sample(1);
        assert_eq!(r.rexmtval(), 1);
        assert_eq!(r.rxtcur, 2);
        // t_rttmin raised to 4 ticks: a LAN estimate of 3 ticks gives 4, in both estimators (the
        // FreeBSD floor is max(t_rttmin, rtt + 2)), and a backoff starts from the estimate
        let t = TimerConfig {
            rttmin_ticks: 4,
            ..TimerConfig::default()
        };
        let mut r = BsdRtt::new(&t, RttEstimator::Lite);
        r.sample(1);
        assert_eq!((r.rexmtval(), r.rxtcur), (3, 4));
        assert!(r.on_timeout(12));
        assert_eq!(r.rxtcur, 6);
        let mut f = BsdRtt::new(&t, RttEstimator::Fine);
        for _ in 0..50 {
            f.sample(1);
        }
        assert!(f.rexmtval() < 3);
        assert_eq!(f.rxtcur, 4);
    }

    #[test]
    fn backoff_doubles_and_caps_at_64_seconds() {
        let mut r = lite();
        r.sample(1); // rexmtval 3
        let mut seen = vec![];
        for _ in 0..12 {
            assert!(r.on_timeout(12));
            seen.push(r.rxtcur);
        }
        assert_eq!(&seen[..3], &[6, 12, 24]);
        assert!(seen.iter().all(|t| *t <= 128));
        assert_eq!(*seen.last().unwrap(), 128);
        assert!(!r.on_timeout(12), "the 13th timeout drops the connection");
    }

    #[test]
    fn persist_interval_backs_off_from_five_to_sixty_seconds() {
        let t = TimerConfig::default();
        let mut r = lite();
        r.sample(2); // srtt 2 ticks, deviation 1 tick: srtt + 2 * deviation = 4 ticks
        r.rxtshift = 0;
        let mut seen = vec![];
        for _ in 0..8 {
            seen.push(r.persist_ticks(&t));
            r.bump_shift(12);
        }
        // 4 x 1 and 4 x 2 -> the 5 s floor; 4 x 4 = 16, 32, 64; then the 60 s ceiling
        assert_eq!(seen, vec![10, 10, 16, 32, 64, 120, 120, 120]);
        // FreeBSD 2.2's scales make the same formula four times as long
        let mut f = fine();
        f.sample(2);
        f.rxtshift = 2;
        assert_eq!(f.persist_ticks(&t), 64);
    }
}
