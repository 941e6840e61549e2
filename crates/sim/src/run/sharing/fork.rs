//! Runs that share their start: networks that differ only in how many bytes their flows send
//! (paper 001's 1, 2, 4, 8 and 10 MB, a sweep over `--transfer`) are the same run, event for
//! event, until a sender of the smaller one is about to have its last bytes written: a bulk
//! application's byte count is read only then ([`SharingHook::writes_alike`]). So the largest
//! runs once, and each smaller one is a copy of it taken where they part
//! ([`Simulation::fork_as`]: a clone of the run, and the change), run on from there (`line.rs`).
//! The results are those of separate runs to the bit, event counts included; a test compares
//! them (`sim/tests/fork.rs`).
//!
//! A run with a host outside the engine never forks (a copy would not hold the real host's
//! state): its smaller runs are separate runs, with the same results.

use snooplab_proto::tcp::SharingHook;

use crate::job::Job;
use crate::network::{Flow, Network};
use crate::nodes::{Role, SimNode};
use crate::observer::{NoObserver, Observe};

use crate::run::Simulation;

/// Whether `a` and `b` are the same network but for their flows' transfers.
pub(crate) fn same_but_transfers(a: &Network, b: &Network) -> bool {
    let flow = |f: &Flow| Flow {
        transfer: 0,
        ..f.clone()
    };
    // (a workload flow's pages are not its transfer: runs with one share nothing)
    same_but_flows(a, b)
        && a.flows.len() == b.flows.len()
        && a.flows.iter().all(|f| f.workload.is_bulk())
        && a.flows
            .iter()
            .zip(&b.flows)
            .all(|(f, g)| flow(f) == flow(g))
}

/// Whether `a` and `b` are the same network but for their flows (every other field compared: a
/// field added to [`Network`] must be added here, or this does not compile).
pub(crate) fn same_but_flows(a: &Network, b: &Network) -> bool {
    let Network {
        nodes,
        links,
        cells,
        flows: _,
        handoffs,
        crashes,
        seed,
        max_time,
    } = a;
    *seed == b.seed
        && *max_time == b.max_time
        && *nodes == b.nodes
        && *links == b.links
        && *cells == b.cells
        && *handoffs == b.handoffs
        && *crashes == b.crashes
}

/// Whether every flow of `small` sends at most what the same flow of `large` sends (two networks
/// [`same_but_transfers`]): then a run of `small` starts as a run of `large`.
pub(crate) fn sends_no_more(small: &Network, large: &Network) -> bool {
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
    /// sender has not started, or it [`writes_alike`](SharingHook::writes_alike).
    pub(super) fn runs_alike(&self, net: &Network) -> bool {
        (0..self.state.flows.len()).all(|f| {
            let n = net.flows[f].transfer;
            n == self.topo.net.flows[f].transfer
                || self.tcp(f, Role::Sender).is_none_or(|t| t.writes_alike(n))
        })
    }

    /// A copy of this run as it stands, going on as a run of `net`, labelled `env`, where
    /// [`Simulation::runs_alike`] holds and the flows whose protocol differs in `net` add a
    /// policy point to this run's that would not have acted in them yet (`line.rs`): a clone,
    /// and the change. `None` for a run with a host outside the engine, whose state a copy does
    /// not hold.
    pub(super) fn fork_as(&self, net: &Network, env: &str) -> Option<Simulation> {
        if !self.state.nodes.iter().all(SimNode::is_in_engine) {
            return None;
        }
        let mut fork = self.clone();
        fork.topo.net = net.clone();
        fork.topo.env = env.to_string();
        for (f, flow) in net.flows.iter().enumerate() {
            let adds = flow.protocol.addition_to(self.topo.net.flows[f].protocol);
            debug_assert!(adds.is_some() || flow.protocol == self.topo.net.flows[f].protocol);
            if let Some(cfg) = fork.state.pending[f].as_mut() {
                cfg.app_bytes = flow.transfer;
                cfg.policy = adds.map_or(cfg.policy, |a| a.to(cfg.policy));
            }
            let (node, conn) = (fork.state.flows[f].sender, fork.state.flows[f].sender_conn);
            let host = fork.state.nodes[node].host_mut();
            if let Some(c) = conn.and_then(|c| host?.conns.get_mut(c)) {
                c.tcp.go_on_as(flow.transfer, adds);
            }
        }
        Some(fork)
    }
}
