//! The simulated world as data (docs/architecture.md): hosts, base stations, wired links between
//! nodes, one wireless cell per base station with its mobile hosts as stations, and TCP flows from any
//! host to any host. Nodes, links, cells and flows are indexed; the event loop (`run.rs`) moves packets
//! along the routes computed here without naming any of them.
//!
//! Paper 000's testbed is one preset of it ([`Network::paper000`], `paper000.rs`); a scenario file can describe any
//! other (`file.rs`).

pub mod budget;
pub mod file;
mod handoff;
pub mod paper000;
mod routes;
mod validate;

pub use budget::MEMORY_BUDGET;
pub use file::CrashTable;
pub use handoff::{HandoffSpec, OldPrimaryQueue};
pub use handoff::{HandoffTable, Movement, MovementTable};
pub use routes::{Hop, Routes};

use snooplab_proto::tcp::{HostPreset, HostProfile};
use snooplab_proto::{Endpoint, Time};

use crate::channel::ChannelSpec;
use crate::link::WiredParams;
use crate::medium::{AccessModel, WavelanParams};
use crate::protocol::{AgentKind, Protocol};

/// Index of a node in [`Network::nodes`].
pub type NodeId = usize;
/// Index of a wired link in [`Network::links`].
pub(crate) type LinkId = usize;
/// Index of a cell in [`Network::cells`].
pub(crate) type CellId = usize;
/// Index of a flow in [`Network::flows`].
pub type FlowId = usize;

/// What a node is.
#[derive(Clone, Debug, PartialEq)]
pub enum NodeKind {
    /// A host running TCP endpoints: a fixed host on a wired link, or a mobile host in a cell.
    Host,
    /// A base station (or a plain router, without a cell): runs an agent between its wired side and
    /// its cell.
    BaseStation { agent: AgentKind, input: InputQueue },
}

/// A base station's IP input queue (4.4BSD's `ipintrq`): every packet it receives waits here for the
/// forwarding path, which takes `service` per packet; at most `max` wait, and a packet that finds
/// the queue full is dropped. Paper 004's ELN agent reads its length (section 3.3: a gap is not a
/// wireless hole while "the base station's input queue" is above 75% of its maximum).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InputQueue {
    /// `IFQ_MAXLEN` = 50 (4.4BSD `net/if.h`), the length `ipintrq` is given.
    pub max: usize,
    /// Forwarding time per packet. 0 (the default): packets are forwarded the instant they
    /// arrive and never queue, as in every paper's testbed, whose base stations kept up with
    /// 2 Mb/s; a congested base station needs a larger value.
    pub service: Time,
    /// The loss-classifying agents' (bs-eln, bs-nack) queue rule: a gap that appears while this
    /// queue or the mobile host's output queue is above this fraction of its maximum is taken for
    /// congestion (0.75, paper 004 section 3.3).
    pub congestion_fraction: f64,
    /// A split base station's bound on the bytes all its relays hold
    /// ([`snooplab_proto::agent::SplitConfig::max_memory`]).
    pub relay_memory: u64,
}

impl Default for InputQueue {
    fn default() -> Self {
        InputQueue {
            max: 50,
            service: 0,
            congestion_fraction: 0.75,
            relay_memory: snooplab_proto::agent::split::DEFAULT_RELAY_MEMORY,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub name: String,
    pub kind: NodeKind,
    /// IPv4 address, host byte order.
    pub addr: u32,
}

/// A full-duplex wired link between two nodes: each direction has its own queue and transmitter.
#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    pub name: String,
    pub ends: [NodeId; 2],
    pub params: WiredParams,
}

/// One mobile host of a cell: its station and the channels of its two directions.
#[derive(Clone, Debug, PartialEq)]
pub struct Station {
    pub node: NodeId,
    /// Base station to the mobile host.
    pub down: ChannelSpec,
    /// Mobile host to the base station.
    pub up: ChannelSpec,
}

/// A wireless cell: one shared medium, the base station as station 0 and `stations[i]` as station
/// `i + 1`.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    pub name: String,
    pub base_station: NodeId,
    pub stations: Vec<Station>,
    pub params: WavelanParams,
    pub access: AccessModel,
}

impl Network {
    /// Whether any cell of the network waits for what its receivers answer at once
    /// ([`crate::medium::AccessModel::waits_for_answers`]).
    pub fn any_cell_awaits_answers(&self) -> bool {
        self.cells.iter().any(|c| c.access.waits_for_answers())
    }

