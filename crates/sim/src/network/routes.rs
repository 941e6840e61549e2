//! Static routes: for every node and destination, the next hop on a shortest path. Hosts do not
//! forward; base stations and routers do. Ties go to the lower-numbered link or cell, so routes never
//! depend on anything but the description.
//!
//! The rule, exactly: a node's hops, in order, are its wired links by link index, then its cells by
//! cell index (as a base station, one hop to each station in station order; as a station, one hop
//! to the base station); a breadth-first search from the source over these hops, in this order,
//! expanding only forwarding nodes, reaches each node first along its route. Equivalently, which is
//! how it is computed: the source's next hop towards `dest` is the first of its hops whose far node
//! is `dest`, or is a forwarding node one hop nearer `dest` than the source (nearer over paths
//! whose nodes between their ends all forward). So one breadth-first search back from each
//! destination (its distances, linear in nodes and links) and a scan of each node's hops give every
//! node's next hop towards it.
//!
//! Memory is linear in nodes and links, plus one table of a `u32` per node for each destination the
//! run routes to (`Routes::keys`): every host with a single attachment shares the table of the node
//! it attaches to (every path to it ends with that hop), so a cell of thousands of mobile hosts
//! needs the one table of its base station. A destination nothing was computed for (a packet a host
//! outside the engine addressed to a node no flow ends at) is searched for when asked, at the cost
//! of one search per hop, and gets the same answer.

use super::{CellId, LinkId, Network, NodeId, NodeKind};
use crate::medium::{StationId, BASE_STATION};

/// Where a node sends a packet next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hop {
    /// Over a wired link, in direction `dir` (0: from `ends[0]` to `ends[1]`).
    Link { link: LinkId, dir: usize },
    /// Over a cell's medium, from one station to another.
    Cell {
        cell: CellId,
        from: StationId,
        to: StationId,
    },
}

impl Hop {
    /// The same hop taken the other way.
    fn reversed(self) -> Hop {
        match self {
            Hop::Link { link, dir } => Hop::Link { link, dir: 1 - dir },
            Hop::Cell { cell, from, to } => Hop::Cell {
                cell,
                from: to,
                to: from,
            },
        }
    }
}

/// No hop (no path), no table, no node.
const NONE: u32 = u32::MAX;

/// How a node is routed to.
#[derive(Clone, Copy, Debug)]
struct Dest {
    /// The table of routes towards it (its own, or its attachment's), `NONE` if none was computed.
    table: u32,
    /// The forwarding node it attaches to by its only hop (`Routes::attachment`), or `NONE`.
    via: u32,
}

/// Next hops of every node towards the destinations a run routes to, and towards any other on
/// demand.
#[derive(Clone, Debug)]
pub struct Routes {
    /// `hops[start[x]..start[x + 1]]`: the hops out of node `x`, in the order of the rule, with
    /// the nodes they reach.
    start: Vec<u32>,
    hops: Vec<(Hop, NodeId)>,
    /// Whether each node forwards (is not a host).
    forwards: Vec<bool>,
    /// How each node is routed to.
    dests: Vec<Dest>,
    /// The tables, one after the other, a node's entry each: its next hop towards the table's
    /// destination as an index in `hops`, `NONE` where it has no path.
    tables: Vec<u32>,
    /// (address, node), sorted: the node a packet's destination address names.
    by_addr: Vec<(u32, u32)>,
    /// In a network of at most [`DENSE_NODES`] nodes (every paper's), every (node, destination)'s
    /// step as [`Routes::step`] finds it through the tables, at `node * n + dest`: the same
    /// answers with one load per packet instead of three dependent ones (bench 1.025x
    /// instructions without it). Empty in a larger network, whose memory stays linear.
    dense: Vec<Option<(Hop, NodeId)>>,
}

/// The most nodes a network may have for [`Routes`] to keep every step in one dense table:
/// 64 x 64 entries of 40 bytes, 160 KiB at most, a constant against the budget's 16 MiB base.
const DENSE_NODES: usize = 64;

/// Every node's hops in the rule's order, built in one pass over links and cells: `(start, hops)`
/// as in [`Routes`].
fn adjacency(net: &Network) -> (Vec<u32>, Vec<(Hop, NodeId)>) {
    let n = net.nodes.len();
    let mut out: Vec<Vec<(Hop, NodeId)>> = vec![Vec::new(); n];
    for (l, link) in net.links.iter().enumerate() {
        let [a, b] = link.ends;
        out[a].push((Hop::Link { link: l, dir: 0 }, b));
        if b != a {
            out[b].push((Hop::Link { link: l, dir: 1 }, a));
        }
    }
    // the cell a node last got its station hop in: a station listed twice goes by its first place
    let mut seen_in = vec![usize::MAX; n];
    for (c, cell) in net.cells.iter().enumerate() {
        let bs = cell.base_station;
        for (i, s) in cell.stations.iter().enumerate() {
            out[bs].push((
                Hop::Cell {
                    cell: c,
                    from: BASE_STATION,
                    to: i + 1,
                },
                s.node,
            ));
            if s.node != bs && seen_in[s.node] != c {
                seen_in[s.node] = c;
                out[s.node].push((
                    Hop::Cell {
                        cell: c,
                        from: i + 1,
                        to: BASE_STATION,
                    },
                    bs,
                ));
            }
        }
    }
    let mut start = Vec::with_capacity(n + 1);
    let mut hops = Vec::with_capacity(out.iter().map(Vec::len).sum());
    for o in out {
        start.push(hops.len() as u32);
        hops.extend(o);
    }
    start.push(hops.len() as u32);
    (start, hops)
}

