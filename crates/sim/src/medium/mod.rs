//! A wireless cell's shared medium (paper 000 section IV-A, docs/model.md): one half-duplex 2 Mb/s
//! channel between a base station (station 0) and its mobile hosts (stations 1..). Every frame pays a
//! fixed per-frame MAC overhead on top of its bits; a corrupted frame still uses its airtime and reaches
//! its receiver, which discards it on the checksum.
//!
//! The medium is sans-IO, like the protocol objects: frames are queued with [`Medium::enqueue`],
//! [`Medium::start`] puts the next frame on the air when the access rule allows, the loop calls
//! [`Medium::on_timeout`] at [`Medium::poll_timeout`], and finished frames come out of
//! [`Medium::poll_done`]. The simulator and the live mode's emulator drive the same object.
//!
//! Who sends next is the access model's decision, one file each: `turns.rs` (stations with frames take
//! turns, today's calibrated model and the default), `csma.rs` (the original WaveLAN's CSMA/CA:
//! carrier sense, inter-frame spacing, random backoff, collisions) and `full_duplex.rs` (no
//! sharing: every station sends at once, the hop where nothing is emulated). Bit errors come from each
//! station's channel in each direction (`crate::channel`).

mod csma;
mod csma_params;
mod full_duplex;
mod queues;
mod turns;

pub use csma_params::CsmaParams;

use queues::{Queued, Queues};

use std::collections::VecDeque;

use snooplab_proto::agent::Priority;
use snooplab_proto::time::US;
use snooplab_proto::Time;

use crate::channel::Channel;
use crate::link::tx_time;
use crate::packet::SimPacket;
use crate::rng::Rng;

/// A station of a cell: 0 is the base station, 1.. its mobile hosts in the order they joined.
pub(crate) type StationId = usize;

/// The base station of every cell.
pub const BASE_STATION: StationId = 0;

/// What the medium needs to know of a frame: its size, and a place to mark bit errors.
pub trait Frame {
    /// Bytes at the IP layer.
    fn ip_len(&self) -> u32;
    /// The channel corrupted (or spared) this frame.
    fn set_corrupted(&mut self, corrupted: bool);
}

impl Frame for SimPacket {
    fn ip_len(&self) -> u32 {
        SimPacket::ip_len(self)
    }
    fn set_corrupted(&mut self, corrupted: bool) {
        self.corrupted = corrupted;
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct WavelanParams {
    /// Raw signalling rate.
    pub rate_bps: u64,
    /// Fixed airtime each frame pays besides its IP bytes: MAC header, preamble, inter-frame spacing and
    /// contention. See `docs/model.md`, "Calibration", for how 1084 us was derived. Under CSMA the
    /// IFS and the mean post-transmission backoff come off it ([`CsmaParams::frame_overhead`]).
    pub frame_overhead: Time,
    /// Frames each station's queue holds (per priority at the base station).
    pub queue_packets: usize,
}

impl Default for WavelanParams {
    fn default() -> Self {
        WavelanParams {
            rate_bps: 2_000_000,
            frame_overhead: 1084 * US,
            queue_packets: 1000,
        }
    }
}

/// How stations share the medium.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum AccessModel {
    /// Stations with frames take turns, round robin, one frame each; the medium is never idle while a
    /// frame waits and frames never collide. The per-frame overhead stands for all contention.
    #[default]
    Turns,
    /// The original WaveLAN's CSMA/CA (`csma.rs`): carrier sense, inter-frame spacing, random
    /// backoff in slots, collisions that destroy every frame involved, no link-level ACK.
    Csma(CsmaParams),
    /// Every station has a transmitter of its own and sends at once (`full_duplex.rs`): no turns,
    /// no contention, no station waits for another's frame. Not a radio: the hop of the live
    /// mode's `--env off`, and a cell without contention.
    FullDuplex,
}

impl AccessModel {
    /// Whether the pick of the next frame, once a frame has ended, waits for what its receiver
    /// answers at once ([`Medium::waits_for_answers`] of a medium of this access): under turn
    /// taking and CSMA it does; under full duplex nothing is picked between stations.
    pub fn waits_for_answers(&self) -> bool {
        !matches!(self, AccessModel::FullDuplex)
    }
}

impl AccessModel {
    pub fn name(&self) -> &'static str {
        match self {
            AccessModel::Turns => "turns",
            AccessModel::Csma(_) => "csma",
            AccessModel::FullDuplex => "full-duplex",
        }
    }

