//! How far a long run has come: the callback of [`Simulation::with_progress`], told every
//! [`PROGRESS_EVERY`] events (the command line's progress line on a long `run` or `bench`).

use snooplab_proto::Time;

use super::Simulation;
use crate::nodes::Role;
use crate::observer::Observe;

/// How far a run has come: what a long run reports as it goes ([`Simulation::with_progress`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunProgress {
    /// Simulated time now, and the run's cap on it.
    pub now: Time,
    pub max_time: Time,
    pub events: u64,
    /// Bytes the receiving applications have got, of all flows' transfers.
    pub delivered: u64,
    pub transfer: u64,
}

/// The callback of [`Simulation::with_progress`].
pub(crate) type ProgressFn = Box<dyn FnMut(RunProgress)>;

/// The progress callback of a run, if it has one. A copy of a run reports to no one: the
/// callback is the caller's window on the run it made, and a copy (a run that forks) is another
/// run, whose progress it does not follow. Results never depend on it.
#[derive(Default)]
pub(super) struct Progress(Option<ProgressFn>);

impl Clone for Progress {
    fn clone(&self) -> Progress {
        Progress(None)
    }
}

impl Progress {
    #[inline]
    pub(super) fn is_some(&self) -> bool {
        self.0.is_some()
    }
}

/// Events between two progress reports: a power of two, so the loop's check is a mask; about a
/// hundredth of a second of a run's time at today's speed.
pub(crate) const PROGRESS_EVERY: u64 = 1 << 16;

impl<O: Observe> Simulation<O> {
    /// Calls `f` every [`PROGRESS_EVERY`] events with how far the run has come (the command
    /// line's progress line on a long run). Results do not depend on it.
    pub fn with_progress(mut self, f: impl FnMut(RunProgress) + 'static) -> Simulation<O> {
        self.book.progress = Progress(Some(Box::new(f)));
        self
    }

    /// Tells the progress callback how far the run has come.
    pub(super) fn report_progress(&mut self) {
        let delivered = (0..self.state.flows.len())
            .filter_map(|f| self.tcp(f, Role::Receiver))
            .map(|t| t.stats().bytes_delivered)
            .sum();
        let p = RunProgress {
            now: self.state.now,
            max_time: self.topo.net.max_time,
            events: self.book.events,
            delivered,
            transfer: self.topo.net.flows.iter().map(|f| f.transfer).sum(),
        };
        if let Some(f) = self.book.progress.0.as_mut() {
            f(p);
        }
    }
}
