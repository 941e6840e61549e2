//! `snooplab live --scenario FILE`: a scenario's network on the real clock (docs/live.md,
//! "Scenario files").

use std::path::Path;

use snooplab_lab::settings::RunSettings;
use snooplab_live::dirlock::{DirLock, INVOCATION_LOCK};
use snooplab_live::network_run::{run_network_with, LiveNetwork, NetworkConfig};
use snooplab_live::testbed::unavailable_reason;

use crate::cli::LiveArgs;
use crate::live_flags::{exec_specs, host_settings};
use crate::live_progress::LiveRunProgress;
use crate::live_text::{exec_failure, print_exec, print_live_result};
use crate::run_cmd::open_capture;
use crate::settings::parse_max_time;

/// The scenario and the live settings that apply to it.
fn config(a: &LiveArgs, path: &Path) -> Result<NetworkConfig, String> {
    let scenario = RunSettings {
        scenario: Some(path.to_path_buf()),
        ..RunSettings::default()
    }
    .scenario()?;
    let (profile, cc, rto_min_ms) = host_settings(a)?;
    Ok(NetworkConfig {
        scenario,
        profile,
        cc,
        rto_min_ms,
        max_time: parse_max_time(&a.max_time)?,
        exec: exec_specs(a)?,
    })
}

pub fn live_scenario(a: &LiveArgs, path: &Path) -> Result<(), String> {
    let cfg = config(a, path)?;
    run_config(a, cfg, &path.display().to_string())
}

/// Runs `cfg`'s network live and prints its result (`label` names it in the progress lines). The
/// network is built and checked here, once ([`LiveNetwork::check`]), and run as it is.
pub fn run_config(a: &LiveArgs, cfg: NetworkConfig, label: &str) -> Result<(), String> {
    let live = LiveNetwork::check(cfg)?;
    let (cfg, net) = (live.config(), live.network());
    if !cfg.exec.is_empty() {
        // the addresses a file leaves out are assigned: the commands need them
        let hosts: Vec<String> = live
            .hosts()
            .kernel
            .iter()
            .map(|k| format!("{} {}", k.1, k.2))
            .collect();
        eprintln!("hosts: {}", hosts.join(", "));
    }
    // a capture directory another invocation is writing is refused before anything is set up
    let _pcap_lock = match &a.pcap {
        Some(dir) => Some(DirLock::acquire(dir, INVOCATION_LOCK)?),
        None => None,
    };
    if let Some(why) = unavailable_reason() {
        return Err(why);
    }
    let capture = match &a.pcap {
        Some(dir) => Some(open_capture(dir, &net.capture_names())?),
        None => None,
    };
    snooplab_live::sys::catch_stop_signals()
        .map_err(|e| format!("cannot catch the stop signals: {e}"))?;
    // the --exec commands carry the traffic: snooplab counts no bytes delivered
    let counted = cfg.exec.is_empty();
    let mut progress = LiveRunProgress::start(format!("run 1/1 {label}"), a.quiet);
    let mut exec = Vec::new();
    let r = run_network_with(
        &live,
        capture,
        &mut |(_, got, total)| progress.tick(counted.then_some((got, total))),
        &mut exec,
    );
    match &r {
        Ok(r) => progress.done(counted.then_some(r.run.aggregate.throughput_mbps)),
        Err(_) => progress.failed(),
    }
    // a failed run's commands' output still shows, before the error line
    let r = r.inspect_err(|_| print_exec(&exec, true))?;
    if !r.live.leftovers_removed.is_empty() {
        eprintln!(
            "removed namespaces left by a killed run: {}",
            r.live.leftovers_removed.join(", ")
        );
    }
    if a.json {
        print_exec(&r.exec, true);
        let text = serde_json::to_string_pretty(&r.to_json()?).map_err(|e| e.to_string())?;
        println!("{text}");
    } else {
        print_exec(&r.exec, false);
        print_live_result(&r, &cfg.scenario);
    }
    if let Some(e) = exec_failure(&r.exec) {
        return Err(e);
    }
    if !r.intact() {
        return Err("the receiver's digest differs from the sender's in some flow".into());
    }
    Ok(())
}
