//! The full-duplex access model: every station has a transmitter of its own and the medium carries
//! all of their frames at once, so no station ever waits for another's frame, nor for an answer
//! to its own: a switched, full-duplex hop (one frame at a time from each station, at the cell's
//! rate, with its per-frame overhead). It is no radio: it stands for the hop where nothing is
//! emulated (the live mode's `--env off`, whose hosts' kernels then send as fast as they can, the
//! way they would over a wire), and, in a scenario file (`access = "full-duplex"`), for a cell
//! without contention to set against the half-duplex ones. Bit errors come from each station's
//! channel as under the other models.

use snooplab_proto::Time;

use super::{Frame, Medium, StationId, Transmission};

/// A frame on the air and when it ends.
#[derive(Clone, Debug)]
struct OnAir<P> {
    end: Time,
    tx: Transmission<P>,
}

/// The full-duplex state of one cell: the frames on the air (at most one from each station).
#[derive(Clone)]
pub(super) struct Duplex<P> {
    on_air: Vec<OnAir<P>>,
    /// Whether each station's transmitter is sending.
    sending: Vec<bool>,
    /// When the last frame on the air ends: the medium's busy time counts overlapping frames
    /// once.
    busy_until: Time,
    /// The frames that ended at a timeout, kept between timeouts so that a frame's end allocates
    /// nothing (a live `--env off` run ends about a million frames a gigabyte).
    ended: Vec<OnAir<P>>,
}

impl<P: Frame> Duplex<P> {
    pub(super) fn new(stations: usize) -> Duplex<P> {
        Duplex {
            on_air: Vec::with_capacity(stations),
            sending: vec![false; stations],
            busy_until: 0,
            ended: Vec::with_capacity(stations),
        }
    }

    pub(super) fn is_busy(&self) -> bool {
        !self.on_air.is_empty()
    }

    pub(super) fn frames_on_air(&self) -> impl Iterator<Item = &P> {
        self.on_air.iter().map(|f| &f.tx.frame)
    }

    /// The next frame's end.
    pub(super) fn poll_timeout(&self) -> Option<Time> {
        self.on_air.iter().map(|f| f.end).min()
    }
}

impl<P: Frame> Medium<P> {
    /// Every station whose transmitter is free and that has a frame queued puts its next frame
    /// on the air at `now` (high priority first, as under the other models). Never inlined: the
    /// turn-taking cells' steps that call it (`start`, `on_timeout`) stay small enough to be
    /// inlined into the loop (inlined, this model's steps cost `bench` 0.6%: `on_timeout` became a
    /// call).
    #[inline(never)]
    pub(super) fn duplex_start(&mut self, now: Time) {
        let Some(mut d) = self.duplex.take() else {
            return;
        };
        for s in 0..self.queues.len() {
            if d.sending[s] {
                continue;
            }
            let Some((air, tx)) = self.take_frame(now, s) else {
                continue;
            };
            let end = now + air;
            self.busy_time += end - end.min(now.max(d.busy_until));
            d.busy_until = d.busy_until.max(end);
            d.sending[s] = true;
            self.last = s;
            d.on_air.push(OnAir { end, tx });
        }
        self.duplex = Some(d);
    }

    /// Frames that have ended by `now` leave the air for their receivers, in the order they
    /// ended (those ending together in their stations' order); their stations' transmitters are
    /// free for the next start. Never inlined, as [`Medium::duplex_start`].
    #[inline(never)]
    pub(super) fn duplex_timeout(&mut self, now: Time) {
        let Some(d) = self.duplex.as_mut() else {
            return;
        };
        let mut ended = std::mem::take(&mut d.ended);
        let mut k = 0;
        while k < d.on_air.len() {
            if d.on_air[k].end <= now {
                ended.push(d.on_air.swap_remove(k));
            } else {
                k += 1;
            }
        }
        ended.sort_by_key(|f| (f.end, f.tx.from));
        for f in ended.drain(..) {
            let s: StationId = f.tx.from;
            d.sending[s] = false;
            self.done.push_back(f.tx);
        }
        d.ended = ended;
    }
}
