//! Building a run from a network description: the nodes with their endpoints and agents, the
//! wired links, the cells with their channels, and the tables the loop looks things up in. Every
//! random stream is drawn here in a fixed order, so a network and a seed give one run.

use snooplab_proto::agent::Agent;
use snooplab_proto::tcp::{Tcp, TcpConfig};
use snooplab_proto::{Endpoint, Time};

use super::card::Card;
use super::{Bookkeeping, Event, Progress, Simulation, State, Topology};
use crate::agents::{make_agent, AgentRecipe};
use crate::channel::Channel;
use crate::engine::EventQueue;
use crate::flow::FlowState;
use crate::invariants::InvariantReport;
use crate::link::WiredLink;
use crate::medium::Medium;
use crate::network::{Network, NodeId, NodeKind, Routes};
use crate::nodes::{BaseStationNode, Conn, ExternalHost, HostNode, MobileLayer, Role, SimNode};
use crate::observer::Observe;
use crate::packet::SimPacket;
use crate::rng::{ChannelStreams, Rng, Stream};
use crate::scenario::Scenario;

/// Where each node sits in the cells, found in one pass over them (asking `Network::cell_of` and
/// each cell's stations of every node would scan every cell's stations for each).
struct Places {
    /// The cell each node serves as its base station (the first, as `Network::cell_of`).
    cell_of: Vec<Option<usize>>,
    /// The cells each node is a station of, with its station number there (its first place in
    /// each).
    stations_of: Vec<Vec<(usize, usize)>>,
}

impl Places {
    fn of(net: &Network) -> Places {
        let n = net.nodes.len();
        let mut p = Places {
            cell_of: vec![None; n],
            stations_of: vec![Vec::new(); n],
        };
        for (c, cell) in net.cells.iter().enumerate() {
            p.cell_of[cell.base_station].get_or_insert(c);
            for (i, s) in cell.stations.iter().enumerate() {
                let at = &mut p.stations_of[s.node];
                if at.last().is_none_or(|&(last, _)| last != c) {
                    at.push((c, i + 1));
                }
            }
        }
        p
    }
}

/// Each host's coarse-timer clock phases (slow, fast): fixed hosts and mobile hosts count
/// separately, so the first of each draws from the streams paper 000's testbed always used.
fn host_clocks(net: &Network, places: &Places) -> Vec<Option<(Time, Time)>> {
    let (mut fixed, mut mobile) = (0u64, 0u64);
    (0..net.nodes.len())
        .map(|i| {
            if net.nodes[i].kind != NodeKind::Host {
                return None;
            }
            let mut r = if !places.stations_of[i].is_empty() {
                mobile += 1;
                Rng::indexed(net.seed, Stream::MobileHostClock, mobile - 1)
            } else {
                fixed += 1;
                Rng::indexed(net.seed, Stream::FixedHostClock, fixed - 1)
            };
            let t = snooplab_proto::tcp::TimerConfig::default();
            let slow = r.below(t.slow_tick);
            let fast = r.below(t.fast_tick);
            Some((slow, fast))
        })
        .collect()
}

/// Every node as its kind makes it, and how each base station's agent was made (to make it again
/// after a crash).
/// The hosts in `external` are outside the engine (`outside_hosts.rs`).
fn make_nodes(
    net: &Network,
    routes: &Routes,
    external: &[NodeId],
) -> (Vec<SimNode>, Vec<Option<AgentRecipe>>) {
    let mut nodes: Vec<SimNode> = Vec::with_capacity(net.nodes.len());
    let mut recipes = vec![None; net.nodes.len()];
    // the first flow whose path crosses each node, one walk of each flow's path
    let mut first_flow = vec![None; net.nodes.len()];
    for (f, fl) in net.flows.iter().enumerate() {
        for b in routes.path(net, fl.from, fl.to) {
            first_flow[b].get_or_insert(f);
        }
    }
    let mut bs_index = 0u64;
    for (i, n) in net.nodes.iter().enumerate() {
        nodes.push(match &n.kind {
            // a mobile host that hands off keeps its mobility layer outside the engine too: it
            // sits below the host's TCP, whoever runs that TCP
            NodeKind::Host if external.contains(&i) => {
                SimNode::External(ExternalHost::with_mobility(MobileLayer::of(net, i)))
            }
            NodeKind::Host => {
                let mut h = HostNode::default();
                h.mobile = MobileLayer::of(net, i);
                SimNode::Host(h)
            }
            NodeKind::BaseStation { agent, input } => {
                let relayed = first_flow[i];
                bs_index += 1;
                recipes[i] = Some((*agent, *input, relayed, bs_index - 1));
                let agent = make_agent(*agent, input, net, relayed, bs_index - 1);
                SimNode::BaseStation(BaseStationNode::new(
                    crate::handoff_agents::with_handoff(net, i, agent, false),
                    *input,
                ))
            }
        });
    }
    (nodes, recipes)
}

