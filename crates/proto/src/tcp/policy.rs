//! The named policy points of the one TCP (docs/model.md, docs/host-profiles.md). Each paper protocol is a value of
//! [`RecoveryPolicy`] (plus, for the receiver, [`ReceiverPolicy`]), never a copy of the state machine.
//! What differs between the hosts' implementations of the same protocol (e.g. when fast recovery
//! deflates the window) is a host detail (`host.rs`).

/// How many duplicate ACKs trigger fast retransmit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DupAckThreshold {
    /// A fixed count (`tcprexmtthresh` = 3 in 4.4BSD).
    Fixed(u32),
    /// EFR (paper 001 section 5.4): on the first duplicate ACK, `snd_cur = min(snd_wnd, snd_cwnd)` and the
    /// threshold becomes `snd_cur / t_maxseg - 2`, never above `max`. The paper leaves windows of one
    /// or two segments (a threshold of 0 or less) unspecified; we retransmit on the first duplicate.
    Efr { max: u32 },
}

impl DupAckThreshold {
    /// The threshold for a send window of `window_segments` whole segments.
    pub fn for_window(self, window_segments: u32) -> u32 {
        match self {
            DupAckThreshold::Fixed(n) => n.max(1),
            DupAckThreshold::Efr { max } => {
                (i64::from(window_segments) - 2).clamp(1, i64::from(max.max(1))) as u32
            }
        }
    }
}

/// What a partial ACK (one that covers the fast-retransmitted segment but not everything sent before
/// it) does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartialAck {
    /// Reno: any new ACK ends fast recovery.
    ExitRecovery,
    /// NewReno (paper 000 section III-A): retransmit the next hole at once and stay in fast recovery
    /// until everything outstanding at the fast retransmit is acknowledged; the window is halved on the
    /// first new ACK.
    RetransmitNextHole,
}

/// Explicit loss notification at the sender (paper 000 section III-A; paper 004 section 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ElnSender {
    /// The duplicate ACK, marked with ELN, on which the segment is retransmitted without any window
    /// reduction or fast-recovery inflation: 3 for E2E-ELN, 1 for E2E-ELN-RXMT, 2 in paper 004
    /// (`eln_rexmt_thresh`).
    pub rexmt_thresh: u32,
    pub rule: ElnRule,
}

/// Which ACKs count towards [`ElnSender::rexmt_thresh`], and what happens after the retransmission.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElnRule {
    /// Paper 000's E2E-ELN (the receiver marks): the `rexmt_thresh`-th duplicate ACK resends if it
    /// is marked; until the next new ACK every further duplicate is absorbed (no inflation).
    DuplicateIndex,
    /// Paper 004 section 3.3 (the base station marks, the mobile host sends): every ACK with ELN,
    /// duplicate or new, counts for the segment it asks for; the `rexmt_thresh`-th resends it, with
    /// no change of the window, and the same segment is resent again at most once per round trip
    /// (`eln_last_rxmit`; a round trip is the smoothed RTT the BSD sender keeps, in its 500 ms
    /// ticks, at least one tick). Marked duplicates bypass fast retransmit and fast recovery;
    /// unmarked ones are Reno's ("these actions are taken only for duplicate ACKs with ELN").
    MarkedAcks,
}

/// Loss recovery from selective acknowledgments (paper 000 section III-A).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Selective {
    /// Cumulative ACKs only.
    None,
    /// RFC 2018 SACK with Fall and Floyd's scoreboard recovery ("Sack1"): after the threshold of
    /// duplicates, halve the window as Reno does and send while the estimate of packets in the pipe is
    /// below cwnd, holes first.
    Sack,
    /// SMART: each ACK names the segment that caused it; a gap below it is resent at once unless it
    /// was resent within the last RTT, and each loss event still halves the window.
    Smart,
}

/// How the sender reacts to duplicate and partial ACKs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecoveryPolicy {
    pub dupack_threshold: DupAckThreshold,
    pub partial_ack: PartialAck,
    /// `Some` if the sender acts on ELN marks.
    pub eln: Option<ElnSender>,
    pub selective: Selective,
    /// Limited Transmit (RFC 3042 section 2): on each of the first two duplicate ACKs, send one
    /// previously unsent segment if the peer's window allows it, without changing cwnd.
    pub limited_transmit: bool,
    /// Early Retransmit (RFC 5827 section 3.1, byte-based): with less than four segments
    /// outstanding and no new segment sendable, the threshold becomes
    /// `ceiling(ownd / SMSS) - 1`. Read in one place only, `Tcp::early_retransmit_lower`: a
    /// sender without it notes there when it would have acted ([`Addition`]), and the simulator
    /// runs an ER run as the run without it until then (`sim/src/run/sharing/line.rs`).
    pub early_retransmit: bool,
}

