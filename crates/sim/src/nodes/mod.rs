//! The nodes of a simulated network, every kind driven by the same sans-IO calls (docs/architecture.md):
//! a packet arrives ([`SimNode::on_packet`]), the time asked for has come ([`SimNode::on_timeout`]),
//! what it sends ([`SimNode::poll_transmit`]) and when it next wants to be woken
//! ([`SimNode::poll_timeout`]). The event loop kicks nodes by index and routes what they send; it
//! never names a node.
//!
//! The kinds, one file each: `host.rs` (TCP endpoints, demultiplexed by address and port),
//! `base_station.rs` (a base-station agent between the wired side and the cell) and `external.rs`
//! (a host outside the engine, a real one in the live mode, whose packets come and go through the
//! loop's driver). `mobility.rs` is a mobile host's mobility layer (paper 002), which both kinds
//! of host carry. `apps.rs` holds a host's request/response connections of workload flows and
//! `browser.rs` the client that opens them page by page, `host_apps.rs` the two together
//! (issue 53).

mod apps;
mod base_station;
mod browser;
mod external;
mod host;
mod host_apps;
mod mobility;
mod stalls;
#[cfg(test)]
mod stalls_tests;

pub use apps::{AppConn, AppConns, AppCounters, AppEnd, Opened};
pub use base_station::BaseStationNode;
pub use browser::{Browser, ObjectRecord, PageRecord};
pub use external::ExternalHost;
pub use host::{Conn, HostNode, Role};
pub use host_apps::HostApps;
pub use mobility::MobileLayer;
pub use stalls::{ConnId, Stall, StallPhase, TimerWatch};

use snooplab_proto::agent::handoff::MobileHandoff;
use snooplab_proto::agent::{Agent, Origin, Priority};
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

/// Who inside a node a packet that arrived intact is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inbound {
    /// One of a host's TCP endpoints: its connection index, flow and role.
    Endpoint {
        conn: usize,
        flow: FlowId,
        role: Role,
    },
    /// One of a host's request/response connections (a workload flow's): its index there.
    App { conn: usize },
    /// A mobile host's handoff control message or beacon (its mobility layer has had it).
    Control,
    /// A base station's agent.
    Agent,
    /// A host with no endpoint for it.
    Unmatched,
    /// A host outside the engine: the loop's driver hands it the packet.
    External,
}

/// A node of any kind.
#[derive(Clone)]
pub enum SimNode {
    Host(HostNode),
    BaseStation(BaseStationNode),
    External(ExternalHost),
}

impl SimNode {
    /// Who inside the node `packet` is for. (Inlined where the loop delivers, as it was before
    /// a host's workload connections made it larger.)
    #[inline(always)]
    pub fn inbound(&self, packet: &SimPacket) -> Inbound {
        match self {
            SimNode::Host(_) if !packet.is_tcp() => Inbound::Control,
            SimNode::Host(h) => match h.conn_index(packet) {
                Some(conn) => Inbound::Endpoint {
                    conn,
                    flow: h.conns[conn].flow,
                    role: h.conns[conn].role,
                },
                None => h.inbound_other(packet),
            },
            SimNode::BaseStation(_) => Inbound::Agent,
            // the kernel's own UDP and ICMP go to it; only handoff messages stop short
            SimNode::External(_) if packet.mobility().is_some() => Inbound::Control,
            SimNode::External(_) => Inbound::External,
        }
    }

    pub fn host(&self) -> Option<&HostNode> {
        match self {
            SimNode::Host(h) => Some(h),
            _ => None,
        }
    }

    /// Whether the node is all inside the engine, so that a copy of it is a copy of all of it: a
    /// host outside the engine is a real stack whose state a copy does not hold (a run with one
    /// never forks, `run/sharing/fork.rs`).
    pub(crate) fn is_in_engine(&self) -> bool {
        !matches!(self, SimNode::External(_))
    }

    pub(crate) fn host_mut(&mut self) -> Option<&mut HostNode> {
        match self {
            SimNode::Host(h) => Some(h),
            _ => None,
        }
    }

    pub fn base_station(&self) -> Option<&BaseStationNode> {
        match self {
            SimNode::BaseStation(b) => Some(b),
            _ => None,
        }
    }

    pub(crate) fn base_station_mut(&mut self) -> Option<&mut BaseStationNode> {
        match self {
            SimNode::BaseStation(b) => Some(b),
            _ => None,
        }
    }

    pub(crate) fn external_mut(&mut self) -> Option<&mut ExternalHost> {
        match self {
            SimNode::External(x) => Some(x),
            _ => None,
        }
    }

    /// The mobility layer of a mobile host that hands off, modelled or outside the engine.
    pub fn mobile(&self) -> Option<&MobileHandoff> {
        match self {
            SimNode::Host(h) => h.mobile.as_deref(),
            SimNode::External(x) => x.mobile.as_deref(),
            SimNode::BaseStation(_) => None,
        }
    }

    pub(crate) fn mobile_mut(&mut self) -> Option<&mut MobileHandoff> {
        match self {
            SimNode::Host(h) => h.mobile.as_deref_mut(),
            SimNode::External(x) => x.mobile.as_deref_mut(),
            SimNode::BaseStation(_) => None,
        }
    }

    /// The agent of a base station.
    pub fn agent(&self) -> Option<&dyn Agent<SimPacket>> {
        self.base_station().map(|b| b.agent.as_ref())
    }

    /// A packet arrives on `side`. Corrupted frames reach hosts (an ELN receiver notes them) and are
    /// dropped by a base station's link layer. (Inlined where the loop delivers: the call to
    /// this dispatch, then to the node's own, cost `bench` 0.35% of its instructions.)
    #[inline(always)]
    pub fn on_packet(&mut self, now: Time, side: Side, packet: SimPacket) {
        match self {
            SimNode::Host(h) => h.on_packet(now, packet),
            SimNode::BaseStation(b) => b.on_packet(now, side, packet),
            SimNode::External(x) => x.on_packet(packet),
        }
    }

    pub fn on_timeout(&mut self, now: Time) {
        match self {
            SimNode::Host(h) => h.on_timeout(now),
            SimNode::BaseStation(b) => b.on_timeout(now),
            SimNode::External(x) => x.on_timeout(now),
        }
    }

    #[inline]
    pub fn poll_transmit(&mut self, now: Time) -> Option<Outgoing> {
        match self {
            SimNode::Host(h) => h.poll_transmit(),
            SimNode::BaseStation(b) => b.poll_transmit(now),
            SimNode::External(x) => x.poll_transmit(),
        }
    }

    /// The node's next timer. (Inlined where the loop re-arms it after every kick.)
    #[inline(always)]
    pub fn poll_timeout(&self) -> Option<Time> {
        match self {
            SimNode::Host(h) => h.poll_timeout(),
            SimNode::BaseStation(b) => b.poll_timeout(),
            SimNode::External(x) => x.poll_timeout(),
        }
    }
}
