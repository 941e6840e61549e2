//! The link-layer family of base-station agents (paper 000 section III-B; paper 002 sections 3 and 6):
//! one agent with two switches.
//!
//! | protocol            | TCP-aware (`suppress_dupacks`, `priority_retransmit`) | `selective` |
//! |---------------------|--------------------|-------------|
//! | LL                  | off                | off         |
//! | LL-TCP-AWARE (snoop)| on                 | off         |
//! | LL-SMART            | off                | on          |
//! | LL-SMART-TCP-AWARE  | on                 | on          |
//!
//! The agent caches the fixed host's unacknowledged segments (`data.rs`, paper 002 Fig. 1), watches
//! the mobile host's ACKs (`ack.rs`, Fig. 2: the duplicate-ACK rule lives there), and retransmits
//! locally on duplicate ACKs and on its own timers (`timers.rs`, section 6).
//!
//! Direction: it serves data that arrives on the wired port and leaves on the wireless port (a
//! fixed host sending to a mobile host), keeping state per connection (`ConnKey`), for any number
//! of connections at once. Data a mobile host sends arrives on the wireless port and is forwarded
//! untouched, as are the fixed host's ACKs for it: a connection is only ever cached in the
//! downstream direction. Paper 002's scheme for mobile senders (section 5: NACKs from the base
//! station) is a separate mechanism, not part of this agent.

mod ack;
mod cache;
mod data;
mod deadlines;
mod sack;
mod timers;

pub use cache::{Cache, Entry};

use std::collections::{BTreeMap, VecDeque};

use super::{
    agent_counters, Agent, AgentProbe, Counters, Departure, Mirror, Port, QueueReader, SegmentView,
    Transmit,
};
use crate::segment::{Endpoint, Segment};
use crate::seq::Seq;
use crate::time::{Time, MS};

/// Builds a packet from a header, for the ACKs snoop generates (paper 002 section 3.1.1 case 2).
pub trait BuildPacket: Sized {
    /// A packet carrying `seg`; `like` is a packet of the same connection to take anything else from.
    fn build(seg: &Segment, like: &Self) -> Self;

