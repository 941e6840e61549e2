//! snooplab's live mode (docs/live.md): the simulator's engine on the real clock, its network's
//! hosts real Linux hosts, each in a network namespace of its own with one TUN device that the
//! engine, in the snooplab process, reads and writes.
//!
//! Needs root, `/dev/net/tun` and `ip netns` ([`testbed::unavailable_reason`] says what is missing).
//! Traffic never leaves the namespaces the run creates.

pub mod config;
pub mod dirlock;
pub mod endpoint;
pub mod ends;
pub mod engine;
pub mod exec;
pub(crate) mod exec_run;
pub mod host_input;
pub mod hosts;
pub mod kernel_samples;
pub mod lateness;
pub mod link_config;
pub mod middlebox;
pub mod netns;
pub(crate) mod network_check;
pub mod network_report;
pub mod network_run;
pub mod packet;
pub mod payload;
pub mod profile;
pub mod result;
pub mod run;
pub mod snmp;
pub mod sys;
pub mod testbed;
pub mod tun;
pub mod tun_driver;
pub mod web;

pub use network_report::NetworkResult;
pub use profile::{CongestionControl, LinuxProfile};
pub use run::{live_protocol, live_protocols, run, LiveConfig, Progress};
