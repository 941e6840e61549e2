//! `snooplab live` as a user (or a signal) meets it: inputs that must not hang or exhaust the
//! machine, results that must not be lost, signals that must not leave namespaces behind, and
//! messages that name the problem. Tests that run transfers, or need root for their message, need
//! root, /dev/net/tun and `ip netns`: they are `#[ignore]`d (scripts/test-all includes them where
//! those exist) and fail, naming what is missing, when run without them.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use snooplab_live::dirlock::{DirLock, CAPTURE_LOCK, INVOCATION_LOCK};
use snooplab_live::testbed::require_live;

fn snooplab() -> Command {
    Command::new(env!("CARGO_BIN_EXE_snooplab"))
}

fn output(args: &[&str]) -> Output {
    snooplab()
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("the snooplab binary runs: {e}"))
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with("Uid:"))
        .and_then(|l| l.split_whitespace().nth(2).map(|v| v == "0"))
        .unwrap_or(false)
}

/// One `error:` line on stderr and exit code 2.
fn assert_error(o: &Output, needle: &str) -> String {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(errors.len(), 1, "{err}");
    assert!(errors[0].contains(needle), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    errors[0].to_string()
}

/// Waits for `child` to end, at most `limit` (a bound on a hang, not a speed): kills it and fails
/// if it is still running then.
fn wait_bounded(mut child: Child, limit: Duration) -> Output {
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if start.elapsed() < limit => std::thread::sleep(Duration::from_millis(50)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("snooplab live still running after {limit:?}");
            }
        }
    }
    child
        .wait_with_output()
        .unwrap_or_else(|e| panic!("collecting the output: {e}"))
}

/// The namespace handles and lock files of the snooplab process `pid`.
fn traces_of(pid: u32) -> Vec<String> {
    let prefix = format!("snooplab-{pid}-");
    let mut out = Vec::new();
    for dir in ["/run/netns", "/run/snooplab"] {
        if let Ok(rd) = std::fs::read_dir(dir) {
            out.extend(
                rd.filter_map(|e| e.ok())
                    .filter_map(|e| e.file_name().into_string().ok())
                    .filter(|n| n.starts_with(&prefix))
                    .map(|n| format!("{dir}/{n}")),
            );
        }
    }
    out
}

