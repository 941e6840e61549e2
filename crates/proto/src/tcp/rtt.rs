//! 4.4BSD round-trip estimation and retransmission timeout (`tcp_xmit_timer`, `TCP_REXMTVAL`,
//! `tcp_backoff`; Stevens, TCP/IP Illustrated vol. 2, sections 25.10-25.11).
//!
//! All values are in slow-timer ticks (500 ms). `srtt` is scaled by 8 and `rttvar` by 4.

use crate::tcp::config::TimerConfig;

/// `TCP_RTT_SHIFT`: srtt is kept times 8.
const RTT_SHIFT: u32 = 3;
/// `TCP_RTTVAR_SHIFT`: rttvar is kept times 4.
const RTTVAR_SHIFT: u32 = 2;
/// `tcp_backoff[]`: the RTO multiplier after the n-th consecutive timeout.
pub const BACKOFF: [u32; 13] = [1, 2, 4, 8, 16, 32, 64, 64, 64, 64, 64, 64, 64];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BsdRtt {
    /// Smoothed RTT times 8, in ticks; 0 means no sample yet.
    pub srtt: i32,
    /// Mean deviation times 4, in ticks.
    pub rttvar: i32,
    /// Consecutive timeouts of the current segment (`t_rxtshift`).
    pub rxtshift: u32,
    /// Current RTO in ticks (`t_rxtcur`).
    pub rxtcur: u32,
    rttmin: u32,
    rexmtmax: u32,
}

fn rangeset(value: i64, min: u32, max: u32) -> u32 {
    value.clamp(i64::from(min), i64::from(max)) as u32
}

impl BsdRtt {
    /// The state `tcp_newtcpcb` leaves: no sample, rttvar from `TCPTV_SRTTDFLT`, RTO 6 s.
    pub fn new(t: &TimerConfig) -> Self {
        let dflt = t.srtt_default_ticks as i32;
        BsdRtt {
            srtt: 0,
            rttvar: dflt << RTTVAR_SHIFT,
            rxtshift: 0,
            rxtcur: rangeset(
                i64::from((dflt << 2) >> 1),
                t.rttmin_ticks,
                t.rexmtmax_ticks,
            ),
            rttmin: t.rttmin_ticks,
            rexmtmax: t.rexmtmax_ticks,
        }
    }

    /// `TCP_REXMTVAL`: srtt + 4 * mean deviation, in ticks.
    pub fn rexmtval(&self) -> i64 {
        i64::from(self.srtt >> RTT_SHIFT) + i64::from(self.rttvar)
    }

    /// `tcp_xmit_timer`: fold in a sample of `rtt` ticks (the counter started at 1 when the segment was
    /// sent, so one tick boundary crossed gives 2).
    pub fn sample(&mut self, rtt: u32) {
        let rtt = rtt as i32;
        if self.srtt != 0 {
            let mut delta = rtt - 1 - (self.srtt >> RTT_SHIFT);
            self.srtt += delta;
            if self.srtt <= 0 {
                self.srtt = 1;
            }
            if delta < 0 {
                delta = -delta;
            }
            delta -= self.rttvar >> RTTVAR_SHIFT;
            self.rttvar += delta;
            if self.rttvar <= 0 {
                self.rttvar = 1;
            }
        } else {
            self.srtt = rtt << RTT_SHIFT;
            self.rttvar = rtt << (RTTVAR_SHIFT - 1);
        }
        self.rxtshift = 0;
        self.rxtcur = rangeset(self.rexmtval(), self.rttmin, self.rexmtmax);
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
        // After four backoffs the estimate is probably wrong: keep the variance, forget srtt.
        if self.rxtshift > max_rxtshift / 4 {
            self.rttvar += self.srtt >> RTT_SHIFT;
            self.srtt = 0;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initial_rto_is_six_seconds() {
        let r = BsdRtt::new(&TimerConfig::default());
        assert_eq!(r.rxtcur, 12);
        assert_eq!(r.rexmtval(), 24);
    }

    #[test]
    fn first_sample_sets_srtt_and_half_rttvar() {
        let mut r = BsdRtt::new(&TimerConfig::default());
        r.sample(1);
        assert_eq!(r.srtt, 8);
        assert_eq!(r.rttvar, 2);
        // srtt 1 + 4 * 0.5 = 3 ticks
        assert_eq!(r.rxtcur, 3);
    }

    #[test]
    fn lan_samples_settle_at_three_ticks() {
        let mut r = BsdRtt::new(&TimerConfig::default());
        for _ in 0..50 {
            r.sample(1);
        }
        assert_eq!(r.rxtcur, 3);
    }

    #[test]
    fn rto_is_bounded_below_by_rttmin() {
        let mut r = BsdRtt::new(&TimerConfig::default());
        r.srtt = 1;
        r.rttvar = 0;
        r.sample(1);
        assert!(r.rxtcur >= 2);
    }

    #[test]
    fn backoff_doubles_and_caps_at_64_seconds() {
        let mut r = BsdRtt::new(&TimerConfig::default());
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
}
