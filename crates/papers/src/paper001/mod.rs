//! Paper 001's experiments (Tamura, Tobe and Tokuda 1998, section 6, Figs. 15-19): 2 to 4 mobile
//! senders on one WaveLAN cell (`crates/papers/src/paper001/testbed.rs`), TCP Reno against EFR, and beside them the
//! two later standard answers to the same problem, Limited Transmit (RFC 3042) and Early
//! Retransmit (RFC 5827). One host alone runs too, for the paper's single-host loss rate.

mod claims;
pub mod data;
mod document;
mod evaluate;
pub mod experiments;
pub mod plan;
pub mod readings;
pub mod report;
mod tables;
pub mod testbed;

pub use claims::check_claims;
pub use data::ABOUT;
pub use document::Reproduction;
pub use evaluate::evaluate;
pub use experiments::{
    experiments, Experiment, Part, HOSTS, PROTOCOLS, RETRANSMISSION_TRANSFER, SIZES,
};
pub use plan::{paper001_network, Plan001, Run001};
pub use report::{GainReport, LossRow, MacRun, ProtocolRow, Report, SizeRow};
