//! What a run records when asked: the trace tables and the packet captures.

use snooplab_proto::agent::{AgentProbe, Origin};
use snooplab_proto::tcp::TxKind;
use snooplab_proto::{Segment, Seq, Time};

use crate::capture::{Capture, Link};
use crate::packet::SimPacket;
use crate::trace::{AckRow, HeldRow, SegmentRow, SendKind, TraceLog, Who, WindowRow};

/// What to record during a run.
#[derive(Default)]
pub struct Observer {
    pub trace: Option<TraceLog>,
    pub capture: Option<Capture>,
    last_window: [Option<(u32, u32)>; 2],
    last_ack: [Option<Seq>; 2],
    last_held: Option<(u32, u64)>,
}

fn slot(who: Who) -> usize {
    match who {
        Who::Fh => 0,
        Who::Bs => 1,
    }
}

/// Byte offset of `seq` from the first data byte `first` (wrapping as sequence numbers do).
fn offset(seq: Seq, first: Seq) -> u64 {
    u64::from(seq.since(first))
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
    /// A TCP endpoint's data segment leaves `who`; `first` is its first data byte's sequence number.
    fn endpoint_sent(&mut self, _at: Time, _who: Who, _seg: &Segment, _kind: TxKind, _first: Seq) {}
    /// The base station sends `seg` for `origin`.
    fn bs_sent(&mut self, _at: Time, _seg: &Segment, _origin: Origin, _first: Seq) {}
    /// An ACK arrives at `who` (the fixed host, or the base station from the mobile host).
    fn ack_arrived(&mut self, _at: Time, _who: Who, _seg: &Segment, _first: Seq) {}
    /// A sender's congestion window as it stands now.
    fn window(&mut self, _at: Time, _who: Who, _cwnd: u32, _ssthresh: u32) {}
    /// What the base station holds now.
    fn agent_state(&mut self, _at: Time, _probe: AgentProbe) {}
    /// The base station suppressed a duplicate ACK.
    fn suppressed(&mut self, _at: Time, _ack: Seq, _first: Seq) {}
    /// `pkt` reaches the far end of `link`.
    fn on_link(&mut self, _at: Time, _link: Link, _pkt: &SimPacket) {}
}

/// Records nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoObserver;

impl Observe for NoObserver {
    const ACTIVE: bool = false;
}

impl Observe for Observer {
    const ACTIVE: bool = true;

    /// A TCP endpoint's data segment leaves `who`; `first` is its first data byte's sequence number.
    fn endpoint_sent(&mut self, at: Time, who: Who, seg: &Segment, kind: TxKind, first: Seq) {
        if let (Some(t), Some(kind)) = (self.trace.as_mut(), SendKind::of(kind)) {
            if seg.len > 0 {
                t.segments.push(SegmentRow {
                    at,
                    sender: who,
                    seq: offset(seg.seq, first),
                    len: seg.len,
                    kind,
                });
            }
        }
    }

    /// The base station sends `seg` for `origin`; only its own data segments are traced.
    fn bs_sent(&mut self, at: Time, seg: &Segment, origin: Origin, first: Seq) {
        match origin {
            Origin::LocalRetransmission => {
                if let Some(t) = self.trace.as_mut() {
                    t.segments.push(SegmentRow {
                        at,
                        sender: Who::Bs,
                        seq: offset(seg.seq, first),
                        len: seg.len,
                        kind: SendKind::Local,
                    });
                }
            }
            Origin::Endpoint(kind) => self.endpoint_sent(at, Who::Bs, seg, kind, first),
            Origin::Forwarded | Origin::GeneratedAck => {}
        }
    }

    /// An ACK arrives at `who` (the fixed host, or the base station from the mobile host).
    fn ack_arrived(&mut self, at: Time, who: Who, seg: &Segment, first: Seq) {
        let Some(t) = self.trace.as_mut() else {
            return;
        };
        if !seg.has_ack() || seg.len > 0 || seg.is_syn() {
            return;
        }
        let last = &mut self.last_ack[slot(who)];
        let duplicate = *last == Some(seg.ack) && !seg.is_fin();
        *last = Some(seg.ack);
        t.acks.push(AckRow {
            at,
            receiver: who,
            ack: offset(seg.ack, first),
            window: seg.window,
            duplicate,
            eln: seg.eln,
            sack_blocks: seg.sack.len() as u8,
            smart: seg.smart.map(|s| offset(s, first)),
        });
    }

    /// A sender's congestion window as it stands now; recorded when it changed.
    fn window(&mut self, at: Time, who: Who, cwnd: u32, ssthresh: u32) {
        let Some(t) = self.trace.as_mut() else {
            return;
        };
        let last = &mut self.last_window[slot(who)];
        if *last != Some((cwnd, ssthresh)) {
            *last = Some((cwnd, ssthresh));
            t.windows.push(WindowRow {
                at,
                sender: who,
                cwnd,
                ssthresh,
            });
        }
    }

    /// What the base station holds now; recorded when it changed.
    fn agent_state(&mut self, at: Time, probe: AgentProbe) {
        if self.trace.is_none() {
            return;
        }
        if let Some((cwnd, ssthresh)) = probe.sender_window {
            self.window(at, Who::Bs, cwnd, ssthresh);
        }
        let now = (probe.held_segments, probe.held_bytes);
        if self.last_held != Some(now) {
            self.last_held = Some(now);
            if let Some(t) = self.trace.as_mut() {
                t.held.push(HeldRow {
                    at,
                    segments: now.0,
                    bytes: now.1,
                });
            }
        }
    }

    /// The base station suppressed a duplicate ACK.
    fn suppressed(&mut self, at: Time, ack: Seq, first: Seq) {
        if let Some(t) = self.trace.as_mut() {
            t.suppressed.push((at, offset(ack, first)));
        }
    }

    /// `pkt` reaches the far end of `link`.
    fn on_link(&mut self, at: Time, link: Link, pkt: &SimPacket) {
        if let Some(c) = self.capture.as_mut() {
            c.record(at, link, pkt);
        }
    }
}
