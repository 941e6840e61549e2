//! `snooplab sweep`: every combination of the listed settings times every seed, in parallel, with a
//! progress bar on stderr; results are collected in a fixed order, so they never depend on threads.

use serde::Serialize;
use snooplab_sim::scenario::{default_scenario, size_u32, ScenarioFile};
use snooplab_sim::size::{format_size, parse_size};
use snooplab_sim::stats::{summarize, Summary};
use snooplab_sim::{Env, Protocol, RunResult, Scenario};

use crate::cli::SweepArgs;
use crate::settings::{apply_host_details, parse_seed, parse_u32, split_list};
use snooplab_proto::tcp::HostPreset;

#[derive(Serialize)]
struct ConfigSummary {
    protocol: String,
    host: String,
    env: String,
    buffer_bytes: u32,
    mss: u32,
    transfer_bytes: u64,
    error_every_bytes: u64,
    burst: u32,
    /// The channel models of paper 000's two directions (`1/64k`, `ge 0-1/1k 1s-50ms`, `trace F`):
    /// what err/B and burst stand for when the scenario names models of its own.
    channel_down: String,
    channel_up: String,
    seeds: usize,
    incomplete_runs: usize,
    invariant_failures: usize,
    throughput_mbps: Summary,
    wireless_goodput_pct: Summary,
    wired_goodput_pct: Summary,
    timeouts: Summary,
    fast_retransmits: Summary,
    timeout_stall_s: Summary,
    /// Split runs: the base station's relay sender to the mobile host (the keys above are the
    /// fixed host's).
    #[serde(skip_serializing_if = "Option::is_none")]
    relay_timeouts: Option<Summary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    relay_fast_retransmits: Option<Summary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    relay_retransmitted_segments: Option<Summary>,
    /// Runs of several flows: all flows together, and each flow's throughput by name.
    #[serde(skip_serializing_if = "Option::is_none")]
    aggregate_throughput_mbps: Option<Summary>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    flows: Vec<FlowSummary>,
}

#[derive(Serialize)]
struct FlowSummary {
    flow: String,
    from: String,
    to: String,
    throughput_mbps: Summary,
}

/// The values of a list flag, or `[None]` (keep the base scenario's) when it is absent.
fn list<T>(
    text: &Option<String>,
    what: &str,
    parse: impl Fn(&str) -> Result<T, String>,
) -> Result<Vec<Option<T>>, String> {
    match text {
        None => Ok(vec![None]),
        Some(t) => split_list(t, what)?
            .iter()
            .map(|v| parse(v).map(Some))
            .collect(),
    }
}

/// The most runs one sweep plans (documented in `--help` and docs/outputs.md): every planned
/// scenario and every result is held in memory until the summaries are printed, so a cross
/// product of tens of millions would exhaust the machine before the first run ends.
pub const MAX_PLANNED_RUNS: u64 = 100_000;

/// What a sweep runs: every combination, each with seeds `seed_base ..= seed_base + seeds - 1`.
pub struct Plan {
    pub configs: Vec<Scenario>,
    pub seeds: u64,
    pub seed_base: u64,
}

impl Plan {
    /// Every run: each combination with each seed, combinations in order.
    fn jobs(&self) -> Vec<Scenario> {
        self.configs
            .iter()
            .flat_map(|sc| {
                (0..self.seeds).map(move |i| Scenario {
                    seed: self.seed_base + i,
                    ..sc.clone()
                })
            })
            .collect()
    }
}

/// Checks every setting and builds the combinations, without running anything.
pub fn plan(a: &SweepArgs) -> Result<Plan, String> {
    let (configs, seeds) = scenarios(a)?;
    let seed_base = parse_seed(&a.seed_base).map_err(|e| e.replace("seed", "seed-base"))?;
    if seed_base.checked_add(seeds - 1).is_none() {
        return Err(format!(
            "seed-base {seed_base} with {seeds} seeds goes past the largest seed, {}",
            u64::MAX
        ));
    }
    let plan = Plan {
        configs,
        seeds,
        seed_base,
    };
    if a.threads == Some(0) {
        return Err("threads must be at least 1".into());
    }
    Ok(plan)
}

