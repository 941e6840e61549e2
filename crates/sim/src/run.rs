//! One simulated run of a network (`network/`): the event loop.
//!
//! The loop pops events in time order and drives the sans-IO objects by index: nodes (`nodes/`: hosts
//! with their TCP endpoints, base stations with their agents), wired links (`link.rs`) and the cells'
//! media (`medium/`). After a node handles an event it is "kicked": what it sends is routed to the next
//! link or medium, and its timer is re-armed. Nothing here names a host or assumes a direction of
//! transfer.

use std::collections::VecDeque;

use snooplab_proto::agent::handoff::{Decision, Mobility, Scheme, BROADCAST};
use snooplab_proto::agent::{
    Agent, BuildPacket, Departure, ElnAgent, ElnConfig, NackAgent, NackConfig, Origin, RelayReport,
    Router, SegmentView, SnoopAgent, SnoopConfig, SplitAgent, SplitConfig,
};
use snooplab_proto::tcp::{HostProfile, RecoveryPolicy, Tcp, TcpConfig};
use snooplab_proto::time::as_secs_f64;
use snooplab_proto::{Endpoint, Seq, Time};

use crate::channel::{Channel, ChannelSpec};
use crate::engine::{EventQueue, TimerSlot};
use crate::flow::FlowState;
use crate::invariants::InvariantReport;
use crate::link::WiredLink;
use crate::medium::{Medium, Transmission, BASE_STATION};
use crate::metrics::{
    Aggregate, CellResult, FlowResult, HandoffEvent, HandoffResult, RunResult, StationChannels,
};
use crate::network::{FlowId, Hop, InputQueue, Network, NodeId, NodeKind, Routes};
use crate::nodes::{BaseStationNode, Conn, HostNode, Outgoing, Role, Side, SimNode};
use crate::observer::{NoObserver, Observe, Observer};
use crate::packet::{payload_tag, SimPacket};
use crate::protocol::AgentKind;
use crate::rng::{Rng, Stream};
use crate::scenario::Scenario;

pub use crate::network::paper000::{FH_ADDR as FH_IP, MH_ADDR as MH_IP};

/// The fixed host's first TCP endpoint in paper 000's testbed (the data sender).
pub const FH_ADDR: Endpoint = Endpoint {
    addr: FH_IP,
    port: crate::network::paper000::SRC_PORT,
};
/// The mobile host's first TCP endpoint in paper 000's testbed (the data receiver).
pub const MH_ADDR: Endpoint = Endpoint {
    addr: MH_IP,
    port: crate::network::paper000::DST_PORT,
};

#[derive(Clone, Copy, Debug)]
enum Event {
    /// A node's timer.
    Node(NodeId, u32),
    /// A cell's medium timer.
    Cell(usize, u32),
    /// The first packet in flight on a wired link reaches its far end (direction 0: `ends[0]` to
    /// `ends[1]`). A link is FIFO, so its packets wait in `in_flight` rather than in the event
    /// queue, which keeps events small.
    Arrive(usize, u8),
    /// A flow's sender opens its connection.
    Start(FlowId),
    /// `Network::crashes[i]` happens: its base station crashes.
    Crash(usize),
    /// ... and comes back.
    Restart(usize),
    /// A split connection's state handed over at a handoff reaches its new base station:
    /// `in_transit[k]` (one index keeps events 16 bytes).
    Install(usize),
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
        AgentKind::Eln => Some(Box::new(ElnAgent::new(ElnConfig::paper004()))),
        AgentKind::Nack => Some(Box::new(NackAgent::new(NackConfig::paper002()))),
        AgentKind::SnoopOnEln => Some(Box::new(SnoopAgent::new(SnoopConfig::transit()))),
        AgentKind::Snoop002 => Some(Box::new(SnoopAgent::new(SnoopConfig::paper002()))),
        AgentKind::SnoopQueueBlind => Some(Box::new(SnoopAgent::new(SnoopConfig {
            queue_aware: false,
            ..SnoopConfig::paper000(true, false)
        }))),
        AgentKind::Split { .. } => None,
    }
}

/// The agent of base station `node` (the `index`-th base station): its kind, and for a split
/// connection the TCP of the flow it relays.
fn make_agent(
    kind: AgentKind,
    input: &InputQueue,
    net: &Network,
    relayed: Option<FlowId>,
    index: u64,
) -> Box<dyn Agent<SimPacket>> {
    match kind {
        AgentKind::Eln => Box::new(ElnAgent::new(ElnConfig {
            queue_threshold: input.congestion_fraction,
            ..ElnConfig::paper004()
        })),
        AgentKind::Nack => Box::new(NackAgent::new(NackConfig {
            queue_threshold: input.congestion_fraction,
            ..NackConfig::paper002()
        })),
        AgentKind::Router
        | AgentKind::LinkLayer { .. }
        | AgentKind::SnoopOnEln
        | AgentKind::SnoopQueueBlind
        | AgentKind::Snoop002 => {
            forwarding_agent(kind).unwrap_or_else(|| Box::new(Router::default()))
        }
        AgentKind::Split { smart } => {
            let policy = if smart {
                RecoveryPolicy::SMART
            } else {
                RecoveryPolicy::RENO
            };
            let (mss, host) = relayed
                .map(|f| (net.flows[f].mss, net.flows[f].host))
                .unwrap_or((1400, HostProfile::default()));
            let mut cfg = SplitConfig::paper000(mss, policy);
            let mut clock = Rng::indexed(net.seed, Stream::BaseStationClock, index);
            for t in [&mut cfg.wired, &mut cfg.wireless] {
                t.host = host;
                t.timers.slow_phase = clock.below(t.timers.slow_tick);
                t.timers.fast_phase = clock.below(t.timers.fast_tick);
                t.iss = clock.next_u64() as u32;
            }
            Box::new(SplitAgent::new(cfg))
        }
    }
}

/// What [`make_agent`] made a base station's agent from: its kind, input queue, the flow a split
/// connection relays, and the base station's index.
type AgentRecipe = (AgentKind, InputQueue, Option<FlowId>, u64);

/// A split connection's state between two base stations: where it goes, and the agent.
type StateInTransit = (NodeId, Box<dyn Agent<SimPacket>>);

pub struct Simulation<O: Observe = NoObserver> {
    net: Network,
    routes: Routes,
    /// Address of every node, for routing by destination.
    addrs: Vec<u32>,
    now: Time,
    queue: EventQueue<Event>,
    nodes: Vec<SimNode>,
    node_timers: Vec<TimerSlot>,
    links: Vec<[WiredLink; 2]>,
    /// Packets on each wired link direction, in the order they arrive.
    in_flight: Vec<[VecDeque<SimPacket>; 2]>,
    cells: Vec<Medium>,
    cell_timers: Vec<TimerSlot>,
    /// The cells each node is a station of (as base station or mobile host; only a mobile host
    /// that hands off has more than one): a kick starts them once the node has sent, even when it
    /// sent nothing, so that the medium's next frame is scheduled before the node's timer (the
    /// order of events that fall on the same nanosecond depends on it).
    node_cells: Vec<Vec<usize>>,
    /// For a mobile host that hands off: each base station of its group, with the cell and the
    /// station number the host has there.
    roaming: Vec<Vec<(NodeId, usize, usize)>>,
    /// How each base station's agent was made, to make it again after a crash.
    recipes: Vec<Option<AgentRecipe>>,
    /// For each cell, the other cells on the same radio channel (`HandoffSpec::shared_channel`).
    air_group: Vec<Vec<usize>>,
    /// A cell of a shared channel whose frame just ended: while its receiver takes the frame (and
    /// may answer at once), neither it nor the other cells of its channel start, so that the
    /// others get their turn first (`Event::Cell`).
    air_hold: Option<usize>,
    /// Connection state on its way between base stations (`Scheme::SplitTransfer`).
    in_transit: Vec<Option<StateInTransit>>,
    /// Handoff decisions of each mobile host already acted on.
    decisions_seen: Vec<usize>,
    /// The connection-state transfers each mobile host's handoffs took.
    state_transfers: Vec<Vec<Time>>,
    flows: Vec<FlowState>,
    /// The flows each node sends and receives.
    senders_on: Vec<Vec<FlowId>>,
    receivers_on: Vec<Vec<FlowId>>,
    /// Reused by `node_timeout`: the timeouts of a node's senders before its timer ran.
    scratch: Vec<(FlowId, u64)>,
    /// The flows' endpoints: (sender, receiver).
    endpoints: Vec<(Endpoint, Endpoint)>,
    /// The TCP configuration each flow's sender opens with, until it starts.
    pending: Vec<Option<TcpConfig>>,
    events: u64,
    /// The loop stopped at the time cap with events still to come.
    capped: bool,
    inv: InvariantReport,
    /// The report's scenario labels: environment, and the first station's error model.
    env: String,
    /// Traces and captures, when asked for.
    obs: O,
}

