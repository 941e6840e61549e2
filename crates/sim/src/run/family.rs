//! Jobs whose runs are one run, or start as one: a family is the jobs that differ only in their
//! flows' transfers, run as one run that forks where they part (`fork.rs`), and the jobs that
//! differ from one of them only in adding Early Retransmit to some flows' protocols (ER to
//! Reno, ER+LT to LT), its twins. RFC 5827's rule is the only place a TCP reads that policy
//! bit, and a sender without it evaluates the rule too, changing nothing
//! ([`Tcp::early_retransmit_would_have_acted`]): where it never would have acted, the twin's run
//! is the same run, state for state, and its result is the member's with its protocols' names.
//! Where it would have, the twin starts from a snapshot of the member's run taken before then
//! (`line.rs`, which runs a family). Either way each job gets the result of its own run to the
//! bit (`sim/tests/fork.rs` compares them).
//!
//! [`Tcp::early_retransmit_would_have_acted`]: snooplab_proto::tcp::Tcp::early_retransmit_would_have_acted

use std::collections::BTreeMap;

use snooplab_proto::Time;

use crate::job::Job;
use crate::metrics::RunResult;
use crate::network::{Flow, FlowId, Network};

use super::fork::{same_but_flows, same_but_transfers, sends_no_more};
use super::line::{run_sharing_start, Rider};

/// How far [`families`] looks, among the jobs of one seed and shape, for a job's family (the
/// families begun last) and for the job a twin adds Early Retransmit to (the jobs on either
/// side): enough for every paper's plan and for a sweep's transfers (its innermost list), and a
/// bound on the work for a sweep of 100,000 runs. A job whose family lies further runs on its
/// own, with the same result.
const LOOK: usize = 64;

/// Jobs run together ([`families`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Family {
    /// Jobs [`same_but_transfers`], in their order but for the one that sends the most, which
    /// comes last: its run is the one the others fork from.
    pub members: Vec<usize>,
    /// Jobs that add Early Retransmit to a member.
    pub twins: Vec<Twin>,
}

/// A job that is a member's run with Early Retransmit added to some of its flows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Twin {
    pub job: usize,
    /// The member's place in [`Family::members`].
    pub of: usize,
    /// The flows whose protocol adds Early Retransmit.
    pub flows: Vec<FlowId>,
}

/// The flows of `twin` whose protocol adds Early Retransmit to `base`'s, if that is all that
/// differs between the two networks and `base` runs Early Retransmit nowhere.
pub fn adds_early_retransmit(base: &Network, twin: &Network) -> Option<Vec<FlowId>> {
    // (the protocols first: most pairs differ there, and the test is cheap)
    if base.flows.len() != twin.flows.len()
        || base
            .flows
            .iter()
            .any(|f| f.protocol.sender_policy().early_retransmit)
    {
        return None;
    }
    let mut flows = vec![];
    for (f, (b, t)) in base.flows.iter().zip(&twin.flows).enumerate() {
        if b.protocol != t.protocol {
            if !t.protocol.adds_early_retransmit_to(b.protocol) {
                return None;
            }
            flows.push(f);
        }
    }
    let same_flows = base.flows.iter().zip(&twin.flows).all(|(b, t)| {
        b.protocol == t.protocol
            || Flow {
                protocol: b.protocol,
                ..t.clone()
            } == *b
    });
    (!flows.is_empty() && same_flows && same_but_flows(base, twin)).then_some(flows)
}

