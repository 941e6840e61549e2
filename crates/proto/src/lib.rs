//! Sans-IO protocol logic of snooplab (docs/architecture.md).
//!
//! Nothing in this crate reads a clock, opens a socket or spawns a thread: every object is driven by
//! calls that carry the current time, and hands back the packets it wants sent and the time it next
//! wants to be woken. The simulator and the live base station are two loops around the same objects.

pub mod agent;
pub mod app;
pub mod duration;
pub mod segment;
pub mod seq;
pub mod tcp;
pub mod time;
pub mod wire;

#[cfg(test)]
mod test_support;

pub use segment::{Endpoint, Flags, QueueReport, SackBlocks, Segment, Timestamps};
pub use seq::Seq;
pub use time::Time;
