//! Progress on stderr (issue 49): a short job shows none (the line waits for 2 s of wall time),
//! `--quiet` silences it in every command that shows it, and stdout is the same with or without
//! it. When the lines are shown is the ticker's unit tests' business (`run_progress.rs`, with a
//! clock of their own); nothing here depends on how long a command takes beyond its being short.

mod common;

use common::{snooplab, stderr};

/// Runs `args` with and without `--quiet`: both succeed with the same stdout (but `bench`'s, its
/// wall times); returns the two stderrs (without, with).
fn with_and_without_quiet(args: &[&str]) -> (String, String) {
    let plain = snooplab(args);
    assert!(plain.status.success(), "{args:?}: {}", stderr(&plain));
    let quiet_args: Vec<&str> = args.iter().copied().chain(["--quiet"]).collect();
    let quiet = snooplab(&quiet_args);
    assert!(quiet.status.success(), "{quiet_args:?}: {}", stderr(&quiet));
    if args[0] != "bench" {
        assert_eq!(plain.stdout, quiet.stdout, "{args:?}: stdout differs");
    }
    (stderr(&plain), stderr(&quiet))
}

#[test]
fn a_short_run_or_bench_prints_no_progress_line() {
    // a transfer of milliseconds: far under the 2 s the line waits for
    for args in [
        &["run", "--transfer", "64k"][..],
        &["run", "--transfer", "64k", "--json"],
        &["bench", "--runs", "1"],
        &["bench", "--runs", "1", "--json"],
    ] {
        let (plain, quiet) = with_and_without_quiet(args);
        assert_eq!(plain, "", "{args:?}");
        assert_eq!(quiet, "", "{args:?}");
    }
}

#[test]
fn quiet_silences_the_progress_of_sweep_and_reproduce() {
    for (args, progress) in [
        (
            &["sweep", "--seeds", "2", "--json"][..],
            "sweep: 2/2 runs done",
        ),
        (
            &["reproduce", "table2", "--seeds", "1", "--json"],
            "paper000: 12 runs in",
        ),
    ] {
        let (plain, quiet) = with_and_without_quiet(args);
        assert!(plain.contains(progress), "{args:?}: {plain}");
        assert_eq!(quiet, "", "{args:?}");
    }
}

#[test]
fn every_command_that_shows_progress_documents_quiet() {
    for cmd in ["run", "bench", "sweep", "reproduce", "live"] {
        let o = snooplab(&[cmd, "--help"]);
        assert!(o.status.success(), "{cmd}: {}", stderr(&o));
        let help = String::from_utf8_lossy(&o.stdout);
        let line = help.lines().find(|l| l.trim_start().starts_with("--quiet"));
        assert!(line.is_some(), "{cmd} --help has no --quiet: {help}");
        assert!(help.contains("no progress on stderr"), "{cmd}: {help}");
    }
    // live takes it as a flag like the others (it refuses --runs 0 after parsing, not the flag)
    let o = snooplab(&["live", "--quiet", "--runs", "0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).starts_with("error: runs must be at least 1"),
        "{}",
        stderr(&o)
    );
}

/// A live run says when it starts and ends, on stderr, and `--quiet` says nothing; the JSON on
/// stdout is one document either way. Needs root, /dev/net/tun and `ip netns`.
#[test]
#[ignore = "live: needs root, /dev/net/tun and ip netns (scripts/test-all runs it where they exist)"]
fn a_live_run_says_it_starts_and_ends_unless_quiet() {
    snooplab_live::testbed::require_live("a_live_run_says_it_starts_and_ends_unless_quiet");
    let args = [
        "live",
        "--protocol",
        "e2e",
        "--transfer",
        "256k",
        "--error-every",
        "0",
        "--json",
    ];
    for quiet in [false, true] {
        let mut a = args.to_vec();
        if quiet {
            a.push("--quiet");
        }
        let o = snooplab(&a);
        let err = stderr(&o);
        assert!(o.status.success(), "{err}");
        let v: serde_json::Value = serde_json::from_slice(&o.stdout)
            .unwrap_or_else(|e| panic!("stdout is one JSON report: {e}"));
        assert_eq!(v["live"]["flows"][0]["integrity_ok"], true, "{v}");
        let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("live: ")).collect();
        if quiet {
            assert_eq!(lines, Vec::<&str>::new(), "{err}");
            continue;
        }
        assert_eq!(
            lines.first().copied(),
            Some("live: run 1/1 e2e seed 1 started"),
            "{err}"
        );
        let mbps = v["throughput_mbps"].as_f64().unwrap_or(-1.0);
        let end = lines.last().copied().unwrap_or_default();
        assert!(
            end.starts_with("live: run 1/1 e2e seed 1 done in ")
                && end.ends_with(&format!(", {mbps:.2} Mb/s")),
            "{err}"
        );
    }
}
