//! What a live run's engine and its flows' kernel ends gave: the data the engine hands to the
//! report (`network_report.rs`), below both.

use std::time::Instant;

use snooplab_sim::RunResult;

use crate::endpoint::{ReceiverReport, SenderReport};
use crate::host_input::HostInputReport;
use crate::lateness::Lateness;
use crate::tun_driver::{DriverCounters, HostTraffic};
use crate::web::flow::WebEnds;

/// What a run's engine and its flows' ends gave.
pub struct Ends {
    pub run: RunResult,
    /// The engine's time 0.
    pub clock: Instant,
    pub lateness: Lateness,
    pub counters: DriverCounters,
    /// Each kernel host's traffic, in the order of the network's hosts.
    pub traffic: Vec<HostTraffic>,
    /// Where the kernel hosts took in their packets (`host_input.rs`).
    pub host_input: HostInputReport,
    /// Each flow's receiver and sender, in the network's order: `None` for an end a modelled
    /// host carried in the engine.
    pub flows: Vec<FlowEnds<ReceiverReport, SenderReport>>,
    /// Each workload flow's client and server (`web/`), in the network's order: `None` for a
    /// bulk flow (or empty, when no flow is a workload's).
    pub web: Vec<Option<WebEnds>>,
}

/// A flow's two ends once the run is over: each kernel end's report (or why it failed), `None`
/// for an end the engine modelled.
pub type FlowEnds<R, S> = (Option<R>, Option<S>);
