//! Routes of generated networks (chains, cells, trees with cycles, multi-homed and roaming hosts)
//! against the breadth-first search from each source that `Routes` replaced, kept here as the
//! reference; and the memory budget: an estimate within it, or the network refused before it is
//! built (docs/networks.md, "Memory").

use std::collections::VecDeque;

use proptest::prelude::*;
use snooplab_sim::medium::BASE_STATION;
use snooplab_sim::network::budget::RunSize;
use snooplab_sim::network::{Hop, Network, NodeId, NodeKind, Routes, MEMORY_BUDGET};
use snooplab_sim::scenario::{default_scenario, Scenario};

/// The reference: the hops out of `node` as the old `Routes` found them, scanning every link and
/// every cell's stations.
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

/// The reference: breadth first from `src`, the first hop that reached each node is its route.
fn bfs_from(net: &Network, adj: &[Vec<(Hop, NodeId)>], src: NodeId) -> Vec<Option<(Hop, NodeId)>> {
    let n = net.nodes.len();
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
    first
}

/// The reference's path: the far nodes of the hops from `from` towards `to`, `to` left out.
fn reference_path(
    net: &Network,
    adj: &[Vec<(Hop, NodeId)>],
    from: NodeId,
    to: NodeId,
) -> Vec<NodeId> {
    let mut out = vec![];
    let mut at = from;
    for _ in 0..net.nodes.len() {
        let Some((_, next)) = bfs_from(net, adj, at)[to] else {
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

/// A small deterministic generator (splitmix64), so a case is its seed.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// A network built from paper 000's testbed's parts: its host, base station, link, station and
/// flow, copied and rewired.
struct Builder {
    net: Network,
    template: Network,
}

impl Builder {
    fn new() -> Builder {
        let template = Network::paper000(&default_scenario());
        let mut net = template.clone();
        net.nodes.clear();
        net.links.clear();
        net.cells.clear();
        net.flows.clear();
        Builder { net, template }
    }

    fn node(&mut self, forwarding: bool) -> NodeId {
        let i = self.net.nodes.len();
        let mut n = self.template.nodes[usize::from(forwarding)].clone();
        n.name = format!("n{i}");
        n.addr = 0x0a00_0001 + i as u32;
        self.net.nodes.push(n);
        i
    }

    fn link(&mut self, a: NodeId, b: NodeId) {
        let mut l = self.template.links[0].clone();
        l.name = format!("l{}", self.net.links.len());
        l.ends = [a, b];
        self.net.links.push(l);
    }

    /// A cell of `bs` (a new one, or its existing one) gets station `node`.
    fn station(&mut self, bs: NodeId, node: NodeId) {
        let c = match self.net.cells.iter().position(|c| c.base_station == bs) {
            Some(c) => c,
            None => {
                let mut cell = self.template.cells[0].clone();
                cell.name = format!("c{}", self.net.cells.len());
                cell.base_station = bs;
                cell.stations.clear();
                self.net.cells.push(cell);
                self.net.cells.len() - 1
            }
        };
        let mut s = self.template.cells[0].stations[0].clone();
        s.node = node;
        self.net.cells[c].stations.push(s);
    }

    fn flow(&mut self, from: NodeId, to: NodeId) {
        let i = self.net.flows.len();
        let mut f = self.template.flows[0].clone();
        f.name = format!("flow{i}");
        f.from = from;
        f.to = to;
        self.net.flows.push(f);
    }
}

/// A random network of `routers` routers (a random tree of links, `extra` more links making
/// cycles and ties, some with cells) and `hosts` hosts attached in every way the routes must
/// handle: by a link, as a station, to two routers, as a station listed twice, to another host;
/// with `flows` flows between random hosts. Node numbers are shuffled so that ties are not
/// decided by them.
fn random_network(seed: u64, routers: usize, hosts: usize, extra: usize, flows: usize) -> Network {
    let mut g = Gen(seed);
    let mut b = Builder::new();
    let total = routers + hosts;
    // node i of the plan is node order[i] of the network
    let mut order: Vec<usize> = (0..total).collect();
    for i in (1..total).rev() {
        order.swap(i, g.below(i + 1));
    }
    let mut ids = vec![0; total];
    for &plan in &order {
        ids[plan] = b.node(plan < routers);
    }
    let r = |k: usize| ids[k];
    let h = |k: usize| ids[routers + k];
    for k in 1..routers {
        let p = g.below(k);
        b.link(r(p), r(k));
    }
    for _ in 0..extra {
        let (x, y) = (g.below(routers), g.below(routers));
        if x != y {
            b.link(r(x), r(y));
        }
    }
    for k in 0..hosts {
        let (x, y) = (r(g.below(routers)), r(g.below(routers)));
        match g.below(10) {
            0..=3 => b.link(x, h(k)),
            4..=6 => b.station(x, h(k)),
            7 => {
                b.link(x, h(k));
                b.station(y, h(k));
            }
            8 => {
                b.station(x, h(k));
                b.station(x, h(k));
            }
            _ if k > 0 => b.link(h(g.below(k)), h(k)),
            _ => b.link(x, h(k)),
        }
    }
    for _ in 0..flows {
        let (x, y) = (g.below(hosts), g.below(hosts));
        b.flow(h(x), h(y));
    }
    b.net
}

/// Routers in a chain, a host at each end, one flow between them.
fn chain(len: usize) -> Network {
    let mut b = Builder::new();
    let a = b.node(false);
    let first = b.node(true);
    b.link(a, first);
    let mut last = first;
    for _ in 1..len {
        let r = b.node(true);
        b.link(last, r);
        last = r;
    }
    let z = b.node(false);
    b.link(last, z);
    b.flow(a, z);
    b.net
}

/// One base station with `stations` mobile hosts and a fixed host, a flow to each of `flows`
/// random ones and back.
fn cell(stations: usize, flows: usize, seed: u64) -> Network {
    let mut g = Gen(seed);
    let mut b = Builder::new();
    let fh = b.node(false);
    let bs = b.node(true);
    b.link(fh, bs);
    let first = b.net.nodes.len();
    for _ in 0..stations {
        let m = b.node(false);
        b.station(bs, m);
    }
    for k in 0..flows {
        let m = first + g.below(stations);
        if k % 2 == 0 {
            b.flow(fh, m);
        } else {
            b.flow(m, fh);
        }
    }
    b.net
}

/// Every node's hop and path towards every node, against the reference.
fn assert_all_pairs(net: &Network) {
    let routes = Routes::new(net);
    let n = net.nodes.len();
    let adj: Vec<_> = (0..n).map(|i| neighbours(net, i)).collect();
    for src in 0..n {
        let first = bfs_from(net, &adj, src);
        for (dest, want) in first.iter().enumerate() {
            assert_eq!(
                routes.hop(src, dest),
                want.map(|(hop, _)| hop),
                "hop from {src} to {dest}"
            );
        }
    }
    for f in &net.flows {
        assert_eq!(
            routes.path(net, f.from, f.to),
            reference_path(net, &adj, f.from, f.to),
            "path from {} to {}",
            f.from,
            f.to
        );
    }
}

/// The flows' hops at every node of their paths, and both ways, against the reference: for large
/// networks, where all pairs would take too long.
fn assert_flows(net: &Network) {
    let routes = Routes::new(net);
    let n = net.nodes.len();
    let adj: Vec<_> = (0..n).map(|i| neighbours(net, i)).collect();
    for f in net.flows.iter().take(8) {
        for (from, to) in [(f.from, f.to), (f.to, f.from)] {
            let path = routes.path(net, from, to);
            for &at in std::iter::once(&from).chain(&path) {
                let want = bfs_from(net, &adj, at)[to].map(|(hop, _)| hop);
                assert_eq!(routes.hop(at, to), want, "hop from {at} to {to}");
            }
        }
    }
}

/// The budget's verdict is the estimate's, and a network within it has no more route tables
/// than the estimate counted.
fn assert_budget(net: &Network) {
    let size = RunSize::of(net);
    let within = size.bytes() <= MEMORY_BUDGET;
    assert_eq!(net.check_memory(MEMORY_BUDGET).is_ok(), within);
    if within {
        assert_eq!(Routes::new(net).table_count() as u64, size.route_tables);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn small_networks_route_as_breadth_first_from_the_source(
        seed in any::<u64>(),
        routers in 1usize..10,
        hosts in 1usize..20,
        extra in 0usize..6,
        flows in 1usize..8,
    ) {
        let net = random_network(seed, routers, hosts, extra, flows);
        assert_all_pairs(&net);
        assert_budget(&net);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6))]

    #[test]
    fn large_networks_route_as_breadth_first_from_the_source(
        seed in any::<u64>(),
        shape in 0usize..3,
        size in 500usize..3000,
    ) {
        let net = match shape {
            0 => chain(size),
            1 => cell(size, 40, seed),
            _ => random_network(seed, size / 2, size / 2, size / 20, 20),
        };
        assert_flows(&net);
        assert_budget(&net);
    }
}

/// A network whose route tables alone would pass the budget: a chain of routers, each with a host
/// that sends to the next router's. Refused from its counts, without a table being built.
#[test]
fn a_network_whose_route_tables_pass_the_budget_is_refused() {
    let mut b = Builder::new();
    let routers = 12_000;
    let mut hosts = vec![];
    let mut last = None;
    for _ in 0..routers {
        let r = b.node(true);
        if let Some(l) = last {
            b.link(l, r);
        }
        last = Some(r);
        let h = b.node(false);
        b.link(r, h);
        hosts.push(h);
    }
    for w in hosts.windows(2) {
        b.flow(w[0], w[1]);
    }
    let size = RunSize::of(&b.net);
    assert_eq!(size.route_tables, routers as u64);
    assert!(size.bytes() > MEMORY_BUDGET, "{size:?}: {}", size.bytes());
    let err = b.net.validate().expect_err("over the budget");
    assert!(err.contains("over the budget of 1024 MiB"), "{err}");
    assert!(!err.contains('\n'), "{err}");
    // the same network with one flow has two tables, and fits
    b.net.flows.truncate(1);
    assert_eq!(RunSize::of(&b.net).route_tables, 2);
    assert_eq!(b.net.check_memory(MEMORY_BUDGET), Ok(()));
}

/// A file of 100,000 flows is refused from its tables' counts, before its names are resolved, as
/// the command line and Python read it (Python's `ValueError` is this message).
#[test]
fn a_file_of_a_hundred_thousand_flows_is_refused_before_it_is_resolved() {
    let mut text =
        String::from("[[node]]\nname = \"fh\"\n[[node]]\nname = \"bs\"\nkind = \"base-station\"\n");
    let stations = 50_000;
    for i in 0..stations {
        text.push_str(&format!("[[node]]\nname = \"m{i}\"\n"));
    }
    text.push_str(
        "[[link]]\nbetween = [\"fh\", \"bs\"]\n[[cell]]\nbase-station = \"bs\"\nstations = [",
    );
    for i in 0..stations {
        text.push_str(&format!("\"m{i}\","));
    }
    text.push_str("]\n");
    for i in 0..100_000 {
        text.push_str(&format!(
            "[[flow]]\nfrom = \"fh\"\nto = \"m{}\"\n",
            i % stations
        ));
    }
    let err = Scenario::from_toml(&text).expect_err("over the budget");
    assert!(err.contains("over the budget"), "{err}");
    assert!(err.contains("100000 flows"), "{err}");
}

/// Every example file fits the budget with room to spare.
#[test]
fn the_examples_fit_the_budget() {
    let dir = format!("{}/../../examples", env!("CARGO_MANIFEST_DIR"));
    let mut seen = 0;
    for e in std::fs::read_dir(dir).expect("examples") {
        let path = e.expect("an entry").path();
        if path.extension().is_some_and(|x| x == "toml") {
            let text = std::fs::read_to_string(&path).expect("readable");
            // (an example whose channel trace is named relative to the examples is left out)
            let Ok(sc) = Scenario::from_toml(&text) else {
                continue;
            };
            let bytes = sc.network().memory_estimate();
            assert!(bytes < MEMORY_BUDGET / 16, "{}: {bytes}", path.display());
            seen += 1;
        }
    }
    assert!(seen > 5);
}
