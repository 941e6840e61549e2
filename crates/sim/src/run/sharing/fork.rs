//! Runs that share their start: networks that differ only in how many bytes their flows send
//! (paper 001's 1, 2, 4, 8 and 10 MB, a sweep over `--transfer`) are the same run, event for
//! event, until a sender of the smaller one is about to have its last bytes written: a bulk
//! application's byte count is read only then ([`Tcp::writes_alike`]). So the largest runs
//! once, and each smaller one is a copy of it taken where they part ([`Simulation::fork_as`]),
//! run on from there (`line.rs`). The results are those of separate runs to the bit, event
//! counts included; a test compares them (`sim/tests/fork.rs`).
//!
//! A run forks only if all of it can be copied: a host outside the engine, a host that hands off
//! (its mobility layer) or an agent that cannot be copied ([`Agent::fork`]) make the smaller
//! runs separate runs, with the same results.
//!
//! [`Tcp::writes_alike`]: snooplab_proto::tcp::Tcp::writes_alike
//! [`Agent::fork`]: snooplab_proto::agent::Agent::fork

use crate::job::Job;
use crate::network::{Flow, Network};
use crate::nodes::Role;
use crate::observer::{NoObserver, Observe};

use crate::run::Simulation;

/// Whether `a` and `b` are the same network but for their flows' transfers.
pub fn same_but_transfers(a: &Network, b: &Network) -> bool {
    let flow = |f: &Flow| Flow {
        transfer: 0,
        ..f.clone()
    };
    same_but_flows(a, b)
        && a.flows.len() == b.flows.len()
        && a.flows
            .iter()
            .zip(&b.flows)
            .all(|(f, g)| flow(f) == flow(g))
}

/// Whether `a` and `b` are the same network but for their flows.
pub fn same_but_flows(a: &Network, b: &Network) -> bool {
    a.handoffs == b.handoffs && same_but_flows_and_handoffs(a, b)
}

/// Whether `a` and `b` are the same network but for their flows and handoffs (every other field
/// compared: a field added to [`Network`] must be added here, or this does not compile).
pub(super) fn same_but_flows_and_handoffs(a: &Network, b: &Network) -> bool {
    let Network {
        nodes,
        links,
        cells,
        flows: _,
        handoffs: _,
        crashes,
        seed,
        max_time,
    } = a;
    *seed == b.seed
        && *max_time == b.max_time
        && *nodes == b.nodes
        && *links == b.links
        && *cells == b.cells
        && *crashes == b.crashes
}

/// Whether every flow of `small` sends at most what the same flow of `large` sends (two networks
/// [`same_but_transfers`]): then a run of `small` starts as a run of `large`.
pub fn sends_no_more(small: &Network, large: &Network) -> bool {
    small
        .flows
        .iter()
        .zip(&large.flows)
        .all(|(s, l)| s.transfer <= l.transfer)
}

/// Whether a run of `small` starts as a run of `large`: the same network but for transfers, none
/// larger in `small`.
pub(super) fn starts_as(small: &Network, large: &Network) -> bool {
    same_but_transfers(small, large) && sends_no_more(small, large)
}

/// The bytes all of `net`'s flows send: a family's largest run sends the most.
pub(super) fn sent(net: &Network) -> u64 {
    net.flows.iter().map(|f| f.transfer).sum()
}

/// For each flow, the least transfer the `waiting` jobs give it where it differs from the
/// largest's: the first place a waiting run parts from the largest.
pub(super) fn first_parting(
    waiting: &[usize],
    jobs: &[&Job],
    largest: &Network,
) -> Vec<Option<u64>> {
    (0..largest.flows.len())
        .map(|f| {
            waiting
                .iter()
                .map(|&j| jobs[j].network.flows[f].transfer)
                .filter(|&n| n != largest.flows[f].transfer)
                .min()
        })
        .collect()
}

