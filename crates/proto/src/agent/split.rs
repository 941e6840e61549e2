//! SPLIT and SPLIT-SMART (paper 000 section III-C): the base station terminates each TCP
//! connection that crosses it and relays its bytes over a second connection, through a bounded
//! buffer per connection and direction (64 KB in the paper's experiments, whose transfers go one
//! way; a request and its answer go both, as through I-TCP's or a split PEP's relay process).
//!
//! The paper's base station split its one connection; I-TCP and the split proxies in use (PEPsal
//! on satellite gateways, cellular operators' PEPs) split every connection that crosses them, each
//! made at its SYN with its own state. So does this agent: a relay per connection
//! ([`SplitRelay`], `split_relay.rs`), keyed by the connection's two ends, made when a SYN arrives
//! from either side and removed once both of its halves are closed: at once after a reset, and
//! after a close once TIME_WAIT is over, or once it has been idle for [`IDLE_LIMIT`] (both seen
//! when a new connection comes, so no timer of the base station's changes for them). Each relay
//! holds at most [`store_bound`] bytes, both directions counted; all of
//! them together at most [`SplitConfig::max_memory`]: a connection that would need more is not
//! split but forwarded end to end, and counted (`unsplit`).
//!
//! The base station answers each host with the other's address, like I-TCP. A segment of a
//! connection it neither relays nor forwards (a base station that crashed and lost its relays)
//! is answered with a reset, as BSD answers a segment to a closed port.
//!
//! At a split handoff (paper 002's I-TCP baseline) the base station hands over one mobile host's
//! relays and takes in another's (`split_handover.rs`); the other connections' relays stay.

use std::collections::{BTreeMap, VecDeque};

use super::relay_bytes::RelayBytes;
use super::snoop::BuildPacket;
pub use super::split_config::{
    direction_bound, store_bound, SplitConfig, DEFAULT_RELAY_MEMORY, IDLE_LIMIT,
};
use super::split_relay::{reset, SplitRelay, TIME_WAIT};
use super::split_remembered::Remembered;
use super::{
    agent_counters, Agent, AgentProbe, Counters, Handover, Port, Relay, RelayReport, SegmentView,
    Transmit,
};
use crate::segment::{Endpoint, Flags, Segment};
use crate::tcp::Tcp;
use crate::time::Time;

/// The most closed, forwarded and finished connections the agent remembers (each a few dozen
/// bytes, a finished one's report a few hundred): the oldest is forgotten first. As many as the
/// ports of one address pair, so a forgotten connection is one long gone.
const REMEMBERED: usize = 65_536;

agent_counters! {
    /// What a split base station counted.
    pub struct SplitStats {
        /// TCP packets handled without a reset (relayed, or passed through).
        pub forwarded,
        /// Segments its relays' senders retransmitted (the relays' local retransmissions).
        pub local_retransmissions,
        /// Relays made (connections split).
        pub relays,
        /// The most relays at once.
        pub relays_most,
        /// Connections not split, at the relays' memory bound: forwarded end to end.
        pub unsplit,
        /// Relays removed after their idle limit.
        pub relays_idle,
        /// Bytes the relays wrote on towards the host that did not open the connection.
        pub relayed_bytes,
        /// Bytes the relays wrote back towards the connection's opener (its answers).
        pub answered_bytes,
        /// Segments the relays' halves facing the openers retransmitted (the answers' local
        /// retransmissions, and their handshakes' and FINs').
        pub back_retransmissions,
        /// Relays handed over to another base station at their mobile host's handoff.
        pub relays_handed_over,
        /// Relays taken over from another base station.
        pub relays_taken_over,
        /// Of those, the ones taken in with the table at its memory bound (kept all the same:
        /// their bytes are acknowledged to their senders already, `split_handover.rs`).
        pub relays_over_bound,
    }
}

/// A connection by its two ends: (the wired side's host, the wireless side's host).
pub(super) type Key = (Endpoint, Endpoint);

/// The key of `seg`, which arrived from `from`.
fn key_of(from: Port, seg: &Segment) -> Key {
    match from {
        Port::Wired => (seg.src, seg.dst),
        Port::Wireless => (seg.dst, seg.src),
    }
}

