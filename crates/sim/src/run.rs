//! One simulated run of the testbed: FH -- wired -- BS -- WaveLAN -- MH (paper 000 Fig. 2).
//!
//! The loop pops events in time order and drives the sans-IO objects: the fixed host's and the mobile
//! host's TCPs and the base-station agent. After each event the touched node is "kicked": its
//! outgoing packets go to the links and its timer is re-armed.

use snooplab_proto::agent::{
    Agent, BuildPacket, Port, Priority, Router, SegmentView, SnoopAgent, SnoopConfig, SplitAgent,
    SplitConfig,
};
use snooplab_proto::tcp::{HostProfile, RecoveryPolicy, Tcp, TcpConfig};
use snooplab_proto::time::as_secs_f64;
use snooplab_proto::{Endpoint, Time};

use crate::capture::Link;
use crate::engine::{EventQueue, TimerSlot};
use crate::error_model::ErrorSpec;
use crate::invariants::InvariantReport;
use crate::link::WiredLink;
use crate::metrics::RunResult;
use crate::observer::{NoObserver, Observe, Observer};
use crate::packet::{payload_tag, SimPacket};
use crate::protocol::AgentKind;
use crate::rng::{Rng, Stream};
use crate::scenario::Scenario;
use crate::trace::Who;
use crate::wavelan::{Medium, Station};

