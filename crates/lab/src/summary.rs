//! A sweep's summary of one combination over its seeds: the settings that define it and the mean
//! and 95% interval of each measurement (`sweep --json`'s `summaries`, the table's rows, the
//! Python package's summary frame).

use serde::Serialize;
use snooplab_sim::metrics::RelayCounters;
use snooplab_sim::stats::{summarize as stats, Summary};
use snooplab_sim::{RunResult, Scenario};

#[derive(Clone, Debug, Serialize)]
pub struct ConfigSummary {
    pub protocol: String,
    pub host: String,
    pub env: String,
    pub buffer_bytes: u32,
    pub mss: u32,
    pub transfer_bytes: u64,
    pub error_every_bytes: u64,
    pub burst: u32,
    /// The channel models of paper 000's two directions (`1/64k`, `ge 0-1/1k 1s-50ms`, `trace F`):
    /// what err/B and burst stand for when the scenario names models of its own.
    pub channel_down: String,
    pub channel_up: String,
    pub seeds: usize,
    pub incomplete_runs: usize,
    pub invariant_failures: usize,
    pub throughput_mbps: Summary,
    /// Over the runs whose data crossed a wireless link; `None` (`null`, `n/a`) for a wired path.
    pub wireless_goodput_pct: Option<Summary>,
    pub wired_goodput_pct: Summary,
    pub timeouts: Summary,
    pub fast_retransmits: Summary,
    pub timeout_stall_s: Summary,
    /// Split runs: the base station's relay sender to the mobile host (the keys above are the
    /// fixed host's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relay_timeouts: Option<Summary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relay_fast_retransmits: Option<Summary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relay_retransmitted_segments: Option<Summary>,
    /// Runs of several flows: all flows together, and each flow's throughput by name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aggregate_throughput_mbps: Option<Summary>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub flows: Vec<FlowSummary>,
}

#[derive(Clone, Debug, Serialize)]
pub struct FlowSummary {
    pub flow: String,
    pub from: String,
    pub to: String,
    pub throughput_mbps: Summary,
}

/// The summary of `sc`'s runs (one per seed).
pub fn summarize(sc: &Scenario, runs: &[RunResult]) -> ConfigSummary {
    let col = |f: &dyn Fn(&RunResult) -> f64| -> Summary {
        stats(&runs.iter().map(f).collect::<Vec<_>>())
    };
    let multi = runs.first().is_some_and(|r| r.flows.len() > 1);
    let split = runs.iter().any(|r| r.flow().relay.is_some());
    let relay = |f: &dyn Fn(&RelayCounters) -> u64| {
        split.then(|| col(&|r| r.flow().relay.as_ref().map_or(0.0, |c| f(c) as f64)))
    };
    ConfigSummary {
        protocol: sc.protocol.name().into(),
        host: sc.host_label(),
        env: sc.env.name().into(),
        buffer_bytes: sc.buffer,
        mss: sc.mss,
        transfer_bytes: sc.transfer,
        error_every_bytes: sc.error_every,
        burst: sc.burst,
        channel_down: sc.channel(true).label(),
        channel_up: sc.channel(false).label(),
        seeds: runs.len(),
        incomplete_runs: runs.iter().filter(|r| !r.invariants.complete).count(),
        invariant_failures: runs.iter().filter(|r| !r.invariants.ok()).count(),
        throughput_mbps: col(&|r| r.flow().throughput_mbps),
        wireless_goodput_pct: {
            let v: Vec<f64> = runs
                .iter()
                .filter_map(RunResult::wireless_goodput)
                .collect();
            (!v.is_empty()).then(|| stats(&v))
        },
        wired_goodput_pct: col(&|r| r.flow().wired_goodput_pct),
        timeouts: col(&|r| r.flow().timeouts as f64),
        fast_retransmits: col(&|r| r.flow().fast_retransmits as f64),
        timeout_stall_s: col(&|r| r.flow().timeout_stall_s),
        relay_timeouts: relay(&|c| c.timeouts),
        relay_fast_retransmits: relay(&|c| c.fast_retransmits),
        relay_retransmitted_segments: relay(&|c| c.retransmitted_segments),
        aggregate_throughput_mbps: multi.then(|| col(&|r| r.aggregate.throughput_mbps)),
        flows: if multi {
            runs[0]
                .flows
                .iter()
                .enumerate()
                .map(|(i, f)| FlowSummary {
                    flow: f.flow.clone(),
                    from: f.from.clone(),
                    to: f.to.clone(),
                    throughput_mbps: col(&|r| r.flows.get(i).map_or(0.0, |f| f.throughput_mbps)),
                })
                .collect()
        } else {
            vec![]
        },
    }
}