    /// The fixed airtime a frame pays besides its bits under this model: the calibrated overhead
    /// under turn taking, less the explicitly modelled waits under CSMA.
    pub fn frame_overhead(&self, p: &WavelanParams) -> Time {
        match self {
            AccessModel::Turns | AccessModel::FullDuplex => p.frame_overhead,
            AccessModel::Csma(c) => c.frame_overhead(p.frame_overhead),
        }
    }

    /// Checks the model's parameters against the cell's.
    pub fn validate(&self, p: &WavelanParams) -> Result<(), String> {
        match self {
            AccessModel::Turns | AccessModel::FullDuplex => Ok(()),
            AccessModel::Csma(c) => c.validate(p.frame_overhead),
        }
    }
}

/// A frame that went on the air: who sent it to whom, and what the receiver gets.
#[derive(Clone, Debug)]
pub struct Transmission<P> {
    pub from: StationId,
    pub to: StationId,
    /// Marked corrupted if the channel hit it (or it collided).
    pub frame: P,
    /// Another station's frame overlapped it: both are destroyed.
    pub collided: bool,
}

/// Counters of one station.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StationCounters {
    /// Frames the station put on the air.
    pub frames: u64,
    /// Frames it dropped from its queue: the queue was full, or (paper 002's old primary under
    /// `OldPrimaryQueue::Dropped`) the frames for a mobile host that asked it to buffer.
    pub drops: u64,
    /// Frames it dropped because too many attempts found the medium busy (CSMA).
    pub gave_up: u64,
}

/// The shared medium of one cell and its stations' queues, generic over the frame so that the
/// simulator and the live mode's emulator run the same model.
#[derive(Clone)]
pub struct Medium<P = SimPacket> {
    p: WavelanParams,
    model: AccessModel,
    /// The fixed airtime of every frame under `model`.
    overhead: Time,
    queues: Vec<Queues<P>>,
    /// Channel from the base station to each station (index 0 unused).
    down: Vec<Channel>,
    /// Channel from each station to the base station (index 0 unused).
    up: Vec<Channel>,
    /// The frame on the air and when it ends (turn taking).
    on_air: Option<(Time, Transmission<P>)>,
    /// The frame in `on_air` has ended: it waits there for [`Medium::poll_done`], and the medium
    /// is free. Why not move it to `done`: a frame is about 120 bytes, and the move there and
    /// back out cost two copies of it per frame.
    air_ended: bool,
    /// The CSMA state, its frames on the air included (CSMA only). Boxed: each step moves it out
    /// of the medium and back, a pointer rather than the whole state.
    csma: Option<Box<csma::Csma<P>>>,
    /// The frames on the air (full duplex only): boxed, as CSMA's state is.
    duplex: Option<Box<full_duplex::Duplex<P>>>,
    /// A frame was queued at a station that had none (or queues were cleared) since the last
    /// CSMA step: the next [`Medium::start`] has work to do. Without it a step between timeouts
    /// changes nothing.
    queued_since_step: bool,
    /// The station that sent last (turn taking starts after it).
    last: StationId,
    done: VecDeque<Transmission<P>>,
    /// Frames CSMA gave up on and their stations, for the loop to tell a base station's agent
    /// ([`Medium::poll_given_up`]); at most a queue's worth, the oldest forgotten first.
    given_up: VecDeque<(StationId, P)>,
    pub stations: Vec<StationCounters>,
    /// Frames destroyed by a collision.
    pub collisions: u64,
    /// Time the medium carried a frame (overlapping frames counted once).
    pub busy_time: Time,
    /// Longest queue any station had.
    pub max_queue: usize,
}

