//! Paper 001's report as data: Figs. 15-17 per (hosts, protocol), the loss per segment, and
//! Figs. 18-19 per (size, hosts, protocol), with EFR's gains over Reno; `evaluate.rs` makes it
//! from the runs.

use serde::Serialize;

use crate::claim::Claim;
use snooplab_sim::stats::Summary;
use snooplab_sim::Protocol;

/// Figs. 15-17 and the loss rate for one number of hosts and one protocol (10 MB per host).
#[derive(Clone, Debug, Serialize)]
pub struct ProtocolRow {
    pub hosts: usize,
    pub protocol: String,
    /// Fig. 15: segments each host retransmitted (the mean over hosts of one trial, then over
    /// trials).
    pub retransmitted_segments_per_host: Summary,
    pub timeouts_per_host: Summary,
    pub fast_retransmits_per_host: Summary,
    /// Fig. 16: fast retransmissions per timeout, all hosts and trials together; `None` (`null`,
    /// `n/a`) with no timeout, where the ratio has no denominator.
    pub fast_per_timeout: Option<f64>,
    /// Fig. 17: N_dup(i), timeouts after i = 0, 1, 2, >= 3 duplicate ACKs, per host and trial.
    pub n_dup_per_host: [f64; 4],
    /// Timeouts per host and trial after a fast retransmit at a threshold below three (EFR, ER).
    pub early_fast_retransmits_per_host: f64,
    /// Data frames lost on the medium (collided or corrupted) per data frame sent, all hosts.
    pub segment_loss_rate: f64,
    /// The share of those losses that collisions caused; `None` with no loss.
    pub collided_share: Option<f64>,
    /// All hosts' bytes over the span from the first data segment to the last byte read.
    pub aggregate_throughput_mbps: Summary,
    /// Runs incomplete or with a failed check.
    pub failures: usize,
}

/// The loss per segment by number of hosts (Reno; the paper's section 4.1 gives one host alone).
#[derive(Clone, Debug, Serialize)]
pub struct LossRow {
    pub hosts: usize,
    pub segment_loss_rate: f64,
    pub collided_share: Option<f64>,
    /// The paper's value where it gives one.
    pub paper: Option<f64>,
}

/// Figs. 18-19: one transfer size, number of hosts and protocol.
#[derive(Clone, Debug, Serialize)]
pub struct SizeRow {
    pub transfer_bytes: u64,
    pub hosts: usize,
    pub protocol: String,
    /// All hosts' bytes over the span from the first data segment to the last byte read: mean,
    /// 95% interval and range over trials.
    pub aggregate_throughput_mbps: Summary,
    /// The hosts' own throughputs added up (each host's bytes over its own transfer time).
    pub sum_of_hosts_mbps: Summary,
    /// The mean aggregate throughput against Reno's with the same hosts and size, percent; `None`
    /// where Reno's is 0 (every Reno run failed) or was not run.
    pub gain_over_reno_pct: Option<f64>,
    pub failures: usize,
}

/// EFR's gain over Reno where the paper states it.
#[derive(Clone, Debug, Serialize)]
pub struct GainReport {
    pub hosts: usize,
    pub transfer_bytes: u64,
    pub reno_mbps: Summary,
    pub efr_mbps: Summary,
    /// mean(EFR) / mean(Reno) - 1, percent, and the half-width of its 95% interval (both means'
    /// intervals combined as relative errors; `None` with one trial, as theirs are).
    pub gain_pct: f64,
    pub gain_ci95_pct: Option<f64>,
    pub paper_pct: f64,
    /// Within [`GAIN_TOLERANCE_POINTS`](super::data::GAIN_TOLERANCE_POINTS) of the paper's.
    pub within_tolerance: bool,
}

/// Everything `reproduce paper001` reports.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub seeds: u64,
    pub retransmissions: Vec<ProtocolRow>,
    pub loss: Vec<LossRow>,
    pub sizes: Vec<SizeRow>,
    pub gains: Vec<GainReport>,
    pub claims: Vec<Claim>,
    /// The same report under each other MAC reading (the default's is this one).
    pub readings: Vec<MacRun>,
}

/// The report under one MAC reading.
#[derive(Clone, Debug, Serialize)]
pub struct MacRun {
    pub mac: &'static str,
    pub report: Report,
}

impl Report {
    /// The retransmission row of `hosts` and `protocol`.
    pub fn row(&self, hosts: usize, protocol: Protocol) -> Option<&ProtocolRow> {
        self.retransmissions
            .iter()
            .find(|r| r.hosts == hosts && r.protocol == protocol.name())
    }

    /// The throughput row of a size, hosts and protocol.
    pub fn size_row(&self, transfer: u64, hosts: usize, protocol: Protocol) -> Option<&SizeRow> {
        self.sizes.iter().find(|r| {
            r.transfer_bytes == transfer && r.hosts == hosts && r.protocol == protocol.name()
        })
    }
}
