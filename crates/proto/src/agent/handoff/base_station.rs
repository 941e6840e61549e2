//! A base station of the multicast handoff (paper 002 sections 4-6): the layer between the wire and
//! the base station's agent (snoop, or a plain router). For each mobile host whose group it belongs
//! to it is the primary, which forwards the multicast stream through the agent, or a buffering
//! base station, which keeps the last packets in its circular buffer and lets the agent mirror them
//! (snoop caches them, section 5) without sending anything to the mobile host. On the mobile host's
//! `Forward` request it synchronises its buffer with the reported IP ids and sends the rest; it
//! beacons once per beacon interval. Under `Scheme::SplitTransfer` it knows which mobile hosts'
//! connection state (a split agent's relays) is here, hands one host's over at its handoff, and
//! holds that host's packets while its state is on its way here.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use super::messages::Request;
use super::{Mobility, MobilityPacket, Ring, Scheme, BROADCAST};
use crate::agent::{
    agent_counters, Agent, AgentProbe, Counters, Departure, HandedOver, Handover, Origin, Port,
    Priority, QueueReader, Relay, Transmit,
};
use crate::segment::Endpoint;
use crate::time::{Time, SEC};

#[derive(Clone, Debug, PartialEq)]
pub struct HandoffConfig {
    /// This base station's address.
    pub addr: u32,
    /// The home agent's address, for `Join` and `Prune`.
    pub home_agent: u32,
    /// Packets the circular buffer keeps: 12 (section 6); 0 for a hard handoff.
    pub ring: usize,
    /// Time between beacons: 1 s (section 6); `None` sends none.
    pub beacon_interval: Option<Time>,
    /// When the first beacon goes, so that base stations do not beacon in step.
    pub beacon_phase: Time,
    pub scheme: Scheme,
}

impl HandoffConfig {
    /// Paper 002's settings for the base station at `addr`.
    pub fn paper002(addr: u32, home_agent: u32, beacon_phase: Time) -> HandoffConfig {
        HandoffConfig {
            addr,
            home_agent,
            ring: 12,
            beacon_interval: Some(SEC),
            beacon_phase,
            scheme: Scheme::Multicast,
        }
    }
}

