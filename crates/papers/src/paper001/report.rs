//! Paper 001's figures from the runs: Figs. 15-17 per (hosts, protocol), the loss per segment,
//! and Figs. 18-19 per (size, hosts, protocol), with EFR's gains over Reno.

use serde::Serialize;

use super::readings::Mac;
use super::{check_claims, paper, Experiment, Part};
use crate::Claim;
use snooplab_sim::metrics::RunResult;
use snooplab_sim::stats::{summarize, Summary};
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
    /// Within [`paper::GAIN_TOLERANCE_POINTS`] of the paper's.
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

/// Mean over trials of a per-host quantity: each trial's total divided by its hosts.
fn per_host(
    runs: &[RunResult],
    hosts: usize,
    f: impl Fn(&snooplab_sim::metrics::FlowResult) -> u64,
) -> Summary {
    let v: Vec<f64> = runs
        .iter()
        .map(|r| r.flows.iter().map(&f).sum::<u64>() as f64 / hosts.max(1) as f64)
        .collect();
    summarize(&v)
}

fn failures(runs: &[RunResult]) -> usize {
    runs.iter().filter(|r| !r.invariants.ok()).count()
}

fn protocol_row(e: &Experiment, runs: &[RunResult]) -> ProtocolRow {
    let trials = runs.len().max(1) as f64 * e.hosts.max(1) as f64;
    let flows = || runs.iter().flat_map(|r| &r.flows);
    let timeouts: u64 = flows().map(|f| f.timeouts).sum();
    let fast: u64 = flows().map(|f| f.fast_retransmits).sum();
    let mut n_dup = [0.0; 4];
    for f in flows() {
        for (i, n) in f.timeouts_after_dupacks.iter().enumerate() {
            n_dup[i] += *n as f64 / trials;
        }
    }
    let frames: u64 = flows().map(|f| f.wireless_data_frames).sum();
    let lost: u64 = flows().map(|f| f.wireless_data_frames_lost).sum();
    let collided: u64 = flows().map(|f| f.wireless_data_frames_collided).sum();
    ProtocolRow {
        hosts: e.hosts,
        protocol: e.protocol.name().to_string(),
        retransmitted_segments_per_host: per_host(runs, e.hosts, |f| {
            f.sender_retransmitted_segments
        }),
        timeouts_per_host: per_host(runs, e.hosts, |f| f.timeouts),
        fast_retransmits_per_host: per_host(runs, e.hosts, |f| f.fast_retransmits),
        fast_per_timeout: (timeouts > 0).then(|| fast as f64 / timeouts as f64),
        n_dup_per_host: n_dup,
        early_fast_retransmits_per_host: flows()
            .map(|f| f.fast_retransmits_below_three)
            .sum::<u64>() as f64
            / trials,
        segment_loss_rate: if frames > 0 {
            lost as f64 / frames as f64
        } else {
            0.0
        },
        collided_share: (lost > 0).then(|| collided as f64 / lost as f64),
        aggregate_throughput_mbps: summarize(
            &runs
                .iter()
                .map(|r| r.aggregate.throughput_mbps)
                .collect::<Vec<_>>(),
        ),
        failures: failures(runs),
    }
}

fn size_row(e: &Experiment, runs: &[RunResult]) -> SizeRow {
    SizeRow {
        transfer_bytes: e.transfer,
        hosts: e.hosts,
        protocol: e.protocol.name().to_string(),
        aggregate_throughput_mbps: summarize(
            &runs
                .iter()
                .map(|r| r.aggregate.throughput_mbps)
                .collect::<Vec<_>>(),
        ),
        sum_of_hosts_mbps: summarize(
            &runs
                .iter()
                .map(|r| r.flows.iter().map(|f| f.throughput_mbps).sum::<f64>())
                .collect::<Vec<_>>(),
        ),
        gain_over_reno_pct: None,
        failures: failures(runs),
    }
}

/// The report of the runs `per[i]` of `exps[i]` (one result per seed): under the default MAC
/// reading, with the same report under each other reading planned.
pub fn evaluate(parts: &[Part], exps: &[Experiment], per: &[Vec<RunResult>], seeds: u64) -> Report {
    let mut report = evaluate_under(Mac::Isa82586, parts, exps, per, seeds);
    report.readings = Mac::ALL[1..]
        .iter()
        .filter(|&&mac| exps.iter().any(|e| e.mac == mac))
        .map(|&mac| MacRun {
            mac: mac.name(),
            report: evaluate_under(mac, parts, exps, per, seeds),
        })
        .collect();
    report
}

/// The report of the runs made under one MAC reading.
fn evaluate_under(
    mac: Mac,
    parts: &[Part],
    exps: &[Experiment],
    per: &[Vec<RunResult>],
    seeds: u64,
) -> Report {
    let mut retransmissions = vec![];
    let mut sizes: Vec<SizeRow> = vec![];
    for (e, runs) in exps.iter().zip(per).filter(|(e, _)| e.mac == mac) {
        match e.part {
            Part::Retransmissions => retransmissions.push(protocol_row(e, runs)),
            Part::Throughput => sizes.push(size_row(e, runs)),
        }
    }
    let reno: Vec<(u64, usize, f64)> = sizes
        .iter()
        .filter(|r| r.protocol == Protocol::E2e.name())
        .map(|r| (r.transfer_bytes, r.hosts, r.aggregate_throughput_mbps.mean))
        .collect();
    for r in &mut sizes {
        if let Some(&(_, _, base)) = reno
            .iter()
            .find(|(t, h, _)| *t == r.transfer_bytes && *h == r.hosts)
        {
            if base > 0.0 {
                r.gain_over_reno_pct =
                    Some(100.0 * (r.aggregate_throughput_mbps.mean / base - 1.0));
            }
        }
    }
    let loss = retransmissions
        .iter()
        .filter(|r| r.protocol == Protocol::E2e.name())
        .map(|r| LossRow {
            hosts: r.hosts,
            segment_loss_rate: r.segment_loss_rate,
            collided_share: r.collided_share,
            paper: (r.hosts == 1).then_some(paper::SEGMENT_LOSS_ALONE),
        })
        .collect();
    let mut report = Report {
        seeds,
        retransmissions,
        loss,
        sizes,
        gains: vec![],
        claims: vec![],
        readings: vec![],
    };
    for (hosts, paper_pct) in paper::EFR_GAIN_8MB {
        let (Some(r), Some(f)) = (
            report.size_row(8 << 20, hosts, Protocol::E2e),
            report.size_row(8 << 20, hosts, Protocol::Efr),
        ) else {
            continue;
        };
        let (a, b) = (r.aggregate_throughput_mbps, f.aggregate_throughput_mbps);
        if a.mean <= 0.0 || b.mean <= 0.0 {
            continue;
        }
        let ratio = b.mean / a.mean;
        let rel = a
            .ci95
            .zip(b.ci95)
            .map(|(x, y)| ((x / a.mean).powi(2) + (y / b.mean).powi(2)).sqrt());
        let gain_pct = 100.0 * (ratio - 1.0);
        report.gains.push(GainReport {
            hosts,
            transfer_bytes: 8 << 20,
            reno_mbps: a,
            efr_mbps: b,
            gain_pct,
            gain_ci95_pct: rel.map(|r| 100.0 * ratio * r),
            paper_pct,
            within_tolerance: (gain_pct - paper_pct).abs() <= paper::GAIN_TOLERANCE_POINTS,
        });
    }
    report.claims = check_claims(parts, &report);
    report
}
