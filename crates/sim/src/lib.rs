//! The snooplab simulator: a fast, deterministic packet-level model of the papers' testbed
//! (docs/model.md, docs/outputs.md and docs/architecture.md#rules) around the sans-IO protocol objects of `snooplab-proto`.

pub mod agents;
pub mod capture;
pub mod channel;
pub mod engine;
pub mod file_value;
pub mod flow;
pub(crate) mod handoff_agents;
pub mod invariants;
pub mod job;
pub mod link;
pub mod medium;
pub mod metrics;
pub mod network;
pub mod nodes;
pub mod observer;
pub mod packet;
pub mod protocol;
pub mod raw;
mod raw_pool;
pub mod rng;
pub mod run;
pub mod scenario;
pub mod size;
pub mod stats;
pub mod textfile;
pub mod trace;
pub mod transfer_bytes;
pub mod workload;

pub use job::Job;
pub use metrics::RunResult;
pub use network::Network;
pub use observer::NoObserver;
pub use observer::{Observe, Observer};
pub use run::{run, run_network, Simulation};
pub use scenario::{Direction, Env, Protocol, Scenario};