impl<P: Frame> Medium<P> {
    /// A medium with the base station and `channels.len()` mobile stations; `channels[i]` is the
    /// (down, up) pair of station `i + 1`. `backoff` is the cell's stream for CSMA backoffs
    /// ([`crate::rng::Stream::MediumBackoff`]); turn taking draws nothing from it.
    pub fn new(
        p: WavelanParams,
        model: AccessModel,
        channels: Vec<(Channel, Channel)>,
        backoff: Rng,
    ) -> Medium<P> {
        let n = channels.len() + 1;
        let (mut down, mut up) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let none = || {
            Channel::new(
                &crate::channel::ChannelSpec::None,
                crate::rng::ChannelStreams::down(0, 0),
            )
        };
        down.push(none());
        up.push(none());
        for (d, u) in channels {
            down.push(d);
            up.push(u);
        }
        let csma = match &model {
            AccessModel::Turns | AccessModel::FullDuplex => None,
            AccessModel::Csma(c) => Some(Box::new(csma::Csma::new(c.clone(), n, backoff))),
        };
        let duplex =
            (model == AccessModel::FullDuplex).then(|| Box::new(full_duplex::Duplex::new(n)));
        Medium {
            overhead: model.frame_overhead(&p),
            p,
            model,
            queues: (0..n).map(|_| Queues::default()).collect(),
            down,
            up,
            on_air: None,
            air_ended: false,
            csma,
            duplex,
            queued_since_step: false,
            // the base station goes first
            last: n - 1,
            done: VecDeque::new(),
            given_up: VecDeque::new(),
            stations: vec![StationCounters::default(); n],
            collisions: 0,
            busy_time: 0,
            max_queue: 0,
        }
    }

    pub fn params(&self) -> &WavelanParams {
        &self.p
    }

    pub fn model(&self) -> &AccessModel {
        &self.model
    }

    /// Stations, the base station included.
    pub(crate) fn station_count(&self) -> usize {
        self.queues.len()
    }

    /// Airtime of a frame carrying `ip_len` IP bytes under this medium's access model.
    pub fn airtime(&self, ip_len: u32) -> Time {
        self.overhead + tx_time(ip_len, self.p.rate_bps)
    }

    /// The channel that frames from `from` to `to` cross.
    pub fn channel(&self, from: StationId, to: StationId) -> &Channel {
        if from == BASE_STATION {
            &self.down[to]
        } else {
            &self.up[from]
        }
    }

    /// Queues a frame at station `from` for station `to`; false if the queue is full and the frame
    /// is dropped. Only the base station has a high-priority queue. (Inlined: once per frame
    /// from the loop, and the call cost `bench` 0.35% of its instructions.)
    #[inline(always)]
    pub fn enqueue(&mut self, from: StationId, to: StationId, frame: P, prio: Priority) -> bool {
        let q = &mut self.queues[from];
        let high = prio == Priority::High && from == BASE_STATION;
        let len = if high { q.high.len() } else { q.normal.len() };
        if len >= self.p.queue_packets {
            self.stations[from].drops += 1;
            return false;
        }
        let item = Queued {
            to,
            len: frame.ip_len(),
            frame,
        };
        // only a station that had nothing queued has a new head frame to admit: behind a head
        // frame (loading, waiting, deferring or on the air) the frame changes nothing until that
        // one has left, and the medium's next step need not run for it (`can_skip_start`)
        let first = q.is_empty();
        if high {
            q.high.push_back(item);
        } else {
            q.normal.push_back(item);
        }
        self.max_queue = self.max_queue.max(q.len());
        if first {
            self.queued_since_step = true;
            if let Some(c) = &mut self.csma {
                c.look_at(from);
            }
        }
        true
    }

    /// Whether a frame of priority `prio` from station `from` would find room in its queue
    /// ([`Medium::enqueue`] drops it otherwise).
    pub(crate) fn has_room(&self, from: StationId, prio: Priority) -> bool {
        let Some(q) = self.queues.get(from) else {
            return false;
        };
        let high = prio == Priority::High && from == BASE_STATION;
        let len = if high { q.high.len() } else { q.normal.len() };
        len < self.p.queue_packets
    }

    /// A frame CSMA dropped after too many attempts, and the station that had queued it.
    pub(crate) fn poll_given_up(&mut self) -> Option<(StationId, P)> {
        self.given_up.pop_front()
    }

    /// Station `s` gives up its head frame (CSMA, too many attempts).
    fn give_up(&mut self, s: StationId) {
        let frame = self.queues[s].pop();
        self.stations[s].gave_up += 1;
        if let Some(q) = frame {
            if self.given_up.len() >= self.p.queue_packets.max(1) {
                self.given_up.pop_front();
            }
            self.given_up.push_back((s, q.frame));
        }
    }

    /// Empties station `station`'s queues (a crashed base station's interface queue); returns how
    /// many frames were lost. A frame already on the air goes on.
    pub(crate) fn clear_queue(&mut self, station: StationId) -> usize {
        let Some(q) = self.queues.get_mut(station) else {
            return 0;
        };
        let n = q.len();
        q.high.clear();
        q.normal.clear();
        self.queued_since_step = true;
        n
    }

