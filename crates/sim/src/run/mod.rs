//! One simulated run of a network (`network/`): the event loop.
//!
//! The loop pops events in time order and drives the sans-IO objects by index: nodes (`nodes/`: hosts
//! with their TCP endpoints, base stations with their agents), wired links (`link.rs`) and the cells'
//! media (`medium/`). After a node handles an event it is "kicked": what it sends is routed to the next
//! link or medium, and its timer is re-armed. Nothing here names a node kind or assumes a direction
//! of transfer.
//!
//! Where its time comes from is the one seam of the loop, `driver.rs`: simulated time (jump to the
//! next event) or the real clock with hosts outside the engine (`outside_hosts.rs`).
//!
//! The rest of a run, one concern a file: `build.rs` (the run made from a network), `flow_lookup.rs` (the
//! flow a packet belongs to, and when every flow has ended), `forward.rs` (where a node's packet
//! goes next), `roaming.rs` (a mobile host that hands off), `crash.rs` (base-station crashes),
//! `checks.rs` (the invariants checked as the run goes), `tell_observer.rs` (what the observer of traces and captures is told),
//! `progress.rs` (a long run's progress reports), `results.rs` (the results) and `web.rs` (the
//! workload flows: their browsers, servers, end and result).

use std::collections::VecDeque;

use snooplab_proto::agent::{Departure, HandedOver};
use snooplab_proto::tcp::{Tcp, TcpConfig};
use snooplab_proto::time::as_secs_f64;
use snooplab_proto::{Endpoint, Time};

use crate::agents::AgentRecipe;
use crate::engine::{EventQueue, Next};
use crate::flow::FlowState;
use crate::invariants::InvariantReport;
use crate::link::WiredLink;
use crate::medium::{Medium, Transmission, BASE_STATION};
use crate::metrics::RunResult;
use crate::network::{FlowId, Network, NodeId, Routes};
use crate::nodes::{Conn, Inbound, Role, Side, SimNode};
use crate::observer::{NoObserver, Observe, Observer};
use crate::packet::SimPacket;
use crate::scenario::Scenario;

mod build;
mod card;
mod cell_turns;
mod checks;
mod crash;
mod driver;
mod flow_lookup;
mod forward;
mod outside_hosts;
mod progress;
mod results;
mod roaming;
mod sharing;
mod tell_observer;
mod web;
mod web_stalls;

#[cfg(test)]
mod clone_tests;

pub use driver::{Driver, SimulatedTime, Step};
use progress::Progress;
pub use progress::RunProgress;
pub(crate) use progress::PROGRESS_EVERY;
pub use sharing::SharedRuns;
use sharing::Watch;
pub use sharing::{families, run_family, run_sharing_start, Change, Family, Rider, Twin};

/// What the queue holds besides the timers: node `n`'s timer is the queue's timer `n`, cell
/// `c`'s medium timer its timer `nodes + c` ([`Simulation::dispatch`]).
#[derive(Clone, Copy, Debug)]
enum Event {
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
    /// A mobile host's split connections handed over at a handoff reach their new base station:
    /// `in_transit[k]` (one index keeps events 16 bytes).
    Install(usize),
}

/// A mobile host's split connections between two base stations: where they go, and their relays.
type StateInTransit = (NodeId, HandedOver<SimPacket>);

/// One run: what the network is ([`Topology`]), where the run stands ([`State`]), what it has
/// counted and recorded ([`Bookkeeping`]) and its observer. All of it is data, so a run is
/// `Clone`: a copy goes on as the same run, event for event (a run that forks is a copy with a
/// change to its network, `sharing/fork.rs`).
#[derive(Clone)]
pub struct Simulation<O: Observe = NoObserver> {
    topo: Topology,
    state: State,
    book: Bookkeeping,
    /// Traces and captures, when asked for.
    obs: O,
}

