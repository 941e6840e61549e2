//! SMART's loss recovery (paper 000 section III-A): each ACK names the segment that caused it, and
//! a gap below that segment is resent at once. The scoreboard and send log it reads are
//! `selective.rs`'s.

use super::super::selective::Sent;
use super::super::{Tcp, TxKind};
use crate::segment::Segment;
use crate::time::Time;

impl Tcp {
    /// A duplicate ACK: SMART acts on the first one that names a later segment. Always consumed.
    pub(super) fn smart_dupack(&mut self, now: Time, seg: &Segment) -> bool {
        self.smart_react(now, seg);
        true
    }

    /// SMART (paper 000 section III-A): every segment below the one this ACK names that the
    /// receiver does not hold is resent at once, unless it was resent within the last RTT. The first
    /// resend of a loss event halves the window.
    pub(super) fn smart_react(&mut self, now: Time, seg: &Segment) {
        let Some(s) = seg.smart else {
            return;
        };
        if !s.gt(self.snd_una) {
            return;
        }
        let rtt = self.sel.srtt.unwrap_or(0);
        let due: Vec<Sent> = self
            .sel
            .log
            .iter()
            .take_while(|r| r.seq.lt(s))
            .filter(|r| !self.sel.covered(r))
            .filter(|r| r.rexmits == 0 || now.saturating_sub(r.last_tx) >= rtt)
            .copied()
            .collect();
        if due.is_empty() {
            return;
        }
        if self.snd_una.ge(self.recover) {
            // a new loss event: still treated as congestion
            self.stats.fast_retransmits += 1;
            self.recover = self.snd_max;
            self.cc.on_recovery_start(self.snd_wnd, self.maxseg, 0);
        }
        self.timing = None;
        for r in due {
            self.send_exact(now, r.seq, r.len, TxKind::FastRetransmit);
        }
    }
}
