//! One run of the simulator's engine on the real clock between kernel hosts (docs/live.md): the
//! network, the hosts' devices, what to record, and when to stop, in; the engine's result and what
//! the driver and the observer counted, out. Both the scenario mode (`network_run.rs`) and the
//! paper-000 mode (`run.rs`) run through here.

use std::time::Instant;

use snooplab_proto::agent::{Agent, AgentProbe};
use snooplab_proto::Time;
use snooplab_sim::capture::Capture;
use snooplab_sim::network::{FlowId, Network, NodeId};
use snooplab_sim::packet::SimPacket;
use snooplab_sim::{Observe, RunResult, Simulation};

use crate::endpoint::{ReceiverReport, SenderReport};
use crate::ends::{Ends, FlowEnds};
use crate::host_input::{pin_engine, HostInputReport};
use crate::lateness::Lateness;
use crate::tun::Tun;
use crate::tun_driver::{DriverCounters, Ending, HostTraffic, Stop, TunDriver};

/// What a live run records: the captures, and what the base stations' agents held.
#[derive(Default)]
pub struct LiveObserver {
    pub capture: Option<Capture>,
    /// Most segments and payload bytes any agent held at once.
    pub max_held_segments: u32,
    pub max_held_bytes: u64,
    /// What the last agent to act held then.
    pub last: Option<AgentProbe>,
}

impl Observe for LiveObserver {
    const ACTIVE: bool = true;
    /// No segment hook is recorded here.
    const SEGMENT_HOOKS: bool = false;

    fn agent_state(&mut self, _at: Time, _node: NodeId, _flow: Option<FlowId>, probe: AgentProbe) {
        self.max_held_segments = self.max_held_segments.max(probe.held_segments);
        self.max_held_bytes = self.max_held_bytes.max(probe.held_bytes);
        self.last = Some(probe);
    }

    fn on_link(&mut self, at: Time, capture: usize, pkt: &SimPacket) {
        if let Some(c) = self.capture.as_mut() {
            c.record(at, capture, pkt);
        }
    }
}

/// What to run.
pub struct EngineSetup<'a> {
    pub net: &'a Network,
    /// Labels the run (`lan`, `wan`, `off`).
    pub env: &'a str,
    /// The kernel hosts: their nodes and devices.
    pub hosts: Vec<(NodeId, &'a Tun)>,
    /// The engine's time 0.
    pub clock: Instant,
    /// An agent to run at a base station instead of the one the network names.
    pub agent: Option<(NodeId, Box<dyn Agent<SimPacket>>)>,
    pub obs: LiveObserver,
    /// Where the hosts take in their packets (`host_input::steer`, done at their set-up): the
    /// engine's thread is pinned as it says for the run.
    pub host_input: HostInputReport,
}

impl<'a> EngineSetup<'a> {
    /// The engine between the kernel hosts of `hostnet`, running the agents `net` names, its
    /// time 0 at `clock`.
    pub(crate) fn for_hosts(
        net: &'a Network,
        env: &'a str,
        hostnet: &'a crate::hosts::HostNet,
        clock: Instant,
        (obs, host_input): (LiveObserver, HostInputReport),
    ) -> EngineSetup<'a> {
        EngineSetup {
            net,
            env,
            hosts: hostnet.hosts.iter().map(|h| (h.node, &h.tun)).collect(),
            clock,
            agent: None,
            obs,
            host_input,
        }
    }
}

/// What a run of the engine gave.
pub struct EngineRun {
    pub run: RunResult,
    pub obs: LiveObserver,
    pub ending: Option<Ending>,
    /// An error of the driver that ended the run.
    pub error: Option<String>,
    pub lateness: Lateness,
    pub counters: DriverCounters,
    /// Each host's traffic, in the order of `EngineSetup::hosts`.
    pub traffic: Vec<HostTraffic>,
    /// Where the hosts took in their packets.
    pub host_input: HostInputReport,
}

impl EngineRun {
    /// What the report needs once the run is known to have ended well: the engine's result,
    /// what the driver counted, and the flows' kernel ends; and the observer.
    pub(crate) fn into_ends(
        self,
        clock: Instant,
        flows: Vec<FlowEnds<ReceiverReport, SenderReport>>,
    ) -> (Ends, LiveObserver) {
        let ends = Ends {
            run: self.run,
            clock,
            lateness: self.lateness,
            counters: self.counters,
            traffic: self.traffic,
            host_input: self.host_input,
            flows,
            web: Vec::new(),
        };
        (ends, self.obs)
    }
}

/// Runs the engine in this thread until `stop` says so.
pub fn run_engine<'a>(setup: EngineSetup<'a>, stop: Stop<'a>) -> EngineRun {
    let nodes: Vec<NodeId> = setup.hosts.iter().map(|h| h.0).collect();
    let mut sim = Simulation::observed_with_external_hosts(setup.net, setup.env, &nodes, setup.obs);
    if let Some((node, agent)) = setup.agent {
        sim.replace_agent(node, agent);
    }
    let mut host_input = setup.host_input;
    // for this run only: dropped at its end, it gives the thread its CPUs back
    let pinned = pin_engine(&mut host_input);
    let mut driver = TunDriver::new(setup.hosts, setup.clock, stop);
    let (run, obs) = sim.run_observed_with(&mut driver);
    drop(pinned);
    EngineRun {
        run,
        obs,
        ending: driver.ending,
        error: driver.error.take(),
        lateness: driver.lateness.settled(),
        counters: driver.counters,
        traffic: std::mem::take(&mut driver.traffic),
        host_input,
    }
}
