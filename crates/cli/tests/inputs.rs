//! Inputs that used to hang, exhaust the machine or confuse (issue 14): each is clamped (saying
//! so) or refused with one `error:` line and exit code 2, and no result is lost.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Only a guard against a hang, so that a regression fails instead of blocking the suite; far
/// longer than any of these commands takes, and nothing is asserted about the time.
const HANG_GUARD: Duration = Duration::from_secs(300);

/// Runs the binary with stdout and stderr piped (so stderr is not a terminal), killing it if it
/// has not ended within [`HANG_GUARD`].
fn snooplab(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_snooplab"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the snooplab binary runs");
    // drain both pipes on threads, so a chatty child cannot block on a full pipe
    let mut out = child.stdout.take().expect("stdout piped");
    let mut err = child.stderr.take().expect("stderr piped");
    let out_t = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = out.read_to_end(&mut b);
        b
    });
    let err_t = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = err.read_to_end(&mut b);
        b
    });
    let started = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if started.elapsed() > HANG_GUARD {
            let _ = child.kill();
            let _ = child.wait();
            panic!("snooplab {args:?} did not end (killed)");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: out_t.join().expect("stdout reader"),
        stderr: err_t.join().expect("stderr reader"),
    }
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Exit code 2, exactly one line on stderr, starting `error:`, containing every needle.
fn assert_refused(args: &[&str], needles: &[&str]) -> String {
    let o = snooplab(args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: one line: {err}");
    assert!(err.starts_with("error: "), "{args:?}: {err}");
    for n in needles {
        assert!(err.contains(n), "{args:?}: expected '{n}' in: {err}");
    }
    err
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("snooplab-inputs-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

#[test]
fn threads_are_capped_at_what_is_useful_and_say_so() {
    // two runs: two threads, however many were asked for
    let o = snooplab(&[
        "sweep",
        "--threads",
        "100000",
        "--seeds",
        "2",
        "--transfer",
        "64k",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--threads 100000 lowered to 2"),
        "{}",
        stderr(&o)
    );
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).expect("JSON");
    assert_eq!(v["runs"].as_array().map(Vec::len), Some(2));
    // the same for reproduce
    let o = snooplab(&[
        "reproduce",
        "table2",
        "--seeds",
        "1",
        "--threads",
        "100000",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("lowered to"), "{}", stderr(&o));
    // more runs than the ceiling: the ceiling
    let o = snooplab(&[
        "sweep",
        "--threads",
        "1000",
        "--seeds",
        "300",
        "--transfer",
        "1k",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--threads 1000 lowered to 256 (at most 256)"),
        "{}",
        stderr(&o)
    );
    assert_refused(
        &["sweep", "--threads", "0"],
        &["threads must be at least 1"],
    );
}

#[test]
fn a_sweep_of_tens_of_millions_of_runs_is_refused_before_it_is_built() {
    let many = vec!["8k"; 5000].join(",");
    let mss = vec!["1400"; 5000].join(",");
    assert_refused(
        &["sweep", "--buffer", &many, "--mss", &mss, "--seeds", "2"],
        &["50000000 runs", "25000000 combinations x 2 seeds", "100000"],
    );
    // at the limit is fine to plan (a bad setting is still found first)
    assert_refused(
        &["sweep", "--seeds", "100000", "--buffer", "3"],
        &["buffer 3 is out of range"],
    );
    assert_refused(
        &[
            "sweep",
            "--seed-base",
            "18446744073709551615",
            "--seeds",
            "2",
        ],
        &["seed-base 18446744073709551615 with 2 seeds"],
    );
}

#[test]
fn bench_has_a_ceiling_and_progress() {
    assert_refused(
        &["bench", "--runs", "100000000"],
        &["runs 100000000 is out of range: use 1 to 100000"],
    );
    let o = snooplab(&["bench", "--runs", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("bench: 1/2 runs done") && err.contains("bench: 2/2 runs done"),
        "{err}"
    );
}

#[test]
fn progress_is_plain_lines_when_stderr_is_not_a_terminal() {
    let o = snooplab(&["sweep", "--seeds", "3", "--transfer", "64k"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    for i in 1..=3 {
        assert!(err.contains(&format!("sweep: {i}/3 runs done")), "{err}");
    }
    let o = snooplab(&["reproduce", "table2", "--seeds", "1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    // a line per tenth of the job, the last one at the end
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("reproduce: "))
        .collect();
    assert!(lines.len() >= 2 && lines.len() <= 11, "{err}");
    let last = lines.last().copied().unwrap_or_default();
    let total = last
        .split_whitespace()
        .nth(1)
        .and_then(|f| f.split_once('/'))
        .map(|(a, b)| (a.to_string(), b.to_string()));
    assert!(matches!(total, Some((a, b)) if a == b), "{err}");
}

#[test]
fn scenario_files_that_are_not_small_regular_files_are_refused_unread() {
    let dir = scratch("files");
    for cmd in ["run", "sweep"] {
        assert_refused(
            &[cmd, "--scenario", "/dev/zero"],
            &[
                "scenario file /dev/zero is not a regular file",
                "character device",
            ],
        );
        assert_refused(&[cmd, "--scenario", &s(&dir)], &["a directory"]);
    }
    // a FIFO without a writer: opening it must not block
    let fifo = dir.join("fifo.toml");
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    assert_refused(&["run", "--scenario", &s(&fifo)], &["a FIFO"]);
    assert_refused(&["sweep", "--scenario", &s(&fifo)], &["a FIFO"]);
    // over 1 MiB (sparse: nothing is written)
    let big = dir.join("big.toml");
    std::fs::File::create(&big)
        .and_then(|f| f.set_len(2 << 20))
        .expect("big file");
    assert_refused(
        &["run", "--scenario", &s(&big)],
        &["2097152 bytes", "1048576 (1 MiB)"],
    );
    let _ = std::fs::remove_dir_all(&dir);
}
