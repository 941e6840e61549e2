//! Hosts outside the engine in a run (`driver.rs`): attaching them, taking in what they sent,
//! handing out what the network delivered to them.

use snooplab_proto::Time;

use super::{Driver, Simulation};
use crate::network::{Network, NodeId};
use crate::nodes::SimNode;
use crate::observer::{NoObserver, Observe};

impl Simulation<NoObserver> {
    /// A run of `net` in which the hosts `external` are outside the engine (the live mode's
    /// kernel hosts): the engine runs no TCP on them; a flow's end on one of them is its own
    /// stack's, the other end, on a modelled host, the engine's (a mixed flow, whose modelled end
    /// puts the transfer's real bytes on the wire, `transfer_bytes.rs`). The engine knows every
    /// flow, so its counters per flow (frames on the air, losses) cover the outside hosts' flows
    /// too. `env` labels the run.
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
        Simulation::build_with(net, env, obs, external)
    }

    /// Base station `node` runs `agent` instead of the one its kind made (the live mode's tests
    /// give snoop other limits). Returns whether `node` is a base station.
    pub fn replace_agent(
        &mut self,
        node: NodeId,
        agent: Box<dyn snooplab_proto::agent::Agent<crate::packet::SimPacket>>,
    ) -> bool {
        match self
            .state
            .nodes
            .get_mut(node)
            .and_then(SimNode::base_station_mut)
        {
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
            self.state.now = self.state.now.max(at.min(now));
            let Some(x) = self.state.nodes.get_mut(n).and_then(SimNode::external_mut) else {
                continue; // not an outside host: nothing of the engine's may be spoken for
            };
            x.sent(packet);
            self.kick(n);
        }
        self.state.now = self.state.now.max(now);
    }

    /// After an event's deliveries are handed out: what the outside hosts answered at once
    /// ([`Driver::answer`]) enters at the event's time, and only then does a cell held for their
    /// answer (`cell_timeout`) pick its next frame. A modelled host's answer is queued at its
    /// cell within the delivery, before the pick; a kernel host's answer is too when its kernel
    /// takes the packet in the write's own call (Linux, `drivers/net/tun.c`: `tun_get_user` ->
    /// `tun_rx_batched` -> `netif_receive_skb` in the writer's context, `rx_batched` 0 by
    /// default), so the two clocks order the answer and the pick the same way. An answer that
    /// comes later (a delayed ACK's timer) is read as any packet, at its time, and waits for the
    /// pick after it, as a modelled host's delayed ACK does.
    ///
    /// Only a cell's pick is held for them: on a wire nothing is picked at the event's time, so
    /// what a host sent there enters when read, as any packet of its, a few microseconds on
    /// (the driver forgets the writes once the loop moves on, `Driver::answer`), and the read
    /// each write would cost (the one that finds the device empty) is spared.
    pub(super) fn take_answers<D: Driver>(&mut self, driver: &mut D) {
        let Some(c) = self.state.air_hold else {
            return; // no cell waits: nothing can go between the host's packets and the wire
        };
        while let Some((n, packet)) = driver.answer() {
            let Some(x) = self.state.nodes.get_mut(n).and_then(SimNode::external_mut) else {
                continue;
            };
            x.sent(packet);
            self.kick(n);
        }
        self.next_turn(c);
    }

    /// Hands every outside host what the network delivered to it.
    pub(super) fn flush_external<D: Driver>(&mut self, driver: &mut D) {
        self.state.outside_delivered = false;
        if !std::mem::take(&mut self.state.to_hand_out) {
            return;
        }
        for k in 0..self.topo.externals.len() {
            let x = self.topo.externals[k];
            let SimNode::External(host) = &mut self.state.nodes[x] else {
                continue;
            };
            while let Some(p) = host.take_delivered() {
                driver.send(x, self.state.now, &p);
                // its box, extra box and bytes serve the next packets read (`raw.rs`)
                p.recycle_real();
            }
        }
    }
}
