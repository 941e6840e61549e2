//! Paper 001's claims (`data/paper-results.toml`, [paper001]) checked against the report, and the
//! question the issue adds: which of EFR, Limited Transmit and Early Retransmit wins.

use super::data;
use super::experiments::{Part, HOSTS, PROTOCOLS};
use super::report::Report;
use crate::claim::Claim;
use snooplab_sim::Protocol;

/// A single host's loss counts as "about 3e-4" within this factor either way.
const LOSS_FACTOR: f64 = 2.0;

/// The claims of the parts that ran.
pub fn check_claims(parts: &[Part], r: &Report) -> Vec<Claim> {
    let mut out = vec![];
    if parts.contains(&Part::Throughput) {
        out.extend([efr_gain(r), best_of_three(r)]);
    }
    if parts.contains(&Part::Retransmissions) {
        out.push(retransmissions_fall(r));
        out.extend(ndup_2_hosts(r));
        out.push(loss_per_segment(r));
    }
    out
}

/// EFR's gain over Reno at 8 MB against the paper's.
fn efr_gain(r: &Report) -> Claim {
    let text: Vec<String> = r
        .gains
        .iter()
        .map(|g| {
            format!(
                "{} hosts: {:+.1}% ± {} (Reno {:.3}, EFR {:.3} Mb/s; paper {:+.1}%)",
                g.hosts,
                g.gain_pct,
                g.gain_ci95_pct
                    .map_or_else(|| "n/a".to_string(), |c| format!("{c:.1}")),
                g.reno_mbps.mean,
                g.efr_mbps.mean,
                g.paper_pct
            )
        })
        .collect();
    Claim {
        id: "efr-gain-8mb",
        paper: "with 3 and 4 mobile senders and 8 MB transfers, EFR throughput is 14.4% and \
                12.2% above TCP Reno (ours within 5 points of each)",
        measured: text.join("; "),
        holds: (r.gains.len() == data::EFR_GAIN_8MB.len())
            .then(|| r.gains.iter().all(|g| g.within_tolerance)),
    }
}

/// The question the issue adds: which recovery gives the most throughput at 8 MB.
fn best_of_three(r: &Report) -> Claim {
    let best: Vec<String> = HOSTS
        .iter()
        .filter_map(|&h| {
            let rows: Vec<_> = PROTOCOLS
                .iter()
                .filter_map(|&p| r.size_row(8 << 20, h, p))
                .collect();
            let top = rows.iter().max_by(|a, b| {
                a.aggregate_throughput_mbps
                    .mean
                    .total_cmp(&b.aggregate_throughput_mbps.mean)
            })?;
            Some(format!(
                "{h} hosts: {} {:.3} Mb/s ({} over Reno)",
                top.protocol,
                top.aggregate_throughput_mbps.mean,
                top.gain_over_reno_pct
                    .map_or_else(|| "n/a".to_string(), |g| format!("{g:+.1}%"))
            ))
        })
        .collect();
    Claim {
        id: "best-of-three",
        paper: "(issue 15) which of EFR, Limited Transmit and Early Retransmit gives the most \
                aggregate throughput with 8 MB transfers",
        measured: best.join("; "),
        holds: None,
    }
}

/// Retransmitted segments per host, Reno against EFR.
fn retransmissions_fall(r: &Report) -> Claim {
    let mut falls = vec![];
    let mut all = true;
    for h in HOSTS {
        if let (Some(a), Some(b)) = (r.row(h, Protocol::E2e), r.row(h, Protocol::Efr)) {
            let (x, y) = (
                a.retransmitted_segments_per_host.mean,
                b.retransmitted_segments_per_host.mean,
            );
            let change = if x > 0.0 { 100.0 * (y / x - 1.0) } else { 0.0 };
            all &= y < x;
            falls.push(format!("{h} hosts: {x:.1} -> {y:.1} ({change:+.1}%)"));
        }
    }
    Claim {
        id: "retransmissions-fall",
        paper: "retransmitted segments fall by about 10% with EFR, for 2 to 4 hosts",
        measured: format!("per host, Reno -> EFR: {}", falls.join("; ")),
        holds: (!falls.is_empty()).then_some(all),
    }
}

/// Two hosts: timeouts after one and two duplicate ACKs, Reno against EFR.
fn ndup_2_hosts(r: &Report) -> Option<Claim> {
    let (Some(a), Some(b)) = (r.row(2, Protocol::E2e), r.row(2, Protocol::Efr)) else {
        return None;
    };
    let text: Vec<String> = data::NDUP_2_HOSTS
        .iter()
        .map(|&(i, pr, pe)| {
            format!(
                "N_dup({i}) {:.2} -> {:.2} per host, {:.2} -> {:.2} both hosts \
                     (paper {pr:.0} -> {pe:.0})",
                a.n_dup_per_host[i],
                b.n_dup_per_host[i],
                2.0 * a.n_dup_per_host[i],
                2.0 * b.n_dup_per_host[i]
            )
        })
        .collect();
    let holds = data::NDUP_2_HOSTS
        .iter()
        .all(|&(i, _, _)| b.n_dup_per_host[i] < a.n_dup_per_host[i]);
    Some(Claim {
        id: "ndup-2-hosts",
        paper: "with 2 hosts, timeouts after 1 duplicate ACK fall from 12 to 8 and after 2 \
                    duplicate ACKs from 30 to 7",
        measured: text.join("; "),
        holds: Some(holds),
    })
}

/// A single host's loss per segment, and its growth with the number of hosts.
fn loss_per_segment(r: &Report) -> Claim {
    let rates: Vec<String> = r
        .loss
        .iter()
        .map(|l| {
            format!(
                "{} host{}: {:.2e} ({} collisions)",
                l.hosts,
                if l.hosts == 1 { "" } else { "s" },
                l.segment_loss_rate,
                l.collided_share
                    .map_or_else(|| "n/a".to_string(), |c| format!("{:.0}%", 100.0 * c))
            )
        })
        .collect();
    let alone = r.loss.iter().find(|l| l.hosts == 1);
    let grows = r
        .loss
        .windows(2)
        .all(|w| w[1].segment_loss_rate > w[0].segment_loss_rate);
    Claim {
        id: "loss-per-segment",
        paper: "a single host alone loses about 3.0e-4 of its segments (section 4.1), and the \
                loss per segment grows with the number of hosts (issue 15)",
        measured: format!("Reno: {}", rates.join("; ")),
        holds: alone.map(|a| {
            let ok = a.segment_loss_rate >= data::SEGMENT_LOSS_ALONE / LOSS_FACTOR
                && a.segment_loss_rate <= data::SEGMENT_LOSS_ALONE * LOSS_FACTOR;
            ok && grows
        }),
    }
}
