//! Split base stations between kernel hosts (docs/live.md, "Split connections"): the relay of
//! paper 000 section III-C, which terminates the fixed host's connection with the engine's own TCP
//! and relays its bytes over a second one to the mobile host (`proto/src/agent/split.rs`; the real
//! bytes ride through `proto/src/agent/relay_bytes.rs`).
//!
//! The engine between kernel hosts carries none of their flows (`sim::run::external`), so the
//! split agent it builds does not know the flow it relays. Here each split base station's agent is
//! built as `snooplab run` builds it for its flow (`sim::agents::split_config`: the flow's segment
//! size and host profile, the clocks drawn from the seed), and its relay sender's counters are
//! kept for the result when the engine drops it.

use std::cell::RefCell;
use std::rc::Rc;

use snooplab_proto::agent::{
    Agent, AgentProbe, Counters, Handover, Mirror, Port, QueueReader, Relay, RelayReport,
    SplitAgent, Transmit,
};
use snooplab_proto::Time;
use snooplab_sim::agents::split_config;
use snooplab_sim::metrics::RelayCounters;
use snooplab_sim::network::{FlowId, Network, NodeId, NodeKind, Routes};
use snooplab_sim::packet::SimPacket;
use snooplab_sim::protocol::AgentKind;

/// Where a relay's report lands when the engine drops its agent.
type Slot = Rc<RefCell<Option<RelayReport>>>;

/// The split agents of a network's base stations, to install in the engine, and where their
/// reports will be.
pub struct SplitRelays {
    pub agents: Vec<(NodeId, Box<dyn Agent<SimPacket>>)>,
    slots: Vec<Slot>,
}

impl SplitRelays {
    /// An agent for every split base station of `net` (none for a network without one).
    pub fn for_network(net: &Network) -> SplitRelays {
        let routes = Routes::new(net);
        let mut out = SplitRelays {
            agents: Vec::new(),
            slots: Vec::new(),
        };
        // the base stations' order gives each its clock stream, as the simulator counts them
        let stations = net
            .nodes
            .iter()
            .enumerate()
            .filter_map(|(i, n)| match n.kind {
                NodeKind::BaseStation { agent, .. } => Some((i, agent)),
                NodeKind::Host => None,
            });
        for (index, (node, kind)) in stations.enumerate() {
            let AgentKind::Split { smart } = kind else {
                continue;
            };
            let relayed = net
                .flows
                .iter()
                .position(|f| routes.path(net, f.from, f.to).contains(&node));
            let cfg = split_config(smart, net, relayed, index as u64);
            let slot = Slot::default();
            out.agents.push((
                node,
                Box::new(Reporting {
                    inner: SplitAgent::new(cfg),
                    slot: slot.clone(),
                }),
            ));
            out.slots.push(slot);
        }
        out
    }

    /// The relays' reports, once the engine has dropped them.
    pub fn reports(&self) -> Vec<RelayReport> {
        self.slots
            .iter()
            .filter_map(|s| s.borrow().clone())
            .collect()
    }
}

/// The relay sender's counters for flow `f` of `net`, from `reports`: the relay whose wireless
/// connection runs from the flow's sender's address to its receiver (the sender's port is the
/// kernel's own choice).
pub fn relay_counters(net: &Network, reports: &[RelayReport], f: FlowId) -> Option<RelayCounters> {
    let (from, to) = net.endpoints(f);
    reports
        .iter()
        .find(|r| r.endpoints.0.addr == from.addr && r.endpoints.1 == to)
        .map(|r| RelayCounters::from(&r.sender))
}

/// A split agent that leaves its relay's report in `slot` when dropped.
struct Reporting {
    inner: SplitAgent<SimPacket>,
    slot: Slot,
}

impl Drop for Reporting {
    fn drop(&mut self) {
        *self.slot.borrow_mut() = self.inner.report();
    }
}

impl Agent<SimPacket> for Reporting {
    fn on_packet(&mut self, now: Time, from: Port, packet: SimPacket) {
        self.inner.on_packet(now, from, packet);
    }
    fn on_timeout(&mut self, now: Time) {
        self.inner.on_timeout(now);
    }
    fn poll_transmit(&mut self, now: Time) -> Option<Transmit<SimPacket>> {
        self.inner.poll_transmit(now)
    }
    fn poll_timeout(&self) -> Option<Time> {
        self.inner.poll_timeout()
    }
    fn counters(&self) -> Counters {
        self.inner.counters()
    }
    fn probe(&self) -> AgentProbe {
        self.inner.probe()
    }
    fn queue_reader(&mut self) -> Option<&mut dyn QueueReader<SimPacket>> {
        self.inner.queue_reader()
    }
    fn mirror(&mut self) -> Option<&mut dyn Mirror<SimPacket>> {
        self.inner.mirror()
    }
    fn relay(&self) -> Option<&dyn Relay> {
        self.inner.relay()
    }
    fn handover(&mut self) -> Option<&mut dyn Handover<SimPacket>> {
        self.inner.handover()
    }
}
