//! What the observer (traces and captures, when asked for) is told beyond what the loop tells it:
//! segments sent by endpoints and base stations, ACKs reaching a base station and whether its
//! agent suppressed them, and what the agents hold. With `NoObserver` none of this runs.

use snooplab_proto::agent::Origin;

use super::Simulation;
use crate::network::NodeId;
use crate::nodes::{Outgoing, Role, Side, SimNode};
use crate::observer::Observe;
use crate::packet::SimPacket;

impl<O: Observe> Simulation<O> {
    /// An ACK from a cell reaches a base station: traced, and watched for suppression.
    pub(super) fn observe_ack_at_bs(&mut self, node: NodeId, pkt: SimPacket) {
        let flow = self.flow_acked_by(&pkt.seg);
        let first = flow.and_then(|f| self.receiver_first(f));
        if let (Some(f), Some(first)) = (flow, first) {
            self.obs
                .ack_arrived(self.state.now, node, f, &pkt.seg, first);
        }
        let before = self.agent_counters(node).get("dupacks_suppressed");
        let ack = pkt.seg.ack;
        self.state.nodes[node].on_packet(self.state.now, Side::Cell, pkt);
        if self.agent_counters(node).get("dupacks_suppressed") > before {
            if let (Some(f), Some(first)) = (flow, first) {
                self.obs.suppressed(self.state.now, node, f, ack, first);
            }
        }
    }

    pub(super) fn observe_sent(&mut self, n: NodeId, out: &Outgoing) {
        if !O::SEGMENT_HOOKS {
            return;
        }
        let seg = &out.packet.seg;
        match (&self.state.nodes[n], out.origin) {
            (SimNode::Host(_), Origin::Endpoint(kind)) => {
                if let Some(f) = out.flow {
                    if self.state.flows[f].sender == n {
                        if let Some(first) = self.tcp(f, Role::Sender).map(|t| t.iss() + 1) {
                            self.obs
                                .endpoint_sent(self.state.now, n, f, seg, kind, first);
                        }
                    }
                }
            }
            (SimNode::BaseStation(_), origin) => {
                if let Some(f) = self.flow_of_data(seg) {
                    if let Some(first) = self.receiver_first(f) {
                        self.obs.bs_sent(self.state.now, n, f, seg, origin, first);
                    }
                }
            }
            _ => {}
        }
    }

    /// What a base station holds, and the window of a sender it runs (a split connection's).
    pub(super) fn observe_agent(&mut self, n: NodeId) {
        let Some(agent) = self.state.nodes[n].agent() else {
            return;
        };
        let probe = agent.probe();
        let flow = (0..self.state.flows.len()).find(|&f| self.flow_crosses(f, n));
        self.obs.agent_state(self.state.now, n, flow, probe);
    }
}