/// `jobs` as families, in the order of their first jobs. A job is a twin if a job without
/// Early Retransmit with the same label is its run without it; the others are grouped into
/// members of families, and a job that fits no family (it sends more than the family's largest
/// in one flow and less in another) is a family of its own.
pub fn families(jobs: &[Job]) -> Vec<Family> {
    // networks that could be alike have the same seed and shape: only those are compared, and
    // of those only the nearest (`LOOK`)
    let key = |n: &Network| (n.seed, n.nodes.len(), n.flows.len(), n.max_time);
    let mut shape: BTreeMap<(u64, usize, usize, Time), Vec<usize>> = BTreeMap::new();
    let mut place_in_shape = vec![0; jobs.len()];
    for (i, job) in jobs.iter().enumerate() {
        let list = shape.entry(key(&job.network)).or_default();
        place_in_shape[i] = list.len();
        list.push(i);
    }
    // each twin and the job it is the twin of
    let mut twin_of: Vec<Option<(usize, Vec<FlowId>)>> = vec![None; jobs.len()];
    for (i, job) in jobs.iter().enumerate() {
        let adds = |f: &Flow| f.protocol.sender_policy().early_retransmit;
        if !job.network.flows.iter().any(adds) {
            continue;
        }
        let same_shape = &shape[&key(&job.network)];
        let p = place_in_shape[i];
        let near = &same_shape[p.saturating_sub(LOOK)..(p + LOOK).min(same_shape.len())];
        twin_of[i] = near.iter().find_map(|&b| {
            let base = &jobs[b];
            if base.env != job.env {
                return None;
            }
            adds_early_retransmit(&base.network, &job.network).map(|flows| (b, flows))
        });
    }
    let mut begun: BTreeMap<(u64, usize, usize, Time), Vec<usize>> = BTreeMap::new();
    let mut out: Vec<Family> = vec![];
    for (i, job) in jobs.iter().enumerate() {
        if twin_of[i].is_some() {
            continue;
        }
        let n = &job.network;
        let list = begun.entry(key(n)).or_default();
        match list
            .iter()
            .rev()
            .take(LOOK)
            .find(|&&k| same_but_transfers(&jobs[out[k].members[0]].network, n))
        {
            Some(&k) => out[k].members.push(i),
            None => {
                list.push(out.len());
                out.push(Family {
                    members: vec![i],
                    twins: vec![],
                });
            }
        }
    }
    let sent = |i: usize| -> u64 { jobs[i].network.flows.iter().map(|f| f.transfer).sum() };
    let mut alone = vec![];
    for family in &mut out {
        // the first job of the largest transfers leads; those it does not cover go alone
        let Some(lead) = family
            .members
            .iter()
            .copied()
            .rev()
            .max_by_key(|&i| sent(i))
        else {
            continue;
        };
        family.members.retain(|&i| {
            let fits = sends_no_more(&jobs[i].network, &jobs[lead].network);
            if !fits {
                alone.push(Family {
                    members: vec![i],
                    twins: vec![],
                });
            }
            fits && i != lead
        });
        family.members.push(lead);
    }
    out.extend(alone);
    // each twin joins the family of the job it is the twin of
    let mut place = vec![(0, 0); jobs.len()];
    for (k, family) in out.iter().enumerate() {
        for (m, &i) in family.members.iter().enumerate() {
            place[i] = (k, m);
        }
    }
    for (i, twin) in twin_of.into_iter().enumerate() {
        if let Some((base, flows)) = twin {
            let (k, m) = place[base];
            out[k].twins.push(Twin {
                job: i,
                of: m,
                flows,
            });
        }
    }
    out
}

/// Runs a family of `jobs`: each job's result, and how many runs were not made from their start
/// (forked from a member, a twin's taken from its member's or started from a snapshot of it).
pub fn run_family(jobs: &[Job], family: &Family) -> (Vec<(usize, RunResult)>, usize) {
    let members: Vec<&Job> = family.members.iter().map(|&i| &jobs[i]).collect();
    let riders: Vec<Rider> = family
        .twins
        .iter()
        .map(|t| Rider {
            job: &jobs[t.job],
            of: t.of,
            flows: &t.flows,
        })
        .collect();
    let runs = run_sharing_start(&members, &riders);
    let shared = runs.shared();
    let twins = family.twins.iter().map(|t| t.job).zip(runs.riders);
    let out = family.members.iter().copied().zip(runs.members);
    (twins.chain(out).collect(), shared)
}
