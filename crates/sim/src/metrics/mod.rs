//! The result of one run, grouped: its flows, cells, agents, handoffs and invariants
//! (`RunResult`). `run --json` writes it through the flat view of [`flat`], whose keys are those
//! docs/outputs.md lists.

mod flat;
mod pages;

use std::collections::BTreeMap;

use serde::{Serialize, Serializer};

use snooplab_proto::agent::Counters;
use snooplab_proto::tcp::TimeoutCauses;
use snooplab_proto::Time;

use crate::invariants::InvariantReport;

pub use flat::Flat;
pub use pages::{Latencies, ObjectResult, PageResult, PagesResult, TimeoutWait, TimeoutsByPhase};

/// A run's result.
#[derive(Clone, Debug, PartialEq)]
pub struct RunResult {
    /// What ran: its label, seed and first channel.
    pub setup: RunSetup,
    /// Events the simulator processed.
    pub events: u64,
    /// Every flow's own result, in the network's order (a run has at least one).
    pub flows: Vec<FlowResult>,
    /// All flows together.
    pub aggregate: Aggregate,
    /// Every cell's medium.
    pub cells: Vec<CellResult>,
    /// Every base station's agent and what it counted, in the network's node order.
    pub agents: Vec<AgentResult>,
    /// Packets lost to full queues and crashes.
    pub drops: Drops,
    /// Each mobile host that hands off between base stations (paper 002); empty otherwise.
    pub handoffs: Vec<HandoffResult>,
    /// The run's checks, every flow's together.
    pub invariants: InvariantReport,
}

/// What a run was.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunSetup {
    /// The run's label (`lan-32k`, a scenario's name).
    pub env: String,
    pub seed: u64,
    /// The first cell's first channel, as `run`'s flags set it: one error every so many bytes on
    /// average, in bursts of `burst` frames (0 and 1 for the other channel models).
    pub error_every_bytes: u64,
    pub burst: u32,
}

/// One agent's counters.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentResult {
    /// The node that runs it.
    pub node: String,
    pub counters: Counters,
}

/// Packets dropped, all nodes together.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Drops {
    /// By a full queue: wired links, cells, base-station input queues (none in the papers'
    /// settings).
    pub queues: u64,
    /// ... of them by a base station's input queue.
    pub input_queues: u64,
    /// Lost to base-station crashes: what was queued when one crashed, and what arrived while it
    /// was down.
    pub crashes: u64,
}

impl RunResult {
    /// The first flow: what a single-flow run measured, and what the flat view's first-flow keys
    /// report.
    pub fn flow(&self) -> &FlowResult {
        static NONE: std::sync::OnceLock<FlowResult> = std::sync::OnceLock::new();
        self.flows
            .first()
            .unwrap_or_else(|| NONE.get_or_init(FlowResult::default))
    }

    /// Counter `name` added up over every agent of the run (0 where no agent counts it).
    pub fn agent_total(&self, name: &str) -> u64 {
        self.agents.iter().map(|a| a.counters.get(name)).sum()
    }

    /// The first flow's wireless goodput (see [`FlowResult::wireless_goodput_pct`]).
    pub fn wireless_goodput(&self) -> Option<f64> {
        self.flow().wireless_goodput_pct
    }

    /// The flat view: today's keys (docs/outputs.md), the first flow's and the totals.
    pub fn flat(&self) -> Flat<'_> {
        Flat::of(self)
    }
}

impl Serialize for RunResult {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.flat().serialize(s)
    }
}

impl FlowResult {
    /// This flow's wireless goodput (see [`FlowResult::wireless_goodput_pct`]).
    pub fn wireless_goodput(&self) -> Option<f64> {
        self.wireless_goodput_pct
    }
}