agent_counters! {
    /// What a handoff base station did (reported after its inner agent's counters).
    pub struct HandoffStats {
        pub beacons,
        /// `Forward` requests carried out (handoffs to this base station).
        pub became_primary,
        /// Of those, how many found one of the reported IP ids in the buffer.
        pub ids_found,
        /// Buffered packets sent to the mobile host on becoming primary.
        pub ring_sent,
        /// Packets the agent would have sent to a mobile host this base station does not forward
        /// for (a mirrored cache's timers, the last ones before a handoff): not sent.
        pub withheld,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Primary,
    Buffering,
}

#[derive(Clone, Debug)]
struct Served<P> {
    role: Role,
    ring: Ring<P>,
}

#[derive(Clone)]
pub struct HandoffAgent<P> {
    cfg: HandoffConfig,
    inner: Box<dyn Agent<P>>,
    /// The mobile hosts whose group this base station is in.
    served: BTreeMap<u32, Served<P>>,
    out: VecDeque<Transmit<P>>,
    next_beacon: Option<Time>,
    stats: HandoffStats,
    /// `Scheme::SplitTransfer`: the mobile hosts whose connection state is here (not on its way
    /// from another base station, nor handed over to one).
    state_here: BTreeSet<u32>,
    /// ... and what arrived for the connections of the others this base station forwards for
    /// while their state was on its way: the mobile host, the port, the packet.
    held: VecDeque<(u32, Port, P)>,
    /// The data segments of the circular buffer sent on becoming primary and not yet departed
    /// from the transmit queue (their connection's ends and sequence number): their departures
    /// are this layer's, not the inner agent's. At most [`RING_WAITING`].
    ring_waiting: VecDeque<(Endpoint, Endpoint, u32)>,
}

/// Ring segments remembered as waiting in the transmit queue: a departure is reported for each
/// one sent, but not while the base station is down, so the oldest are forgotten past this
/// (a forgotten one's departure then reaches the inner agent, which ignores a copy it does not
/// count as waiting: `saturating_sub`).
const RING_WAITING: usize = 1024;

/// Packets a base station holds, for all mobile hosts together, while their connection state is
/// on its way (beyond: dropped, and counted as withheld). One bound for the base station's
/// memory, however many hosts hand off to it at once.
const HELD_WHILE_AWAITING: usize = 256;

impl<P: MobilityPacket + 'static> HandoffAgent<P> {
    /// `inner` runs the base station's protocol; `primary_for` and `buffering_for` are the mobile
    /// hosts it forwards for and buffers for at the start.
    pub fn new(
        cfg: HandoffConfig,
        inner: Box<dyn Agent<P>>,
        primary_for: &[u32],
        buffering_for: &[u32],
    ) -> HandoffAgent<P> {
        let mut served = BTreeMap::new();
        for (list, role) in [
            (primary_for, Role::Primary),
            (buffering_for, Role::Buffering),
        ] {
            for &mh in list {
                served.insert(
                    mh,
                    Served {
                        role,
                        ring: Ring::new(cfg.ring),
                    },
                );
            }
        }
        HandoffAgent {
            next_beacon: cfg.beacon_interval.map(|_| cfg.beacon_phase),
            // each mobile host's state starts at its first primary
            state_here: primary_for.iter().copied().collect(),
            held: VecDeque::new(),
            ring_waiting: VecDeque::new(),
            cfg,
            inner,
            served,
            out: VecDeque::new(),
            stats: HandoffStats::default(),
        }
    }

    pub fn handoff_stats(&self) -> &HandoffStats {
        &self.stats
    }

    /// Whether this base station forwards for `mh` now.
    pub fn is_primary(&self, mh: u32) -> bool {
        self.served
            .get(&mh)
            .is_some_and(|s| s.role == Role::Primary)
    }

    fn send_control(&mut self, port: Port, dst: u32, msg: Mobility) {
        self.out
            .push_back(Transmit::forward(port, P::control(self.cfg.addr, dst, msg)));
    }

    /// Confirms a request to the mobile host ahead of the data waiting for it: the mobile host
    /// repeats a request until it hears this, and a confirmation behind a queue of data would be
    /// late by the queue.
    fn confirm(&mut self, mh: u32, request: Request) {
        let msg = Mobility::Confirm { mh, request };
        self.out.push_back(Transmit {
            port: Port::Wireless,
            packet: P::control(self.cfg.addr, mh, msg),
            priority: Priority::High,
            origin: Origin::Forwarded,
        });
    }

    /// Joins `mh`'s group (if not a member) in `role`.
    fn serve(&mut self, mh: u32, role: Role) -> &mut Served<P> {
        let bs = self.cfg.addr;
        if !self.cfg.scheme.buffers() && role == Role::Primary {
            // a hard handoff: the home agent tunnels to this base station alone from now on
            self.send_control(
                Port::Wired,
                self.cfg.home_agent,
                Mobility::Register { mh, bs },
            );
        } else if !self.served.contains_key(&mh) {
            self.send_control(Port::Wired, self.cfg.home_agent, Mobility::Join { mh, bs });
        }
        let ring = self.cfg.ring;
        let s = self.served.entry(mh).or_insert_with(|| Served {
            role,
            ring: Ring::new(ring),
        });
        s.role = role;
        s
    }

    /// A request from a mobile host.
    fn on_request(&mut self, msg: Mobility) {
        let request = match msg {
            Mobility::Forward { mh, .. } => {
                self.confirm(mh, Request::Forward);
                let s = self.serve(mh, Role::Primary);
                let synced = s.ring.sync(msg.reported_ids());
                self.stats.became_primary += 1;
                self.stats.ids_found += u64::from(synced.found);
                // section 6: "The remaining TCP packets in the circular buffer are transmitted"
                for p in synced.send.into_iter().filter(|p| p.segment().is_some()) {
                    self.stats.ring_sent += 1;
                    if let Some(s) = p.segment() {
                        if self.ring_waiting.len() == RING_WAITING {
                            self.ring_waiting.pop_front();
                        }
                        self.ring_waiting.push_back((s.src, s.dst, s.seq.0));
                    }
                    self.out.push_back(Transmit::forward(Port::Wireless, p));
                }
                return;
            }
            Mobility::Buffer { mh } => {
                self.serve(mh, Role::Buffering);
                Request::Buffer
            }
            Mobility::Leave { mh } => {
                // in a hard handoff the new base station's registration moves the tunnel
                if self.served.remove(&mh).is_some() && self.cfg.scheme.buffers() {
                    let prune = Mobility::Prune {
                        mh,
                        bs: self.cfg.addr,
                    };
                    self.send_control(Port::Wired, self.cfg.home_agent, prune);
                }
                Request::Leave
            }
            _ => return,
        };
        if let Mobility::Buffer { mh } | Mobility::Leave { mh } = msg {
            self.confirm(mh, request);
        }
    }

    /// Whether this base station forwards for `mh` and `mh`'s connection state is not here (on
    /// its way, under `Scheme::SplitTransfer`): what arrives for its connections waits.
    fn awaiting_state(&self, mh: u32) -> bool {
        self.cfg.scheme == Scheme::SplitTransfer
            && !self.state_here.contains(&mh)
            && self.is_primary(mh)
    }

    /// Hands `packet` to the agent, or keeps it until its mobile host's connection state arrives.
    /// A packet's mobile host is the address at its wireless end; other packets pass at once.
    fn hand_to_agent(&mut self, now: Time, from: Port, packet: P) {
        let mh = packet.segment().map(|s| match from {
            Port::Wired => s.dst.addr,
            Port::Wireless => s.src.addr,
        });
        if let Some(mh) = mh.filter(|&mh| self.awaiting_state(mh)) {
            if self.held.len() < HELD_WHILE_AWAITING {
                self.held.push_back((mh, from, packet));
            } else {
                self.stats.withheld += 1;
            }
            return;
        }
        self.inner.on_packet(now, from, packet);
    }

    /// A packet of `mh`'s multicast stream, decapsulated.
    fn on_stream(&mut self, now: Time, mh: u32, packet: P) {
        let Some(s) = self.served.get_mut(&mh) else {
            return; // left the group; the home agent has not heard yet
        };
        if let Some(id) = packet.segment().map(|seg| seg.ip_id) {
            s.ring.push(id, &packet);
        }
        match s.role {
            Role::Primary => self.hand_to_agent(now, Port::Wired, packet),
            Role::Buffering => {
                if let Some(m) = self.inner.mirror() {
                    m.mirror(now, packet);
                }
            }
        }
    }

    /// The mobile host a packet from the agent is for, if this base station serves it and does not
    /// forward for it now.
    fn withheld(&self, t: &Transmit<P>) -> bool {
        t.port == Port::Wireless
            && t.packet
                .segment()
                .and_then(|s| self.served.get(&s.dst.addr))
                .is_some_and(|s| s.role != Role::Primary)
    }
}

