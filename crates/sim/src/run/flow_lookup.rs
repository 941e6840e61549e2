//! A run's flows as the loop looks them up: each flow's endpoints, the flow a segment belongs to,
//! and when every flow has ended (an end on a host outside the engine is its driver's to watch).

use snooplab_proto::tcp::Tcp;
use snooplab_proto::Seq;

use super::Simulation;
use crate::network::{FlowId, NodeId};
use crate::nodes::{Role, SimNode};
use crate::observer::Observe;

impl<O: Observe> Simulation<O> {
    /// Every flow has ended: it started and both its ends are done, or its sender gave up (a
    /// connection dropped after `TCP_MAXRXTSHIFT` retransmissions sends nothing more, so the run
    /// would only go on with beacons and handoffs until the time cap).
    pub(super) fn all_finished(&mut self) -> bool {
        while self.book.ended < self.state.flows.len() && self.flow_ended(self.book.ended) {
            self.book.ended += 1;
        }
        self.book.ended == self.state.flows.len()
    }

    /// The flow has ended: its sender is done and so is its receiver, or the sender gave up. An
    /// end on a host outside the engine is the driver's to watch: here it counts as done.
    pub(super) fn flow_ended(&self, f: FlowId) -> bool {
        let receiver_done = || {
            self.tcp(f, Role::Receiver)
                .map_or(self.outside(self.state.flows[f].receiver), Tcp::is_finished)
        };
        // a dropped connection is closed, so the common case (a sender still at work) is one test
        match self.tcp(f, Role::Sender) {
            Some(t) => t.is_finished() && (t.stats().dropped || receiver_done()),
            // a workload flow has no bulk sender (`web.rs`)
            None if self.topo.has_web && !self.topo.net.flows[f].workload.is_bulk() => {
                self.web_flow_ended(f).unwrap_or(true)
            }
            None => self.outside(self.state.flows[f].sender) && receiver_done(),
        }
    }

    /// Node `n` is a host outside the engine (`outside_hosts.rs`).
    pub(super) fn outside(&self, n: NodeId) -> bool {
        matches!(self.state.nodes[n], SimNode::External(_))
    }

    /// A flow's endpoint.
    pub(super) fn tcp(&self, f: FlowId, role: Role) -> Option<&Tcp> {
        let fl = &self.state.flows[f];
        let (node, conn) = match role {
            Role::Sender => (fl.sender, fl.sender_conn?),
            Role::Receiver => (fl.receiver, fl.receiver_conn),
        };
        self.state.nodes[node]
            .host()?
            .conns
            .get(conn)
            .map(|c| &c.tcp)
    }

    /// The endpoint `conn` of host `node`, where the caller has both (the loop's delivery does,
    /// [`crate::nodes::Inbound::Endpoint`]): [`Simulation::tcp`] without the flow's lookup.
    #[inline]
    pub(super) fn endpoint(&self, node: NodeId, conn: usize) -> Option<&Tcp> {
        self.state.nodes[node]
            .host()?
            .conns
            .get(conn)
            .map(|c| &c.tcp)
    }

    /// The flow a segment carrying the receiver's ACKs belongs to.
    pub(super) fn flow_acked_by(&self, seg: &snooplab_proto::Segment) -> Option<FlowId> {
        self.topo
            .endpoints
            .iter()
            .position(|&(s, r)| seg.src == r && seg.dst == s)
    }

    /// The flow whose data a segment carries.
    pub(super) fn flow_of_data(&self, seg: &snooplab_proto::Segment) -> Option<FlowId> {
        self.topo
            .endpoints
            .iter()
            .position(|&(s, r)| seg.src == s && seg.dst == r)
    }

    /// The first data byte of a flow as its receiver numbers it.
    pub(super) fn receiver_first(&self, f: FlowId) -> Option<Seq> {
        self.tcp(f, Role::Receiver).map(|t| t.irs() + 1)
    }
}
