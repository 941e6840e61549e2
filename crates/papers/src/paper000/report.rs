//! Paper 000's report as data: each table's rows of cells beside the paper's numbers, and the
//! claims.

use serde::Serialize;
use snooplab_sim::stats::Summary;

use super::experiments::Part;
use crate::claim::Claim;
use snooplab_sim::Protocol;

#[derive(Clone, Debug, Serialize)]
pub struct CellReport {
    pub protocol: String,
    pub throughput_mbps: Summary,
    pub wireless_goodput_pct: Summary,
    pub wired_goodput_pct: Summary,
    pub timeouts: Summary,
    pub paper_throughput_mbps: Option<f64>,
    pub paper_wireless_goodput_pct: Option<f64>,
    pub paper_wired_goodput_pct: Option<f64>,
    /// (ours - paper) / paper.
    pub relative_error: Option<f64>,
    pub throughput_within_tolerance: Option<bool>,
    pub goodput_within_tolerance: Option<bool>,
    pub invariant_failures: usize,
    /// Share of lost data frames the sender retransmitted too (the LL claim).
    pub double_share: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct RowReport {
    pub row: String,
    pub cells: Vec<CellReport>,
    /// Whether every pair the paper separates by more than 5% is ordered the same way here.
    pub ordering_agrees: Option<bool>,
    /// The pairs ordered differently, as "a > b in the paper".
    pub ordering_differences: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct TableReport {
    pub part: Part,
    pub title: String,
    pub protocols: Vec<String>,
    pub rows: Vec<RowReport>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub seeds: u64,
    /// The host profile of every run.
    pub host: String,
    pub tables: Vec<TableReport>,
    pub claims: Vec<Claim>,
}

impl Report {
    /// Mean throughput of a cell, if it was run.
    pub fn mean(&self, part: Part, row: &str, protocol: Protocol) -> Option<f64> {
        self.cell(part, row, protocol)
            .map(|c| c.throughput_mbps.mean)
    }

    pub fn cell(&self, part: Part, row: &str, protocol: Protocol) -> Option<&CellReport> {
        self.tables
            .iter()
            .find(|t| t.part == part)?
            .rows
            .iter()
            .find(|r| r.row == row)?
            .cells
            .iter()
            .find(|c| c.protocol == protocol.name())
    }
}