impl<P: MobilityPacket + 'static> Agent<P> for HandoffAgent<P> {
    fn on_packet(&mut self, now: Time, from: Port, packet: P) {
        if let Some(msg) = packet.mobility().copied() {
            if from == Port::Wireless {
                self.on_request(msg);
            }
            return;
        }
        match packet.tunnel() {
            Some(t) if t.dst == self.cfg.addr => {
                let inner = packet.decapsulate();
                if let Some(mh) = inner.segment().map(|s| s.dst.addr) {
                    self.on_stream(now, mh, inner);
                }
            }
            _ => self.hand_to_agent(now, from, packet),
        }
    }

    fn on_timeout(&mut self, now: Time) {
        if let (Some(at), Some(every)) = (self.next_beacon, self.cfg.beacon_interval) {
            if at <= now {
                let beacon = Mobility::Beacon {
                    bs: self.cfg.addr,
                    sent: now,
                    seq: self.stats.beacons as u32,
                };
                self.stats.beacons += 1;
                self.send_control(Port::Wireless, BROADCAST, beacon);
                // on the phase's beat; a base station that was down resumes from now
                let every = every.max(1);
                let next = at + every;
                self.next_beacon = Some(if next > now { next } else { now + every });
            }
        }
        if self.inner.poll_timeout().is_some_and(|t| t <= now) {
            self.inner.on_timeout(now);
        }
    }

    fn poll_transmit(&mut self, now: Time) -> Option<Transmit<P>> {
        if let Some(t) = self.out.pop_front() {
            return Some(t);
        }
        while let Some(t) = self.inner.poll_transmit(now) {
            if self.withheld(&t) {
                self.stats.withheld += 1;
                // never queued: the inner agent counts no copy of it as waiting
                if let Some(q) = self.inner.queue_reader() {
                    q.on_departure(now, &t.packet, Departure::Withheld);
                }
                continue;
            }
            return Some(t);
        }
        None
    }

    fn poll_timeout(&self) -> Option<Time> {
        match (self.next_beacon, self.inner.poll_timeout()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn counters(&self) -> Counters {
        let mut c = self.inner.counters();
        c.extend(self.stats.named());
        c
    }

    fn probe(&self) -> AgentProbe {
        self.inner.probe()
    }

    fn queue_reader(&mut self) -> Option<&mut dyn QueueReader<P>> {
        Some(self)
    }

    fn relay(&self) -> Option<&dyn Relay> {
        self.inner.relay()
    }

    fn handover(&mut self) -> Option<&mut dyn Handover<P>> {
        Some(self)
    }
}

/// The input queue's length reaches the inner agent (the ELN marker's queue rule), and so do the
/// departures from the transmit queue of what the inner agent sent (snoop then resends nothing a
/// copy of which still waits there, docs/snoop-scaling.md). The departures of this layer's own
/// packets are kept from it: a ring segment sent on becoming primary (`ring_waiting`); a control
/// message carries no segment, which snoop ignores. What the inner agent sent but this layer
/// withheld is reported to it at once as [`Departure::Withheld`] (`poll_transmit`).
impl<P: MobilityPacket + 'static> QueueReader<P> for HandoffAgent<P> {
    fn on_input_queue(&mut self, len: usize, max: usize) {
        if let Some(q) = self.inner.queue_reader() {
            q.on_input_queue(len, max);
        }
    }

    fn on_departure(&mut self, now: Time, packet: &P, how: Departure) -> bool {
        if let Some(s) = packet.segment() {
            let key = (s.src, s.dst, s.seq.0);
            if let Some(i) = self.ring_waiting.iter().position(|k| *k == key) {
                self.ring_waiting.remove(i);
                return false;
            }
        }
        self.inner
            .queue_reader()
            .is_some_and(|q| q.on_departure(now, packet, how))
    }
}