    /// Takes every frame station `from` has queued for station `to` out of its queues (both
    /// priorities; a frame already on the air goes on), counted as its drops; the others keep
    /// their order.
    pub(crate) fn drop_queued_for(&mut self, from: StationId, to: StationId) -> Vec<P> {
        let Some(q) = self.queues.get_mut(from) else {
            return vec![];
        };
        let mut out = vec![];
        for queue in [&mut q.high, &mut q.normal] {
            let (gone, kept): (VecDeque<_>, VecDeque<_>) =
                queue.drain(..).partition(|f| f.to == to);
            *queue = kept;
            out.extend(gone.into_iter().map(|f| f.frame));
        }
        self.stations[from].drops += out.len() as u64;
        self.queued_since_step = true;
        out
    }

    /// A frame is on the air.
    pub(crate) fn is_busy(&self) -> bool {
        match (&self.csma, &self.duplex) {
            (Some(c), _) => c.is_busy(),
            (None, Some(d)) => d.is_busy(),
            (None, None) => self.turn_on_air().is_some(),
        }
    }

    /// Whether the pick of the next frame, once a frame has ended, waits for what its receiver
    /// answers at once (a host outside the engine: `run/outside_hosts.rs`): under turn taking
    /// and CSMA the answer is queued before the pick, as a modelled host's is; under full duplex
    /// nothing is picked between stations, so nothing waits for it.
    pub(crate) fn waits_for_answers(&self) -> bool {
        self.duplex.is_none()
    }

    /// Whether the loop may skip [`Medium::start`] now: it would do nothing, and the time
    /// [`Medium::poll_timeout`] gave after the last call still stands. Under turn taking while a
    /// frame is on the air. Under CSMA when no station that had nothing queued was given a frame
    /// since the last step: every change of a station's state comes from a new head frame or
    /// from a time [`Medium::poll_timeout`] gives (a frame's end, a wait's end), and those steps
    /// run from [`Medium::on_timeout`]. A new head frame queued while another is on the air must
    /// sense the medium now (to defer), so it makes the next start a step; a frame queued behind
    /// a head frame waits for that one to leave, which a later step sees. Under full duplex
    /// never: [`Medium::start`] looks at every station each time (a free transmitter with a frame
    /// sends), which costs little on the few stations of the cells that use it (`--env off`),
    /// and the turn-taking test above stays the one check on the loop's path.
    pub(crate) fn can_skip_start(&self) -> bool {
        match &self.csma {
            None => self.turn_on_air().is_some(),
            Some(_) => !self.queued_since_step,
        }
    }

    /// The frames on the air: none, one, (CSMA) a colliding group, or (full duplex) one from each
    /// station sending.
    pub(crate) fn frames_on_air(&self) -> impl Iterator<Item = &P> {
        let turn = self.turn_on_air().map(|(_, t)| &t.frame).into_iter();
        let csma = self.csma.iter().flat_map(|c| c.frames_on_air());
        let duplex = self.duplex.iter().flat_map(|d| d.frames_on_air());
        turn.chain(csma).chain(duplex)
    }

    /// The normal-priority queue of `station`: frames waiting and the most it holds.
    pub(crate) fn queue_level(&self, station: StationId) -> (usize, usize) {
        (
            self.queues.get(station).map_or(0, |q| q.normal.len()),
            self.p.queue_packets,
        )
    }

    /// Frames waiting at each station.
    pub fn queued(&self) -> Vec<usize> {
        self.queues.iter().map(Queues::len).collect()
    }

    /// Puts the next frame on the air if the access model lets a station send now. (Inlined
    /// where the loop starts a cell: the call to this dispatch cost 0.15% of every run.)
    #[inline(always)]
    pub fn start(&mut self, now: Time) {
        match self.model {
            AccessModel::Turns => self.start_turn(now),
            AccessModel::Csma(_) => self.csma_step(now),
            AccessModel::FullDuplex => self.duplex_start(now),
        }
    }

    /// When the medium next needs [`Medium::on_timeout`].
    pub fn poll_timeout(&self) -> Option<Time> {
        if let Some(c) = &self.csma {
            return c.poll_timeout();
        }
        match self.turn_on_air() {
            Some((end, _)) => Some(*end),
            None => self.duplex.as_ref().and_then(|d| d.poll_timeout()),
        }
    }