impl Routes {
    pub fn new(net: &Network) -> Routes {
        let mut r = Routes::without_tables(net);
        let keys = r.keys(net);
        r.tables.reserve_exact(keys.len() * r.dests.len());
        for (k, &key) in keys.iter().enumerate() {
            r.dests[key].table = k as u32;
            let t = r.table(key);
            r.tables.extend(t);
        }
        for d in 0..r.dests.len() {
            let via = r.dests[d].via;
            if via != NONE {
                r.dests[d].table = r.dests[via as usize].table;
            }
        }
        let n = r.dests.len();
        if n <= DENSE_NODES {
            let dense = (0..n * n).map(|i| r.step_by_tables(i / n, i % n)).collect();
            r.dense = dense;
        }
        r
    }

    /// How many destination tables [`Routes::new`] keeps for `net` (for the memory budget, before
    /// any is computed).
    pub(crate) fn key_count(net: &Network) -> usize {
        Routes::without_tables(net).keys(net).len()
    }

    /// The hops and the address index, every destination left to be searched for.
    fn without_tables(net: &Network) -> Routes {
        let (start, hops) = adjacency(net);
        let n = net.nodes.len();
        let mut by_addr: Vec<(u32, u32)> = net
            .nodes
            .iter()
            .enumerate()
            .map(|(i, node)| (node.addr, i as u32))
            .collect();
        by_addr.sort_unstable();
        let mut r = Routes {
            start,
            hops,
            forwards: net.nodes.iter().map(|x| x.kind != NodeKind::Host).collect(),
            dests: vec![
                Dest {
                    table: NONE,
                    via: NONE
                };
                n
            ],
            tables: Vec::new(),
            by_addr,
            dense: Vec::new(),
        };
        for d in 0..n {
            r.dests[d].via = r.attachment(d).map_or(NONE, |a| a as u32);
        }
        r
    }

    /// The destinations whose tables a run of `net` needs, each once: what its flows' ends and
    /// its handoffs' nodes (mobile hosts, home agents, base stations) route to. Their number is
    /// the routes' share of the memory budget (`budget.rs`).
    fn keys(&self, net: &Network) -> Vec<NodeId> {
        let n = self.dests.len();
        let mut taken = vec![false; n];
        let mut out = vec![];
        let flows = net.flows.iter().flat_map(|f| [f.from, f.to]);
        let handoffs = net.handoffs.iter().flat_map(|h| {
            [h.mobile, h.home_agent]
                .into_iter()
                .chain(h.base_stations.iter().copied())
        });
        for d in flows.chain(handoffs).filter(|&d| d < n) {
            let key = self.key_of(d);
            if !taken[key] {
                taken[key] = true;
                out.push(key);
            }
        }
        out
    }

    /// The hops out of `x`.
    fn hops_of(&self, x: NodeId) -> &[(Hop, NodeId)] {
        &self.hops[self.start[x] as usize..self.start[x + 1] as usize]
    }

    /// A node with one hop, to a forwarding node: every path to it ends with that hop, so it is
    /// routed to as that node is, and that node's hop to it is its own reversed (the node being
    /// reached by no other hop).
    fn attachment(&self, d: NodeId) -> Option<NodeId> {
        match self.hops_of(d) {
            &[(_, a)] if a != d && self.forwards[a] => Some(a),
            _ => None,
        }
    }

    /// The node whose table routes to `dest`.
    fn key_of(&self, dest: NodeId) -> NodeId {
        self.attachment(dest).unwrap_or(dest)
    }

