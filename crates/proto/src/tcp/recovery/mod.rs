//! Loss recovery as one part of the one TCP: what a sender does on duplicate and partial ACKs,
//! behind one interface with one file per recovery, as ns-3's `TcpRecoveryOps` separates
//! recovery (`EnterRecovery`, `DoRecovery`, `ExitRecovery`) from congestion control. The window
//! itself is the congestion controller's (`cc/`): a recovery tells it of the events.
//!
//! The BSD fast-retransmit family the papers' policies have: Reno's fast retransmit and fast
//! recovery and NewReno's partial ACKs (`reno.rs`, with the policy points layered on them: ELN's
//! retransmission, EFR's threshold, Early Retransmit, Limited Transmit), the IETF SACK sender
//! (`sack.rs`) and SMART (`smart.rs`); and today's SACK recovery, RFC 6675 with PRR
//! (`rfc6675.rs`, over `scoreboard.rs` and `prr.rs`), which a SACK sender runs when its host
//! says so (`sack-recovery`). Which one a sender runs follows from its policy and host
//! ([`Recovery::of`]), kept beside them and set again when run sharing changes the policy
//! (`witness.rs`'s `add`): followed at once.

mod flight;
mod prr;
mod rack;
mod reno;
mod rfc6675;
mod sack;
mod scoreboard;
mod send_order;
mod smart;
mod tlp;

pub(super) use flight::Flight;
pub(super) use rack::{EarlyTimer, Rack};
pub(super) use scoreboard::Phase;
pub(super) use scoreboard::Rfc6675;
pub(super) use send_order::SendOrder;
pub(super) use tlp::Tlp;

use super::{ElnRule, PartialAck, RecoveryPolicy, SackRecovery, Selective, Tcp};
use crate::segment::Segment;
use crate::time::Time;

/// The loss recovery of a sender.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recovery {
    /// 4.4BSD Reno: any new ACK ends fast recovery.
    Reno,
    /// NewReno: a partial ACK resends the next hole and recovery goes on.
    NewReno,
    /// RFC 2018 SACK with Fall and Floyd's scoreboard recovery.
    Sack,
    /// RFC 2018 SACK with RFC 6675's loss recovery and RFC 6937's PRR (a host's
    /// [`SackRecovery::Rfc6675Prr`]).
    Rfc6675Prr,
    /// SMART.
    Smart,
}

impl Recovery {
    /// The recovery of `policy` on a host whose SACK recovery is `sack`: a selective one if the
    /// policy has one, else by its partial-ACK rule.
    #[inline]
    pub fn of(policy: &RecoveryPolicy, sack: SackRecovery) -> Recovery {
        match (policy.selective, policy.partial_ack) {
            (Selective::Sack, _) => match sack {
                SackRecovery::FallFloyd => Recovery::Sack,
                SackRecovery::Rfc6675Prr => Recovery::Rfc6675Prr,
            },
            (Selective::Smart, _) => Recovery::Smart,
            (Selective::None, PartialAck::ExitRecovery) => Recovery::Reno,
            (Selective::None, PartialAck::RetransmitNextHole) => Recovery::NewReno,
        }
    }
}

impl Tcp {
    #[inline]
    pub(super) fn recovery(&self) -> Recovery {
        self.recovery
    }

    /// The policy or the host changed: the recovery follows, and which path the TCP takes
    /// (`Tcp::today`, the host's details).
    pub(super) fn recovery_follows_config(&mut self) {
        self.recovery = Recovery::of(&self.cfg.policy, self.cfg.host.sack_recovery);
        self.today = self.cfg.host.has_todays_details();
    }

    /// A duplicate ACK for `snd_una` while data is outstanding: counted (unless ELN marked it,
    /// paper 004), then the sender's recovery decides. Returns true when the segment is consumed.
    /// `TODAY`: the path of `Tcp::on_segment_as` (RFC 6675 recovery is one of today's details).
    pub(super) fn on_duplicate_ack<const TODAY: bool>(&mut self, now: Time, seg: &Segment) -> bool {
        if seg.eln && self.eln_rule() == Some(ElnRule::MarkedAcks) {
            // paper 004: a marked duplicate is ELN's alone; Reno never counts it
            self.eln_marked_ack(now, seg.ack);
            return true;
        }
        self.dupacks += 1;
        if self.dupacks == 1 {
            // EFR computes its threshold from the window on the first duplicate.
            let window = self.snd_wnd.min(self.cc.cwnd()) / self.maxseg;
            self.cur_thresh = self.cfg.policy.dupack_threshold.for_window(window);
            self.witness_efr(window);
        }
        match self.recovery() {
            Recovery::Smart => self.smart_dupack(now, seg),
            Recovery::Sack => self.sack_on_dupack(now),
            Recovery::Rfc6675Prr if TODAY => {
                // after a timeout: Linux's tcp_process_loss() (frto.rs)
                // else Linux's window with SACKed data out of the flight (disorder.rs)
                self.process_loss_on_dupack(now, seg)
                    || self.rfc6675_on_dupack(now)
                    || self.disorder_send(now)
            }
            // never: a host with RFC 6675's recovery has today's details
            Recovery::Rfc6675Prr => false,
            Recovery::Reno | Recovery::NewReno => self.reno_dupack(now, seg),
        }
    }

