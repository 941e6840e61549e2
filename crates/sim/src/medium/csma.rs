//! The CSMA/CA access model of the original 2 Mb/s WaveLAN (NCR/AT&T/Lucent, ISA 82586 controller plus
//! the WaveLAN modem, pre-802.11), as its drivers program it and as Kunz's course slide describes the
//! protocol (sources on each constant of [`CsmaParams`]; `docs/model.md`, "The cell's medium").
//!
//! The rule, per station, for the frame at the head of its queue (the base station's high-priority
//! queue first):
//!
//! - **Carrier sense.** A station senses the transmissions that started more than
//!   [`CsmaParams::sense_delay`] before the present instant (0 by default: those that started
//!   before it); stations that start within that delay of each other do not hear each other. The
//!   medium is *free* for a
//!   station when nothing it senses is on the air and the last frame left the air at least
//!   [`CsmaParams::ifs`] ago.
//! - **A fresh frame** (the station was idle) on a medium that is not busy is sent as soon as the
//!   medium has been idle for the IFS: at once if it already has, otherwise when the IFS ends.
//! - **Deferral.** A frame that finds the medium busy waits until the medium goes idle, then waits the
//!   IFS and a backoff of `S` slots, `S` uniform in `[0, cw)`, and senses again. The backoff is a
//!   timer: it runs whether or not another station starts meanwhile.
//! - **Busy at the end of a backoff** is a failed attempt: the window doubles (up to
//!   [`CsmaParams::cw_max`]) and the station defers again; after [`CsmaParams::max_attempts`]
//!   failed attempts the frame is dropped ([`super::StationCounters::gave_up`]).
//! - **After its own frame** a station with another frame ready (or ready within the IFS) waits the
//!   IFS and `K` slots, `K` uniform in `[0, post_tx_window)`, so that it cannot monopolise the medium;
//!   finding the medium busy then is a deferral (window `cw_min`), not a failed attempt.
//! - **Collisions.** Stations whose waits end in the same instant (within the sense delay of the
//!   first to start) all send: every frame of the group
//!   uses its airtime, nobody detects the overlap, and each frame reaches its receiver marked
//!   collided and corrupted ([`super::Medium::collisions`] counts them). There is no link-level
//!   acknowledgement or retransmission.
//!
//! Each frame's airtime is its bits plus a fixed overhead that, under CSMA, excludes the IFS and the
//! mean post-transmission backoff, which are modelled explicitly
//! ([`CsmaParams::frame_overhead`]): one station sending back to back then sees the calibrated
//! turn-taking model's mean time per frame.
//!
//! The medium does not wake up for a load or wait whose outcome is certain, a busy medium
//! (`csma/foresight.rs`); that changes the events of a run, not its results.

use snooplab_proto::time::earliest;
use snooplab_proto::Time;

use super::csma_params::CsmaParams;
use super::{Frame, Medium, StationId, Transmission};
use crate::rng::Rng;

mod foresight;

use foresight::Ends;

/// The most stations of a cell whose [`Csma::admit`] looks only at those that may need it.
const LOOK_MAX: usize = 64;

/// Where a station's head frame stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Nothing to send, or a frame not yet looked at.
    Idle,
    /// The host is copying the head frame onto the card; it is ready at `at`
    /// ([`CsmaParams::load_ns_per_byte`]).
    Loading { at: Time },
    /// Its frame is on the air.
    Sending,
    /// Found the medium busy: waits for it to go idle, then backs off.
    Deferring,
    /// Senses the medium at `at` and sends if it is free. `backoff`: the wait was a backoff, so a
    /// busy medium then is a failed attempt.
    Waiting { at: Time, backoff: bool },
    /// Its load or wait (`ends`) ends at `at` on a busy medium, foreseen (`csma/foresight.rs`): the
    /// medium does not wake up for it, and [`Csma::settle`] gives it its outcome once `at` has
    /// come.
    Foreseen { at: Time, ends: Ends },
}

/// One station's MAC state.
#[derive(Clone, Debug)]
struct Mac {
    phase: Phase,
    /// Contention window for its next backoff, slots.
    cw: u32,
    /// The head frame's attempt: 1 until its first backoff ends on a busy medium.
    attempt: u32,
    /// When its own last frame left the air.
    own_end: Option<Time>,
    /// Test hook: every backoff this station draws is this many slots.
    #[cfg(test)]
    fixed: Option<u32>,
}