/// The flows' two ends, as `build` needs them.
struct FlowEnds {
    /// (sender, receiver) of each flow.
    endpoints: Vec<(Endpoint, Endpoint)>,
    /// The configuration each sender opens with at its start time.
    pending: Vec<Option<TcpConfig>>,
    /// Each receiver's connection index on its host (`usize::MAX` where it is no host).
    receiver_conns: Vec<usize>,
}

/// Both ends of every flow: the receiver listens from the start, the sender opens at its start
/// time. Initial sequence numbers come from one stream, sender then receiver.
fn make_flow_ends(
    net: &Network,
    clocks: &[Option<(Time, Time)>],
    nodes: &mut [SimNode],
) -> FlowEnds {
    let mut iss = Rng::new(net.seed, Stream::InitialSequence);
    let mut ends = FlowEnds {
        endpoints: Vec::with_capacity(net.flows.len()),
        pending: Vec::with_capacity(net.flows.len()),
        receiver_conns: Vec::with_capacity(net.flows.len()),
    };
    for (f, fl) in net.flows.iter().enumerate() {
        let (src, dst) = net.endpoints(f);
        ends.endpoints.push((src, dst));
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
        if let Some(browser) = super::web::browser_for(net, f, clocks) {
            // a workload flow: no bulk ends, the browser opens its connections (`web.rs`)
            if let Some(h) = nodes[fl.to].host_mut() {
                h.web
                    .get_or_insert_with(Default::default)
                    .browsers
                    .push(browser);
            }
            ends.receiver_conns.push(usize::MAX);
            ends.pending.push(None);
            continue;
        }
        if let Some(h) = nodes[fl.to].host_mut() {
            ends.receiver_conns.push(h.conns.len());
            h.conns.push(Conn {
                flow: f,
                role: Role::Receiver,
                tcp: Tcp::listen(rcfg, dst, src),
                wire: None,
            });
        } else {
            ends.receiver_conns.push(usize::MAX);
        }
        ends.pending.push(Some(scfg));
    }
    ends
}

/// Each cell's medium with its stations' channels, each from its own stream: the first cell's
/// first mobile host draws from the streams paper 000's testbed always used.
fn make_cells(net: &Network) -> Vec<Medium> {
    net.cells
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
                        Channel::new(&st.down, ChannelStreams::down(net.seed, k)),
                        Channel::new(&st.up, ChannelStreams::up(net.seed, k)),
                    )
                })
                .collect();
            let backoff = Rng::indexed(net.seed, Stream::MediumBackoff, c as u64);
            Medium::new(cell.params.clone(), cell.access.clone(), channels, backoff)
        })
        .collect()
}

/// For each cell, the other cells on the same radio channel (`HandoffSpec::shared_channel`).
fn air_groups(net: &Network) -> Vec<Vec<usize>> {
    (0..net.cells.len())
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
        .collect()
}

/// For a mobile host that hands off: each base station of its group, with the cell and the
/// station number the host has there.
fn roaming_table(net: &Network, places: &Places) -> Vec<Vec<(NodeId, usize, usize)>> {
    let mut table = vec![Vec::new(); net.nodes.len()];
    for h in &net.handoffs {
        let n = h.mobile;
        for &bs in &h.base_stations {
            let Some(c) = places.cell_of[bs] else {
                continue;
            };
            if let Some(&(_, st)) = places.stations_of[n].iter().find(|&&(d, _)| d == c) {
                table[n].push((bs, c, st));
            }
        }
    }
    table
}

/// The one card of each mobile host that is a station of more than one cell (`card.rs`), its
/// queue as long as its first cell's station queue.
fn cards(net: &Network, places: &Places) -> Vec<Option<Card>> {
    (0..net.nodes.len())
        .map(|n| {
            let cells = &places.stations_of[n];
            let &(first, _) = cells.first()?;
            (places.cell_of[n].is_none() && cells.len() > 1)
                .then(|| Card::new(net.cells[first].params.queue_packets))
        })
        .collect()
}

/// The flows each node sends (`sender = true`) or receives, in flow order.
fn flows_at(net: &Network, sender: bool) -> Vec<Vec<usize>> {
    let mut at = vec![Vec::new(); net.nodes.len()];
    for (f, fl) in net.flows.iter().enumerate() {
        at[if sender { fl.from } else { fl.to }].push(f);
    }
    at
}

impl<O: Observe> Simulation<O> {
    pub(super) fn build(net: &Network, env: &str, obs: O) -> Simulation<O> {
        Simulation::build_with(net, env, obs, &[])
    }

