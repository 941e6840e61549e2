//! A family's runs made as one line (`family.rs`): the largest member runs, each smaller member
//! is copied from it where they part (`fork.rs`), and each twin that adds a policy point to a
//! member ([`Change::Adds`]) rides that member's run until the point's rule would first act in it
//! ([`SharingHook::witnesses`]). A twin whose rule never acts takes its member's result; one
//! whose rule acts is started from the run's latest snapshot, a copy taken every
//! [`SNAPSHOT_EVERY`] events while twins ride it, given the point ([`SharingHook::go_on_as`]), and run on
//! from there: it repeats at most that many events instead of its whole start. Twins that part
//! together and differ only in their transfers (the twins of a member and of the smaller ones
//! still to part from it) start as one group, the smaller forking from the largest as their
//! members do. Up to the snapshot a twin's run and its member's were the same, state for state,
//! so every result is that of the job's own run to the bit, event counts included
//! (`sim/tests/fork.rs` compares them).
//!
//! A run that is not all in the engine (`fork.rs`) gives no snapshot: its diverging twins run from their
//! start, with the same results. What a run needs of its TCPs for all this is one hook,
//! [`SharingHook`].

use snooplab_proto::tcp::SharingHook;

use crate::job::Job;
use crate::metrics::RunResult;
use crate::network::{FlowId, NodeId};
use crate::nodes::Role;
use crate::observer::Observe;

use super::change::Change;
use super::fork::{first_parting, sent, starts_as};
use crate::run::{SimulatedTime, Simulation};

/// Events between a run's snapshots while twins ride it. A twin that parts repeats at most
/// this many events; each snapshot costs about as much as a few dozen events (a copy of the
/// run), so the copies cost a run with riders about 1% and the repeats stay small beside a
/// twin's run (paper 001: about 100 twins part, in runs of 10^5 events).
pub(crate) const SNAPSHOT_EVERY: u64 = 4096;

/// A job that is a member's run with one change ([`Change`]).
#[derive(Clone, Copy, Debug)]
pub struct Rider<'a> {
    pub job: &'a Job,
    /// The member it changes: an index into the members.
    pub of: usize,
    pub change: Change,
    /// The flows whose protocol adds a point ([`Change::Adds`]).
    pub flows: &'a [FlowId],
}

/// The results of [`run_sharing_start`].
#[derive(Debug, Default)]
pub struct SharedRuns {
    /// Each member's result, in the members' order.
    pub members: Vec<RunResult>,
    /// Each rider's result, in the riders' order.
    pub riders: Vec<RunResult>,
    /// Members copied from the largest where they parted.
    pub forked: usize,
    /// Riders that took their member's result (the rule never acted).
    pub taken: usize,
    /// Riders started from a snapshot of their member's run.
    pub resumed: usize,
}

impl SharedRuns {
    /// Runs not made from their start.
    pub fn shared(&self) -> usize {
        self.forked + self.taken + self.resumed
    }
}

/// When a run that others start as stops (`run_events`), checked after each event where a
/// host's TCP ran (nothing it asks changes elsewhere).
pub(in crate::run) struct Watch {
    /// For each flow, the least transfer a member still to part gives it
    /// ([`Simulation::writes_alike`]).
    parting: Vec<Option<u64>>,
    /// Twins ride the run: stop where a sender's witness fires.
    witness: bool,
    /// Stop once the run has made this many events: a snapshot is due.
    snapshot_at: u64,
}

impl<O: Observe> Simulation<O> {
    /// An ACK reached flow `flow`'s sender, connection `conn` of `node` (a sender's witness
    /// fires only there): the witnesses that fired since the loop last looked stop a run that
    /// twins ride ([`Watch::stops`]).
    #[inline]
    pub(in crate::run) fn note_witnesses(&mut self, node: NodeId, conn: usize, flow: FlowId) {
        let seen = self.state.flows[flow].witnessed;
        let new = self.state.nodes[node]
            .host()
            .and_then(|h| h.conns.get(conn))
            .map_or(0, |c| c.tcp.witnesses() & !seen);
        if new != 0 {
            self.state.flows[flow].witnessed |= new;
            self.book.witness_fired = true;
        }
    }
}

