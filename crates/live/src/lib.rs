//! snooplab's live mode (docs/live.md): the simulator's base-station agents on real IP packets
//! between unmodified Linux TCP endpoints, each in a network namespace of its own, with the
//! snooplab process as the base station between two TUN devices.
//!
//! Needs root, `/dev/net/tun` and `ip netns` ([`testbed::unavailable_reason`] says what is missing).
//! Traffic never leaves the two namespaces the run creates.

pub mod emulator;
pub mod endpoint;
pub mod hosts;
pub mod lateness;
pub mod netns;
pub mod network_report;
pub mod network_run;
pub mod packet;
pub mod payload;
pub mod profile;
pub mod run;
pub mod snmp;
pub mod station;
pub mod sys;
pub mod testbed;
pub mod tun;
pub mod tun_driver;

pub use profile::{CongestionControl, LinuxProfile};
pub use run::{run, LiveConfig, LiveProtocol, LiveResult, Progress};
