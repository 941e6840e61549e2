//! The protocols of the comparison (paper 000 Table I, plus EFR from paper 001 and the two later
//! standard answers to its problem, RFC 3042 and RFC 5827). Each is a
//! configuration: a sender recovery policy and a receiver policy for the one TCP, and the
//! base-station agent.

use serde::{Deserialize, Serialize};
use snooplab_proto::tcp::{ReceiverPolicy, RecoveryPolicy};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Protocol {
    #[serde(rename = "e2e")]
    E2e,
    #[serde(rename = "e2e-newreno")]
    E2eNewReno,
    #[serde(rename = "e2e-smart")]
    E2eSmart,
    #[serde(rename = "e2e-ietf-sack")]
    E2eIetfSack,
    #[serde(rename = "e2e-eln")]
    E2eEln,
    #[serde(rename = "e2e-eln-rxmt")]
    E2eElnRxmt,
    #[serde(rename = "efr")]
    Efr,
    // Later standard answers to EFR's problem (paper 001's experiment runs them beside it).
    #[serde(rename = "lt")]
    LimitedTransmit,
    #[serde(rename = "er")]
    EarlyRetransmit,
    #[serde(rename = "er-lt")]
    EarlyRetransmitLt,
    #[serde(rename = "ll")]
    Ll,
    #[serde(rename = "ll-tcp-aware")]
    LlTcpAware,
    #[serde(rename = "ll-smart")]
    LlSmart,
    #[serde(rename = "ll-smart-tcp-aware")]
    LlSmartTcpAware,
    #[serde(rename = "split")]
    Split,
    #[serde(rename = "split-smart")]
    SplitSmart,
    // --- mobile senders (paper 004 section 3, paper 002 section 3.2) ---
    #[serde(rename = "bs-eln")]
    BsEln,
    #[serde(rename = "bs-nack")]
    BsNack,
}

/// What runs at the base station.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AgentKind {
    /// Plain IP forwarding.
    Router,
    /// The link-layer agent with its two switches.
    LinkLayer {
        suppress_dupacks: bool,
        selective: bool,
    },
    /// Snoop with paper 002's settings (section 6): local retransmission on the first duplicate
    /// ACK, 40 ms minimum timeout.
    Snoop002,
    /// A split connection; the wireless half uses the SMART sender if `smart`.
    Split { smart: bool },
    /// The ELN marker for mobile senders (paper 004 section 3.3).
    Eln,
    /// The NACK generator for mobile senders (paper 002 section 3.2).
    Nack,
    /// Snoop at base station A of a cellular transit link, retransmitting on ELN-marked duplicate
    /// ACKs only (paper 004 section 3.5); a node's agent (`snoop-eln`), not a protocol.
    SnoopOnEln,
    /// Paper 000's snoop that does not look into its base station's transmit queue
    /// (`SnoopConfig::queue_aware` off: its timers resend segments still waiting there); a node's
    /// agent (`snoop-queue-blind`), for docs/snoop-scaling.md.
    SnoopQueueBlind,
}

