//! Paper 000's experiments (Tables II-V, Fig. 12), run and set beside the
//! paper's numbers, with the paper's claims checked as measured ratios.

pub mod ablation;
mod claims;
pub mod data;
mod document;
mod evaluate;
pub mod experiments;
pub mod plan;
pub mod report;

pub use crate::claim::Claim;
pub use claims::check_claims;
pub use data::{Cell, Paper000, ABOUT};
pub use document::{ours, theirs, verdict, Reproduction};
pub use evaluate::{evaluate, GOODPUT_TOLERANCE, ORDERING_MARGIN, THROUGHPUT_TOLERANCE};
pub use experiments::{experiments, Experiment, Part, RowScenario};
pub use plan::{Plan000, Run000};
pub use report::{CellReport, Report, RowReport, TableReport};
