//! An emulated link on one interface's egress (`--wired-delay`, `--wireless-delay`,
//! `--wireless-rate`, `--wireless-error-every`): every frame the bridge writes on that side is
//! held as long as the link says before it is written, as `tc qdisc add dev IFACE root netem
//! delay DELAY` would hold it, for kernels without netem (docs/live.md, "A wired delay without
//! netem").
//!
//! **The model is the simulator's wired link** (`snooplab_sim::link::WiredLink`, one FIFO, a
//! rate and a one-way delay): a frame's release time is the time the link says it arrives at the
//! far end. Without a rate the rate is unlimited (`u64::MAX` bit/s, which the model serialises a
//! frame in its least time, a nanosecond), as netem without `rate` is; with one, each frame takes
//! its bytes and Ethernet's framing on the wire ([`ETHERNET_WIRE_EXTRA`]) at that rate. Frames keep
//! their order (a FIFO with one delay cannot reorder, nor can netem without jitter).
//!
//! **Loss is the simulator's channel** (`snooplab_sim::channel::Channel`, the models of
//! `--error-every`/`--down`): a frame it corrupts has taken its time on the link and is not
//! written (the simulator's wireless frames likewise take the air and are lost at the receiver).
//! A reading: the channel is asked at the time the frame is written to the link, where the
//! simulator asks at the time it starts on the air; only the time-driven models (Gilbert-Elliott,
//! a replayed trace by period) can tell them apart.
//!
//! **Bounded as netem is**: at most [`DEFAULT_LIMIT`] frames held (netem's default `limit`,
//! 1000 packets, set by iproute2's tc/q_netem.c `netem_parse_opt`), a frame past it dropped and
//! counted (the kernel's net/sched/sch_netem.c `netem_enqueue`: `sch->q.qlen >= sch->limit`
//! drops). The limit counts every frame held, those still "on the wire" too, as netem's queue
//! holds them until their time. The frames' bytes are kept in buffers reused from frame to frame.
//!
//! **Timer-driven**: the bridge's loop sleeps until [`EgressLink::next_release`] at the latest
//! and then moves every frame due into its outgoing batch ([`EgressLink::release_due`]): one
//! `sendmmsg` for all frames due together, and no frame waits in the loop.

use std::collections::VecDeque;

use snooplab_proto::duration::{Range, MIN};
use snooplab_proto::time::US;
use snooplab_proto::Time;
use snooplab_sim::channel::{Channel, ChannelSpec};
use snooplab_sim::link::{WiredLink, WiredParams};
use snooplab_sim::rng::ChannelStreams;

use super::batch::{Origin, Outgoing, MAX_FRAME};

/// netem's default queue limit, packets (iproute2 tc/q_netem.c: `opt.limit = 1000`).
pub const DEFAULT_LIMIT: usize = 1000;
/// The most frames a link may be told to hold: of up to [`MAX_FRAME`] bytes each, 1 GiB at most.
pub const MAX_LIMIT: usize = (1 << 30) / MAX_FRAME;
const _: () = assert!(MAX_LIMIT * MAX_FRAME <= 1 << 30 && MAX_LIMIT >= DEFAULT_LIMIT);
/// The delays taken: from a microsecond (below that the loop's own turn is the delay) to a
/// minute (a frame held longer outlives any TCP connection's patience for it: Linux's largest
/// retransmission timeout, TCP_RTO_MAX, is two minutes, and the first timeouts are seconds).
pub const DELAY_RANGE: Range = Range::new(US, MIN);

/// What an Ethernet frame takes on the wire beyond the bytes a packet socket carries (its
/// header): the preamble and start delimiter (8), the FCS (4) and the inter-frame gap (12), IEEE
/// 802.3; the simulator's Ethernet framing (38 bytes an IP packet) less the 14-byte header.
pub const ETHERNET_WIRE_EXTRA: u32 = 24;

/// The rates taken, bit/s: from 1 kbit/s to 100 Gbit/s (faster than any interface the bridge
/// keeps up with; below a kilobit a frame takes seconds).
pub const RATE_RANGE: (u64, u64) = (1_000, 100_000_000_000);

/// A frame held: when it leaves, and its bytes.
struct Held {
    release: Time,
    bytes: Vec<u8>,
    origin: Origin,
}

/// What one emulated link did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct LinkCounters {
    /// Frames it took and held.
    pub held: u64,
    /// Frames dropped because it already held its limit.
    pub queue_drops: u64,
    /// The most frames it held at once.
    pub max_held: usize,
    /// Frames the channel corrupted, not written.
    pub channel_drops: u64,
}

/// What an emulated link is made of.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkSpec {
    pub delay: Time,
    /// bit/s; `None` is unlimited.
    pub rate_bps: Option<u64>,
    /// Frames held at most.
    pub limit: usize,
    /// The loss model, and the seed of its random stream.
    pub channel: ChannelSpec,
    pub seed: u64,
}

pub struct EgressLink {
    link: WiredLink,
    channel: Channel,
    limit: usize,
    held: VecDeque<Held>,
    /// Buffers of frames already written, for the next frames held.
    spare: Vec<Vec<u8>>,
    pub counters: LinkCounters,
}

impl EgressLink {
    /// A link holding each frame `delay`, at most `limit` frames at once, no rate, no loss.
    pub fn new(delay: Time, limit: usize) -> EgressLink {
        EgressLink::with(&LinkSpec {
            delay,
            rate_bps: None,
            limit,
            channel: ChannelSpec::None,
            seed: 1,
        })
    }