impl Simulation<NoObserver> {
    /// A run of paper 000's testbed as `sc` describes it.
    pub fn new(sc: &Scenario) -> Simulation {
        Simulation::of_network(&sc.network(), sc.env.name())
    }

    /// A run of any network; `env` labels it in the results.
    pub fn of_network(net: &Network, env: &str) -> Simulation {
        Simulation::build(net, env, NoObserver)
    }

    /// Runs to the end: every flow closed, nothing left to happen, or the time cap.
    ///
    /// The concrete entry points ([`Simulation::run`], [`Simulation::run_observed`]) are compiled
    /// in this crate, where the event loop can inline the links and the queue; a generic entry
    /// point would be compiled in the caller's crate without that.
    pub fn run(self) -> RunResult {
        self.run_to_end().0
    }

    /// A run of paper 000's testbed with the given base-station agent (tests plant faulty ones).
    pub fn with_agent(sc: &Scenario, agent: Box<dyn Agent<SimPacket>>) -> Simulation {
        let net = sc.network();
        let bs = net.node_id("bs");
        let mut sim = Simulation::of_network(&net, sc.env.name());
        if let Some(SimNode::BaseStation(b)) = bs.and_then(|n| sim.nodes.get_mut(n)) {
            b.agent = agent;
        }
        sim
    }
}

impl Simulation<Observer> {
    /// A run of paper 000's testbed that records what `obs` asks for.
    pub fn observed(sc: &Scenario, obs: Observer) -> Simulation<Observer> {
        Simulation::build(&sc.network(), sc.env.name(), obs)
    }

    /// A run of any network that records what `obs` asks for.
    pub fn observed_network(net: &Network, env: &str, obs: Observer) -> Simulation<Observer> {
        Simulation::build(net, env, obs)
    }

    /// Runs to the end and hands back the observer with what it recorded.
    pub fn run_observed(self) -> (RunResult, Observer) {
        self.run_to_end()
    }
}

impl<O: Observe> Simulation<O> {
    fn build(net: &Network, env: &str, mut obs: O) -> Simulation<O> {
        let routes = Routes::new(net);
        let seed = net.seed;
        // Each host's coarse-timer clocks: fixed hosts and mobile hosts count separately, so the
        // first of each draws from the streams paper 000's testbed always used.
        let (mut fixed, mut mobile) = (0u64, 0u64);
        let clocks: Vec<Option<(Time, Time)>> = (0..net.nodes.len())
            .map(|i| {
                if net.nodes[i].kind != NodeKind::Host {
                    return None;
                }
                let mut r = if net.is_mobile(i) {
                    mobile += 1;
                    Rng::indexed(seed, Stream::MobileHostClock, mobile - 1)
                } else {
                    fixed += 1;
                    Rng::indexed(seed, Stream::FixedHostClock, fixed - 1)
                };
                let t = snooplab_proto::tcp::TimerConfig::default();
                let slow = r.below(t.slow_tick);
                let fast = r.below(t.fast_tick);
                Some((slow, fast))
            })
            .collect();
        let mut nodes: Vec<SimNode> = Vec::with_capacity(net.nodes.len());
        let mut recipes = vec![None; net.nodes.len()];
        let mut bs_index = 0u64;
        for (i, n) in net.nodes.iter().enumerate() {
            nodes.push(match &n.kind {
                NodeKind::Host => {
                    let mut h = HostNode::default();
                    h.mobile = crate::handoff::mobile_host(net, i);
                    SimNode::Host(h)
                }
                NodeKind::BaseStation { agent, input } => {
                    let relayed = net
                        .flows
                        .iter()
                        .position(|f| routes.path(net, f.from, f.to).contains(&i));
                    bs_index += 1;
                    recipes[i] = Some((*agent, *input, relayed, bs_index - 1));
                    let agent = make_agent(*agent, input, net, relayed, bs_index - 1);
                    SimNode::BaseStation(BaseStationNode::new(
                        crate::handoff::with_handoff(net, i, agent, false),
                        *input,
                    ))
                }
            });
        }
        // Both ends of every flow: the receiver listens from the start, the sender opens at its
        // start time. Initial sequence numbers come from one stream, sender then receiver.
        let mut iss = Rng::new(seed, Stream::InitialSequence);
        let mut pending = Vec::with_capacity(net.flows.len());
        let mut endpoints = Vec::with_capacity(net.flows.len());
        let mut receiver_conns = Vec::with_capacity(net.flows.len());
        for (f, fl) in net.flows.iter().enumerate() {
            let (src, dst) = net.endpoints(f);
            endpoints.push((src, dst));
            let mut scfg = TcpConfig::bulk_sender(fl.mss, fl.buffer, fl.transfer);
            scfg.policy = fl.protocol.sender_policy();
            scfg.host = fl.host;
            if let Some((slow, fast)) = clocks[fl.from] {
                scfg.timers.slow_phase = slow;
                scfg.timers.fast_phase = fast;
            }
            scfg.iss = iss.next_u64() as u32;
            let mut rcfg = TcpConfig::sink(fl.mss, fl.buffer);
            rcfg.receiver = fl.protocol.receiver_policy();
            rcfg.host = fl.host;
            if let Some((slow, fast)) = clocks[fl.to] {
                rcfg.timers.slow_phase = slow;
                rcfg.timers.fast_phase = fast;
            }
            rcfg.iss = iss.next_u64() as u32;
            if let SimNode::Host(h) = &mut nodes[fl.to] {
                receiver_conns.push(h.conns.len());
                h.conns.push(Conn {
                    flow: f,
                    role: Role::Receiver,
                    tcp: Tcp::listen(rcfg, dst, src),
                });
            } else {
                receiver_conns.push(usize::MAX);
            }
            pending.push(Some(scfg));
        }
        let links = net
            .links
            .iter()
            .map(|l| {
                [
                    WiredLink::new(l.params.clone()),
                    WiredLink::new(l.params.clone()),
                ]
            })
            .collect();
        // Each station's channels, each from its own stream: the first cell's first mobile host
        // draws from the streams paper 000's testbed always used.
        let cells: Vec<Medium> = net
            .cells
            .iter()
            .enumerate()
            .map(|(c, cell)| {
                let channels = cell
                    .stations
                    .iter()
                    .enumerate()
                    .map(|(s, st)| {
                        let k = (c as u64) << 16 | s as u64;
                        (
                            Channel::new(&st.down, Rng::indexed(seed, Stream::ErrorsDown, k)),
                            Channel::new(&st.up, Rng::indexed(seed, Stream::ErrorsUp, k)),
                        )
                    })
                    .collect();
                let backoff = Rng::indexed(seed, Stream::MediumBackoff, c as u64);
                Medium::new(cell.params.clone(), cell.access.clone(), channels, backoff)
            })
            .collect();
        obs.begin(net);
        let mut sim = Simulation {
            routes,
            addrs: net.nodes.iter().map(|n| n.addr).collect(),
            now: 0,
            queue: EventQueue::default(),
            node_timers: vec![TimerSlot::default(); net.nodes.len()],
            nodes,
            in_flight: (0..net.links.len()).map(|_| Default::default()).collect(),
            links,
            cell_timers: vec![TimerSlot::default(); net.cells.len()],
            cells,
            node_cells: (0..net.nodes.len())
                .map(|n| match net.cell_of(n) {
                    Some(c) => vec![c],
                    None => net.stations_of(n).into_iter().map(|(c, _)| c).collect(),
                })
                .collect(),
            recipes,
            in_transit: vec![],
            air_group: (0..net.cells.len())
                .map(|c| {
                    let mut group: Vec<usize> = net
                        .handoffs
                        .iter()
                        .filter(|h| h.shared_channel)
                        .map(|h| {
                            h.base_stations
                                .iter()
                                .filter_map(|&bs| net.cell_of(bs))
                                .collect::<Vec<_>>()
                        })
                        .filter(|cells| cells.contains(&c))
                        .flatten()
                        .filter(|&g| g != c)
                        .collect();
                    group.sort_unstable();
                    group.dedup();
                    group
                })
                .collect(),
            air_hold: None,
            decisions_seen: vec![0; net.nodes.len()],
            state_transfers: vec![vec![]; net.nodes.len()],
            roaming: (0..net.nodes.len())
                .map(|n| {
                    net.handoffs
                        .iter()
                        .filter(|h| h.mobile == n)
                        .flat_map(|h| h.base_stations.iter())
                        .filter_map(|&bs| {
                            let c = net.cell_of(bs)?;
                            let st = net.cells[c].stations.iter().position(|s| s.node == n)?;
                            Some((bs, c, st + 1))
                        })
                        .collect()
                })
                .collect(),
            flows: net
                .flows
                .iter()
                .zip(&receiver_conns)
                .map(|(f, &conn)| FlowState::new(f.from, f.to, conn))
                .collect(),
            senders_on: (0..net.nodes.len())
                .map(|n| {
                    (0..net.flows.len())
                        .filter(|&f| net.flows[f].from == n)
                        .collect()
                })
                .collect(),
            receivers_on: (0..net.nodes.len())
                .map(|n| {
                    (0..net.flows.len())
                        .filter(|&f| net.flows[f].to == n)
                        .collect()
                })
                .collect(),
            scratch: Vec::new(),
            endpoints,
            pending,
            events: 0,
            capped: false,
            inv: InvariantReport::default(),
            env: env.to_string(),
            obs,
            net: net.clone(),
        };
        for (i, c) in sim.net.crashes.iter().enumerate() {
            sim.queue.push(c.at, Event::Crash(i));
            sim.queue.push(c.at + c.down_for, Event::Restart(i));
        }
        // nodes with timers of their own from the start (a mobile host's handoff timer, beacons):
        // armed now, not at their first packet
        for n in 0..sim.nodes.len() {
            sim.arm_node(n);
        }
        for f in 0..sim.net.flows.len() {
            let start = sim.net.flows[f].start;
            if start == 0 {
                sim.start_flow(f);
            } else {
                sim.queue.push(start, Event::Start(f));
            }
        }
        sim
    }