    /// A packet carrying `seg` with `payload` as its data (`seg.len` bytes): what a split relay
    /// sends the mobile host, the bytes the fixed host sent it (paper 000 section III-C). A packet
    /// type that carries no bytes (the simulator's modelled packets) builds as [`BuildPacket::build`].
    fn build_with_payload(seg: &Segment, like: &Self, payload: &[u8]) -> Self {
        let _ = payload;
        Self::build(seg, like)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SnoopConfig {
    /// Suppress duplicate ACKs that local retransmission will answer (TCP awareness).
    pub suppress_dupacks: bool,
    /// Send local retransmissions ahead of queued traffic (paper 002 section 3.1.2: "two queues at
    /// the link layer"), so they reach the mobile host before most later packets. Paper 000's LL
    /// "does not attempt in-order delivery of packets across the link": its retransmissions queue
    /// behind the packets already waiting, and enough of those are in transit to make three
    /// duplicate ACKs. The protocols set this together with `suppress_dupacks`.
    pub priority_retransmit: bool,
    /// Retransmit the segments SMART information on the ACKs shows missing, not only the first.
    pub selective: bool,
    /// Unexpected duplicate ACKs that make a local retransmission; the ones before it pass to the
    /// sender. Paper 002 (section 3.1.2) retransmits on the first; paper 000's snoop "recovers from
    /// a single loss by retransmitting the lost packet when two duplicate acknowledgments arrive for
    /// it" (section IV-E), as the authors' ns-2 snoop does (`RTX_THRESH` 1: act on the second), so a
    /// lone duplicate ACK, such as the one a duplicate segment draws from the receiver, does not
    /// resend a segment that is still on its way. With `selective` and SMART information on the
    /// ACK it does not apply: SMART names the segment that caused the duplicate.
    pub dupack_threshold: u32,
    /// During local recovery, a new ACK that stops short of what was sent before the local
    /// retransmission, at a segment that must have been lost too, resends that segment at once:
    /// paper 000's snoop "keeps track of ... the next expected new acknowledgment after this local
    /// retransmission. If this loss is part of a burst, the first new acknowledgment to arrive
    /// after the duplicates will be less than the next expected new one; this causes an immediate
    /// retransmission of the lost segment" (section V-B). Paper 002's snoop does not: a new ACK
    /// cleans the cache, updates the round-trip estimate and is forwarded (section 3.1.2, case 1),
    /// as the authors' ns-2 snoop does; the next hole is resent on its first duplicate ACK.
    pub partial_ack_retransmit: bool,
    /// Lower bound of the round-trip timer: 200 ms in paper 000 (section III-B), 40 ms in paper 002
    /// (section 6).
    pub min_timeout: Time,
    /// Retransmit when neither side has been heard from for this long (paper 002 section 6: 200 ms).
    pub persist: Time,
    /// Gain of the wireless RTT estimator: srtt += (sample - srtt) * 1/`rtt_gain_shift`^2 (alpha 0.25).
    pub rtt_gain_shift: u32,
    /// High-water mark of the cache, in segments: above it only older, out-of-order segments are
    /// cached (paper 002 section 6).
    pub high_water: usize,
    /// Hard limit of one connection's cache, out-of-order segments included: a memory bound the
    /// paper does not need (its windows stay far below), for a base station facing any sender.
    pub max_cached_per_connection: usize,
    /// Segments cached for all connections together; beyond it new segments pass uncached.
    pub max_cached_total: usize,
    /// Connections tracked at once; the least recently active is forgotten beyond this.
    pub max_connections: usize,
    /// A connection with no packets for this long is forgotten.
    pub idle_timeout: Time,
    /// Base station A of a cellular transit link (paper 004 section 3.5, Fig. 3: sender - A -
    /// wireless - B - receiver, B marking ELN): "local retransmissions from the snoop agent at A now
    /// happen only upon duplicate ACKs with ELN set". Unmarked duplicates pass untouched and
    /// uncounted, and the round-trip and persist timers resend nothing.
    pub eln_dupacks_only: bool,
    /// Snoop knows what still waits in its base station's own transmit queue. Where the host
    /// reports each packet leaving that queue ([`Agent::on_departure`]):
    /// - snoop resends no segment a copy of which still waits there: not on a timer, not on a
    ///   duplicate or partial ACK, not on SMART information (such a duplicate ACK is suppressed
    ///   and counts towards the hole once the copy has gone). Paper 002 reads a duplicate ACK as
    ///   "the next packet in sequence ... has not been received by the MH" (section 3.1.2, case 3),
    ///   which a packet not sent yet explains without a loss; its timers "increase the number of
    ///   transmission attempts", with "a negligible number of (unnecessary) retransmissions"
    ///   (section 6);
    /// - the persist timer counts the transmission of the segment it would resend as activity: it
    ///   waits for 200 ms without "activity either from the sender or receiver" (section 6), and a
    ///   receiver cannot answer a segment it has not been sent;
    /// - a segment the queue drops leaves the cache: congestion at the base station is the
    ///   sender's to recover, like a loss before it ("not in the snoop cache ... it needs to be
    ///   resent from the FH, perhaps after invoking the necessary congestion control mechanisms",
    ///   section 3.1.2, case 3).
    ///
    /// The paper's snoop keeps "two queues at the link layer" (section 3.1.2) for one connection,
    /// which barely waits there, and does not say whether it looks into them. `false` is the text
    /// read literally (the timers count only the packets of the sender and the receiver): behind
    /// many connections' packets a segment waits longer than the 200 ms persist timer, is resent
    /// while it waits, and the resent copies fill the queue (docs/snoop-scaling.md). Either way the
    /// wireless RTT sample and the round-trip timer run from when snoop sends (section 3.1.1 places
    /// the timestamp as the packet is cached).
    pub queue_aware: bool,
    /// Read the mobile host's RFC 2018 SACK blocks as the selective switch reads SMART: a
    /// duplicate ACK whose blocks show data above its acknowledgment delivered names the segment
    /// at the ACK missing, and every cached segment the blocks show missing below the highest one
    /// is resent, at most once per wireless RTT (`sack.rs`). Off in every paper's snoop.
    pub read_sack: bool,
    /// Remove from the ACKs snoop forwards the SACK blocks that lie above holes it is repairing
    /// itself, so that the sender's SACK scoreboard and RACK do not mark those holes lost and
    /// race the local retransmission (`sack.rs`; our own `snoop-sack`, docs/snoop-sack.md).
    pub hide_repaired_sack: bool,
    /// With [`SnoopConfig::read_sack`]: a hole whose local retransmission a later-sent segment
    /// has overtaken (the blocks report that segment delivered) is resent at once, not a wireless
    /// RTT after its last copy (`sack.rs`, `latest_delivery`; ours, RACK's rule applied to
    /// snoop's own retransmissions).
    pub resend_overtaken: bool,
}

impl SnoopConfig {
    /// The paper-000 comparison's settings: 200 ms minimum timeout, local retransmission on the
    /// second duplicate ACK.
    pub const fn paper000(suppress_dupacks: bool, selective: bool) -> SnoopConfig {
        SnoopConfig {
            suppress_dupacks,
            priority_retransmit: suppress_dupacks,
            selective,
            dupack_threshold: 2,
            partial_ack_retransmit: true,
            min_timeout: 200 * MS,
            persist: 200 * MS,
            rtt_gain_shift: 2,
            high_water: 64,
            max_cached_per_connection: 128,
            max_cached_total: 8192,
            max_connections: 1024,
            idle_timeout: 120_000 * MS,
            eln_dupacks_only: false,
            queue_aware: true,
            read_sack: false,
            hide_repaired_sack: false,
            resend_overtaken: false,
        }
    }

    /// Vangala and Labrador's TCP SACK-aware snoop (IEEE VTC 2003-Fall) as we read it (`sack.rs`
    /// says what is the paper's and what is our reading): paper 000's snoop, the ns-2 snoop
    /// they started from, that reads the SACK blocks of the duplicate ACKs for its local
    /// recovery.
    pub const fn sack_vangala_labrador() -> SnoopConfig {
        SnoopConfig {
            read_sack: true,
            ..SnoopConfig::paper000(true, false)
        }
    }

    /// Our snoop for a SACK and RACK sender (`snoop-sack`, docs/snoop-sack.md): the SACK-aware
    /// snoop that also hides from the sender the SACK blocks above the holes it is repairing, and
    /// resends at once a hole whose local retransmission a later segment has overtaken.
    pub const fn sack_hiding() -> SnoopConfig {
        SnoopConfig {
            hide_repaired_sack: true,
            resend_overtaken: true,
            ..SnoopConfig::sack_vangala_labrador()
        }
    }

    /// Snoop at base station A of a transit link (paper 004 section 3.5): paper 000's snoop that
    /// retransmits only on duplicate ACKs marked with ELN by base station B.
    pub const fn transit() -> SnoopConfig {
        SnoopConfig {
            eln_dupacks_only: true,
            ..SnoopConfig::paper000(true, false)
        }
    }

    /// Paper 002's snoop: duplicate-ACK suppression, 40 ms minimum timeout, local retransmission on
    /// the first duplicate ACK, none on a partial new ACK.
    pub const fn paper002() -> SnoopConfig {
        SnoopConfig {
            min_timeout: 40 * MS,
            dupack_threshold: 1,
            partial_ack_retransmit: false,
            ..SnoopConfig::paper000(true, false)
        }
    }
}

/// The fixed host's and the mobile host's ends of a connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ConnKey {
    pub fixed: Endpoint,
    pub mobile: Endpoint,
}

/// Per-connection snoop state.
#[derive(Clone, Debug)]
struct Conn<P> {
    cache: Cache<P>,
    /// End of the highest data seen from the fixed host.
    last_seen: Option<Seq>,
    /// Highest cumulative ACK seen from the mobile host.
    last_ack: Option<Seq>,
    /// Header of the last ACK from the mobile host, to generate ACKs from.
    ack_template: Option<(Segment, P)>,
    /// Largest data segment seen from the fixed host: the receiver's segment size, as far as the
    /// base station can tell (it tells a window update from a duplicate ACK).
    max_segment: u32,
    /// Duplicate ACKs still expected for the segment being retransmitted locally.
    exp_dupacks: u32,
    /// Duplicate ACKs seen since the last new ACK.
    dupacks_for_hole: u32,
    /// Where the segment resent on the first duplicate ACK stood in the forwarding order when it was
    /// first sent: a later partial ACK compares the next hole against it.
    hole_index: Option<u64>,
    /// Data packets forwarded to the mobile host so far.
    forwarded: u64,
    /// Smoothed wireless RTT.
    srtt: Option<Time>,
    /// The segment timed for the RTT estimate (its end and when it was sent), once per window.
    timed: Option<(Seq, Time)>,
    /// A local retransmission happened since `timed` was sent: its sample would be ambiguous.
    timed_tainted: bool,
    /// Local recovery runs until the mobile host acknowledges this (the highest data seen when it
    /// began); the round-trip timer runs only then.
    recovery_until: Option<Seq>,
    rexmt_deadline: Option<Time>,
    /// Last packet of the connection, or last persist retransmission: the persist timer runs
    /// from here.
    last_activity: Time,
    /// Last packet of the connection from either side: idle state expires from here (a persist
    /// retransmission into a dead connection does not keep it alive).
    last_heard: Time,
    /// The host reports when this connection's packets leave the base station's transmit queue
    /// ([`Agent::on_departure`]) and [`SnoopConfig::queue_aware`] is on: the copies an entry
    /// counts as waiting are known.
    departures_known: bool,
    /// The deadline this connection is filed under in [`SnoopAgent::deadlines`] (`None` until
    /// it is filed).
    filed: Option<Time>,
}

impl<P> Conn<P> {
    /// A packet of this connection passed.
    fn heard(&mut self, now: Time) {
        self.last_activity = now;
        self.last_heard = now;
    }