#[derive(Clone, Debug)]
pub struct SplitAgent<P> {
    pub(super) cfg: SplitConfig,
    /// The relays, by connection (a sorted map: timers fire in a fixed order).
    pub(super) relays: BTreeMap<Key, SplitRelay<P>>,
    /// Connections whose relay closed: when, from which port they were opened, and whether the
    /// relay gave up (a segment of one then gets what the closed relay would have given it).
    pub(super) closed: Remembered<Key, (Port, bool)>,
    /// Connections forwarded end to end (not split at the memory bound), and when last seen.
    pub(super) unsplit: Remembered<Key, ()>,
    /// Connections handed over to another base station at a handoff, and when last seen: what
    /// still comes here of them passes untouched (`split_handover.rs`).
    pub(super) handed_over: Remembered<Key, ()>,
    /// The reports of relays removed, oldest first.
    done: VecDeque<RelayReport>,
    out: VecDeque<Transmit<P>>,
    forwarded: u64,
    opened: u64,
    /// Relays made here or taken over, in that order: each relay's place
    /// ([`SplitRelay::index`]).
    pub(super) placed: u64,
    pub(super) most: u64,
    /// Relays handed over, taken over, and taken over at the memory bound.
    pub(super) moved: (u64, u64, u64),
    unsplit_count: u64,
    idle_removed: u64,
    /// Local retransmissions of relays removed.
    done_retransmissions: u64,
    /// Bytes relays removed wrote each way: (towards the other host, back to the opener).
    done_bytes: (u64, u64),
    /// Retransmissions of relays removed towards their openers.
    done_back_retransmissions: u64,
    /// The most any relay buffer ever held.
    max_relay: u64,
    /// What [`SplitAgent::relay_bytes`] shows before the first relay.
    empty: RelayBytes,
}

impl<P: SegmentView + BuildPacket + Clone> SplitAgent<P> {
    pub fn new(cfg: SplitConfig) -> SplitAgent<P> {
        SplitAgent {
            relays: BTreeMap::new(),
            closed: Remembered::new(REMEMBERED),
            unsplit: Remembered::new(REMEMBERED),
            handed_over: Remembered::new(REMEMBERED),
            done: VecDeque::new(),
            out: VecDeque::new(),
            forwarded: 0,
            opened: 0,
            placed: 0,
            most: 0,
            moved: (0, 0, 0),
            unsplit_count: 0,
            idle_removed: 0,
            done_retransmissions: 0,
            done_bytes: (0, 0),
            done_back_retransmissions: 0,
            max_relay: 0,
            empty: RelayBytes::new(direction_bound(&cfg)),
            cfg,
        }
    }

    /// The first relay still held (in the order they were made).
    fn first(&self) -> Option<&SplitRelay<P>> {
        self.relays.values().min_by_key(|r| r.index)
    }

    /// The first relay's bytes held now on their way from the opener (empty in a modelled run).
    pub fn relay_bytes(&self) -> &RelayBytes {
        self.first().map_or(&self.empty, |r| &r.bytes)
    }

    /// The first relay's bytes held now on their way back to the opener (empty in a modelled run).
    pub fn relay_bytes_back(&self) -> &RelayBytes {
        self.first().map_or(&self.empty, |r| &r.back)
    }

    /// Segments that had to go without their bytes: 0 unless a relay is wrong.
    pub fn segments_without_bytes(&self) -> u64 {
        self.relays.values().map(|r| r.missing).sum()
    }

    /// The first relay's two connections, for inspection: (wired side, wireless side).
    pub fn connections(&self) -> (Option<&Tcp>, Option<&Tcp>) {
        match self.first() {
            Some(r) if r.near_port == Port::Wired => (Some(&r.near), Some(&r.far)),
            Some(r) => (Some(&r.far), Some(&r.near)),
            None => (None, None),
        }
    }

    /// Relays held now.
    pub fn relay_count(&self) -> usize {
        self.relays.len()
    }

    /// Payload bytes all relays store now, both ways (none in a modelled run, whose packets carry
    /// no payload): what [`SplitConfig::max_memory`] bounds in a live run.
    pub fn stored_bytes(&self) -> u64 {
        self.relays
            .values()
            .map(|r| r.bytes.held() + r.back.held())
            .sum()
    }