    /// The flow's sender opens its connection.
    fn start_flow(&mut self, f: FlowId) {
        let Some(cfg) = self.pending[f].take() else {
            return;
        };
        let (src, dst) = self.endpoints[f];
        let node = self.net.flows[f].from;
        if let SimNode::Host(h) = &mut self.nodes[node] {
            self.flows[f].sender_conn = Some(h.conns.len());
            h.conns.push(Conn {
                flow: f,
                role: Role::Sender,
                tcp: Tcp::connect(cfg, src, dst, self.now),
            });
        }
        self.kick(node);
    }

    fn run_to_end(mut self) -> (RunResult, O) {
        while let Some((t, ev)) = self.queue.pop() {
            if self.is_stale(ev) {
                // A timer re-armed or cancelled since: not an event. It must not move the clock
                // (an incomplete run's duration would end at a timer that never fired) nor stop
                // the run at the time cap.
                continue;
            }
            if t > self.net.max_time {
                self.inv.note(format!(
                    "stopped at the time cap of {} s",
                    as_secs_f64(self.net.max_time)
                ));
                self.capped = true;
                break;
            }
            self.now = t;
            self.events += 1;
            self.dispatch(ev);
            if self.all_finished() {
                break;
            }
        }
        // frames still on the air went on the air
        for c in 0..self.cells.len() {
            let on_air: Vec<_> = self.cells[c].frames_on_air().map(|f| f.seg).collect();
            for seg in on_air {
                self.count_wireless(&seg);
            }
        }
        let obs = std::mem::take(&mut self.obs);
        (self.finish(), obs)
    }

    /// Every flow has started and both its ends are done.
    fn all_finished(&self) -> bool {
        (0..self.flows.len()).all(|f| {
            self.tcp(f, Role::Sender).is_some_and(Tcp::is_finished)
                && self.tcp(f, Role::Receiver).is_some_and(Tcp::is_finished)
        })
    }

    /// A flow's endpoint.
    fn tcp(&self, f: FlowId, role: Role) -> Option<&Tcp> {
        let fl = &self.flows[f];
        let (node, conn) = match role {
            Role::Sender => (fl.sender, fl.sender_conn?),
            Role::Receiver => (fl.receiver, fl.receiver_conn),
        };
        match &self.nodes[node] {
            SimNode::Host(h) => h.conns.get(conn).map(|c| &c.tcp),
            SimNode::BaseStation(_) => None,
        }
    }

    fn is_stale(&self, ev: Event) -> bool {
        match ev {
            Event::Node(n, gen) => !self.node_timers[n].is_live(gen),
            Event::Cell(c, gen) => !self.cell_timers[c].is_live(gen),
            Event::Arrive(..)
            | Event::Start(_)
            | Event::Crash(_)
            | Event::Restart(_)
            | Event::Install(..) => false,
        }
    }

    fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::Node(n, gen) => {
                // disarms the slot (`run_to_end` skipped the stale entries)
                if !self.node_timers[n].fire(gen) {
                    return;
                }
                self.node_timeout(n);
            }
            Event::Cell(c, gen) => {
                if !self.cell_timers[c].fire(gen) {
                    return;
                }
                self.cells[c].on_timeout(self.now);
                self.air_hold = (!self.air_group[c].is_empty()).then_some(c);
                while let Some(tx) = self.cells[c].poll_done() {
                    self.frame_done(c, tx);
                }
                while let Some((s, frame)) = self.cells[c].poll_given_up() {
                    let sender = self.net.cells[c].node_of(s);
                    self.departed(sender, &frame, Departure::Dropped);
                }
                self.air_hold = None;
                // on a shared channel the other cells go first, in turn from the one after this
                // one: turns across the cells
                let group = self.air_group[c].len();
                let after = self.air_group[c].partition_point(|&g| g < c);
                for k in (after..group).chain(0..after) {
                    self.start_cell(self.air_group[c][k]);
                }
                self.start_cell(c);
                // the step above moved the cell's next time even when start had nothing to add
                self.arm_cell(c);
            }
            Event::Arrive(l, dir) => {
                let Some(pkt) = self.in_flight[l][usize::from(dir)].pop_front() else {
                    return;
                };
                self.obs.on_link(self.now, l, &pkt);
                let node = self.net.links[l].ends[1 - usize::from(dir)];
                self.deliver(node, Side::Wired, pkt);
            }
            Event::Start(f) => self.start_flow(f),
            Event::Crash(i) => self.crash(i),
            Event::Install(k) => {
                let Some((n, agent)) = self.in_transit[k].take() else {
                    return;
                };
                if let SimNode::BaseStation(b) = &mut self.nodes[n] {
                    b.agent.take_over(self.now, agent);
                }
                self.kick(n);
            }
            Event::Restart(i) => {
                let n = self.net.crashes[i].node;
                if let SimNode::BaseStation(b) = &mut self.nodes[n] {
                    b.restart();
                }
                self.kick(n);
            }
        }
    }

    /// A base station crashes: its agent starts afresh, as at the start of the run but with no
    /// mobile host to forward for, and every packet it held, queued for its cell included, is lost.
    fn crash(&mut self, i: usize) {
        let n = self.net.crashes[i].node;
        let Some((kind, input, relayed, index)) = self.recipes[n] else {
            return;
        };
        let agent = make_agent(kind, &input, &self.net, relayed, index);
        let fresh = crate::handoff::with_handoff(&self.net, n, agent, true);
        let lost = self
            .net
            .cell_of(n)
            .map_or(0, |c| self.cells[c].clear_queue(BASE_STATION));
        if let SimNode::BaseStation(b) = &mut self.nodes[n] {
            b.crash(fresh);
            b.crash_drops += lost as u64;
        }
        self.arm_node(n);
    }

    fn node_timeout(&mut self, n: NodeId) {
        // the senders' timeouts, for the time they sat idle waiting for them
        let mut before = std::mem::take(&mut self.scratch);
        before.clear();
        for &f in &self.senders_on[n] {
            before.push((
                f,
                self.tcp(f, Role::Sender).map_or(0, |t| t.stats().timeouts),
            ));
        }
        self.nodes[n].on_timeout(self.now);
        self.after_decisions(n);
        for &(f, b) in &before {
            let sender = self.tcp(f, Role::Sender);
            if sender.map_or(0, |t| t.stats().timeouts) > b {
                let dropped = sender.is_some_and(|t| t.stats().dropped);
                let fl = &mut self.flows[f];
                fl.add_timeout_stall(self.now);
                if dropped && fl.gave_up_at.is_none() {
                    fl.gave_up_at = Some(self.now);
                }
            }
        }
        self.scratch = before;
        self.after_receive(n);
        self.kick(n);
    }

    /// A frame the medium of cell `c` finished: its receiver gets it.
    fn frame_done(&mut self, c: usize, tx: Transmission<SimPacket>) {
        self.count_wireless(&tx.frame.seg);
        let mut pkt = tx.frame;
        if tx.collided {
            pkt.corrupted = true;
        }
        if pkt.corrupted && pkt.seg.len > 0 {
            if let Some(f) = self.flow_of_data(&pkt.seg) {
                self.flows[f].wireless_data_lost += 1;
                self.flows[f].wireless_data_collided += u64::from(tx.collided);
            }
        }
        self.obs.on_link(self.now, self.net.links.len() + c, &pkt);
        let cell = &self.net.cells[c];
        let node = if tx.to == crate::medium::BASE_STATION {
            cell.base_station
        } else {
            cell.stations[tx.to - 1].node
        };
        let sender = cell.node_of(tx.from);
        self.departed(sender, &pkt, Departure::OnAir);
        if tx.from == BASE_STATION && !self.roaming[node].is_empty() {
            let bs = self.net.cells[c].base_station;
            if !self.in_range(node, bs) {
                // a hard handoff left this cell: what its base station still sends is lost
                return;
            }
            if !pkt.corrupted {
                self.mobile_hears(node, bs, &pkt);
            }
        }
        self.deliver(node, Side::Cell, pkt);
    }

    /// A packet base station `node` sent towards its wireless side left the transmit queue there
    /// (on the air, or dropped): its agent learns what still waits (`Agent::on_departure`, read
    /// by snoop).
    fn departed(&mut self, node: NodeId, pkt: &SimPacket, how: Departure) {
        if let SimNode::BaseStation(b) = &mut self.nodes[node] {
            b.on_departure(self.now, pkt, how);
            self.arm_node(node);
        }
    }

    /// Whether `node` hears base station `bs` (always, unless it is a mobile host that left `bs`'s
    /// cell in a hard handoff).
    fn in_range(&self, node: NodeId, bs: NodeId) -> bool {
        match &self.nodes[node] {
            SimNode::Host(h) => h.mobile.as_ref().is_none_or(|m| m.hears(self.addrs[bs])),
            SimNode::BaseStation(_) => true,
        }
    }

    /// A mobile host that hands off hears base station `bs`: a beacon or control message, or a
    /// packet whose IP id it remembers.
    fn mobile_hears(&mut self, node: NodeId, bs: NodeId, pkt: &SimPacket) {
        let strength = match (pkt.mobility(), self.net.handoff_of(node)) {
            (Some(Mobility::Beacon { .. }), Some(h)) => h.signal_dbm(self.now, bs),
            _ => 0.0,
        };
        let (now, addr) = (self.now, self.addrs[bs]);
        let SimNode::Host(h) = &mut self.nodes[node] else {
            return;
        };
        let Some(m) = h.mobile.as_mut() else {
            return;
        };
        match pkt.mobility() {
            Some(msg) => m.on_message(now, addr, msg, strength),
            None => m.on_received(now, addr, pkt.seg.ip_id),
        }
        let dupacks = m.take_dupacks_due();
        self.after_decisions(node);
        let SimNode::Host(h) = &mut self.nodes[node] else {
            return;
        };
        if dupacks {
            // Caceres and Iftode: three duplicate ACKs from every receiver on the mobile host
            for c in h.conns.iter_mut().filter(|c| c.role == Role::Receiver) {
                c.tcp.send_acks(now, 3);
            }
        }
    }

    /// What a mobile host's new handoff decisions move between base stations: under
    /// `Scheme::SplitTransfer` the old base station's connection state, which reaches the new one
    /// after the time its size takes (`Scheme::state_transfer_time`).
    fn after_decisions(&mut self, node: NodeId) {
        let SimNode::Host(h) = &self.nodes[node] else {
            return;
        };
        let Some(m) = &h.mobile else {
            return;
        };
        if m.decisions().len() == self.decisions_seen[node] {
            return;
        }
        let fresh: Vec<Decision> = m.decisions()[self.decisions_seen[node]..].to_vec();
        self.decisions_seen[node] = m.decisions().len();
        let split = self.net.handoff_of(node).map(|h| h.scheme) == Some(Scheme::SplitTransfer);
        for d in fresh {
            let node_of = |a: u32| self.addrs.iter().position(|&x| x == a);
            let (Some(old), Some(new)) = (node_of(d.from), node_of(d.to)) else {
                continue;
            };
            if O::ACTIVE {
                self.obs.handoff(self.now, node, old, new);
            }
            if !split {
                continue;
            }
            let SimNode::BaseStation(b) = &mut self.nodes[old] else {
                continue;
            };
            let Some(agent) = b.agent.hand_over() else {
                continue;
            };
            let delay = Scheme::state_transfer_time(agent.probe().held_bytes);
            self.state_transfers[node].push(delay);
            self.in_transit.push(Some((new, agent)));
            let k = self.in_transit.len() - 1;
            self.queue.push(self.now + delay, Event::Install(k));
            self.arm_node(old);
        }
    }

    /// `pkt` arrives at `node` on `side`. A corrupted frame reaches a host's TCP (an ELN receiver
    /// notes it) or is dropped by a base station's link layer; either way nothing is sent because of it.
    fn deliver(&mut self, node: NodeId, side: Side, pkt: SimPacket) {
        if pkt.corrupted {
            self.nodes[node].on_packet(self.now, side, pkt);
            return;
        }
        match &self.nodes[node] {
            SimNode::Host(_) if !pkt.is_tcp() => {} // a handoff message: `mobile_hears` had it
            SimNode::Host(h) => {
                let Some(i) = h.conn_index(&pkt) else {
                    self.nodes[node].on_packet(self.now, side, pkt);
                    return;
                };
                let (flow, role) = (h.conns[i].flow, h.conns[i].role);
                match role {
                    Role::Sender => self.ack_arrives(node, flow, &pkt),
                    Role::Receiver => self.check_payload(flow, &pkt),
                }
                if let SimNode::Host(h) = &mut self.nodes[node] {
                    h.on_packet_at(self.now, i, pkt);
                }
                self.after_receive(node);
            }
            SimNode::BaseStation(_) => {
                if O::ACTIVE && side == Side::Cell {
                    self.observe_ack_at_bs(node, pkt);
                } else {
                    self.nodes[node].on_packet(self.now, side, pkt);
                }
            }
        }
        self.kick(node);
    }

    /// An ACK from a cell reaches a base station: traced, and watched for suppression.
    fn observe_ack_at_bs(&mut self, node: NodeId, pkt: SimPacket) {
        let flow = self.flow_acked_by(&pkt.seg);
        let first = flow.and_then(|f| self.receiver_first(f));
        if let (Some(f), Some(first)) = (flow, first) {
            self.obs.ack_arrived(self.now, node, f, &pkt.seg, first);
        }
        let before = self.agent_stats(node).dupacks_suppressed;
        let ack = pkt.seg.ack;
        self.nodes[node].on_packet(self.now, Side::Cell, pkt);
        if self.agent_stats(node).dupacks_suppressed > before {
            if let (Some(f), Some(first)) = (flow, first) {
                self.obs.suppressed(self.now, node, f, ack, first);
            }
        }
    }

    /// Why flow `f` did not complete: which connection gave up or stalled, and when.
    fn why_incomplete(&self, f: FlowId) -> String {
        let secs = |t: Time| format!("{:.3} s", as_secs_f64(t));
        let relay = self.relay_of(f);
        // a split flow has two senders: name the fixed host's as such
        let who = if relay.is_some() {
            "the fixed host's sender (the split connection's wired half)"
        } else {
            "the sender"
        };
        let sender = self.tcp(f, Role::Sender).map(|t| t.stats());
        if let Some((at, held)) = relay.as_ref().and_then(|r| r.gave_up) {
            return format!(
                "the base station's relay sender (the split connection's wireless half) gave up \
                 after 12 retransmissions of one segment at {}, holding {held} bytes for the \
                 mobile host; the base station then reset the fixed host's connection",
                secs(at)
            );
        }
        if sender.is_some_and(|s| s.dropped) {
            let at = self.flows[f]
                .gave_up_at
                .map_or_else(String::new, |t| format!(" at {}", secs(t)));
            return format!("{who} gave up after 12 retransmissions of one segment{at}");
        }
        if sender.is_some_and(|s| s.reset_received) {
            return format!("{who}'s connection was reset");
        }
        if self.capped {
            let stalled = match self.tcp(f, Role::Sender) {
                Some(t) if t.persist_deadline().is_some() => format!(
                    "; {who} was probing a zero window ({} persist probes)",
                    t.stats().persist_timeouts
                ),
                _ => String::new(),
            };
            return format!(
                "the run reached its time cap of {}{stalled}",
                secs(self.net.max_time)
            );
        }
        "nothing was left to happen (a deadlock: no packet in flight, no timer set)".into()
    }

    /// The relay sender of the split base station that relays flow `f`, if any.
    fn relay_of(&self, f: FlowId) -> Option<RelayReport> {
        self.nodes.iter().find_map(|n| match n {
            SimNode::BaseStation(b) => b.agent.relay().filter(|r| r.endpoints == self.endpoints[f]),
            SimNode::Host(_) => None,
        })
    }

    fn agent_stats(&self, node: NodeId) -> snooplab_proto::agent::AgentStats {
        match &self.nodes[node] {
            SimNode::BaseStation(b) => b.agent.stats(),
            SimNode::Host(_) => Default::default(),
        }
    }

    /// The flow a segment carrying the receiver's ACKs belongs to.
    fn flow_acked_by(&self, seg: &snooplab_proto::Segment) -> Option<FlowId> {
        self.endpoints
            .iter()
            .position(|&(s, r)| seg.src == r && seg.dst == s)
    }

    /// The flow whose data a segment carries.
    fn flow_of_data(&self, seg: &snooplab_proto::Segment) -> Option<FlowId> {
        self.endpoints
            .iter()
            .position(|&(s, r)| seg.src == s && seg.dst == r)
    }

    /// The first data byte of a flow as its receiver numbers it.
    fn receiver_first(&self, f: FlowId) -> Option<Seq> {
        self.tcp(f, Role::Receiver).map(|t| t.irs() + 1)
    }

    /// An ACK reaches a flow's sender: checked against what the receiver holds, and traced.
    fn ack_arrives(&mut self, node: NodeId, f: FlowId, pkt: &SimPacket) {
        if pkt.seg.flags.contains(snooplab_proto::Flags::RST) {
            return; // a reset acknowledges nothing
        }
        let Some(first) = self.tcp(f, Role::Sender).map(|t| t.iss() + 1) else {
            return;
        };
        if O::ACTIVE {
            self.obs.ack_arrived(self.now, node, f, &pkt.seg, first);
        }
        // End-to-end semantics: an ACK may only cover data the receiver has. Counted in bytes of
        // the transfer, so that a split base station, whose two connections number the bytes
        // differently, is measured the same way; for split connections the count is the expected
        // result, reported but not a failure.
        let seg = &pkt.seg;
        if !seg.has_ack() {
            return;
        }
        let transfer = self.net.flows[f].transfer;
        let acked = u64::from(seg.ack.since(first)).min(transfer);
        let has = self
            .tcp(f, Role::Receiver)
            .map_or(0, |t| t.stats().bytes_delivered);
        if acked > has {
            let split = self.split_on_path(f);
            let now = self.now;
            let inv = &mut self.flows[f].inv;
            if split {
                inv.split_acks_ahead += 1;
                return;
            }
            inv.ack_semantics_violations += 1;
            inv.note(format!(
                "at {:.6} s the sender was acknowledged {} bytes the receiver had not received",
                as_secs_f64(now),
                acked - has
            ));
        }
    }

    /// Whether a base station on flow `f`'s path splits its connection.
    fn split_on_path(&self, f: FlowId) -> bool {
        self.routes
            .path(&self.net, self.flows[f].sender, self.flows[f].receiver)
            .iter()
            .any(|&b| {
                matches!(
                    self.net.nodes[b].kind,
                    NodeKind::BaseStation {
                        agent: AgentKind::Split { .. },
                        ..
                    }
                )
            })
    }

    /// The data's digest must be what the sender put at that offset. Offsets count from the
    /// receiver's view of the stream, so the check holds through a split base station too; packets a
    /// split relay built carry no digest.
    fn check_payload(&mut self, f: FlowId, pkt: &SimPacket) {
        let Some(tag) = pkt.payload_tag else {
            return;
        };
        if pkt.seg.len == 0 || pkt.seg.src != self.endpoints[f].0 {
            return;
        }
        let Some(first) = self.receiver_first(f) else {
            return;
        };
        let offset = u64::from(pkt.seg.seq.since(first));
        if tag != payload_tag(offset, pkt.seg.len) {
            let now = self.now;
            let inv = &mut self.flows[f].inv;
            inv.payload_mismatches += 1;
            inv.note(format!(
                "at {:.6} s the receiver got {} bytes at offset {} whose payload the sender never sent there",
                as_secs_f64(now),
                pkt.seg.len,
                offset
            ));
        }
    }

    /// After a host's TCPs ran: a flow is complete when its receiving application has read the
    /// last byte; the receiver's memory stays within its buffer.
    fn after_receive(&mut self, node: NodeId) {
        for k in 0..self.receivers_on[node].len() {
            let f = self.receivers_on[node][k];
            let Some(t) = self.tcp(f, Role::Receiver) else {
                continue;
            };
            let (delivered, read) = (t.stats().bytes_delivered, t.stats().bytes_read);
            let (reass, rcvbuf) = (t.reass_bytes(), t.buffers().1);
            let transfer = self.net.flows[f].transfer;
            let now = self.now;
            let fl = &mut self.flows[f];
            if delivered > transfer {
                fl.inv.over_delivery = delivered - transfer;
            }
            if read >= transfer && fl.complete_at.is_none() {
                fl.complete_at = Some(now);
            }
            if reass > rcvbuf {
                fl.inv.memory_bound_violations += 1;
                fl.inv.note(format!(
                    "the receiver holds {reass} out-of-order bytes, above its {rcvbuf} byte buffer"
                ));
            }
        }
    }

    fn arm_node(&mut self, n: NodeId) {
        let want = self.nodes[n].poll_timeout();
        if let Some((t, gen)) = self.node_timers[n].update(want) {
            self.queue.push(t.max(self.now), Event::Node(n, gen));
        }
    }

    fn arm_cell(&mut self, c: usize) {
        let want = self.cells[c].poll_timeout();
        if let Some((t, gen)) = self.cell_timers[c].update(want) {
            self.queue.push(t.max(self.now), Event::Cell(c, gen));
        }
    }

    /// Puts cell `c`'s next frame on the air if it may go, unless the medium says nothing would
    /// change ([`crate::medium::Medium::can_skip_start`]) or a frame of its channel is on the air
    /// or just ended.
    fn start_cell(&mut self, c: usize) {
        if self.cells[c].can_skip_start() {
            return; // nothing can start, and the timer stands
        }
        if let Some(h) = self.air_hold {
            if h == c || self.air_group[h].contains(&c) {
                return; // started in turn once the frame that ended is taken (`Event::Cell`)
            }
        }
        if self.air_group[c].iter().any(|&g| self.cells[g].is_busy()) {
            return; // the channel is taken: started when that frame ends
        }
        self.cells[c].start(self.now);
        self.arm_cell(c);
    }

    /// A flow's data frame went on the air (counted when it ends, and at the end of the run for
    /// the frames still on the air).
    fn count_wireless(&mut self, seg: &snooplab_proto::Segment) {
        if seg.len > 0 {
            if let Some(f) = self.flow_of_data(seg) {
                self.flows[f].wireless_data_bytes += u64::from(seg.len);
                self.flows[f].wireless_data_frames += 1;
            }
        }
    }

    /// Sends what node `n` has to send, starts its cell, re-arms its timer.
    fn kick(&mut self, n: NodeId) {
        while let Some(out) = self.nodes[n].poll_transmit(self.now) {
            self.observe_sent(n, &out);
            if let Some(f) = out.flow {
                if self.flows[f].sender == n {
                    let fl = &mut self.flows[f];
                    fl.last_tx = self.now;
                    if out.packet.seg.len > 0 && fl.first_data_at.is_none() {
                        fl.first_data_at = Some(self.now);
                    }
                }
            }
            self.send(n, out);
        }
        for k in 0..self.node_cells[n].len() {
            self.start_cell(self.node_cells[n][k]);
        }
        if matches!(self.nodes[n], SimNode::Host(_)) {
            self.check_sender_memory(n);
        } else if O::ACTIVE {
            self.observe_agent(n);
        }
        self.arm_node(n);
    }

    /// Routes a packet from node `from` towards its destination address.
    fn send(&mut self, from: NodeId, mut out: Outgoing) {
        let dst = out.packet.route_dst();
        if dst == BROADCAST {
            // a beacon: one frame to each station of the node's cell
            if let Some(c) = self.net.cell_of(from) {
                for to in 1..=self.net.cells[c].stations.len() {
                    self.cells[c].enqueue(BASE_STATION, to, out.packet.clone(), out.priority);
                }
            }
            return;
        }
        let Some(dest) = self.addrs.iter().position(|&a| a == dst) else {
            return;
        };
        let hop = if self.roaming[from].is_empty() {
            self.routes.hop(from, dest)
        } else {
            self.roaming_hop(from, dest)
        };
        match hop {
            Some(Hop::Link { link, dir }) => {
                let len = out.packet.ip_len();
                if let Some(at) = self.links[link][dir].send(self.now, len) {
                    self.in_flight[link][dir].push_back(out.packet);
                    self.queue.push(at, Event::Arrive(link, dir as u8));
                }
            }
            Some(Hop::Cell {
                cell,
                from: station,
                to,
            }) => {
                if station != crate::medium::BASE_STATION
                    && out
                        .flow
                        .is_some_and(|f| self.net.flows[f].protocol.reports_output_queue())
                {
                    // paper 004: the mobile host piggybacks its output queue on each packet
                    let (len, max) = self.cells[cell].queue_level(station);
                    out.packet.seg.queue = Some(snooplab_proto::QueueReport::new(len, max));
                }
                if !self.cells[cell].has_room(station, out.priority) {
                    self.departed(from, &out.packet, Departure::Dropped);
                }
                // the node's own cell, started when its kick ends
                self.cells[cell].enqueue(station, to, out.packet, out.priority);
            }
            None => {}
        }
    }

    /// The hop of a mobile host that hands off: a request to a base station of its group goes
    /// through that one's cell, everything else through the primary's.
    fn roaming_hop(&self, from: NodeId, dest: NodeId) -> Option<Hop> {
        let primary = match &self.nodes[from] {
            SimNode::Host(h) => h.mobile.as_ref().map(|m| m.primary()),
            SimNode::BaseStation(_) => None,
        };
        let r = &self.roaming[from];
        let via = r
            .iter()
            .find(|&&(bs, ..)| bs == dest)
            .or_else(|| r.iter().find(|&&(bs, ..)| Some(self.addrs[bs]) == primary))
            .or(r.first());
        via.map(|&(_, cell, station)| Hop::Cell {
            cell,
            from: station,
            to: BASE_STATION,
        })
    }

    fn observe_sent(&mut self, n: NodeId, out: &Outgoing) {
        if !O::ACTIVE {
            return;
        }
        let seg = &out.packet.seg;
        match (&self.nodes[n], out.origin) {
            (SimNode::Host(_), Origin::Endpoint(kind)) => {
                if let Some(f) = out.flow {
                    if self.flows[f].sender == n {
                        if let Some(first) = self.tcp(f, Role::Sender).map(|t| t.iss() + 1) {
                            self.obs.endpoint_sent(self.now, n, f, seg, kind, first);
                        }
                    }
                }
            }
            (SimNode::BaseStation(_), origin) => {
                if let Some(f) = self.flow_of_data(seg) {
                    if let Some(first) = self.receiver_first(f) {
                        self.obs.bs_sent(self.now, n, f, seg, origin, first);
                    }
                }
            }
            _ => {}
        }
    }

    /// What a base station holds, and the window of a sender it runs (a split connection's).
    fn observe_agent(&mut self, n: NodeId) {
        let SimNode::BaseStation(b) = &self.nodes[n] else {
            return;
        };
        let probe = b.agent.probe();
        let flow = (0..self.flows.len()).find(|&f| {
            self.routes
                .path(&self.net, self.flows[f].sender, self.flows[f].receiver)
                .contains(&n)
        });
        self.obs.agent_state(self.now, n, flow, probe);
    }

    fn check_sender_memory(&mut self, n: NodeId) {
        for k in 0..self.senders_on[n].len() {
            let f = self.senders_on[n][k];
            let Some(t) = self.tcp(f, Role::Sender) else {
                continue;
            };
            let (sndbuf, _) = t.buffers();
            let outstanding = t.snd_max().since(t.snd_una());
            let w = (t.cwnd(), t.ssthresh(), t.snd_wnd());
            // +1: the FIN occupies a sequence number but no buffer space.
            if outstanding > sndbuf + 1 {
                let inv = &mut self.flows[f].inv;
                inv.memory_bound_violations += 1;
                inv.note(format!(
                    "the sender has {outstanding} bytes outstanding, above its {sndbuf} byte buffer"
                ));
            }
            if O::ACTIVE {
                self.obs.window(self.now, n, f, w);
            }
        }
    }

    fn finish(self) -> RunResult {
        let net = &self.net;
        let pct = |num: u64, den: u64| {
            if den == 0 {
                0.0
            } else {
                100.0 * num as f64 / den as f64
            }
        };
        let mut flows = Vec::with_capacity(net.flows.len());
        let mut all = InvariantReport {
            complete: true,
            ..InvariantReport::default()
        };
        for (f, spec) in net.flows.iter().enumerate() {
            let st = &self.flows[f];
            let mut inv = st.inv.clone();
            let sender = self.tcp(f, Role::Sender);
            let receiver = self.tcp(f, Role::Receiver);
            let delivered = receiver.map_or(0, |t| t.stats().bytes_delivered);
            inv.complete = delivered == spec.transfer && st.complete_at.is_some();
            if self.split_on_path(f) {
                // what the relay acknowledged to the fixed host and the mobile host never got
                let acked = sender.map_or(0, |t| {
                    u64::from(t.snd_una().since(t.iss() + 1)).min(spec.transfer)
                });
                inv.split_bytes_lost = acked.saturating_sub(delivered);
            }
            if !inv.complete {
                let why = self.why_incomplete(f);
                inv.note(format!(
                    "{why}, with {delivered} of {} bytes delivered",
                    spec.transfer
                ));
            }
            let start = st.first_data_at.unwrap_or(0);
            let end = st.complete_at.unwrap_or(self.now);
            let duration = end.saturating_sub(start);
            let throughput = if inv.complete && duration > 0 {
                spec.transfer as f64 * 8.0 / as_secs_f64(duration) / 1e6
            } else {
                0.0
            };
            let fs = sender.map(|t| t.stats().clone()).unwrap_or_default();
            let ms = receiver.map(|t| t.stats().clone()).unwrap_or_default();
            let host = {
                let mut sc = Scenario::paper000(spec.protocol, crate::Env::Lan, spec.buffer, 0);
                sc.host_preset = spec.host_preset;
                sc.host = spec.host;
                sc.host_label()
            };
            all.merge(&inv, &spec.name);
            flows.push(FlowResult {
                flow: spec.name.clone(),
                from: net.nodes[spec.from].name.clone(),
                to: net.nodes[spec.to].name.clone(),
                protocol: spec.protocol.name().to_string(),
                buffer_bytes: spec.buffer,
                mss: spec.mss,
                transfer_bytes: spec.transfer,
                start_s: as_secs_f64(spec.start),
                throughput_mbps: throughput,
                wireless_goodput_pct: pct(delivered, st.wireless_data_bytes),
                wired_goodput_pct: pct(delivered, fs.data_bytes_sent),
                timeouts: fs.timeouts,
                fast_retransmits: fs.fast_retransmits,
                duration_s: as_secs_f64(duration),
                sender_retransmitted_segments: fs.rexmt_segs,
                sender_dupacks: fs.dupacks_rcvd,
                wireless_data_frames: st.wireless_data_frames,
                wireless_data_frames_lost: st.wireless_data_lost,
                wireless_data_frames_collided: st.wireless_data_collided,
                timeouts_after_dupacks: fs.timeouts_after_dupacks,
                fast_retransmits_below_three: fs.fast_retransmits_below_three,
                limited_transmits: fs.limited_transmits,
                timeout_stall_s: as_secs_f64(st.timeout_stall),
                timeout_causes: (&fs.timeout_causes).into(),
                effective_buffer_bytes: sender.map_or(spec.buffer, |t| t.buffers().0),
                host,
                persist_timeouts: fs.persist_timeouts,
                zero_window_acks: ms.zero_window_acks,
                window_updates: ms.window_updates,
                predicted_acks: fs.predicted_acks,
                predicted_acks_in_recovery: fs.predicted_acks_in_recovery,
                predicted_data: ms.predicted_data,
                eln_retransmits: fs.eln_retransmits,
                relay: self.relay_of(f).map(|r| (&r.sender).into()),
                invariants: inv,
            });
        }
        for (i, m) in self.inv.messages.iter().enumerate() {
            if i == 0 {
                all.complete = false;
            }
            all.note(m.clone());
        }
        let aggregate = aggregate(&flows, &self.flows);
        let cells: Vec<CellResult> = net
            .cells
            .iter()
            .zip(&self.cells)
            .map(|(spec, m)| {
                let (mut down, mut up) = (0, 0);
                for s in 1..m.station_count() {
                    down += m.channel(crate::medium::BASE_STATION, s).corrupted;
                    up += m.channel(s, crate::medium::BASE_STATION).corrupted;
                }
                CellResult {
                    cell: spec.name.clone(),
                    access: m.model().name().to_string(),
                    stations: m.station_count(),
                    frames: m.stations.iter().map(|s| s.frames).sum(),
                    collisions: m.collisions,
                    frames_corrupted_down: down,
                    frames_corrupted_up: up,
                    airtime_s: as_secs_f64(m.busy_time),
                    utilisation_pct: pct(m.busy_time, self.now),
                    queue_drops: m.stations.iter().map(|s| s.drops).sum(),
                    access_drops: m.stations.iter().map(|s| s.gave_up).sum(),
                    channels: spec
                        .stations
                        .iter()
                        .enumerate()
                        .map(|(i, st)| {
                            let down = m.channel(crate::medium::BASE_STATION, i + 1);
                            let up = m.channel(i + 1, crate::medium::BASE_STATION);
                            StationChannels {
                                station: net.nodes[st.node].name.clone(),
                                down: st.down.label(),
                                up: st.up.label(),
                                frames_down: down.frames,
                                corrupted_down: down.corrupted,
                                frames_up: up.frames,
                                corrupted_up: up.corrupted,
                            }
                        })
                        .collect(),
                }
            })
            .collect();
        let agents = self.nodes.iter().filter_map(|n| match n {
            SimNode::BaseStation(b) => Some(b.agent.stats()),
            SimNode::Host(_) => None,
        });
        let (mut local, mut suppressed) = (0, 0);
        let (mut holes, mut congestion_gaps, mut marked, mut nacks) = (0, 0, 0, 0);
        for a in agents {
            local += a.local_retransmissions;
            suppressed += a.dupacks_suppressed;
            holes += a.holes;
            congestion_gaps += a.congestion_gaps;
            marked += a.eln_marked_acks;
            nacks += a.nacks;
        }
        let input_drops: u64 = self
            .nodes
            .iter()
            .map(|n| match n {
                SimNode::BaseStation(b) => b.input_drops,
                SimNode::Host(_) => 0,
            })
            .sum();
        let crash_drops: u64 = self
            .nodes
            .iter()
            .map(|n| match n {
                SimNode::BaseStation(b) => b.crash_drops,
                SimNode::Host(_) => 0,
            })
            .sum();
        let link_drops: u64 = input_drops
            + self
                .links
                .iter()
                .map(|l| l[0].drops + l[1].drops)
                .sum::<u64>()
            + cells.iter().map(|c| c.queue_drops).sum::<u64>();
        let first = &flows[0];
        let spec0 = &net.flows[0];
        let (error_every, burst) = match net.cells.first().and_then(|c| c.stations.first()) {
            Some(s) => match &s.down {
                ChannelSpec::Exponential { mean_bytes, burst } => (*mean_bytes, *burst),
                // the cells' `channels` name the other models
                _ => (0, 1),
            },
            None => (0, 1),
        };
        let host_details = HostProfile::KEYS
            .iter()
            .filter_map(|k| spec0.host.get(k).map(|v| (k.to_string(), v)))
            .collect();
        RunResult {
            protocol: first.protocol.clone(),
            env: self.env.clone(),
            buffer_bytes: first.buffer_bytes,
            mss: first.mss,
            transfer_bytes: first.transfer_bytes,
            error_every_bytes: error_every,
            burst,
            seed: net.seed,
            throughput_mbps: first.throughput_mbps,
            wireless_goodput_pct: first.wireless_goodput_pct,
            wired_goodput_pct: first.wired_goodput_pct,
            timeouts: first.timeouts,
            fast_retransmits: first.fast_retransmits,
            duration_s: first.duration_s,
            events: self.events,
            sender_retransmitted_segments: first.sender_retransmitted_segments,
            sender_dupacks: first.sender_dupacks,
            local_retransmissions: local,
            dupacks_suppressed: suppressed,
            frames_corrupted_down: cells.iter().map(|c| c.frames_corrupted_down).sum(),
            frames_corrupted_up: cells.iter().map(|c| c.frames_corrupted_up).sum(),
            wireless_data_frames: first.wireless_data_frames,
            queue_drops: link_drops,
            timeout_stall_s: first.timeout_stall_s,
            timeout_causes: first.timeout_causes.clone(),
            effective_buffer_bytes: first.effective_buffer_bytes,
            host: first.host.clone(),
            host_details,
            persist_timeouts: first.persist_timeouts,
            zero_window_acks: first.zero_window_acks,
            window_updates: first.window_updates,
            predicted_acks: first.predicted_acks,
            predicted_acks_in_recovery: first.predicted_acks_in_recovery,
            predicted_data: first.predicted_data,
            eln_retransmits: first.eln_retransmits,
            holes,
            congestion_gaps,
            eln_marked_acks: marked,
            nacks,
            input_queue_drops: input_drops,
            crash_drops,
            relay: first.relay.clone(),
            invariants: if flows.len() == 1 && self.inv.messages.is_empty() {
                first.invariants.clone()
            } else {
                all
            },
            flows,
            aggregate,
            cells,
            handoffs: self.handoff_results(),
        }
    }

    /// What each mobile host that hands off and its base stations did.
    fn handoff_results(&self) -> Vec<HandoffResult> {
        let ms = |t: Time| as_secs_f64(t) * 1e3;
        let name_of = |addr: u32| {
            self.addrs
                .iter()
                .position(|&a| a == addr)
                .map_or_else(|| "?".to_string(), |n| self.net.nodes[n].name.clone())
        };
        self.net
            .handoffs
            .iter()
            .filter_map(|h| {
                let SimNode::Host(host) = &self.nodes[h.mobile] else {
                    return None;
                };
                let m = host.mobile.as_ref()?;
                let mut r = HandoffResult {
                    mobile: self.net.nodes[h.mobile].name.clone(),
                    handoffs: m.decisions().len() as u64,
                    requests_resent: m.resent_requests,
                    ..HandoffResult::default()
                };
                let (mut lat, mut first) = (vec![], vec![]);
                for d in m.decisions() {
                    let latency = d.confirmed.map(|c| ms(c - d.at));
                    let first_packet = d.first_packet.map(|c| ms(c - d.at));
                    lat.extend(latency);
                    first.extend(first_packet);
                    r.events.push(HandoffEvent {
                        at_s: as_secs_f64(d.at),
                        from: name_of(d.from),
                        to: name_of(d.to),
                        latency_ms: latency,
                        first_packet_ms: first_packet,
                    });
                }
                let mean = |v: &[f64]| {
                    if v.is_empty() {
                        0.0
                    } else {
                        v.iter().sum::<f64>() / v.len() as f64
                    }
                };
                let moved = &self.state_transfers[h.mobile];
                r.state_transfers = moved.len() as u64;
                r.state_transfer_ms_mean = mean(&moved.iter().map(|&t| ms(t)).collect::<Vec<_>>());
                r.confirmed = lat.len() as u64;
                r.latency_ms_mean = mean(&lat);
                r.latency_ms_max = lat.iter().copied().fold(0.0, f64::max);
                r.first_packet_ms_mean = mean(&first);
                for &bs in &h.base_stations {
                    if let SimNode::BaseStation(b) = &self.nodes[bs] {
                        if let Some(st) = b.agent.handoff() {
                            r.beacons += st.beacons;
                            r.ids_found += st.ids_found;
                            r.ring_sent += st.ring_sent;
                            r.withheld += st.withheld;
                        }
                    }
                }
                Some(r)
            })
            .collect()
    }
}