/// Every combination, in a fixed order: the defaults, then the scenario file, then each listed value.
fn scenarios(a: &SweepArgs) -> Result<(Vec<Scenario>, u64), String> {
    let mut base = default_scenario();
    if let Some(path) = &a.scenario {
        let text = crate::files::read_scenario(path)?;
        ScenarioFile::parse(&text)
            .and_then(|mut f| {
                f.rebase_paths(path.parent().unwrap_or(std::path::Path::new(".")));
                f.apply(&mut base)
            })
            .map_err(|e| format!("scenario file {}: {e}", path.display()))?;
    }
    let size =
        |what: &'static str| move |t: &str| parse_size(t).map_err(|e| format!("{what}: {e}"));
    let protocols = list(&a.protocol, "protocol", Protocol::parse)?;
    let envs = list(&a.env, "env", Env::parse)?;
    let buffers = list(&a.buffer, "buffer", size("buffer"))?;
    let msss = list(&a.mss, "mss", size("mss"))?;
    let errors = list(&a.error_every, "error-every", size("error-every"))?;
    let bursts = list(&a.burst, "burst", |b| parse_u32(b, "burst"))?;
    let hosts = list(&a.host, "host", HostPreset::parse)?;
    if let Some(t) = &a.transfer {
        base.transfer = parse_size(t).map_err(|e| format!("transfer: {e}"))?;
    }
    let seeds = parse_seed(&a.seeds).map_err(|e| e.replace("seed", "seeds"))?;
    if seeds == 0 || seeds > 100_000 {
        return Err(format!("seeds {seeds} is out of range: use 1 to 100000"));
    }
    // counted before anything is built, so a huge cross product costs nothing
    let combinations = [
        protocols.len(),
        hosts.len(),
        envs.len(),
        buffers.len(),
        msss.len(),
        errors.len(),
        bursts.len(),
    ]
    .iter()
    .fold(1u128, |n, &len| n.saturating_mul(len as u128));
    let runs = combinations.saturating_mul(u128::from(seeds));
    if runs > u128::from(MAX_PLANNED_RUNS) {
        return Err(format!(
            "the sweep plans {runs} runs ({combinations} combinations x {seeds} seeds), more than \
             the limit of {MAX_PLANNED_RUNS}: use fewer values or seeds"
        ));
    }
    let mut out = vec![];
    for &p in &protocols {
        for &h in &hosts {
            for &e in &envs {
                for &b in &buffers {
                    for &m in &msss {
                        for &err in &errors {
                            for &k in &bursts {
                                let mut sc = base.clone();
                                if let Some(p) = p {
                                    sc.protocol = p;
                                }
                                if let Some(e) = e {
                                    sc.set_env(e);
                                }
                                if let Some(b) = b {
                                    sc.buffer = size_u32(b, "buffer")?;
                                }
                                if let Some(m) = m {
                                    sc.mss = size_u32(m, "mss")?;
                                }
                                if let Some(err) = err {
                                    sc.error_every = err;
                                    sc.error_every_down = None;
                                    sc.error_every_up = None;
                                    sc.channel_down = None;
                                    sc.channel_up = None;
                                }
                                if let Some(k) = k {
                                    sc.burst = k;
                                    sc.channel_down = None;
                                    sc.channel_up = None;
                                }
                                if let Some(h) = h {
                                    sc.set_host(h);
                                }
                                apply_host_details(&mut sc, &a.host_detail)?;
                                sc.validate()?;
                                out.push(sc);
                            }
                        }
                    }
                }
            }
        }
    }
    Ok((out, seeds))
}

pub fn sweep(a: SweepArgs) -> Result<(), String> {
    let plan = plan(&a)?;
    let jobs = plan.jobs();
    let results = crate::parallel::run_all(&jobs, a.threads, "sweep")?;
    let (configs, seeds) = (&plan.configs, plan.seeds);

    let per = seeds as usize;
    let summaries: Vec<ConfigSummary> = configs
        .iter()
        .zip(results.chunks(per))
        .map(|(sc, runs)| summarize_config(sc, runs))
        .collect();
    if a.json {
        let doc = serde_json::json!({ "summaries": summaries, "runs": results });
        println!(
            "{}",
            serde_json::to_string(&doc).map_err(|e| format!("cannot encode results: {e}"))?
        );
    } else {
        print_table(&summaries);
    }
    Ok(())
}