/// What never changes during a run: the network and what the build derived from it.
#[derive(Clone)]
struct Topology {
    net: Network,
    routes: Routes,
    /// Address of every node, for routing by destination.
    addrs: Vec<u32>,
    /// The cells each node is a station of (as base station or mobile host; only a mobile host
    /// that hands off has more than one): a kick starts them once the node has sent, even when it
    /// sent nothing, so that the medium's next frame is scheduled before the node's timer (the
    /// order of events that fall on the same nanosecond depends on it).
    node_cells: Vec<Vec<usize>>,
    /// For a mobile host that hands off: each base station of its group, with the cell and the
    /// station number the host has there.
    roaming: Vec<Vec<(NodeId, usize, usize)>>,
    /// The hosts outside the engine, in node order (`outside_hosts.rs` hands them their packets).
    externals: Vec<NodeId>,
    /// How each base station's agent was made, to make it again after a crash.
    recipes: Vec<Option<AgentRecipe>>,
    /// For each cell, the other cells on the same radio channel (`HandoffSpec::shared_channel`).
    air_group: Vec<Vec<usize>>,
    /// The flows each node sends and receives.
    senders_on: Vec<Vec<FlowId>>,
    receivers_on: Vec<Vec<FlowId>>,
    /// The flows' endpoints: (sender, receiver).
    endpoints: Vec<(Endpoint, Endpoint)>,
    /// The report's scenario labels: environment, and the first station's error model.
    env: String,
    /// Some flow carries a Web workload (`web.rs`): the loop's steps for them run only then.
    has_web: bool,
}

/// Where the run stands: what the events change.
#[derive(Clone)]
struct State {
    now: Time,
    queue: EventQueue<Event>,
    nodes: Vec<SimNode>,
    links: Vec<[WiredLink; 2]>,
    /// Packets on each wired link direction, in the order they arrive.
    in_flight: Vec<[VecDeque<SimPacket>; 2]>,
    cells: Vec<Medium>,
    /// The one card (and interface queue) of a mobile host in more than one cell (`card.rs`).
    cards: Vec<Option<card::Card>>,
    /// A cell of a shared channel whose frame just ended: while its receiver takes the frame (and
    /// may answer at once), neither it nor the other cells of its channel start, so that the
    /// others get their turn first (a cell's timer, `Simulation::cell_timeout`). Any cell whose
    /// frame reached an outside host stays held until the driver has the host's answer
    /// (`outside_hosts.rs`).
    air_hold: Option<usize>,
    /// An outside host was delivered a packet since the driver was last handed them (only a
    /// driver with outside hosts, `Driver::EXTERNAL`, hands them out and releases the hold).
    outside_delivered: bool,
    /// A packet was delivered to an outside host (a corrupted frame too, which
    /// `outside_delivered` leaves out: no answer comes to it) since the driver was last handed
    /// them: after most events none was, and `flush_external` looks at no node.
    to_hand_out: bool,
    /// Connection state on its way between base stations (`Scheme::SplitTransfer`).
    in_transit: Vec<Option<StateInTransit>>,
    /// Handoff decisions of each mobile host already acted on.
    decisions_seen: Vec<u64>,
    flows: Vec<FlowState>,
    /// The TCP configuration each flow's sender opens with, until it starts.
    pending: Vec<Option<TcpConfig>>,
}

/// What the run counted and what the loop keeps for itself: counters, checks, progress reports,
/// and the records of the sharing of runs.
#[derive(Clone)]
struct Bookkeeping {
    events: u64,
    /// The loop stopped at the time cap with events still to come.
    capped: bool,
    inv: InvariantReport,
    /// The connection-state transfers each mobile host's handoffs took: how many, and the sum of
    /// their times in ms (in order, so the mean is the same to the bit as a mean over a list).
    state_transfers: Vec<(u64, f64)>,
    /// Reused by `node_timeout`: the timeouts of a node's senders before its timer ran.
    scratch: Vec<(FlowId, u64)>,
    /// Told how the run is going every [`PROGRESS_EVERY`] events, when asked for.
    progress: Progress,
    /// Flows `0..ended` have ended (an ended flow stays ended), so the end-of-run test looks at
    /// each flow once it has ended, not at every flow after every event.
    ended: usize,
    /// A host's TCP ran since the loop last looked: a twin riding this run may part from it
    /// only then, so the events that touch no host (most of a CSMA cell's: waits that end)
    /// skip its test.
    hosts_ran: bool,
    /// Something a flow's end depends on may have changed since the end-of-run test last
    /// looked: a node's timer ran, a flow started, a segment left its endpoint finished
    /// (`HostNode::on_packet_at`; a host's endpoints finish only by a segment or a timer), or a
    /// packet reached a host other than at a bulk flow's endpoint. A flow ends only then; the
    /// test after every segment a host took cost `bench` 1.1% (issue 50).
    ends_moved: bool,
    /// A sender's witness fired since the loop last looked ([`FlowState::witnessed`]): a twin
    /// riding this run may part from it (`sharing/line.rs`).
    witness_fired: bool,
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
        self.run_to_end(&mut SimulatedTime).0
    }

    /// Runs to the end with `driver`'s clock and outside hosts (`driver.rs`).
    pub fn run_with<D: Driver>(self, driver: &mut D) -> RunResult {
        self.run_to_end(driver).0
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
        self.run_to_end(&mut SimulatedTime)
    }
}

