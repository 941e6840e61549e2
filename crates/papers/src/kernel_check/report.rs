//! The kernel check's report: both sides of every point, the claims, and the congestion-window
//! plots, as `reproduce` prints them and the HTML report draws them.

use serde::Serialize;

use super::study::PointRow;
use crate::claim::Claim;
use crate::document::{Chart, Document, Row, Series, SeriesLine, Table};
use crate::study::StudyReport;

/// The kernel check's report (`reproduce --json`'s value under `kernel-check`).
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub kernel: String,
    pub machine: String,
    pub date: String,
    /// The most seeds a point ran in the simulator.
    pub seeds: u64,
    /// The fewest and the most live runs a point of the data file has.
    pub kernel_runs: (usize, usize),
    /// Whether each point ran the kernel's own seeds first (the default), so that both clocks
    /// saw the same channel in those runs.
    pub paired: bool,
    pub points: Vec<PointRow>,
    pub claims: Vec<Claim>,
}

impl StudyReport for Report {
    fn claims(&self) -> &[Claim] {
        &self.claims
    }
    fn document(&self) -> Document {
        document(self)
    }
}

fn document(r: &Report) -> Document {
    let mut d = Document::default();
    d.text(format!(
        "The kernel: Linux {} on {} (measured {}), {} live runs per point with kernel hosts under \
         the live mode's `modern` profile. The simulator: the `linux` host (CUBIC) or \
         `linux-reno`, {} per point. Paper 000's testbed, 64 KB windows, 2 MB transfers, \
         1400-byte segments. Each cell: mean ± the 95% interval; sim/kernel is the ratio of the \
         means. docs/kernel-check.md names what the model lacks where they differ.",
        r.kernel,
        r.machine,
        r.date,
        match r.kernel_runs {
            (a, b) if a == b => a.to_string(),
            (a, b) => format!("{a} to {b}"),
        },
        if r.paired && r.seeds as usize <= r.kernel_runs.0 {
            format!(
                "{} seeds: the kernel's own (a seed gives both clocks the same channel)",
                r.seeds
            )
        } else if r.paired {
            format!(
                "{} seeds: the kernel's own first (a seed gives both clocks the same channel), \
                 then the next ones",
                r.seeds
            )
        } else {
            format!("seeds 1 to {}", r.seeds)
        }
    ));
    let columns = [
        "point",
        "kernel Mb/s",
        "sim Mb/s",
        "sim/kernel",
        "kernel retx",
        "sim retx",
        "kernel RTOs",
        "sim RTOs",
    ]
    .map(String::from)
    .to_vec();
    let rows = r
        .points
        .iter()
        .map(|p| {
            let failed = if p.sim_failures > 0 {
                format!(" !{}", p.sim_failures)
            } else {
                String::new()
            };
            Row::cells([
                p.id.clone(),
                p.kernel_throughput_mbps.mean_ci(3),
                format!("{}{failed}", p.sim_throughput_mbps.mean_ci(3)),
                format!("{:.2}", 1.0 + p.throughput_error()),
                p.kernel_retransmitted.mean_ci(0),
                p.sim_retransmitted.mean_ci(0),
                p.kernel_timeouts.mean_ci(1),
                p.sim_timeouts.mean_ci(1),
            ])
        })
        .collect();
    d.table(Table {
        title: None,
        columns,
        rows,
    });
    d.claims(&r.claims);
    d.text(
        "The sender's congestion window over one run of each point: the kernel's first run \
         (TCP_INFO every 10 ms) and the model's run of the same seed (its trace). The seed gives \
         both the same channel, but once the two senders' timing parts the errors fall on other \
         segments, so the curves agree in shape, not loss by loss.",
    );
    for p in &r.points {
        if p.kernel_cwnd.is_empty() && p.sim_cwnd.is_empty() {
            continue;
        }
        let line = |name: &str, points: &[(f64, f64)]| SeriesLine {
            name: name.into(),
            points: points.to_vec(),
        };
        d.chart(
            Chart::Series(Series {
                title: format!("{}: congestion window", p.id),
                x_desc: "time (s)".into(),
                y_desc: "cwnd (KB)".into(),
                lines: vec![
                    line("kernel (first run)", &p.kernel_cwnd),
                    line("model (seed 1)", &p.sim_cwnd),
                ],
            }),
            format!("cwnd-{}", p.id),
            format!(
                "{}: the sender's congestion window, the kernel's and the model's",
                p.id
            ),
        );
    }
    d
}
