//! The user-space link emulator of the live base station (docs/live.md): the simulator's link
//! models, driven by the real clock. The wired link is a [`WiredLink`] in each direction (rate,
//! delay, queue); the wireless hop is the simulator's WaveLAN [`Medium`] (half-duplex airtime,
//! per-frame overhead, queues, the same error processes with the same meaning of `--error-every`
//! and `--burst`). Off, packets go straight through: for measuring the agents' own speed.

use std::collections::VecDeque;

use snooplab_proto::agent::{Port, Priority, Transmit};
use snooplab_proto::Time;
use snooplab_sim::channel::{Channel, ChannelSpec};
use snooplab_sim::engine::{EventQueue, TimerSlot};
use snooplab_sim::link::{WiredLink, WiredParams};
use snooplab_sim::medium::{
    one_flow_capacity_bps, AccessModel, Medium, WavelanParams, BASE_STATION,
};
use snooplab_sim::rng::{Rng, Stream};

use crate::packet::LivePacket;

/// The mobile host's station in the emulated cell.
const MOBILE: usize = 1;

/// The emulated links, as the simulator's scenario describes them.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkConfig {
    pub wired: WiredParams,
    pub wavelan: WavelanParams,
    /// Mean bytes between bit errors on the wireless hop, each direction; 0 = none.
    pub error_every: u64,
    pub burst: u32,
    /// Channel models of each direction over `error_every`/`burst` (`--down`, `--up`): the
    /// simulator's, so a Gilbert-Elliott channel or a replayed trace means the same here.
    pub down: Option<ChannelSpec>,
    pub up: Option<ChannelSpec>,
    /// Seeds the error processes (the simulator's streams).
    pub seed: u64,
}

impl LinkConfig {
    /// The channel models of the wireless hop, (down, up): `down`/`up` where set, else the
    /// `error_every`/`burst` shorthand.
    pub fn channels(&self) -> (ChannelSpec, ChannelSpec) {
        let every = ChannelSpec::every(self.error_every, self.burst);
        let down = self.down.clone().unwrap_or_else(|| every.clone());
        (down, self.up.clone().unwrap_or(every))
    }

    /// The best TCP payload rate the wireless hop allows, bit/s: back-to-back data frames of `mss`
    /// payload bytes and `header` header bytes, and one ACK frame per `segments_per_ack` of them
    /// sharing the half-duplex medium (the simulator's formula).
    pub fn wireless_capacity_bps(&self, mss: u32, header: u32, segments_per_ack: u32) -> f64 {
        one_flow_capacity_bps(&self.wavelan, mss, header, segments_per_ack)
    }

    /// The best TCP payload rate of the wired link towards the mobile host, bit/s: back-to-back
    /// segments of `mss` payload bytes and `header` header bytes plus the link's framing.
    pub fn wired_capacity_bps(&self, mss: u32, header: u32) -> f64 {
        let frame = mss + header + self.wired.framing_bytes;
        self.wired.rate_bps as f64 * f64::from(mss) / f64::from(frame.max(1))
    }

    /// The best TCP payload rate of the whole emulated path, bit/s: the slower of the wired link
    /// (the WAN pipe, 1.35 Mb/s of payload at MSS 1400) and the wireless hop (1.5 Mb/s).
    pub fn path_capacity_bps(&self, mss: u32, header: u32, segments_per_ack: u32) -> f64 {
        self.wireless_capacity_bps(mss, header, segments_per_ack)
            .min(self.wired_capacity_bps(mss, header))
    }
}

/// Where a packet goes next.
#[derive(Debug)]
pub enum Delivery {
    /// To the agent, arriving on this port.
    ToAgent(Port, LivePacket),
    /// Out of the base station on this side: `Wired` to the fixed host, `Wireless` to the mobile
    /// host (corrupted frames included, marked).
    ToHost(Port, LivePacket),
    /// A frame from the mobile host that the channel corrupted: the base station's link layer
    /// discards it (captures still show it).
    Lost(LivePacket),
}

/// A delivery and when it happens.
#[derive(Debug)]
pub struct Timed {
    pub at: Time,
    pub delivery: Delivery,
}

