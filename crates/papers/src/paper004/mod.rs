//! Paper 004 (Balakrishnan and Katz 1998, "Explicit Loss Notification and Wireless Web
//! Performance"), section 3.4, Fig. 2: a mobile host sends to a fixed host across one WaveLAN hop
//! and 16 Internet hops, with exponentially distributed bit errors from one every 8 KB to one every
//! 512 KB; TCP Reno against Reno with ELN from the base station (`bs-eln`), and the NACK scheme of
//! section 3.1 (`bs-nack`) beside them. The paper gives the figure, not its numbers: what is checked
//! is its two statements, as ratios of our means with 95% intervals.

mod document;
pub mod plan;
pub use document::Reproduction;
pub use plan::{Plan004, Run004};

use crate::study::About;
use serde::{Deserialize, Serialize};
use snooplab_proto::tcp::HostPreset;

use crate::{Claim, PAPER_RESULTS};
use snooplab_sim::metrics::RunResult;
use snooplab_sim::scenario::{Direction, Env, Scenario};
use snooplab_sim::stats::{summarize, Summary};
use snooplab_sim::Protocol;

/// Who paper 004 is for `reproduce`: Fig. 2 does not say how many trials (10, as paper 000's);
/// it names no hosts and ran at the same lab a year after paper 000, on the same kind of hosts as
/// far as we can tell (BSD/OS 2.1).
pub const ABOUT: About = About {
    name: "paper004",
    citation: "Balakrishnan and Katz, \"Explicit Loss Notification and Wireless Web \
               Performance\" (1998)",
    default_seeds: 10,
    default_host: HostPreset::Bsdos21,
};

/// The protocols of Fig. 2, in its order, and the NACK scheme after them.
pub const PROTOCOLS: [Protocol; 3] = [Protocol::E2e, Protocol::BsEln, Protocol::BsNack];

/// "Roughly a factor of 2" holds for a ratio in this range (our reading of "roughly": 2 +- 20%).
pub const ABOUT_TWO: (f64, f64) = (1.6, 2.4);
/// "Not as pronounced" at low error rates: ELN within 10% of Reno.
pub const CLOSE: f64 = 0.10;

#[derive(Debug, Deserialize)]
struct Raw {
    paper004: Raw004,
}

#[derive(Debug, Deserialize)]
struct Raw004 {
    eln_rexmt_thresh: u32,
    congestion_queue_threshold: f64,
    fig2_mean_kbytes_between_errors: Vec<u64>,
}

/// What the paper states as numbers: the x axis of Fig. 2 and the ELN constants.
#[derive(Clone, Debug, Serialize)]
pub struct Paper004 {
    pub kbytes_between_errors: Vec<u64>,
    pub eln_rexmt_thresh: u32,
    pub congestion_queue_threshold: f64,
}

impl Paper004 {
    pub fn load() -> Result<Paper004, String> {
        let raw: Raw = toml::from_str(PAPER_RESULTS)
            .map_err(|e| format!("data/paper-results.toml: {}", e.message()))?;
        Ok(Paper004 {
            kbytes_between_errors: raw.paper004.fig2_mean_kbytes_between_errors,
            eln_rexmt_thresh: raw.paper004.eln_rexmt_thresh,
            congestion_queue_threshold: raw.paper004.congestion_queue_threshold,
        })
    }
}

/// The scenario of one point of Fig. 2: paper 000's WAN testbed (the same "one wireless WaveLAN
/// hop and 16 Internet hops"), the mobile host sending 8 MB with 32 KB buffers, bit errors every
/// `kbytes` KB in both directions.
pub fn scenario(protocol: Protocol, kbytes: u64, seed: u64) -> Scenario {
    let mut sc = Scenario::paper000(protocol, Env::Wan, 32768, seed);
    sc.direction = Direction::Up;
    sc.error_every = kbytes * 1024;
    sc.set_host(ABOUT.default_host);
    sc
}

/// Every run of Fig. 2 in a fixed order: error rate, then protocol, then seed.
pub fn jobs(paper: &Paper004, seeds: u64) -> Vec<Scenario> {
    let mut out = vec![];
    for &kb in &paper.kbytes_between_errors {
        for p in PROTOCOLS {
            for s in 1..=seeds {
                out.push(scenario(p, kb, s));
            }
        }
    }
    out
}