fn summarize_config(sc: &Scenario, runs: &[RunResult]) -> ConfigSummary {
    let col = |f: &dyn Fn(&RunResult) -> f64| -> Summary {
        summarize(&runs.iter().map(f).collect::<Vec<_>>())
    };
    let multi = runs.first().is_some_and(|r| r.flows.len() > 1);
    let split = runs.iter().any(|r| r.relay.is_some());
    let relay = |f: &dyn Fn(&snooplab_sim::metrics::RelayCounters) -> u64| {
        split.then(|| col(&|r| r.relay.as_ref().map_or(0.0, |c| f(c) as f64)))
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
        throughput_mbps: col(&|r| r.throughput_mbps),
        wireless_goodput_pct: col(&|r| r.wireless_goodput_pct),
        wired_goodput_pct: col(&|r| r.wired_goodput_pct),
        timeouts: col(&|r| r.timeouts as f64),
        fast_retransmits: col(&|r| r.fast_retransmits as f64),
        timeout_stall_s: col(&|r| r.timeout_stall_s),
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

fn print_table(rows: &[ConfigSummary]) {
    // the name columns fit the longest name (ll-smart-tcp-aware, a host with changed details), so
    // the columns after them stay aligned
    let pw = rows.iter().map(|r| r.protocol.len()).fold(10, usize::max);
    let hw = rows.iter().map(|r| r.host.len()).fold(11, usize::max);
    println!(
        "{:<pw$} {:<hw$} {:<4} {:>6} {:>5} {:>7} {:>5} {:>5} | {:>16} {:>14} {:>14} {:>9} {:>8} {:>9}",
        "protocol",
        "host",
        "env",
        "buffer",
        "mss",
        "err/B",
        "burst",
        "seeds",
        "throughput Mb/s",
        "wireless gp %",
        "wired gp %",
        "timeouts",
        "fastrx",
        "invariant"
    );
    for r in rows {
        let inv = if r.invariant_failures == 0 {
            "ok".to_string()
        } else {
            format!("{} FAIL", r.invariant_failures)
        };
        println!(
            "{:<pw$} {:<hw$} {:<4} {:>6} {:>5} {:>7} {:>5} {:>5} | {:>7.3} ± {:<6.3} {:>6.2} ± {:<5.2} {:>6.2} ± {:<5.2} {:>9.1} {:>8.1} {:>9}",
            r.protocol,
            r.host,
            r.env,
            format_size(u64::from(r.buffer_bytes)),
            r.mss,
            format_size(r.error_every_bytes),
            r.burst,
            r.seeds,
            r.throughput_mbps.mean,
            r.throughput_mbps.ci95,
            r.wireless_goodput_pct.mean,
            r.wireless_goodput_pct.ci95,
            r.wired_goodput_pct.mean,
            r.wired_goodput_pct.ci95,
            r.timeouts.mean,
            r.fast_retransmits.mean,
            inv
        );
        let shorthand =
            snooplab_sim::channel::ChannelSpec::every(r.error_every_bytes, r.burst).label();
        if r.channel_down != shorthand || r.channel_up != shorthand {
            // err/B and burst above are the shorthand; the scenario named other models
            println!("    channel: down {}, up {}", r.channel_down, r.channel_up);
        }
        if let (Some(t), Some(f), Some(x)) = (
            &r.relay_timeouts,
            &r.relay_fast_retransmits,
            &r.relay_retransmitted_segments,
        ) {
            // the columns above are the fixed host's sender; a split run's losses are the relay's
            println!(
                "    relay sender (base station to mobile host): timeouts {:.1}, fastrx {:.1}, \
                 retransmitted segments {:.1}",
                t.mean, f.mean, x.mean
            );
        }
        if let Some(agg) = &r.aggregate_throughput_mbps {
            let flows: Vec<String> = r
                .flows
                .iter()
                .map(|f| {
                    format!(
                        "{} {}>{} {:.3} ± {:.3}",
                        f.flow, f.from, f.to, f.throughput_mbps.mean, f.throughput_mbps.ci95
                    )
                })
                .collect();
            println!(
                "    all flows {:.3} ± {:.3} Mb/s; {}",
                agg.mean,
                agg.ci95,
                flows.join("; ")
            );
        }
    }
    println!("(± is the half-width of the 95% confidence interval of the mean over seeds)");
}
