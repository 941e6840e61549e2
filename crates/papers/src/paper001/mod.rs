//! Paper 001's experiments (Tamura, Tobe and Tokuda 1998, section 6, Figs. 15-19): 2 to 4 mobile
//! senders on one WaveLAN cell (`crates/papers/src/paper001/testbed.rs`), TCP Reno against EFR, and beside them the
//! two later standard answers to the same problem, Limited Transmit (RFC 3042) and Early
//! Retransmit (RFC 5827). One host alone runs too, for the paper's single-host loss rate.

mod claims;
mod document;
pub mod plan;
pub mod readings;
mod report;
pub mod testbed;

pub use document::Reproduction;
pub use plan::{paper001_network, Plan001, Run001};

pub use claims::check_claims;
pub use report::{evaluate, GainReport, LossRow, MacRun, ProtocolRow, Report, SizeRow};

use crate::study::About;
use serde::Serialize;

use crate::paper001::readings::Mac;
use crate::paper001::testbed::Paper001;
use snooplab_sim::network::Network;
use snooplab_sim::Protocol;

/// Who paper 001 is for `reproduce`: "averaging the results of 50 trials" (section 6.1), FreeBSD
/// 2.2.1 hosts ([`testbed::HOST`]).
pub const ABOUT: About = About {
    name: "paper001",
    citation: "Tamura, Tobe and Tokuda, \"EFR: Efficient Fast Retransmit Scheme for TCP in a \
               Wireless Multiple Access\" (1998)",
    default_seeds: 50,
    default_host: testbed::HOST,
};

/// The paper's numbers the text gives (section 6).
pub mod paper {
    /// "In the case of 8 Mbyte data transfer with three and four hosts, the throughputs with EFR
    /// are 14.4% and 12.2% higher than that with TCP-Reno" (section 6.2): (hosts, percent).
    pub const EFR_GAIN_8MB: [(usize, f64); 2] = [(3, 14.4), (4, 12.2)];
    /// Our gain must be within this many percentage points of the paper's (issue 15).
    pub const GAIN_TOLERANCE_POINTS: f64 = 5.0;
    /// "Regardless of the number of hosts, the number of retransmitted segments is reduced
    /// approximately by 10% with EFR" (section 6.1).
    pub const RETRANSMISSION_FALL_PCT: f64 = 10.0;
    /// "When the number of hosts is 2, N_dup(1) and N_dup(2) are both reduced with EFR from 12 to
    /// 8, and from 30 to 7" (section 6.1): (i, Reno, EFR).
    pub const NDUP_2_HOSTS: [(usize, f64, f64); 2] = [(1, 12.0, 8.0), (2, 30.0, 7.0)];
    /// The loss rate of a single host alone (section 4.1).
    pub const SEGMENT_LOSS_ALONE: f64 = crate::paper001::testbed::SEGMENT_LOSS_ALONE;
}

/// What `reproduce paper001` can run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Part {
    /// Figs. 15-17 (10 MB transfers): retransmitted segments, fast retransmits against timeouts,
    /// N_dup(i); and the loss per segment by number of hosts (one host included).
    Retransmissions,
    /// Figs. 18-19: aggregate throughput with 1, 2, 4 and 8 MB transfers.
    Throughput,
}

impl Part {
    pub const ALL: [Part; 2] = [Part::Retransmissions, Part::Throughput];

    pub fn name(self) -> &'static str {
        match self {
            Part::Retransmissions => "retransmissions",
            Part::Throughput => "throughput",
        }
    }

    pub fn parse(s: &str) -> Result<Vec<Part>, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "all" => Ok(Part::ALL.to_vec()),
            "retransmissions" | "fig15" | "fig16" | "fig17" | "loss" => {
                Ok(vec![Part::Retransmissions])
            }
            "throughput" | "fig18" | "fig19" => Ok(vec![Part::Throughput]),
            _ => Err(format!(
                "unknown part '{s}' of paper001 (known: retransmissions (fig15, fig16, fig17, \
                 loss), throughput (fig18, fig19), all)"
            )),
        }
    }
}

/// The protocols of every table: the paper's two, then the later standard answers.
pub const PROTOCOLS: [Protocol; 5] = [
    Protocol::E2e,
    Protocol::Efr,
    Protocol::LimitedTransmit,
    Protocol::EarlyRetransmit,
    Protocol::EarlyRetransmitLt,
];

/// "We transmitted 10-Mbyte" for Figs. 15-17 (section 6.1).
pub const RETRANSMISSION_TRANSFER: u64 = 10 << 20;
/// Fig. 19's transfer sizes; Fig. 18 is the 8 MB case.
pub const SIZES: [u64; 4] = [1 << 20, 2 << 20, 4 << 20, 8 << 20];
/// The paper's numbers of hosts; the retransmission part adds one host alone.
pub const HOSTS: [usize; 3] = [2, 3, 4];

/// One configuration, run with every seed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Experiment {
    pub part: Part,
    pub hosts: usize,
    pub protocol: Protocol,
    /// Bytes each host sends.
    pub transfer: u64,
    /// The MAC reading of the cell.
    pub mac: Mac,
}

impl Experiment {
    /// The network of one trial.
    pub fn network(&self, seed: u64) -> Network {
        Paper001 {
            mac: self.mac,
            ..Paper001::new(self.hosts, self.protocol, self.transfer, seed)
        }
        .network()
    }
}

/// Every configuration the parts need, in a fixed order: all of them under the default MAC
/// reading, then all of them again under each other (the MAC reaches every run).
pub fn experiments(parts: &[Part]) -> Vec<Experiment> {
    Mac::ALL
        .iter()
        .flat_map(|&mac| {
            experiments_under(parts)
                .into_iter()
                .map(move |e| Experiment { mac, ..e })
        })
        .collect()
}

/// The configurations of the parts under the default MAC reading, in a fixed order.
fn experiments_under(parts: &[Part]) -> Vec<Experiment> {
    let mac = Mac::Isa82586;
    let mut out = vec![];
    for &part in parts {
        match part {
            Part::Retransmissions => {
                for hosts in std::iter::once(1).chain(HOSTS) {
                    for protocol in PROTOCOLS {
                        out.push(Experiment {
                            part,
                            hosts,
                            protocol,
                            transfer: RETRANSMISSION_TRANSFER,
                            mac,
                        });
                    }
                }
            }
            Part::Throughput => {
                for transfer in SIZES {
                    for hosts in HOSTS {
                        for protocol in PROTOCOLS {
                            out.push(Experiment {
                                part,
                                hosts,
                                protocol,
                                transfer,
                                mac,
                            });
                        }
                    }
                }
            }
        }
    }
    out
}