/// A mobile host's handoffs (paper 002 sections 4-7).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct HandoffResult {
    pub mobile: String,
    pub handoffs: u64,
    /// Handoffs the new primary confirmed.
    pub confirmed: u64,
    /// Handoff latency: from the mobile host's decision to the new primary's confirmation reaching
    /// it, ms (mean and largest over the confirmed handoffs).
    pub latency_ms_mean: f64,
    pub latency_ms_max: f64,
    /// From the decision to the first TCP packet from the new primary's cell, ms, over the
    /// handoffs that had one (those during a transfer).
    pub first_packet_ms_mean: f64,
    /// Requests the mobile host sent again, unconfirmed after the retry time.
    pub requests_resent: u64,
    /// Beacons all base stations of the group sent.
    pub beacons: u64,
    /// Handoffs whose new primary found one of the reported IP ids in its buffer.
    pub ids_found: u64,
    /// Buffered packets new primaries sent on taking over.
    pub ring_sent: u64,
    /// Packets base stations kept back from the mobile host because they no longer forwarded for
    /// it (snoop's retransmissions of a mirrored cache, late ones of a former primary).
    pub withheld: u64,
    /// Split connections handed over (`scheme = "split"`), and the mean time their state took.
    pub state_transfers: u64,
    pub state_transfer_ms_mean: f64,
    /// The handoffs one by one: every one up to `DECISIONS_KEPT` (10,000), the first ones after
    /// (the counts and means above cover them all; memory stays bounded however long the run).
    pub events: Vec<HandoffEvent>,
}

/// One handoff.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HandoffEvent {
    pub at_s: f64,
    pub from: String,
    pub to: String,
    pub latency_ms: Option<f64>,
    pub first_packet_ms: Option<f64>,
}

/// The result of one flow.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FlowResult {
    pub flow: String,
    pub from: String,
    pub to: String,
    pub protocol: String,
    pub buffer_bytes: u32,
    pub mss: u32,
    pub transfer_bytes: u64,
    /// When the sender opened its connection, seconds.
    pub start_s: f64,
    pub throughput_mbps: f64,
    /// Transfer bytes / payload bytes of this flow's data that crossed a wireless medium, %;
    /// `None` (`null` in JSON, `n/a` in tables) when none of its data frames crossed one (a wired
    /// path): the ratio has no denominator then, and a 0 would read as every byte wasted.
    pub wireless_goodput_pct: Option<f64>,
    pub wired_goodput_pct: f64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub duration_s: f64,
    pub sender_retransmitted_segments: u64,
    pub sender_dupacks: u64,
    pub wireless_data_frames: u64,
    /// This flow's data frames that reached their receiver corrupted (collided or hit by the
    /// channel): its segment losses on the medium.
    pub wireless_data_frames_lost: u64,
    /// ... of them destroyed by a collision.
    pub wireless_data_frames_collided: u64,
    /// Timeouts by the duplicate ACKs the sender had counted when the timer expired: 0, 1, 2, 3
    /// or more (paper 001's N_dup(i), section 6.1). They add up to `timeouts`.
    pub timeouts_after_dupacks: [u64; 4],
    /// Fast retransmissions at a threshold below three (EFR, Early Retransmit).
    pub fast_retransmits_below_three: u64,
    /// New segments Limited Transmit sent on the first two duplicate ACKs.
    pub limited_transmits: u64,
    pub timeout_stall_s: f64,
    pub timeout_causes: TimeoutCauses,
    pub effective_buffer_bytes: u32,
    pub host: String,
    /// Every host detail in force (only the run's first flow's are in the JSON, as `host_details`).
    #[serde(skip)]
    pub host_details: BTreeMap<String, String>,
    pub persist_timeouts: u64,
    pub zero_window_acks: u64,
    pub window_updates: u64,
    pub predicted_acks: u64,
    pub predicted_acks_in_recovery: u64,
    pub predicted_data: u64,
    pub eln_retransmits: u64,
    pub relay: Option<RelayCounters>,
    pub invariants: InvariantReport,
    /// A workload flow's pages and objects (`pages.rs`); absent for a bulk flow.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pages: Option<PagesResult>,
}

/// The counters of the TCP sender a split base station runs towards the mobile host.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RelayCounters {
    /// Retransmission-timer expirations of the relay sender.
    pub timeouts: u64,
    /// Its fast retransmissions.
    pub fast_retransmits: u64,
    /// Segments it retransmitted (by timeouts and fast retransmissions; the same count as
    /// `local_retransmissions` for a single split base station).
    pub retransmitted_segments: u64,
    /// Duplicate ACKs that reached it.
    pub dupacks: u64,
    /// Why its timeouts happened.
    pub timeout_causes: TimeoutCauses,
    /// It gave up after 12 retransmissions of one segment.
    pub gave_up: bool,
}

