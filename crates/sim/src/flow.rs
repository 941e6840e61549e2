//! What the loop measures and checks for each flow as it runs (docs/outputs.md, docs/architecture.md#rules).

use snooplab_proto::Time;

use crate::invariants::InvariantReport;
use crate::network::NodeId;

/// The running measurements of one flow.
#[derive(Clone, Debug, Default)]
pub(crate) struct FlowState {
    pub sender: NodeId,
    pub receiver: NodeId,
    /// The flow's endpoints among their hosts' connections (the sender's once it opened: `None`
    /// until the flow starts).
    pub sender_conn: Option<usize>,
    pub receiver_conn: usize,
    /// When the sender put its first data segment on its link.
    pub first_data_at: Option<Time>,
    /// When the receiving application read the last byte.
    pub complete_at: Option<Time>,
    /// Payload bytes and frames of this flow's data that went on the air, retransmissions included.
    pub wireless_data_bytes: u64,
    pub wireless_data_frames: u64,
    /// ... of them that reached their receiver corrupted (a collision or the channel), and of
    /// those, the ones destroyed by a collision.
    pub wireless_data_lost: u64,
    pub wireless_data_collided: u64,
    /// The sender's last transmission, and the time it sat idle before its timeouts.
    pub last_tx: Time,
    pub timeout_stall: Time,
    /// The end of the last wait added to `timeout_stall`: a timeout that sent nothing leaves
    /// `last_tx` where it was, and the next one must not count that wait again.
    pub stall_counted_to: Time,
    /// When the sender gave up (12 retransmissions of one segment).
    pub gave_up_at: Option<Time>,
    pub inv: InvariantReport,
    /// The seed of the flow's bytes when one of its ends is a real host and the other modelled
    /// (`run/outside_hosts.rs`): the modelled end puts real bytes on the wire, and a modelled receiver
    /// checks the real bytes it gets.
    pub real_bytes: Option<u64>,
    /// The witnesses of this flow's sender the loop has seen fire
    /// ([`snooplab_proto::tcp::Tcp::witnesses`]; `run/sharing/line.rs`).
    pub witnessed: u8,
}

impl FlowState {
    pub fn new(sender: NodeId, receiver: NodeId, receiver_conn: usize) -> FlowState {
        FlowState {
            sender,
            receiver,
            receiver_conn,
            ..FlowState::default()
        }
    }

    /// A timeout of the sender at `now`: the wait since its last transmission, as far as it lies
    /// within the span `duration_s` measures (first data segment to the last byte read). Handshake
    /// timeouts (a lost SYN) wait before that span and a timeout after the last byte was read (a
    /// lost FIN) after it; counting them made `timeout_stall_s` exceed `duration_s`.
    pub(crate) fn add_timeout_stall(&mut self, now: Time) {
        let Some(first) = self.first_data_at else {
            return;
        };
        let from = self.last_tx.max(first).max(self.stall_counted_to);
        let until = self.complete_at.map_or(now, |c| c.min(now));
        self.timeout_stall += until.saturating_sub(from);
        self.stall_counted_to = self.stall_counted_to.max(now);
    }
}
