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
pub type ProgressFn = Box<dyn FnMut(RunProgress)>;

/// Events between two progress reports: a power of two, so the loop's check is a mask; about a
/// hundredth of a second of a run's time at today's speed.
pub const PROGRESS_EVERY: u64 = 1 << 16;

impl<O: Observe> Simulation<O> {
    /// Calls `f` every [`PROGRESS_EVERY`] events with how far the run has come (the command
    /// line's progress line on a long run). Results do not depend on it.
    pub fn with_progress(mut self, f: impl FnMut(RunProgress) + 'static) -> Simulation<O> {
        self.progress = Some(Box::new(f));
        self
    }

    /// Tells the progress callback how far the run has come.
    pub(super) fn report_progress(&mut self) {
        let delivered = (0..self.flows.len())
            .filter_map(|f| self.tcp(f, Role::Receiver))
            .map(|t| t.stats().bytes_delivered)
            .sum();
        let p = RunProgress {
            now: self.now,
            max_time: self.net.max_time,
            events: self.events,
            delivered,
            transfer: self.net.flows.iter().map(|f| f.transfer).sum(),
        };
        if let Some(f) = self.progress.as_mut() {
            f(p);
        }
    }
}