    /// Whether a cell of which `node` is a station waits for what the node answers at once
    /// ([`crate::medium::AccessModel::waits_for_answers`]). An outside host such a cell waits on
    /// must answer in the call that hands it the frame (`run/outside_hosts.rs`); one nothing
    /// waits on may take in its packets elsewhere (the live mode's host input on other cores).
    pub fn awaits_answers_of(&self, node: NodeId) -> bool {
        self.cells
            .iter()
            .any(|c| c.access.waits_for_answers() && c.stations.iter().any(|s| s.node == node))
    }
}

impl Cell {
    /// The node at station `s` of the cell's medium (0: the base station).
    pub(crate) fn node_of(&self, s: crate::medium::StationId) -> NodeId {
        match s {
            crate::medium::BASE_STATION => self.base_station,
            s => self.stations[s - 1].node,
        }
    }
}

/// A one-way TCP transfer: `from` sends `transfer` bytes to `to`; or, with a workload of pages,
/// `to` fetches pages from `from` over request/response connections (`workload`).
#[derive(Clone, Debug, PartialEq)]
pub struct Flow {
    pub name: String,
    pub from: NodeId,
    pub to: NodeId,
    /// The TCP variant: the sender's recovery policy and what the receiver puts on its ACKs.
    pub protocol: Protocol,
    /// The host profile both ends run, and the preset it started from (for reports).
    pub host_preset: HostPreset,
    pub host: HostProfile,
    /// Socket buffer of both ends, bytes.
    pub buffer: u32,
    /// Segment size (payload bytes).
    pub mss: u32,
    pub transfer: u64,
    /// When the sender opens the connection.
    pub start: Time,
    pub src_port: u16,
    pub dst_port: u16,
    /// What the flow carries: one bulk transfer (the default) or pages
    /// (`workload/flow_workload.rs`); with pages, `src_port` is the server's port at `from`,
    /// `transfer` is not used, and each connection's client takes a fresh port at `to`.
    pub workload: crate::workload::FlowWorkload,
}

/// A base station that crashes at `at`, losing every packet and all the state it holds (its agent
/// starts afresh, its queues are emptied), and comes back `down_for` later.
#[derive(Clone, Debug, PartialEq)]
pub struct Crash {
    pub node: NodeId,
    pub at: Time,
    pub down_for: Time,
}

/// The whole world of one run.
#[derive(Clone, Debug, PartialEq)]
pub struct Network {
    pub nodes: Vec<Node>,
    pub links: Vec<Link>,
    pub cells: Vec<Cell>,
    pub flows: Vec<Flow>,
    /// Mobile hosts that hand off between base stations (paper 002).
    pub handoffs: Vec<HandoffSpec>,
    /// Base stations that crash and come back (paper 002's fault, issue 17).
    pub crashes: Vec<Crash>,
    pub seed: u64,
    /// Give up (and report the run incomplete) at this simulated time.
    pub max_time: Time,
}

impl Network {
    /// The node named `name`.
    pub fn node_id(&self, name: &str) -> Option<NodeId> {
        self.nodes.iter().position(|n| n.name == name)
    }

    /// The flow's sending and receiving TCP endpoints.
    pub fn endpoints(&self, f: FlowId) -> (Endpoint, Endpoint) {
        let fl = &self.flows[f];
        (
            Endpoint {
                addr: self.nodes[fl.from].addr,
                port: fl.src_port,
            },
            Endpoint {
                addr: self.nodes[fl.to].addr,
                port: fl.dst_port,
            },
        )
    }

    /// The cell a node belongs to as a mobile host, and its station there.
    pub fn station_of(&self, node: NodeId) -> Option<(CellId, usize)> {
        self.cells.iter().enumerate().find_map(|(c, cell)| {
            cell.stations
                .iter()
                .position(|s| s.node == node)
                .map(|i| (c, i + 1))
        })
    }

    /// The packet captures a run writes, one per wired link, then one per cell: their names.
    pub fn capture_names(&self) -> Vec<String> {
        self.links
            .iter()
            .map(|l| l.name.clone())
            .chain(self.cells.iter().map(|c| c.name.clone()))
            .collect()
    }

    /// The cell a base station serves.
    pub(crate) fn cell_of(&self, bs: NodeId) -> Option<CellId> {
        self.cells.iter().position(|c| c.base_station == bs)
    }

    /// Whether the node is a host in a cell.
    pub fn is_mobile(&self, node: NodeId) -> bool {
        self.station_of(node).is_some()
    }
}