/// What the emulator's event queue (the simulator's) holds.
enum Pending {
    Deliver(Delivery),
    /// The medium's timer, with its generation.
    Air(u32),
}

struct Links {
    to_bs: WiredLink,
    to_fh: WiredLink,
    /// The simulator's cell: the base station and one mobile host, turn taking.
    air: Medium<LivePacket>,
    air_timer: TimerSlot,
}

/// Counters of the emulated links.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkCounters {
    pub frames_corrupted_down: u64,
    pub frames_corrupted_up: u64,
    /// Frames each direction's channel passed (data, ACKs, handshake).
    pub frames_down: u64,
    pub frames_up: u64,
    pub queue_drops: u64,
}

pub struct Emulator {
    links: Option<Links>,
    queue: EventQueue<Pending>,
    ready: VecDeque<Timed>,
}

impl Emulator {
    /// The links of `cfg`, or none (`None`: everything passes at once).
    pub fn new(cfg: Option<&LinkConfig>) -> Emulator {
        let links = cfg.map(|c| {
            let (down, up) = c.channels();
            let channels = vec![(
                Channel::new(&down, Rng::new(c.seed, Stream::ErrorsDown)),
                Channel::new(&up, Rng::new(c.seed, Stream::ErrorsUp)),
            )];
            Links {
                to_bs: WiredLink::new(c.wired.clone()),
                to_fh: WiredLink::new(c.wired.clone()),
                air: Medium::new(
                    c.wavelan.clone(),
                    AccessModel::Turns,
                    channels,
                    Rng::indexed(c.seed, Stream::MediumBackoff, 0),
                ),
                air_timer: TimerSlot::default(),
            }
        });
        Emulator {
            links,
            queue: EventQueue::default(),
            ready: VecDeque::new(),
        }
    }

    pub fn is_on(&self) -> bool {
        self.links.is_some()
    }

    fn deliver_now(&mut self, at: Time, delivery: Delivery) {
        self.ready.push_back(Timed { at, delivery });
    }

    /// A packet the fixed host (`Port::Wired`) or the mobile host (`Port::Wireless`) sent.
    pub fn from_host(&mut self, now: Time, side: Port, packet: LivePacket) {
        let Some(l) = self.links.as_mut() else {
            self.deliver_now(now, Delivery::ToAgent(side, packet));
            return;
        };
        match side {
            Port::Wired => {
                if let Some(at) = l.to_bs.send(now, packet.len() as u32) {
                    self.queue
                        .push(at, Pending::Deliver(Delivery::ToAgent(Port::Wired, packet)));
                }
            }
            Port::Wireless => {
                l.air
                    .enqueue(MOBILE, BASE_STATION, packet, Priority::Normal);
                self.start_air(now);
            }
        }
    }

    /// A packet the agent sends.
    pub fn from_agent(&mut self, now: Time, tx: Transmit<LivePacket>) {
        let Some(l) = self.links.as_mut() else {
            self.deliver_now(now, Delivery::ToHost(tx.port, tx.packet));
            return;
        };
        match tx.port {
            Port::Wired => {
                if let Some(at) = l.to_fh.send(now, tx.packet.len() as u32) {
                    self.queue.push(
                        at,
                        Pending::Deliver(Delivery::ToHost(Port::Wired, tx.packet)),
                    );
                }
            }
            Port::Wireless => {
                l.air.enqueue(BASE_STATION, MOBILE, tx.packet, tx.priority);
                self.start_air(now);
            }
        }
    }

    /// Puts the next frame on the air if the medium lets one go, and arms its timer.
    fn start_air(&mut self, now: Time) {
        let Some(l) = self.links.as_mut() else {
            return;
        };
        l.air.start(now);
        if let Some((t, gen)) = l.air_timer.update(l.air.poll_timeout()) {
            self.queue.push(t.max(now), Pending::Air(gen));
        }
    }

    /// When the next scheduled delivery is due.
    pub fn next_due(&self) -> Option<Time> {
        if !self.ready.is_empty() {
            return Some(0);
        }
        self.queue.peek_time()
    }

