//! Paper 001's report from its runs: Figs. 15-17 per (hosts, protocol), the loss per segment,
//! and Figs. 18-19 per (size, hosts, protocol), with EFR's gains over Reno, under each MAC
//! reading; and the claims those rows support.

use super::claims::check_claims;
use super::data;
use super::experiments::{Experiment, Part};
use super::readings::Mac;
use super::report::{GainReport, LossRow, MacRun, ProtocolRow, Report, SizeRow};
use snooplab_sim::metrics::RunResult;
use snooplab_sim::stats::{summarize, Summary};
use snooplab_sim::Protocol;

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
            paper: (r.hosts == 1).then_some(data::SEGMENT_LOSS_ALONE),
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
    for (hosts, paper_pct) in data::EFR_GAIN_8MB {
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
            within_tolerance: (gain_pct - paper_pct).abs() <= data::GAIN_TOLERANCE_POINTS,
        });
    }
    report.claims = check_claims(parts, &report);
    report
}
