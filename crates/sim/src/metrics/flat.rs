//! The flat view of a run's result: the keys `run --json` has always written (docs/outputs.md), in
//! their order. The first flow's keys come from [`RunResult::flow`], the agents' from their counters
//! added up by name, the channel's from the cells; then the groups as they are (`flows`,
//! `aggregate`, `cells`, `handoffs`). Every script that reads the JSON or CSV keeps working.

use std::collections::BTreeMap;

use serde::Serialize;

use snooplab_proto::tcp::TimeoutCauses;

use super::{Aggregate, CellResult, FlowResult, HandoffResult, RelayCounters, RunResult};
use crate::invariants::InvariantReport;

/// A run's result under its flat keys (borrowed from the [`RunResult`]).
#[derive(Clone, Debug, Serialize)]
pub struct Flat<'a> {
    pub protocol: &'a str,
    pub env: &'a str,
    pub buffer_bytes: u32,
    pub mss: u32,
    pub transfer_bytes: u64,
    pub error_every_bytes: u64,
    pub burst: u32,
    pub seed: u64,
    /// Transfer bytes * 8 / (last byte delivered - first data segment sent), Mb/s.
    pub throughput_mbps: f64,
    /// Transfer bytes / data payload bytes sent over the wireless link, retransmissions included,
    /// %; `null` when no data frame crossed a wireless link.
    pub wireless_goodput_pct: Option<f64>,
    /// Transfer bytes / data payload bytes the fixed host sent, %.
    pub wired_goodput_pct: f64,
    /// Retransmission-timer expirations at the sender.
    pub timeouts: u64,
    /// Fast retransmissions at the sender.
    pub fast_retransmits: u64,
    /// Seconds from the first data segment to the last byte delivered.
    pub duration_s: f64,
    /// Events the simulator processed.
    pub events: u64,
    /// Segments the sender retransmitted.
    pub sender_retransmitted_segments: u64,
    /// Duplicate ACKs that reached the sender.
    pub sender_dupacks: u64,
    /// Retransmissions by the base stations.
    pub local_retransmissions: u64,
    /// Duplicate ACKs the base stations kept from the sender.
    pub dupacks_suppressed: u64,
    /// Data frames the channels corrupted, base station to mobile host, all cells.
    pub frames_corrupted_down: u64,
    /// ACK frames the channels corrupted, mobile host to base station, all cells.
    pub frames_corrupted_up: u64,
    /// Data frames sent on the wireless link.
    pub wireless_data_frames: u64,
    /// Packets dropped by a full queue (none in the papers' settings).
    pub queue_drops: u64,
    /// Seconds the sender spent waiting for the retransmission timer (within `duration_s`).
    pub timeout_stall_s: f64,
    /// Why the timeouts happened, from the sender's state at each.
    pub timeout_causes: &'a TimeoutCauses,
    /// Sender socket buffer after 4.4BSD rounds it to whole segments.
    pub effective_buffer_bytes: u32,
    /// The host profile of every TCP in the run, and any details changed from it.
    pub host: &'a str,
    /// Every host detail in force.
    pub host_details: &'a BTreeMap<String, String>,
    pub persist_timeouts: u64,
    pub zero_window_acks: u64,
    pub window_updates: u64,
    pub predicted_acks: u64,
    pub predicted_acks_in_recovery: u64,
    pub predicted_data: u64,
    pub eln_retransmits: u64,
    /// Mobile senders, all base stations: wireless holes, congestion gaps bridged, ACKs marked
    /// with ELN, NACKs sent.
    pub holes: u64,
    pub congestion_gaps: u64,
    pub eln_marked_acks: u64,
    pub nacks: u64,
    /// Packets dropped by a full base-station input queue (also in `queue_drops`).
    pub input_queue_drops: u64,
    /// Packets lost to base-station crashes.
    pub crash_drops: u64,
    /// A split run's relay sender; `null` for the other protocols.
    pub relay: Option<&'a RelayCounters>,
    /// A split run's relays, all base stations; absent for the other protocols.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub split: Option<SplitTotals>,
    pub invariants: &'a InvariantReport,
    pub flows: &'a [FlowResult],
    pub aggregate: &'a Aggregate,
    pub cells: &'a [CellResult],
    pub handoffs: &'a [HandoffResult],
}

