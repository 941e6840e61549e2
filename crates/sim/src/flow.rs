//! What the loop measures and checks for each flow as it runs (DESIGN sections 5 and 6).

use snooplab_proto::Time;

use crate::invariants::InvariantReport;
use crate::network::NodeId;

/// The running measurements of one flow.
#[derive(Clone, Debug, Default)]
pub struct FlowState {
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
    /// The sender's last transmission, and the time it sat idle before its timeouts.
    pub last_tx: Time,
    pub timeout_stall: Time,
    pub inv: InvariantReport,
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
}