/// A frame on the air.
#[derive(Clone, Debug)]
struct OnAir<P> {
    start: Time,
    end: Time,
    tx: Transmission<P>,
}

/// The CSMA/CA state of one cell.
#[derive(Clone)]
pub(super) struct Csma<P> {
    p: CsmaParams,
    stations: Vec<Mac>,
    /// Frames on the air: one, or a colliding group.
    on_air: Vec<OnAir<P>>,
    /// When the last frame left the air.
    last_end: Option<Time>,
    rng: Rng,
    /// A station went idle since the last [`Csma::admit`] (its next frame may be waiting).
    idle_since_admit: bool,
    /// The earliest time a station loading its frame when the last [`Csma::admit`] ran has it on
    /// the card. With `idle_since_admit` and the frames queued since the last step, this tells
    /// when `admit` has nothing to do and is skipped: 13% of a paper-001 run was spent in it.
    loading_until: Option<Time>,
    /// The stations [`Csma::admit`] has to look at, bit `s` for station `s`: those that went
    /// idle or were given a frame since it last ran, and those loading a frame. The others are
    /// sending, deferring or waiting, or idle with nothing queued, and `admit` would pass them
    /// over: it looked at every station, 7% of a paper-001 run. A cell of more than [`LOOK_MAX`]
    /// stations has no mask: `admit` looks at every station.
    look: u64,
    /// A station may be deferring: [`Csma::start_backoffs`] has work once the medium is idle.
    deferring: bool,
    /// The earliest time a station waits for (`None`: none waits): [`Csma::attempts`] has work
    /// only once it has come.
    waiting_until: Option<Time>,
    /// The earliest instant of a [`Phase::Foreseen`] station: [`Csma::settle`] has work only
    /// once it has come.
    foreseen_until: Option<Time>,
    /// Loads and waits that end on a busy medium are foreseen (`csma/foresight.rs`): the medium does not
    /// wake up for them. Off only in a test that compares the two.
    foresee: bool,
}

impl<P: Frame> Csma<P> {
    pub(super) fn new(p: CsmaParams, stations: usize, rng: Rng) -> Csma<P> {
        Csma {
            stations: (0..stations)
                .map(|_| Mac {
                    phase: Phase::Idle,
                    cw: p.cw_min,
                    attempt: 1,
                    own_end: None,
                    #[cfg(test)]
                    fixed: None,
                })
                .collect(),
            on_air: Vec::with_capacity(stations),
            last_end: None,
            rng,
            idle_since_admit: true,
            loading_until: None,
            // every station is idle and may be given a frame
            look: u64::MAX,
            deferring: false,
            waiting_until: None,
            foreseen_until: None,
            foresee: true,
            p,
        }
    }

    pub(super) fn is_busy(&self) -> bool {
        !self.on_air.is_empty()
    }

    pub(super) fn frames_on_air(&self) -> impl Iterator<Item = &P> {
        self.on_air.iter().map(|f| &f.tx.frame)
    }

    /// The next instant something happens: a frame ends, or a load or wait ends whose outcome
    /// is not foreseen.
    pub(super) fn poll_timeout(&self) -> Option<Time> {
        // `waiting_until` and `loading_until` are exact (they change only where a station
        // enters or leaves those phases), so no walk over the stations
        let mut next = earliest(self.waiting_until, self.loading_until);
        for f in &self.on_air {
            next = earliest(next, Some(f.end));
        }
        debug_assert_eq!(
            next,
            self.scan_timeout(),
            "a CSMA wait went untracked: {:?} w {:?} l {:?} f {:?} air {:?}",
            self.stations.iter().map(|m| m.phase).collect::<Vec<_>>(),
            self.waiting_until,
            self.loading_until,
            self.foreseen_until,
            self.on_air
                .iter()
                .map(|f| (f.start, f.end))
                .collect::<Vec<_>>()
        );
        next
    }

    /// What [`Csma::poll_timeout`] must give, found by every station; and no load or wait the
    /// medium wakes up for has an outcome that could have been foreseen.
    fn scan_timeout(&self) -> Option<Time> {
        let ends = self.on_air.iter().map(|f| f.end);
        let waits = (0..self.stations.len()).filter_map(|s| match self.stations[s].phase {
            Phase::Waiting { at, .. } | Phase::Loading { at } => {
                debug_assert!(
                    !self.foresee || self.foreseen(s, |t| self.heard_at(t)).is_none(),
                    "station {s} could be foreseen"
                );
                Some(at)
            }
            _ => None,
        });
        ends.chain(waits).min()
    }

