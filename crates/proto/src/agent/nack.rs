//! NACKs for mobile senders (paper 002 section 3.2; paper 004 section 3.1): the base station keeps
//! the same list of blocks as the ELN marker ([`MobileSenders`], `holes.rs`) and tells a
//! SACK-enabled mobile sender which segments it is missing, as TCP ACKs it makes up that carry RFC 2018 SACK blocks ("NAKs can
//! be implemented using the TCP SACK option"). Fixed hosts are unchanged; the mobile host only needs
//! SACK processing. The blocks are advisory: the sender frees nothing until the fixed host's
//! cumulative ACK covers it, so a segment the base station reported and the wired path then lost is
//! still resent (on the fixed host's duplicates or a timeout).
//!
//! When ("when either a threshold number of packets (from a single window) have reached the base
//! station or when a certain amount of time has expired without any new packets from the mobile"):
//! once [`NackConfig::threshold`] packets have arrived above a wireless hole, every further packet
//! from the mobile host while a hole remains draws a NACK, and while holes remain and nothing
//! arrives for [`NackConfig::idle_timeout`], one NACK goes out per period (at most
//! [`NackConfig::max_idle_nacks`] in a row). A NACK repeats the fixed host's last ACK (sequence,
//! acknowledgment, window), so the sender sees a duplicate ACK, and lists the blocks above it, the
//! one holding the newest packet first (RFC 2018 section 4).
//!
//! The queue rule of the ELN marker applies (a gap while a queue is above the threshold is not a
//! wireless hole), and the agent reads the same [`Agent::on_input_queue`] levels.

use std::collections::VecDeque;

use super::holes::{MobileSenders, Recorded, Sender};
use super::{
    agent_counters, Agent, AgentProbe, BuildPacket, Counters, Origin, Port, Priority, QueueReader,
    SegmentView, Transmit,
};
use crate::segment::{SackBlocks, Segment};
use crate::seq::Seq;
use crate::time::{Time, MS, SEC};

#[derive(Clone, Debug, PartialEq)]
pub struct NackConfig {
    /// Packets that must arrive above a hole before NACKs start: 3, the duplicate-ACK threshold's
    /// tolerance of reordering (the papers give no number; a choice).
    pub threshold: u32,
    /// A NACK when nothing new has arrived for this long while holes remain: 200 ms, the snoop
    /// agent's persist period (paper 002 section 6; the papers give no number for NACKs).
    pub idle_timeout: Time,
    /// NACKs sent in a row on the idle timer before the agent waits for the mobile host.
    pub max_idle_nacks: u32,
    /// A gap while a queue is above this fraction of its maximum is not a wireless hole (0.75, as
    /// the ELN marker).
    pub queue_threshold: f64,
    pub max_blocks: usize,
    pub max_connections: usize,
    /// A connection with no packets for this long is forgotten.
    pub idle_forget: Time,
}

impl NackConfig {
    pub fn paper002() -> NackConfig {
        NackConfig {
            threshold: 3,
            idle_timeout: 200 * MS,
            max_idle_nacks: 3,
            queue_threshold: 0.75,
            max_blocks: 256,
            max_connections: 1024,
            idle_forget: 120 * SEC,
        }
    }
}

/// What the NACK generator keeps per connection besides its blocks.
#[derive(Clone)]
struct NackState<P> {
    /// The fixed host's last ACK towards the mobile host: what a NACK repeats.
    last_ack: Option<P>,
    /// The block holding the newest packet starts here (it goes first in a NACK).
    newest: Option<Seq>,
    /// Packets arrived above the lowest hole since it opened.
    above_hole: u32,
    /// When the idle timer fires, and how many NACKs it sent in a row.
    idle_at: Option<Time>,
    idle_nacks: u32,
}

impl<P> Default for NackState<P> {
    fn default() -> Self {
        NackState {
            last_ack: None,
            newest: None,
            above_hole: 0,
            idle_at: None,
            idle_nacks: 0,
        }
    }
}

type Conn<P> = Sender<NackState<P>>;

agent_counters! {
    /// What the NACK generator counted.
    pub struct NackStats {
        /// Packets passed on to the other port.
        pub forwarded,
        /// Gaps in a mobile sender's data recorded as wireless holes.
        pub holes,
        /// Gaps bridged because a queue was above the threshold: possible congestion losses.
        pub congestion_gaps,
        /// NACKs (SACK-encoded) sent to a mobile host.
        pub nacks,
    }
}

#[derive(Clone)]
pub struct NackAgent<P> {
    cfg: NackConfig,
    senders: MobileSenders<NackState<P>>,
    out: VecDeque<Transmit<P>>,
    /// Its own counts; the gaps are the senders' ([`NackAgent::stats`]).
    stats: NackStats,
}

impl<P> NackAgent<P> {
    pub fn new(cfg: NackConfig) -> NackAgent<P> {
        NackAgent {
            senders: MobileSenders::new(
                cfg.queue_threshold,
                cfg.max_blocks,
                cfg.max_connections,
                cfg.idle_forget,
            ),
            cfg,
            out: VecDeque::new(),
            stats: NackStats::default(),
        }
    }

