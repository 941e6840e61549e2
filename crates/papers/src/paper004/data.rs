//! Paper 004 itself: who it is for `reproduce`, and the numbers it states (Fig. 2's axis and the
//! ELN constants), transcribed into `data/paper-results.toml`.

use serde::{Deserialize, Serialize};
use snooplab_proto::tcp::HostPreset;

use crate::paper_results::PAPER_RESULTS;
use crate::study::About;

/// Who paper 004 is for `reproduce`: Fig. 2 does not say how many trials (10, as paper 000's);
/// it names no hosts and ran at the same lab a year after paper 000, on the same kind of hosts as
/// far as we can tell (BSD/OS 2.1).
pub const ABOUT: About = About {
    name: "paper004",
    citation: "Balakrishnan and Katz, \"Explicit Loss Notification and Wireless Web \
               Performance\" (1998)",
    default_seeds: 10,
    default_host: HostPreset::Bsdos21,
    parts: "fig2",
};

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