    /// The ACK in `packet` (header `seg`) becomes the template, written over the last one's
    /// packet where there is one: every new ACK does this, and a copy into the packet already
    /// held asks the allocator for nothing ([`Clone::clone_from`]).
    fn set_template(&mut self, seg: &Segment, packet: &P)
    where
        P: Clone,
    {
        match &mut self.ack_template {
            Some((s, p)) => {
                *s = *seg;
                p.clone_from(packet);
            }
            None => self.ack_template = Some((*seg, packet.clone())),
        }
    }

    fn new(now: Time) -> Conn<P> {
        Conn {
            cache: Cache::default(),
            last_seen: None,
            last_ack: None,
            ack_template: None,
            max_segment: 0,
            exp_dupacks: 0,
            dupacks_for_hole: 0,
            hole_index: None,
            forwarded: 0,
            srtt: None,
            timed: None,
            timed_tainted: false,
            recovery_until: None,
            rexmt_deadline: None,
            last_activity: now,
            last_heard: now,
            departures_known: false,
            filed: None,
        }
    }
}

agent_counters! {
    /// What a snoop agent counted.
    pub struct SnoopStats {
        /// Packets passed on to the other port.
        pub forwarded,
        /// Cached segments sent again (paper 000 section 2.1).
        pub local_retransmissions,
        /// Duplicate ACKs kept from the fixed host.
        pub dupacks_suppressed,
        /// ACKs made up for data below the last ACK.
        pub generated_acks,
        /// Packets dropped: data already acknowledged, a connection's cache full.
        pub dropped,
    }
}

/// The LL / LL-TCP-AWARE / LL-SMART / LL-SMART-TCP-AWARE agent.
#[derive(Clone, Debug)]
pub struct SnoopAgent<P> {
    cfg: SnoopConfig,
    conns: BTreeMap<ConnKey, Conn<P>>,
    /// Each connection's next deadline (its round-trip, persist or idle timer, whichever is
    /// first), in time order: `poll_timeout` reads the first and `on_timeout` visits only the
    /// connections due, so neither costs more with more idle connections (a walk over every
    /// connection per call was 82% of a 200-flow run, docs/speed.md; `deadlines.rs`).
    deadlines: deadlines::Deadlines,
    /// Reused by `on_timeout`: the connections due, in key order.
    due: Vec<ConnKey>,
    /// Segments cached for all connections (the sum of the caches' lengths).
    held: usize,
    out: VecDeque<Transmit<P>>,
    stats: SnoopStats,
}

impl<P: SegmentView + BuildPacket + Clone> SnoopAgent<P> {
    pub fn new(cfg: SnoopConfig) -> SnoopAgent<P> {
        SnoopAgent {
            cfg,
            conns: BTreeMap::new(),
            deadlines: deadlines::Deadlines::default(),
            due: Vec::new(),
            held: 0,
            out: VecDeque::new(),
            stats: SnoopStats::default(),
        }
    }

