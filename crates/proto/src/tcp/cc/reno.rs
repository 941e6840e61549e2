//! Reno's window as 4.4BSD runs it (Stevens, TCP/IP Illustrated vol. 2, chapters 25, 27 and
//! 29): slow start and congestion avoidance per new ACK, the threshold halved on a loss, and the
//! host details in which the papers' BSD hosts differ (`host.rs`): the congestion-avoidance
//! increment ([`CaIncrement`]) and when fast recovery deflates the window ([`Deflation`]).

use super::super::{CaIncrement, Deflation, HostProfile, TCP_MAXWIN};
use super::Window;

/// Reno with one BSD host's details.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reno {
    pub ca_increment: CaIncrement,
    pub deflation: Deflation,
}

impl Reno {
    pub fn for_host(host: &HostProfile) -> Reno {
        Reno {
            ca_increment: host.ca_increment,
            deflation: host.deflation,
        }
    }

    /// Slow start below ssthresh (one segment per ACK), congestion avoidance above it with the host's
    /// increment: `maxseg * maxseg / cwnd`, plus `maxseg / 8` in 4.4BSD-Lite (see [`CaIncrement`]).
    #[inline]
    pub(super) fn increase(&self, w: &mut Window, maxseg: u32) {
        let cw = w.cwnd;
        let mut incr = maxseg;
        if cw > w.ssthresh {
            incr = match self.ca_increment {
                CaIncrement::PlusEighth => incr * incr / cw + incr / 8,
                CaIncrement::Plain => incr * incr / cw,
            };
        }
        w.cwnd = (cw + incr).min(TCP_MAXWIN);
    }

    /// Whether the first new ACK after `dupacks` duplicates (threshold `thresh`) deflates the
    /// window to ssthresh: the host's rule ([`Deflation`], Stevens vol. 2, p. 970).
    #[inline]
    pub(super) fn deflates(&self, dupacks: u32, thresh: u32) -> bool {
        match self.deflation {
            Deflation::AboveThreshold => dupacks > thresh,
            Deflation::AtThreshold => dupacks >= thresh,
        }
    }
}

/// `max(min(snd_wnd, snd_cwnd) / 2, 2 segments)`, rounded down to whole segments: the
/// threshold after a loss (Lite2 tcp_input.c fast retransmit and tcp_timer.c `TCPT_REXMT`:
/// `win = min(snd_wnd, snd_cwnd) / 2 / t_maxseg; if (win < 2) win = 2;`). `flight` is
/// `min(snd_wnd, snd_cwnd)`.
pub(super) fn halved_window(flight: u32, maxseg: u32) -> u32 {
    let win = (flight / 2 / maxseg).max(2);
    win * maxseg
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1000;

    #[test]
    fn halved_window_is_whole_segments_and_at_least_two() {
        assert_eq!(halved_window(8 * MSS + 999, MSS), 4 * MSS);
        assert_eq!(halved_window(9 * MSS, MSS), 4 * MSS, "rounded down");
        assert_eq!(halved_window(MSS, MSS), 2 * MSS, "never below two segments");
    }

    #[test]
    fn increase_is_slow_start_then_the_hosts_increment() {
        let plain = Reno {
            ca_increment: CaIncrement::Plain,
            deflation: Deflation::AboveThreshold,
        };
        let eighth = Reno {
            ca_increment: CaIncrement::PlusEighth,
            ..plain
        };
        let mut w = Window {
            cwnd: 2 * MSS,
            ssthresh: 4 * MSS,
        };
        plain.increase(&mut w, MSS);
        assert_eq!(w.cwnd, 3 * MSS, "one segment per ACK below ssthresh");
        w.cwnd = 5 * MSS;
        let mut w2 = w;
        plain.increase(&mut w, MSS);
        assert_eq!(w.cwnd, 5 * MSS + MSS / 5);
        eighth.increase(&mut w2, MSS);
        assert_eq!(w2.cwnd, 5 * MSS + MSS / 5 + MSS / 8);
        w.cwnd = TCP_MAXWIN - 1;
        plain.increase(&mut w, MSS);
        assert_eq!(w.cwnd, TCP_MAXWIN, "never above TCP_MAXWIN");
    }

    #[test]
    fn deflation_follows_the_host() {
        let lite = Reno {
            ca_increment: CaIncrement::Plain,
            deflation: Deflation::AboveThreshold,
        };
        let freebsd = Reno {
            deflation: Deflation::AtThreshold,
            ..lite
        };
        assert!(!lite.deflates(3, 3), "Lite: only above tcprexmtthresh");
        assert!(lite.deflates(4, 3));
        assert!(freebsd.deflates(3, 3), "FreeBSD 2.2: at tcprexmtthresh too");
        assert!(!freebsd.deflates(2, 3));
    }
}