    /// A transmission the stations hear at `now` is on the air: one that started more than the
    /// sense delay before.
    fn busy(&self, now: Time) -> bool {
        self.on_air
            .iter()
            .any(|f| f.start.saturating_add(self.p.sense_delay) < now)
    }

    /// The medium is free for a station sensing it at `now`.
    fn free(&self, now: Time) -> bool {
        !self.busy(now) && self.last_end.is_none_or(|e| now >= e + self.p.ifs)
    }

    /// A backoff of `[0, window)` slots for station `s`.
    fn draw(&mut self, s: StationId, window: u32) -> Time {
        #[cfg(test)]
        if let Some(k) = self.stations[s].fixed {
            return self.p.slot * u64::from(k);
        }
        let _ = s;
        self.p.slot * self.rng.below(u64::from(window))
    }

    /// Whether a frame on the air ends by `now` ([`Csma::end_frames`] has work). Most steps
    /// have none (nothing on the air, or a frame that goes on).
    #[inline]
    fn frames_end(&self, now: Time) -> bool {
        self.on_air.iter().any(|f| f.end <= now)
    }

    /// The frames that end by `now` leave the air, in order of end then station.
    ///
    /// (This, `attempts`, `admit_station` and `settle` are inlined into the step: as calls,
    /// each behind the test of whether it has work, they cost paper 001's run 1.6% more.)
    #[inline]
    fn end_frames(&mut self, m: &mut Medium<P>, now: Time) {
        while let Some(i) = self.next_to_end(now) {
            // the last frame on the air (most often the only one) leaves by a pop: `remove`
            // shifts the others in a call even when there are none
            let last = i + 1 == self.on_air.len();
            let Some(OnAir { end, tx, .. }) = (if last {
                self.on_air.pop()
            } else {
                Some(self.on_air.remove(i))
            }) else {
                break;
            };
            self.last_end = Some(self.last_end.map_or(end, |e| e.max(end)));
            let st = &mut self.stations[tx.from];
            st.phase = Phase::Idle;
            st.own_end = Some(end);
            self.look_at(tx.from);
            m.done.push_back(tx);
            self.idle_since_admit = true;
        }
    }

    /// The frame on the air that leaves it next by `now`: the earliest end, then the lowest
    /// station. Most often the only frame on the air (a collision puts more there), which
    /// needs no search.
    #[inline]
    fn next_to_end(&self, now: Time) -> Option<usize> {
        match &self.on_air[..] {
            [] => None,
            [f] => (f.end <= now).then_some(0),
            frames => (0..frames.len())
                .filter(|&i| frames[i].end <= now)
                .min_by_key(|&i| (frames[i].end, frames[i].tx.from)),
        }
    }

    /// Stations with a frame not yet looked at start handing it to the card (with a turnaround);
    /// stations whose frame is on the card sense the medium.
    fn admit(&mut self, m: &Medium<P>, now: Time) {
        // Most stations have nothing to admit at most steps (their frame is on the air, waits,
        // or there is none): only those in `look` are looked at, in station order as before.
        let mut loading_until = None;
        if self.stations.len() > LOOK_MAX {
            for s in 0..self.stations.len() {
                self.admit_if_due(m, now, s, &mut loading_until);
            }
        } else {
            let mut look = self.look;
            let mut keep = 0;
            while look != 0 {
                let s = look.trailing_zeros() as usize;
                look &= look - 1;
                if s >= self.stations.len() {
                    break;
                }
                if self.admit_if_due(m, now, s, &mut loading_until) {
                    keep |= 1 << s;
                }
            }
            self.look = keep;
        }
        self.idle_since_admit = false;
        self.loading_until = loading_until;
    }