    /// Whether a new ACK is a partial one, recovery going on: for NewReno, in fast recovery (not
    /// ELN's) and below `recover`; for SACK, in scoreboard recovery and below `recover`. Reno and
    /// SMART have none.
    #[inline]
    pub(super) fn is_partial_ack(&self, seg: &Segment) -> bool {
        match self.recovery() {
            Recovery::Reno | Recovery::Smart => false,
            Recovery::NewReno => {
                self.dupacks >= self.cur_thresh && !self.eln_recovery && seg.ack.lt(self.recover)
            }
            Recovery::Sack => self.sel.recovery && seg.ack.lt(self.recover),
            Recovery::Rfc6675Prr => self.rfc6675_is_partial(seg.ack),
        }
    }

    /// A new ACK, after `snd_una` moved to it; `partial` as [`Tcp::is_partial_ack`] said before.
    /// `TODAY`: as for [`Tcp::on_duplicate_ack`].
    #[inline]
    pub(super) fn recovery_after_new_ack<const TODAY: bool>(
        &mut self,
        now: Time,
        seg: &Segment,
        partial: bool,
    ) {
        match self.recovery() {
            Recovery::Reno => {}
            Recovery::NewReno => {
                if partial {
                    self.partial_ack_retransmit(now);
                }
            }
            Recovery::Sack => self.sack_after_new_ack(now, partial),
            Recovery::Rfc6675Prr => {
                if TODAY && !self.process_loss_on_new_ack(now, seg) {
                    self.rfc6675_after_new_ack(now, partial);
                }
            }
            Recovery::Smart => self.smart_react(now, seg),
        }
    }

    /// The retransmission timer expired: every recovery ends, and everything from `snd_una` is
    /// resent anyway: by go-back-N, or, for RFC 6675, what the scoreboard does not show SACKed.
    pub(super) fn recovery_on_rto(&mut self, now: Time) {
        self.dupacks = 0;
        self.eln_recovery = false;
        match self.recovery() {
            Recovery::Rfc6675Prr => self.rfc6675_on_rto(now),
            _ => self.sel.on_timeout(),
        }
    }

    /// An ACK for `snd_una` that BSD does not count as a duplicate (it carries data or another
    /// window): only RFC 6675 acts on it, as on any ACK in its recovery (section 5 step B: "an
    /// ACK that does not cover RecoveryPoint"; Linux's `tcp_ack()` takes every ACK's SACK
    /// blocks and delivery).
    #[inline]
    pub(super) fn recovery_on_other_ack(&mut self, now: Time, seg: &Segment) {
        if self.recovery() == Recovery::Rfc6675Prr
            && seg.ack == self.snd_una
            && !self.process_loss_on_other_ack(now, seg)
        {
            self.rfc6675_on_other_ack(now);
        }
    }

    /// In scoreboard recovery, whenever the sender may send (`tcp_output`): the recovery's own
    /// sending rule.
    pub(in crate::tcp) fn scoreboard_send(&mut self, now: Time) {
        match self.recovery() {
            Recovery::Rfc6675Prr => self.rfc6675_send(now),
            _ => self.sack_send(now),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each named policy runs the recovery it is named for; the layered points (ELN, EFR, Early
    /// Retransmit, Limited Transmit) run Reno's.
    #[test]
    fn each_policy_has_its_recovery() {
        let cases = [
            (RecoveryPolicy::RENO, Recovery::Reno),
            (RecoveryPolicy::NEWRENO, Recovery::NewReno),
            (RecoveryPolicy::SACK, Recovery::Sack),
            (RecoveryPolicy::SMART, Recovery::Smart),
            (RecoveryPolicy::ELN, Recovery::Reno),
            (RecoveryPolicy::ELN_RXMT, Recovery::Reno),
            (RecoveryPolicy::ELN_MOBILE, Recovery::Reno),
            (RecoveryPolicy::EFR, Recovery::Reno),
            (RecoveryPolicy::LIMITED_TRANSMIT, Recovery::Reno),
            (RecoveryPolicy::EARLY_RETRANSMIT, Recovery::Reno),
            (RecoveryPolicy::EARLY_RETRANSMIT_LT, Recovery::Reno),
        ];
        for (policy, recovery) in cases {
            assert_eq!(
                Recovery::of(&policy, SackRecovery::FallFloyd),
                recovery,
                "{policy:?}"
            );
        }
        // a host's RFC 6675 recovery replaces Fall and Floyd's for SACK only
        for (policy, recovery) in cases {
            let expected = match recovery {
                Recovery::Sack => Recovery::Rfc6675Prr,
                r => r,
            };
            assert_eq!(Recovery::of(&policy, SackRecovery::Rfc6675Prr), expected);
        }
    }
}
