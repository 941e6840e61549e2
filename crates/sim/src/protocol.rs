//! The protocols of the comparison (paper 000 Table I, plus EFR from paper 001 and the two later
//! standard answers to its problem, RFC 3042 and RFC 5827). Each is a
//! configuration: a sender recovery policy and a receiver policy for the one TCP, and the
//! base-station agent.

use serde::{Deserialize, Serialize};
use snooplab_proto::agent::SnoopConfig;
use snooplab_proto::tcp::{Addition, ReceiverPolicy, RecoveryPolicy};

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
    // --- snoop for a SACK sender (issue 51; docs/snoop-sack.md) ---
    #[serde(rename = "snoop-sack-vl")]
    SnoopSackVl,
    #[serde(rename = "snoop-sack")]
    SnoopSack,
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
    /// A split connection; the wireless half uses the SMART sender if `smart`.
    Split { smart: bool },
    /// The ELN marker for mobile senders (paper 004 section 3.3).
    Eln,
    /// The NACK generator for mobile senders (paper 002 section 3.2).
    Nack,
    /// Snoop with the settings it carries, as a node's agent (`agent = "..."`, [`NODE_AGENTS`]):
    /// the readings of other papers' snoops are values of [`SnoopConfig`], not kinds of agent.
    /// The protocols' link-layer agents are [`AgentKind::LinkLayer`].
    Snoop(SnoopConfig),
}

/// Agents a scenario file can give a base station by name (`agent = "..."` on a node) besides
/// the agent of each protocol: one row each, the only place these names live.
pub const NODE_AGENTS: &[(&str, AgentKind)] = &[
    ("router", AgentKind::Router),
    // snoop at base station A of a transit link, retransmitting on ELN-marked duplicate ACKs only
    // (paper 004 section 3.5)
    ("snoop-eln", AgentKind::Snoop(SnoopConfig::transit())),
    // snoop with paper 002's settings (section 6: first duplicate ACK, 40 ms minimum timeout)
    ("snoop-002", AgentKind::Snoop(SnoopConfig::paper002())),
    // paper 000's snoop that does not look into its transmit queue (`queue_aware` off: its timers
    // resend segments still waiting there; docs/snoop-scaling.md)
    (
        "snoop-queue-blind",
        AgentKind::Snoop(SnoopConfig {
            queue_aware: false,
            ..SnoopConfig::paper000(true, false)
        }),
    ),
];

/// Everything a protocol is, in one row: its names, the fixed host's loss recovery, what the
/// receiver adds to its ACKs, the base-station agent, and what `snooplab protocols` says of it.
#[derive(Clone, Copy, Debug)]
pub struct ProtocolDef {
    pub protocol: Protocol,
    /// The canonical name (as in scenario files, `--protocol` and every output).
    pub name: &'static str,
    /// Other names `--protocol` accepts.
    pub aliases: &'static [&'static str],
    /// The sending host's loss recovery.
    pub sender: RecoveryPolicy,
    /// What the receiving host's TCP adds to its ACKs.
    pub receiver: ReceiverPolicy,
    /// What runs at the base station.
    pub agent: AgentKind,
    /// Whether the sending host piggybacks its output queue on each packet (paper 004 section
    /// 3.3): the mobile hosts of the ELN and NACK schemes.
    pub reports_output_queue: bool,
    /// Whether `snooplab live` runs it between two Linux kernel hosts (`--protocol`): all it
    /// changes is the base station's agent, which the live mode runs as the simulator does. The
    /// others change a host's TCP (a recovery policy, SMART or ELN information on the ACKs, a
    /// mobile sender's queue reports); they run live only with that host modelled. ll-smart-tcp-
    /// aware and split-smart run (a Linux receiver gives their SMART halves no information, so
    /// they act as ll-tcp-aware and split); ll-smart, with nothing but that selective switch,
    /// does not.
    pub runs_between_kernels: bool,
    pub description: &'static str,
}

/// The receiver policies the protocols use.
mod receiver {
    use snooplab_proto::tcp::ReceiverPolicy;

    pub const NONE: ReceiverPolicy = ReceiverPolicy {
        mark_eln: false,
        smart_acks: false,
        sack_blocks: false,
    };
    /// E2E-ELN: "we assume sufficient knowledge at the receiver about wireless losses".
    pub const ELN: ReceiverPolicy = ReceiverPolicy {
        mark_eln: true,
        ..NONE
    };
    pub const SMART: ReceiverPolicy = ReceiverPolicy {
        smart_acks: true,
        ..NONE
    };
    pub const SACK: ReceiverPolicy = ReceiverPolicy {
        sack_blocks: true,
        ..NONE
    };
}