    /// [`Csma::admit`] for station `s`: admitted if it is idle with a frame or its frame is on
    /// the card. True if it is loading after it (its load's end is folded into
    /// `loading_until`): `admit` must look at it again. (Inlined into `admit`'s walks: a call
    /// per station looked at cost 0.8% of a paper-001 run.)
    #[inline(always)]
    fn admit_if_due(
        &mut self,
        m: &Medium<P>,
        now: Time,
        s: StationId,
        loading_until: &mut Option<Time>,
    ) -> bool {
        // (the phase first: a station sending, deferring or waiting is passed over without a
        // look at its queue)
        match self.stations[s].phase {
            Phase::Idle if !m.queues[s].is_empty() => self.admit_station(m, now, s),
            // a station whose queue was emptied (a crashed base station's) while its frame
            // loaded has nothing on the card: idle again, or its load, past, would be asked
            // for at every step and the loop would never leave this instant
            Phase::Loading { .. }
            | Phase::Foreseen {
                ends: Ends::Load, ..
            } if m.queues[s].is_empty() => {
                self.stations[s].phase = Phase::Idle;
            }
            Phase::Loading { at } if at <= now => self.admit_station(m, now, s),
            _ => {}
        }
        match self.stations[s].phase {
            Phase::Loading { at } => {
                *loading_until = earliest(*loading_until, Some(at));
                true
            }
            // looked at again while it loads, for a queue emptied meanwhile
            Phase::Foreseen {
                ends: Ends::Load, ..
            } => true,
            _ => false,
        }
    }

    /// Station `s` must be looked at by the next [`Csma::admit`] (it went idle, or was given
    /// a frame).
    #[inline]
    pub(super) fn look_at(&mut self, s: StationId) {
        if s < LOOK_MAX {
            self.look |= 1 << s;
        }
    }

    /// Whether [`Csma::admit`] may have work at `now` (`queued`: frames were queued since the
    /// last step). It has none unless a station is idle with a frame, or loading one that is on
    /// the card by now: a station goes idle only where `idle_since_admit` is set, gets a frame
    /// only where a frame is queued, and `admit` leaves none idle with a frame.
    fn admit_due(&self, queued: bool, now: Time) -> bool {
        queued || self.idle_since_admit || self.loading_until.is_some_and(|t| t <= now)
    }

    /// Station `s`, whose head frame is new or on the card, starts loading it or senses the
    /// medium. (Inlined into its three callers: the call cost paper 001's run 1.2%.)
    #[inline(always)]
    fn admit_station(&mut self, m: &Medium<P>, now: Time, s: StationId) {
        // (`matches!`, not `==`: the derived comparison compares the phases' fields too)
        if matches!(self.stations[s].phase, Phase::Idle) && self.p.load_ns_per_byte > 0 {
            let len = m.queues[s].head_len();
            self.stations[s].phase = Phase::Loading {
                at: now + self.p.turnaround(len),
            };
            self.began(s);
            return;
        }
        let (cw_min, ifs) = (self.p.cw_min, self.p.ifs);
        let post_tx = self.p.post_tx_window;
        self.stations[s].cw = cw_min;
        self.stations[s].attempt = 1;
        let phase = if self.busy(now) {
            Phase::Deferring
        } else {
            match self.last_end {
                // its own frame was the last on the air, less than the IFS ago: the
                // anti-monopolisation wait
                Some(e) if self.stations[s].own_end == Some(e) && now < e + ifs => Phase::Waiting {
                    at: e + ifs + self.draw(s, post_tx),
                    backoff: false,
                },
                Some(e) => Phase::Waiting {
                    at: now.max(e + ifs),
                    backoff: false,
                },
                None => Phase::Waiting {
                    at: now,
                    backoff: false,
                },
            }
        };
        self.stations[s].phase = phase;
        if phase == Phase::Deferring {
            self.deferring = true;
        } else {
            self.began(s);
        }
    }

    /// Once the medium is idle, deferring stations start their backoffs, counted from the end of
    /// the last frame plus the IFS.
    fn start_backoffs(&mut self) {
        if !self.deferring || !self.on_air.is_empty() {
            return;
        }
        let from = self.last_end.unwrap_or(0) + self.p.ifs;
        for s in 0..self.stations.len() {
            if matches!(self.stations[s].phase, Phase::Deferring) {
                let cw = self.stations[s].cw;
                let at = from + self.draw(s, cw);
                // (nothing is on the air: no backoff is foreseen as it begins)
                self.stations[s].phase = Phase::Waiting { at, backoff: true };
                self.waiting_until = earliest(self.waiting_until, Some(at));
            }
        }
        self.deferring = false;
    }

    /// Whether a station's wait has ended by `now` ([`Csma::attempts`] has work).
    #[inline]
    fn wait_ended(&self, now: Time) -> bool {
        self.waiting_until.is_some_and(|t| t <= now)
    }