    /// The most any relay buffer ever held.
    pub fn max_relay_bytes(&self) -> u64 {
        self.relays
            .values()
            .map(|r| r.max_relay)
            .fold(self.max_relay, u64::max)
    }

    /// Removes relay `key`, keeping its report and counters.
    pub(super) fn remove(&mut self, key: &Key) -> Option<SplitRelay<P>> {
        let r = self.relays.remove(key)?;
        self.done_retransmissions += r.far.stats().rexmt_segs;
        self.done_bytes.0 += r.written;
        self.done_bytes.1 += r.written_back;
        self.done_back_retransmissions += r.near.stats().rexmt_segs;
        self.max_relay = self.max_relay.max(r.max_relay);
        if self.done.len() >= REMEMBERED {
            self.done.pop_front();
        }
        self.done.push_back(r.report());
        Some(r)
    }

    /// Pumps relay `key` and removes it if both its halves are closed.
    fn pump(&mut self, now: Time, key: &Key) {
        let Some(r) = self.relays.get_mut(key) else {
            return;
        };
        r.pump(now, &mut self.out);
        if r.is_closed() {
            let (port, gave_up) = (r.near_port, r.gave_up.is_some());
            self.remove(key);
            self.closed.insert(*key, now, (port, gave_up));
        }
    }

    /// Forgets what has been idle for the limit: relays, closed and forwarded connections.
    fn sweep(&mut self, now: Time) {
        let idle = self.cfg.idle;
        let stale: Vec<(Key, bool)> = self
            .relays
            .iter()
            .filter_map(|(k, r)| {
                let quiet = now.saturating_sub(r.last_seen);
                let done = r.is_finished() && quiet >= TIME_WAIT;
                (done || quiet >= idle).then_some((*k, done))
            })
            .collect();
        for (k, done) in &stale {
            if let Some(r) = self.remove(k) {
                if *done {
                    let v = (r.near_port, r.gave_up.is_some());
                    self.closed.insert(*k, now, v);
                } else {
                    self.idle_removed += 1;
                }
            }
        }
        self.closed.forget_quiet(now, idle);
        self.unsplit.forget_quiet(now, idle);
        self.handed_over.forget_quiet(now, idle);
    }

    /// A SYN opens connection `key` from `from`: a relay, or at the memory bound none (the
    /// connection is forwarded end to end). Returns whether it made a relay.
    fn open(&mut self, now: Time, from: Port, key: Key, seg: &Segment, packet: &P) -> bool {
        self.sweep(now);
        self.closed.remove(&key);
        if self.relays.len() as u64 >= self.cfg.max_relays() {
            self.unsplit_count += 1;
            self.unsplit.insert(key, now, ());
            return false;
        }
        let mut r = SplitRelay::open(&self.cfg, now, from, seg, packet, self.opened);
        self.opened += 1;
        r.index = self.placed;
        self.placed += 1;
        self.relays.insert(key, r);
        self.most = self.most.max(self.relays.len() as u64);
        true
    }
}