impl Watch {
    /// Stops a run once it has made `events` events, and nowhere else (a test's copy taken in
    /// the middle of a run).
    #[cfg(test)]
    pub(in crate::run) fn after(events: u64) -> Watch {
        Watch {
            parting: vec![],
            witness: false,
            snapshot_at: events,
        }
    }

    #[inline]
    pub(in crate::run) fn stops<O: Observe>(&self, sim: &Simulation<O>) -> bool {
        (self.witness && sim.book.witness_fired)
            || sim.book.events >= self.snapshot_at
            || !sim.writes_alike(&self.parting)
    }
}

/// Runs `jobs`, networks each of which starts as the last one (`fork::starts_as`: the same but
/// for transfers, none larger), and `riders`, each a job's run with a policy point added: every
/// result is that of the job's own run to the bit.
pub fn run_sharing_start(jobs: &[&Job], riders: &[Rider]) -> SharedRuns {
    run_group(None, jobs, riders)
}

/// [`run_sharing_start`], the largest started from `from` if there is one: a copy of a run that
/// is the largest's up to there but for points the largest adds to it.
fn run_group(from: Option<&Simulation>, jobs: &[&Job], riders: &[Rider]) -> SharedRuns {
    let mut out = Results {
        members: vec![None; jobs.len()],
        riders: vec![None; riders.len()],
        forked: 0,
        taken: 0,
        resumed: 0,
    };
    if let Some((largest, smaller)) = jobs.split_last() {
        let waiting: Vec<usize> = (0..smaller.len())
            .filter(|&j| starts_as(&jobs[j].network, &largest.network))
            .collect();
        let copy = from.and_then(|s| s.fork_as(&largest.network, &largest.env));
        out.resumed += usize::from(copy.is_some());
        let sim = copy.unwrap_or_else(|| Simulation::of_network(&largest.network, &largest.env));
        let line = Line::new(sim, jobs.len() - 1, waiting, riders, &out);
        line.run(jobs, riders, None, &mut out);
        // the members that could not start as the largest run on their own, with their twins
        for j in 0..smaller.len() {
            if out.members[j].is_none() {
                let sim = Simulation::of_network(&jobs[j].network, &jobs[j].env);
                Line::new(sim, j, vec![], riders, &out).run(jobs, riders, None, &mut out);
            }
        }
    }
    SharedRuns {
        members: out.members.into_iter().flatten().collect(),
        riders: out.riders.into_iter().flatten().collect(),
        forked: out.forked,
        taken: out.taken,
        resumed: out.resumed,
    }
}

/// Results as they come in, and the counts of [`SharedRuns`].
struct Results {
    members: Vec<Option<RunResult>>,
    riders: Vec<Option<RunResult>>,
    forked: usize,
    taken: usize,
    resumed: usize,
}

/// One run, and the runs that start as it.
struct Line {
    sim: Simulation,
    /// The member it is a run of.
    member: usize,
    /// The smaller members still to part from it.
    waiting: Vec<usize>,
    /// The twins of its member and of the members still to part that ride it.
    riders: Vec<usize>,
}

impl Line {
    /// `member`'s run `sim`, with the members `waiting` to part from it, and the riders of
    /// them all that have no result yet.
    fn new(
        sim: Simulation,
        member: usize,
        waiting: Vec<usize>,
        riders: &[Rider],
        out: &Results,
    ) -> Line {
        let riders = (0..riders.len())
            .filter(|&r| out.riders[r].is_none())
            .filter(|&r| riders[r].of == member || waiting.contains(&riders[r].of))
            .collect();
        Line {
            sim,
            member,
            waiting,
            riders,
        }
    }

