//! Static routes: for every node and destination host, the next hop on a shortest path. Hosts do not
//! forward; base stations do. Ties go to the lower-numbered link or cell, so routes never depend on
//! anything but the description.

use std::collections::VecDeque;

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

/// Next hops of every node towards every node.
#[derive(Clone, Debug)]
pub struct Routes {
    /// Nodes in the network.
    n: usize,
    /// `next[node * n + dest]`
    next: Vec<Option<Hop>>,
    /// `next_node[node][dest]`: the node the hop leads to.
    next_node: Vec<Vec<Option<NodeId>>>,
}

/// The hops out of `node`, in a fixed order, and the nodes they reach.
fn neighbours(net: &Network, node: NodeId) -> Vec<(Hop, NodeId)> {
    let mut out = vec![];
    for (l, link) in net.links.iter().enumerate() {
        if link.ends[0] == node {
            out.push((Hop::Link { link: l, dir: 0 }, link.ends[1]));
        } else if link.ends[1] == node {
            out.push((Hop::Link { link: l, dir: 1 }, link.ends[0]));
        }
    }
    for (c, cell) in net.cells.iter().enumerate() {
        if cell.base_station == node {
            for (i, s) in cell.stations.iter().enumerate() {
                out.push((
                    Hop::Cell {
                        cell: c,
                        from: BASE_STATION,
                        to: i + 1,
                    },
                    s.node,
                ));
            }
        } else if let Some(i) = cell.stations.iter().position(|s| s.node == node) {
            out.push((
                Hop::Cell {
                    cell: c,
                    from: i + 1,
                    to: BASE_STATION,
                },
                cell.base_station,
            ));
        }
    }
    out
}

impl Routes {
    pub fn new(net: &Network) -> Routes {
        let n = net.nodes.len();
        let adj: Vec<Vec<(Hop, NodeId)>> = (0..n).map(|i| neighbours(net, i)).collect();
        let mut next = vec![None; n * n];
        let mut next_node = vec![vec![None; n]; n];
        for src in 0..n {
            // breadth first from src; the first hop that reached each node is its route
            let mut first: Vec<Option<(Hop, NodeId)>> = vec![None; n];
            let mut seen = vec![false; n];
            seen[src] = true;
            let mut q = VecDeque::new();
            for &(hop, to) in &adj[src] {
                if !seen[to] {
                    seen[to] = true;
                    first[to] = Some((hop, to));
                    q.push_back(to);
                }
            }
            while let Some(u) = q.pop_front() {
                // only base stations forward
                if net.nodes[u].kind == NodeKind::Host {
                    continue;
                }
                for &(_, to) in &adj[u] {
                    if !seen[to] {
                        seen[to] = true;
                        first[to] = first[u];
                        q.push_back(to);
                    }
                }
            }
            for dest in 0..n {
                if let Some((hop, via)) = first[dest] {
                    next[src * n + dest] = Some(hop);
                    next_node[src][dest] = Some(via);
                }
            }
        }
        Routes { n, next, next_node }
    }

    /// The next hop from `node` towards `dest`; `None` if there is no path.
    pub fn hop(&self, node: NodeId, dest: NodeId) -> Option<Hop> {
        if node >= self.n || dest >= self.n {
            return None;
        }
        self.next[node * self.n + dest]
    }

    /// The nodes a packet from `from` to `to` passes between them (the base stations and routers).
    pub fn path(&self, net: &Network, from: NodeId, to: NodeId) -> Vec<NodeId> {
        let mut out = vec![];
        let mut at = from;
        for _ in 0..net.nodes.len() {
            let Some(next) = self.next_node[at][to] else {
                break;
            };
            if next == to {
                break;
            }
            out.push(next);
            at = next;
        }
        out
    }
}