    /// What it counted so far.
    pub fn stats(&self) -> NackStats {
        let (holes, congestion_gaps) = self.senders.gaps();
        NackStats {
            holes,
            congestion_gaps,
            ..self.stats
        }
    }
}

impl<P: SegmentView + BuildPacket + Clone> NackAgent<P> {
    fn on_data(&mut self, now: Time, seg: &Segment) {
        let Some((conn, rec)) = self.senders.on_data(now, seg) else {
            return;
        };
        let st = &mut conn.state;
        match rec {
            Recorded::NewHole(..) => st.above_hole += 1,
            Recorded::InOrder if st.above_hole > 0 => st.above_hole += 1,
            _ => {}
        }
        conn.state.newest = conn
            .blocks
            .blocks()
            .iter()
            .find(|&&(a, b)| a.le(seg.seq) && seg.seq.lt(b))
            .map(|&(a, _)| a);
        if !Self::has_holes(conn) {
            conn.state.above_hole = 0;
            conn.state.idle_at = None;
            return;
        }
        conn.state.idle_nacks = 0;
        conn.state.idle_at = Some(now + self.cfg.idle_timeout);
        if conn.state.above_hole >= self.cfg.threshold {
            if let Some(nack) = Self::nack(conn) {
                self.stats.nacks += 1;
                self.out.push_back(nack);
            }
        }
    }

    /// Whether the mobile host is missing something the base station knows of: a gap between
    /// blocks, or the fixed host's ACK below the first block.
    fn has_holes(conn: &Conn<P>) -> bool {
        let acked_hole = conn
            .state
            .last_ack
            .as_ref()
            .and_then(|p| p.segment())
            .is_some_and(|s| conn.blocks.is_hole(s.ack));
        conn.blocks.blocks().len() > 1 || acked_hole
    }

    /// A NACK: the fixed host's last ACK again, with the blocks above it as SACK blocks.
    fn nack(conn: &Conn<P>) -> Option<Transmit<P>> {
        let like = conn.state.last_ack.as_ref()?;
        let last = *like.segment()?;
        let mut order: Vec<(Seq, Seq)> = conn
            .blocks
            .blocks()
            .iter()
            .copied()
            .filter(|&(_, b)| b.gt(last.ack))
            .collect();
        if order.is_empty() {
            return None;
        }
        // the block with the newest packet first, then the others from the highest down
        order.sort_by_key(|&(a, _)| std::cmp::Reverse(a.diff(last.ack)));
        if let Some(i) = order
            .iter()
            .position(|&(a, _)| Some(a) == conn.state.newest)
        {
            let newest = order.remove(i);
            order.insert(0, newest);
        }
        let mut sack = SackBlocks::default();
        for (a, b) in order.into_iter().take(3) {
            sack.push(a.max(last.ack), b);
        }
        let seg = Segment {
            len: 0,
            eln: false,
            smart: None,
            queue: None,
            sack,
            ..last
        };
        Some(Transmit {
            port: Port::Wireless,
            packet: P::build(&seg, like),
            priority: Priority::Normal,
            origin: Origin::GeneratedAck,
        })
    }
}

impl<P: SegmentView + BuildPacket + Clone + 'static> Agent<P> for NackAgent<P> {
    fn on_packet(&mut self, now: Time, from: Port, packet: P) {
        if let Some(seg) = packet.segment().copied() {
            match from {
                Port::Wireless => self.on_data(now, &seg),
                Port::Wired if seg.has_ack() => {
                    if let Some(conn) = self.senders.on_ack(now, &seg) {
                        conn.state.last_ack = Some(packet.clone());
                        if !Self::has_holes(conn) {
                            conn.state.above_hole = 0;
                            conn.state.idle_at = None;
                        }
                    }
                }
                Port::Wired => {}
            }
        }
        self.stats.forwarded += 1;
        self.out
            .push_back(Transmit::forward(from.opposite(), packet));
    }

    fn on_timeout(&mut self, now: Time) {
        let period = self.cfg.idle_timeout;
        let max = self.cfg.max_idle_nacks;
        for conn in self.senders.senders_mut() {
            if conn.state.idle_at.is_none_or(|t| t > now) {
                continue;
            }
            if let Some(nack) = Self::nack(conn) {
                self.stats.nacks += 1;
                self.out.push_back(nack);
            }
            let st = &mut conn.state;
            st.idle_nacks += 1;
            st.idle_at = (st.idle_nacks < max).then_some(now + period);
        }
    }

    fn poll_transmit(&mut self, _now: Time) -> Option<Transmit<P>> {
        self.out.pop_front()
    }

    fn poll_timeout(&self) -> Option<Time> {
        self.senders.senders().filter_map(|c| c.state.idle_at).min()
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
impl<P> QueueReader<P> for NackAgent<P> {
    fn on_input_queue(&mut self, len: usize, max: usize) {
        self.senders.set_input_queue(len, max);
    }
}

#[cfg(test)]
#[path = "nack_tests.rs"]
mod tests;