impl RecoveryPolicy {
    /// TCP Reno as in 4.4BSD-Lite: the E2E protocol of paper 000.
    pub const RENO: RecoveryPolicy = RecoveryPolicy {
        dupack_threshold: DupAckThreshold::Fixed(3),
        partial_ack: PartialAck::ExitRecovery,
        eln: None,
        selective: Selective::None,
        limited_transmit: false,
        early_retransmit: false,
    };
    /// E2E-NEWRENO.
    pub const NEWRENO: RecoveryPolicy = RecoveryPolicy {
        partial_ack: PartialAck::RetransmitNextHole,
        ..RecoveryPolicy::RENO
    };
    /// E2E-ELN: retransmit on the third ELN-marked duplicate, keep the window.
    pub const ELN: RecoveryPolicy = RecoveryPolicy {
        eln: Some(ElnSender {
            rexmt_thresh: 3,
            rule: ElnRule::DuplicateIndex,
        }),
        ..RecoveryPolicy::RENO
    };
    /// E2E-ELN-RXMT: retransmit on the first ELN-marked duplicate, keep the window.
    pub const ELN_RXMT: RecoveryPolicy = RecoveryPolicy {
        eln: Some(ElnSender {
            rexmt_thresh: 1,
            rule: ElnRule::DuplicateIndex,
        }),
        ..RecoveryPolicy::RENO
    };
    /// Paper 004's mobile sender: Reno that acts on the base station's ELN marks
    /// (`eln_rexmt_thresh` = 2).
    pub const ELN_MOBILE: RecoveryPolicy = RecoveryPolicy {
        eln: Some(ElnSender {
            rexmt_thresh: 2,
            rule: ElnRule::MarkedAcks,
        }),
        ..RecoveryPolicy::RENO
    };
    /// E2E-IETF-SACK.
    pub const SACK: RecoveryPolicy = RecoveryPolicy {
        selective: Selective::Sack,
        ..RecoveryPolicy::RENO
    };
    /// E2E-SMART.
    pub const SMART: RecoveryPolicy = RecoveryPolicy {
        selective: Selective::Smart,
        ..RecoveryPolicy::RENO
    };
    /// EFR (paper 001): Reno with the dynamic threshold.
    pub const EFR: RecoveryPolicy = RecoveryPolicy {
        dupack_threshold: DupAckThreshold::Efr { max: 3 },
        ..RecoveryPolicy::RENO
    };
    /// Reno with Limited Transmit (RFC 3042).
    pub const LIMITED_TRANSMIT: RecoveryPolicy = RecoveryPolicy {
        limited_transmit: true,
        ..RecoveryPolicy::RENO
    };
    /// Reno with Early Retransmit (RFC 5827) alone.
    pub const EARLY_RETRANSMIT: RecoveryPolicy = RecoveryPolicy {
        early_retransmit: true,
        ..RecoveryPolicy::RENO
    };
    /// Reno with Early Retransmit and Limited Transmit. RFC 5827's condition (2.b) lowers the
    /// threshold only when no new segment can be sent, the case Limited Transmit cannot help;
    /// Linux ran them together ("when no previously unsent data can be transmitted (such that
    /// limited transmit could be used)", `tcp_early_retrans`, Documentation/networking/ip-sysctl.txt).
    pub const EARLY_RETRANSMIT_LT: RecoveryPolicy = RecoveryPolicy {
        early_retransmit: true,
        limited_transmit: true,
        ..RecoveryPolicy::RENO
    };
}

/// A policy point a sender without it witnesses (`tcp/witness.rs`): it evaluates the point's
/// rule where the rule is read, changes nothing, and notes the first time the rule would have
/// made it act otherwise. Until then the same connection with the point added has done the
/// same, state for state; the simulator runs the two as one until then (`sim/src/run/sharing/line.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Addition {
    /// [`RecoveryPolicy::early_retransmit`], read only where RFC 5827's rule lowers the threshold.
    EarlyRetransmit,
    /// EFR's threshold ([`RecoveryPolicy::EFR`]'s [`DupAckThreshold`]), read only on the first
    /// duplicate ACK.
    Efr,
}

impl Addition {
    pub const ALL: [Addition; 2] = [Addition::EarlyRetransmit, Addition::Efr];

    /// `base` with this point added.
    pub fn to(self, base: RecoveryPolicy) -> RecoveryPolicy {
        match self {
            Addition::EarlyRetransmit => RecoveryPolicy {
                early_retransmit: true,
                ..base
            },
            Addition::Efr => RecoveryPolicy {
                dupack_threshold: RecoveryPolicy::EFR.dupack_threshold,
                ..base
            },
        }
    }

    /// Whether `policy` has this point.
    pub fn is_in(self, policy: RecoveryPolicy) -> bool {
        self.to(policy) == policy
    }

    /// The point `policy` adds to `base`, if that is all it changes.
    pub fn between(base: RecoveryPolicy, policy: RecoveryPolicy) -> Option<Addition> {
        Addition::ALL
            .into_iter()
            .find(|a| !a.is_in(base) && a.to(base) == policy)
    }

    /// Its bit among a sender's witnesses ([`super::Tcp::witnesses`]).
    pub fn bit(self) -> u8 {
        match self {
            Addition::EarlyRetransmit => 1,
            Addition::Efr => 2,
        }
    }
}

impl Default for RecoveryPolicy {
    fn default() -> Self {
        RecoveryPolicy::RENO
    }
}

/// What the receiver adds to its ACKs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct ReceiverPolicy {
    /// Mark ACKs whose cumulative acknowledgment points at a segment the receiver saw arrive corrupted
    /// (paper 000 section III-A, E2E-ELN: "we assume sufficient knowledge at the receiver about wireless
    /// losses").
    pub mark_eln: bool,
    /// Carry SMART information: the sequence number of the segment that caused each ACK.
    pub smart_acks: bool,
    /// Carry RFC 2018 SACK blocks.
    pub sack_blocks: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn efr_threshold_follows_the_window() {
        let efr = DupAckThreshold::Efr { max: 3 };
        assert_eq!(efr.for_window(1), 1);
        assert_eq!(efr.for_window(2), 1);
        assert_eq!(efr.for_window(3), 1);
        assert_eq!(efr.for_window(4), 2);
        assert_eq!(efr.for_window(5), 3);
        assert_eq!(efr.for_window(23), 3, "never above 3");
        assert_eq!(DupAckThreshold::Fixed(3).for_window(2), 3);
    }
}