/// One error rate of Fig. 2.
#[derive(Clone, Debug, Serialize)]
pub struct Point {
    pub kbytes_between_errors: u64,
    /// Throughput of each protocol of [`PROTOCOLS`], Mb/s.
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

/// The report from the runs of [`jobs`], in its order.
pub fn evaluate(paper: &Paper004, seeds: u64, runs: &[RunResult]) -> Report004 {
    let per = seeds as usize;
    let mut points = vec![];
    for (i, &kb) in paper.kbytes_between_errors.iter().enumerate() {
        let base = i * PROTOCOLS.len() * per;
        let of = |p: usize| {
            &runs[(base + p * per).min(runs.len())..(base + (p + 1) * per).min(runs.len())]
        };
        let col = |p: usize, f: &dyn Fn(&RunResult) -> f64| {
            summarize(&of(p).iter().map(f).collect::<Vec<_>>())
        };
        let ratio = |p: usize| {
            let v: Vec<f64> = of(p)
                .iter()
                .zip(of(0))
                .filter(|(_, r)| r.flow().throughput_mbps > 0.0)
                .map(|(a, r)| a.flow().throughput_mbps / r.flow().throughput_mbps)
                .collect();
            summarize(&v)
        };
        points.push(Point {
            kbytes_between_errors: kb,
            throughput_mbps: (0..PROTOCOLS.len())
                .map(|p| col(p, &|r| r.flow().throughput_mbps))
                .collect(),
            timeouts: (0..PROTOCOLS.len())
                .map(|p| col(p, &|r| r.flow().timeouts as f64))
                .collect(),
            eln_over_reno: ratio(1),
            nack_over_reno: ratio(2),
            failures: (0..PROTOCOLS.len())
                .map(|p| {
                    of(p)
                        .iter()
                        .filter(|r| !r.invariants.ok() || !r.invariants.complete)
                        .count()
                })
                .collect(),
        });
    }
    let claims = claims(&points);
    Report004 {
        seeds,
        host: runs
            .first()
            .map_or_else(String::new, |r| r.flow().host.clone()),
        protocols: PROTOCOLS.iter().map(|p| p.name().to_string()).collect(),
        points,
        claims,
    }
}

fn ratio_text(p: &Point) -> String {
    format!(
        "{} KB {}",
        p.kbytes_between_errors,
        p.eln_over_reno.mean_ci(2)
    )
}

/// Section 3.4's two statements, checked on the measured ratios.
fn claims(points: &[Point]) -> Vec<Claim> {
    let high: Vec<&Point> = points
        .iter()
        .filter(|p| p.kbytes_between_errors <= 32)
        .collect();
    let low: Vec<&Point> = points
        .iter()
        .filter(|p| p.kbytes_between_errors >= 256)
        .collect();
    let in_range = |p: &&Point| (ABOUT_TWO.0..=ABOUT_TWO.1).contains(&p.eln_over_reno.mean);
    let close = |p: &&Point| (p.eln_over_reno.mean - 1.0).abs() <= CLOSE;
    vec![
        Claim {
            id: "eln_doubles_at_high_error_rates",
            paper:
                "at medium to high error rates (one error every 8-32 KB) the improvement due to \
                    ELN is roughly a factor of 2 (section 3.4)",
            measured: format!(
                "Reno+ELN / Reno: {} (holds if each is within {:.1}-{:.1})",
                high.iter()
                    .map(|p| ratio_text(p))
                    .collect::<Vec<_>>()
                    .join(", "),
                ABOUT_TWO.0,
                ABOUT_TWO.1
            ),
            holds: (!high.is_empty()).then(|| high.iter().all(in_range)),
        },
        Claim {
            id: "eln_close_to_reno_at_low_error_rates",
            paper: "at lower error rates TCP Reno performs quite well and the benefits of ELN are \
                    not as pronounced (section 3.4)",
            measured: format!(
                "Reno+ELN / Reno: {} (holds if each is within {:.0}% of 1)",
                low.iter()
                    .map(|p| ratio_text(p))
                    .collect::<Vec<_>>()
                    .join(", "),
                100.0 * CLOSE
            ),
            holds: (!low.is_empty()).then(|| low.iter().all(close)),
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_paper_data_gives_fig2s_axis_and_the_constants() {
        let p = Paper004::load().expect("paper data");
        assert_eq!(p.kbytes_between_errors, [8, 16, 32, 64, 128, 256, 512]);
        assert_eq!(p.eln_rexmt_thresh, 2);
        assert!((p.congestion_queue_threshold - 0.75).abs() < 1e-9);
        let j = jobs(&p, 2);
        assert_eq!(j.len(), 7 * 3 * 2);
        assert_eq!(j[0].direction, Direction::Up);
        assert_eq!(j[0].error_every, 8 * 1024);
        assert_eq!(j[2].protocol, Protocol::BsEln);
        assert_eq!(j[2].seed, 1);
        // the mechanisms run with the paper's constants
        let eln = Protocol::BsEln.sender_policy().eln.map(|e| e.rexmt_thresh);
        assert_eq!(eln, Some(p.eln_rexmt_thresh));
        let q = snooplab_proto::agent::ElnConfig::paper004().queue_threshold;
        assert!((q - p.congestion_queue_threshold).abs() < 1e-9);
        assert!(
            (snooplab_sim::network::InputQueue::default().congestion_fraction - q).abs() < 1e-9
        );
    }
}
