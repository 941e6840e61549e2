//! The result of a live scenario run in `snooplab run --json`'s shape (docs/outputs.md): the
//! engine's own result (cells, agents, drops) with each flow's result filled in from its kernel
//! ends (`TCP_INFO`, the namespaces' counters, the digests), and what only the live mode knows
//! under `live`.

use std::time::Instant;

use serde::Serialize;
use snooplab_proto::time::as_secs_f64;
use snooplab_proto::Time;
use snooplab_sim::invariants::InvariantReport;
use snooplab_sim::metrics::{Aggregate, Flat, FlowResult};
use snooplab_sim::network::Network;
use snooplab_sim::RunResult;

use crate::endpoint::{ReceiverReport, SenderReport};
use crate::engine::LiveObserver;
use crate::exec::ExecReport;
use crate::lateness::Lateness;
use crate::network_run::NetworkConfig;
use crate::snmp::TcpCounters;
use crate::tun_driver::{DriverCounters, HostTraffic};

/// What a run's engine and its flows' ends gave.
pub struct Ends {
    pub run: RunResult,
    /// The engine's time 0.
    pub clock: Instant,
    pub lateness: Lateness,
    pub counters: DriverCounters,
    /// Each kernel host's traffic, in the order of the network's hosts.
    pub traffic: Vec<HostTraffic>,
    /// Each flow's receiver and sender, in the network's order.
    pub flows: Vec<(ReceiverReport, SenderReport)>,
}

/// What only the live mode knows about a run.
#[derive(Clone, Debug, Serialize)]
pub struct LiveExtras {
    pub linux_profile: String,
    pub cc: String,
    pub rto_min_ms: Option<u32>,
    pub initcwnd: Option<u32>,
    /// Each flow: its digest check and the sender's state at its end.
    pub flows: Vec<LiveFlow>,
    /// Each kernel host's TCP counters, by its name in the scenario.
    pub hosts: Vec<(String, TcpCounters)>,
    /// How late the engine released its events against their times.
    pub lateness: Lateness,
    pub driver: DriverCounters,
    /// What went through each kernel host's device, by its name.
    pub traffic: Vec<(String, HostTraffic)>,
    /// Most segments and payload bytes any base station's agent held at once.
    pub agent_max_held_segments: u32,
    pub agent_max_held_bytes: u64,
    pub leftovers_removed: Vec<String>,
    pub warnings: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct LiveFlow {
    pub flow: String,
    /// The receiver's digest of the bytes equals the sender's, and the byte counts agree.
    pub integrity_ok: bool,
    pub cc: String,
    /// Bytes the receiver read.
    pub received_bytes: u64,
    /// `tcpi_rto` of the sender at the end, ms.
    pub sender_rto_ms: f64,
    pub window_clamp_restored: u32,
}

/// A live scenario run's result.
pub struct NetworkResult {
    pub run: RunResult,
    pub live: LiveExtras,
    /// Each `--exec` command's end (empty when snooplab carried the flows).
    pub exec: Vec<ExecReport>,
}

impl NetworkResult {
    /// `run --json`'s keys, with `mode: "live"` and `live` added.
    pub fn to_json(&self) -> Result<serde_json::Value, String> {
        let mut v = serde_json::to_value(Flat::of(&self.run)).map_err(|e| e.to_string())?;
        let live = serde_json::to_value(&self.live).map_err(|e| e.to_string())?;
        if let Some(m) = v.as_object_mut() {
            m.insert("mode".into(), "live".into());
            m.insert("live".into(), live);
            if !self.exec.is_empty() {
                let exec = serde_json::to_value(&self.exec).map_err(|e| e.to_string())?;
                m.insert("exec".into(), exec);
            }
        }
        Ok(v)
    }

