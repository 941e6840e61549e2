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

/// The file's scenario with the network flags the command line gave over its values, as `snooplab
/// run --scenario` takes them (one network language: the same file and flags make the same network
/// in both clocks). A request the file cannot take is refused: several protocols or runs (one
/// network, one run), or `--env off` (the file's links are the network).
fn scenario_settings(a: &LiveArgs, path: &Path) -> Result<RunSettings, String> {
    let given = |id: &str, v: &str| a.gave(id).then(|| v.to_string());
    if a.gave("protocol") && a.protocol.contains(',') {
        return Err(format!(
            "--protocol {} names several protocols; with --scenario give one (one network, one run)",
            a.protocol
        ));
    }
    if a.gave("runs") && a.runs.trim() != "1" {
        return Err(format!(
            "--runs {} with --scenario: a scenario runs once live; run it again with another --seed",
            a.runs
        ));
    }
    if a.gave("env") && a.env.trim() == "off" {
        return Err(
            "--env off with --scenario: the file's links are the network; give lan or wan, or leave --env out"
                .into(),
        );
    }
    Ok(RunSettings {
        scenario: Some(path.to_path_buf()),
        protocol: given("protocol", &a.protocol),
        env: given("env", &a.env),
        buffer: given("buffer", &a.buffer),
        mss: given("mss", &a.mss),
        transfer: given("transfer", &a.transfer),
        error_every: given("error_every", &a.error_every),
        burst: given("burst", &a.burst),
        down: a.gave("down").then(|| a.down.clone()).flatten(),
        up: a.gave("up").then(|| a.up.clone()).flatten(),
        seed: given("seed", &a.seed),
        ..RunSettings::default()
    })
}

/// The scenario and the live settings that apply to it.
fn config(a: &LiveArgs, path: &Path) -> Result<NetworkConfig, String> {
    let scenario = scenario_settings(a, path)?.scenario()?;
    let (profile, cc, rto_min_ms) = host_settings(a)?;
    Ok(NetworkConfig {
        scenario,
        profile,
        cc,
        rto_min_ms,
        max_time: parse_max_time(&a.max_time)?,
        exec: exec_specs(a)?,
        host_input: snooplab_live::host_input::HostInput::parse(&a.host_input)?,
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

#[cfg(test)]
mod tests {
    use snooplab_sim::Protocol;

    use super::*;
    use crate::cli::{parse_from, Command};

    fn live_args(flags: &[&str]) -> LiveArgs {
        let argv = ["snooplab", "live", "--scenario", "examples/lan-32k.toml"];
        match parse_from(argv.iter().chain(flags)) {
            Ok(cli) => match cli.command {
                Command::Live(a) => a,
                other => panic!("not live: {other:?}"),
            },
            Err(e) => panic!("{e}"),
        }
    }

    fn file() -> &'static Path {
        // the tests run in the crate's directory
        Path::new("../../examples/lan-32k.toml")
    }

    #[test]
    fn the_flags_given_override_the_file_as_run_scenarios_do() {
        let plain = scenario_settings(&live_args(&[]), file())
            .and_then(|s| s.scenario().map_err(|e| e.to_string()));
        let split = scenario_settings(&live_args(&["--protocol", "split", "--seed", "7"]), file())
            .and_then(|s| s.scenario().map_err(|e| e.to_string()));
        let (plain, split) = (
            plain.unwrap_or_else(|e| panic!("{e}")),
            split.unwrap_or_else(|e| panic!("{e}")),
        );
        // a flag not given leaves the file's value, not the flag's default (ll-tcp-aware)
        assert_eq!(plain.protocol, Protocol::E2e);
        assert_eq!(Ok(split.protocol), Protocol::parse("split"));
        assert_eq!(split.seed, 7);
        assert_eq!(split.buffer, plain.buffer);
    }

    #[test]
    fn what_a_file_cannot_take_is_refused_in_one_line() {
        for flags in [
            &["--protocol", "e2e,split"][..],
            &["--runs", "3"][..],
            &["--env", "off"][..],
        ] {
            let e = scenario_settings(&live_args(flags), file()).err();
            let e = e.unwrap_or_else(|| panic!("{flags:?} accepted"));
            assert!(!e.contains('\n') && e.contains("--scenario"), "{e}");
        }
        assert!(scenario_settings(&live_args(&["--runs", "1"]), file()).is_ok());
    }
}
