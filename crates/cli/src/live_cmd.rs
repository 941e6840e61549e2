//! `snooplab live`: the base-station agents on real Linux TCP (docs/live.md).

use serde::Serialize;
use snooplab_live::dirlock::{DirLock, INVOCATION_LOCK};
use snooplab_live::link_config::LinkConfig;
use snooplab_live::run::MAX_RUNS;
use snooplab_live::sys::{signal_name, stop_signal};
use snooplab_live::testbed::unavailable_reason;
use snooplab_live::{live_protocol, LiveConfig, NetworkResult};
use snooplab_sim::medium::WavelanParams;
use snooplab_sim::scenario::size_u32;
use snooplab_sim::size::parse_size;
use snooplab_sim::stats::{summarize, Summary};
use snooplab_sim::Env;

use crate::cli::LiveArgs;
use crate::live_exec::live_preset_exec;
use crate::live_flags::host_settings;
use crate::live_progress::LiveRunProgress;
use crate::live_scenario::live_scenario;
use crate::live_text::print_live_result;
use snooplab_live::host_input::HostInput;

use crate::settings::{parse_max_time, parse_seed, parse_u32, split_distinct};

/// Mean and spread of one protocol's runs.
#[derive(Serialize)]
struct LiveSummary {
    protocol: String,
    throughput_mbps: Summary,
    /// Mean throughput over the first protocol's mean.
    ratio_to_first: f64,
    /// Mean throughput over the emulated capacity.
    fraction_of_capacity: f64,
    local_retransmissions: Summary,
    sender_retransmitted_segments: Summary,
    integrity_ok_runs: usize,
}

/// Several runs (`--runs` above 1 or several protocols), as `sweep --json` writes its runs and
/// their summaries: each run in the one result's shape (`run --json`'s keys and `live`). One
/// planned run writes its result alone, as `run --json` does.
#[derive(Serialize)]
struct LiveReport {
    /// Every run that completed, in order.
    runs: Vec<serde_json::Value>,
    summaries: Vec<LiveSummary>,
    /// Every planned run completed.
    complete: bool,
    /// Runs planned (protocols x --runs).
    planned_runs: usize,
    /// The run that failed or was interrupted, which ended the invocation; null when complete.
    failed: Option<FailedRun>,
}

/// The run that ended an invocation early.
#[derive(Clone, Serialize)]
struct FailedRun {
    protocol: String,
    seed: u64,
    error: String,
}

fn configs(a: &LiveArgs) -> Result<Vec<LiveConfig>, String> {
    let protocols = split_distinct(
        &a.protocol,
        "protocol",
        "its runs would be made twice",
        |p| live_protocol(p).map_err(snooplab_lab::Error::Invalid),
    )?;
    let (profile, cc, rto_min_ms) = host_settings(a)?;
    let buffer = size_u32(
        parse_size(&a.buffer).map_err(|e| format!("buffer: {e}"))?,
        "buffer",
    )?;
    let mss = parse_u32(&a.mss, "mss")?;
    let transfer = parse_size(&a.transfer).map_err(|e| format!("transfer: {e}"))?;
    let error_every = parse_size(&a.error_every).map_err(|e| format!("error-every: {e}"))?;
    let burst = parse_u32(&a.burst, "burst")?;
    let channel = |flag: &Option<String>, what: &str| {
        flag.as_deref()
            .map(|c| crate::settings::channel_flag(c, what))
            .transpose()
    };
    let (down, up) = (channel(&a.down, "down")?, channel(&a.up, "up")?);
    let seed = parse_seed(&a.seed)?;
    let runs = parse_u32(&a.runs, "runs")?;
    if runs == 0 {
        return Err("runs must be at least 1".into());
    }
    let planned = u64::from(runs).saturating_mul(protocols.len() as u64);
    if planned > MAX_RUNS {
        return Err(format!(
            "{planned} runs planned ({} protocol(s) x --runs {runs}): at most {MAX_RUNS} per \
             invocation (each run takes real time, about 50 s for 8 MB)",
            protocols.len()
        ));
    }
    let max_time = parse_max_time(&a.max_time)?;
    let host_input = HostInput::parse(&a.host_input)?;
    let env_name = a.env.trim().to_ascii_lowercase();
    let wired = match env_name.as_str() {
        "off" => None,
        other => Some(
            Env::parse(other)
                .map_err(|e| format!("{e}, or off"))?
                .wired(),
        ),
    };
    let mut out = Vec::new();
    for protocol in &protocols {
        for i in 0..runs {
            let seed = seed + u64::from(i);
            let pcap = a.pcap.as_ref().map(|dir| {
                if protocols.len() == 1 && runs == 1 {
                    dir.clone()
                } else {
                    dir.join(format!("{}-{}", protocol.name(), seed))
                }
            });
            out.push(LiveConfig {
                protocol: *protocol,
                env_name: env_name.clone(),
                link: wired.clone().map(|wired| LinkConfig {
                    wired,
                    wavelan: WavelanParams::default(),
                    error_every,
                    burst,
                    down: down.clone(),
                    up: up.clone(),
                    seed,
                }),
                profile,
                cc,
                rto_min_ms,
                buffer,
                mss,
                transfer,
                seed,
                max_time,
                pcap,
                host_input,
            });
        }
    }
    Ok(out)
}

