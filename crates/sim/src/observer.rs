//! What a run records when asked: the trace tables and the packet captures.

use snooplab_proto::agent::{AgentProbe, Origin};
use snooplab_proto::tcp::TxKind;
use snooplab_proto::{Segment, Seq, Time};

use crate::capture::Capture;
use crate::network::{FlowId, Network, NodeId, NodeKind};
use crate::packet::SimPacket;
use crate::trace::{
    AckRow, HeldRow, SegmentRow, SendKind, SuppressedRow, TraceLog, TraceNode, WindowRow,
};

/// A sender's cwnd, ssthresh and `snd_wnd`.
pub(crate) type Windows = (u32, u32, u32);

/// What to record during a run.
#[derive(Default)]
pub struct Observer {
    pub trace: Option<TraceLog>,
    pub capture: Option<Capture>,
    last_window: Vec<((NodeId, FlowId), Windows)>,
    last_ack: Vec<((NodeId, FlowId), Option<Seq>)>,
    last_held: Vec<(NodeId, (u32, u64))>,
}

/// Byte offset of `seq` from the first data byte `first` (wrapping as sequence numbers do).
fn offset(seq: Seq, first: Seq) -> u64 {
    u64::from(seq.since(first))
}

/// The value kept for `key`, inserted as `fresh` if there is none yet: a tiny map for the few
/// (node, flow) pairs of a run.
fn slot<K: PartialEq + Copy, V: Copy>(v: &mut Vec<(K, V)>, key: K, fresh: V) -> &mut V {
    let i = match v.iter().position(|(k, _)| *k == key) {
        Some(i) => i,
        None => {
            v.push((key, fresh));
            v.len() - 1
        }
    };
    &mut v[i].1
}

impl Observer {
    /// Records the trace tables.
    pub fn with_trace(mut self) -> Observer {
        self.trace = Some(TraceLog::default());
        self
    }

    /// Writes packet captures.
    pub fn with_capture(mut self, capture: Capture) -> Observer {
        self.capture = Some(capture);
        self
    }
}

/// The hooks a run calls as things happen. Every hook does nothing by default, and a run with
/// [`NoObserver`] is compiled without them: recording costs nothing when it is off.
pub trait Observe: Default {
    /// Whether the run should gather what the hooks need (false: skip that work too).
    const ACTIVE: bool;
    /// Whether the run should work out what the segment hooks ([`Observe::endpoint_sent`],
    /// [`Observe::bs_sent`], [`Observe::ack_arrived`], [`Observe::suppressed`]) are told: each
    /// segment's flow and first byte, and a base station agent's counters before and after each
    /// ACK it hears. An observer that ignores them (the live engine's) says false and is spared
    /// that work per packet.
    const SEGMENT_HOOKS: bool = Self::ACTIVE;
    /// The run is about to start in `net`.
    fn begin(&mut self, _net: &Network) {}
    /// A TCP endpoint of `flow` on host `node` sends a segment; `first` is its first data byte.
    fn endpoint_sent(
        &mut self,
        _at: Time,
        _node: NodeId,
        _flow: FlowId,
        _seg: &Segment,
        _kind: TxKind,
        _first: Seq,
    ) {
    }
    /// Base station `node` sends `seg` of `flow` for `origin`.
    fn bs_sent(
        &mut self,
        _at: Time,
        _node: NodeId,
        _flow: FlowId,
        _seg: &Segment,
        _origin: Origin,
        _first: Seq,
    ) {
    }
    /// An ACK of `flow` arrives at `node` (the flow's sender, or a base station from its cell).
    fn ack_arrived(
        &mut self,
        _at: Time,
        _node: NodeId,
        _flow: FlowId,
        _seg: &Segment,
        _first: Seq,
    ) {
    }
    /// A sender's congestion window, slow-start threshold and the peer's window as they stand now.
    fn window(&mut self, _at: Time, _node: NodeId, _flow: FlowId, _w: Windows) {}
    /// What base station `node` holds now; `flow` is the one flow it relays, if one.
    fn agent_state(&mut self, _at: Time, _node: NodeId, _flow: Option<FlowId>, _probe: AgentProbe) {
    }
    /// Base station `node` suppressed a duplicate ACK of `flow`.
    fn suppressed(&mut self, _at: Time, _node: NodeId, _flow: FlowId, _ack: Seq, _first: Seq) {}
    /// Mobile host `mobile` decided to hand off from base station `from` to `to`.
    fn handoff(&mut self, _at: Time, _mobile: NodeId, _from: NodeId, _to: NodeId) {}
    /// `pkt` reaches the far end of a wired link (capture `capture` = its index) or of a cell's
    /// medium (links first, then cells).
    fn on_link(&mut self, _at: Time, _capture: usize, _pkt: &SimPacket) {}
}

