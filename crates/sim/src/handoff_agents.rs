//! The handoff's objects for a network's nodes (paper 002): the mobile host's side, the home
//! agent, and the handoff layer over each base station's agent, built from
//! [`Network::handoffs`](crate::network::Network).

use snooplab_proto::agent::handoff::{
    HandoffAgent, HandoffConfig, HomeAgent, MobileConfig, MobileHandoff,
};
use snooplab_proto::agent::Agent;

use crate::network::{Network, NodeId};
use crate::packet::SimPacket;
use crate::rng::{Rng, Stream};

/// The handoff state of host `node`, if it is a mobile host that hands off.
pub(crate) fn mobile_host(net: &Network, node: NodeId) -> Option<MobileHandoff> {
    let h = net.handoffs.iter().find(|h| h.mobile == node)?;
    let cfg = MobileConfig {
        addr: net.nodes[node].addr,
        base_stations: h.base_stations.iter().map(|&b| net.nodes[b].addr).collect(),
        trigger: h.trigger.clone(),
        ids: h.ids,
        retry: h.retry,
        scheme: h.scheme,
    };
    MobileHandoff::new(cfg)
}

/// `agent` for node `node`: the home agent in place of a router, a base station's agent under the
/// handoff layer, or `agent` itself for a node with no part in a handoff. A `restarted` base
/// station (after a crash) forwards and buffers for no one until a mobile host asks it to.
pub(crate) fn with_handoff(
    net: &Network,
    node: NodeId,
    agent: Box<dyn Agent<SimPacket>>,
    restarted: bool,
) -> Box<dyn Agent<SimPacket>> {
    let addr = |n: NodeId| net.nodes[n].addr;
    let serving: Vec<_> = net
        .handoffs
        .iter()
        .filter(|h| h.base_stations.contains(&node))
        .collect();
    if net.handoffs.iter().any(|h| h.home_agent == node) {
        let groups = net
            .handoffs
            .iter()
            .filter(|h| h.home_agent == node)
            .map(|h| {
                (
                    addr(h.mobile),
                    h.base_stations.iter().map(|&b| addr(b)).collect(),
                )
            });
        return Box::new(HomeAgent::new(addr(node), groups));
    }
    let Some(first) = serving.first() else {
        return agent;
    };
    let primary: Vec<u32> = serving
        .iter()
        .filter(|h| !restarted && h.base_stations.first() == Some(&node))
        .map(|h| addr(h.mobile))
        .collect();
    let buffering: Vec<u32> = serving
        .iter()
        .filter(|h| !restarted && h.scheme.buffers() && h.base_stations.first() != Some(&node))
        .map(|h| addr(h.mobile))
        .collect();
    // base stations do not beacon in step: each starts at its own point of the interval
    let phase = first.beacon_interval.map_or(0, |every| {
        Rng::indexed(net.seed, Stream::BeaconPhase, node as u64).below(every)
    });
    let cfg = HandoffConfig {
        addr: addr(node),
        home_agent: addr(first.home_agent),
        ring: if first.scheme.buffers() {
            first.ring
        } else {
            0
        },
        beacon_interval: first.beacon_interval,
        beacon_phase: phase,
        scheme: first.scheme,
    };
    Box::new(HandoffAgent::new(cfg, agent, &primary, &buffering))
}
