//! Jobs whose runs are one run, or start as one: a family is the jobs that differ only in their
//! flows' transfers, run as one run that forks where they part (`fork.rs`), and the jobs that
//! differ from one of them only in adding one policy point to some flows' protocols
//! ([`Addition`]: Early Retransmit, ER to Reno and ER+LT to LT; EFR's threshold, EFR to Reno),
//! its twins. A point's rule is read in one place of a TCP, and a sender without the point
//! evaluates it there too, changing nothing (its witness, [`SharingHook::witnesses`]): where it
//! never would have acted, the twin's run is the same run, state for state, and its result is
//! the member's with its protocols' names. Where it would have, the twin starts from a snapshot
//! of the member's run taken before then (`line.rs`, which runs a family). Either way each job
//! gets the result of its own run to the bit (`sim/tests/fork.rs` compares them).
//!
//! Jobs of one network (and label) are one family's members, and run once. Nothing here knows a
//! paper's reading: a reading that cannot change a run is written so that it does not change the
//! network either (paper 002's old-primary queue, `papers/src/paper002/testbed.rs`).
//!
//! [`SharingHook::witnesses`]: snooplab_proto::tcp::SharingHook::witnesses

use std::collections::BTreeMap;

use snooplab_proto::tcp::Addition;

use snooplab_proto::Time;

use crate::job::Job;
use crate::metrics::RunResult;
use crate::network::{Flow, FlowId, Network};

use super::change::Change;
use super::fork::{same_but_flows, same_but_transfers, sends_no_more, sent};
use super::line::{run_sharing_start, Rider};

/// How far [`families`] looks, among the jobs of one seed and shape, for a job's family (the
/// families begun last) and for the job a twin adds a policy point to (the jobs on either
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
    /// Jobs that add a policy point to a member.
    pub twins: Vec<Twin>,
}

/// A job that is a member's run with one change read in one place of the run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Twin {
    pub job: usize,
    /// The member's place in [`Family::members`].
    pub of: usize,
    /// What it changes.
    pub change: Change,
    /// The flows whose protocol adds a point ([`Change::Adds`]; none for the others).
    pub flows: Vec<FlowId>,
}

/// The point the flows of `twin` add to `base`'s protocols and the flows that add it, if that
/// is all that differs between the two networks (one point, the same in every flow that
/// differs; [`Protocol::addition_to`]).
///
/// [`Protocol::addition_to`]: crate::Protocol::addition_to
pub(crate) fn twin_of(base: &Network, twin: &Network) -> Option<(Addition, Vec<FlowId>)> {
    // (the protocols first: most pairs differ there, and the test is cheap)
    // a workload flow's connections carry no witnesses (`Tcp::witnesses`): its runs share nothing
    let bulk = |n: &Network| n.flows.iter().all(|f| f.workload.is_bulk());
    if base.flows.len() != twin.flows.len() || !bulk(base) || !bulk(twin) {
        return None;
    }
    let mut adds = None;
    let mut flows = vec![];
    for (f, (b, t)) in base.flows.iter().zip(&twin.flows).enumerate() {
        if b.protocol != t.protocol {
            let a = t.protocol.addition_to(b.protocol)?;
            if adds.replace(a).is_some_and(|other| other != a) {
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
    let adds = adds?;
    (same_flows && same_but_flows(base, twin)).then_some((adds, flows))
}

/// `jobs` as families, in the order of their first jobs. A job is a twin if a job with the
/// same label is its run without one policy point ([`twin_of`]) and is not a twin itself; the
/// others are grouped into members of families, and a job that fits no family (it sends more
/// than the family's largest in one flow and less in another) is a family of its own.
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
    let mut of: Vec<Option<(usize, Change, Vec<FlowId>)>> = vec![None; jobs.len()];
    for (i, job) in jobs.iter().enumerate() {
        let adds = |f: &Flow| {
            let policy = f.protocol.sender_policy();
            Addition::ALL.iter().any(|a| a.is_in(policy))
        };
        if !job.network.flows.iter().any(adds) {
            continue;
        }
        let same_shape = &shape[&key(&job.network)];
        let p = place_in_shape[i];
        let near = &same_shape[p.saturating_sub(LOOK)..(p + LOOK).min(same_shape.len())];
        of[i] = near.iter().find_map(|&b| {
            let base = &jobs[b];
            if base.env != job.env {
                return None;
            }
            let (adds, flows) = twin_of(&base.network, &job.network)?;
            Some((b, Change::Adds(adds), flows))
        });
    }
    // a twin rides a member: one whose base is a twin itself is a member
    let is_twin: Vec<bool> = of.iter().map(Option::is_some).collect();
    for t in &mut of {
        if t.as_ref().is_some_and(|&(b, ..)| is_twin[b]) {
            *t = None;
        }
    }
    let mut begun: BTreeMap<(u64, usize, usize, Time), Vec<usize>> = BTreeMap::new();
    let mut out: Vec<Family> = vec![];
    for (i, job) in jobs.iter().enumerate() {
        if of[i].is_some() {
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
    let mut alone = vec![];
    for family in &mut out {
        // the first job of the largest transfers leads; those it does not cover go alone
        let Some(lead) = family
            .members
            .iter()
            .copied()
            .rev()
            .max_by_key(|&i| sent(&jobs[i].network))
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
    for (i, twin) in of.into_iter().enumerate() {
        if let Some((base, change, flows)) = twin {
            let (k, m) = place[base];
            out[k].twins.push(Twin {
                job: i,
                of: m,
                change,
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
            change: t.change,
            flows: &t.flows,
        })
        .collect();
    let runs = run_sharing_start(&members, &riders);
    let shared = runs.shared();
    let twins = family.twins.iter().map(|t| t.job).zip(runs.riders);
    let out = family.members.iter().copied().zip(runs.members);
    (twins.chain(out).collect(), shared)
}
