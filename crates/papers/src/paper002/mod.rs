//! Paper 002 (Balakrishnan, Seshan and Katz 1995, "Improving Reliable Transport and Handoff
//! Performance in Cellular Wireless Networks"), section 7: Table 1 (handoffs between two base stations at a fixed interval, no bit
//! errors, snoop), Fig. 7 (snoop against Reno across bit-error rates, no handoffs), Fig. 10 (the
//! handoff latency, idle and during a transfer) and Fig. 11 (Fig. 7's sweep for snoop with a
//! handoff every 5 s), on the testbed of `testbed.rs`. Figs. 8 and 9 are traces of single
//! runs (the report draws them). Beside them, the baselines of section 8: a hard handoff as in plain
//! Mobile IP, and Caceres and Iftode's fast retransmissions after it.

mod claims;
pub mod data;
mod document;
mod evaluate;
pub mod experiments;
pub mod plan;
pub mod readings;
pub mod report;
pub mod testbed;

pub use claims::TABLE1_TOLERANCE;
pub use data::{Paper002Data, ABOUT};
pub use document::Reproduction;
pub use evaluate::evaluate;
pub use experiments::{
    experiments, network, network_read, Experiment, Parts, BASELINE_INTERVALS, CRASH_AT,
    CRASH_DOWN, FIG11_HANDOFF, KBITS_BETWEEN_ERRORS, LATENCY_HANDOFF, LATENCY_START,
    TABLE1_TWO_MEDIA,
};
pub use plan::{Plan002, Run002};
pub use report::{BaselineRow, CrashRow, Latency, ReadingRun, Report002, SweepPoint, Table1Row};
