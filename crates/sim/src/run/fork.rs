//! Runs that share their start: networks that differ only in how many bytes their flows send
//! (paper 001's 1, 2, 4, 8 and 10 MB, a sweep over `--transfer`) are the same run, event for
//! event, until a sender of the smaller one is about to have its last bytes written: a bulk
//! application's byte count is read only then ([`Tcp::writes_alike`]). So the largest runs
//! once, and each smaller one is a copy of it taken where they part, run on from there. The
//! results are those of separate runs to the bit, event counts included; a test compares them
//! (`sim/tests/fork.rs`).
//!
//! A run forks only if all of it can be copied: a host outside the engine, a host that hands off
//! (its mobility layer) or an agent that cannot be copied ([`Agent::fork`]) make the smaller
//! runs separate runs, with the same results.
//!
//! [`Tcp::writes_alike`]: snooplab_proto::tcp::Tcp::writes_alike
//! [`Agent::fork`]: snooplab_proto::agent::Agent::fork

use crate::job::Job;
use crate::metrics::RunResult;
use crate::network::{Flow, Network};
use crate::nodes::Role;
use crate::observer::{NoObserver, Observe};

use super::{SimulatedTime, Simulation};

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

/// Whether `a` and `b` are the same network but for their flows (every other field compared: a
/// field added to [`Network`] must be added here, or this does not compile).
pub fn same_but_flows(a: &Network, b: &Network) -> bool {
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
pub fn sends_no_more(small: &Network, large: &Network) -> bool {
    small
        .flows
        .iter()
        .zip(&large.flows)
        .all(|(s, l)| s.transfer <= l.transfer)
}

/// A run's result, and for each flow whether Early Retransmit would have acted in its sender
/// (`family.rs`; `None`: not known, the run was not made here).
pub type Outcome = (RunResult, Option<Vec<bool>>);

/// Runs `jobs`, networks [`same_but_transfers`] each of which [`sends_no_more`] than the last
/// one: results in the jobs' order, each the result of its own run to the bit, and how many of
/// the smaller runs were copied from the largest (the others, from their start, ran on their
/// own or are the largest again).
pub fn run_sharing_start(jobs: &[&Job]) -> (Vec<Outcome>, usize) {
    let Some((largest, smaller)) = jobs.split_last() else {
        return (vec![], 0);
    };
    let mut forked = 0;
    let mut results: Vec<Option<Outcome>> = vec![None; jobs.len()];
    // the smaller runs still to part from the largest
    let mut waiting: Vec<usize> = (0..smaller.len())
        .filter(|&j| {
            same_but_transfers(&jobs[j].network, &largest.network)
                && sends_no_more(&jobs[j].network, &largest.network)
        })
        .collect();
    let mut run = Simulation::of_network(&largest.network, &largest.env);
    let mut going = true;
    while going && !waiting.is_empty() {
        let limits = first_parting(&waiting, jobs, &largest.network);
        going = run.run_events(&mut SimulatedTime, Some(&limits));
        if going {
            waiting.retain(|&j| {
                if run.runs_alike(&jobs[j].network) {
                    return true;
                }
                let branch = run.fork_as(&jobs[j].network, &jobs[j].env);
                forked += usize::from(branch.is_some());
                results[j] = Some(match branch {
                    Some(b) => b.run_out(),
                    None => (jobs[j].run(), None),
                });
                false
            });
        }
    }
    let last = if going { run.run_out() } else { run.outcome() };
    for (j, job) in jobs.iter().enumerate() {
        if results[j].is_none() && j + 1 < jobs.len() {
            // the same run as the largest, or one that did not part from it before its end
            results[j] = Some(
                if job.network == largest.network && job.env == largest.env {
                    last.clone()
                } else {
                    (job.run(), None)
                },
            );
        }
    }
    results[jobs.len() - 1] = Some(last);
    (results.into_iter().flatten().collect(), forked)
}

/// For each flow, the least transfer the `waiting` jobs give it where it differs from the
/// largest's: the first place a waiting run parts from the largest.
fn first_parting(waiting: &[usize], jobs: &[&Job], largest: &Network) -> Vec<Option<u64>> {
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
    /// Runs to the end: the result, and for each flow whether Early Retransmit would have acted
    /// in its sender ([`Tcp::early_retransmit_would_have_acted`]).
    ///
    /// [`Tcp::early_retransmit_would_have_acted`]: snooplab_proto::tcp::Tcp::early_retransmit_would_have_acted
    fn run_out(mut self) -> Outcome {
        self.run_events(&mut SimulatedTime, None);
        self.outcome()
    }

    /// The outcome of this run, which is over.
    fn outcome(self) -> Outcome {
        let acted = self.early_retransmit_acted();
        (self.wind_up().0, Some(acted))
    }

    /// For each flow, whether Early Retransmit would have acted in its sender by now.
    fn early_retransmit_acted(&self) -> Vec<bool> {
        (0..self.flows.len())
            .map(|f| {
                self.tcp(f, Role::Sender)
                    .is_some_and(|t| t.early_retransmit_would_have_acted())
            })
            .collect()
    }

    /// Whether this run so far, and through its next event, is also a run of `net` (a network
    /// [`same_but_transfers`] that [`sends_no_more`]): each flow sends as much in both, or its
    /// sender has not started, or it [`writes_alike`](snooplab_proto::tcp::Tcp::writes_alike).
    fn runs_alike(&self, net: &Network) -> bool {
        (0..self.flows.len()).all(|f| {
            let n = net.flows[f].transfer;
            n == self.net.flows[f].transfer
                || self.tcp(f, Role::Sender).is_none_or(|t| t.writes_alike(n))
        })
    }

    /// A copy of this run as it stands, going on as a run of `net`, labelled `env`, where
    /// [`Simulation::runs_alike`] holds; `None` if part of it cannot be copied.
    fn fork_as(&self, net: &Network, env: &str) -> Option<Simulation> {
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
        };
        for (f, flow) in net.flows.iter().enumerate() {
            if let Some(cfg) = fork.pending[f].as_mut() {
                cfg.app_bytes = flow.transfer;
            }
            let (node, conn) = (fork.flows[f].sender, fork.flows[f].sender_conn);
            if let Some(c) = conn.and_then(|c| fork.nodes[node].host_mut()?.conns.get_mut(c)) {
                c.tcp.set_app_bytes(flow.transfer);
            }
        }
        Some(fork)
    }
}