impl From<&snooplab_proto::tcp::TcpStats> for RelayCounters {
    fn from(s: &snooplab_proto::tcp::TcpStats) -> Self {
        RelayCounters {
            timeouts: s.timeouts,
            fast_retransmits: s.fast_retransmits,
            retransmitted_segments: s.rexmt_segs,
            dupacks: s.dupacks_rcvd,
            timeout_causes: s.timeout_causes.clone(),
            gave_up: s.dropped,
        }
    }
}

/// All flows of a run together.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Aggregate {
    pub flows: usize,
    /// Flows whose transfer completed.
    pub complete_flows: usize,
    pub transfer_bytes: u64,
    /// All transfer bytes * 8 / (last completion - first data sent), Mb/s (0 unless all completed).
    pub throughput_mbps: f64,
    /// Jain's fairness index of the flows' throughputs: 1 when equal, 1/n when one flow has it all.
    pub fairness: f64,
}

impl Aggregate {
    /// All `flows` together: their bytes over the span from the first data sent (`start`) to the
    /// last byte read (`end`), when every flow completed; Jain's index of their throughputs.
    pub fn of(flows: &[FlowResult], start: Option<Time>, end: Option<Time>) -> Aggregate {
        let complete = flows.iter().filter(|f| f.invariants.complete).count();
        let bytes: u64 = flows.iter().map(|f| f.transfer_bytes).sum();
        let throughput = match (start, end) {
            (Some(s), Some(e)) if complete == flows.len() && e > s => {
                bytes as f64 * 8.0 / snooplab_proto::time::as_secs_f64(e - s) / 1e6
            }
            _ => 0.0,
        };
        let xs: Vec<f64> = flows.iter().map(|f| f.throughput_mbps).collect();
        let sum: f64 = xs.iter().sum();
        let sq: f64 = xs.iter().map(|x| x * x).sum();
        let fairness = if sq > 0.0 {
            sum * sum / (xs.len() as f64 * sq)
        } else {
            0.0
        };
        Aggregate {
            flows: flows.len(),
            complete_flows: complete,
            transfer_bytes: bytes,
            throughput_mbps: throughput,
            fairness,
        }
    }
}

/// One cell's medium.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CellResult {
    pub cell: String,
    /// The access model: `turns` or `csma`.
    pub access: String,
    pub stations: usize,
    /// Frames put on the air, all stations.
    pub frames: u64,
    /// Frames destroyed by a collision.
    pub collisions: u64,
    /// Frames the channels corrupted, base station to mobile hosts and back.
    pub frames_corrupted_down: u64,
    pub frames_corrupted_up: u64,
    /// Seconds the medium carried frames, and that as a share of the run.
    pub airtime_s: f64,
    pub utilisation_pct: f64,
    pub queue_drops: u64,
    /// Frames dropped because too many access attempts found the medium busy (CSMA).
    pub access_drops: u64,
    /// Each mobile host's channel models, as labels (`1/64k`, `ge 0-1/2k 1s-50ms`, `trace FILE`).
    pub channels: Vec<StationChannels>,
}

/// The channel models of one station of a cell.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StationChannels {
    pub station: String,
    /// Base station to the mobile host.
    pub down: String,
    /// Mobile host to the base station.
    pub up: String,
    /// Frames each direction's channel passed, and how many of them it corrupted.
    pub frames_down: u64,
    pub corrupted_down: u64,
    pub frames_up: u64,
    pub corrupted_up: u64,
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_undefined_wireless_goodput_is_null_in_its_place() {
        let mut sc = crate::scenario::default_scenario();
        sc.transfer = 64 << 10;
        let r = crate::run::run(&sc);
        let text = serde_json::to_string(&r).expect("JSON");
        assert!(text.contains("\"wireless_goodput_pct\":"), "{text}");
        assert!(!text.contains("\"wireless_goodput_pct\":null"), "{text}");
        let mut wired = r.clone();
        wired.flows[0].wireless_data_frames = 0;
        wired.flows[0].wireless_goodput_pct = None;
        let text = serde_json::to_string(&wired).expect("JSON");
        assert_eq!(
            text.matches("\"wireless_goodput_pct\":null").count(),
            2,
            "{text}"
        );
        // in the same place as a defined value: the other keys and their order are the same
        let at = |t: &str| t.find("\"wireless_goodput_pct\"").expect("key");
        assert_eq!(at(&text), at(&serde_json::to_string(&r).expect("JSON")));
    }
}
