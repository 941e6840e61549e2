//! Explicit loss notification for mobile senders (paper 004 sections 3.2-3.3): the base station
//! watches the data a mobile host sends, keeps per connection the list of blocks it has seen
//! ([`MobileSenders`], `holes.rs`; a gap is a hole, a segment lost on the wireless link), and sets
//! the ELN bit on the ACKs it forwards to the mobile host whenever they ask for a hole. It caches nothing and resends
//! nothing: "the retransmission policy is left to the end-host, and the base station only conveys
//! relevant information to it".
//!
//! The queue rule: a gap is a wireless hole only if neither the base station's input queue (told to
//! the agent by its node, [`Agent::on_input_queue`]) nor the mobile host's output queue (piggybacked
//! on each of its packets, `Segment::queue`) is above [`ElnConfig::queue_threshold`] of its maximum
//! when the out-of-sequence segment arrives; otherwise it may be a congestion drop and is bridged.
//!
//! In a transit topology (section 3.5, sender - A - wireless - B - receiver) the same agent runs at B,
//! where the data arrives from the wireless side; A forwards the marked ACKs as they are.

use std::collections::VecDeque;

use super::holes::MobileSenders;
use super::{
    agent_counters, Agent, AgentProbe, BuildPacket, Counters, Port, QueueReader, SegmentView,
    Transmit,
};
use crate::segment::Segment;
use crate::time::{Time, SEC};

#[derive(Clone, Debug, PartialEq)]
pub struct ElnConfig {
    /// A queue above this fraction of its maximum makes a gap a possible congestion loss: 0.75
    /// ("set to 75% in our implementation", paper 004 section 3.3).
    pub queue_threshold: f64,
    /// Blocks kept per connection; a gap beyond them is bridged (memory stays bounded).
    pub max_blocks: usize,
    /// Connections tracked at once; the least recently active is forgotten beyond this.
    pub max_connections: usize,
    /// A connection with no packets for this long is forgotten.
    pub idle_timeout: Time,
}

impl ElnConfig {
    /// Paper 004's settings.
    pub fn paper004() -> ElnConfig {
        ElnConfig {
            queue_threshold: 0.75,
            max_blocks: 256,
            max_connections: 1024,
            idle_timeout: 120 * SEC,
        }
    }
}

agent_counters! {
    /// What the ELN marker counted.
    pub struct ElnStats {
        /// Packets passed on to the other port.
        pub forwarded,
        /// Gaps in a mobile sender's data recorded as wireless holes.
        pub holes,
        /// Gaps bridged because a queue was above the threshold: possible congestion losses.
        pub congestion_gaps,
        /// ACKs forwarded to the mobile host with the ELN bit set.
        pub eln_marked_acks,
    }
}

#[derive(Clone)]
pub struct ElnAgent<P> {
    senders: MobileSenders<()>,
    out: VecDeque<Transmit<P>>,
    /// Its own counts; the gaps are the senders' ([`ElnAgent::stats`]).
    stats: ElnStats,
}

impl<P> ElnAgent<P> {
    pub fn new(cfg: ElnConfig) -> ElnAgent<P> {
        ElnAgent {
            senders: MobileSenders::new(
                cfg.queue_threshold,
                cfg.max_blocks,
                cfg.max_connections,
                cfg.idle_timeout,
            ),
            out: VecDeque::new(),
            stats: ElnStats::default(),
        }
    }

    /// What it counted so far.
    pub fn stats(&self) -> ElnStats {
        let (holes, congestion_gaps) = self.senders.gaps();
        ElnStats {
            holes,
            congestion_gaps,
            ..self.stats
        }
    }

    /// An ACK towards the mobile host: clean what it covers, and mark it if it asks for a hole.
    fn on_ack(&mut self, now: Time, seg: &Segment) -> bool {
        self.senders
            .on_ack(now, seg)
            .is_some_and(|c| !seg.eln && c.blocks.is_hole(seg.ack))
    }
}

impl<P: SegmentView + BuildPacket + Clone + 'static> Agent<P> for ElnAgent<P> {
    fn on_packet(&mut self, now: Time, from: Port, packet: P) {
        let Some(seg) = packet.segment().copied() else {
            self.stats.forwarded += 1;
            self.out
                .push_back(Transmit::forward(from.opposite(), packet));
            return;
        };
        let out = match from {
            Port::Wireless => {
                self.senders.on_data(now, &seg);
                packet
            }
            Port::Wired if seg.has_ack() && self.on_ack(now, &seg) => {
                // the ELN bit is set and the packet rebuilt (its checksum recomputed)
                self.stats.eln_marked_acks += 1;
                let marked = Segment { eln: true, ..seg };
                P::build(&marked, &packet)
            }
            Port::Wired => packet,
        };
        self.stats.forwarded += 1;
        self.out.push_back(Transmit::forward(from.opposite(), out));
    }

    fn on_timeout(&mut self, _now: Time) {}

    fn poll_transmit(&mut self, _now: Time) -> Option<Transmit<P>> {
        self.out.pop_front()
    }

    fn poll_timeout(&self) -> Option<Time> {
        None
    }

    fn counters(&self) -> Counters {
        self.stats().named()
    }

    fn probe(&self) -> AgentProbe {
        AgentProbe {
            connections: self.senders.connections() as u32,
            ..AgentProbe::default()
        }
    }

    fn queue_reader(&mut self) -> Option<&mut dyn QueueReader<P>> {
        Some(self)
    }
}

/// The queue rule reads the base station's input queue (paper 004 section 3.3).
impl<P> QueueReader<P> for ElnAgent<P> {
    fn on_input_queue(&mut self, len: usize, max: usize) {
        self.senders.set_input_queue(len, max);
    }
}

#[cfg(test)]
#[path = "eln_tests.rs"]
mod tests;
