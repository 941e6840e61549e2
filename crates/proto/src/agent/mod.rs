//! Base-station agents: what sits between the wired port and the wireless port of the base station
//! (docs/architecture.md). Each is sans-IO and generic over the packet it holds, so the simulator passes
//! its own packets and the live mode passes raw IP bytes.

mod counters;
pub mod eln;
pub mod handoff;
pub mod holes;
pub mod nack;
pub mod relay_bytes;
mod roles;
mod router;
pub mod snoop;
pub mod split;
#[cfg(test)]
mod split_both_ways_tests;
#[cfg(test)]
mod split_bytes_tests;
mod split_config;
mod split_handover;
#[cfg(test)]
mod split_handover_tests;
mod split_relay;
mod split_remembered;
#[cfg(test)]
mod split_table_tests;
#[cfg(test)]
mod split_tests;

pub(crate) use counters::agent_counters;
pub use counters::Counters;
pub use eln::{ElnAgent, ElnConfig};
pub use holes::BlockList;
pub use nack::{NackAgent, NackConfig};
pub use roles::{Handover, Mirror, QueueReader, Relay};
pub use router::Router;
pub use snoop::{BuildPacket, SnoopAgent, SnoopConfig};
pub use split::{SplitAgent, SplitConfig};
pub use split_handover::HandedOver;

use crate::segment::{Endpoint, Segment};
use crate::tcp::{TcpStats, TxKind};
use crate::time::Time;

/// The two sides of the base station.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Port {
    /// Towards the fixed host.
    Wired,
    /// Towards the mobile host.
    Wireless,
}

impl Port {
    /// The other side.
    pub fn opposite(self) -> Port {
        match self {
            Port::Wired => Port::Wireless,
            Port::Wireless => Port::Wired,
        }
    }
}

/// Anything an agent can read a TCP header view from.
pub trait SegmentView {
    /// The parsed header, or `None` for a packet that is not TCP/IPv4 (passed through untouched).
    fn segment(&self) -> Option<&Segment>;

    /// The TCP payload's bytes, for a packet that carries real ones (the live mode's); `None` for
    /// a modelled packet, which has only its header view. A split relay stores these to send them
    /// on (`relay_bytes.rs`).
    fn payload(&self) -> Option<&[u8]> {
        None
    }
}

/// Link-queue priority of an outgoing packet: local retransmissions go before queued traffic
/// (paper 002 section 3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Priority {
    Normal,
    High,
}

/// Why an agent sends a packet: what traces and captures report. Links ignore it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A packet that arrived on the other port, passed on.
    Forwarded,
    /// A cached segment sent again by the base station (paper 002 section 3.1).
    LocalRetransmission,
    /// An ACK the base station made up (snoop's answer to data below the last ACK).
    GeneratedAck,
    /// Sent by a TCP endpoint the agent runs itself (a split connection's), for this reason.
    Endpoint(TxKind),
}

/// A packet an agent hands to one of its ports.
#[derive(Clone, Debug, PartialEq)]
pub struct Transmit<P> {
    pub port: Port,
    pub packet: P,
    pub priority: Priority,
    pub origin: Origin,
}

impl<P> Transmit<P> {
    /// `packet` passed on to `port` at normal priority.
    pub fn forward(port: Port, packet: P) -> Transmit<P> {
        Transmit {
            port,
            packet,
            priority: Priority::Normal,
            origin: Origin::Forwarded,
        }
    }
}

/// What an agent holds at a moment, for traces (cheap to take).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AgentProbe {
    /// Segments held for all connections (snoop's cache, a split relay's unsent data).
    pub held_segments: u32,
    /// Payload bytes held.
    pub held_bytes: u64,
    /// `(cwnd, ssthresh)` of a TCP sender the agent runs itself (a split connection's wireless side).
    pub sender_window: Option<(u32, u32)>,
    /// Connections the agent keeps state for.
    pub connections: u32,
}

/// The TCP sender a split base station runs towards the mobile host: its counters, which the fixed
/// host's sender does not see (its timeouts and retransmissions are the relay's, not the fixed
/// host's).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RelayReport {
    /// The relayed connection as its opener numbers it: (opener, the other host); in paper 000
    /// (fixed host, mobile host).
    pub endpoints: (Endpoint, Endpoint),
    /// The wireless-side sender's counters.
    pub sender: TcpStats,
    /// When the wireless-side sender gave up (12 retransmissions of one segment), and the bytes
    /// the relay then held for the mobile host. The relay resets the fixed host's connection then.
    pub gave_up: Option<(Time, u64)>,
}

/// How a packet left the base station's transmit queue ([`QueueReader::on_departure`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Departure {
    /// Its frame went on the air (and ended; the channel may have corrupted it).
    OnAir,
    /// The queue was full, or the medium gave up on it: it never went on the air.
    Dropped,
    /// A layer between the agent and the queue did not send it (a handoff base station that does
    /// not forward for its mobile host now: `handoff/base_station.rs`): it never entered the
    /// queue, and no copy of it waits there.
    Withheld,
}

/// The sans-IO interface of a base-station agent. Every agent is a value that can be copied
/// ([`CloneAgent`], which any `Clone` agent has): a simulated run is `Clone`, and a copy of one is
/// how runs share their start (`sim/src/run/sharing/`).
pub trait Agent<P: SegmentView>: CloneAgent<P> {
    /// A packet arrives on `from`.
    fn on_packet(&mut self, now: Time, from: Port, packet: P);
    /// The time the agent asked for has come.
    fn on_timeout(&mut self, now: Time);
    /// The next packet to send.
    fn poll_transmit(&mut self, now: Time) -> Option<Transmit<P>>;
    /// When the agent next wants [`Agent::on_timeout`].
    fn poll_timeout(&self) -> Option<Time>;
    /// What the agent counted, under its own counters' names.
    fn counters(&self) -> Counters;
    /// What the agent holds now; nothing, for an agent that holds nothing.
    fn probe(&self) -> AgentProbe {
        AgentProbe::default()
    }
    /// Its role as a reader of the base station's queues, if it takes it ([`QueueReader`]).
    fn queue_reader(&mut self) -> Option<&mut dyn QueueReader<P>> {
        None
    }
    /// Its role as a mirror of traffic it does not forward ([`Mirror`]).
    fn mirror(&mut self) -> Option<&mut dyn Mirror<P>> {
        None
    }
    /// Its role as a relay running its own TCP sender ([`Relay`]).
    fn relay(&self) -> Option<&dyn Relay> {
        None
    }
    /// Its role in moving connection state at a handoff ([`Handover`]).
    fn handover(&mut self) -> Option<&mut dyn Handover<P>> {
        None
    }
}

/// A copy of a boxed agent as it stands (the one seam that makes `Box<dyn Agent>` `Clone`): every
/// `Clone` agent has it, so an agent that cannot be copied does not compile as an agent.
pub trait CloneAgent<P> {
    fn clone_box(&self) -> Box<dyn Agent<P>>;
}

impl<P: SegmentView, A: Agent<P> + Clone + 'static> CloneAgent<P> for A {
    fn clone_box(&self) -> Box<dyn Agent<P>> {
        Box::new(self.clone())
    }
}

impl<P> Clone for Box<dyn Agent<P>> {
    fn clone(&self) -> Self {
        (**self).clone_box()
    }
}