impl Protocol {
    pub const ALL: [Protocol; 18] = [
        Protocol::E2e,
        Protocol::E2eNewReno,
        Protocol::E2eSmart,
        Protocol::E2eIetfSack,
        Protocol::E2eEln,
        Protocol::E2eElnRxmt,
        Protocol::Efr,
        Protocol::LimitedTransmit,
        Protocol::EarlyRetransmit,
        Protocol::EarlyRetransmitLt,
        Protocol::Ll,
        Protocol::LlTcpAware,
        Protocol::LlSmart,
        Protocol::LlSmartTcpAware,
        Protocol::Split,
        Protocol::SplitSmart,
        Protocol::BsEln,
        Protocol::BsNack,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Protocol::E2e => "e2e",
            Protocol::E2eNewReno => "e2e-newreno",
            Protocol::E2eSmart => "e2e-smart",
            Protocol::E2eIetfSack => "e2e-ietf-sack",
            Protocol::E2eEln => "e2e-eln",
            Protocol::E2eElnRxmt => "e2e-eln-rxmt",
            Protocol::Efr => "efr",
            Protocol::LimitedTransmit => "lt",
            Protocol::EarlyRetransmit => "er",
            Protocol::EarlyRetransmitLt => "er-lt",
            Protocol::Ll => "ll",
            Protocol::LlTcpAware => "ll-tcp-aware",
            Protocol::LlSmart => "ll-smart",
            Protocol::LlSmartTcpAware => "ll-smart-tcp-aware",
            Protocol::Split => "split",
            Protocol::SplitSmart => "split-smart",
            Protocol::BsEln => "bs-eln",
            Protocol::BsNack => "bs-nack",
        }
    }

    pub fn description(self) -> &'static str {
        match self {
            Protocol::E2e => "TCP Reno as the hosts' BSD runs it, end to end; the base station only routes (paper 000 E2E)",
            Protocol::E2eNewReno => {
                "Reno that stays in fast recovery on partial ACKs, resending the next hole (paper 000 E2E-NEWRENO)"
            }
            Protocol::E2eSmart => {
                "ACKs name the segment that caused them; the sender resends each gap at once (once per \
                 RTT) and halves its window per loss event (paper 000 E2E-SMART)"
            }
            Protocol::E2eIetfSack => {
                "RFC 2018 SACK blocks; scoreboard recovery after 3 duplicate ACKs, window halved as \
                 Reno (paper 000 E2E-IETF-SACK, Fall and Floyd's Sack1)"
            }
            Protocol::E2eEln => {
                "the receiver marks duplicate ACKs for segments corrupted on the wireless hop; the sender \
                 resends on the 3rd without shrinking its window (paper 000 E2E-ELN)"
            }
            Protocol::E2eElnRxmt => {
                "E2E-ELN that resends on the first marked duplicate ACK (paper 000 E2E-ELN-RXMT)"
            }
            Protocol::Efr => {
                "Reno whose fast-retransmit threshold is min(snd_wnd, cwnd)/mss - 2, at most 3, for tiny \
                 windows (paper 001 EFR)"
            }
            Protocol::LimitedTransmit => {
                "Reno that sends a new segment on each of the first two duplicate ACKs, window \
                 permitting, to make the third (RFC 3042 Limited Transmit)"
            }
            Protocol::EarlyRetransmit => {
                "Reno whose threshold is ceiling(outstanding/mss) - 1 when less than 4 segments are \
                 outstanding and no new segment can be sent (RFC 5827 Early Retransmit)"
            }
            Protocol::EarlyRetransmitLt => {
                "Early Retransmit together with Limited Transmit, as Linux ran them (RFC 5827 + \
                 RFC 3042)"
            }
            Protocol::Ll => {
                "the base station caches data bound for its cell and resends lost segments on duplicate \
                 ACKs and its own timer, but passes every duplicate ACK on (paper 000 LL)"
            }
            Protocol::LlTcpAware => {
                "the snoop agent: local retransmission plus suppression of the duplicate ACKs it \
                 answers (paper 000 LL-TCP-AWARE; alias snoop)"
            }
            Protocol::LlSmart => {
                "LL that resends every segment the SMART information on the ACKs shows missing \
                 (paper 000 LL-SMART)"
            }
            Protocol::LlSmartTcpAware => {
                "LL-SMART with duplicate-ACK suppression (paper 000 LL-SMART-TCP-AWARE)"
            }
            Protocol::Split => {
                "the base station ends the fixed host's connection and relays through a 64 KB buffer \
                 over a second Reno connection (paper 000 SPLIT)"
            }
            Protocol::SplitSmart => {
                "SPLIT whose wireless connection uses the SMART sender (paper 000 SPLIT-SMART)"
            }
            Protocol::BsEln => {
                "mobile senders: the base station lists the holes in the data it sees from the mobile \
                 host and sets ELN on ACKs that ask for one (not while a queue is above 75%); the \
                 mobile Reno sender resends on the 2nd marked ACK, once per RTT, with no window \
                 change (paper 004 Reno+ELN)"
            }
            Protocol::BsNack => {
                "mobile senders: the base station lists the holes in the data it sees from the mobile \
                 host and sends it NACKs, made-up duplicate ACKs with SACK blocks, after 3 packets \
                 above a hole or 200 ms idle; the mobile host runs the IETF-SACK sender (paper 002 \
                 section 3.2, paper 004 section 3.1)"
            }
        }
    }

    /// Accepted names: the canonical ones and a few aliases.
    pub fn parse(name: &str) -> Result<Protocol, String> {
        let n = name.trim().to_ascii_lowercase();
        let alias = match n.as_str() {
            "reno" => Some(Protocol::E2e),
            "newreno" => Some(Protocol::E2eNewReno),
            "sack" => Some(Protocol::E2eIetfSack),
            "smart" => Some(Protocol::E2eSmart),
            "snoop" => Some(Protocol::LlTcpAware),
            "limited-transmit" => Some(Protocol::LimitedTransmit),
            "early-retransmit" => Some(Protocol::EarlyRetransmit),
            _ => None,
        };
        alias
            .or_else(|| Protocol::ALL.iter().copied().find(|p| p.name() == n))
            .ok_or_else(|| {
                let known: Vec<&str> = Protocol::ALL.iter().map(|p| p.name()).collect();
                format!(
                    "unknown protocol '{name}' (known: {}; see `snooplab protocols`)",
                    known.join(", ")
                )
            })
    }

    /// The fixed host's loss recovery.
    pub fn sender_policy(self) -> RecoveryPolicy {
        match self {
            Protocol::E2e => RecoveryPolicy::RENO,
            Protocol::E2eNewReno => RecoveryPolicy::NEWRENO,
            Protocol::E2eSmart => RecoveryPolicy::SMART,
            Protocol::E2eIetfSack => RecoveryPolicy::SACK,
            Protocol::E2eEln => RecoveryPolicy::ELN,
            Protocol::E2eElnRxmt => RecoveryPolicy::ELN_RXMT,
            Protocol::Efr => RecoveryPolicy::EFR,
            Protocol::BsEln => RecoveryPolicy::ELN_MOBILE,
            Protocol::BsNack => RecoveryPolicy::SACK,
            Protocol::LimitedTransmit => RecoveryPolicy::LIMITED_TRANSMIT,
            Protocol::EarlyRetransmit => RecoveryPolicy::EARLY_RETRANSMIT,
            Protocol::EarlyRetransmitLt => RecoveryPolicy::EARLY_RETRANSMIT_LT,
            Protocol::Ll
            | Protocol::LlTcpAware
            | Protocol::LlSmart
            | Protocol::LlSmartTcpAware
            | Protocol::Split
            | Protocol::SplitSmart => RecoveryPolicy::RENO,
        }
    }

    /// What the mobile host's TCP adds to its ACKs.
    pub fn receiver_policy(self) -> ReceiverPolicy {
        ReceiverPolicy {
            mark_eln: matches!(self, Protocol::E2eEln | Protocol::E2eElnRxmt),
            smart_acks: matches!(
                self,
                Protocol::E2eSmart
                    | Protocol::LlSmart
                    | Protocol::LlSmartTcpAware
                    | Protocol::SplitSmart
            ),
            sack_blocks: self == Protocol::E2eIetfSack,
        }
    }

    /// Whether the sending host piggybacks its output queue on each packet (paper 004 section 3.3):
    /// the mobile hosts of the ELN scheme.
    pub fn reports_output_queue(self) -> bool {
        matches!(self, Protocol::BsEln | Protocol::BsNack)
    }

    /// Whether the fixed host's ACKs come from the base station rather than the mobile host.
    pub fn is_split(self) -> bool {
        matches!(self.agent(), AgentKind::Split { .. })
    }

    pub fn agent(self) -> AgentKind {
        match self {
            Protocol::Ll => AgentKind::LinkLayer {
                suppress_dupacks: false,
                selective: false,
            },
            Protocol::LlTcpAware => AgentKind::LinkLayer {
                suppress_dupacks: true,
                selective: false,
            },
            Protocol::LlSmart => AgentKind::LinkLayer {
                suppress_dupacks: false,
                selective: true,
            },
            Protocol::LlSmartTcpAware => AgentKind::LinkLayer {
                suppress_dupacks: true,
                selective: true,
            },
            Protocol::Split => AgentKind::Split { smart: false },
            Protocol::SplitSmart => AgentKind::Split { smart: true },
            Protocol::BsEln => AgentKind::Eln,
            Protocol::BsNack => AgentKind::Nack,
            _ => AgentKind::Router,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_unique() {
        for p in Protocol::ALL {
            assert_eq!(Protocol::parse(p.name()), Ok(p));
        }
        let mut names: Vec<_> = Protocol::ALL.iter().map(|p| p.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), Protocol::ALL.len());
        assert!(Protocol::parse("vegas")
            .unwrap_err()
            .contains("unknown protocol 'vegas'"));
    }
}
