//! The simulated world as data (DESIGN sections 1 and 6): hosts, base stations, wired links between
//! nodes, one wireless cell per base station with its mobile hosts as stations, and TCP flows from any
//! host to any host. Nodes, links, cells and flows are indexed; the event loop (`run.rs`) moves packets
//! along the routes computed here without naming any of them.
//!
//! Paper 000's testbed is one preset of it ([`Network::paper000`], `paper000.rs`); a scenario file can describe any
//! other (`file.rs`).

pub mod file;
mod handoff;
pub mod paper000;
pub mod paper001;
pub mod paper002;
mod routes;

pub use file::CrashTable;
pub use handoff::{HandoffSpec, HandoffTable, Movement, MovementTable};
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
pub type LinkId = usize;
/// Index of a cell in [`Network::cells`].
pub type CellId = usize;
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
}

impl Default for InputQueue {
    fn default() -> Self {
        InputQueue {
            max: 50,
            service: 0,
            congestion_fraction: 0.75,
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

impl Cell {
    /// The node at station `s` of the cell's medium (0: the base station).
    pub fn node_of(&self, s: crate::medium::StationId) -> NodeId {
        match s {
            crate::medium::BASE_STATION => self.base_station,
            s => self.stations[s - 1].node,
        }
    }
}

/// A one-way TCP transfer: `from` sends `transfer` bytes to `to`.
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
    pub fn cell_of(&self, bs: NodeId) -> Option<CellId> {
        self.cells.iter().position(|c| c.base_station == bs)
    }

    /// Whether the node is a host in a cell.
    pub fn is_mobile(&self, node: NodeId) -> bool {
        self.station_of(node).is_some()
    }

    /// Checks the network; the message names the node, link, cell or flow and what is wrong.
    pub fn validate(&self) -> Result<(), String> {
        if self.nodes.is_empty() {
            return Err("the network has no nodes".into());
        }
        for (i, n) in self.nodes.iter().enumerate() {
            if self.nodes[..i].iter().any(|m| m.name == n.name) {
                return Err(format!("node '{}' is defined twice", n.name));
            }
            if self.nodes[..i].iter().any(|m| m.addr == n.addr) {
                return Err(format!("node '{}' has the address of another node", n.name));
            }
        }
        for l in &self.links {
            if l.ends[0] == l.ends[1] {
                return Err(format!("link '{}' connects a node to itself", l.name));
            }
            if l.params.rate_bps == 0 {
                return Err(format!("link '{}' has a rate of 0", l.name));
            }
            if l.params.queue_packets == 0 {
                return Err(format!("link '{}' has a queue of 0 packets", l.name));
            }
        }
        for (c, cell) in self.cells.iter().enumerate() {
            if !matches!(
                self.nodes[cell.base_station].kind,
                NodeKind::BaseStation { .. }
            ) {
                return Err(format!(
                    "cell '{}': its base station '{}' is a host",
                    cell.name, self.nodes[cell.base_station].name
                ));
            }
            if self.cells[..c]
                .iter()
                .any(|o| o.base_station == cell.base_station)
            {
                return Err(format!(
                    "base station '{}' has more than one cell",
                    self.nodes[cell.base_station].name
                ));
            }
            if cell.stations.is_empty() {
                return Err(format!("cell '{}' has no mobile hosts", cell.name));
            }
            cell.access
                .validate(&cell.params)
                .map_err(|e| format!("cell '{}': {e}", cell.name))?;
            if cell.params.rate_bps == 0 || cell.params.queue_packets == 0 {
                return Err(format!(
                    "cell '{}': rate and queue must be positive",
                    cell.name
                ));
            }
            for s in &cell.stations {
                // a station is a mobile host, or the far base station of a wireless transit
                // link (paper 004 section 3.5), which then has no cell of its own
                let transit = self.nodes[s.node].kind != NodeKind::Host;
                if transit && self.cell_of(s.node).is_some() {
                    return Err(format!(
                        "cell '{}': station '{}' is a base station with a cell of its own; a \
                         station is a host, or a base station at the far end of a transit link",
                        cell.name, self.nodes[s.node].name
                    ));
                }
                s.down.validate().and(s.up.validate()).map_err(|e| {
                    format!(
                        "cell '{}', station '{}': {e}",
                        cell.name, self.nodes[s.node].name
                    )
                })?;
            }
        }
        for (i, n) in self.nodes.iter().enumerate() {
            if n.kind != NodeKind::Host {
                continue;
            }
            let wired = self.links.iter().filter(|l| l.ends.contains(&i)).count();
            let cells = self
                .cells
                .iter()
                .filter(|c| c.stations.iter().any(|s| s.node == i))
                .count();
            let roams = self.handoffs.iter().any(|h| h.mobile == i);
            if roams && (wired > 0 || cells == 0) {
                return Err(format!(
                    "host '{}' hands off between base stations: it must be a station of their \
                     cells and have no wired link",
                    n.name
                ));
            }
            if !roams && wired + cells != 1 {
                return Err(format!(
                    "host '{}' must have exactly one attachment (a wired link or a cell), it has {}",
                    n.name,
                    wired + cells
                ));
            }
        }
        self.validate_handoffs()?;
        for c in &self.crashes {
            if !matches!(self.nodes[c.node].kind, NodeKind::BaseStation { .. }) {
                return Err(format!(
                    "crash: '{}' is a host; only base stations and routers crash",
                    self.nodes[c.node].name
                ));
            }
        }
        if self.flows.is_empty() {
            return Err("the network has no flows".into());
        }
        let routes = Routes::new(self);
        for (f, fl) in self.flows.iter().enumerate() {
            for (end, id) in [("from", fl.from), ("to", fl.to)] {
                if self.nodes[id].kind != NodeKind::Host {
                    return Err(format!(
                        "flow '{}': '{end}' node '{}' is not a host",
                        fl.name, self.nodes[id].name
                    ));
                }
            }
            if fl.from == fl.to {
                return Err(format!("flow '{}' goes from a host to itself", fl.name));
            }
            if routes.hop(fl.from, fl.to).is_none() {
                return Err(format!(
                    "flow '{}': no path from '{}' to '{}'",
                    fl.name, self.nodes[fl.from].name, self.nodes[fl.to].name
                ));
            }
            crate::scenario::check_tcp_settings(fl.mss, fl.buffer, fl.transfer)
                .map_err(|e| format!("flow '{}': {e}", fl.name))?;
            let (a, b) = self.endpoints(f);
            if self.flows[..f].iter().enumerate().any(|(g, _)| {
                let (c, d) = self.endpoints(g);
                a == c || b == d || a == d || b == c
            }) {
                return Err(format!(
                    "flow '{}' shares a TCP port with an earlier flow",
                    fl.name
                ));
            }
            for bs in routes.path(self, fl.from, fl.to) {
                if let NodeKind::BaseStation {
                    agent: AgentKind::Split { .. },
                    ..
                } = self.nodes[bs].kind
                {
                    let crossing = self
                        .flows
                        .iter()
                        .filter(|g| routes.path(self, g.from, g.to).contains(&bs))
                        .count();
                    if crossing > 1 {
                        return Err(format!(
                            "base station '{}' splits connections and can relay only one flow; {} cross it",
                            self.nodes[bs].name, crossing
                        ));
                    }
                    if !self.is_mobile(fl.to) {
                        return Err(format!(
                            "flow '{}': a split base station relays only towards its mobile hosts",
                            fl.name
                        ));
                    }
                }
            }
        }
        if self.max_time == 0 {
            return Err("max-time must be positive".into());
        }
        Ok(())
    }
}
