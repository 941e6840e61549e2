//! Base-station crashes (`[[crash]]`): the agent starts afresh and every packet it held is lost;
//! it comes back after its downtime.

use super::Simulation;
use crate::agents::make_agent;
use crate::medium::BASE_STATION;
use crate::observer::Observe;

impl<O: Observe> Simulation<O> {
    /// A base station crashes: its agent starts afresh, as at the start of the run but with no
    /// mobile host to forward for, and every packet it held, queued for its cell included, is lost.
    pub(super) fn crash(&mut self, i: usize) {
        let n = self.topo.net.crashes[i].node;
        let Some((kind, input, relayed, index)) = self.topo.recipes[n] else {
            return;
        };
        let agent = make_agent(kind, &input, &self.topo.net, relayed, index);
        let fresh = crate::handoff_agents::with_handoff(&self.topo.net, n, agent, true);
        let lost = self
            .topo
            .net
            .cell_of(n)
            .map_or(0, |c| self.state.cells[c].clear_queue(BASE_STATION));
        if let Some(b) = self.state.nodes[n].base_station_mut() {
            b.crash(fresh);
            b.crash_drops += lost as u64;
        }
        self.arm_node(n);
    }

    /// A crashed base station comes back.
    pub(super) fn restart(&mut self, i: usize) {
        let n = self.topo.net.crashes[i].node;
        if let Some(b) = self.state.nodes[n].base_station_mut() {
            b.restart();
        }
        self.kick(n);
    }
}