    /// Runs to the end, the members that part and the riders too; `from` is the snapshot of
    /// the run this one was copied from (the same run up to it).
    fn run(
        mut self,
        jobs: &[&Job],
        riders: &[Rider],
        from: Option<&Simulation>,
        out: &mut Results,
    ) {
        let mut own: Option<Simulation> = None;
        let mut taken_at = from.map_or(0, |s| s.book.events);
        // copies fail for good (a host outside the engine stays): then no more snapshots
        let mut can_copy = true;
        while !self.waiting.is_empty() || !self.riders.is_empty() {
            let watch = Watch {
                parting: first_parting(&self.waiting, jobs, &self.sim.topo.net),
                witness: !self.riders.is_empty(),
                snapshot_at: if self.riders.is_empty() || !can_copy {
                    u64::MAX
                } else {
                    taken_at.saturating_add(SNAPSHOT_EVERY)
                },
            };
            if !self.sim.run_events(&mut SimulatedTime, Some(&watch)) {
                break; // over
            }
            let snapshot = own.as_ref().or(from);
            if std::mem::take(&mut self.sim.book.witness_fired) {
                self.part_riders(riders, snapshot, out);
            }
            self.part_members(jobs, riders, snapshot, out);
            if watch.witness && self.sim.book.events >= watch.snapshot_at {
                // (a copy that fails keeps the last one, still a start of this run)
                match self.sim.fork_as(&self.sim.topo.net, &self.sim.topo.env) {
                    Some(copy) => own = Some(copy),
                    None => can_copy = false,
                }
                taken_at = self.sim.book.events;
            }
        }
        if self.waiting.is_empty() && self.riders.is_empty() {
            self.sim.run_events(&mut SimulatedTime, None);
        }
        self.finish(jobs, riders, out);
    }

    /// The riders whose point would have acted part: they run from `snapshot` (or from their
    /// start), those that differ only in their transfers as one group (`run_group`), as their
    /// members did.
    fn part_riders(&mut self, riders: &[Rider], snapshot: Option<&Simulation>, out: &mut Results) {
        let sim = &self.sim;
        let acted = |r: &Rider| match r.change {
            Change::Adds(adds) => r.flows.iter().any(|&f| {
                sim.tcp(f, Role::Sender)
                    .is_some_and(|t| t.witnesses() & adds.bit() != 0)
            }),
        };
        let (parting, riding): (Vec<usize>, Vec<usize>) =
            self.riders.iter().partition(|&&r| acted(&riders[r]));
        self.riders = riding;
        let mut parting = parting;
        while let Some(&lead) = parting
            .iter()
            .max_by_key(|&&r| sent(&riders[r].job.network))
        {
            let lead_net = &riders[lead].job.network;
            let starts_as_lead =
                |r: usize| r == lead || starts_as(&riders[r].job.network, lead_net);
            let (mut group, rest): (Vec<usize>, Vec<usize>) =
                parting.iter().partition(|&&r| starts_as_lead(r));
            parting = rest;
            // (the lead last: the group's largest)
            group.retain(|&r| r != lead);
            group.push(lead);
            let jobs: Vec<&Job> = group.iter().map(|&r| riders[r].job).collect();
            let runs = run_group(snapshot, &jobs, &[]);
            out.forked += runs.forked;
            out.resumed += runs.resumed;
            for (&r, result) in group.iter().zip(runs.members) {
                out.riders[r] = Some(result);
            }
        }
    }

    /// The members that part here are copied from the run and run on, with their riders.
    fn part_members(
        &mut self,
        jobs: &[&Job],
        riders: &[Rider],
        snapshot: Option<&Simulation>,
        out: &mut Results,
    ) {
        let (parting, waiting): (Vec<usize>, Vec<usize>) = self
            .waiting
            .iter()
            .partition(|&&j| !self.sim.runs_alike(&jobs[j].network));
        self.waiting = waiting;
        for j in parting {
            self.riders.retain(|&r| riders[r].of != j);
            let (sim, from) = match self.sim.fork_as(&jobs[j].network, &jobs[j].env) {
                Some(sim) => {
                    out.forked += 1;
                    (sim, snapshot)
                }
                None => (Simulation::of_network(&jobs[j].network, &jobs[j].env), None),
            };
            Line::new(sim, j, vec![], riders, out).run(jobs, riders, from, out);
        }
    }

    /// The run is over: its result is its member's, and each rider still riding takes it with
    /// its own protocols' names; members that never parted are this run, or run on their own.
    fn finish(self, jobs: &[&Job], riders: &[Rider], out: &mut Results) {
        let result = self.sim.wind_up().0;
        let me = jobs[self.member];
        // (a member that never parted from it but is another run runs on its own, its riders
        // with it)
        let same =
            |j: usize| j == self.member || (jobs[j].network == me.network && jobs[j].env == me.env);
        for r in self.riders {
            let rider = &riders[r];
            if same(rider.of) {
                out.taken += 1;
                out.riders[r] = Some(result.clone().as_run_of(&rider.job.network));
            }
        }
        for &j in &self.waiting {
            if same(j) {
                out.members[j] = Some(result.clone());
            }
        }
        out.members[self.member] = Some(result);
    }
}
