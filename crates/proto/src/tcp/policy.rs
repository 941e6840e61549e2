//! The named policy points of the one TCP (DESIGN section 3). Each paper protocol is a value of
//! [`RecoveryPolicy`], never a copy of the state machine.

/// When a new ACK after fast retransmit deflates the inflated window back to `ssthresh`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Deflation {
    /// 4.4BSD-Lite `tcp_input`: `if (t_dupacks > tcprexmtthresh && snd_cwnd > snd_ssthresh)`; after
    /// exactly three duplicates the window stays at `ssthresh + 3 segments` (Stevens vol. 2, p. 970).
    BsdLite,
    /// Deflate whenever fast retransmit happened (`t_dupacks >= tcprexmtthresh`), as later BSDs do.
    AtThreshold,
}

/// How the sender reacts to duplicate and partial ACKs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecoveryPolicy {
    /// Duplicate ACKs that trigger fast retransmit (`tcprexmtthresh` = 3).
    pub dupack_threshold: u32,
    pub deflation: Deflation,
}

impl RecoveryPolicy {
    /// TCP Reno as in 4.4BSD-Lite: the E2E protocol of paper 000.
    pub const RENO: RecoveryPolicy = RecoveryPolicy {
        dupack_threshold: 3,
        deflation: Deflation::BsdLite,
    };
}

impl Default for RecoveryPolicy {
    fn default() -> Self {
        RecoveryPolicy::RENO
    }
}