    /// Every node's next hop towards `key` (as in [`Routes::tables`]): a breadth-first search back
    /// from `key` through forwarding nodes, then each node's first hop to a node one nearer.
    fn table(&self, key: NodeId) -> Vec<u32> {
        let n = self.dests.len();
        let mut dist = vec![NONE; n];
        let mut order = Vec::with_capacity(n);
        dist[key] = 0;
        order.push(key as u32);
        let mut i = 0;
        while let Some(&u) = order.get(i) {
            i += 1;
            let u = u as usize;
            // only the destination and forwarding nodes are passed through
            if u != key && !self.forwards[u] {
                continue;
            }
            for &(_, v) in self.hops_of(u) {
                if dist[v] == NONE {
                    dist[v] = dist[u] + 1;
                    order.push(v as u32);
                }
            }
        }
        drop(order);
        let mut next = vec![NONE; n];
        for (x, slot) in next.iter_mut().enumerate() {
            if x == key || dist[x] == NONE {
                continue;
            }
            let nearer = dist[x] - 1;
            *slot = self
                .hops_of(x)
                .iter()
                .position(|&(_, v)| dist[v] == nearer && (v == key || self.forwards[v]))
                .map_or(NONE, |p| self.start[x] + p as u32);
        }
        next
    }

    /// `node`'s next hop towards a destination nothing was computed for: searched for now.
    #[cold]
    fn searched(&self, node: NodeId, dest: NodeId) -> u32 {
        self.table(self.key_of(dest))[node]
    }

    /// The next hop from `node` towards `dest` and the node it reaches.
    #[inline(always)]
    fn step(&self, node: NodeId, dest: NodeId) -> Option<(Hop, NodeId)> {
        if !self.dense.is_empty() {
            let n = self.dests.len();
            if node >= n || dest >= n {
                return None;
            }
            return self.dense[node * n + dest];
        }
        self.step_by_tables(node, dest)
    }

    /// [`Routes::step`] through the destination tables (and a search where `dest` has none).
    #[inline(always)]
    fn step_by_tables(&self, node: NodeId, dest: NodeId) -> Option<(Hop, NodeId)> {
        let n = self.dests.len();
        if node == dest || node >= n {
            return None;
        }
        let d = *self.dests.get(dest)?;
        if d.table != NONE {
            let i = self.tables[d.table as usize * n + node];
            if i != NONE {
                return Some(self.hops[i as usize]);
            }
        }
        if node as u32 == d.via {
            // the node `dest` attaches to: `dest`'s only hop, the other way
            let (hop, _) = self.hops[self.start[dest] as usize];
            return Some((hop.reversed(), dest));
        }
        if d.table != NONE {
            return None;
        }
        match self.searched(node, dest) {
            NONE => None,
            i => Some(self.hops[i as usize]),
        }
    }

    /// The next hop from `node` towards `dest`; `None` if there is no path.
    #[inline]
    pub fn hop(&self, node: NodeId, dest: NodeId) -> Option<Hop> {
        self.step(node, dest).map(|(hop, _)| hop)
    }

    /// The nodes a packet from `from` to `to` passes between them (the base stations and routers).
    pub fn path(&self, net: &Network, from: NodeId, to: NodeId) -> Vec<NodeId> {
        self.path_nodes(net, from, to).collect()
    }

    /// [`Routes::path`] one node at a time, nothing allocated (the live engine's observer asks
    /// it after every packet a base station sends).
    pub fn path_nodes<'a>(
        &'a self,
        net: &Network,
        from: NodeId,
        to: NodeId,
    ) -> impl Iterator<Item = NodeId> + 'a {
        let mut at = from;
        let mut hops_left = net.nodes.len();
        std::iter::from_fn(move || {
            let next = self.step(at, to).map(|(_, next)| next);
            match next.filter(|&n| hops_left > 0 && n != to) {
                Some(n) => {
                    hops_left -= 1;
                    at = n;
                    Some(n)
                }
                None => {
                    hops_left = 0;
                    None
                }
            }
        })
    }

    /// How many destinations have a table.
    pub fn table_count(&self) -> usize {
        self.tables.len() / self.dests.len().max(1)
    }

    /// The node with address `addr` (the first, should two have it).
    #[inline]
    pub(crate) fn node_at(&self, addr: u32) -> Option<NodeId> {
        if self.by_addr.len() <= 8 {
            // a handful of nodes (every paper's testbed): a scan is quicker than a search
            return self
                .by_addr
                .iter()
                .find(|&&(a, _)| a == addr)
                .map(|&(_, node)| node as usize);
        }
        let i = self.by_addr.partition_point(|&(a, _)| a < addr);
        match self.by_addr.get(i) {
            Some(&(a, node)) if a == addr => Some(node as usize),
            _ => None,
        }
    }

    /// Bytes the routes of `nodes` nodes, `hops` hops (two per link and per station) and `keys`
    /// destination tables take: what the budget counts for them.
    pub fn bytes(nodes: u64, hops: u64, keys: u64) -> u64 {
        use std::mem::size_of;
        let per_node =
            size_of::<u32>() + size_of::<bool>() + size_of::<Dest>() + size_of::<(u32, u32)>();
        let per_hop = size_of::<(Hop, NodeId)>();
        nodes * per_node as u64 + hops * per_hop as u64 + keys * nodes * size_of::<u32>() as u64
    }
}