/// The protocols, one row each, in [`Protocol::ALL`]'s order (a test checks it).
#[rustfmt::skip]
const DEFS: [ProtocolDef; 20] = [
    ProtocolDef {
        protocol: Protocol::E2e,
        name: "e2e",
        // plain: the live mode's name for it, the base station only routing
        aliases: &["reno", "plain"],
        sender: RecoveryPolicy::RENO,
        receiver: receiver::NONE,
        agent: AgentKind::Router,
        reports_output_queue: false,
        runs_between_kernels: true,
        description: "TCP Reno as the hosts' BSD runs it, end to end; the base station only routes (paper 000 E2E)",
    },
    ProtocolDef {
        protocol: Protocol::E2eNewReno,
        name: "e2e-newreno",
        aliases: &["newreno"],
        sender: RecoveryPolicy::NEWRENO,
        receiver: receiver::NONE,
        agent: AgentKind::Router,
        reports_output_queue: false,
        runs_between_kernels: false,
        description: "Reno that stays in fast recovery on partial ACKs, resending the next hole (paper 000 E2E-NEWRENO)",
    },
    ProtocolDef {
        protocol: Protocol::E2eSmart,
        name: "e2e-smart",
        aliases: &["smart"],
        sender: RecoveryPolicy::SMART,
        receiver: receiver::SMART,
        agent: AgentKind::Router,
        reports_output_queue: false,
        runs_between_kernels: false,
        description: "ACKs name the segment that caused them; the sender resends each gap at once (once per \
                 RTT) and halves its window per loss event (paper 000 E2E-SMART)",
    },
    ProtocolDef {
        protocol: Protocol::E2eIetfSack,
        name: "e2e-ietf-sack",
        aliases: &["sack"],
        sender: RecoveryPolicy::SACK,
        receiver: receiver::SACK,
        agent: AgentKind::Router,
        reports_output_queue: false,
        runs_between_kernels: false,
        description: "RFC 2018 SACK blocks; scoreboard recovery after 3 duplicate ACKs, window halved as \
                 Reno (paper 000 E2E-IETF-SACK, Fall and Floyd's Sack1)",
    },
    ProtocolDef {
        protocol: Protocol::E2eEln,
        name: "e2e-eln",
        aliases: &[],
        sender: RecoveryPolicy::ELN,
        receiver: receiver::ELN,
        agent: AgentKind::Router,
        reports_output_queue: false,
        runs_between_kernels: false,
        description: "the receiver marks duplicate ACKs for segments corrupted on the wireless hop; the sender \
                 resends on the 3rd without shrinking its window (paper 000 E2E-ELN)",
    },
    ProtocolDef {
        protocol: Protocol::E2eElnRxmt,
        name: "e2e-eln-rxmt",
        aliases: &[],
        sender: RecoveryPolicy::ELN_RXMT,
        receiver: receiver::ELN,
        agent: AgentKind::Router,
        reports_output_queue: false,
        runs_between_kernels: false,
        description: "E2E-ELN that resends on the first marked duplicate ACK (paper 000 E2E-ELN-RXMT)",
    },
    ProtocolDef {
        protocol: Protocol::Efr,
        name: "efr",
        aliases: &[],
        sender: RecoveryPolicy::EFR,
        receiver: receiver::NONE,
        agent: AgentKind::Router,
        reports_output_queue: false,
        runs_between_kernels: false,
        description: "Reno whose fast-retransmit threshold is min(snd_wnd, cwnd)/mss - 2, at most 3, for tiny \
                 windows (paper 001 EFR)",
    },
    ProtocolDef {
        protocol: Protocol::LimitedTransmit,
        name: "lt",
        aliases: &["limited-transmit"],
        sender: RecoveryPolicy::LIMITED_TRANSMIT,
        receiver: receiver::NONE,
        agent: AgentKind::Router,
        reports_output_queue: false,
        runs_between_kernels: false,
        description: "Reno that sends a new segment on each of the first two duplicate ACKs, window \
                 permitting, to make the third (RFC 3042 Limited Transmit)",
    },
    ProtocolDef {
        protocol: Protocol::EarlyRetransmit,
        name: "er",
        aliases: &["early-retransmit"],
        sender: RecoveryPolicy::EARLY_RETRANSMIT,
        receiver: receiver::NONE,
        agent: AgentKind::Router,
        reports_output_queue: false,
        runs_between_kernels: false,
        description: "Reno whose threshold is ceiling(outstanding/mss) - 1 when less than 4 segments are \
                 outstanding and no new segment can be sent (RFC 5827 Early Retransmit)",
    },
    ProtocolDef {
        protocol: Protocol::EarlyRetransmitLt,
        name: "er-lt",
        aliases: &[],
        sender: RecoveryPolicy::EARLY_RETRANSMIT_LT,
        receiver: receiver::NONE,
        agent: AgentKind::Router,
        reports_output_queue: false,
        runs_between_kernels: false,
        description: "Early Retransmit together with Limited Transmit, as Linux ran them (RFC 5827 + \
                 RFC 3042)",
    },
    ProtocolDef {
        protocol: Protocol::Ll,
        name: "ll",
        aliases: &[],
        sender: RecoveryPolicy::RENO,
        receiver: receiver::NONE,
        agent: AgentKind::LinkLayer {
            suppress_dupacks: false,
            selective: false,
        },
        reports_output_queue: false,
        runs_between_kernels: true,
        description: "the base station caches data bound for its cell and resends lost segments on duplicate \
                 ACKs and its own timer, but passes every duplicate ACK on (paper 000 LL)",
    },
    ProtocolDef {
        protocol: Protocol::LlTcpAware,
        name: "ll-tcp-aware",
        aliases: &["snoop"],
        sender: RecoveryPolicy::RENO,
        receiver: receiver::NONE,
        agent: AgentKind::LinkLayer {
            suppress_dupacks: true,
            selective: false,
        },
        reports_output_queue: false,
        runs_between_kernels: true,
        description: "the snoop agent: local retransmission plus suppression of the duplicate ACKs it \
                 answers (paper 000 LL-TCP-AWARE; alias snoop)",
    },
    ProtocolDef {
        protocol: Protocol::LlSmart,
        name: "ll-smart",
        aliases: &[],
        sender: RecoveryPolicy::RENO,
        receiver: receiver::SMART,
        agent: AgentKind::LinkLayer {
            suppress_dupacks: false,
            selective: true,
        },
        reports_output_queue: false,
        runs_between_kernels: false,
        description: "LL that resends every segment the SMART information on the ACKs shows missing \
                 (paper 000 LL-SMART)",
    },
    ProtocolDef {
        protocol: Protocol::LlSmartTcpAware,
        name: "ll-smart-tcp-aware",
        aliases: &[],
        sender: RecoveryPolicy::RENO,
        receiver: receiver::SMART,
        agent: AgentKind::LinkLayer {
            suppress_dupacks: true,
            selective: true,
        },
        reports_output_queue: false,
        runs_between_kernels: true,
        description: "LL-SMART with duplicate-ACK suppression (paper 000 LL-SMART-TCP-AWARE)",
    },
    ProtocolDef {
        protocol: Protocol::Split,
        name: "split",
        aliases: &[],
        sender: RecoveryPolicy::RENO,
        receiver: receiver::NONE,
        agent: AgentKind::Split { smart: false },
        reports_output_queue: false,
        runs_between_kernels: true,
        description: "the base station ends the fixed host's connection and relays through a 64 KB buffer \
                 over a second Reno connection (paper 000 SPLIT)",
    },
    ProtocolDef {
        protocol: Protocol::SplitSmart,
        name: "split-smart",
        aliases: &[],
        sender: RecoveryPolicy::RENO,
        receiver: receiver::SMART,
        agent: AgentKind::Split { smart: true },
        reports_output_queue: false,
        runs_between_kernels: true,
        description: "SPLIT whose wireless connection uses the SMART sender (paper 000 SPLIT-SMART)",
    },
    ProtocolDef {
        protocol: Protocol::BsEln,
        name: "bs-eln",
        aliases: &[],
        sender: RecoveryPolicy::ELN_MOBILE,
        receiver: receiver::NONE,
        agent: AgentKind::Eln,
        reports_output_queue: true,
        runs_between_kernels: false,
        description: "mobile senders: the base station lists the holes in the data it sees from the mobile \
                 host and sets ELN on ACKs that ask for one (not while a queue is above 75%); the \
                 mobile Reno sender resends on the 2nd marked ACK, once per RTT, with no window \
                 change (paper 004 Reno+ELN)",
    },
    ProtocolDef {
        protocol: Protocol::BsNack,
        name: "bs-nack",
        aliases: &[],
        sender: RecoveryPolicy::SACK,
        receiver: receiver::NONE,
        agent: AgentKind::Nack,
        reports_output_queue: true,
        runs_between_kernels: false,
        description: "mobile senders: the base station lists the holes in the data it sees from the mobile \
                 host and sends it NACKs, made-up duplicate ACKs with SACK blocks, after 3 packets \
                 above a hole or 200 ms idle; the mobile host runs the IETF-SACK sender (paper 002 \
                 section 3.2, paper 004 section 3.1)",
    },
    ProtocolDef {
        protocol: Protocol::SnoopSackVl,
        name: "snoop-sack-vl",
        aliases: &[],
        sender: RecoveryPolicy::RENO,
        receiver: receiver::NONE,
        agent: AgentKind::Snoop(SnoopConfig::sack_vangala_labrador()),
        reports_output_queue: false,
        runs_between_kernels: true,
        description: "snoop that reads the SACK blocks of the duplicate ACKs: it resends each hole they show \
                 at once and suppresses their duplicates (Vangala and Labrador's TCP SACK-aware snoop, \
                 VTC 2003, as we read it; with a host that sends no SACK, snoop itself)",
    },
    ProtocolDef {
        protocol: Protocol::SnoopSack,
        name: "snoop-sack",
        aliases: &[],
        sender: RecoveryPolicy::RENO,
        receiver: receiver::NONE,
        agent: AgentKind::Snoop(SnoopConfig::sack_hiding()),
        reports_output_queue: false,
        runs_between_kernels: true,
        description: "snoop-sack-vl that also removes from the ACKs it forwards the SACK blocks above holes it \
                 is repairing, so a SACK/RACK sender does not race its local retransmissions (ours, \
                 docs/snoop-sack.md)",
    },
];

