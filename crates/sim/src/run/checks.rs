//! The invariants a run checks as it goes, per flow: the receiver gets exactly the bytes sent,
//! in order, once (`check_payload`, `after_receive`); the sender is never acknowledged a byte the
//! receiver has not received unless a split connection is on the path (`ack_arrives`); memory per
//! connection stays within its buffers (`after_receive`, `check_sender_memory`).

use snooplab_proto::time::as_secs_f64;

use super::Simulation;
use crate::network::{FlowId, NodeId, NodeKind};
use crate::nodes::Role;
use crate::observer::Observe;
use crate::packet::{payload_tag, SimPacket};
use crate::protocol::AgentKind;

impl<O: Observe> Simulation<O> {
    /// An ACK reaches a flow's sender: checked against what the receiver holds, and traced.
    pub(super) fn ack_arrives(&mut self, node: NodeId, conn: usize, f: FlowId, pkt: &SimPacket) {
        if pkt.seg.flags.contains(snooplab_proto::Flags::RST) {
            return; // a reset acknowledges nothing
        }
        let Some(first) = self.endpoint(node, conn).map(|t| t.iss() + 1) else {
            return;
        };
        if O::SEGMENT_HOOKS {
            self.obs
                .ack_arrived(self.state.now, node, f, &pkt.seg, first);
        }
        // End-to-end semantics: an ACK may only cover data the receiver has. Counted in bytes of
        // the transfer, so that a split base station, whose two connections number the bytes
        // differently, is measured the same way; for split connections the count is the expected
        // result, reported but not a failure.
        let seg = &pkt.seg;
        if !seg.has_ack() {
            return;
        }
        let transfer = self.topo.net.flows[f].transfer;
        let acked = u64::from(seg.ack.since(first)).min(transfer);
        let Some(has) = self
            .tcp(f, Role::Receiver)
            .map(|t| t.stats().bytes_delivered)
        else {
            return; // a receiver outside the engine: what it holds is not known here
        };
        if acked > has {
            let split = self.split_on_path(f);
            let now = self.state.now;
            let inv = &mut self.state.flows[f].inv;
            if split {
                inv.split_acks_ahead += 1;
                return;
            }
            inv.ack_semantics_violations += 1;
            inv.note(format!(
                "at {:.6} s the sender was acknowledged {} bytes the receiver had not received",
                as_secs_f64(now),
                acked - has
            ));
        }
    }

    /// Whether a base station on flow `f`'s path splits its connection.
    pub(super) fn split_on_path(&self, f: FlowId) -> bool {
        self.flow_path(f).iter().any(|&b| {
            matches!(
                self.topo.net.nodes[b].kind,
                NodeKind::BaseStation {
                    agent: AgentKind::Split { .. },
                    ..
                }
            )
        })
    }

    /// The data's digest must be what the sender put at that offset. Offsets count from the
    /// receiver's view of the stream, so the check holds through a split base station too; packets a
    /// split relay built carry no digest.
    pub(super) fn check_payload(&mut self, node: NodeId, conn: usize, f: FlowId, pkt: &SimPacket) {
        if pkt.seg.len == 0 || pkt.seg.src != self.topo.endpoints[f].0 {
            return;
        }
        let Some(first) = self.endpoint(node, conn).map(|t| t.irs() + 1) else {
            return;
        };
        let offset = u64::from(pkt.seg.seq.since(first));
        let ok = match (pkt.payload_tag, self.state.flows[f].real_bytes) {
            (Some(tag), _) => tag == payload_tag(offset, pkt.seg.len),
            // a real host's data reaching a modelled receiver (a mixed flow, `outside_hosts.rs`):
            // its bytes must be the transfer's at that offset (`transfer_bytes.rs`)
            (None, Some(seed)) => real_payload_ok(seed, offset, pkt),
            (None, None) => true,
        };
        if !ok {
            let now = self.state.now;
            let inv = &mut self.state.flows[f].inv;
            inv.payload_mismatches += 1;
            inv.note(format!(
                "at {:.6} s the receiver got {} bytes at offset {} whose payload the sender never sent there",
                as_secs_f64(now),
                pkt.seg.len,
                offset
            ));
        }
    }

    /// After a host's TCPs ran: a flow is complete when its receiving application has read the
    /// last byte; the receiver's memory stays within its buffer.
    pub(super) fn after_receive(&mut self, node: NodeId) {
        for k in 0..self.topo.receivers_on[node].len() {
            self.after_receive_flow(self.topo.receivers_on[node][k]);
        }
    }

    /// [`Simulation::after_receive`] for one flow's receiver: after a packet reached it (a
    /// packet for one endpoint changes no other).
    pub(super) fn after_receive_flow(&mut self, f: FlowId) {
        let Some(t) = self.tcp(f, Role::Receiver) else {
            return;
        };
        let (delivered, read) = (t.stats().bytes_delivered, t.stats().bytes_read);
        let (reass, rcvbuf) = (t.reass_bytes(), t.buffers().1);
        let transfer = self.topo.net.flows[f].transfer;
        let now = self.state.now;
        let fl = &mut self.state.flows[f];
        if delivered > transfer {
            fl.inv.over_delivery = delivered - transfer;
        }
        if read >= transfer && fl.complete_at.is_none() {
            fl.complete_at = Some(now);
        }
        if reass > rcvbuf {
            fl.inv.memory_bound_violations += 1;
            fl.inv.note(format!(
                "the receiver holds {reass} out-of-order bytes, above its {rcvbuf} byte buffer"
            ));
        }
    }

    pub(super) fn check_sender_memory(&mut self, n: NodeId) {
        for k in 0..self.topo.senders_on[n].len() {
            let f = self.topo.senders_on[n][k];
            let Some(t) = self.tcp(f, Role::Sender) else {
                continue;
            };
            let (sndbuf, _) = t.buffers();
            let outstanding = t.snd_max().since(t.snd_una());
            let w = (t.cwnd(), t.ssthresh(), t.snd_wnd());
            // +1: the FIN occupies a sequence number but no buffer space.
            if outstanding > sndbuf + 1 {
                let inv = &mut self.state.flows[f].inv;
                inv.memory_bound_violations += 1;
                inv.note(format!(
                    "the sender has {outstanding} bytes outstanding, above its {sndbuf} byte buffer"
                ));
            }
            if O::ACTIVE {
                self.obs.window(self.state.now, n, f, w);
            }
        }
    }
}

#[cold]
fn real_payload_ok(seed: u64, offset: u64, pkt: &SimPacket) -> bool {
    pkt.real_payload()
        .is_some_and(|p| crate::transfer_bytes::matches(seed, offset, p))
}