/// Waits until the run `n` (0, 1, ...) of the snooplab process `pid` has made its namespaces.
fn wait_for_run(pid: u32, n: u32, child: &mut Child) {
    let handle = PathBuf::from(format!("/run/netns/snooplab-{pid}-{n}-mh"));
    let start = Instant::now();
    while !handle.exists() {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("snooplab live ended ({status}) before run {n} started");
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "run {n} never started"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn kill(pid: i32, sig: libc::c_int) {
    // SAFETY: kill(2) with a process (or, negative, process group) id we started.
    unsafe {
        libc::kill(pid, sig);
    }
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("snooplab-live-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn runs_are_capped_before_anything_is_planned() {
    // 4294967295 runs used to abort on a 6.2 GB allocation
    let o = output(&["live", "--runs", "4294967295"]);
    let e = assert_error(&o, "4294967295 runs planned");
    assert!(e.contains("at most 1000 per invocation"), "{e}");
    let o = output(&["live", "--protocol", "plain,ll", "--runs", "501"]);
    assert_error(&o, "1002 runs planned (2 protocol(s) x --runs 501)");
}

#[test]
fn a_capture_directory_in_use_by_another_invocation_is_refused() {
    let dir = temp_dir("busy");
    let held = DirLock::acquire(&dir, INVOCATION_LOCK).unwrap_or_else(|e| panic!("{e}"));
    let o = output(&["live", "--pcap", dir.to_str().unwrap_or_default()]);
    let e = assert_error(&o, "is in use by another snooplab live run");
    assert!(e.contains(&format!("pid {}", std::process::id())), "{e}");
    drop(held);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[ignore = "live: needs root, /dev/net/tun and ip netns (scripts/test-all runs it where they exist)"]
fn a_missing_ip_command_is_named_and_root_is_not_told_to_be_root() {
    let test = "a_missing_ip_command_is_named_and_root_is_not_told_to_be_root";
    assert!(
        is_root(),
        "live test {test} cannot run here: the message for root needs root"
    );
    let empty = temp_dir("path");
    let _ = std::fs::create_dir_all(&empty);
    let o = snooplab()
        .args(["live", "--transfer", "64k"])
        .env("PATH", &empty)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let e = assert_error(&o, "the `ip` command of iproute2, which is not in PATH");
    assert!(!e.contains("root"), "{e}");
    let _ = std::fs::remove_dir_all(&empty);
}

#[test]
#[ignore = "live: needs root, /dev/net/tun and ip netns (scripts/test-all runs it where they exist)"]
fn a_missing_tun_device_is_named_and_root_is_not_told_to_be_root() {
    let test = "a_missing_tun_device_is_named_and_root_is_not_told_to_be_root";
    assert!(
        is_root() && Path::new("/dev/net/tun").exists(),
        "live test {test} cannot run here: needs root and a /dev/net/tun to hide"
    );
    // A private mount namespace with an empty /dev/net: nothing changes outside it.
    let probe = Command::new("unshare").arg("--version").output();
    assert!(
        probe.map(|o| o.status.success()).unwrap_or(false),
        "live test {test} cannot run here: no unshare(1)"
    );
    let script = format!(
        "mount -t tmpfs none /dev/net && exec {} live --transfer 64k",
        env!("CARGO_BIN_EXE_snooplab")
    );
    let o = Command::new("unshare")
        .args(["--mount", "--propagation", "private", "sh", "-c", &script])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let e = assert_error(&o, "needs /dev/net/tun, which does not exist here");
    assert!(!e.contains("root"), "{e}");
}

#[test]
#[ignore = "live: needs root, /dev/net/tun and ip netns (scripts/test-all runs it where they exist)"]
fn max_time_bounds_a_sender_that_cannot_connect() {
    require_live("max_time_bounds_a_sender_that_cannot_connect");
    // It used to wait about 135 s: the sender was stuck in connect after the base station stopped.
    let child = snooplab()
        .args(["live", "--max-time", "0.001", "--transfer", "64k"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    let pid = child.id();
    let o = wait_bounded(child, Duration::from_secs(60));
    assert_error(&o, "did not finish within 0.001 s");
    assert_eq!(traces_of(pid), Vec::<String>::new());
}

#[test]
#[ignore = "live: needs root, /dev/net/tun and ip netns (scripts/test-all runs it where they exist)"]
fn interrupted_json_prints_the_runs_that_completed() {
    require_live("interrupted_json_prints_the_runs_that_completed");
    let mut child = snooplab()
        .args([
            "live",
            "--protocol",
            "plain",
            "--runs",
            "3",
            "--json",
            "--transfer",
            "128k",
            "--error-every",
            "0",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    let pid = child.id();
    // the second run's namespaces exist: the first run is done
    wait_for_run(pid, 1, &mut child);
    kill(pid as i32, libc::SIGINT);
    let o = wait_bounded(child, Duration::from_secs(60));
    let e = assert_error(&o, "interrupted by SIGINT (Ctrl-C)");
    assert!(e.contains("1 of 3 runs completed"), "{e}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("stdout is one JSON report: {e}"));
    assert_eq!(v["runs"].as_array().map(Vec::len), Some(1), "{v}");
    assert_eq!(v["runs"][0]["live"]["flows"][0]["integrity_ok"], true);
    assert_eq!(v["complete"], false);
    assert_eq!(v["planned_runs"], 3);
    assert_eq!(v["failed"]["seed"], 2);
    assert_eq!(v["summaries"][0]["throughput_mbps"]["n"], 1);
    assert_eq!(traces_of(pid), Vec::<String>::new());
}

#[test]
#[ignore = "live: needs root, /dev/net/tun and ip netns (scripts/test-all runs it where they exist)"]
fn a_failing_run_keeps_the_earlier_runs_json() {
    require_live("a_failing_run_keeps_the_earlier_runs_json");
    // The second run's capture directory is busy: it fails, the first run's result stays. (plain
    // is e2e's alias: runs, their directories and messages name e2e.)
    let dir = temp_dir("second-busy");
    let held = DirLock::acquire(&dir.join("e2e-2"), CAPTURE_LOCK).unwrap_or_else(|e| panic!("{e}"));
    let o = output(&[
        "live",
        "--protocol",
        "plain",
        "--runs",
        "2",
        "--json",
        "--transfer",
        "64k",
        "--error-every",
        "0",
        "--pcap",
        dir.to_str().unwrap_or_default(),
    ]);
    let e = assert_error(&o, "e2e seed 2: capture directory");
    assert!(e.contains("1 of 2 runs completed"), "{e}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("stdout is one JSON report: {e}"));
    assert_eq!(v["runs"].as_array().map(Vec::len), Some(1), "{v}");
    assert_eq!(v["runs"][0]["seed"], 1);
    assert_eq!(v["complete"], false);
    assert!(v["failed"]["error"]
        .as_str()
        .is_some_and(|e| e.contains("in use")));
    drop(held);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[ignore = "live: needs root, /dev/net/tun and ip netns (scripts/test-all runs it where they exist)"]
fn every_stop_signal_is_named_and_removes_the_namespaces() {
    require_live("every_stop_signal_is_named_and_removes_the_namespaces");
    for (sig, name) in [
        (libc::SIGHUP, "SIGHUP"),
        (libc::SIGTERM, "SIGTERM"),
        (libc::SIGINT, "SIGINT (Ctrl-C)"),
    ] {
        let mut child = snooplab()
            .args(["live", "--protocol", "plain", "--transfer", "4M"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{e}"));
        let pid = child.id();
        wait_for_run(pid, 0, &mut child);
        kill(pid as i32, sig);
        let o = wait_bounded(child, Duration::from_secs(60));
        let e = assert_error(&o, &format!("interrupted by {name}"));
        if sig != libc::SIGINT {
            assert!(!e.contains("Ctrl-C"), "{e}");
        }
        assert_eq!(traces_of(pid), Vec::<String>::new(), "{name}");
    }
}

#[test]
#[ignore = "live: needs root, /dev/net/tun and ip netns (scripts/test-all runs it where they exist)"]
fn signals_to_the_whole_process_group_during_setup_and_cleanup_leave_nothing_behind() {
    require_live(
        "signals_to_the_whole_process_group_during_setup_and_cleanup_leave_nothing_behind",
    );
    // What a terminal's Ctrl-C, `timeout` or a closing ssh session do: signal every process of
    // the group, the `ip` children included. Keep doing it from the first namespace on, through
    // the setup and the cleanup, until snooplab has exited.
    for round in 0..6 {
        let round = round % 3;
        let mut child = snooplab()
            .args(["live", "--protocol", "plain", "--transfer", "1M"])
            .process_group(0)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{e}"));
        let pid = child.id();
        let handle = PathBuf::from(format!("/run/netns/snooplab-{pid}-0-fh"));
        let start = Instant::now();
        while !handle.exists() && start.elapsed() < Duration::from_secs(60) {
            if let Ok(Some(_)) = child.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        let sig = [libc::SIGTERM, libc::SIGINT, libc::SIGHUP][round];
        let start = Instant::now();
        let o = loop {
            kill(-(pid as i32), sig);
            if let Ok(Some(_)) = child.try_wait() {
                break child.wait_with_output().unwrap_or_else(|e| panic!("{e}"));
            }
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "snooplab live does not stop"
            );
            std::thread::sleep(Duration::from_millis(3));
        };
        let err = stderr(&o);
        let name = ["SIGTERM", "SIGINT (Ctrl-C)", "SIGHUP"][round];
        assert_error(&o, &format!("interrupted by {name}"));
        assert!(!err.contains("cannot remove"), "{err}");
        assert_eq!(traces_of(pid), Vec::<String>::new(), "round {round}: {err}");
    }
}

/// A replayed frame trace means the same live as in the simulator: the n-th frame towards the
/// mobile host is corrupted exactly when the trace marks it (issue 16, channels).
#[test]
#[ignore = "live: needs root, /dev/net/tun and ip netns (scripts/test-all runs it where they exist)"]
fn a_trace_channel_corrupts_live_frames_frame_for_frame() {
    require_live("a_trace_channel_corrupts_live_frames_frame_for_frame");
    let dir = std::env::temp_dir().join(format!("snooplab-live-trace-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let trace = dir.join("t.trace");
    let marks: String = (0..230)
        .map(|i| if i % 23 == 5 { '1' } else { '0' })
        .collect();
    std::fs::write(&trace, format!("frames repeat\n{marks}\n")).expect("write trace");
    let down = format!("trace:{}", trace.display());
    let o = output(&[
        "live",
        "--protocol",
        "plain",
        "--transfer",
        "256k",
        "--down",
        &down,
        "--up",
        "none",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let r = &v;
    let channels = &r["cells"][0]["channels"][0];
    let frames = channels["frames_down"].as_u64().expect("frames_down");
    let marked = (0..frames).filter(|i| i % 23 == 5).count() as u64;
    assert!(frames > 150, "{frames}");
    assert_eq!(r["frames_corrupted_down"].as_u64(), Some(marked));
    assert_eq!(r["frames_corrupted_up"].as_u64(), Some(0));
    assert_eq!(channels["up"], "none");
    assert_eq!(r["live"]["flows"][0]["integrity_ok"], true);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Where two results' shapes differ: the key paths only one of them has, walking objects and
/// the first element of arrays both have (whether a list is empty is what a run found, not its
/// shape), `live` at the top left out: the live mode's own group, which `run --json` has not.
fn shape_diff(live: &serde_json::Value, run: &serde_json::Value, path: &str) -> Vec<String> {
    use serde_json::Value;
    match (live, run) {
        (Value::Object(a), Value::Object(b)) => {
            let mut out = Vec::new();
            for k in a.keys().chain(b.keys().filter(|k| !a.contains_key(*k))) {
                if path.is_empty() && k == "live" {
                    continue;
                }
                match (a.get(k), b.get(k)) {
                    (Some(x), Some(y)) => out.extend(shape_diff(x, y, &format!("{path}{k}."))),
                    (Some(_), None) => out.push(format!("{path}{k} (live only)")),
                    _ => out.push(format!("{path}{k} (run only)")),
                }
            }
            out
        }
        (Value::Array(a), Value::Array(b)) => match (a.first(), b.first()) {
            (Some(x), Some(y)) => shape_diff(x, y, &format!("{path}[].")),
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("stdout is one JSON result: {e}"))
}

/// A copy of `examples/NAME.toml` in `dir` whose every flow carries 64 KB (a live run takes real
/// time), with the files it names beside it.
fn short_example(dir: &Path, name: &str) -> PathBuf {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let text = std::fs::read_to_string(examples.join(name)).unwrap_or_else(|e| panic!("{e}"));
    let mut short = String::new();
    let mut set = false;
    for line in text.lines() {
        if line.trim_start().starts_with("transfer") && line.contains('=') {
            let indent = &line[..line.len() - line.trim_start().len()];
            short.push_str(&format!("{indent}transfer = \"64k\"\n"));
            set = true;
        } else {
            short.push_str(line);
            short.push('\n');
        }
    }
    if !set {
        // a flat file's transfer is its default's (8 MB): a top-level key sets it
        short.insert_str(0, "transfer = \"64k\"\n");
    }
    let file = dir.join(name);
    std::fs::write(&file, short).unwrap_or_else(|e| panic!("{e}"));
    for e in std::fs::read_dir(&examples).into_iter().flatten().flatten() {
        if e.path().extension().is_some_and(|x| x == "trace") {
            let _ = std::fs::copy(e.path(), dir.join(e.file_name()));
        }
    }
    file
}

/// Whether the live mode runs a scenario file with the modern hosts (whose windows scale, as
/// paper 002's 64 KB needs): what `live --scenario` checks before it sets anything up.
fn runs_live(file: &Path) -> Result<(), String> {
    use snooplab_live::network_run::{LiveNetwork, NetworkConfig};
    use snooplab_live::LinuxProfile;
    let scenario = snooplab_lab::settings::RunSettings {
        scenario: Some(file.to_path_buf()),
        ..Default::default()
    }
    .scenario()
    .map_err(|e| e.to_string())?;
    let profile = LinuxProfile::Modern;
    let cfg = NetworkConfig {
        scenario,
        profile,
        cc: profile.default_cc(),
        rto_min_ms: profile.default_rto_min_ms(),
        max_time: 60 * snooplab_proto::time::SEC,
        exec: Vec::new(),
    };
    LiveNetwork::check(cfg).map(|_| ())
}

/// Every example file the live mode runs: `live --scenario F --json` has `run --scenario F
/// --json`'s keys, every group's included, and the `live` group (issue 48: one result for both
/// clocks).
#[test]
#[ignore = "live: needs root, /dev/net/tun and ip netns (scripts/test-all runs it where they exist)"]
fn a_scenario_runs_live_with_the_keys_of_run_json() {
    require_live("a_scenario_runs_live_with_the_keys_of_run_json");
    let dir = temp_dir("examples");
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let mut names: Vec<String> =
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".toml"))
            .collect();
    names.sort();
    let mut ran = Vec::new();
    for name in &names {
        let file = short_example(&dir, name);
        if let Err(e) = runs_live(&file) {
            eprintln!("{name}: not a live scenario: {e}");
            continue;
        }
        let f = file.to_string_lossy().into_owned();
        let live = output(&[
            "live",
            "--scenario",
            &f,
            "--linux-profile",
            "modern",
            "--json",
            "--quiet",
        ]);
        assert!(live.status.success(), "{name}: {}", stderr(&live));
        let run = output(&["run", "--scenario", &f, "--json"]);
        assert!(run.status.success(), "{name}: {}", stderr(&run));
        let (live, run) = (json(&live), json(&run));
        assert_eq!(shape_diff(&live, &run, ""), Vec::<String>::new(), "{name}");
        assert_eq!(live["live"]["mode"], "live", "{name}");
        assert!(run.get("live").is_none(), "{name}");
        if name == "cell-3-senders.toml" {
            assert_eq!(live["aggregate"]["complete_flows"], 3, "{live}");
            assert_eq!(live["invariants"]["complete"], true, "{live}");
            // text mode: run's table (a row per flow), then the live lines: a digest row per
            // flow, each intact
            let text = output(&["live", "--scenario", &f, "--quiet"]);
            let out = String::from_utf8_lossy(&text.stdout);
            assert!(text.status.success(), "{}", stderr(&text));
            let (table, live) = out
                .split_once("\nlive: ")
                .unwrap_or_else(|| panic!("no live lines after run's table: {out}"));
            assert!(
                table.starts_with("3 flows, seed ") && table.contains(": 3 of 3 complete"),
                "{out}"
            );
            let ok = |text: &str| {
                text.lines()
                    .filter(|l| l.trim_end().ends_with(" ok"))
                    .count()
            };
            assert_eq!(ok(table), 3 + 1, "a row per flow and the invariants: {out}");
            assert_eq!(ok(live), 3, "a digest row per flow: {out}");
        }
        ran.push(name.clone());
    }
    // every example but those the live mode refuses ran live (web-pages-snoop.toml too: its
    // Web workload is fetched by snooplab's HTTP client and server)
    assert!(
        ran.len() >= 13 && ran.contains(&"cell-3-senders.toml".to_string()),
        "{ran:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `live` with paper 000's flags (one protocol, one run) writes `run --json`'s result for the
/// same flags, every group's keys included, and the `live` group (issue 48: one result for both
/// clocks); several runs write each in that shape under `runs`, with their `summaries`.
#[test]
#[ignore = "live: needs root, /dev/net/tun and ip netns (scripts/test-all runs it where they exist)"]
fn paper000_flags_write_run_json_and_the_live_group() {
    require_live("paper000_flags_write_run_json_and_the_live_group");
    let flags = [
        "--protocol",
        "snoop",
        "--env",
        "lan",
        "--transfer",
        "64k",
        "--json",
    ];
    let run = output(&[&["run"], &flags[..]].concat());
    assert!(run.status.success(), "{}", stderr(&run));
    let live = output(&[&["live", "--quiet"], &flags[..]].concat());
    assert!(live.status.success(), "{}", stderr(&live));
    let (live, run) = (json(&live), json(&run));
    assert_eq!(shape_diff(&live, &run, ""), Vec::<String>::new());
    assert_eq!(live["protocol"], "ll-tcp-aware");
    assert_eq!(live["transfer_bytes"], 65536);
    assert_eq!(live["live"]["flows"][0]["integrity_ok"], true, "{live}");
    assert!(live["live"]["capacity_mbps"].as_f64() > Some(0.0), "{live}");
    assert!(live["wireless_data_frames"].as_u64() >= Some(47), "{live}");
    // the kernel sender's TCP_INFO over time: in order, a window from the first sample
    let samples = live["live"]["flows"][0]["sender_samples"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(!samples.is_empty(), "{live}");
    assert!(samples[0]["cwnd_bytes"].as_u64() > Some(0), "{live}");
    let times: Vec<f64> = samples.iter().filter_map(|s| s["t_s"].as_f64()).collect();
    assert_eq!(times.len(), samples.len());
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
    // the last sample after the FIN was acknowledged: the bytes, the SYN and the FIN
    assert_eq!(
        samples.last().map(|s| &s["bytes_acked"]),
        Some(&65538.into())
    );
    // every key of the live group, and of its groups, is in docs/outputs.md
    let doc = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/outputs.md"),
    )
    .unwrap_or_default();
    let l = &live["live"];
    let host = |group: &str| l[group][0][1].clone();
    let mut missing = Vec::new();
    for obj in [
        l,
        &l["flows"][0],
        &l["flows"][0]["sender_samples"][0],
        &host("hosts"),
        &host("traffic"),
        &l["driver"],
        &l["lateness"],
    ] {
        let keys = obj
            .as_object()
            .map(|m| m.keys().cloned().collect::<Vec<_>>());
        assert!(keys.as_ref().is_some_and(|k| !k.is_empty()), "{obj}");
        missing.extend(
            keys.into_iter()
                .flatten()
                .filter(|k| !doc.contains(&format!("`{k}`"))),
        );
    }
    assert!(missing.is_empty(), "not in docs/outputs.md: {missing:?}");
    // two runs: each in the one shape, and a summary per protocol
    let two = output(&[
        "live",
        "--quiet",
        "--protocol",
        "snoop",
        "--runs",
        "2",
        "--transfer",
        "64k",
        "--json",
    ]);
    assert!(two.status.success(), "{}", stderr(&two));
    let two = json(&two);
    assert_eq!(two["runs"].as_array().map(Vec::len), Some(2), "{two}");
    assert_eq!(shape_diff(&two["runs"][1], &run, ""), Vec::<String>::new());
    assert_eq!(two["summaries"][0]["throughput_mbps"]["n"], 2, "{two}");
    assert_eq!(two["complete"], true);
}

/// `live --protocol split` (paper 000 section III-C between kernel hosts): the base station's
/// relay carries every byte intact, its own sender's counters are reported as `snooplab run`
/// reports them, and the fixed host is acknowledged ahead of the mobile host (the relay held
/// bytes the mobile host had not acknowledged). The capture shows what the relay's handshakes
/// carry: the MSS option and nothing the relay's TCP does not implement (RFC 793/1122), even to
/// a fixed host that offers window scaling, timestamps and SACK (the modern profile).
#[test]
#[ignore = "live: needs root, /dev/net/tun and ip netns (scripts/test-all runs it where they exist)"]
fn split_relays_every_byte_between_kernel_hosts() {
    require_live("split_relays_every_byte_between_kernel_hosts");
    let dir = temp_dir("split");
    let caps = dir.join("caps");
    let c = caps.to_string_lossy().into_owned();
    for profile in ["paper", "modern"] {
        let _ = std::fs::remove_dir_all(&caps);
        let o = output(&[
            "live",
            "--protocol",
            "split",
            "--linux-profile",
            profile,
            "--transfer",
            "256k",
            "--error-every",
            "32k",
            "--pcap",
            &c,
            "--json",
        ]);
        assert!(o.status.success(), "{profile}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
        let r = &v;
        assert_eq!(r["protocol"], "split");
        assert_eq!(
            r["live"]["flows"][0]["integrity_ok"], true,
            "{profile}: {r}"
        );
        // the fixed host's device: every payload byte it sent, [name, counters] per host
        let fh = r["live"]["traffic"]
            .as_array()
            .and_then(|t| t.iter().find(|h| h[0] == "fh"))
            .map(|h| &h[1]);
        assert!(
            fh.and_then(|t| t["payload_in"].as_u64()) >= Some(256 * 1024),
            "{r}"
        );
        // the relay's own sender repaired the wireless losses
        let relay = &r["relay"];
        let corrupted = r["frames_corrupted_down"].as_u64().unwrap_or(0);
        assert!(corrupted > 3, "{profile}: too few errors to test: {r}");
        assert!(
            relay["retransmitted_segments"].as_u64() >= Some(corrupted / 2),
            "{profile}: {r}"
        );
        assert_eq!(r["local_retransmissions"], relay["retransmitted_segments"]);
        // the fixed host was acknowledged bytes the mobile host had not acknowledged yet
        assert!(
            r["live"]["agent_max_held_bytes"].as_u64() > Some(1400),
            "{profile}: {r}"
        );
        assert_eq!(
            r["mss"], 1400,
            "{profile}: the relay offered MSS 1400 and no timestamps"
        );
        let wired = std::fs::read(caps.join("wired.pcap")).unwrap_or_default();
        let wireless = std::fs::read(caps.join("wireless.pcap")).unwrap_or_default();
        // the relay's half of each handshake, the SYN-ACK to the fixed host (from the mobile
        // host's address) and the SYN to the mobile host (from the fixed host's): the MSS
        // option alone (kind 2)
        for (name, pcap, relay_as_fh) in [("wired", &wired, false), ("wireless", &wireless, true)] {
            let syns = syn_options(pcap);
            let mine: Vec<_> = syns
                .iter()
                .filter(|(from_fh, ack, _)| *from_fh == relay_as_fh && *ack != relay_as_fh)
                .collect();
            assert!(!mine.is_empty(), "{profile} {name}: {syns:?}");
            assert!(
                mine.iter().all(|s| s.2 == [2]),
                "{profile} {name}: {syns:?}"
            );
        }
        // what the fixed host's kernel offered: more than the MSS with the modern profile
        let fh_syn = syn_options(&wired)
            .into_iter()
            .find(|s| s.0 && !s.1)
            .map(|s| s.2)
            .unwrap_or_default();
        if profile == "modern" {
            assert!(fh_syn.contains(&3) && fh_syn.contains(&8), "{fh_syn:?}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every SYN in a pcap file: (sent by the fixed host 10.0.0.1, carries ACK, its option kinds
/// other than NOP and EOL).
fn syn_options(pcap: &[u8]) -> Vec<(bool, bool, Vec<u8>)> {
    let mut out = Vec::new();
    let mut at = 24; // the file header
    while at + 16 <= pcap.len() {
        let len =
            u32::from_le_bytes([pcap[at + 8], pcap[at + 9], pcap[at + 10], pcap[at + 11]]) as usize;
        let Some(p) = pcap.get(at + 16..at + 16 + len) else {
            break;
        };
        at += 16 + len;
        if p.len() < 40 || p[9] != 6 {
            continue;
        }
        let ihl = usize::from(p[0] & 0x0f) * 4;
        let Some(tcp) = p.get(ihl..) else { continue };
        if tcp.len() < 20 || tcp[13] & 0x02 == 0 {
            continue;
        }
        let doff = usize::from(tcp[12] >> 4) * 4;
        let mut kinds = Vec::new();
        let mut o = 20;
        while o < doff.min(tcp.len()) {
            match tcp[o] {
                0 => break,
                1 => o += 1,
                k => {
                    kinds.push(k);
                    o += usize::from(tcp.get(o + 1).copied().unwrap_or(2)).max(2);
                }
            }
        }
        out.push((p[12..16] == [10, 0, 0, 1], tcp[13] & 0x10 != 0, kinds));
    }
    out
}