    /// The link `spec` describes; its channel draws from the simulator's downlink streams of
    /// `spec.seed` (the direction towards the mobile hosts, as the wireless egress is).
    pub fn with(spec: &LinkSpec) -> EgressLink {
        let params = WiredParams {
            rate_bps: spec.rate_bps.unwrap_or(u64::MAX),
            delay: spec.delay,
            // the frames carry their Ethernet header; with no rate nothing is framed
            framing_bytes: spec.rate_bps.map_or(0, |_| ETHERNET_WIRE_EXTRA),
            queue_packets: spec.limit,
        };
        EgressLink {
            link: WiredLink::new(params),
            channel: Channel::new(&spec.channel, ChannelStreams::down(spec.seed, 0)),
            limit: spec.limit,
            held: VecDeque::new(),
            spare: Vec::new(),
            counters: LinkCounters::default(),
        }
    }

    /// Takes a frame of `header` then `body` written at `now`; drops it (counted) when the link
    /// holds its limit already.
    pub fn push(&mut self, now: Time, header: &[u8], body: &[u8], origin: Origin) {
        let len = header.len() + body.len();
        let arrival = if self.held.len() >= self.limit {
            None
        } else {
            self.link.send(now, len as u32)
        };
        let Some(release) = arrival else {
            self.counters.queue_drops += 1;
            return;
        };
        if self.channel.corrupts(now, len as u32) {
            self.counters.channel_drops += 1;
            return;
        }
        let mut bytes = self.spare.pop().unwrap_or_default();
        bytes.clear();
        bytes.extend_from_slice(header);
        bytes.extend_from_slice(body);
        self.held.push_back(Held {
            release,
            bytes,
            origin,
        });
        self.counters.held += 1;
        self.counters.max_held = self.counters.max_held.max(self.held.len());
    }

    /// When the first frame held is due, if one is held.
    pub fn next_release(&self) -> Option<Time> {
        self.held.front().map(|h| h.release)
    }

    /// Moves every frame due at `now` into `out`, in the order taken; how many.
    pub fn release_due(&mut self, now: Time, out: &mut Outgoing) -> usize {
        let mut n = 0;
        while self.held.front().is_some_and(|h| h.release <= now) {
            let Some(h) = self.held.pop_front() else {
                break;
            };
            out.push(&[], &h.bytes, h.origin);
            if self.spare.len() < self.limit {
                self.spare.push(h.bytes);
            }
            n += 1;
        }
        n
    }

    /// How many frames it holds now.
    pub fn holding(&self) -> usize {
        self.held.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use snooplab_proto::time::MS;

    #[test]
    fn a_frame_leaves_no_sooner_than_the_delay_and_in_order() {
        let mut l = EgressLink::new(50 * MS, DEFAULT_LIMIT);
        let mut out = Outgoing::default();
        l.push(0, &[1], &[2, 3], Origin::Passed);
        l.push(MS, &[], &[4], Origin::Agent);
        // the model's least serialisation, a nanosecond per frame, on top of the delay
        assert_eq!(l.next_release(), Some(50 * MS + 1));
        assert_eq!(l.release_due(50 * MS, &mut out), 0);
        assert_eq!(l.release_due(50 * MS + 1, &mut out), 1);
        assert_eq!(out.frame(0), &[1, 2, 3]);
        assert_eq!(l.release_due(51 * MS + 1, &mut out), 1);
        assert_eq!((out.frame(1), out.origin(1)), (&[4][..], Origin::Agent));
        assert_eq!((l.next_release(), l.holding()), (None, 0));
    }

    /// The model's rate: back-to-back frames leave a transmission time apart, each its bytes
    /// and Ethernet's framing at the rate (1226 + 24 bytes at 10 Mb/s: 1 ms).
    #[test]
    fn with_a_rate_frames_leave_a_transmission_time_apart() {
        let mut l = EgressLink::with(&LinkSpec {
            delay: 5 * MS,
            rate_bps: Some(10_000_000),
            limit: DEFAULT_LIMIT,
            channel: ChannelSpec::None,
            seed: 1,
        });
        let mut out = Outgoing::default();
        for _ in 0..3 {
            l.push(0, &[], &[0; 1226], Origin::Passed);
        }
        assert_eq!(l.next_release(), Some(6 * MS));
        assert_eq!(l.release_due(7 * MS, &mut out), 2);
        assert_eq!(l.next_release(), Some(8 * MS));
    }

    /// The channel's losses: a frame it corrupts is not written and is counted; the seed fixes
    /// which (the simulator's stream).
    #[test]
    fn a_frame_the_channel_corrupts_is_dropped_and_counted() {
        let lossy = |seed| {
            let mut l = EgressLink::with(&LinkSpec {
                delay: MS,
                rate_bps: None,
                limit: 10_000,
                channel: ChannelSpec::every(16 * 1024, 1),
                seed,
            });
            for _ in 0..1000 {
                l.push(0, &[], &[0; 1514], Origin::Passed);
            }
            l
        };
        let l = lossy(1);
        let c = l.counters;
        assert!(c.channel_drops > 0 && c.channel_drops < 1000, "{c:?}");
        assert_eq!(l.holding() as u64 + c.channel_drops, 1000);
        assert_eq!(lossy(1).counters, c);
    }

    #[test]
    fn past_the_limit_a_frame_is_dropped_and_counted() {
        let mut l = EgressLink::new(10 * MS, 2);
        let mut out = Outgoing::default();
        for _ in 0..3 {
            l.push(0, &[], &[9; 60], Origin::Passed);
        }
        assert_eq!((l.holding(), l.counters.queue_drops), (2, 1));
        assert_eq!(l.counters.max_held, 2);
        // once they leave there is room again
        assert_eq!(l.release_due(10 * MS + 2, &mut out), 2);
        l.push(10 * MS + 2, &[], &[9; 60], Origin::Passed);
        assert_eq!((l.holding(), l.counters.held), (1, 3));
    }
}