    /// Stations whose wait has ended sense the medium: they send if it is free (together, if
    /// several), otherwise defer or, after a backoff, count a failed attempt.
    #[inline]
    fn attempts(&mut self, m: &mut Medium<P>, now: Time) {
        // frames that start now are not heard by the others that start now: one answer for all
        let free = self.free(now);
        self.waiting_until = None;
        for s in 0..self.stations.len() {
            let Phase::Waiting { at, backoff } = self.stations[s].phase else {
                continue;
            };
            if at > now {
                self.waiting_until = earliest(self.waiting_until, Some(at));
                continue;
            }
            if free {
                self.send(m, now, s);
            } else {
                self.found_busy(m, s, backoff);
            }
        }
    }

    /// Station `s`'s wait ended on a busy medium: it defers; after a backoff that is a failed
    /// attempt, and after too many the frame is dropped.
    fn found_busy(&mut self, m: &mut Medium<P>, s: StationId, backoff: bool) {
        if !backoff {
            self.stations[s].phase = Phase::Deferring;
            self.deferring = true;
        } else if self.stations[s].attempt >= self.p.max_attempts {
            // too many attempts found the medium busy: the frame is dropped
            m.give_up(s);
            self.stations[s].phase = Phase::Idle;
            self.look_at(s);
            self.idle_since_admit = true;
        } else {
            let st = &mut self.stations[s];
            st.attempt += 1;
            st.cw = st.cw.saturating_mul(2).min(self.p.cw_max);
            st.phase = Phase::Deferring;
            self.deferring = true;
        }
    }

    /// Station `s` puts its head frame on the air at `now`; frames it did not hear (those that
    /// started within the sense delay, the same instant by default) collide with it.
    fn send(&mut self, m: &mut Medium<P>, now: Time, s: StationId) {
        let Some((air, mut tx)) = m.take_frame(now, s) else {
            self.stations[s].phase = Phase::Idle;
            self.look_at(s);
            self.idle_since_admit = true;
            return;
        };
        let end = now + air;
        let busy_until = self.on_air.iter().map(|f| f.end).max().unwrap_or(now);
        m.busy_time += end.saturating_sub(busy_until.max(now));
        let unheard = now.saturating_sub(self.p.sense_delay);
        for f in self.on_air.iter_mut().filter(|f| f.start >= unheard) {
            if !f.tx.collided {
                f.tx.collided = true;
                f.tx.frame.set_corrupted(true);
                m.collisions += 1;
            }
            if !tx.collided {
                tx.collided = true;
                tx.frame.set_corrupted(true);
                m.collisions += 1;
            }
        }
        self.stations[s].phase = Phase::Sending;
        self.on_air.push(OnAir {
            start: now,
            end,
            tx,
        });
        self.foresee_under_new_frame(now, end);
    }
}

impl<P: Frame> Medium<P> {
    /// Everything the CSMA rule does at `now`: frames that end leave the air, new frames sense the
    /// medium, deferring stations start their backoffs, ended waits send, defer or fail. Calling it
    /// again at the same `now` changes nothing unless frames were queued in between.
    pub(super) fn csma_step(&mut self, now: Time) {
        let Some(mut c) = self.csma.take() else {
            return;
        };
        let queued = self.queued_since_step;
        if c.overdue(now) {
            c.settle(self, now);
        }
        if c.frames_end(now) {
            c.end_frames(self, now);
        }
        if c.admit_due(queued, now) {
            c.admit(self, now);
        }
        c.start_backoffs();
        if c.wait_ended(now) {
            c.attempts(self, now);
        }
        // a dropped frame's successor, and stations that found the IFS not yet over (frames
        // queued before the step were looked at above, and none are queued during it)
        if c.admit_due(false, now) {
            c.admit(self, now);
        }
        c.start_backoffs();
        self.csma = Some(c);
        self.queued_since_step = false;
    }

    /// Test hook: every backoff station `s` draws from now on (after its own frame and after a
    /// deferral) is `slots` slots.
    #[cfg(test)]
    pub(super) fn fix_backoff(&mut self, s: StationId, slots: u32) {
        if let Some(c) = self.csma.as_mut() {
            c.stations[s].fixed = Some(slots);
        }
    }

    /// Test hook: the medium wakes up at every load's and wait's end, as it did before outcomes
    /// were foreseen.
    #[cfg(test)]
    pub(super) fn wake_for_every_wait(&mut self) {
        if let Some(c) = self.csma.as_mut() {
            c.foresee = false;
        }
    }

    /// Test view: station `s`'s contention window and its head frame's attempt.
    #[cfg(test)]
    pub(super) fn contention(&self, s: StationId) -> Option<(u32, u32)> {
        self.csma
            .as_ref()
            .map(|c| (c.stations[s].cw, c.stations[s].attempt))
    }
}