impl<O: Observe> Simulation<O> {
    /// The flow's sender opens its connection.
    fn start_flow(&mut self, f: FlowId) {
        let Some(cfg) = self.state.pending[f].take() else {
            return;
        };
        let (src, dst) = self.topo.endpoints[f];
        let node = self.topo.net.flows[f].from;
        self.book.hosts_ran = true;
        self.book.ends_moved = true;
        if let Some(h) = self.state.nodes[node].host_mut() {
            self.state.flows[f].sender_conn = Some(h.conns.len());
            h.conns.push(Conn {
                flow: f,
                role: Role::Sender,
                tcp: Tcp::connect(cfg, src, dst, self.state.now),
                wire: self.state.flows[f].real_bytes,
            });
        }
        self.kick(node);
    }

    fn run_to_end<D: Driver>(mut self, driver: &mut D) -> (RunResult, O) {
        self.run_events(driver, None);
        self.wind_up()
    }

    /// Runs events to the end of the run, or, for a run others start as (`line.rs`), until
    /// `watch` asks to stop ([`Watch::stops`]). True if it stopped there, false once the run is
    /// over.
    ///
    /// (One loop, called from both, not inlined into either: with two copies of it, the loop's
    /// callees, each called from one place before, were no longer inlined into it, 2.8% more
    /// instructions for every run.)
    #[inline(never)]
    fn run_events<D: Driver>(&mut self, driver: &mut D, watch: Option<&Watch>) -> bool {
        // (a timer re-armed or cancelled is not in the queue: it neither moves the clock nor
        // stops the run at the time cap)
        // a real clock's run whose flows all run outside the engine (or that has none) may have
        // no event to look at this after
        let mut over = D::EXTERNAL && self.all_finished() && driver.flows_finished();
        // (what `watch` asks changes only where a host's TCP runs)
        let parts = |s: &Self| watch.is_some_and(|w| w.stops(s));
        if !over && parts(self) {
            return true;
        }
        while !over {
            let (t, ev) = match driver.next(&mut self.state.queue) {
                Step::Event(t, ev) => (t, ev),
                Step::Input(now) if D::EXTERNAL => {
                    self.take_input(driver, now);
                    self.flush_external(driver);
                    continue;
                }
                Step::Input(_) | Step::End => break,
            };
            if t > self.topo.net.max_time {
                self.book.inv.note(format!(
                    "stopped at the time cap of {} s",
                    as_secs_f64(self.topo.net.max_time)
                ));
                self.book.capped = true;
                break;
            }
            self.state.now = t;
            self.book.events += 1;
            self.dispatch(ev);
            if D::EXTERNAL {
                self.flush_external(driver);
                self.take_answers(driver);
            }
            if D::EXTERNAL || std::mem::take(&mut self.book.hosts_ran) {
                if D::EXTERNAL || std::mem::take(&mut self.book.ends_moved) {
                    over = self.all_finished() && driver.flows_finished();
                }
                if !over && parts(self) {
                    return true;
                }
            }
            if self.book.events & (PROGRESS_EVERY - 1) == 0 && self.book.progress.is_some() {
                self.report_progress();
            }
        }
        false
    }

    /// The run is over: its results, and the observer with what it recorded.
    fn wind_up(mut self) -> (RunResult, O) {
        // frames still on the air went on the air
        for c in 0..self.state.cells.len() {
            let on_air: Vec<_> = self.state.cells[c].frames_on_air().map(|f| f.seg).collect();
            for seg in on_air {
                self.count_wireless(&seg);
            }
        }
        let obs = std::mem::take(&mut self.obs);
        (self.finish(), obs)
    }

