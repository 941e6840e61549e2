//! The result of every live run, a scenario's or the paper-000 preset's, in `snooplab run --json`'s
//! shape (docs/outputs.md): the engine's own result (cells, agents, drops) with each flow's result
//! filled in from its kernel ends (`TCP_INFO`, the namespaces' counters, the digests), and what
//! only the live mode knows under `live`. One shape for both clocks: a key `run --json` has is
//! never copied into the `live` group under another name.

use std::time::Instant;

use serde::Serialize;
use snooplab_proto::time::as_secs_f64;
use snooplab_proto::Time;
use snooplab_sim::invariants::InvariantReport;
use snooplab_sim::metrics::{Aggregate, Flat, FlowResult};
use snooplab_sim::network::Network;
use snooplab_sim::stats::pct;
use snooplab_sim::RunResult;

use crate::config::NetworkConfig;
use crate::endpoint::{ReceiverReport, SenderReport};
pub use crate::ends::Ends;
use crate::engine::LiveObserver;
use crate::exec::ExecReport;
use crate::host_input::HostInputReport;
use crate::kernel_samples::KernelSample;
use crate::lateness::Lateness;
use crate::payload::StreamDigest;
use crate::snmp::TcpCounters;
use crate::tun_driver::{DriverCounters, HostTraffic};
use crate::web::flow::{LiveWeb, WebEnds};