pub fn live(a: LiveArgs) -> Result<(), String> {
    if let Some(path) = &a.scenario {
        return live_scenario(&a, path);
    }
    let configs = configs(&a)?;
    if !a.exec.is_empty() {
        return live_preset_exec(&a, &configs);
    }
    for c in &configs {
        snooplab_live::run::validate(c)?;
    }
    // Before anything else: a capture directory another invocation is writing is refused at once
    // (each run also locks its own capture directory while it writes there).
    let _pcap_lock = match &a.pcap {
        Some(dir) => Some(DirLock::acquire(dir, INVOCATION_LOCK)?),
        None => None,
    };
    if let Some(why) = unavailable_reason() {
        return Err(why);
    }
    if configs
        .iter()
        .any(|c| c.protocol == snooplab_sim::Protocol::LlSmartTcpAware)
    {
        eprintln!(
            "note: Linux receivers put no SMART option on their ACKs; ll-smart-tcp-aware has no \
             SMART information and acts as ll-tcp-aware"
        );
    }
    snooplab_live::sys::catch_stop_signals()
        .map_err(|e| format!("cannot catch the stop signals: {e}"))?;
    // several runs: a row each as they end, then the summaries; one run: `run`'s tables of its
    // result and the live lines (`live_text.rs`)
    let rows = !a.json && configs.len() > 1;
    if rows {
        print_header();
    }
    let (results, failed) = run_each(&configs, rows, a.quiet);
    let summaries = summarize_runs(&results);
    if let ([c], [r], false) = (configs.as_slice(), results.as_slice(), a.json) {
        print_live_result(r, &snooplab_live::run::preset_scenario(c));
    }
    if a.json {
        print_json(&results, summaries, &failed, configs.len())?;
    } else if results.len() > 1 {
        print_summaries(&summaries, failed.is_some(), results.len(), configs.len());
    }
    if let Some(e) = report_failure(&failed, results.len(), configs.len()) {
        return Err(e);
    }
    integrity(&results)
}

/// The JSON of an invocation: one planned run's result alone, in `run --json`'s shape with its
/// `live` group; several in a [`LiveReport`].
fn print_json(
    results: &[NetworkResult],
    summaries: Vec<LiveSummary>,
    failed: &Option<FailedRun>,
    planned: usize,
) -> Result<(), String> {
    let runs = results
        .iter()
        .map(NetworkResult::to_json)
        .collect::<Result<Vec<_>, String>>()?;
    let text = match (planned, runs.as_slice()) {
        // a single run that failed has no result: its error line says why
        (1, []) => return Ok(()),
        (1, [one]) => serde_json::to_string_pretty(one),
        _ => serde_json::to_string_pretty(&LiveReport {
            complete: failed.is_none(),
            planned_runs: planned,
            runs,
            summaries,
            failed: failed.clone(),
        }),
    }
    .map_err(|e| e.to_string())?;
    println!("{text}");
    Ok(())
}

/// Runs each configuration in turn with its progress on stderr (none when `quiet`), printing each
/// run's row when `rows`, until one fails or a stop signal comes: the results of the runs that
/// completed and the failure.
fn run_each(
    configs: &[LiveConfig],
    rows: bool,
    quiet: bool,
) -> (Vec<NetworkResult>, Option<FailedRun>) {
    let mut results = Vec::new();
    let mut failed = None;
    for (i, cfg) in configs.iter().enumerate() {
        // A signal that arrived after the last run's transfer ended stops the next one.
        if let Some(sig) = stop_signal() {
            failed = Some(FailedRun {
                protocol: cfg.protocol.name().into(),
                seed: cfg.seed,
                error: format!(
                    "interrupted by {} before this run started",
                    signal_name(sig)
                ),
            });
            break;
        }
        let label = format!(
            "run {}/{} {} seed {}",
            i + 1,
            configs.len(),
            cfg.protocol.name(),
            cfg.seed
        );
        let mut progress = LiveRunProgress::start(label, quiet);
        let r = snooplab_live::run(cfg, &mut |p| progress.tick(Some((p.received, p.transfer))));
        let r = match r {
            Ok(r) => {
                progress.done(Some(r.run.flow().throughput_mbps));
                r
            }
            Err(error) => {
                progress.failed();
                failed = Some(FailedRun {
                    protocol: cfg.protocol.name().into(),
                    seed: cfg.seed,
                    error,
                });
                break;
            }
        };
        if !r.live.leftovers_removed.is_empty() {
            eprintln!(
                "removed namespaces left by a killed run: {}",
                r.live.leftovers_removed.join(", ")
            );
        }
        if rows {
            print_row(&r);
            for w in &r.live.warnings {
                println!(
                    "warning: {} seed {}: {w}",
                    cfg.protocol.name(),
                    r.run.setup.seed
                );
            }
        }
        results.push(r);
    }
    (results, failed)
}

