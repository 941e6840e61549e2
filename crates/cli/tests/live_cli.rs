//! `snooplab live` as a user (or a signal) meets it: inputs that must not hang or exhaust the
//! machine, results that must not be lost, signals that must not leave namespaces behind, and
//! messages that name the problem (the results' contents: `live_results.rs`). Tests that run
//! transfers, or need root for their message, need root, /dev/net/tun and `ip netns`: they are
//! `#[ignore]`d (scripts/test-all includes them where those exist) and fail, naming what is
//! missing, when run without them.

mod common;

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::live::{output, temp_dir};
use common::stderr;
use snooplab_live::dirlock::{DirLock, CAPTURE_LOCK, INVOCATION_LOCK};
use snooplab_live::testbed::require_live;
fn snooplab() -> Command {
    Command::new(env!("CARGO_BIN_EXE_snooplab"))
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
