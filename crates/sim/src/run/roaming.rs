//! A mobile host that hands off between base stations (paper 002): what it hears in each cell,
//! what its handoff decisions move (its split connections' relays under `Scheme::SplitTransfer`),
//! and which cell its packets leave by. The loop calls these only for hosts with a roaming table.

use snooplab_proto::agent::handoff::{Decision, Mobility, Scheme};
use snooplab_proto::agent::Departure;
use snooplab_proto::time::as_secs_f64;

use super::{Event, Simulation};
use crate::medium::BASE_STATION;
use crate::network::{Hop, NodeId, OldPrimaryQueue};
use crate::nodes::Role;
use crate::observer::Observe;
use crate::packet::SimPacket;

impl<O: Observe> Simulation<O> {
    /// Whether `node` hears base station `bs` (always, unless it is a mobile host that left `bs`'s
    /// cell in a hard handoff).
    pub(super) fn in_range(&self, node: NodeId, bs: NodeId) -> bool {
        self.state.nodes[node]
            .mobile()
            .is_none_or(|m| m.hears(self.topo.addrs[bs]))
    }

    /// A mobile host that hands off hears base station `bs`: a beacon or control message, or a
    /// packet whose IP id it remembers.
    pub(super) fn mobile_hears(&mut self, node: NodeId, bs: NodeId, pkt: &SimPacket) {
        let strength = match (pkt.mobility(), self.topo.net.handoff_of(node)) {
            (Some(Mobility::Beacon { .. }), Some(h)) => h.signal_dbm(self.state.now, bs),
            _ => 0.0,
        };
        let (now, addr) = (self.state.now, self.topo.addrs[bs]);
        let Some(m) = self.state.nodes[node].mobile_mut() else {
            return;
        };
        match pkt.mobility() {
            Some(msg) => m.on_message(now, addr, msg, strength),
            None => m.on_received(now, addr, pkt.seg.ip_id),
        }
        let dupacks = m.take_dupacks_due();
        self.after_decisions(node);
        // (a host outside the engine has no TCP here to tell: the live mode refuses that scheme)
        let Some(h) = self.state.nodes[node].host_mut() else {
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
    /// `Scheme::SplitTransfer` the relays of the host's connections at the old base station (the
    /// other hosts' stay), which reach the new one together after the time the bytes they hold
    /// take (`Scheme::state_transfer_time`; `proto/src/agent/split_handover.rs`).
    pub(super) fn after_decisions(&mut self, node: NodeId) {
        let Some(m) = self.state.nodes[node].mobile() else {
            return;
        };
        let made = m.decision_totals().made;
        if made == self.state.decisions_seen[node] {
            return;
        }
        // a mobile host decides at most once per packet or timeout, and this runs after each
        debug_assert_eq!(made, self.state.decisions_seen[node] + 1);
        self.state.decisions_seen[node] = made;
        let Some(d): Option<Decision> = m.latest_decision().copied() else {
            return;
        };
        let split = self.topo.net.handoff_of(node).map(|h| h.scheme) == Some(Scheme::SplitTransfer);
        let node_of = |a: u32| self.topo.routes.node_at(a);
        let (Some(old), Some(new)) = (node_of(d.from), node_of(d.to)) else {
            return;
        };
        if O::ACTIVE {
            self.obs.handoff(self.state.now, node, old, new);
        }
        if !split {
            return;
        }
        let Some(b) = self.state.nodes[old].base_station_mut() else {
            return;
        };
        let (now, mh) = (self.state.now, self.topo.addrs[node]);
        let Some(state) = b.agent.handover().and_then(|h| h.hand_over(now, mh)) else {
            return;
        };
        let delay = Scheme::state_transfer_time(state.held_bytes());
        let moved = &mut self.book.state_transfers[node];
        moved.0 += 1;
        moved.1 += as_secs_f64(delay) * 1e3;
        // a free slot if there is one: the table holds the states in transit at once, not
        // every handoff's
        let k = match self.state.in_transit.iter().position(Option::is_none) {
            Some(k) => k,
            None => {
                self.state.in_transit.push(None);
                self.state.in_transit.len() - 1
            }
        };
        self.state.in_transit[k] = Some((new, state));
        self.state
            .queue
            .push(self.state.now + delay, Event::Install(k));
        self.arm_node(old);
    }

    /// The hop of a mobile host that hands off: a request to a base station of its group goes
    /// through that one's cell, everything else through the primary's.
    pub(super) fn roaming_hop(&self, from: NodeId, dest: NodeId) -> Option<Hop> {
        let primary = self.state.nodes[from].mobile().map(|m| m.primary());
        let r = &self.topo.roaming[from];
        let via = r
            .iter()
            .find(|&&(bs, ..)| bs == dest)
            .or_else(|| {
                r.iter()
                    .find(|&&(bs, ..)| Some(self.topo.addrs[bs]) == primary)
            })
            .or(r.first());
        via.map(|&(_, cell, station)| Hop::Cell {
            cell,
            from: station,
            to: BASE_STATION,
        })
    }

    /// Base station `bs` (cell `cell`) took a mobile host's `Buffer` request: under
    /// `OldPrimaryQueue::Dropped` the frames its interface queue holds for the host (station
    /// `station`) are dropped, and its agent learns of each as a queue drop.
    pub(super) fn asked_to_buffer(&mut self, bs: NodeId, cell: usize, station: usize) {
        let mh = self.topo.net.cells[cell].node_of(station);
        let rule = self.topo.net.handoff_of(mh).map(|h| h.old_primary_queue);
        if rule != Some(OldPrimaryQueue::Dropped) {
            return;
        }
        for frame in self.state.cells[cell].drop_queued_for(BASE_STATION, station) {
            self.departed(bs, &frame, Departure::Dropped);
        }
    }

    /// A mobile host's split connections handed over at a handoff reach their new base station.
    pub(super) fn install(&mut self, k: usize) {
        let Some((n, moved)) = self.state.in_transit[k].take() else {
            return;
        };
        if let Some(b) = self.state.nodes[n].base_station_mut() {
            if let Some(h) = b.agent.handover() {
                h.take_over(self.state.now, moved);
            }
        }
        self.kick(n);
    }
}