    /// Every flow's bytes arrived intact.
    pub fn intact(&self) -> bool {
        self.live.flows.iter().all(|f| f.integrity_ok)
    }
}

fn since(clock: Instant, t: Instant) -> Time {
    t.saturating_duration_since(clock).as_nanos() as Time
}

/// A flow's result from its two ends, in the simulator's terms where they apply.
fn flow_result(
    net: &Network,
    f: usize,
    rx: &ReceiverReport,
    tx: &SenderReport,
    cfg: &NetworkConfig,
    clock: Instant,
) -> (FlowResult, LiveFlow) {
    let fl = &net.flows[f];
    let ok = rx.bytes == tx.bytes && rx.bytes == fl.transfer && rx.digest == tx.digest;
    let end = rx.last_byte.unwrap_or(tx.finished);
    let secs = as_secs_f64(since(tx.started, end).max(1));
    let invariants = InvariantReport {
        complete: ok,
        payload_mismatches: u64::from(rx.digest != tx.digest),
        ..InvariantReport::default()
    };
    let result = FlowResult {
        flow: fl.name.clone(),
        from: net.nodes[fl.from].name.clone(),
        to: net.nodes[fl.to].name.clone(),
        protocol: fl.protocol.name().into(),
        buffer_bytes: fl.buffer,
        mss: tx.tcp_info.snd_mss,
        transfer_bytes: fl.transfer,
        start_s: as_secs_f64(since(clock, tx.started)),
        throughput_mbps: rx.bytes as f64 * 8.0 / secs / 1e6,
        duration_s: secs,
        sender_retransmitted_segments: u64::from(tx.tcp_info.total_retrans),
        host: format!("linux-{}", cfg.profile.name()),
        invariants,
        ..FlowResult::default()
    };
    let live = LiveFlow {
        flow: fl.name.clone(),
        integrity_ok: ok,
        cc: tx.cc.clone(),
        received_bytes: rx.bytes,
        sender_rto_ms: f64::from(tx.tcp_info.rto_us) / 1e3,
        window_clamp_restored: rx.clamp_restored,
    };
    (result, live)
}

/// The run's result: the engine's, with the flows its kernel hosts carried.
pub fn report(
    cfg: &NetworkConfig,
    net: &Network,
    (ends, obs): (Ends, &LiveObserver),
    hosts: Vec<(String, TcpCounters)>,
    leftovers_removed: Vec<String>,
) -> NetworkResult {
    let Ends {
        mut run,
        clock,
        lateness,
        counters,
        traffic,
        flows,
    } = ends;
    let names = hosts.iter().map(|h| h.0.clone());
    let traffic = names.zip(traffic).collect();
    let mut live_flows = Vec::new();
    run.flows.clear();
    for (f, (rx, tx)) in flows.iter().enumerate() {
        let (r, l) = flow_result(net, f, rx, tx, cfg, clock);
        run.flows.push(r);
        live_flows.push(l);
    }
    let start = flows.iter().map(|(_, tx)| since(clock, tx.started)).min();
    let end = flows
        .iter()
        .map(|(rx, tx)| since(clock, rx.last_byte.unwrap_or(tx.finished)))
        .max();
    run.aggregate = Aggregate::of(&run.flows, start, end);
    run.invariants.complete = live_flows.iter().all(|f| f.integrity_ok);
    let mut warnings: Vec<String> = lateness.warning("the engine").into_iter().collect();
    for f in live_flows.iter().filter(|f| f.window_clamp_restored > 0) {
        warnings.push(format!(
            "flow '{}': the kernel changed the receiver's window clamp {} times (each restored \
             at the next read): a window may have exceeded the buffer in between",
            f.flow, f.window_clamp_restored
        ));
    }
    let live = LiveExtras {
        linux_profile: cfg.profile.name().into(),
        cc: cfg.cc.name().into(),
        rto_min_ms: cfg.rto_min_ms,
        initcwnd: cfg.profile.initcwnd(),
        flows: live_flows,
        hosts,
        lateness,
        driver: counters,
        traffic,
        agent_max_held_segments: obs.max_held_segments,
        agent_max_held_bytes: obs.max_held_bytes,
        leftovers_removed,
        warnings,
    };
    NetworkResult {
        run,
        live,
        exec: Vec::new(),
    }
}