    /// The frame on the air under turn taking, and when it ends (not one that has ended).
    fn turn_on_air(&self) -> Option<&(Time, Transmission<P>)> {
        self.on_air.as_ref().filter(|_| !self.air_ended)
    }

    /// An ended frame still in `on_air` joins the others that ended, behind them, to make room.
    pub(super) fn release_ended(&mut self) {
        if self.air_ended {
            self.air_ended = false;
            if let Some((_, t)) = self.on_air.take() {
                self.done.push_back(t);
            }
        }
    }

    /// The time asked for has come: a frame on the air has ended (or, under CSMA, a station's wait).
    pub fn on_timeout(&mut self, now: Time) {
        if self.csma.is_some() {
            self.csma_step(now);
            return;
        }
        if self.turn_on_air().is_some_and(|(end, _)| *end <= now) {
            self.air_ended = true; // taken from there by `poll_done`
        } else if self.duplex.is_some() {
            self.duplex_timeout(now);
        }
    }

    /// The next frame that has ended, for its receiver.
    pub fn poll_done(&mut self) -> Option<Transmission<P>> {
        // those released to `done` ended first
        if let Some(t) = self.done.pop_front() {
            return Some(t);
        }
        if !self.air_ended {
            return None;
        }
        self.air_ended = false;
        self.on_air.take().map(|(_, t)| t)
    }

    /// Takes `from`'s next frame and puts it on the air at `now`, through its channel (turn taking).
    fn transmit(&mut self, now: Time, from: StationId) {
        let Some((to, air)) = self.ready_frame(now, from) else {
            return;
        };
        self.busy_time += air;
        self.last = from;
        let Some(Queued { frame, .. }) = self.queues[from].pop() else {
            return;
        };
        self.on_air = Some((
            now + air,
            Transmission {
                from,
                to,
                frame,
                collided: false,
            },
        ));
    }

    /// Takes `from`'s next frame (high priority first) as it leaves at `now` ([`Medium::ready_frame`]),
    /// with its airtime (CSMA, full duplex).
    fn take_frame(&mut self, now: Time, from: StationId) -> Option<(Time, Transmission<P>)> {
        let (to, air) = self.ready_frame(now, from)?;
        let Queued { frame, .. } = self.queues[from].pop()?;
        let t = Transmission {
            from,
            to,
            frame,
            collided: false,
        };
        Some((air, t))
    }

    /// Readies `from`'s next frame (high priority first) to leave at `now`: marked by its channel
    /// where it waits, counted; gives its receiver and airtime. The caller then pops it from
    /// `from`'s queues straight to where it goes: a frame is about 120 bytes, and taking it out
    /// first, then marking, wrapping and handing it back cost a copy of it at each step.
    /// Inlined into its two callers: the call cost `bench` 1.2% of its instructions.
    #[inline(always)]
    fn ready_frame(&mut self, now: Time, from: StationId) -> Option<(StationId, Time)> {
        let head = self.queues[from].head_mut()?;
        let (to, len) = (head.to, head.len);
        let channel = if from == BASE_STATION {
            &mut self.down[to]
        } else {
            &mut self.up[from]
        };
        head.frame.set_corrupted(channel.corrupts(now, len));
        self.stations[from].frames += 1;
        Some((to, self.overhead + tx_time(len, self.p.rate_bps)))
    }
}

/// Airtime of a frame carrying `ip_len` IP bytes under turn taking: the per-frame overhead plus its
/// bits ([`Medium::airtime`] for any model).
pub fn airtime(p: &WavelanParams, ip_len: u32) -> Time {
    p.frame_overhead + tx_time(ip_len, p.rate_bps)
}

/// The best TCP payload rate of a cell with one sender and one receiver, bit/s: back-to-back data
/// frames of `mss` payload and `header` header bytes and one ACK frame per `segments_per_ack` of
/// them sharing the half-duplex medium.
pub fn one_flow_capacity_bps(
    p: &WavelanParams,
    mss: u32,
    header: u32,
    segments_per_ack: u32,
) -> f64 {
    let per_ack = u64::from(segments_per_ack.max(1));
    let ns = per_ack * airtime(p, mss + header) + airtime(p, header);
    per_ack as f64 * f64::from(mss) * 8.0 / (ns as f64 / 1e9)
}

#[cfg(test)]
mod tests;