    /// [`Simulation::build`], with the hosts `external` outside the engine: nodes that run no
    /// TCP (`outside_hosts.rs`). Everything else, random streams included, is built as for a run
    /// without them.
    pub(super) fn build_with(
        net: &Network,
        env: &str,
        mut obs: O,
        external: &[NodeId],
    ) -> Simulation<O> {
        let routes = Routes::new(net);
        let places = Places::of(net);
        let clocks = host_clocks(net, &places);
        let (mut nodes, recipes) = make_nodes(net, &routes, external);
        let ends = make_flow_ends(net, &clocks, &mut nodes);
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
        let cells = make_cells(net);
        obs.begin(net);
        let topo = Topology {
            routes,
            addrs: net.nodes.iter().map(|n| n.addr).collect(),
            node_cells: (0..net.nodes.len())
                .map(|n| match places.cell_of[n] {
                    Some(c) => vec![c],
                    None => places.stations_of[n].iter().map(|&(c, _)| c).collect(),
                })
                .collect(),
            roaming: roaming_table(net, &places),
            externals: (0..nodes.len())
                .filter(|&n| matches!(nodes[n], SimNode::External(_)))
                .collect(),
            recipes,
            air_group: air_groups(net),
            senders_on: flows_at(net, true),
            receivers_on: flows_at(net, false),
            endpoints: ends.endpoints,
            env: env.to_string(),
            has_web: net.flows.iter().any(|f| !f.workload.is_bulk()),
            net: net.clone(),
        };
        let state = State {
            now: 0,
            // a timer for each node, then one for each cell (`Simulation::dispatch`)
            queue: EventQueue::with_timers(net.nodes.len() + net.cells.len()),
            nodes,
            links,
            in_flight: (0..net.links.len()).map(|_| Default::default()).collect(),
            cells,
            cards: cards(net, &places),
            air_hold: None,
            outside_delivered: false,
            to_hand_out: false,
            in_transit: vec![],
            decisions_seen: vec![0; net.nodes.len()],
            flows: net
                .flows
                .iter()
                .zip(&ends.receiver_conns)
                .map(|(f, &conn)| FlowState::new(f.from, f.to, conn))
                .collect(),
            pending: ends.pending,
        };
        let book = Bookkeeping {
            events: 0,
            capped: false,
            inv: InvariantReport::default(),
            state_transfers: vec![(0, 0.0); net.nodes.len()],
            scratch: Vec::new(),
            progress: Progress::default(),
            ended: 0,
            hosts_ran: true,
            ends_moved: true,
            witness_fired: false,
        };
        let mut sim = Simulation {
            topo,
            state,
            book,
            obs,
        };
        sim.mixed_flows_carry_real_bytes(external);
        for (i, c) in sim.topo.net.crashes.iter().enumerate() {
            sim.state.queue.push(c.at, Event::Crash(i));
            sim.state.queue.push(c.at + c.down_for, Event::Restart(i));
        }
        // nodes with timers of their own from the start (a mobile host's handoff timer, beacons):
        // armed now, not at their first packet
        for n in 0..sim.state.nodes.len() {
            sim.arm_node(n);
        }
        for f in 0..sim.topo.net.flows.len() {
            let start = sim.topo.net.flows[f].start;
            if start == 0 {
                sim.start_flow(f);
            } else {
                sim.state.queue.push(start, Event::Start(f));
            }
        }
        sim
    }
}

impl<O: Observe> Simulation<O> {
    /// A flow with one end outside the engine and the other in it is a mixed flow: the modelled
    /// end puts the transfer's real bytes on the wire (`transfer_bytes.rs`), and a modelled
    /// receiver checks the real bytes it gets. Before any flow starts, so that the first SYN is
    /// a real packet too.
    fn mixed_flows_carry_real_bytes(&mut self, external: &[NodeId]) {
        for f in 0..self.topo.net.flows.len() {
            let (from, to) = (self.topo.net.flows[f].from, self.topo.net.flows[f].to);
            if external.contains(&from) == external.contains(&to) {
                continue; // both ends in the engine, or neither
            }
            let seed = crate::transfer_bytes::seed_of(self.topo.net.seed, f);
            self.state.flows[f].real_bytes = Some(seed);
            let conn = self.state.flows[f].receiver_conn;
            if let Some(c) = self.state.nodes[to]
                .host_mut()
                .and_then(|h| h.conns.get_mut(conn))
            {
                c.wire = Some(seed);
            }
        }
    }
}

impl Simulation {
    /// A run of paper 000's testbed with the given base-station agent (tests plant faulty ones).
    pub fn with_agent(sc: &Scenario, agent: Box<dyn Agent<SimPacket>>) -> Simulation {
        let net = sc.network();
        let bs = net.node_id("bs");
        let mut sim = Simulation::of_network(&net, sc.env.name());
        if let Some(b) = bs
            .and_then(|n| sim.state.nodes.get_mut(n))
            .and_then(SimNode::base_station_mut)
        {
            b.agent = agent;
        }
        sim
    }
}
