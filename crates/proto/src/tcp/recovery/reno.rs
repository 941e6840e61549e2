//! The BSD fast-retransmit family without selective acknowledgments (Stevens vol. 2, pp. 970-972):
//! Reno's fast retransmit on the threshold-th duplicate ACK and fast recovery's inflation, NewReno's
//! resend on a partial ACK, and the policy points layered on them: ELN's retransmission without a
//! window cut (paper 000 section III-A), Early Retransmit and Limited Transmit (`small_window.rs`),
//! and a Linux host's SACK emulation, which takes Limited Transmit's place (`reno_sacks.rs`).

use super::super::{ElnRule, Tcp, TxKind};
use crate::segment::Segment;
use crate::time::Time;

impl Tcp {
    /// A counted duplicate ACK for a Reno or NewReno sender. Returns true when the segment is
    /// consumed.
    pub(super) fn reno_dupack(&mut self, now: Time, seg: &Segment) -> bool {
        if let Some(eln) = self.cfg.policy.eln {
            if seg.eln
                && eln.rule == ElnRule::DuplicateIndex
                && !self.eln_recovery
                && self.dupacks == eln.rexmt_thresh
            {
                self.eln_retransmit(now, seg.ack);
                return true;
            }
        }
        if self.eln_recovery {
            // The loss was on the wireless hop: no congestion response, no inflation.
            return true;
        }
        self.early_retransmit_lower(); // small_window.rs
        if self.dupacks == self.cur_thresh {
            self.fast_retransmit(now, seg.ack);
            return true;
        }
        if self.dupacks > self.cur_thresh {
            // Fast recovery: each further duplicate means a segment left the network.
            self.cc.on_recovery_dupack(self.maxseg);
            self.output(now);
            return true;
        }
        if self.reno_sack_emulation() {
            // Linux: a duplicate is a segment delivered, one out of the flight: new data by
            // [`Tcp::reno_sack_window`] (reno_sacks.rs)
            self.send_on_duplicate(now);
        } else {
            self.limited_transmit(now); // small_window.rs
        }
        false
    }

    /// Fast retransmit on the threshold-th duplicate ACK (Stevens vol. 2, p. 971): halve the window,
    /// resend the missing segment, then inflate by the duplicates that arrived.
    pub(super) fn fast_retransmit(&mut self, now: Time, ack: crate::seq::Seq) {
        self.stats.fast_retransmits += 1;
        self.stats.fast_retransmits_below_three += u64::from(self.cur_thresh < 3);
        self.recover = self.snd_max;
        let inflation = self.maxseg * self.dupacks;
        self.cc
            .on_recovery_start(self.snd_wnd, self.maxseg, inflation);
        self.resend_one(now, ack, TxKind::FastRetransmit);
    }

    /// NewReno on a partial ACK: the next hole is resent at once; the window is the halved one.
    pub(super) fn partial_ack_retransmit(&mut self, now: Time) {
        self.stats.partial_ack_retransmits += 1;
        self.cc.on_partial_ack();
        let una = self.snd_una;
        self.resend_one(now, una, TxKind::FastRetransmit);
    }
}
