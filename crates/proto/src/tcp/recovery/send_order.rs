//! How far the send log, kept in sequence order, is also in send order: Linux keeps a second
//! list of the skbs by send time, `tsorted_sent_queue` (include/linux/tcp.h; an skb goes to its
//! tail when sent or resent, `tcp_update_skb_after_send()`), so that RACK's loss detection
//! (`tcp_rack_detect_loss()`, `rack.rs`) stops at the first segment sent after RACK.xmit_ts.
//! Here the log itself is in send order above the highest entry ever resent or entered out of
//! sequence: new data is appended as it is sent. So RACK's walk over the log stops at the first
//! entry in that part sent after RACK.xmit_ts, and leaves out the rest of the window on most
//! ACKs (docs/speed.md, issue 50).
//!
//! Reading: the order kept is the log's, not a list of its own (none to keep in step); what it
//! leaves out of the walk is exactly what a walk over the whole log would skip, so RACK marks
//! the same segments.

use super::super::selective::Sent;
use crate::seq::Seq;

/// The part of the send log in send order: every entry starting above `above` (every entry,
/// when `None`) was last sent no earlier than the entries before it in the log.
#[derive(Clone, Copy, Debug, Default)]
pub(in crate::tcp) struct SendOrder {
    above: Option<Seq>,
}

impl SendOrder {
    /// The entry starting at `seq` was resent, or entered below others already sent: the
    /// entries from it down are no longer known to be in send order.
    pub(in crate::tcp) fn sent_out_of_order(&mut self, seq: Seq) {
        self.above = Some(self.above.map_or(seq, |a| a.max(seq)));
    }

    /// `s`, an entry of the log, and every entry after it were sent in log order.
    #[inline]
    pub(in crate::tcp) fn in_send_order(&self, s: &Sent) -> bool {
        self.above.is_none_or(|a| s.seq.gt(a))
    }

    /// The log now starts at `front` (`None`: empty): once everything resent has left it, the
    /// whole log is in send order again (and the mark never lags half the sequence space).
    pub(in crate::tcp) fn log_starts_at(&mut self, front: Option<Seq>) {
        if self.above.is_some_and(|a| front.is_none_or(|f| f.gt(a))) {
            self.above = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Time;
    use std::collections::VecDeque;

    fn sent(seq: u32, last_tx: Time) -> Sent {
        Sent::once(seq, 100, last_tx)
    }

    /// Every entry the order calls in send order is sent no earlier than any entry before it,
    /// through appends, resends, insertions below and acknowledgments.
    #[test]
    fn in_send_order_holds_through_resends_and_insertions() {
        let mut log: VecDeque<Sent> = VecDeque::new();
        let mut order = SendOrder::default();
        let check = |log: &VecDeque<Sent>, order: &SendOrder| {
            for (i, s) in log.iter().enumerate() {
                if order.in_send_order(s) {
                    for later in log.iter().skip(i) {
                        assert!(later.last_tx >= s.last_tx, "{s:?} before {later:?}");
                    }
                }
            }
        };
        let mut t = 0;
        for seq in (0..1000).step_by(100) {
            t += 1;
            log.push_back(sent(seq, t));
        }
        check(&log, &order);
        assert!(log.iter().all(|s| order.in_send_order(s)));
        // 300 resent: it and what lies below it are out
        t += 1;
        log[3].last_tx = t;
        order.sent_out_of_order(Seq(300));
        check(&log, &order);
        assert!(!order.in_send_order(&log[3]) && order.in_send_order(&log[4]));
        // a resend with other boundaries entered at 150
        t += 1;
        log.insert(2, Sent::once(150, 50, t));
        order.sent_out_of_order(Seq(150));
        check(&log, &order);
        // new data, then everything to 400 acknowledged: the whole log is in order again
        t += 1;
        log.push_back(sent(1000, t));
        check(&log, &order);
        log.drain(..5);
        order.log_starts_at(log.front().map(|s| s.seq));
        assert!(log.iter().all(|s| order.in_send_order(s)));
        order.log_starts_at(None);
        assert!(order.above.is_none());
    }
}
