//! The nodes of a simulated network, every kind driven by the same sans-IO calls (DESIGN section 1):
//! a packet arrives ([`SimNode::on_packet`]), the time asked for has come ([`SimNode::on_timeout`]),
//! what it sends ([`SimNode::poll_transmit`]) and when it next wants to be woken
//! ([`SimNode::poll_timeout`]). The event loop kicks nodes by index and routes what they send; it
//! never names a node.
//!
//! The kinds, one file each: `host.rs` (TCP endpoints, demultiplexed by address and port) and
//! `base_station.rs` (a base-station agent between the wired side and the cell).

mod base_station;
mod host;

pub use base_station::BaseStationNode;
pub use host::{Conn, HostNode, Role};

use snooplab_proto::agent::{Origin, Priority};
use snooplab_proto::Time;

use crate::network::FlowId;
use crate::packet::SimPacket;

/// Which side of a node a packet arrived on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// A wired link.
    Wired,
    /// The node's cell (as a base station, or as a mobile host).
    Cell,
}

/// A packet a node sends, and why.
#[derive(Clone, Debug)]
pub struct Outgoing {
    pub packet: SimPacket,
    pub priority: Priority,
    pub origin: Origin,
    /// The flow whose TCP endpoint sent it (hosts only).
    pub flow: Option<FlowId>,
}

/// A node of any kind.
pub enum SimNode {
    Host(HostNode),
    BaseStation(BaseStationNode),
}

impl SimNode {
    /// A packet arrives on `side`. Corrupted frames reach hosts (an ELN receiver notes them) and are
    /// dropped by a base station's link layer.
    pub fn on_packet(&mut self, now: Time, side: Side, packet: SimPacket) {
        match self {
            SimNode::Host(h) => h.on_packet(now, packet),
            SimNode::BaseStation(b) => b.on_packet(now, side, packet),
        }
    }

    pub fn on_timeout(&mut self, now: Time) {
        match self {
            SimNode::Host(h) => h.on_timeout(now),
            SimNode::BaseStation(b) => b.on_timeout(now),
        }
    }

    pub fn poll_transmit(&mut self, now: Time) -> Option<Outgoing> {
        match self {
            SimNode::Host(h) => h.poll_transmit(),
            SimNode::BaseStation(b) => b.poll_transmit(now),
        }
    }

    pub fn poll_timeout(&self) -> Option<Time> {
        match self {
            SimNode::Host(h) => h.poll_timeout(),
            SimNode::BaseStation(b) => b.poll_timeout(),
        }
    }
}
