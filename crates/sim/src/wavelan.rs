//! The WaveLAN hop (paper 000 section IV-A, DESIGN section 2): one shared half-duplex 2 Mb/s medium
//! between the base station and the mobile host. Data frames (BS to MH) and ACK frames (MH to BS) take
//! turns; every frame pays a fixed per-frame MAC overhead on top of its bits; a corrupted frame still
//! uses its airtime and reaches the receiver, which discards it on the checksum.

use std::collections::VecDeque;

use snooplab_proto::agent::Priority;
use snooplab_proto::time::US;
use snooplab_proto::Time;

use crate::error_model::{ErrorProcess, ErrorSpec};
use crate::link::tx_time;
use crate::packet::SimPacket;
use crate::rng::{Rng, Stream};

/// What the medium needs to know of a frame: its size, and a place to mark bit errors.
pub trait Frame {
    /// Bytes at the IP layer.
    fn ip_len(&self) -> u32;
    /// The channel corrupted (or spared) this frame.
    fn set_corrupted(&mut self, corrupted: bool);
}

impl Frame for SimPacket {
    fn ip_len(&self) -> u32 {
        self.seg.ip_len()
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
    /// contention. See the README section "Calibration" for how 1084 us was derived.
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

/// Who transmits on the medium.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Station {
    BaseStation,
    Mobile,
}

/// The medium and the two stations' transmit queues, generic over the frame so that the simulator
/// and the live mode's emulator run the same model.
pub struct Medium<P = SimPacket> {
    p: WavelanParams,
    bs_high: VecDeque<P>,
    bs_normal: VecDeque<P>,
    mh: VecDeque<P>,
    /// The frame on the air and who sent it.
    current: Option<(Station, P)>,
    last: Station,
    /// Channel from the base station to the mobile host.
    pub down: ErrorProcess,
    /// Channel from the mobile host to the base station.
    pub up: ErrorProcess,
    pub drops: u64,
    pub busy_time: Time,
    pub max_queue: usize,
}

impl<P: Frame> Medium<P> {
    pub fn new(p: WavelanParams, down: ErrorProcess, up: ErrorProcess) -> Medium<P> {
        Medium {
            p,
            bs_high: VecDeque::new(),
            bs_normal: VecDeque::new(),
            mh: VecDeque::new(),
            current: None,
            last: Station::Mobile,
            down,
            up,
            drops: 0,
            busy_time: 0,
            max_queue: 0,
        }
    }

    /// The medium with the error model `spec` in both directions, each drawn from its own stream of
    /// `seed` (the same frames are hit whatever else the run does).
    pub fn with_errors(p: WavelanParams, spec: ErrorSpec, seed: u64) -> Medium<P> {
        Medium::new(
            p,
            ErrorProcess::new(spec.clone(), Rng::new(seed, Stream::ErrorsDown)),
            ErrorProcess::new(spec, Rng::new(seed, Stream::ErrorsUp)),
        )
    }

    /// Airtime of a frame carrying `ip_len` IP bytes.
    pub fn airtime(&self, ip_len: u32) -> Time {
        self.p.frame_overhead + tx_time(ip_len, self.p.rate_bps)
    }

    /// Queues a frame at a station; false if the queue is full and the frame is dropped.
    pub fn enqueue(&mut self, from: Station, pkt: P, prio: Priority) -> bool {
        let q = match (from, prio) {
            (Station::BaseStation, Priority::High) => &mut self.bs_high,
            (Station::BaseStation, Priority::Normal) => &mut self.bs_normal,
            (Station::Mobile, _) => &mut self.mh,
        };
        if q.len() >= self.p.queue_packets {
            self.drops += 1;
            return false;
        }
        q.push_back(pkt);
        self.max_queue = self.max_queue.max(q.len());
        true
    }

    pub fn is_busy(&self) -> bool {
        self.current.is_some()
    }

    /// Frames waiting at the base station (both priorities) and at the mobile host.
    pub fn queued(&self) -> (usize, usize) {
        (self.bs_high.len() + self.bs_normal.len(), self.mh.len())
    }

    /// If the medium is idle and a frame waits, puts it on the air and returns when it ends, who sent
    /// it and the frame. Stations with frames take turns; the base station serves its high-priority
    /// queue first.
    pub fn start_next(&mut self, now: Time) -> Option<(Time, Station, &P)> {
        if self.current.is_some() {
            return None;
        }
        let bs_ready = !self.bs_high.is_empty() || !self.bs_normal.is_empty();
        let mh_ready = !self.mh.is_empty();
        let who = match (bs_ready, mh_ready) {
            (false, false) => return None,
            (true, false) => Station::BaseStation,
            (false, true) => Station::Mobile,
            (true, true) => match self.last {
                Station::BaseStation => Station::Mobile,
                Station::Mobile => Station::BaseStation,
            },
        };
        let mut pkt = match who {
            Station::BaseStation => self
                .bs_high
                .pop_front()
                .or_else(|| self.bs_normal.pop_front()),
            Station::Mobile => self.mh.pop_front(),
        }?;
        let len = pkt.ip_len();
        pkt.set_corrupted(match who {
            Station::BaseStation => self.down.corrupts(len),
            Station::Mobile => self.up.corrupts(len),
        });
        let air = self.airtime(len);
        self.busy_time += air;
        self.last = who;
        let (_, on_air) = self.current.insert((who, pkt));
        Some((now + air, who, on_air))
    }

    /// The frame on the air has ended: hand it over.
    pub fn finish(&mut self) -> Option<(Station, P)> {
        self.current.take()
    }
}
