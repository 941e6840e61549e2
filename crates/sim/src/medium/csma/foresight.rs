//! Foreseen outcomes of the CSMA rule (`csma.rs`). A frame on the air is never taken off it
//! early, so a station whose load or wait ends while a frame it hears is on the air (started more
//! than the sense delay before, ending after) will find the medium busy then: it defers (or, after
//! a backoff, counts a failed attempt). The medium does not wake up for such an instant: the
//! station is marked [`Phase::Foreseen`] when it begins its load or wait under such a frame, or
//! when such a frame goes on the air over its instant, and its state moves on at the medium's next
//! step, before anything else there, exactly as it would have at its own instant
//! ([`Csma::settle`]). Nothing else reads a station's phase in between, and the move draws no
//! random number. A backoff whose failure would drop the frame is not foreseen: the drop is told
//! to the station's node at its own time. In paper 001's three-host cell 29% of the run's events
//! were such instants (docs/speed.md).

use snooplab_proto::time::earliest;
use snooplab_proto::Time;

use super::{Csma, Phase};
use crate::medium::{Frame, Medium, StationId};

/// What a foreseen station was doing: what ends at its instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ends {
    /// Loading its frame ([`Phase::Loading`]).
    Load,
    /// A wait that was not a backoff ([`Phase::Waiting`] with `backoff` false).
    Wait,
    /// A backoff ([`Phase::Waiting`] with `backoff` true).
    Backoff,
}

impl<P: Frame> Csma<P> {
    /// Station `s`, loading or waiting, as [`Phase::Foreseen`] if `heard` says a frame on the
    /// air covers its instant (`None` otherwise).
    #[inline]
    pub(super) fn foreseen(&self, s: StationId, heard: impl Fn(Time) -> bool) -> Option<Phase> {
        let m = &self.stations[s];
        let (at, ends) = match m.phase {
            Phase::Loading { at } => (at, Ends::Load),
            Phase::Waiting { at, backoff: false } => (at, Ends::Wait),
            // (not a backoff whose failure drops the frame: the drop is told at its own time)
            Phase::Waiting { at, backoff: true } if m.attempt < self.p.max_attempts => {
                (at, Ends::Backoff)
            }
            _ => return None,
        };
        heard(at).then_some(Phase::Foreseen { at, ends })
    }

    /// Station `s` just began to load or wait: foreseen if it can be, otherwise its instant
    /// counts in `waiting_until` (a load's counts in `loading_until` when [`Csma::admit`] sees
    /// it). (Inlined: a call for each load and wait that begins cost paper 001's run 0.7%.)
    #[inline(always)]
    pub(super) fn began(&mut self, s: StationId) {
        // (nothing on the air: nothing to hear)
        let f = if self.foresee && !self.on_air.is_empty() {
            self.foreseen(s, |at| self.heard_at(at))
        } else {
            None
        };
        if let Some(f) = f {
            self.foresee_as(s, f);
        } else if let Phase::Waiting { at, .. } = self.stations[s].phase {
            self.waiting_until = earliest(self.waiting_until, Some(at));
        }
    }

    /// Station `s` is foreseen as `f`.
    fn foresee_as(&mut self, s: StationId, f: Phase) {
        if let Phase::Foreseen { at, .. } = f {
            self.foreseen_until = earliest(self.foreseen_until, Some(at));
        }
        self.stations[s].phase = f;
    }

    /// A frame went on the air at `start` until `end`: the stations loading or waiting whose
    /// instant it covers are foreseen (the frames already on the air covered none of them), and
    /// the earliest instants are found again without them, in the same walk.
    pub(super) fn foresee_under_new_frame(&mut self, start: Time, end: Time) {
        if !self.foresee {
            return;
        }
        let heard_from = start.saturating_add(self.p.sense_delay);
        let (mut waiting, mut loading) = (None, None);
        for s in 0..self.stations.len() {
            // (only a load or a wait can be foreseen or counted: the others are passed over
            // with one test)
            let (at, wait) = match self.stations[s].phase {
                Phase::Loading { at } => (at, false),
                Phase::Waiting { at, .. } => (at, true),
                _ => continue,
            };
            if let Some(f) = self.foreseen(s, |t| heard_from < t && t < end) {
                self.foresee_as(s, f);
            } else if !wait {
                loading = earliest(loading, Some(at));
            } else if at > start {
                // (a wait that ends now is [`Csma::attempts`]'s, which sends this frame and
                // counts only the waits that end later)
                waiting = earliest(waiting, Some(at));
            }
        }
        self.waiting_until = waiting;
        self.loading_until = loading;
    }

    /// A station sensing the medium at `at` will hear a frame that is on the air now: one that
    /// started more than the sense delay before `at` and ends after it (a frame leaves the air
    /// only at its end). [`Csma::busy`] at `at` is then certain, whatever else happens first.
    pub(super) fn heard_at(&self, at: Time) -> bool {
        self.on_air
            .iter()
            .any(|f| f.start.saturating_add(self.p.sense_delay) < at && at < f.end)
    }

    /// Whether a foreseen instant has come by `now` ([`Csma::settle`] has work).
    #[inline]
    pub(super) fn overdue(&self, now: Time) -> bool {
        self.foreseen_until.is_some_and(|t| t <= now)
    }

    /// The foreseen stations whose instant has come by `now` take their outcome, as at their own
    /// instants: the frame they hear then is still on the air (this runs before any frame leaves
    /// it), and nothing read their phase in between.
    #[inline]
    pub(super) fn settle(&mut self, m: &mut Medium<P>, now: Time) {
        self.foreseen_until = None;
        for s in 0..self.stations.len() {
            let Phase::Foreseen { at, ends } = self.stations[s].phase else {
                continue;
            };
            if at > now {
                self.foreseen_until = earliest(self.foreseen_until, Some(at));
                continue;
            }
            debug_assert!(
                self.busy(at),
                "station {s} foreseen to find the medium busy"
            );
            match ends {
                Ends::Load => {
                    self.stations[s].phase = Phase::Loading { at };
                    self.admit_station(m, at, s);
                }
                Ends::Wait => self.found_busy(m, s, false),
                Ends::Backoff => self.found_busy(m, s, true),
            }
        }
    }
}
