//! Linux's counts of the retransmission queue's marks, `tp->packets_out`, `sacked_out`,
//! `lost_out` and `retrans_out` (include/linux/tcp.h), kept as the send log's marks change, so
//! that a RACK sender's SetPipe reads `tcp_packets_in_flight()` = packets_out - (sacked_out +
//! lost_out) + retrans_out and "some segment is marked lost" (`tcp_time_to_recover()`'s
//! `tp->lost_out`) without a walk over the log on every ACK (docs/speed.md, issue 50).
//!
//! Linux changes its counters where it changes an skb's marks (`tcp_sacktag_one()`,
//! `tcp_mark_skb_lost()`, `tcp_retransmit_skb()`, `tcp_clean_rtx_queue()`); here every entry
//! entering or leaving the send log goes through [`Flight::enter`] and [`Flight::leave`], and
//! every change of an entry's marks (`Sent`'s `sacked`, `lost`, `retrans`) through
//! [`Flight::remark`].
//!
//! Reading: in bytes, as the model's pipe is (Linux counts packets), and by whole logged
//! segment; SetPipe takes off the part below `snd_una` of the segments that start below it
//! (Linux trims an skb's acknowledged head, `tcp_trim_head()`).

use std::collections::VecDeque;

use super::super::selective::Sent;

/// The send log's counts ([`crate::tcp::selective::SelectiveState`]'s `log`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(in crate::tcp) struct Flight {
    /// Bytes of the logged segments neither SACKed nor marked lost, a resend in flight among
    /// them once: `tcp_packets_in_flight()`, since the model's `lost` is Linux's `TCPCB_LOST`
    /// without `TCPCB_SACKED_RETRANS` (a resend in flight is counted by `lost_out` and by
    /// `retrans_out`, once each).
    unmarked_bytes: u64,
    /// Logged segments marked lost and not resent since: `lost_out - retrans_out` in Linux's
    /// terms, non-zero exactly when Linux's `lost_out` holds a segment still to resend.
    lost: u32,
    /// Logged segments SACKed: `sacked_out`, which `tcp_rack_reo_wnd()` asks against DupThresh.
    sacked: u32,
}

impl Flight {
    /// What one logged segment adds to the counts.
    fn of(s: &Sent) -> Flight {
        Flight {
            unmarked_bytes: if s.sacked || s.lost {
                0
            } else {
                u64::from(s.len)
            },
            lost: u32::from(s.lost),
            sacked: u32::from(s.sacked),
        }
    }

    /// `s` entered the send log.
    #[inline]
    pub(in crate::tcp) fn enter(&mut self, s: &Sent) {
        let add = Flight::of(s);
        self.unmarked_bytes += add.unmarked_bytes;
        self.lost += add.lost;
        self.sacked += add.sacked;
    }

    /// `s` left the send log (acknowledged).
    #[inline]
    pub(in crate::tcp) fn leave(&mut self, s: &Sent) {
        let sub = Flight::of(s);
        // never below zero: a count that drifted from the log (a bug `check` finds in tests)
        // gives a wrong pipe, not one that wraps to `u32::MAX` and stalls the sender
        debug_assert!(
            self.unmarked_bytes >= sub.unmarked_bytes
                && self.lost >= sub.lost
                && self.sacked >= sub.sacked
        );
        self.unmarked_bytes = self.unmarked_bytes.saturating_sub(sub.unmarked_bytes);
        self.lost = self.lost.saturating_sub(sub.lost);
        self.sacked = self.sacked.saturating_sub(sub.sacked);
    }

    /// `change` changes the marks of `s`, a logged segment.
    #[inline]
    pub(in crate::tcp) fn remark(&mut self, s: &mut Sent, change: impl FnOnce(&mut Sent)) {
        self.leave(s);
        change(s);
        self.enter(s);
    }

    /// Some logged segment is marked lost and not resent since.
    #[inline]
    pub(in crate::tcp) fn any_lost(&self) -> bool {
        self.lost > 0
    }

    /// Logged segments SACKed (`tp->sacked_out`).
    #[inline]
    pub(in crate::tcp) fn sacked_segments(&self) -> u32 {
        self.sacked
    }

    /// The bytes of logged segments in flight, by whole segment (`tcp_packets_in_flight()`).
    #[inline]
    pub(in crate::tcp) fn unmarked_bytes(&self) -> u64 {
        self.unmarked_bytes
    }

    /// The counts by a walk over `log`: what the kept ones must equal. Checked in the tests
    /// and debug builds wherever they are read.
    #[cfg(any(test, debug_assertions))]
    pub(in crate::tcp) fn check(&self, log: &VecDeque<Sent>) {
        let mut walked = Flight::default();
        for s in log {
            walked.enter(s);
        }
        assert_eq!(*self, walked, "the send log's counts differ from its walk");
    }

    #[cfg(not(any(test, debug_assertions)))]
    #[inline(always)]
    pub(in crate::tcp) fn check(&self, _log: &VecDeque<Sent>) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each mark counts as Linux's `tcp_packets_in_flight()` does: a SACKed or lost segment is
    /// not in flight, a resend in flight is (once), and a segment both SACKed and lost is
    /// counted lost until its mark is cleared.
    #[test]
    fn marks_count_as_packets_in_flight() {
        let mut flight = Flight::default();
        let mut log: VecDeque<Sent> = (0..4).map(|i| Sent::once(i * 100, 100, 0)).collect();
        for s in &log {
            flight.enter(s);
        }
        assert_eq!((flight.unmarked_bytes(), flight.any_lost()), (400, false));
        flight.remark(&mut log[0], Sent::mark_lost);
        assert_eq!((flight.unmarked_bytes(), flight.any_lost()), (300, true));
        // resent (`tcp_retransmit_skb()`): in flight again, no longer waiting
        flight.remark(&mut log[0], |s| {
            s.lost = false;
            s.retrans = true;
        });
        assert_eq!((flight.unmarked_bytes(), flight.any_lost()), (400, false));
        flight.remark(&mut log[1], |s| s.sacked = true);
        assert_eq!(
            (flight.unmarked_bytes(), flight.sacked_segments()),
            (300, 1)
        );
        flight.remark(&mut log[1], Sent::mark_lost);
        assert_eq!((flight.unmarked_bytes(), flight.any_lost()), (300, true));
        flight.check(&log);
        if let Some(s) = log.pop_front() {
            flight.leave(&s);
        }
        assert_eq!(
            (flight.unmarked_bytes(), flight.sacked_segments()),
            (200, 1)
        );
        flight.check(&log);
    }
}
