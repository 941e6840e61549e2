//! Counters one TCP endpoint keeps, as 4.4BSD's `tcpstat` does.

/// Why a segment was sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TxKind {
    /// New data, or a control segment (SYN, FIN) sent for the first time.
    New,
    /// A pure ACK or window update.
    Ack,
    /// Retransmission started by fast retransmit (and data sent after it below `snd_max`).
    FastRetransmit,
    /// Retransmission after the retransmission timer expired (go-back-N from `snd_una`).
    TimeoutRetransmit,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TcpStats {
    pub segs_sent: u64,
    pub data_segs_sent: u64,
    /// Payload bytes sent, retransmissions included.
    pub data_bytes_sent: u64,
    pub rexmt_segs: u64,
    pub rexmt_bytes: u64,
    pub acks_sent: u64,
    pub delayed_acks: u64,
    /// Retransmission-timer expirations (`tcps_rexmttimeo`).
    pub timeouts: u64,
    /// Fast retransmissions (3rd duplicate ACK).
    pub fast_retransmits: u64,
    pub dupacks_rcvd: u64,
    pub acks_rcvd: u64,
    /// Data segments received out of order (`tcps_rcvoopack`).
    pub ooo_segs_rcvd: u64,
    /// Completely duplicate data segments received (`tcps_rcvduppack`).
    pub dup_segs_rcvd: u64,
    /// In-order bytes handed to the application.
    pub bytes_delivered: u64,
    /// Largest amount of out-of-order data held at once.
    pub max_reass_bytes: u32,
    /// Largest amount of unacknowledged data outstanding at once.
    pub max_outstanding: u32,
    /// Connection dropped after too many retransmissions.
    pub dropped: bool,
}