impl Protocol {
    pub const ALL: [Protocol; 20] = [
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
        Protocol::SnoopSackVl,
        Protocol::SnoopSack,
    ];

    /// The protocol's row of the table.
    pub fn def(self) -> &'static ProtocolDef {
        &DEFS[self as usize]
    }

    pub fn name(self) -> &'static str {
        self.def().name
    }

    pub fn description(self) -> &'static str {
        self.def().description
    }

    /// Whether the live mode runs it between two kernel hosts
    /// ([`ProtocolDef::runs_between_kernels`]).
    pub fn runs_between_kernels(self) -> bool {
        self.def().runs_between_kernels
    }

    /// Accepted names: the canonical ones and a few aliases.
    pub fn parse(name: &str) -> Result<Protocol, String> {
        let n = name.trim().to_ascii_lowercase();
        DEFS.iter()
            .find(|d| d.aliases.contains(&n.as_str()))
            .or_else(|| DEFS.iter().find(|d| d.name == n))
            .map(|d| d.protocol)
            .ok_or_else(|| {
                let known: Vec<&str> = DEFS.iter().map(|d| d.name).collect();
                format!(
                    "unknown protocol '{name}' (known: {}; see `snooplab protocols`)",
                    known.join(", ")
                )
            })
    }

    /// The fixed host's loss recovery.
    pub fn sender_policy(self) -> RecoveryPolicy {
        self.def().sender
    }

    /// What the mobile host's TCP adds to its ACKs.
    pub(crate) fn receiver_policy(self) -> ReceiverPolicy {
        self.def().receiver
    }

    /// Whether the sending host piggybacks its output queue on each packet (paper 004 section 3.3):
    /// the mobile hosts of the ELN scheme.
    pub(crate) fn reports_output_queue(self) -> bool {
        self.def().reports_output_queue
    }

    /// Whether the fixed host's ACKs come from the base station rather than the mobile host.
    pub fn is_split(self) -> bool {
        matches!(self.agent(), AgentKind::Split { .. })
    }

    pub fn agent(self) -> AgentKind {
        self.def().agent
    }

    /// The policy point this protocol adds to `base`, if that is all it changes (ER to Reno,
    /// ER+LT to LT, EFR to Reno): a run of it is a run of `base` until the point's rule would
    /// first act (`run/sharing/family.rs`).
    pub(crate) fn addition_to(self, base: Protocol) -> Option<Addition> {
        let (a, b) = (self.def(), base.def());
        let rest_alike = a.receiver == b.receiver
            && a.agent == b.agent
            && a.reports_output_queue == b.reports_output_queue;
        rest_alike.then(|| Addition::between(b.sender, a.sender))?
    }
}

impl AgentKind {
    /// The name a scenario file gives a base station running this agent (`agent = "..."` on a
    /// node, read back to the same agent): its [`NODE_AGENTS`] name, or the first protocol whose
    /// agent it is.
    pub fn file_name(self) -> Option<&'static str> {
        NODE_AGENTS
            .iter()
            .find(|(_, kind)| *kind == self)
            .map(|(name, _)| *name)
            .or_else(|| DEFS.iter().find(|d| d.agent == self).map(|d| d.name))
    }
}

#[cfg(test)]
#[path = "protocol_tests.rs"]
mod tests;
