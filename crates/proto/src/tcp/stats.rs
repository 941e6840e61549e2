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
    /// A byte (or what a small window allows) forced out by the persist timer.
    PersistProbe,
    /// A reset: the application aborted the connection.
    Reset,
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
    /// Why each timeout happened (they add up to `timeouts`).
    pub timeout_causes: TimeoutCauses,
    /// Fast retransmissions (3rd duplicate ACK).
    pub fast_retransmits: u64,
    /// ... of them at a threshold below three (EFR's or Early Retransmit's).
    pub fast_retransmits_below_three: u64,
    /// Timeouts by the duplicate ACKs counted (`t_dupacks`) when the timer expired: 0, 1, 2 and
    /// 3 or more (paper 001 section 6.1, N_dup(i)). They add up to `timeouts`.
    pub timeouts_after_dupacks: [u64; 4],
    /// New segments sent by Limited Transmit (RFC 3042) on the first two duplicate ACKs.
    pub limited_transmits: u64,
    /// Retransmissions triggered by ELN-marked duplicate ACKs (no window change).
    pub eln_retransmits: u64,
    /// NewReno retransmissions on partial ACKs.
    pub partial_ack_retransmits: u64,
    /// ACKs sent with the ELN mark.
    pub eln_acks_sent: u64,
    /// ELN-marked ACKs a paper-004 sender counted (duplicate or new).
    pub eln_acks_rcvd: u64,
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
    /// The application aborted the connection (a reset was sent if the peer's SYN had arrived).
    pub aborted: bool,
    /// The peer reset the connection.
    pub reset_received: bool,
    /// Persist-timer expirations (`tcps_persisttimeo`): each sends a probe.
    pub persist_timeouts: u64,
    /// ACKs sent advertising a zero window.
    pub zero_window_acks: u64,
    /// Segments sent by the reading application's `PRU_RCVD` (window updates).
    pub window_updates: u64,
    /// Pure ACKs taken by header prediction (`tcps_predack`).
    pub predicted_acks: u64,
    /// ... of them while `t_dupacks` was at the fast-retransmit threshold (fast recovery ended
    /// without resetting it).
    pub predicted_acks_in_recovery: u64,
    /// In-order data segments taken by header prediction (`tcps_preddat`).
    pub predicted_data: u64,
    /// Bytes the receiving application has read.
    pub bytes_read: u64,
    /// `read()` calls that returned data.
    pub reads: u64,
}

/// What the sender's state says about why the retransmission timer had to expire: the evidence for
/// explaining Reno's throughput from a run (paper 000 section IV-C).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct TimeoutCauses {
    /// The segment at `snd_una` had already been retransmitted (fast or by an earlier timeout): the
    /// retransmission was lost.
    pub retransmission_lost: u64,
    /// A fast retransmit earlier in the same window recovered one loss, and Reno left fast recovery on
    /// the partial ACK with no way to detect the next loss (multiple losses in one window).
    pub multiple_losses: u64,
    /// Too little data outstanding for `threshold` duplicate ACKs to exist.
    pub small_window: u64,
    /// Anything else: duplicate ACKs lost, or the losses at the tail of the window.
    pub other: u64,
    /// Before the connection was established (SYN or SYN/ACK lost).
    pub handshake: u64,
}
