//! Reno as Linux runs it (net/ipv4/tcp_cong.c `tcp_reno_cong_avoid`, `tcp_reno_ssthresh`; the
//! `reno` congestion control, `net.ipv4.tcp_congestion_control = reno`): RFC 5681's window in
//! Linux's form, with the TCP's side of `linux.rs` (slow start by packets acknowledged, growth
//! only while cwnd-limited, the timeout's window, the restart after idle). It differs from
//! 4.4BSD's Reno (`reno.rs`) there, and in halving cwnd, not `min(snd_wnd, cwnd)`, on a loss.

use super::linux::LinuxSide;
use super::{AckInfo, SentInfo, Window};

/// Linux's Reno.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinuxReno {
    linux: LinuxSide,
}

impl Default for LinuxReno {
    fn default() -> Self {
        LinuxReno {
            linux: LinuxSide::new(),
        }
    }
}

impl LinuxReno {
    pub(super) fn on_mss(&mut self, mss: u32, init_cwnd: u32) {
        self.linux.on_mss(mss, init_cwnd);
    }

    /// `tcp_reno_cong_avoid`: nothing unless cwnd-limited; slow start below ssthresh, then one
    /// segment per window of segments ACKed (`tcp_cong_avoid_ai(tp, cwnd, acked)`).
    pub(super) fn on_ack(&mut self, w: &mut Window, a: &AckInfo) {
        let (mut acked, grows) = self.linux.on_ack(w, a);
        if !grows {
            return;
        }
        if w.cwnd < w.ssthresh {
            acked = self.linux.slow_start(w, acked);
            if acked == 0 {
                return;
            }
        }
        let cwnd = self.linux.segments(w.cwnd);
        self.linux.cong_avoid_ai(w, cwnd, acked);
    }

    /// `tcp_reno_ssthresh`: half the window of `cwnd` bytes, at least two segments.
    pub(super) fn ssthresh_after_loss(&mut self, cwnd: u32) -> u32 {
        self.linux.on_recovery();
        let cwnd = self.linux.segments(cwnd);
        self.linux.bytes((cwnd >> 1).max(2))
    }

    pub(super) fn on_partial_ack(&mut self) {
        self.linux.on_partial_ack();
    }

    /// `tcp_enter_loss` (`linux.rs`).
    pub(super) fn on_rto(&mut self, w: &mut Window) {
        if self.linux.takes_loss_ssthresh() {
            w.ssthresh = self.ssthresh_after_loss(w.cwnd);
        }
        self.linux.loss_window(w);
    }

    /// Data leaves: the restart after idle (`linux.rs`); Reno has no `CA_EVENT_TX_START`.
    pub(super) fn on_data_sent(&mut self, w: &mut Window, s: &SentInfo) {
        self.linux.on_data_sent(w, s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seq::Seq;

    const MSS: u32 = 1000;

    fn ack(c: &mut LinuxReno, w: &mut Window, segs: u32, flight: u32) {
        let a = AckInfo {
            now: 0,
            una: Seq(0),
            ack: Seq(segs * MSS),
            snd_max: Seq(flight * MSS),
            delivered: segs * MSS,
        };
        c.on_ack(w, &a);
    }

    /// Slow start by segments, then one segment per cwnd segments ACKed; a loss halves cwnd.
    #[test]
    fn slow_start_then_one_segment_per_window() {
        let mut c = LinuxReno::default();
        c.on_mss(MSS, MSS);
        let mut w = Window {
            cwnd: 8 * MSS,
            ssthresh: 10 * MSS,
        };
        ack(&mut c, &mut w, 2, 8);
        assert_eq!(w.cwnd, 10 * MSS, "two segments ACKed, two more");
        for _ in 0..9 {
            ack(&mut c, &mut w, 1, 10);
        }
        assert_eq!(w.cwnd, 10 * MSS);
        ack(&mut c, &mut w, 1, 10);
        assert_eq!(w.cwnd, 11 * MSS, "ten ACKed at cwnd 10");
        assert_eq!(c.ssthresh_after_loss(11 * MSS), 5 * MSS);
        assert_eq!(c.ssthresh_after_loss(3 * MSS), 2 * MSS, "at least two");
    }
}