/// What only the live mode knows about a run (the JSON's `live` group).
#[derive(Clone, Debug, Serialize)]
pub struct LiveExtras {
    /// `live`: the result's clock, where `run --json` has no `live` group at all.
    pub mode: &'static str,
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
    /// Where each kernel host took in its packets: on the other cores or in the engine's
    /// write call (`host_input.rs`).
    pub host_input: HostInputReport,
    /// Most segments and payload bytes any base station's agent held at once.
    pub agent_max_held_segments: u32,
    pub agent_max_held_bytes: u64,
    /// The paper-000 preset's best payload rate on its emulated path, Mb/s: the slower of the
    /// wired link and the wireless hop (back-to-back frames of the MSS in use and one ACK frame
    /// per two of them on the half-duplex medium); 0 with the emulator off (`--env off`); `null`
    /// for a scenario file's network, which has no one path.
    pub capacity_mbps: Option<f64>,
    pub leftovers_removed: Vec<String>,
    /// What makes this result less than it looks: an engine that ran late, a window clamp the
    /// kernel changed. Empty for a clean run.
    pub warnings: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct LiveFlow {
    pub flow: String,
    /// Where each end ran: `kernel` (a namespace's Linux TCP) or `model` (the engine's TCP).
    pub sender: &'static str,
    pub receiver: &'static str,
    /// The receiver's digest of the bytes equals the sender's, and the byte counts agree (a
    /// modelled receiver checks every segment's bytes instead, `transfer_bytes.rs`).
    pub integrity_ok: bool,
    /// The kernel sender's congestion control, or `model` and the flow's protocol.
    pub cc: String,
    /// Bytes the receiver read.
    pub received_bytes: u64,
    /// `tcpi_rto` of a kernel sender at the end, ms (0 for a modelled sender).
    pub sender_rto_ms: f64,
    /// A kernel receiver's `TCP_WINDOW_CLAMP`: the flow's buffer, rounded down to a multiple of
    /// the window scale unit where the buffer needs window scaling (`endpoint::window_clamp`);
    /// `null` for a modelled receiver.
    pub window_clamp_bytes: Option<u32>,
    /// Times the kernel replaced the receiver's window clamp and the receiver set it back (0
    /// expected).
    pub window_clamp_restored: u32,
    /// A kernel sender's `TCP_INFO` sampled during the transfer (cwnd, ssthresh, state,
    /// retransmissions, RTT; `kernel_samples.rs`); empty for a modelled sender.
    pub sender_samples: Vec<KernelSample>,
    /// A kernel sender whose host's counters are this flow's (it sends no other): its `timeouts`,
    /// `fast_retransmits` and `wired_goodput_pct` were filled from them ([`kernel_counts`]).
    /// Not written (the JSON has those keys, 0 where not filled); the text printer writes `-`
    /// where a kernel sender's are not.
    #[serde(skip)]
    pub sender_host_counts: bool,
    /// A workload flow's objects failed and corrupt, and its client's and server's errors
    /// (`web/flow.rs`); absent for a bulk flow.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub web: Option<LiveWeb>,
}

/// A live run's result: a scenario's, or the paper-000 preset's (`result.rs`).
#[derive(Debug)]
pub struct NetworkResult {
    pub run: RunResult,
    pub live: LiveExtras,
    /// Each `--exec` command's end (empty when snooplab carried the flows).
    pub exec: Vec<ExecReport>,
}

impl NetworkResult {
    /// `run --json`'s keys, with `live` added (and `exec`, when `--exec` commands ran).
    pub fn to_json(&self) -> Result<serde_json::Value, String> {
        let mut v = serde_json::to_value(Flat::of(&self.run)).map_err(|e| e.to_string())?;
        let live = serde_json::to_value(&self.live).map_err(|e| e.to_string())?;
        if let Some(m) = v.as_object_mut() {
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

    /// A kernel host's TCP counters, by its name in the network (`fh`, `mh` in the preset).
    pub fn host_tcp(&self, name: &str) -> Option<&TcpCounters> {
        self.live.hosts.iter().find(|h| h.0 == name).map(|h| &h.1)
    }

    /// What went through a kernel host's device, by its name in the network.
    pub fn host_traffic(&self, name: &str) -> Option<HostTraffic> {
        self.live.traffic.iter().find(|h| h.0 == name).map(|h| h.1)
    }
}

fn since(clock: Instant, t: Instant) -> Time {
    t.saturating_duration_since(clock).as_nanos() as Time
}

/// The digest a receiver computes over the whole of a transfer's bytes (what a modelled sender
/// sent a kernel receiver).
fn transfer_digest(seed: u64, transfer: u64) -> u64 {
    let mut d = StreamDigest::default();
    let mut buf = vec![0u8; 1 << 16];
    let mut offset = 0;
    while offset < transfer {
        let n = (transfer - offset).min(buf.len() as u64) as usize;
        crate::payload::fill(seed, offset, &mut buf[..n]);
        d.update(&buf[..n]);
        offset += n as u64;
    }
    d.finish()
}

/// A flow's result in the simulator's terms: the engine's own (what it saw of the flow on its
/// links and cells, and a modelled end's counters) with each kernel end's filled in.
fn flow_result(
    net: &Network,
    f: usize,
    (rx, tx): (Option<&ReceiverReport>, Option<&SenderReport>),
    engine: FlowResult,
    (cfg, clock): (&NetworkConfig, Instant),
) -> (FlowResult, LiveFlow) {
    let fl = &net.flows[f];
    let model = |x: bool| if x { "kernel" } else { "model" };
    let mut result = engine;
    let engine_ok = result.invariants.complete && result.invariants.payload_mismatches == 0;
    // when the first byte could go: a kernel sender's connection established, else the
    // modelled sender's open (its handshake inside the span)
    let started = tx.map_or(clock + std::time::Duration::from_nanos(fl.start), |t| {
        t.started
    });
    let ok = match (rx, tx) {
        (Some(rx), Some(tx)) => {
            rx.bytes == tx.bytes && rx.bytes == fl.transfer && rx.digest == tx.digest
        }
        (Some(rx), None) => {
            let seed = snooplab_sim::transfer_bytes::seed_of(net.seed, f);
            rx.bytes == fl.transfer && rx.digest == transfer_digest(seed, fl.transfer)
        }
        (None, Some(tx)) => engine_ok && tx.bytes == fl.transfer,
        (None, None) => engine_ok,
    };
    if let Some(rx) = rx {
        let end = rx
            .last_byte
            .unwrap_or_else(|| tx.map_or(started, |t| t.finished));
        let secs = as_secs_f64(since(started, end).max(1));
        result.throughput_mbps = rx.bytes as f64 * 8.0 / secs / 1e6;
        result.duration_s = secs;
        // the engine counts the flow's frames, not what a kernel receiver delivered
        result.wireless_goodput_pct = None;
        result.invariants = InvariantReport {
            complete: ok,
            payload_mismatches: u64::from(!ok && rx.bytes == fl.transfer),
            ..result.invariants
        };
    }
    if let Some(tx) = tx {
        result.mss = tx.tcp_info.snd_mss;
        result.sender_retransmitted_segments = u64::from(tx.tcp_info.total_retrans);
        result.start_s = as_secs_f64(since(clock, tx.started));
    }
    if tx.is_some() && rx.is_some() {
        result.host = format!("linux-{}", cfg.profile.name());
    }
    let live = LiveFlow {
        flow: fl.name.clone(),
        sender: model(tx.is_some()),
        receiver: model(rx.is_some()),
        integrity_ok: ok,
        cc: tx.map_or_else(|| format!("model {}", fl.protocol.name()), |t| t.cc.clone()),
        received_bytes: rx.map_or_else(|| if ok { fl.transfer } else { 0 }, |r| r.bytes),
        sender_rto_ms: tx.map_or(0.0, |t| f64::from(t.tcp_info.rto_us) / 1e3),
        window_clamp_bytes: rx.map(|_| crate::endpoint::window_clamp(fl.buffer)),
        window_clamp_restored: rx.map_or(0, |r| r.clamp_restored),
        sender_samples: tx.map_or_else(Vec::new, |t| t.samples.clone()),
        sender_host_counts: false,
        web: None,
    };
    (result, live)
}

/// A workload flow's result from its client and server (`web/flow.rs`), both kernel ends: the
/// server's host counts for the server where it serves this flow alone, the client's for the
/// client likewise.
fn web_flow(
    net: &Network,
    f: usize,
    ends: &WebEnds,
    hosts: &[(String, TcpCounters)],
    (result, live): (&mut FlowResult, &mut LiveFlow),
) {
    let fl = &net.flows[f];
    let counters = |node: usize, server: bool| {
        let name = &net.nodes[node].name;
        hosts
            .iter()
            .find(|h| &h.0 == name && sole_flow(net, name, server) == Some(f))
            .map(|h| &h.1)
    };
    let sole = (counters(fl.to, false), counters(fl.from, true));
    let (intact, extra) = crate::web::flow::fill(net, f, ends, sole, result);
    *live = LiveFlow {
        sender: "kernel",
        receiver: "kernel",
        integrity_ok: intact,
        received_bytes: ends.client.received_bytes,
        window_clamp_bytes: None,
        web: Some(extra),
        ..live.clone()
    };
}

/// The one flow a host is the `side` end of (sender: `from`, receiver: `to`), if it is the end of
/// exactly one: a namespace's counters are the host's, so they are a flow's only then.
fn sole_flow(net: &Network, host: &str, sender: bool) -> Option<usize> {
    let mut ends = net.flows.iter().enumerate().filter(|(_, f)| {
        let node = if sender { f.from } else { f.to };
        net.nodes[node].name == host
    });
    match (ends.next(), ends.next()) {
        (Some((i, _)), None) => Some(i),
        _ => None,
    }
}

/// The flow keys a kernel end counts and the engine does not, from the host's own counters where
/// the host is that end of one flow only: a kernel sender's timeouts (`TCPTimeouts`) and fast
/// recoveries (`TCPRenoRecovery` + `TCPSackRecovery`) and the payload it sent (wired goodput);
/// a kernel mobile host's data frames and payload written to its device, retransmissions and
/// corrupted frames included (its flow's wireless frames and goodput). The engine's own counts
/// for such an end are zero: it runs no TCP there and counts only its own flows' frames.
fn kernel_counts(net: &Network, run: &mut RunResult, extras: &mut LiveExtras) {
    let live = &mut extras.flows;
    for (name, tcp) in &extras.hosts {
        let t = extras.traffic.iter().find(|t| &t.0 == name).map(|t| t.1);
        if let Some(f) = sole_flow(net, name, true) {
            if let (Some(r), Some(l)) = (run.flows.get_mut(f), live.get_mut(f)) {
                if l.sender == "kernel" {
                    l.sender_host_counts = true;
                    r.timeouts = tcp.timeouts;
                    r.fast_retransmits = tcp.reno_recovery + tcp.sack_recovery;
                    if let Some(t) = t {
                        r.wired_goodput_pct = pct(l.received_bytes, t.payload_in);
                    }
                }
            }
        }
        if let Some(f) = sole_flow(net, name, false) {
            if let (Some(r), Some(l), Some(t)) = (run.flows.get_mut(f), live.get(f), t) {
                let mobile = net
                    .cells
                    .iter()
                    .flat_map(|c| &c.stations)
                    .any(|s| net.nodes[s.node].name == *name);
                if l.receiver == "kernel" && mobile && t.data_out > 0 {
                    r.wireless_data_frames = t.data_out;
                    r.wireless_goodput_pct = Some(pct(l.received_bytes, t.payload_out));
                }
            }
        }
    }
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
        host_input,
        flows,
        web,
    } = ends;
    let names = hosts.iter().map(|h| h.0.clone());
    let traffic = names.zip(traffic).collect();
    let mut live_flows = Vec::new();
    let engine_flows = std::mem::take(&mut run.flows);
    for (f, ((rx, tx), engine)) in flows.iter().zip(engine_flows).enumerate() {
        let (mut r, mut l) = flow_result(net, f, (rx.as_ref(), tx.as_ref()), engine, (cfg, clock));
        if let Some(Some(w)) = web.get(f) {
            web_flow(net, f, w, &hosts, (&mut r, &mut l));
            l.cc = cfg.cc.name().into();
            r.host = format!("linux-{}", cfg.profile.name());
            // the engine ran no browser on kernel hosts, and noted that no page was fetched
            // (`sim/src/run/web.rs`): the flow's own note replaces it
            let engine_note = format!(
                "0 of {} pages fetched whole",
                r.pages.as_ref().map_or(0, |p| p.pages)
            );
            run.invariants
                .messages
                .retain(|m| !m.ends_with(&engine_note));
            for m in &r.invariants.messages {
                run.invariants.note(format!("{}: {m}", r.flow));
            }
        }
        run.flows.push(r);
        live_flows.push(l);
    }
    // each flow's span on the run's clock, from its start (or its kernel sender's connection)
    // to its last byte
    let spans: Vec<(Time, Time)> = run
        .flows
        .iter()
        .map(|r| {
            let start = (r.start_s * 1e9) as Time;
            (start, start + (r.duration_s * 1e9) as Time)
        })
        .collect();
    let start = spans.iter().map(|s| s.0).min();
    let end = spans.iter().map(|s| s.1).max();
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
    let mut live = LiveExtras {
        mode: "live",
        linux_profile: cfg.profile.name().into(),
        cc: cfg.cc.name().into(),
        rto_min_ms: cfg.rto_min_ms,
        initcwnd: cfg.profile.initcwnd(),
        flows: live_flows,
        hosts,
        lateness,
        driver: counters,
        traffic,
        host_input,
        agent_max_held_segments: obs.max_held_segments,
        agent_max_held_bytes: obs.max_held_bytes,
        capacity_mbps: None,
        leftovers_removed,
        warnings,
    };
    kernel_counts(net, &mut run, &mut live);
    NetworkResult {
        run,
        live,
        exec: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use snooplab_sim::{Env, Protocol, Scenario};

    /// A live result over a simulated run of paper 000's path, both ends kernel hosts that
    /// counted what `hosts` and `traffic` say.
    fn result(sc: &Scenario) -> (Network, NetworkResult) {
        let net = sc.network();
        let run = snooplab_sim::run(sc);
        let flow = |sender, receiver| LiveFlow {
            flow: "flow0".into(),
            sender,
            receiver,
            integrity_ok: true,
            cc: "reno".into(),
            received_bytes: sc.transfer,
            sender_rto_ms: 1000.0,
            window_clamp_bytes: Some(sc.buffer),
            window_clamp_restored: 0,
            sender_samples: Vec::new(),
            sender_host_counts: false,
            web: None,
        };
        let fh = TcpCounters {
            timeouts: 3,
            reno_recovery: 2,
            sack_recovery: 1,
            ..TcpCounters::default()
        };
        let traffic = |payload_in, data_out, payload_out| HostTraffic {
            payload_in,
            data_out,
            payload_out,
            ..HostTraffic::default()
        };
        let live = LiveExtras {
            mode: "live",
            linux_profile: "paper".into(),
            cc: "reno".into(),
            rto_min_ms: Some(1000),
            initcwnd: Some(1),
            flows: vec![flow("kernel", "kernel")],
            hosts: vec![("fh".into(), fh), ("mh".into(), TcpCounters::default())],
            lateness: Lateness::default(),
            driver: DriverCounters::default(),
            traffic: vec![
                ("fh".into(), traffic(2 * sc.transfer, 0, 0)),
                ("mh".into(), traffic(0, 77, 4 * sc.transfer)),
            ],
            host_input: HostInputReport::default(),
            agent_max_held_segments: 0,
            agent_max_held_bytes: 0,
            capacity_mbps: None,
            leftovers_removed: Vec::new(),
            warnings: Vec::new(),
        };
        let r = NetworkResult {
            run,
            live,
            exec: Vec::new(),
        };
        (net, r)
    }

    fn paper000() -> Scenario {
        let mut sc = Scenario::paper000(Protocol::LlTcpAware, Env::Lan, 32 * 1024, 1);
        sc.transfer = 64 * 1024;
        sc
    }

    #[test]
    fn a_live_result_has_run_jsons_keys_and_the_live_group() {
        let sc = paper000();
        let (_, r) = result(&sc);
        let json = r.to_json().unwrap_or_default();
        let flat = serde_json::to_value(r.run.flat()).unwrap_or_default();
        let keys = |v: &serde_json::Value| -> Vec<String> {
            v.as_object()
                .map(|m| m.keys().cloned().collect())
                .unwrap_or_default()
        };
        let mut want = keys(&flat);
        want.push("live".into());
        want.sort();
        let mut got = keys(&json);
        got.sort();
        assert_eq!(got, want);
        // the clock is said inside the live group: run --json's keys are not changed by it
        assert_eq!(json["live"]["mode"], "live");
        assert!(json.get("mode").is_none());
    }

    #[test]
    fn a_kernel_ends_counts_fill_its_flows_keys_where_the_host_carries_that_flow_alone() {
        let sc = paper000();
        let (net, mut r) = result(&sc);
        kernel_counts(&net, &mut r.run, &mut r.live);
        assert!(r.live.flows[0].sender_host_counts);
        let f = r.run.flow();
        assert_eq!(f.timeouts, 3);
        assert_eq!(f.fast_retransmits, 3, "reno and SACK recoveries");
        assert_eq!(
            f.wired_goodput_pct, 50.0,
            "half the fixed host's payload was new"
        );
        assert_eq!(f.wireless_data_frames, 77);
        assert_eq!(f.wireless_goodput_pct, Some(25.0));
        // a modelled end keeps the engine's own counts
        let (net, mut r) = result(&sc);
        let engine = r.run.flow().clone();
        r.live.flows[0].sender = "model";
        r.live.flows[0].receiver = "model";
        kernel_counts(&net, &mut r.run, &mut r.live);
        assert_eq!(r.run.flow(), &engine);
        assert!(!r.live.flows[0].sender_host_counts);
    }
}
