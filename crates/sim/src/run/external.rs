//! Hosts outside the engine in a run (`driver.rs`): attaching them, taking in what they sent,
//! handing out what the network delivered to them.

use snooplab_proto::Time;

use super::{Driver, Simulation};
use crate::network::{Network, NodeId};
use crate::nodes::{ExternalHost, SimNode};
use crate::observer::{NoObserver, Observe};

impl Simulation<NoObserver> {
    /// A run of `net` in which the hosts `external` are outside the engine (the live mode's
    /// kernel hosts): the engine runs no TCP on them, and the flows they send or receive are
    /// carried by their own stacks, not by the engine (it carries the rest). `env` labels the run.
    pub fn with_external_hosts(net: &Network, env: &str, external: &[NodeId]) -> Simulation {
        Simulation::observed_with_external_hosts(net, env, external, NoObserver)
    }
}

impl<O: Observe> Simulation<O> {
    /// [`Simulation::with_external_hosts`], recording what `obs` asks for (captures of real
    /// packets hold their real bytes).
    pub fn observed_with_external_hosts(
        net: &Network,
        env: &str,
        external: &[NodeId],
        obs: O,
    ) -> Simulation<O> {
        let mut own = net.clone();
        own.flows
            .retain(|f| !external.contains(&f.from) && !external.contains(&f.to));
        let mut sim = Simulation::build(&own, env, obs);
        for &n in external {
            let Some(node) = sim.nodes.get_mut(n) else {
                continue;
            };
            // a mobile host that hands off keeps the mobility layer its host node was built
            // with (`build.rs`): it sits below the host's TCP, whoever runs that TCP
            let mobile = node.host_mut().and_then(|h| h.mobile.take());
            *node = SimNode::External(ExternalHost::with_mobility(mobile));
            // its timer (the first timed handoff) as the layer wants it, armed again for the
            // node's new kind
            sim.arm_node(n);
        }
        sim
    }

    /// Base station `node` runs `agent` instead of the one its kind made (the live mode's tests
    /// give snoop other limits). Returns whether `node` is a base station.
    pub fn replace_agent(
        &mut self,
        node: NodeId,
        agent: Box<dyn snooplab_proto::agent::Agent<crate::packet::SimPacket>>,
    ) -> bool {
        match self.nodes.get_mut(node).and_then(SimNode::base_station_mut) {
            Some(b) => {
                b.agent = agent;
                true
            }
            None => false,
        }
    }

    /// Runs to the end with `driver`'s clock and outside hosts; hands back the observer.
    pub fn run_observed_with<D: Driver>(self, driver: &mut D) -> (crate::RunResult, O) {
        self.run_to_end(driver)
    }
}

impl<O: Observe> Simulation<O> {
    /// Takes in what outside hosts sent: each packet enters the network at its host's node.
    pub(super) fn take_input<D: Driver>(&mut self, driver: &mut D, now: Time) {
        while let Some((at, n, packet)) = driver.recv() {
            self.now = self.now.max(at.min(now));
            let Some(x) = self.nodes.get_mut(n).and_then(SimNode::external_mut) else {
                continue; // not an outside host: nothing of the engine's may be spoken for
            };
            x.sent(packet);
            self.kick(n);
        }
        self.now = self.now.max(now);
    }

    /// Hands every outside host what the network delivered to it.
    pub(super) fn flush_external<D: Driver>(&mut self, driver: &mut D) {
        for x in 0..self.nodes.len() {
            let SimNode::External(host) = &mut self.nodes[x] else {
                continue;
            };
            while let Some(p) = host.take_delivered() {
                driver.send(x, self.now, &p);
            }
        }
    }
}
