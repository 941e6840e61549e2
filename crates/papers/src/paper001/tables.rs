//! Paper 001's Figs. 15-19 and EFR's gain as tables: the report's own, and each other MAC
//! reading's in the readings section.

use super::report::Report;
use crate::document::{Cell, Document, Row, Table};

/// A ratio or share that may have no denominator (no timeout, no loss): `n/a` then.
fn or_na(v: Option<f64>, f: impl Fn(f64) -> String) -> String {
    v.map_or_else(|| "n/a".to_string(), f)
}

/// ` !n` for n failed runs, nothing for none.
fn fails(n: usize) -> String {
    if n == 0 {
        String::new()
    } else {
        format!(" !{n}")
    }
}

/// Figs. 15-19's tables and EFR's gain, those of the parts run.
pub fn tables(d: &mut Document, r: &Report) {
    if !r.retransmissions.is_empty() {
        d.table(retransmissions(r));
    }
    if !r.sizes.is_empty() {
        d.table(sizes(r));
        if !r.gains.is_empty() {
            d.table(gains(r));
        }
    }
}

/// Figs. 15-17 per number of hosts and protocol.
fn retransmissions(r: &Report) -> Table {
    let columns = [
        "hosts",
        "proto",
        "rexmt segs",
        "timeouts",
        "fr",
        "fr<3",
        "fr/to",
        "N_dup(0,1,2,>=3)",
        "loss (coll.)",
        "Mb/s",
    ];
    let mut rows: Vec<Row> = r
        .retransmissions
        .iter()
        .map(|row| {
            let n = row.n_dup_per_host;
            Row::cells([
                row.hosts.to_string(),
                row.protocol.clone(),
                row.retransmitted_segments_per_host.mean_ci(1),
                format!("{:.1}", row.timeouts_per_host.mean),
                format!("{:.1}", row.fast_retransmits_per_host.mean),
                format!("{:.1}", row.early_fast_retransmits_per_host),
                or_na(row.fast_per_timeout, |x| format!("{x:.2}")),
                format!("{:.1} {:.1} {:.1} {:.1}", n[0], n[1], n[2], n[3]),
                format!(
                    "{:.2e} ({})",
                    row.segment_loss_rate,
                    or_na(row.collided_share, |c| format!("{:.0}%", 100.0 * c))
                ),
                format!(
                    "{:.3}{}",
                    row.aggregate_throughput_mbps.mean,
                    fails(row.failures)
                ),
            ])
        })
        .collect();
    rows.push(Row::Note(
        "paper (2 hosts): N_dup(1) 12 -> 8 and N_dup(2) 30 -> 7 with EFR; retransmitted segments \
         about -10% with EFR for 2-4 hosts; one host alone loses 3.0e-4"
            .into(),
    ));
    Table {
        title: Some(
            "Figs. 15-17: 10 MB per host, per host and trial: retransmitted segments (95% \
             interval), timeouts, fast retransmits (fr<3: at a threshold below 3), fast \
             retransmits per timeout, N_dup(0..3), loss per data frame (share from collisions), \
             aggregate Mb/s"
                .into(),
        ),
        columns: columns.map(String::from).to_vec(),
        rows,
    }
}

/// Figs. 18-19: aggregate throughput per transfer size, number of hosts and protocol.
fn sizes(r: &Report) -> Table {
    let rows = r
        .sizes
        .iter()
        .map(|row| {
            let a = row.aggregate_throughput_mbps;
            Row::cells([
                format!("{} MB", row.transfer_bytes >> 20),
                row.hosts.to_string(),
                row.protocol.clone(),
                format!("{:.3} ± {}{}", a.mean, a.ci_text(3), fails(row.failures)),
                format!("{:.3}-{:.3}", a.min, a.max),
                or_na(row.gain_over_reno_pct, |g| format!("{g:+.1}%")),
                format!("{:.3}", row.sum_of_hosts_mbps.mean),
            ])
        })
        .collect();
    Table {
        title: Some(
            "Figs. 18-19: aggregate throughput of all hosts, Mb/s: mean ± 95% interval, range, \
             change from Reno"
                .into(),
        ),
        columns: [
            "per host",
            "hosts",
            "proto",
            "Mb/s",
            "range",
            "vs Reno",
            "sum of hosts",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    }
}

/// EFR's gain over Reno at 8 MB beside the paper's.
fn gains(r: &Report) -> Table {
    let rows = r
        .gains
        .iter()
        .map(|g| {
            Row::Cells(vec![
                g.hosts.to_string().into(),
                format!(
                    "{:+.1}% ± {}",
                    g.gain_pct,
                    or_na(g.gain_ci95_pct, |c| format!("{c:.1}"))
                )
                .into(),
                format!("{:+.1}%", g.paper_pct).into(),
                Cell::miss(
                    if g.within_tolerance {
                        "within 5 points"
                    } else {
                        "MISS"
                    },
                    !g.within_tolerance,
                ),
            ])
        })
        .collect();
    Table {
        title: Some("EFR over Reno, 8 MB per host".into()),
        columns: ["hosts", "ours", "paper", ""].map(String::from).to_vec(),
        rows,
    }
}
