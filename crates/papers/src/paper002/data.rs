//! Paper 002 itself: who it is for `reproduce`, and the numbers it gives, transcribed into
//! `data/paper-results.toml`.

use serde::{Deserialize, Serialize};

use super::testbed;
use crate::paper_results::PAPER_RESULTS;
use crate::study::About;

/// Who paper 002 is for `reproduce`: Fig. 7 "was repeated ten times at each error rate", the
/// testbed's hosts ([`testbed::HOST`]).
pub const ABOUT: About = About {
    name: "paper002",
    citation: "Balakrishnan, Seshan and Katz, \"Improving Reliable Transport and Handoff \
               Performance in Cellular Wireless Networks\" (1995)",
    default_seeds: 10,
    default_host: testbed::HOST,
    parts: "table1, fig7, fig10, fig11, baselines, crash",
};

#[derive(Debug, Deserialize)]
struct Raw {
    paper002: Raw002,
}

#[derive(Debug, Deserialize)]
struct Raw002 {
    peak_throughput_mbps: f64,
    peak_with_beacons_mbps: f64,
    #[serde(rename = "snoop_vs_tcp_at_3_9e-6")]
    snoop_vs_tcp: [f64; 2],
    table1: RawTable1,
}

#[derive(Debug, Deserialize)]
struct RawTable1 {
    seconds_between_handoffs: Vec<f64>,
    throughput_mbps: Vec<f64>,
    stddev_mbps: Vec<f64>,
}

/// The paper's numbers.
#[derive(Clone, Debug, Serialize)]
pub struct Paper002Data {
    pub peak_mbps: f64,
    pub peak_with_beacons_mbps: f64,
    /// Fig. 8's run at one error per 256 Kbits: snoop, Reno (Mb/s).
    pub fig8_snoop_reno_mbps: [f64; 2],
    /// Table 1: seconds between handoffs (infinite: none), throughput and its deviation.
    pub table1: Vec<(f64, f64, f64)>,
}

impl Paper002Data {
    pub fn load() -> Result<Paper002Data, String> {
        let raw: Raw = toml::from_str(PAPER_RESULTS)
            .map_err(|e| format!("data/paper-results.toml: {}", e.message()))?;
        let t = raw.paper002.table1;
        Ok(Paper002Data {
            peak_mbps: raw.paper002.peak_throughput_mbps,
            peak_with_beacons_mbps: raw.paper002.peak_with_beacons_mbps,
            fig8_snoop_reno_mbps: raw.paper002.snoop_vs_tcp,
            table1: t
                .seconds_between_handoffs
                .iter()
                .zip(&t.throughput_mbps)
                .zip(&t.stddev_mbps)
                .map(|((&s, &m), &d)| (s, m, d))
                .collect(),
        })
    }
}
