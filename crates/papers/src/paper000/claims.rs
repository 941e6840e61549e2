//! The paper's claims (paper 000 sections IV-B to IV-F), each checked as a measured ratio.

use super::experiments::Part;
use super::report::Report;
use crate::claim::Claim;
use snooplab_sim::Protocol;

fn ratio(r: &Report, part: Part, row: &str, a: Protocol, b: Protocol) -> Option<f64> {
    Some(r.mean(part, row, a)? / r.mean(part, row, b)?)
}

/// The claims, in the paper's order.
pub fn check_claims(r: &Report) -> Vec<Claim> {
    let mut out = vec![
        ll_tcp_aware_over_ll(r),
        ll_double_retransmissions(r),
        e2e_fraction_of_max(r),
        newreno_over_e2e(r),
        eln_over_e2e(r),
    ];
    fig12(r, &mut out);
    out
}

/// LL-TCP-AWARE over LL.
fn ll_tcp_aware_over_ll(r: &Report) -> Claim {
    let lan = ratio(
        r,
        Part::Table2,
        "lan-32k",
        Protocol::LlTcpAware,
        Protocol::Ll,
    );
    let wan = ratio(
        r,
        Part::Table2,
        "wan-32k",
        Protocol::LlTcpAware,
        Protocol::Ll,
    );
    Claim {
        id: "ll_tcp_aware_over_ll",
        paper: "LL-TCP-AWARE is about 10% faster than LL in the LAN and about 30% in the WAN",
        measured: format!("LAN-32k {}, WAN-32k {}", fmt_ratio(lan), fmt_ratio(wan)),
        holds: match (lan, wan) {
            (Some(l), Some(w)) => Some((1.05..=1.20).contains(&l) && (1.15..=1.50).contains(&w)),
            _ => None,
        },
    }
}

/// LL: losses retransmitted by both.
fn ll_double_retransmissions(r: &Report) -> Claim {
    let share = r
        .cell(Part::Table2, "lan-32k", Protocol::Ll)
        .map(|c| c.double_share);
    Claim {
        id: "ll_double_retransmissions",
        paper: "with LL, about 90% of the lost packets are retransmitted by both the source and the base station",
        measured: match share {
            Some(s) => format!("LAN-32k: {:.0}% (sender retransmissions / corrupted data frames)", 100.0 * s),
            None => "not run".into(),
        },
        holds: share.map(|s| (0.75..=1.0).contains(&s)),
    }
}

/// E2E fraction of the maximum.
fn e2e_fraction_of_max(r: &Report) -> Claim {
    let lan = r
        .mean(Part::Table3, "lan-32k", Protocol::E2e)
        .map(|t| t / 1.50);
    let wan = r
        .mean(Part::Table3, "wan-32k", Protocol::E2e)
        .map(|t| t / 1.35);
    Claim {
        id: "e2e_fraction_of_max",
        paper: "E2E reaches less than 50% of the error-free maximum in the LAN and less than 25% in the WAN",
        measured: format!(
            "LAN-32k {}, WAN-32k {} of the maximum",
            fmt_pct(lan),
            fmt_pct(wan)
        ),
        holds: match (lan, wan) {
            (Some(l), Some(w)) => Some(l < 0.5 && w < 0.25),
            _ => None,
        },
    }
}

/// NewReno over E2E.
fn newreno_over_e2e(r: &Report) -> Claim {
    let l8 = ratio(
        r,
        Part::Table3,
        "lan-8k",
        Protocol::E2eNewReno,
        Protocol::E2e,
    );
    let l32 = ratio(
        r,
        Part::Table3,
        "lan-32k",
        Protocol::E2eNewReno,
        Protocol::E2e,
    );
    let w = ratio(
        r,
        Part::Table3,
        "wan-32k",
        Protocol::E2eNewReno,
        Protocol::E2e,
    );
    Claim {
        id: "newreno_over_e2e",
        paper: "E2E-NEWRENO is 10-25% better than E2E in the LAN and about 2x in the WAN",
        measured: format!(
            "LAN-8k {}, LAN-32k {}, WAN-32k {}",
            fmt_ratio(l8),
            fmt_ratio(l32),
            fmt_ratio(w)
        ),
        holds: match (l8, l32, w) {
            (Some(a), Some(b), Some(c)) => Some(
                (1.05..=1.35).contains(&a)
                    && (1.05..=1.35).contains(&b)
                    && (1.6..=2.5).contains(&c),
            ),
            _ => None,
        },
    }
}

