//! The memory a run of a network needs, estimated before anything of it is built, and the budget
//! it must fit: a network over it is refused up front with one line, never aborted half-built by
//! a failed allocation (DESIGN.md section 6: "a request that would need more than the machine has
//! is refused up front"). The formula and the measurements behind its constants are in
//! docs/networks.md ("Memory").

use super::{Network, NodeKind, Routes};

/// The memory a run may be estimated to need, bytes: 1 GiB, so that any network a scenario file
/// or a Python dict describes runs within about 1 GB of resident memory or is refused before it
/// is built (issue 49). Each per-item constant below is at least 1.5 times what was measured, so
/// an accepted run stays under it.
pub const MEMORY_BUDGET: u64 = 1 << 30;

/// Fixed cost of a run: the program, its tables and the description it was read from.
const BASE: u64 = 16 << 20;
/// Each node, of any kind: its description, its node in the run and its per-node tables
/// (1.44 KiB measured per mobile host with its station).
const PER_NODE: u64 = 2 << 10;
/// Each base station or router besides: its agent and its input queue (3.5 KiB measured per
/// router with its link).
const PER_FORWARDING_NODE: u64 = 2 << 10;
/// Each wired link: its two directions' transmitters and queues.
const PER_LINK: u64 = 1 << 10;
/// Each station of a cell: its two channels and its queue in the medium.
const PER_STATION: u64 = 1 << 10;
/// Each flow: its two TCP endpoints, its state and its results (5.2 KiB measured at its start,
/// 7.8 KiB over a whole run of 10,000 flows in one cell).
const PER_FLOW: u64 = 8 << 10;
/// Each packet a flow may have in flight: a packet's box and its place in a queue.
const PER_PACKET: u64 = 256;

/// What a run of a network is made of, as the estimate counts it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunSize {
    pub nodes: u64,
    /// Base stations and routers.
    pub forwarding_nodes: u64,
    pub links: u64,
    /// Stations of all cells.
    pub stations: u64,
    pub flows: u64,
    /// Packets all flows may have in flight at once: each flow's socket buffer in segments, and
    /// as many ACKs.
    pub packets: u64,
    /// Destinations the routes keep a table for ([`Routes::keys`]).
    pub route_tables: u64,
}

impl RunSize {
    /// The size of a run of `net`; linear in its nodes, links, stations and flows.
    pub fn of(net: &Network) -> RunSize {
        let stations: usize = net.cells.iter().map(|c| c.stations.len()).sum();
        RunSize {
            nodes: net.nodes.len() as u64,
            forwarding_nodes: net
                .nodes
                .iter()
                .filter(|n| n.kind != NodeKind::Host)
                .count() as u64,
            links: net.links.len() as u64,
            stations: stations as u64,
            flows: net.flows.len() as u64,
            packets: net
                .flows
                .iter()
                .map(|f| 2 * (u64::from(f.buffer).div_ceil(u64::from(f.mss.max(1))) + 1))
                .sum(),
            route_tables: Routes::key_count(net) as u64,
        }
    }

    /// At least the size of the network `t` describes, counted from its tables before their
    /// names are resolved (each route table and buffer at its least): a file this refuses, the
    /// full count would refuse too.
    pub(crate) fn at_least(t: &super::file::Tables) -> RunSize {
        let flows = t.flows.len() as u64;
        RunSize {
            nodes: t.nodes.len() as u64,
            forwarding_nodes: t
                .nodes
                .iter()
                .filter(|n| n.kind.as_deref().is_some_and(|k| k != "host"))
                .count() as u64,
            links: t.links.len() as u64,
            stations: t
                .cells
                .iter()
                .map(|c| (c.stations.len() + c.station.len()) as u64)
                .sum(),
            flows,
            // a buffer of at least one segment, and its ACK
            packets: 4 * flows,
            route_tables: u64::from(!t.flows.is_empty()),
        }
    }

    /// The estimate, bytes: every count times its cost, and the routes as they are stored.
    pub fn bytes(&self) -> u64 {
        let hops = 2 * (self.links + self.stations);
        BASE.saturating_add(self.nodes.saturating_mul(PER_NODE))
            .saturating_add(self.forwarding_nodes.saturating_mul(PER_FORWARDING_NODE))
            .saturating_add(self.links.saturating_mul(PER_LINK))
            .saturating_add(self.stations.saturating_mul(PER_STATION))
            .saturating_add(self.flows.saturating_mul(PER_FLOW))
            .saturating_add(self.packets.saturating_mul(PER_PACKET))
            .saturating_add(Routes::bytes(self.nodes, hops, self.route_tables))
    }

    /// `Ok` if the estimate is within `budget`; else the one line that says both.
    pub fn check(&self, budget: u64) -> Result<(), String> {
        let need = self.bytes();
        if need <= budget {
            return Ok(());
        }
        let mib = |b: u64| b.div_ceil(1 << 20);
        Err(format!(
            "the network needs an estimated {} MiB of memory, over the budget of {} MiB ({} nodes, \
             {} links, {} stations, {} flows, {} route tables; docs/networks.md, \"Memory\")",
            mib(need),
            mib(budget),
            self.nodes,
            self.links,
            self.stations,
            self.flows,
            self.route_tables
        ))
    }
}

impl Network {
    /// The memory a run of the network is estimated to need, bytes (docs/networks.md, "Memory").
    pub fn memory_estimate(&self) -> u64 {
        RunSize::of(self).bytes()
    }

    /// Refuses a network whose run would need more than `budget` bytes, before it is built.
    pub fn check_memory(&self, budget: u64) -> Result<(), String> {
        RunSize::of(self).check(budget)
    }
}
