//! Routing: what a node sends goes to the next wired link or cell on its way (a beacon to every
//! station of its cell), or is queued on a roaming host's card.

use snooplab_proto::agent::handoff::BROADCAST;
use snooplab_proto::agent::Departure;

use super::{card, Event, Simulation};
use crate::medium::BASE_STATION;
use crate::network::{FlowId, Hop, NodeId};
use crate::nodes::Outgoing;
use crate::observer::Observe;

impl<O: Observe> Simulation<O> {
    /// The nodes flow `f`'s data crosses, from its sender to its receiver (both included).
    pub(super) fn flow_path(&self, f: FlowId) -> Vec<NodeId> {
        let flow = &self.state.flows[f];
        self.topo
            .routes
            .path(&self.topo.net, flow.sender, flow.receiver)
    }

    /// Whether flow `f`'s data crosses node `n` on its way ([`Simulation::flow_path`] without
    /// building it).
    pub(super) fn flow_crosses(&self, f: FlowId, n: NodeId) -> bool {
        let flow = &self.state.flows[f];
        self.topo
            .routes
            .path_nodes(&self.topo.net, flow.sender, flow.receiver)
            .any(|x| x == n)
    }

    /// Routes a packet from node `from` towards its destination address.
    pub(super) fn send(&mut self, from: NodeId, mut out: Outgoing) {
        let dst = out.packet.route_dst();
        if dst == BROADCAST {
            // a beacon: one frame to each station of the node's cell
            if let Some(c) = self.topo.net.cell_of(from) {
                for to in 1..=self.topo.net.cells[c].stations.len() {
                    self.state.cells[c].enqueue(BASE_STATION, to, out.packet.clone(), out.priority);
                }
            }
            return;
        }
        let Some(dest) = self.topo.routes.node_at(dst) else {
            return;
        };
        let hop = if self.topo.roaming[from].is_empty() {
            self.topo.routes.hop(from, dest)
        } else {
            self.roaming_hop(from, dest)
        };
        match hop {
            Some(Hop::Link { link, dir }) => {
                let len = out.packet.ip_len();
                if let Some(at) = self.state.links[link][dir].send(self.state.now, len) {
                    self.state.in_flight[link][dir].push_back(out.packet);
                    self.state.queue.push(at, Event::Arrive(link, dir as u8));
                }
            }
            Some(Hop::Cell {
                cell,
                from: station,
                to,
            }) => {
                if station != crate::medium::BASE_STATION
                    && out
                        .flow
                        .is_some_and(|f| self.topo.net.flows[f].protocol.reports_output_queue())
                {
                    // paper 004: the mobile host piggybacks its output queue on each packet
                    let (len, max) = self.state.cells[cell].queue_level(station);
                    out.packet.seg.queue = Some(snooplab_proto::QueueReport::new(len, max));
                }
                if self.state.cards[from].is_some() {
                    let frame = card::CardFrame {
                        cell,
                        station,
                        to,
                        packet: out.packet,
                        priority: out.priority,
                    };
                    return self.queue_on_card(from, frame);
                }
                if !self.state.cells[cell].has_room(station, out.priority) {
                    self.departed(from, &out.packet, Departure::Dropped);
                }
                // the node's own cell, started when its kick ends
                self.state.cells[cell].enqueue(station, to, out.packet, out.priority);
            }
            None => {}
        }
    }
}
