//! What paper 001 runs: its parts, and every configuration they need (hosts, protocol, transfer
//! and MAC reading), each the network of one trial.

use serde::Serialize;
use snooplab_sim::medium::WavelanParams;
use snooplab_sim::network::Network;
use snooplab_sim::Protocol;

use super::readings::Mac;
use super::testbed::Paper001;

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
            csma: self.mac.csma(&WavelanParams::default()),
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