/// ELN over E2E.
fn eln_over_e2e(r: &Report) -> Claim {
    let rows = ["lan-8k", "lan-32k", "wan-32k"];
    let rs: Vec<Option<f64>> = rows
        .iter()
        .map(|row| ratio(r, Part::Table3, row, Protocol::E2eEln, Protocol::E2e))
        .collect();
    Claim {
        id: "eln_over_e2e",
        paper: "E2E-ELN and E2E-ELN-RXMT are more than 2x better than E2E",
        measured: format!(
            "E2E-ELN / E2E: LAN-8k {}, LAN-32k {}, WAN-32k {}",
            fmt_ratio(rs[0]),
            fmt_ratio(rs[1]),
            fmt_ratio(rs[2])
        ),
        holds: if rs.iter().all(Option::is_some) {
            Some(rs.iter().flatten().all(|x| *x > 2.0))
        } else {
            None
        },
    }
}

/// Fig. 12 at 16 KB, the weaker schemes there, and the spread at low error rates.
fn fig12(r: &Report, claims: &mut Vec<Claim>) {
    let f = Part::Fig12;
    let row = "1/16k";
    let aware = [Protocol::LlTcpAware, Protocol::LlSmartTcpAware];
    let over_smart: Vec<Option<f64>> = aware
        .iter()
        .map(|p| ratio(r, f, row, *p, Protocol::E2eSmart))
        .collect();
    let over_e2e: Vec<Option<f64>> = aware
        .iter()
        .map(|p| ratio(r, f, row, *p, Protocol::E2e))
        .collect();
    claims.push(Claim {
        id: "fig12_16k",
        paper: "at 1 error / 16 KB the TCP-aware link-layer schemes are 1.75-2x E2E-SMART and about 9x E2E",
        measured: format!(
            "LL-TCP-AWARE {} and LL-SMART-TCP-AWARE {} of E2E-SMART; {} and {} of E2E",
            fmt_ratio(over_smart[0]),
            fmt_ratio(over_smart[1]),
            fmt_ratio(over_e2e[0]),
            fmt_ratio(over_e2e[1])
        ),
        holds: if over_smart.iter().chain(&over_e2e).all(Option::is_some) {
            Some(
                over_smart.iter().flatten().all(|x| (1.5..=2.3).contains(x))
                    && over_e2e.iter().flatten().all(|x| (6.0..=12.0).contains(x)),
            )
        } else {
            None
        },
    });
    let sack_vs_smart = ratio(r, f, row, Protocol::E2eIetfSack, Protocol::E2eSmart);
    claims.push(Claim {
        id: "fig12_sack_behind_smart",
        paper: "at high error rates E2E-IETF-SACK falls behind E2E-SMART (windows too small for 3 duplicate ACKs)",
        measured: format!("at 1/16k E2E-IETF-SACK is {} of E2E-SMART", fmt_ratio(sack_vs_smart)),
        holds: sack_vs_smart.map(|x| x < 0.95),
    });
    let spread = |row: &str| -> Option<f64> {
        let v: Option<Vec<f64>> = Part::Fig12
            .protocols()
            .iter()
            .map(|p| r.mean(f, row, *p))
            .collect();
        let v = v?;
        let max = v.iter().copied().fold(f64::MIN, f64::max);
        let min = v.iter().copied().fold(f64::MAX, f64::min);
        Some(max / min)
    };
    let (s128, s256) = (spread("1/128k"), spread("1/256k"));
    claims.push(Claim {
        id: "fig12_low_error_rates",
        paper: "at 1 error / 128 KB and 256 KB all six protocols perform almost equally well",
        measured: format!(
            "fastest / slowest: {} at 1/128k, {} at 1/256k",
            fmt_ratio(s128),
            fmt_ratio(s256)
        ),
        holds: match (s128, s256) {
            (Some(a), Some(b)) => Some(a < 1.5 && b < 1.3),
            _ => None,
        },
    });
}

fn fmt_ratio(x: Option<f64>) -> String {
    x.map_or("n/a".into(), |v| format!("{v:.2}x"))
}

fn fmt_pct(x: Option<f64>) -> String {
    x.map_or("n/a".into(), |v| format!("{:.0}%", 100.0 * v))
}