/// Records nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoObserver;

impl Observe for NoObserver {
    const ACTIVE: bool = false;
}

impl Observe for Observer {
    const ACTIVE: bool = true;

    fn begin(&mut self, net: &Network) {
        if let Some(t) = self.trace.as_mut() {
            t.nodes = net
                .nodes
                .iter()
                .map(|n| TraceNode {
                    name: n.name.clone(),
                    base_station: matches!(n.kind, NodeKind::BaseStation { .. }),
                })
                .collect();
            t.flows = net.flows.iter().map(|f| f.name.clone()).collect();
        }
    }

    fn endpoint_sent(
        &mut self,
        at: Time,
        node: NodeId,
        flow: FlowId,
        seg: &Segment,
        kind: TxKind,
        first: Seq,
    ) {
        if let (Some(t), Some(kind)) = (self.trace.as_mut(), SendKind::of(kind)) {
            if seg.len > 0 {
                t.segments.push(SegmentRow {
                    at,
                    flow,
                    sender: node,
                    seq: offset(seg.seq, first),
                    len: seg.len,
                    kind,
                });
            }
        }
    }

    /// Only a base station's own data segments are traced.
    fn bs_sent(
        &mut self,
        at: Time,
        node: NodeId,
        flow: FlowId,
        seg: &Segment,
        origin: Origin,
        first: Seq,
    ) {
        match origin {
            Origin::LocalRetransmission => {
                if let Some(t) = self.trace.as_mut() {
                    t.segments.push(SegmentRow {
                        at,
                        flow,
                        sender: node,
                        seq: offset(seg.seq, first),
                        len: seg.len,
                        kind: SendKind::Local,
                    });
                }
            }
            Origin::Endpoint(kind) => self.endpoint_sent(at, node, flow, seg, kind, first),
            Origin::Forwarded | Origin::GeneratedAck => {}
        }
    }

    fn ack_arrived(&mut self, at: Time, node: NodeId, flow: FlowId, seg: &Segment, first: Seq) {
        let Some(t) = self.trace.as_mut() else {
            return;
        };
        if !seg.has_ack() || seg.len > 0 || seg.is_syn() {
            return;
        }
        let last = slot(&mut self.last_ack, (node, flow), None);
        let duplicate = *last == Some(seg.ack) && !seg.is_fin();
        *last = Some(seg.ack);
        t.acks.push(AckRow {
            at,
            flow,
            receiver: node,
            ack: offset(seg.ack, first),
            window: seg.window,
            duplicate,
            eln: seg.eln,
            sack_blocks: seg.sack.len() as u8,
            smart: seg.smart.map(|s| offset(s, first)),
        });
    }

    /// Recorded when it changed.
    fn window(&mut self, at: Time, node: NodeId, flow: FlowId, w: Windows) {
        let Some(t) = self.trace.as_mut() else {
            return;
        };
        let last = slot(
            &mut self.last_window,
            (node, flow),
            (u32::MAX, u32::MAX, u32::MAX),
        );
        if *last != w {
            *last = w;
            let (cwnd, ssthresh, snd_wnd) = w;
            t.windows.push(WindowRow {
                at,
                flow,
                sender: node,
                cwnd,
                ssthresh,
                snd_wnd,
            });
        }
    }

    /// Recorded when it changed.
    fn handoff(&mut self, at: Time, mobile: NodeId, from: NodeId, to: NodeId) {
        if let Some(t) = self.trace.as_mut() {
            t.handoffs.push(crate::trace::HandoffRow {
                at,
                mobile,
                from,
                to,
            });
        }
    }

    fn agent_state(&mut self, at: Time, node: NodeId, flow: Option<FlowId>, probe: AgentProbe) {
        if self.trace.is_none() {
            return;
        }
        if let (Some((cwnd, ssthresh)), Some(f)) = (probe.sender_window, flow) {
            self.window(at, node, f, (cwnd, ssthresh, 0));
        }
        let now = (probe.held_segments, probe.held_bytes);
        let last = slot(&mut self.last_held, node, (u32::MAX, u64::MAX));
        if *last != now {
            *last = now;
            if let Some(t) = self.trace.as_mut() {
                t.held.push(HeldRow {
                    at,
                    node,
                    segments: now.0,
                    bytes: now.1,
                });
            }
        }
    }

    fn suppressed(&mut self, at: Time, node: NodeId, flow: FlowId, ack: Seq, first: Seq) {
        if let Some(t) = self.trace.as_mut() {
            t.suppressed.push(SuppressedRow {
                at,
                flow,
                node,
                ack: offset(ack, first),
            });
        }
    }

    fn on_link(&mut self, at: Time, capture: usize, pkt: &SimPacket) {
        if let Some(c) = self.capture.as_mut() {
            c.record(at, capture, pkt);
        }
    }
}
