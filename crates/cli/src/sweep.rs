//! `snooplab sweep`: every combination of the listed settings times every seed, in parallel, with a
//! progress bar on stderr; results are collected in a fixed order, so they never depend on threads.

use serde::Serialize;
use snooplab_sim::scenario::size_u32;
use snooplab_sim::size::{format_size, parse_size};
use snooplab_sim::stats::{summarize, Summary};
use snooplab_sim::{Env, Protocol, RunResult, Scenario};

use crate::cli::SweepArgs;
use crate::settings::{apply_host_details, parse_seed, parse_u32, set_env, split_list};
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
    seeds: usize,
    incomplete_runs: usize,
    invariant_failures: usize,
    throughput_mbps: Summary,
    wireless_goodput_pct: Summary,
    wired_goodput_pct: Summary,
    timeouts: Summary,
    fast_retransmits: Summary,
    timeout_stall_s: Summary,
}

/// Every combination, in a fixed order.
fn scenarios(a: &SweepArgs) -> Result<(Vec<Scenario>, u64), String> {
    let protocols = split_list(&a.protocol, "protocol")?
        .iter()
        .map(|p| Protocol::parse(p))
        .collect::<Result<Vec<_>, _>>()?;
    let envs = split_list(&a.env, "env")?
        .iter()
        .map(|e| Env::parse(e))
        .collect::<Result<Vec<_>, _>>()?;
    let sizes = |text: &str, what: &str| -> Result<Vec<u64>, String> {
        split_list(text, what)?
            .iter()
            .map(|s| parse_size(s).map_err(|e| format!("{what}: {e}")))
            .collect()
    };
    let buffers = sizes(&a.buffer, "buffer")?;
    let msss = sizes(&a.mss, "mss")?;
    let errors = sizes(&a.error_every, "error-every")?;
    let bursts = split_list(&a.burst, "burst")?
        .iter()
        .map(|b| parse_u32(b, "burst"))
        .collect::<Result<Vec<_>, _>>()?;
    let transfer = parse_size(&a.transfer).map_err(|e| format!("transfer: {e}"))?;
    let seeds = parse_seed(&a.seeds).map_err(|e| e.replace("seed", "seeds"))?;
    if seeds == 0 || seeds > 100_000 {
        return Err(format!("seeds {seeds} is out of range: use 1 to 100000"));
    }
    let base = parse_seed(&a.seed_base)?;
    let hosts = split_list(&a.host, "host")?
        .iter()
        .map(|h| HostPreset::parse(h))
        .collect::<Result<Vec<_>, _>>()?;
    let mut out = vec![];
    for &p in &protocols {
        for &h in &hosts {
            for &e in &envs {
                for &b in &buffers {
                    for &m in &msss {
                        for &err in &errors {
                            for &k in &bursts {
                                let mut sc = Scenario::paper000(p, e, size_u32(b, "buffer")?, base);
                                set_env(&mut sc, e);
                                sc.mss = size_u32(m, "mss")?;
                                sc.transfer = transfer;
                                sc.error_every = err;
                                sc.burst = k;
                                sc.set_host(h);
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
    let (configs, seeds) = scenarios(&a)?;
    let base = parse_seed(&a.seed_base)?;
    let jobs: Vec<Scenario> = configs
        .iter()
        .flat_map(|sc| {
            (0..seeds).map(move |i| Scenario {
                seed: base + i,
                ..sc.clone()
            })
        })
        .collect();
    let results = crate::parallel::run_all(&jobs, a.threads)?;

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
    ConfigSummary {
        protocol: sc.protocol.name().into(),
        host: sc.host_label(),
        env: sc.env.name().into(),
        buffer_bytes: sc.buffer,
        mss: sc.mss,
        transfer_bytes: sc.transfer,
        error_every_bytes: sc.error_every,
        burst: sc.burst,
        seeds: runs.len(),
        incomplete_runs: runs.iter().filter(|r| !r.invariants.complete).count(),
        invariant_failures: runs.iter().filter(|r| !r.invariants.ok()).count(),
        throughput_mbps: col(&|r| r.throughput_mbps),
        wireless_goodput_pct: col(&|r| r.wireless_goodput_pct),
        wired_goodput_pct: col(&|r| r.wired_goodput_pct),
        timeouts: col(&|r| r.timeouts as f64),
        fast_retransmits: col(&|r| r.fast_retransmits as f64),
        timeout_stall_s: col(&|r| r.timeout_stall_s),
    }
}

fn print_table(rows: &[ConfigSummary]) {
    println!(
        "{:<10} {:<11} {:<4} {:>6} {:>5} {:>7} {:>5} {:>5} | {:>16} {:>14} {:>14} {:>9} {:>8} {:>9}",
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
            "{:<10} {:<11} {:<4} {:>6} {:>5} {:>7} {:>5} {:>5} | {:>7.3} ± {:<6.3} {:>6.2} ± {:<5.2} {:>6.2} ± {:<5.2} {:>9.1} {:>8.1} {:>9}",
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
    }
    println!("(± is the half-width of the 95% confidence interval of the mean over seeds)");
}
