//! The multicast handoff of paper 002 (sections 4-6): a home agent that tunnels a mobile host's
//! packets to its multicast group (`home_agent.rs`), base stations that forward (the primary) or keep
//! the last packets in a circular buffer (`ring.rs`) and mirror snoop's cache (`base_station.rs`),
//! beacons, and the mobile host's side: which base station forwards, when to hand off, and the IP
//! ids of the last packets it received (`mobile.rs`). The messages between them are real packets
//! (`messages.rs`): they take airtime, can be lost, and appear in captures.
//!
//! Everything here is sans-IO and generic over the packet ([`MobilityPacket`]), like the other
//! agents.

mod base_station;
mod home_agent;
mod messages;
mod mobile;
mod ring;
#[cfg(test)]
mod tests;

pub use base_station::{HandoffAgent, HandoffConfig, HandoffStats};
pub use home_agent::HomeAgent;
pub use messages::{Mobility, Request, Tunnel, BROADCAST, CONTROL_PORT, TUNNEL_HEADER_BYTES};
pub use mobile::{Decision, MobileConfig, MobileHandoff, Trigger};
pub use ring::Ring;

use super::SegmentView;

/// A packet the handoff protocol can read and build: control messages and beacons besides TCP
/// segments, and IP-in-IP encapsulation from the home agent to the base stations.
pub trait MobilityPacket: SegmentView + Clone {
    /// The control message or beacon this packet carries; `None` for any other packet.
    fn mobility(&self) -> Option<&Mobility>;
    /// The outer header of an encapsulated packet.
    fn tunnel(&self) -> Option<Tunnel>;
    /// This packet inside an outer header.
    fn encapsulate(&self, tunnel: Tunnel) -> Self;
    /// The inner packet.
    fn decapsulate(self) -> Self;
    /// A control message from `src` to `dst` (addresses in host byte order).
    fn control(src: u32, dst: u32, msg: Mobility) -> Self;
}
