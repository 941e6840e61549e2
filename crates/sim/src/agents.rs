//! The base-station agent factory: which agent object a node's [`AgentKind`] makes, with the
//! settings it carries (a node's snoop) or paper 000's (a protocol's agent). The simulator builds
//! (and, after a crash, rebuilds) its base stations here; the live mode takes the agents that work
//! on raw packets from [`forwarding_agent`].

use snooplab_proto::agent::{
    Agent, BuildPacket, ElnAgent, ElnConfig, NackAgent, NackConfig, Router, SegmentView,
    SnoopAgent, SnoopConfig, SplitAgent, SplitConfig,
};
use snooplab_proto::tcp::{HostProfile, RecoveryPolicy};

use crate::network::{FlowId, InputQueue, Network};
use crate::packet::SimPacket;
use crate::protocol::AgentKind;
use crate::rng::{Rng, Stream};

/// The agents that work on any packet, the simulator's or the live mode's raw bytes: the router,
/// the link-layer family with paper 000's settings and a node's snoop with its own. `None` for a
/// split connection, which terminates TCP and needs the simulator's endpoints.
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
        AgentKind::Snoop(config) => Some(Box::new(SnoopAgent::new(config))),
        AgentKind::Split { .. } => None,
    }
}

/// The agent of base station `node` (the `index`-th base station): its kind, and for a split
/// connection the TCP of the flow it relays.
pub(crate) fn make_agent(
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
        AgentKind::Router | AgentKind::LinkLayer { .. } | AgentKind::Snoop(_) => {
            forwarding_agent(kind).unwrap_or_else(|| Box::new(Router::default()))
        }
        AgentKind::Split { smart } => {
            let mut cfg = split_config(smart, net, relayed, index);
            cfg.max_memory = input.relay_memory;
            Box::new(SplitAgent::new(cfg))
        }
    }
}

/// The settings of a split base station (paper 000 section III-C), the `index`-th base station,
/// relaying flow `relayed`: paper 000's 64 KB relay, Reno or SMART towards the mobile host, the
/// flow's segment size and host profile for both of its TCPs, and their clocks' phases and
/// initial sequence numbers drawn from the seed. The live mode builds its split agents here too.
pub(crate) fn split_config(
    smart: bool,
    net: &Network,
    relayed: Option<FlowId>,
    index: u64,
) -> SplitConfig {
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
    cfg
}

/// What [`make_agent`] made a base station's agent from: its kind, input queue, the flow a split
/// connection relays, and the base station's index.
pub(crate) type AgentRecipe = (AgentKind, InputQueue, Option<FlowId>, u64);