    pub fn config(&self) -> &SnoopConfig {
        &self.cfg
    }

    /// What it counted so far.
    pub fn stats(&self) -> &SnoopStats {
        &self.stats
    }

    /// Segments cached for all connections.
    pub fn cached_segments(&self) -> usize {
        self.held
    }

    /// Forgets a connection and its cache.
    fn forget(&mut self, key: &ConnKey) {
        if let Some(c) = self.conns.remove(key) {
            self.held -= c.cache.len();
            if let Some(t) = c.filed {
                self.deadlines.remove(&(t, *key));
            }
        }
    }

    /// Connections tracked.
    pub fn connections(&self) -> usize {
        self.conns.len()
    }

    fn forward(&mut self, port: Port, packet: P) {
        self.stats.forwarded += 1;
        self.out.push_back(Transmit::forward(port, packet));
    }

    /// Makes room for a new connection: forget the least recently active one.
    /// The connection table is at its limit: a new connection first evicts the oldest.
    fn table_full(&self) -> bool {
        self.conns.len() >= self.cfg.max_connections.max(1)
    }

    fn evict_if_full(&mut self) {
        while self.table_full() {
            let oldest = self
                .conns
                .iter()
                .min_by_key(|(k, c)| (c.last_heard, **k))
                .map(|(k, _)| *k);
            match oldest {
                Some(k) => self.forget(&k),
                None => break,
            }
        }
    }

