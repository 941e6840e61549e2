//! Paper 004 (Balakrishnan and Katz 1998, "Explicit Loss Notification and Wireless Web
//! Performance"), section 3.4, Fig. 2: a mobile host sends to a fixed host across one WaveLAN hop
//! and 16 Internet hops, with exponentially distributed bit errors from one every 8 KB to one every
//! 512 KB; TCP Reno against Reno with ELN from the base station (`bs-eln`), and the NACK scheme of
//! section 3.1 (`bs-nack`) beside them. The paper gives the figure, not its numbers: what is checked
//! is its two statements, as ratios of our means with 95% intervals.

mod claims;
pub mod data;
mod document;
mod evaluate;
pub mod experiments;
pub mod plan;
pub mod report;

pub use claims::{ABOUT_TWO, CLOSE};
pub use data::{Paper004, ABOUT};
pub use document::Reproduction;
pub use evaluate::evaluate;
pub use experiments::{jobs, scenario, PROTOCOLS};
pub use plan::{Plan004, Run004};
pub use report::{Point, Report004};