/// The summary table of several runs: a row per protocol.
fn print_summaries(summaries: &[LiveSummary], incomplete: bool, done: usize, planned: usize) {
    println!();
    if incomplete {
        println!("(the {} of {} planned runs that completed)", done, planned);
    }
    println!(
        "{:<19} {:>4} {:>17} {:>8} {:>8} {:>10} {:>10} {:>9}",
        "protocol", "runs", "Mb/s (95% CI)", "ratio", "of cap", "local rx", "sender rx", "hash ok"
    );
    for s in summaries {
        println!(
            "{:<19} {:>4} {:>8.3} ± {:<6} {:>7.2}x {:>7.1}% {:>10.1} {:>10.1} {:>6}/{}",
            s.protocol,
            s.throughput_mbps.n,
            s.throughput_mbps.mean,
            s.throughput_mbps.ci_text(3),
            s.ratio_to_first,
            100.0 * s.fraction_of_capacity,
            s.local_retransmissions.mean,
            s.sender_retransmitted_segments.mean,
            s.integrity_ok_runs,
            s.throughput_mbps.n
        );
    }
}

/// The error line of an invocation that ended early, saying how many runs completed.
fn report_failure(failed: &Option<FailedRun>, done: usize, planned: usize) -> Option<String> {
    failed.as_ref().map(|f| {
        format!(
            "{} seed {}: {} ({done} of {} completed{})",
            f.protocol,
            f.seed,
            f.error,
            crate::message::count(planned as u64, "run"),
            if done > 0 { ", printed above" } else { "" }
        )
    })
}

fn integrity(results: &[NetworkResult]) -> Result<(), String> {
    if results.iter().any(|r| !r.intact()) {
        return Err("the receiver's digest differs from the sender's in some run".into());
    }
    Ok(())
}

fn print_header() {
    println!(
        "{:<19} {:>5} {:>8} {:>7} {:>8} {:>8} {:>8} {:>9} {:>4} {:>4} {:>10} {:>9} {:>5}",
        "protocol",
        "seed",
        "Mb/s",
        "of cap",
        "wl gput",
        "local rx",
        "dupsupp",
        "sender rx",
        "frec",
        "rto",
        "corrupt d/u",
        "csum err",
        "hash"
    );
}

/// A run's row, from the one result: the preset's flow (`fh` to `mh`), its kernel sender's
/// recoveries and timeouts, the receiver's checksum errors (the corrupted frames its kernel
/// dropped).
fn print_row(r: &NetworkResult) {
    let f = r.run.flow();
    let flat = r.run.flat();
    let capacity = r.live.capacity_mbps.unwrap_or(0.0);
    let of_cap = if capacity > 0.0 {
        format!("{:.1}%", 100.0 * f.throughput_mbps / capacity)
    } else {
        "-".into()
    };
    let wl = f
        .wireless_goodput_pct
        .map_or_else(|| "-".into(), |g| format!("{g:.1}%"));
    println!(
        "{:<19} {:>5} {:>8.3} {:>7} {:>8} {:>8} {:>8} {:>9} {:>4} {:>4} {:>10} {:>9} {:>5}",
        f.protocol,
        r.run.setup.seed,
        f.throughput_mbps,
        of_cap,
        wl,
        flat.local_retransmissions,
        flat.dupacks_suppressed,
        f.sender_retransmitted_segments,
        f.fast_retransmits,
        f.timeouts,
        format!(
            "{}/{}",
            flat.frames_corrupted_down, flat.frames_corrupted_up
        ),
        r.host_tcp(&f.to).map_or(0, |c| c.in_csum_errors),
        if r.intact() { "ok" } else { "BAD" }
    );
}

fn summarize_runs(results: &[NetworkResult]) -> Vec<LiveSummary> {
    let protocol = |r: &NetworkResult| r.run.flow().protocol.clone();
    let mut names: Vec<String> = Vec::new();
    for r in results {
        if !names.contains(&protocol(r)) {
            names.push(protocol(r));
        }
    }
    let mut first_mean = None;
    names
        .iter()
        .map(|name| {
            let runs: Vec<&NetworkResult> =
                results.iter().filter(|r| protocol(r) == *name).collect();
            let get = |f: &dyn Fn(&NetworkResult) -> f64| -> Summary {
                summarize(&runs.iter().map(|r| f(r)).collect::<Vec<f64>>())
            };
            let tput = get(&|r| r.run.flow().throughput_mbps);
            let first = *first_mean.get_or_insert(tput.mean);
            let capacity = runs
                .first()
                .and_then(|r| r.live.capacity_mbps)
                .unwrap_or(0.0);
            LiveSummary {
                protocol: name.clone(),
                throughput_mbps: tput,
                ratio_to_first: if first > 0.0 { tput.mean / first } else { 0.0 },
                fraction_of_capacity: if capacity > 0.0 {
                    tput.mean / capacity
                } else {
                    0.0
                },
                local_retransmissions: get(&|r| r.run.agent_total("local_retransmissions") as f64),
                sender_retransmitted_segments: get(&|r| {
                    r.run.flow().sender_retransmitted_segments as f64
                }),
                integrity_ok_runs: runs.iter().filter(|r| r.intact()).count(),
            }
        })
        .collect()
}