impl<O: Observe> Simulation<O> {
    /// Whether this run so far, and through its next event, is also a run whose flows send
    /// `limits` (`None`: as much as here): [`Simulation::runs_alike`] for many runs at once.
    pub(super) fn writes_alike(&self, limits: &[Option<u64>]) -> bool {
        limits.iter().enumerate().all(|(f, n)| {
            n.is_none_or(|n| self.tcp(f, Role::Sender).is_none_or(|t| t.writes_alike(n)))
        })
    }
}

impl Simulation<NoObserver> {
    /// Whether this run so far, and through its next event, is also a run of `net` (a network
    /// [`same_but_transfers`] that [`sends_no_more`]): each flow sends as much in both, or its
    /// sender has not started, or it [`writes_alike`](snooplab_proto::tcp::Tcp::writes_alike).
    pub(super) fn runs_alike(&self, net: &Network) -> bool {
        (0..self.flows.len()).all(|f| {
            let n = net.flows[f].transfer;
            n == self.net.flows[f].transfer
                || self.tcp(f, Role::Sender).is_none_or(|t| t.writes_alike(n))
        })
    }

    /// A copy of this run as it stands, going on as a run of `net`, labelled `env`, where
    /// [`Simulation::runs_alike`] holds and the flows whose protocol differs in `net` add a
    /// policy point to this run's that would not have acted in them yet (`line.rs`); `None` if
    /// part of it cannot be copied.
    pub(super) fn fork_as(&self, net: &Network, env: &str) -> Option<Simulation> {
        let nodes = self
            .nodes
            .iter()
            .map(|n| n.fork())
            .collect::<Option<Vec<_>>>()?;
        let in_transit = self
            .in_transit
            .iter()
            .map(|s| match s {
                Some((to, agent)) => agent.fork().map(|a| Some((*to, a))),
                None => Some(None),
            })
            .collect::<Option<Vec<_>>>()?;
        let mut fork = Simulation {
            net: net.clone(),
            routes: self.routes.clone(),
            addrs: self.addrs.clone(),
            now: self.now,
            queue: self.queue.clone(),
            nodes,
            links: self.links.clone(),
            in_flight: self.in_flight.clone(),
            cells: self.cells.clone(),
            node_cells: self.node_cells.clone(),
            roaming: self.roaming.clone(),
            cards: self.cards.clone(),
            recipes: self.recipes.clone(),
            air_group: self.air_group.clone(),
            air_hold: self.air_hold,
            in_transit,
            decisions_seen: self.decisions_seen.clone(),
            state_transfers: self.state_transfers.clone(),
            flows: self.flows.clone(),
            senders_on: self.senders_on.clone(),
            receivers_on: self.receivers_on.clone(),
            scratch: Vec::new(),
            endpoints: self.endpoints.clone(),
            pending: self.pending.clone(),
            events: self.events,
            capped: self.capped,
            inv: self.inv.clone(),
            env: env.to_string(),
            obs: NoObserver,
            progress: None,
            ended: self.ended,
            hosts_ran: self.hosts_ran,
            witness_fired: self.witness_fired,
            buffer_asked: self.buffer_asked,
        };
        for (f, flow) in net.flows.iter().enumerate() {
            let adds = flow.protocol.addition_to(self.net.flows[f].protocol);
            debug_assert!(adds.is_some() || flow.protocol == self.net.flows[f].protocol);
            if let Some(cfg) = fork.pending[f].as_mut() {
                cfg.app_bytes = flow.transfer;
                cfg.policy = adds.map_or(cfg.policy, |a| a.to(cfg.policy));
            }
            let (node, conn) = (fork.flows[f].sender, fork.flows[f].sender_conn);
            if let Some(c) = conn.and_then(|c| fork.nodes[node].host_mut()?.conns.get_mut(c)) {
                c.tcp.set_app_bytes(flow.transfer);
                if let Some(a) = adds {
                    c.tcp.add(a);
                }
            }
        }
        Some(fork)
    }
}