/// All flows together: bytes over the span from the first data sent to the last byte read.
fn aggregate(flows: &[FlowResult], states: &[FlowState]) -> Aggregate {
    let complete = flows.iter().filter(|f| f.invariants.complete).count();
    let bytes: u64 = flows.iter().map(|f| f.transfer_bytes).sum();
    let start = states.iter().filter_map(|s| s.first_data_at).min();
    let end = states.iter().filter_map(|s| s.complete_at).max();
    let throughput = match (start, end) {
        (Some(s), Some(e)) if complete == flows.len() && e > s => {
            bytes as f64 * 8.0 / as_secs_f64(e - s) / 1e6
        }
        _ => 0.0,
    };
    let xs: Vec<f64> = flows.iter().map(|f| f.throughput_mbps).collect();
    let sum: f64 = xs.iter().sum();
    let sq: f64 = xs.iter().map(|x| x * x).sum();
    let fairness = if sq > 0.0 {
        sum * sum / (xs.len() as f64 * sq)
    } else {
        0.0
    };
    Aggregate {
        flows: flows.len(),
        complete_flows: complete,
        transfer_bytes: bytes,
        throughput_mbps: throughput,
        fairness,
    }
}

/// Runs one scenario of paper 000's testbed with its protocol's agent.
pub fn run(sc: &Scenario) -> RunResult {
    Simulation::new(sc).run()
}

/// Runs a network; `env` labels it in the results.
pub fn run_network(net: &Network, env: &str) -> RunResult {
    Simulation::of_network(net, env).run()
}