    fn conn_entry(&mut self, key: ConnKey, now: Time) -> &mut Conn<P> {
        // (the table's size first: below the limit, one lookup per packet, not two)
        if self.table_full() && !self.conns.contains_key(&key) {
            self.evict_if_full();
        }
        self.conns.entry(key).or_insert_with(|| Conn::new(now))
    }
}

impl<P: SegmentView + BuildPacket + Clone + 'static> Agent<P> for SnoopAgent<P> {
    fn on_packet(&mut self, now: Time, from: Port, packet: P) {
        let Some(seg) = packet.segment().copied() else {
            // Not TCP/IPv4: pass through untouched.
            self.forward(from.opposite(), packet);
            return;
        };
        match from {
            Port::Wired => {
                self.snoop_data(now, seg, packet);
                self.refile(seg.src, seg.dst);
            }
            Port::Wireless => {
                self.snoop_ack(now, seg, packet);
                self.refile(seg.dst, seg.src);
            }
        }
    }

    fn on_timeout(&mut self, now: Time) {
        self.run_timers(now);
    }

    fn poll_transmit(&mut self, _now: Time) -> Option<Transmit<P>> {
        self.out.pop_front()
    }

    fn poll_timeout(&self) -> Option<Time> {
        self.next_deadline()
    }

    fn counters(&self) -> Counters {
        self.stats.named()
    }

    fn probe(&self) -> AgentProbe {
        AgentProbe {
            held_segments: self.held as u32,
            held_bytes: self.conns.values().map(|c| c.cache.bytes()).sum(),
            sender_window: None,
            connections: self.conns.len() as u32,
        }
    }

    fn queue_reader(&mut self) -> Option<&mut dyn QueueReader<P>> {
        Some(self)
    }

    fn mirror(&mut self) -> Option<&mut dyn Mirror<P>> {
        Some(self)
    }
}

/// Snoop reads departures from the wireless transmit queue: a segment still queued is not yet
/// lost, so its timers wait for it (docs/snoop-scaling.md).
impl<P: SegmentView + BuildPacket + Clone> QueueReader<P> for SnoopAgent<P> {
    fn on_departure(&mut self, now: Time, packet: &P, how: Departure) -> bool {
        if let Some(seg) = packet.segment().copied() {
            self.departed(now, &seg, how);
            self.refile(seg.src, seg.dst);
        }
        true
    }
}

/// A buffering base station's snoop caches what it does not forward (paper 002 section 5).
impl<P: SegmentView + BuildPacket + Clone> Mirror<P> for SnoopAgent<P> {
    fn mirror(&mut self, now: Time, packet: P) {
        if let Some(seg) = packet.segment().copied() {
            self.mirror_data(now, seg, packet);
            self.refile(seg.src, seg.dst);
        }
    }
}

#[cfg(test)]
mod sack_tests;
#[cfg(test)]
mod tests;