impl<'a> Flat<'a> {
    pub fn of(r: &'a RunResult) -> Flat<'a> {
        let f = r.flow();
        let agents = |name: &str| r.agent_total(name);
        Flat {
            protocol: &f.protocol,
            env: &r.setup.env,
            buffer_bytes: f.buffer_bytes,
            mss: f.mss,
            transfer_bytes: f.transfer_bytes,
            error_every_bytes: r.setup.error_every_bytes,
            burst: r.setup.burst,
            seed: r.setup.seed,
            throughput_mbps: f.throughput_mbps,
            wireless_goodput_pct: f.wireless_goodput_pct,
            wired_goodput_pct: f.wired_goodput_pct,
            timeouts: f.timeouts,
            fast_retransmits: f.fast_retransmits,
            duration_s: f.duration_s,
            events: r.events,
            sender_retransmitted_segments: f.sender_retransmitted_segments,
            sender_dupacks: f.sender_dupacks,
            local_retransmissions: agents("local_retransmissions"),
            dupacks_suppressed: agents("dupacks_suppressed"),
            frames_corrupted_down: r.cells.iter().map(|c| c.frames_corrupted_down).sum(),
            frames_corrupted_up: r.cells.iter().map(|c| c.frames_corrupted_up).sum(),
            wireless_data_frames: f.wireless_data_frames,
            queue_drops: r.drops.queues,
            timeout_stall_s: f.timeout_stall_s,
            timeout_causes: &f.timeout_causes,
            effective_buffer_bytes: f.effective_buffer_bytes,
            host: &f.host,
            host_details: &f.host_details,
            persist_timeouts: f.persist_timeouts,
            zero_window_acks: f.zero_window_acks,
            window_updates: f.window_updates,
            predicted_acks: f.predicted_acks,
            predicted_acks_in_recovery: f.predicted_acks_in_recovery,
            predicted_data: f.predicted_data,
            eln_retransmits: f.eln_retransmits,
            holes: agents("holes"),
            congestion_gaps: agents("congestion_gaps"),
            eln_marked_acks: agents("eln_marked_acks"),
            nacks: agents("nacks"),
            input_queue_drops: r.drops.input_queues,
            crash_drops: r.drops.crashes,
            relay: f.relay.as_ref(),
            split: SplitTotals::of(r),
            invariants: &r.invariants,
            flows: &r.flows,
            aggregate: &r.aggregate,
            cells: &r.cells,
            handoffs: &r.handoffs,
        }
    }
}

/// A split base station's relay table, added up over every split base station of the run
/// (`proto/src/agent/split.rs`, issue 52): one relay per connection, and the connections the
/// memory bound left unsplit.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct SplitTotals {
    /// Relays made: connections split.
    pub relays: u64,
    /// The most relays at once (each base station's own most, added up).
    pub relays_most: u64,
    /// Connections forwarded end to end at the relays' memory bound.
    pub unsplit: u64,
    /// Relays removed after the idle limit.
    pub relays_idle: u64,
    /// Bytes relayed on from the openers, and back to them.
    pub relayed_bytes: u64,
    pub answered_bytes: u64,
}

impl SplitTotals {
    /// The totals of a run with a split base station; `None` without one.
    fn of(r: &RunResult) -> Option<SplitTotals> {
        let split = r
            .agents
            .iter()
            .any(|a| a.counters.iter().any(|(name, _)| name == "unsplit"));
        let total = |name: &str| r.agent_total(name);
        split.then(|| SplitTotals {
            relays: total("relays"),
            relays_most: total("relays_most"),
            unsplit: total("unsplit"),
            relays_idle: total("relays_idle"),
            relayed_bytes: total("relayed_bytes"),
            answered_bytes: total("answered_bytes"),
        })
    }
}
