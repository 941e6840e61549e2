//! The snooplab simulator: a fast, deterministic packet-level model of the papers' testbed
//! (DESIGN sections 2, 5 and 6) around the sans-IO protocol objects of `snooplab-proto`.

pub mod capture;
pub mod engine;
pub mod error_model;
pub mod invariants;
pub mod link;
pub mod metrics;
pub mod observer;
pub mod packet;
pub mod protocol;
pub mod reproduce;
pub mod rng;
pub mod run;
pub mod scenario;
pub mod size;
pub mod stats;
pub mod trace;
pub mod wavelan;

pub use metrics::RunResult;
pub use observer::{NoObserver, Observe, Observer};
pub use run::{run, Simulation};
pub use scenario::{Env, Protocol, Scenario};