    fn dispatch(&mut self, next: Next<Event>) {
        let ev = match next {
            Next::Timer(n) if n < self.state.nodes.len() => return self.node_timeout(n),
            Next::Timer(slot) => return self.cell_timeout(slot - self.state.nodes.len()),
            Next::Event(ev) => ev,
        };
        match ev {
            Event::Arrive(l, dir) => {
                let Some(pkt) = self.state.in_flight[l][usize::from(dir)].pop_front() else {
                    return;
                };
                self.obs.on_link(self.state.now, l, &pkt);
                let node = self.topo.net.links[l].ends[1 - usize::from(dir)];
                self.deliver(node, Side::Wired, pkt);
            }
            Event::Start(f) => self.start_flow(f),
            Event::Crash(i) => self.crash(i),
            Event::Install(k) => self.install(k),
            Event::Restart(i) => self.restart(i),
        }
    }

    /// Cell `c`'s medium timer: frames end (and reach their receivers), waits end, the cell and
    /// those sharing its channel start again.
    fn cell_timeout(&mut self, c: usize) {
        self.state.cells[c].on_timeout(self.state.now);
        self.state.air_hold = (!self.topo.air_group[c].is_empty()).then_some(c);
        while let Some(tx) = self.state.cells[c].poll_done() {
            self.frame_done(c, tx);
        }
        while let Some((s, frame)) = self.state.cells[c].poll_given_up() {
            let sender = self.topo.net.cells[c].node_of(s);
            self.departed(sender, &frame, Departure::Dropped);
            self.card_sent(sender, c);
        }
        if self.state.outside_delivered && self.state.cells[c].waits_for_answers() {
            // the next pick waits for the outside host's answer, as a modelled host's is queued
            // by now (`Simulation::take_answers`); a full-duplex cell picks nothing
            self.state.air_hold = Some(c);
            return;
        }
        self.next_turn(c);
    }

