//! Paper 004's report as data: Fig. 2's points and the claims they check.

use serde::Serialize;
use snooplab_sim::stats::Summary;

use crate::claim::Claim;

/// One error rate of Fig. 2.
#[derive(Clone, Debug, Serialize)]
pub struct Point {
    pub kbytes_between_errors: u64,
    /// Throughput of each protocol of [`PROTOCOLS`](super::experiments::PROTOCOLS), Mb/s.
    pub throughput_mbps: Vec<Summary>,
    pub timeouts: Vec<Summary>,
    /// Reno+ELN / Reno, per seed (the same seed is the same error process), then summarised.
    pub eln_over_reno: Summary,
    /// The NACK scheme / Reno, per seed.
    pub nack_over_reno: Summary,
    /// Runs incomplete or with a failed invariant, per protocol.
    pub failures: Vec<usize>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Report004 {
    pub seeds: u64,
    pub host: String,
    pub protocols: Vec<String>,
    pub points: Vec<Point>,
    pub claims: Vec<Claim>,
}
