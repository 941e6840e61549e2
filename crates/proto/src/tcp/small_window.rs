//! Two later standard answers to the problem EFR was made for (paper 001 section 4.3: a window too
//! small for three duplicate ACKs): Limited Transmit (RFC 3042) makes more duplicates by sending
//! new data on the first two, Early Retransmit (RFC 5827) asks for fewer. Both are policy points of
//! the one TCP ([`super::RecoveryPolicy::limited_transmit`], [`super::RecoveryPolicy::early_retransmit`]),
//! called from Reno's duplicate-ACK rule (`recovery/reno.rs`).

use super::{Addition, Tcp};
use crate::time::Time;

impl Tcp {
    /// RFC 5827 section 3.1 (byte-based Early Retransmit), evaluated on each duplicate ACK below
    /// the threshold: when (2.a) the outstanding data `ownd` is less than 4 * SMSS and (2.b) no
    /// unsent data is ready or the advertised window does not permit a new segment, the threshold
    /// becomes `ER_thresh = ceiling(ownd / SMSS) - 1` (at least 1). It only ever lowers the
    /// threshold in force, and never below the duplicates already counted, so that reaching it
    /// means "retransmit now".
    ///
    /// A sender without Early Retransmit evaluates the rule too, changing nothing, and notes the
    /// first time it would have lowered the threshold ([`Addition::EarlyRetransmit`],
    /// `witness.rs`): up to then the same run with Early Retransmit is the same run.
    pub(super) fn early_retransmit_lower(&mut self) {
        let er = self.cfg.policy.early_retransmit;
        if (!er && self.would_have_acted(Addition::EarlyRetransmit))
            || self.dupacks > self.cur_thresh
        {
            return;
        }
        let smss = self.maxseg.max(1);
        // data outstanding: a FIN sent is not data (it is unacknowledged while duplicates come)
        let ownd = self.snd_max.since(self.snd_una) - u32::from(self.sent_fin);
        if ownd >= 4 * smss {
            return; // (2.a)
        }
        let unsent = self.buffer_end().since(self.snd_max);
        let next = unsent.min(smss);
        let window_end = self.snd_una + self.snd_wnd;
        let window_permits = next > 0 && (self.snd_max + next).le(window_end);
        if unsent > 0 && window_permits {
            return; // (2.b): a new segment can be sent, Limited Transmit's case
        }
        let er_thresh = ownd.div_ceil(smss).saturating_sub(1).max(1);
        let lowered = self.cur_thresh.min(er_thresh.max(self.dupacks));
        if er {
            self.cur_thresh = lowered;
        } else if lowered != self.cur_thresh {
            self.witness(Addition::EarlyRetransmit);
        }
    }

    /// RFC 3042 section 2 (Limited Transmit): on the first and the second duplicate ACK, a sender
    /// with previously unsent data sends one new segment if "the receiver's advertised window
    /// allows the transmission of the segment" and "the amount of outstanding data would remain
    /// less than or equal to the congestion window plus 2 segments"; "the congestion window
    /// (cwnd) MUST NOT be changed". As FreeBSD later implemented it, cwnd is raised for one
    /// `tcp_output` call to what is outstanding plus one segment, then restored; `tcp_output`
    /// applies the advertised window. Nothing is sent while `snd_nxt` is below `snd_max` (after
    /// a timeout): that data is not new.
    pub(super) fn limited_transmit(&mut self, now: Time) {
        if !self.cfg.policy.limited_transmit
            || self.dupacks > 2
            || self.dupacks >= self.cur_thresh
            || self.snd_nxt != self.snd_max
        {
            return;
        }
        let outstanding = self.snd_max.since(self.snd_una);
        let room = self.cc.cwnd() + 2 * self.maxseg;
        if outstanding + self.maxseg > room {
            return;
        }
        let before = self.snd_max;
        self.output_with_cwnd(now, outstanding + self.maxseg);
        if self.snd_max.gt(before) {
            self.stats.limited_transmits += 1;
        }
    }
}