/// A mobile host's split connections move to its new primary (`Scheme::SplitTransfer`): the
/// inner agent's relays of that host (`split_handover.rs`), the others' staying.
impl<P: MobilityPacket + 'static> Handover<P> for HandoffAgent<P> {
    fn hand_over(&mut self, now: Time, mh: u32) -> Option<HandedOver<P>> {
        if self.cfg.scheme != Scheme::SplitTransfer || !self.state_here.contains(&mh) {
            return None;
        }
        let state = self.inner.handover()?.hand_over(now, mh)?;
        self.state_here.remove(&mh);
        Some(state)
    }

    fn take_over(&mut self, now: Time, state: HandedOver<P>) {
        let mh = state.mobile();
        // (every base station of a split handoff runs a split agent, which takes the relays in:
        // the simulator refuses any other network, `Network::validate_split_handoffs`)
        if let Some(h) = self.inner.handover() {
            h.take_over(now, state);
        }
        self.state_here.insert(mh);
        // the host's packets that waited, in the order they came; the others' wait on
        let (mine, others) = std::mem::take(&mut self.held)
            .into_iter()
            .partition::<VecDeque<_>, _>(|(m, ..)| *m == mh);
        self.held = others;
        for (_, port, p) in mine {
            self.inner.on_packet(now, port, p);
        }
    }
}
