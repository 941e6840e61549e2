//! Checks every run makes as it goes (docs/architecture.md#rules): the application gets exactly the bytes sent,
//! in order, once; the fixed host is never acknowledged a byte the mobile host has not received;
//! memory stays within its bounds.

use serde::Serialize;

/// What the checks found. A clean run has all counters at zero and `complete` true.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct InvariantReport {
    /// The receiving application got every byte of the transfer.
    pub complete: bool,
    /// Data that reached the receiver's TCP with a payload different from what the sender sent.
    pub payload_mismatches: u64,
    /// ACKs that reached the fixed host acknowledging data the mobile host had not received.
    pub ack_semantics_violations: u64,
    /// For split connections, where this is by design: ACKs the base station sent the fixed host for
    /// data the mobile host did not have yet. Not a failure.
    pub split_acks_ahead: u64,
    /// For split connections: bytes the base station acknowledged to the fixed host that never
    /// reached the mobile host (a base station that crashed with them in its relay buffer). Reported,
    /// not a check of the run: the split design allows it.
    pub split_bytes_lost: u64,
    /// Out-of-order data held above the receive buffer, or outstanding data above the send buffer.
    pub memory_bound_violations: u64,
    /// The receiver delivered more bytes than were sent.
    pub over_delivery: u64,
    /// The first problems found, in words (at most a few).
    pub messages: Vec<String>,
}

impl InvariantReport {
    const MAX_MESSAGES: usize = 5;

    pub fn note(&mut self, msg: String) {
        if self.messages.len() < Self::MAX_MESSAGES {
            self.messages.push(msg);
        }
    }

    /// True when every check passed.
    pub fn ok(&self) -> bool {
        self.complete
            && self.payload_mismatches == 0
            && self.ack_semantics_violations == 0
            && self.memory_bound_violations == 0
            && self.over_delivery == 0
    }

    /// Adds another flow's findings: the run is complete when every flow is, and the counters add up.
    pub(crate) fn merge(&mut self, other: &InvariantReport, flow: &str) {
        self.complete &= other.complete;
        self.payload_mismatches += other.payload_mismatches;
        self.ack_semantics_violations += other.ack_semantics_violations;
        self.split_acks_ahead += other.split_acks_ahead;
        self.split_bytes_lost += other.split_bytes_lost;
        self.memory_bound_violations += other.memory_bound_violations;
        self.over_delivery += other.over_delivery;
        for m in &other.messages {
            self.note(format!("{flow}: {m}"));
        }
    }

    /// One line saying what is wrong, or "ok".
    pub fn summary(&self) -> String {
        if self.ok() {
            return "ok".into();
        }
        let mut parts = vec![];
        if !self.complete {
            parts.push("transfer incomplete".to_string());
        }
        if self.payload_mismatches > 0 {
            parts.push(format!("{} payload mismatches", self.payload_mismatches));
        }
        if self.ack_semantics_violations > 0 {
            parts.push(format!(
                "{} ACK-semantics violations",
                self.ack_semantics_violations
            ));
        }
        if self.memory_bound_violations > 0 {
            parts.push(format!(
                "{} memory-bound violations",
                self.memory_bound_violations
            ));
        }
        if self.over_delivery > 0 {
            parts.push(format!("{} bytes over-delivered", self.over_delivery));
        }
        parts.join(", ")
    }
}