/// The fixed host's address (the data sender).
pub const FH_ADDR: Endpoint = Endpoint {
    addr: 0x0a00_0001, // 10.0.0.1
    port: 20000,
};
/// The mobile host's address (the data receiver).
pub const MH_ADDR: Endpoint = Endpoint {
    addr: 0x0a00_0102, // 10.0.1.2
    port: 5001,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Node {
    Fh = 0,
    Bs = 1,
    Mh = 2,
}

#[derive(Clone, Copy, Debug)]
enum Event {
    Timer(Node, u32),
    /// A packet reaches the base station from the fixed host.
    AtBsFromWire(SimPacket),
    /// A packet reaches the fixed host from the base station.
    AtFh(SimPacket),
    /// The frame on the WaveLAN ends.
    AirDone,
}

/// The base-station agent each protocol uses.
pub fn make_agent(sc: &Scenario) -> Box<dyn Agent<SimPacket>> {
    match sc.protocol.agent() {
        kind @ (AgentKind::Router | AgentKind::LinkLayer { .. }) => {
            forwarding_agent(kind).unwrap_or_else(|| Box::new(Router::default()))
        }
        AgentKind::Split { smart } => {
            let policy = if smart {
                RecoveryPolicy::SMART
            } else {
                RecoveryPolicy::RENO
            };
            let mut cfg = SplitConfig::paper000(sc.mss, policy);
            let mut clock = Rng::new(sc.seed, Stream::BaseStationClock);
            for t in [&mut cfg.wired, &mut cfg.wireless] {
                t.host = sc.host;
                t.timers.slow_phase = clock.below(t.timers.slow_tick);
                t.timers.fast_phase = clock.below(t.timers.fast_tick);
                t.iss = clock.next_u64() as u32;
            }
            Box::new(SplitAgent::new(cfg))
        }
    }
}

/// The agents that work on any packet, the simulator's or the live mode's raw bytes: the router
/// and the link-layer family with paper 000's settings. `None` for a split connection, which
/// terminates TCP and needs the simulator's endpoints.
pub fn forwarding_agent<P>(kind: AgentKind) -> Option<Box<dyn Agent<P>>>
where
    P: SegmentView + BuildPacket + Clone + 'static,
{
    match kind {
        AgentKind::Router => Some(Box::new(Router::default())),
        AgentKind::LinkLayer {
            suppress_dupacks,
            selective,
        } => Some(Box::new(SnoopAgent::new(SnoopConfig::paper000(
            suppress_dupacks,
            selective,
        )))),
        AgentKind::Split { .. } => None,
    }
}

pub struct Simulation<O: Observe = NoObserver> {
    sc: Scenario,
    now: Time,
    queue: EventQueue<Event>,
    timers: [TimerSlot; 3],
    fh: Tcp,
    mh: Tcp,
    bs: Box<dyn Agent<SimPacket>>,
    down: WiredLink,
    up: WiredLink,
    air: Medium,
    events: u64,
    // measurements
    first_data_at: Option<Time>,
    complete_at: Option<Time>,
    wireless_data_bytes: u64,
    wireless_data_frames: u64,
    last_fh_tx: Time,
    timeout_stall: Time,
    inv: InvariantReport,
    /// Traces and captures, when asked for.
    obs: O,
}

impl Simulation<NoObserver> {
    /// A run of `sc` with the protocol's own base-station agent.
    pub fn new(sc: &Scenario) -> Simulation {
        Simulation::with_agent(sc, make_agent(sc))
    }

    /// A run of `sc` with the given base-station agent (tests use this to plant faulty ones).
    pub fn with_agent(sc: &Scenario, bs: Box<dyn Agent<SimPacket>>) -> Simulation {
        Simulation::build(sc, bs, NoObserver)
    }

    /// Runs to the end: both connections closed, nothing left to happen, or the time cap.
    ///
    /// The concrete entry points ([`Simulation::run`], [`Simulation::run_observed`]) are compiled
    /// in this crate, where the event loop can inline the links and the queue; a generic entry
    /// point would be compiled in the caller's crate without that.
    pub fn run(self) -> RunResult {
        self.run_to_end().0
    }
}

impl Simulation<Observer> {
    /// A run of `sc` with the protocol's own agent that records what `obs` asks for.
    pub fn observed(sc: &Scenario, obs: Observer) -> Simulation<Observer> {
        Simulation::build(sc, make_agent(sc), obs)
    }

    /// Runs to the end and hands back the observer with what it recorded.
    pub fn run_observed(self) -> (RunResult, Observer) {
        self.run_to_end()
    }
}

impl<O: Observe> Simulation<O> {
    fn build(sc: &Scenario, bs: Box<dyn Agent<SimPacket>>, obs: O) -> Simulation<O> {
        let mut fh_clock = Rng::new(sc.seed, Stream::FixedHostClock);
        let mut mh_clock = Rng::new(sc.seed, Stream::MobileHostClock);
        let mut iss = Rng::new(sc.seed, Stream::InitialSequence);

        let mut fcfg = TcpConfig::bulk_sender(sc.mss, sc.buffer, sc.transfer);
        fcfg.policy = sc.protocol.sender_policy();
        fcfg.host = sc.host;
        fcfg.timers.slow_phase = fh_clock.below(fcfg.timers.slow_tick);
        fcfg.timers.fast_phase = fh_clock.below(fcfg.timers.fast_tick);
        fcfg.iss = iss.next_u64() as u32;
        let mut mcfg = TcpConfig::sink(sc.mss, sc.buffer);
        mcfg.receiver = sc.protocol.receiver_policy();
        mcfg.host = sc.host;
        mcfg.timers.slow_phase = mh_clock.below(mcfg.timers.slow_tick);
        mcfg.timers.fast_phase = mh_clock.below(mcfg.timers.fast_tick);
        mcfg.iss = iss.next_u64() as u32;

        let air = Medium::with_errors(
            sc.wavelan.clone(),
            ErrorSpec::every(sc.error_every, sc.burst),
            sc.seed,
        );
        let mut sim = Simulation {
            now: 0,
            queue: EventQueue::default(),
            timers: [TimerSlot::default(); 3],
            fh: Tcp::connect(fcfg, FH_ADDR, MH_ADDR, 0),
            mh: Tcp::listen(mcfg, MH_ADDR, FH_ADDR),
            bs,
            down: WiredLink::new(sc.wired.clone()),
            up: WiredLink::new(sc.wired.clone()),
            air,
            events: 0,
            first_data_at: None,
            complete_at: None,
            wireless_data_bytes: 0,
            wireless_data_frames: 0,
            last_fh_tx: 0,
            timeout_stall: 0,
            inv: InvariantReport::default(),
            obs,
            sc: sc.clone(),
        };
        sim.kick_fh();
        sim
    }

    fn run_to_end(mut self) -> (RunResult, O) {
        while let Some((t, ev)) = self.queue.pop() {
            if t > self.sc.max_time {
                self.inv.note(format!(
                    "stopped at the time cap of {} s",
                    as_secs_f64(self.sc.max_time)
                ));
                break;
            }
            self.now = t;
            self.events += 1;
            self.dispatch(ev);
            if self.fh.is_finished() && self.mh.is_finished() {
                break;
            }
        }
        let obs = std::mem::take(&mut self.obs);
        (self.finish(), obs)
    }

    fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::Timer(node, gen) => {
                if !self.timers[node as usize].fire(gen) {
                    self.events -= 1; // a stale entry is not an event
                    return;
                }
                match node {
                    Node::Fh => {
                        let before = self.fh.stats().timeouts;
                        self.fh.on_timeout(self.now);
                        if self.fh.stats().timeouts > before {
                            self.timeout_stall += self.now.saturating_sub(self.last_fh_tx);
                        }
                        self.kick_fh();
                    }
                    Node::Mh => {
                        self.mh.on_timeout(self.now);
                        self.after_mh_input();
                        self.kick_mh();
                    }
                    Node::Bs => {
                        self.bs.on_timeout(self.now);
                        self.kick_bs();
                    }
                }
            }
            Event::AtBsFromWire(pkt) => {
                {
                    self.obs.on_link(self.now, Link::Wired, &pkt);
                }
                self.bs.on_packet(self.now, Port::Wired, pkt);
                self.kick_bs();
            }
            Event::AtFh(pkt) => {
                {
                    self.obs.on_link(self.now, Link::Wired, &pkt);
                    self.obs
                        .ack_arrived(self.now, Who::Fh, &pkt.seg, self.fh.iss() + 1);
                }
                self.check_ack_semantics(&pkt);
                self.fh.on_segment(self.now, &pkt.seg);
                self.kick_fh();
            }
            Event::AirDone => {
                if let Some((from, pkt)) = self.air.finish() {
                    {
                        self.obs.on_link(self.now, Link::Wireless, &pkt);
                    }
                    match from {
                        Station::BaseStation => {
                            if pkt.corrupted {
                                self.mh.on_corrupted(&pkt.seg);
                            } else {
                                self.check_payload(&pkt);
                                self.mh.on_segment(self.now, &pkt.seg);
                                self.after_mh_input();
                                self.kick_mh();
                            }
                        }
                        Station::Mobile => {
                            if !pkt.corrupted {
                                self.ack_to_bs(pkt);
                            }
                        }
                    }
                }
                self.kick_air();
            }
        }
    }

    /// An ACK from the mobile host reaches the base station.
    fn ack_to_bs(&mut self, pkt: SimPacket) {
        if !O::ACTIVE {
            self.bs.on_packet(self.now, Port::Wireless, pkt);
            self.kick_bs();
            return;
        }
        let first = self.mh.irs() + 1;
        self.obs.ack_arrived(self.now, Who::Bs, &pkt.seg, first);
        let before = self.bs.stats().dupacks_suppressed;
        let ack = pkt.seg.ack;
        self.bs.on_packet(self.now, Port::Wireless, pkt);
        if self.bs.stats().dupacks_suppressed > before {
            self.obs.suppressed(self.now, ack, first);
        }
        self.kick_bs();
    }

    fn arm(&mut self, node: Node, want: Option<Time>) {
        if let Some((t, gen)) = self.timers[node as usize].update(want) {
            self.queue.push(t.max(self.now), Event::Timer(node, gen));
        }
    }

    fn kick_fh(&mut self) {
        while let Some((seg, kind)) = self.fh.poll_transmit() {
            {
                self.obs
                    .endpoint_sent(self.now, Who::Fh, &seg, kind, self.fh.iss() + 1);
            }
            self.last_fh_tx = self.now;
            let offset = u64::from(seg.seq.since(self.fh.iss() + 1));
            if seg.len > 0 && self.first_data_at.is_none() {
                self.first_data_at = Some(self.now);
            }
            let pkt = SimPacket::new(seg, Some(payload_tag(offset, seg.len)));
            if let Some(at) = self.down.send(self.now, pkt.ip_len()) {
                self.queue.push(at, Event::AtBsFromWire(pkt));
            }
        }
        self.check_sender_memory();
        {
            self.obs
                .window(self.now, Who::Fh, self.fh.cwnd(), self.fh.ssthresh());
        }
        let want = self.fh.poll_timeout();
        self.arm(Node::Fh, want);
    }

    fn kick_mh(&mut self) {
        while let Some((seg, _)) = self.mh.poll_transmit() {
            self.air
                .enqueue(Station::Mobile, SimPacket::new(seg, None), Priority::Normal);
        }
        self.kick_air();
        let want = self.mh.poll_timeout();
        self.arm(Node::Mh, want);
    }

    fn kick_bs(&mut self) {
        while let Some(tx) = self.bs.poll_transmit(self.now) {
            if tx.port == Port::Wireless {
                self.obs
                    .bs_sent(self.now, &tx.packet.seg, tx.origin, self.mh.irs() + 1);
            }
            match tx.port {
                Port::Wireless => {
                    self.air
                        .enqueue(Station::BaseStation, tx.packet, tx.priority);
                }
                Port::Wired => {
                    if let Some(at) = self.up.send(self.now, tx.packet.ip_len()) {
                        self.queue.push(at, Event::AtFh(tx.packet));
                    }
                }
            }
        }
        self.kick_air();
        if O::ACTIVE {
            self.obs.agent_state(self.now, self.bs.probe());
        }
        let want = self.bs.poll_timeout();
        self.arm(Node::Bs, want);
    }

    fn kick_air(&mut self) {
        if let Some((end, who, pkt)) = self.air.start_next(self.now) {
            if who == Station::BaseStation && pkt.seg.len > 0 {
                self.wireless_data_bytes += u64::from(pkt.seg.len);
                self.wireless_data_frames += 1;
            }
            self.queue.push(end, Event::AirDone);
        }
    }

    /// The data's digest must be what the sender put at that offset. Offsets count from the mobile
    /// host's view of the stream, so the check holds through a split base station too; packets a
    /// split relay built carry no digest.
    fn check_payload(&mut self, pkt: &SimPacket) {
        let Some(tag) = pkt.payload_tag else {
            return;
        };
        if pkt.seg.len == 0 || pkt.seg.src != FH_ADDR {
            return;
        }
        let offset = u64::from(pkt.seg.seq.since(self.mh.irs() + 1));
        if tag != payload_tag(offset, pkt.seg.len) {
            self.inv.payload_mismatches += 1;
            self.inv.note(format!(
                "at {:.6} s the mobile host received {} bytes at offset {} whose payload the fixed host never sent there",
                as_secs_f64(self.now),
                pkt.seg.len,
                offset
            ));
        }
    }

    /// After the mobile host's TCP ran: the transfer is complete when its application has read
    /// the last byte.
    fn after_mh_input(&mut self) {
        let delivered = self.mh.stats().bytes_delivered;
        if delivered > self.sc.transfer {
            self.inv.over_delivery = delivered - self.sc.transfer;
        }
        if self.mh.stats().bytes_read >= self.sc.transfer && self.complete_at.is_none() {
            self.complete_at = Some(self.now);
        }
        let (_, rcvbuf) = self.mh.buffers();
        if self.mh.reass_bytes() > rcvbuf {
            self.inv.memory_bound_violations += 1;
            self.inv.note(format!(
                "the mobile host holds {} out-of-order bytes, above its {} byte buffer",
                self.mh.reass_bytes(),
                rcvbuf
            ));
        }
    }

    fn check_sender_memory(&mut self) {
        let (sndbuf, _) = self.fh.buffers();
        let outstanding = self.fh.snd_max().since(self.fh.snd_una());
        // +1: the FIN occupies a sequence number but no buffer space.
        if outstanding > sndbuf + 1 {
            self.inv.memory_bound_violations += 1;
            self.inv.note(format!(
                "the fixed host has {outstanding} bytes outstanding, above its {sndbuf} byte buffer"
            ));
        }
    }

    /// End-to-end semantics: an ACK reaching the fixed host may only cover data the mobile host
    /// has. Counted in bytes of the transfer, so that a split base station, whose two connections
    /// number the bytes differently, is measured the same way; for split connections the count is
    /// the expected result, reported but not a failure.
    fn check_ack_semantics(&mut self, pkt: &SimPacket) {
        let seg = &pkt.seg;
        if !seg.has_ack() || seg.src != MH_ADDR {
            return;
        }
        let acked = u64::from(seg.ack.since(self.fh.iss() + 1)).min(self.sc.transfer);
        let has = self.mh.stats().bytes_delivered;
        if acked > has {
            if self.sc.protocol.is_split() {
                self.inv.split_acks_ahead += 1;
                return;
            }
            self.inv.ack_semantics_violations += 1;
            self.inv.note(format!(
                "at {:.6} s the fixed host was acknowledged {} bytes the mobile host had not received",
                as_secs_f64(self.now),
                acked - has
            ));
        }
    }

    fn finish(mut self) -> RunResult {
        let sc = &self.sc;
        let delivered = self.mh.stats().bytes_delivered;
        self.inv.complete = delivered == sc.transfer && self.complete_at.is_some();
        let ms = self.mh.stats();
        if !self.inv.complete {
            let why = if self.fh.stats().dropped {
                "the sender gave up after 12 retransmissions"
            } else if self.now < sc.max_time {
                "nothing was left to happen (a deadlock: no packet in flight, no timer set)"
            } else {
                "the run ended"
            };
            self.inv.note(format!(
                "{why} with {delivered} of {} bytes delivered",
                sc.transfer
            ));
        }
        let start = self.first_data_at.unwrap_or(0);
        let end = self.complete_at.unwrap_or(self.now);
        let duration = end.saturating_sub(start);
        let throughput = if self.inv.complete && duration > 0 {
            sc.transfer as f64 * 8.0 / as_secs_f64(duration) / 1e6
        } else {
            0.0
        };
        let pct = |num: u64, den: u64| {
            if den == 0 {
                0.0
            } else {
                100.0 * num as f64 / den as f64
            }
        };
        let fs = self.fh.stats();
        let agent = self.bs.stats();
        RunResult {
            protocol: sc.protocol.name().to_string(),
            env: sc.env.name().to_string(),
            buffer_bytes: sc.buffer,
            mss: sc.mss,
            transfer_bytes: sc.transfer,
            error_every_bytes: sc.error_every,
            burst: sc.burst,
            seed: sc.seed,
            throughput_mbps: throughput,
            wireless_goodput_pct: pct(delivered, self.wireless_data_bytes),
            wired_goodput_pct: pct(delivered, fs.data_bytes_sent),
            timeouts: fs.timeouts,
            fast_retransmits: fs.fast_retransmits,
            duration_s: as_secs_f64(duration),
            events: self.events,
            sender_retransmitted_segments: fs.rexmt_segs,
            sender_dupacks: fs.dupacks_rcvd,
            local_retransmissions: agent.local_retransmissions,
            dupacks_suppressed: agent.dupacks_suppressed,
            frames_corrupted_down: self.air.down.corrupted,
            frames_corrupted_up: self.air.up.corrupted,
            wireless_data_frames: self.wireless_data_frames,
            queue_drops: self.down.drops + self.up.drops + self.air.drops,
            timeout_stall_s: as_secs_f64(self.timeout_stall),
            timeout_causes: (&fs.timeout_causes).into(),
            effective_buffer_bytes: self.fh.buffers().0,
            host: sc.host_label(),
            host_details: HostProfile::KEYS
                .iter()
                .filter_map(|k| sc.host.get(k).map(|v| (k.to_string(), v)))
                .collect(),
            persist_timeouts: fs.persist_timeouts,
            zero_window_acks: ms.zero_window_acks,
            window_updates: ms.window_updates,
            predicted_acks: fs.predicted_acks,
            predicted_acks_in_recovery: fs.predicted_acks_in_recovery,
            predicted_data: ms.predicted_data,
            invariants: self.inv,
        }
    }
}

/// Runs one scenario with its protocol's agent.
pub fn run(sc: &Scenario) -> RunResult {
    Simulation::new(sc).run()
}