    fn node_timeout(&mut self, n: NodeId) {
        // the senders' timeouts, for the time they sat idle waiting for them
        let mut before = std::mem::take(&mut self.book.scratch);
        before.clear();
        for &f in &self.topo.senders_on[n] {
            before.push((
                f,
                self.tcp(f, Role::Sender).map_or(0, |t| t.stats().timeouts),
            ));
        }
        self.state.nodes[n].on_timeout(self.state.now);
        if self.topo.has_web {
            self.install_servers(n);
        }
        // (a base station's too: rarer than a host's, and one store each)
        self.book.hosts_ran = true;
        self.book.ends_moved = true;
        self.after_decisions(n);
        for &(f, b) in &before {
            let sender = self.tcp(f, Role::Sender);
            if sender.map_or(0, |t| t.stats().timeouts) > b {
                let dropped = sender.is_some_and(|t| t.stats().dropped);
                let fl = &mut self.state.flows[f];
                fl.add_timeout_stall(self.state.now);
                if dropped && fl.gave_up_at.is_none() {
                    fl.gave_up_at = Some(self.state.now);
                }
            }
        }
        self.book.scratch = before;
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
                self.state.flows[f].wireless_data_lost += 1;
                self.state.flows[f].wireless_data_collided += u64::from(tx.collided);
            }
        }
        self.obs
            .on_link(self.state.now, self.topo.net.links.len() + c, &pkt);
        let cell = &self.topo.net.cells[c];
        let node = if tx.to == crate::medium::BASE_STATION {
            cell.base_station
        } else {
            cell.stations[tx.to - 1].node
        };
        let sender = cell.node_of(tx.from);
        self.departed(sender, &pkt, Departure::OnAir);
        self.card_sent(sender, c);
        if !pkt.corrupted && pkt.asks_to_buffer() {
            self.asked_to_buffer(node, c, tx.from);
        }
        if tx.from == BASE_STATION && !self.topo.roaming[node].is_empty() {
            let bs = self.topo.net.cells[c].base_station;
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
        let now = self.state.now;
        if let Some(b) = self.state.nodes[node].base_station_mut() {
            if b.on_departure(now, pkt, how) {
                self.arm_node(node);
            }
        }
    }

    /// `pkt` arrives at `node` on `side`. A corrupted frame reaches a host's TCP (an ELN receiver
    /// notes it) or is dropped by a base station's link layer; either way nothing is sent because of it.
    fn deliver(&mut self, node: NodeId, side: Side, pkt: SimPacket) {
        let host = self.state.nodes[node].host().is_some();
        self.book.hosts_ran |= host;
        if pkt.corrupted {
            self.book.ends_moved |= host;
            // an outside host's kernel drops it on its checksum: the driver writes it all the same
            self.state.to_hand_out |= matches!(self.state.nodes[node], SimNode::External(_));
            self.state.nodes[node].on_packet(self.state.now, side, pkt);
            return;
        }
        match self.state.nodes[node].inbound(&pkt) {
            Inbound::Control => self.book.ends_moved |= host, // a handoff message: `mobile_hears` had it
            Inbound::Endpoint { conn, flow, role } => {
                match role {
                    Role::Sender => self.ack_arrives(node, conn, flow, &pkt),
                    Role::Receiver => self.check_payload(node, conn, flow, &pkt),
                }
                if let Some(h) = self.state.nodes[node].host_mut() {
                    // (a Web flow ends by its pages, which only its own connections' packets
                    // and the hosts' timers move: `Inbound::App` below)
                    self.book.ends_moved |= h.on_packet_at(self.state.now, conn, pkt);
                }
                if role == Role::Sender {
                    self.note_witnesses(node, conn, flow);
                }
                if role == Role::Receiver {
                    self.after_receive_flow(flow);
                }
            }
            Inbound::App { conn } => {
                self.book.ends_moved = true;
                if let Some(h) = self.state.nodes[node].host_mut() {
                    h.on_app_packet(self.state.now, conn, pkt);
                }
                self.install_servers(node);
            }
            Inbound::Agent if O::SEGMENT_HOOKS && side == Side::Cell => {
                self.observe_ack_at_bs(node, pkt)
            }
            Inbound::Agent => self.state.nodes[node].on_packet(self.state.now, side, pkt),
            Inbound::External => {
                // the driver's to hand out, after the event (`outside_hosts.rs`)
                self.state.outside_delivered = true;
                self.state.to_hand_out = true;
                self.state.nodes[node].on_packet(self.state.now, side, pkt);
                return;
            }
            Inbound::Unmatched => {
                // counted by the host; nothing to send here
                self.book.ends_moved |= host;
                self.state.nodes[node].on_packet(self.state.now, side, pkt);
                return;
            }
        }
        self.kick(node);
    }

    fn arm_node(&mut self, n: NodeId) {
        let want = self.state.nodes[n].poll_timeout();
        self.state.queue.arm(n, want, self.state.now);
    }

    /// A flow's data frame went on the air (counted when it ends, and at the end of the run for
    /// the frames still on the air).
    fn count_wireless(&mut self, seg: &snooplab_proto::Segment) {
        if seg.len > 0 {
            if let Some(f) = self.flow_of_data(seg) {
                self.state.flows[f].wireless_data_bytes += u64::from(seg.len);
                self.state.flows[f].wireless_data_frames += 1;
            }
        }
    }

    /// Sends what node `n` has to send, starts its cell, re-arms its timer.
    fn kick(&mut self, n: NodeId) {
        while let Some(out) = self.state.nodes[n].poll_transmit(self.state.now) {
            self.observe_sent(n, &out);
            if let Some(f) = out.flow {
                if self.state.flows[f].sender == n {
                    let fl = &mut self.state.flows[f];
                    fl.last_tx = self.state.now;
                    if out.packet.seg.len > 0 && fl.first_data_at.is_none() {
                        fl.first_data_at = Some(self.state.now);
                    }
                }
            }
            self.send(n, out);
        }
        for k in 0..self.topo.node_cells[n].len() {
            self.start_cell(self.topo.node_cells[n][k]);
        }
        // a node's senders' windows (none at a base station), and an agent's state when traced
        self.check_sender_memory(n);
        if O::ACTIVE {
            self.observe_agent(n);
        }
        self.arm_node(n);
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