impl<P: SegmentView + BuildPacket + Clone + 'static> Agent<P> for SplitAgent<P> {
    fn on_packet(&mut self, now: Time, from: Port, packet: P) {
        let Some(seg) = packet.segment().copied() else {
            self.out
                .push_back(Transmit::forward(from.opposite(), packet));
            return;
        };
        let key = key_of(from, &seg);
        let opening = seg.is_syn() && !seg.has_ack();
        if !self.relays.contains_key(&key) {
            if self.unsplit.touch(&key, now) || self.handed_over.touch(&key, now) {
                // a connection passed end to end, or whose relay went to another base station
                // (a straggler, as a router would pass it): untouched
                self.forwarded += 1;
                self.out
                    .push_back(Transmit::forward(from.opposite(), packet));
                return;
            }
            if opening && !self.open(now, from, key, &seg, &packet) {
                self.forwarded += 1;
                self.out
                    .push_back(Transmit::forward(from.opposite(), packet));
                return;
            }
        }
        match self.relays.get_mut(&key) {
            Some(r) => {
                if !r.on_packet(now, from, &seg, &packet, &mut self.out) {
                    return;
                }
            }
            None => {
                let rst = seg.flags.contains(Flags::RST);
                let answer = match self.closed.get(&key) {
                    // a closed relay's halves ignore what comes, but one that gave up answers
                    // its opener with a reset (`SplitRelay::on_packet`)
                    Some(&(_, (near, gave_up))) => gave_up && from == near && !rst,
                    // no connection here (a base station that crashed and lost it): BSD's
                    // `dropwithreset`, as for any segment to a closed port (a SYN-ACK from the
                    // wired side excepted, as before)
                    None => !(rst || from == Port::Wired && seg.is_syn()),
                };
                if answer {
                    reset(&mut self.out, from, &seg, &packet);
                    return;
                }
            }
        }
        self.forwarded += 1;
        self.pump(now, &key);
    }

    fn on_timeout(&mut self, now: Time) {
        let due: Vec<Key> = self
            .relays
            .iter()
            .filter(|(_, r)| r.poll_timeout().is_some_and(|d| d <= now))
            .map(|(k, _)| *k)
            .collect();
        for k in &due {
            if let Some(r) = self.relays.get_mut(k) {
                r.on_timeout(now);
            }
            self.pump(now, k);
        }
    }

    fn poll_transmit(&mut self, _now: Time) -> Option<Transmit<P>> {
        self.out.pop_front()
    }

    fn poll_timeout(&self) -> Option<Time> {
        self.relays
            .values()
            .filter_map(SplitRelay::poll_timeout)
            .min()
    }

    fn probe(&self) -> AgentProbe {
        let held: u64 = self.relays.values().map(SplitRelay::held).sum();
        let mss = u64::from(self.cfg.wireless.mss.max(1));
        AgentProbe {
            held_segments: held.div_ceil(mss) as u32,
            held_bytes: held,
            sender_window: self.first().map(|r| (r.far.cwnd(), r.far.ssthresh())),
            connections: self.relays.len() as u32,
        }
    }

    fn counters(&self) -> Counters {
        self.stats().named()
    }

    fn relay(&self) -> Option<&dyn Relay> {
        Some(self)
    }

    fn handover(&mut self) -> Option<&mut dyn Handover<P>> {
        Some(self)
    }
}

impl<P> SplitAgent<P> {
    /// What it counted so far.
    pub fn stats(&self) -> SplitStats {
        let live = relays_stats(self.relays.values());
        SplitStats {
            forwarded: self.forwarded,
            local_retransmissions: self.done_retransmissions + live.local_retransmissions,
            relays: self.opened,
            relays_most: self.most,
            unsplit: self.unsplit_count,
            relays_idle: self.idle_removed,
            relayed_bytes: self.done_bytes.0 + live.relayed_bytes,
            answered_bytes: self.done_bytes.1 + live.answered_bytes,
            back_retransmissions: self.done_back_retransmissions + live.back_retransmissions,
            relays_handed_over: self.moved.0,
            relays_taken_over: self.moved.1,
            relays_over_bound: self.moved.2,
        }
    }
}

/// What `relays` counted themselves: their halves' retransmissions and the bytes they wrote each
/// way (the other counters 0).
pub(super) fn relays_stats<'a, P: 'a>(
    relays: impl Iterator<Item = &'a SplitRelay<P>>,
) -> SplitStats {
    let mut s = SplitStats::default();
    for r in relays {
        s.local_retransmissions += r.far.stats().rexmt_segs;
        s.relayed_bytes += r.written;
        s.answered_bytes += r.written_back;
        s.back_retransmissions += r.near.stats().rexmt_segs;
    }
    s
}

/// A split base station relays through TCP senders of its own, one per connection.
impl<P> Relay for SplitAgent<P> {
    fn reports(&self) -> Vec<RelayReport> {
        let mut live: Vec<&SplitRelay<P>> = self.relays.values().collect();
        live.sort_by_key(|r| r.index);
        live.iter()
            .rev()
            .map(|r| r.report())
            .chain(self.done.iter().rev().cloned())
            .collect()
    }
}