    /// The next delivery due at or before `now`, in time order. Link state advances at each event's
    /// own time, however late the loop looks, so airtime is exact.
    pub fn poll(&mut self, now: Time) -> Option<Timed> {
        loop {
            if let Some(t) = self.ready.pop_front() {
                return Some(t);
            }
            if self.queue.peek_time().is_none_or(|at| at > now) {
                return None;
            }
            let (at, what) = self.queue.pop()?;
            match what {
                Pending::Deliver(d) => return Some(Timed { at, delivery: d }),
                Pending::Air(gen) => {
                    let Some(l) = self.links.as_mut() else {
                        continue;
                    };
                    if !l.air_timer.fire(gen) {
                        continue;
                    }
                    l.air.on_timeout(at);
                    while let Some(tx) = l.air.poll_done() {
                        let frame = tx.frame;
                        let d = if tx.from == BASE_STATION {
                            Delivery::ToHost(Port::Wireless, frame)
                        } else if frame.is_corrupted() || tx.collided {
                            Delivery::Lost(frame)
                        } else {
                            Delivery::ToAgent(Port::Wireless, frame)
                        };
                        self.ready.push_back(Timed { at, delivery: d });
                    }
                    self.start_air(at);
                }
            }
        }
    }

    pub fn counters(&self) -> LinkCounters {
        match &self.links {
            None => LinkCounters::default(),
            Some(l) => LinkCounters {
                frames_corrupted_down: l.air.channel(BASE_STATION, MOBILE).corrupted,
                frames_corrupted_up: l.air.channel(MOBILE, BASE_STATION).corrupted,
                frames_down: l.air.channel(BASE_STATION, MOBILE).frames,
                frames_up: l.air.channel(MOBILE, BASE_STATION).frames,
                queue_drops: l.to_bs.drops
                    + l.to_fh.drops
                    + l.air.stations.iter().map(|s| s.drops).sum::<u64>(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::test_segment;
    use snooplab_proto::time::{MS, US};
    use snooplab_proto::wire;
    use snooplab_sim::scenario::Env;

    fn packet(len: u32) -> LivePacket {
        LivePacket::classify(wire::encode(&test_segment(len), None)).unwrap()
    }

    fn lan(error_every: u64) -> LinkConfig {
        LinkConfig {
            wired: Env::Lan.wired(),
            wavelan: WavelanParams::default(),
            error_every,
            burst: 1,
            down: None,
            up: None,
            seed: 1,
        }
    }

    fn drain(e: &mut Emulator, now: Time) -> Vec<Timed> {
        std::iter::from_fn(|| e.poll(now)).collect()
    }

    #[test]
    fn off_passes_everything_at_once() {
        let mut e = Emulator::new(None);
        e.from_host(5, Port::Wired, packet(100));
        let d = drain(&mut e, 5);
        assert!(matches!(
            d[..],
            [Timed {
                at: 5,
                delivery: Delivery::ToAgent(Port::Wired, _)
            }]
        ));
    }

    #[test]
    fn wired_then_airtime_as_the_simulator_models_them() {
        let mut e = Emulator::new(Some(&lan(0)));
        // 1440 IP bytes + 38 framing at 10 Mb/s = 1182.4 us, then 0.3 ms
        e.from_host(0, Port::Wired, packet(1400));
        assert!(drain(&mut e, MS).is_empty());
        let d = drain(&mut e, 2 * MS);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].at, 1_183 * US - 600 + 300 * US);
        let Delivery::ToAgent(_, p) = &d[0].delivery else {
            panic!("not to the agent");
        };
        // the agent forwards it: 1084 us overhead + 1440*8/2M = 5760 us on the air
        e.from_agent(10 * MS, Transmit::forward(Port::Wireless, p.clone()));
        assert!(drain(&mut e, 10 * MS + 6 * MS).is_empty());
        let d = drain(&mut e, 20 * MS);
        assert_eq!(d[0].at, 10 * MS + 1084 * US + 5760 * US);
        assert!(matches!(d[0].delivery, Delivery::ToHost(Port::Wireless, _)));
    }

    #[test]
    fn half_duplex_frames_take_turns() {
        let mut e = Emulator::new(Some(&lan(0)));
        e.from_agent(0, Transmit::forward(Port::Wireless, packet(1400)));
        e.from_host(0, Port::Wireless, packet(0));
        let d = drain(&mut e, SEC_LATER);
        let data_end = 1084 * US + 5760 * US;
        assert_eq!(d[0].at, data_end);
        // the 40-byte ACK waited for the data frame: 1084 us + 160 us after it
        assert_eq!(d[1].at, data_end + 1084 * US + 160 * US);
    }

    const SEC_LATER: Time = 1_000_000_000;

    #[test]
    fn errors_corrupt_down_frames_and_lose_up_frames_at_the_configured_rate() {
        let mut e = Emulator::new(Some(&lan(16384)));
        let mut t = 0;
        let (mut down_bad, mut up_lost) = (0, 0);
        for _ in 0..2000 {
            e.from_agent(t, Transmit::forward(Port::Wireless, packet(1400)));
            e.from_host(t, Port::Wireless, packet(1400));
            t += 20 * MS;
            for d in drain(&mut e, t) {
                match d.delivery {
                    Delivery::ToHost(_, p) if p.is_corrupted() => down_bad += 1,
                    Delivery::Lost(_) => up_lost += 1,
                    _ => {}
                }
            }
        }
        let c = e.counters();
        assert_eq!(c.frames_corrupted_down, down_bad);
        assert_eq!(c.frames_corrupted_up, up_lost);
        // P(frame hit) = 1 - exp(-1440/16384) = 8.4%
        for n in [down_bad, up_lost] {
            assert!((120..220).contains(&n), "{n} of 2000 corrupted");
        }
    }

    #[test]
    fn a_trace_channel_corrupts_the_frames_it_marks_frame_for_frame() {
        use snooplab_sim::channel::{ChannelTrace, Marks};
        let lost: Vec<bool> = (0..50).map(|i| i % 7 == 2 || i == 31).collect();
        let trace = std::sync::Arc::new(ChannelTrace {
            source: "t".into(),
            marks: Marks::Frames {
                lost: lost.clone(),
                repeat: false,
            },
        });
        let cfg = LinkConfig {
            down: Some(ChannelSpec::Trace(trace)),
            up: Some(ChannelSpec::None),
            ..lan(16384)
        };
        let mut e = Emulator::new(Some(&cfg));
        let mut got = Vec::new();
        for i in 0..50u64 {
            e.from_agent(i * 20 * MS, Transmit::forward(Port::Wireless, packet(1400)));
            for d in drain(&mut e, (i + 1) * 20 * MS) {
                if let Delivery::ToHost(_, p) = d.delivery {
                    got.push(p.is_corrupted());
                }
            }
        }
        assert_eq!(got, lost);
        let c = e.counters();
        assert_eq!((c.frames_down, c.frames_corrupted_down), (50, 8));
        assert_eq!(c.frames_corrupted_up, 0);
    }

    #[test]
    fn capacity_of_the_lan_wireless_hop() {
        let c = lan(0).wireless_capacity_bps(1400, 40, 2);
        // 2 x (1084 + 5760) + (1084 + 160) us for 2800 payload bytes
        assert!((c - 2800.0 * 8.0 / 14.932e-3).abs() < 1.0, "{c}");
        // 10 Mb/s Ethernet is not the bottleneck
        assert_eq!(lan(0).path_capacity_bps(1400, 40, 2), c);
    }

    #[test]
    fn capacity_of_the_wan_path_is_its_wired_pipe() {
        let mut wan = lan(0);
        wan.wired = Env::Wan.wired();
        let c = wan.path_capacity_bps(1400, 40, 2);
        // 1.3886 Mb/s of IP packets, 1400 of every 1440 bytes payload: paper 000's 1.35 Mb/s
        assert!((c - 1_388_571.0 * 1400.0 / 1440.0).abs() < 1.0, "{c}");
        assert!(c < wan.wireless_capacity_bps(1400, 40, 2));
    }
}
