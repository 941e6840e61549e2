//! Inputs that used to hang, exhaust the machine or confuse (issue 14): each is clamped (saying
//! so) or refused with one `error:` line and exit code 2, and no result is lost.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::{guarded, scratch, snooplab, stderr, stdout};

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
    // distinct values: a value named twice is refused on its own
    let many: Vec<String> = (1..=5000).map(|i| format!("{i}k")).collect();
    let mss: Vec<String> = (1..=5000).map(|i| (1000 + i).to_string()).collect();
    let (many, mss) = (many.join(","), mss.join(","));
    assert_refused(
        &["sweep", "--buffer", &many, "--mss", &mss, "--seeds", "2"],
        &["50000000 runs", "25000000 combinations x 2 seeds", "100000"],
    );
    // at the limit is fine to plan (a bad setting is still found first)
    assert_refused(
        &["sweep", "--seeds", "100000", "--buffer", "3"],
        &["buffer 3 is less than the minimum of 2k"],
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
fn bench_has_a_ceiling_and_a_short_one_prints_no_progress() {
    assert_refused(
        &["bench", "--runs", "100000000"],
        &["runs 100000000 is out of range: use 1 to 100000"],
    );
    // a bench shorter than 2 s shows no progress (tests/progress.rs: what a long one shows)
    let o = snooplab(&["bench", "--runs", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stderr(&o), "");
}

#[test]
fn bench_runs_any_protocol_or_scenario_file_and_says_what_a_frame_costs() {
    let scenario = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/cell-3-senders.toml"
    );
    let o = snooplab(&["bench", "--runs", "1", "--scenario", scenario, "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value =
        serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", stderr(&o)));
    assert!(
        v["scenario"].as_str().unwrap_or("").contains("3 flows"),
        "{v}"
    );
    // three senders on one cell: more than the two events (start, end) of each frame
    assert!(v["events_per_frame"].as_f64().unwrap_or(0.0) > 2.0, "{v}");
    assert!(v["ns_per_event"].as_f64().unwrap_or(0.0) > 0.0, "{v}");
    let o = snooplab(&["bench", "--runs", "1", "--protocol", "snoop", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_default();
    assert_eq!(v["protocol"], "ll-tcp-aware");
    assert_refused(
        &["bench", "--protocol", "vegas"],
        &["unknown protocol 'vegas'"],
    );
    assert_refused(
        &["bench", "--scenario", "/no/such/file.toml"],
        &["/no/such/file.toml"],
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
    // a line per tenth of the job, named by the paper, the last one at the end; then the rate
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("paper000: ") && l.contains(" runs done"))
        .collect();
    assert!(
        err.lines()
            .any(|l| l.starts_with("paper000: ") && l.contains(" runs/s")),
        "{err}"
    );
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
}

/// Writes `text` as a scenario file in `dir` and runs `run --scenario` on it.
fn run_file(dir: &Path, name: &str, text: &str, extra: &[&str]) -> (Output, String) {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write scenario");
    let p = s(&path);
    let mut args = vec!["run", "--scenario", &p];
    args.extend_from_slice(extra);
    (snooplab(&args), p)
}

fn refused_file(dir: &Path, name: &str, text: &str, needles: &[&str]) {
    let (o, _) = run_file(dir, name, text, &[]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{text}: {err}");
    assert_eq!(err.lines().count(), 1, "{text}: {err}");
    for n in needles {
        assert!(err.contains(n), "{text}: expected '{n}' in: {err}");
    }
}

#[test]
fn file_errors_name_the_line_the_key_and_what_is_expected() {
    let dir = scratch("messages");
    refused_file(
        &dir,
        "bool.toml",
        "buffer = true\n",
        &["line 1: buffer: expected a size like 32k or 32768, got a boolean"],
    );
    refused_file(
        &dir,
        "float.toml",
        "seed = 2\nmss = 1400.5\n",
        &["line 2: mss: 1400.5 is not a whole number of bytes"],
    );
    refused_file(
        &dir,
        "table.toml",
        "seed = 2\n[down]\nmodel = \"exponential\"\nevery = true\n",
        &["line 4: down.every: expected a size like 32k or 32768, got a boolean"],
    );
    refused_file(
        &dir,
        "burst.toml",
        "burst = \"many\"\n",
        &["line 1: burst: expected a whole number, got string \"many\""],
    );
    // unknown keys on their own line, after a comment, a blank line and inside a channel table
    refused_file(
        &dir,
        "unknown.toml",
        "# a comment\nseed = 2\n\nbufer = \"8k\"\n",
        &["line 4: unknown field `bufer`"],
    );
    refused_file(
        &dir,
        "unknown-down.toml",
        "seed = 2\n[down]\nmodel = \"exponential\"\nevery = \"64k\"\nrate = 1\n",
        &["line 5: unknown field `rate`"],
    );
    refused_file(
        &dir,
        "none.toml",
        "down = { model = \"none\", every = \"64k\" }\n",
        &["down: model \"none\" takes no every"],
    );
}

#[test]
fn max_time_is_checked_alike_on_the_command_line_and_in_a_file() {
    let dir = scratch("maxtime");
    let o = snooplab(&["run", "--max-time", "1e7", "--transfer", "1k", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (o, _) = run_file(
        &dir,
        "ok.toml",
        "max-time-s = 1e7\ntransfer = \"1k\"\n",
        &["--json"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_refused(
        &["run", "--max-time", "1e8"],
        &["max-time '1e8' must be between 1 ns and 10000000 s"],
    );
    refused_file(
        &dir,
        "big.toml",
        "max-time-s = 1e8\n",
        &["max-time-s '100000000' must be between 1 ns and 10000000 s"],
    );
    assert_refused(
        &["run", "--max-time", "0"],
        &["max-time '0' must be between 1 ns and 10000000 s"],
    );
    assert_refused(
        &["run", "--max-time", "nan"],
        &["max-time 'nan' is not a duration"],
    );
}

#[test]
fn sizes_with_a_decimal_point_are_whole_bytes_or_refused_alike() {
    let dir = scratch("sizes");
    let transfer = |o: &Output| -> serde_json::Value {
        assert!(o.status.success(), "{}", stderr(o));
        let v: serde_json::Value = serde_json::from_str(stdout(o).trim()).expect("JSON");
        v["transfer_bytes"].clone()
    };
    let flag = snooplab(&["run", "--transfer", "1.5M", "--json", "--error-every", "0"]);
    assert_eq!(transfer(&flag), 1_572_864);
    let (file, _) = run_file(
        &dir,
        "t.toml",
        "transfer = \"1.5M\"\nerror-every = 0\nmss = 1400.0\n",
        &["--json"],
    );
    assert_eq!(transfer(&file), 1_572_864);
    assert_eq!(stdout(&flag), stdout(&file));
    assert_refused(
        &["run", "--transfer", "1.1k"],
        &["transfer: size '1.1k' is not a whole number of bytes"],
    );
    refused_file(
        &dir,
        "t2.toml",
        "transfer = \"1.1k\"\n",
        &["transfer: size '1.1k' is not a whole number of bytes"],
    );
    refused_file(
        &dir,
        "t3.toml",
        "transfer = 1.5\n",
        &["transfer: 1.5 is not a whole number of bytes"],
    );
}

#[test]
fn long_values_are_echoed_as_a_short_prefix_on_one_line() {
    let dir = scratch("long");
    let long = "x".repeat(1_000_000);
    refused_file(
        &dir,
        "long.toml",
        &format!("protocol = \"{long}\"\n"),
        &[
            "unknown protocol 'xxxx",
            "(1000000 characters)",
            "(known: e2e",
        ],
    );
    let (o, _) = run_file(&dir, "long.toml", &format!("protocol = \"{long}\"\n"), &[]);
    assert!(stderr(&o).len() < 1000, "{} bytes", stderr(&o).len());
    refused_file(
        &dir,
        "newline.toml",
        "protocol = \"\"\"e2e\nsnoop\"\"\"\n",
        &["unknown protocol 'e2e\\nsnoop'"],
    );
}

#[test]
fn a_plot_that_cannot_be_written_keeps_the_result_and_says_which_file() {
    let dir = scratch("plot");
    std::fs::create_dir_all(dir.join("sequence.png")).expect("a directory in the way");
    let o = snooplab(&["run", "--transfer", "64k", "--plot", &s(&dir)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("throughput"),
        "the result: {}",
        stdout(&o)
    );
    let err = stderr(&o);
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(errors.len(), 1, "{err}");
    assert!(
        errors[0].contains("sequence.png: Is a directory") && !err.contains("Error("),
        "{err}"
    );
}

#[test]
fn sweep_table_columns_line_up_for_long_names() {
    let o = snooplab(&[
        "sweep",
        "--protocol",
        "e2e,ll-smart-tcp-aware",
        "--host-detail",
        "reader=instant",
        "--seeds",
        "2",
        "--transfer",
        "64k",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let bars: Vec<Option<usize>> = out
        .lines()
        .filter(|l| l.contains('|'))
        .map(|l| l.chars().position(|c| c == '|'))
        .collect();
    assert_eq!(bars.len(), 3, "{out}");
    assert!(bars.iter().all(|b| *b == bars[0]), "{out}");
    // and each row's env starts under the heading's
    let env_col: Vec<Option<usize>> = out
        .lines()
        .filter(|l| l.contains('|'))
        .map(|l| l.find(" lan ").or_else(|| l.find(" env ")))
        .collect();
    assert!(
        env_col.iter().all(|c| c.is_some() && *c == env_col[0]),
        "{out}"
    );
}

/// Exit code 2 and one `error:` line with every needle, from a run whose address space is held
/// to 1 GiB: an input read without bounds ends in an allocation failure, not in the machine's
/// memory (issue 26).
fn assert_refused_within_1gib(args: &[&str], needles: &[&str]) {
    let o = guarded::snooplab_within(1 << 20, args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: one line: {err}");
    assert!(err.starts_with("error: "), "{args:?}: {err}");
    for n in needles {
        assert!(err.contains(n), "{args:?}: expected '{n}' in: {err}");
    }
}

#[test]
fn plot_reads_only_small_regular_trace_files() {
    let dir = scratch("plot-files");
    let trace = dir.join("trace");
    let o = snooplab(&["run", "--transfer", "64k", "--trace", &s(&trace)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = s(&trace);
    let plot = ["plot", t.as_str(), "--out", &s(&dir.join("plots"))];
    let ok = guarded::snooplab_within(1 << 20, &plot);
    assert!(ok.status.success(), "the trace as written: {}", stderr(&ok));

    let seg = trace.join("segments.csv");
    let saved = std::fs::read(&seg).expect("segments.csv");
    // a link to /dev/zero: was read until the machine's memory ran out
    std::fs::remove_file(&seg).expect("remove");
    std::os::unix::fs::symlink("/dev/zero", &seg).expect("symlink");
    assert_refused_within_1gib(
        &plot,
        &[
            "trace file",
            "segments.csv is not a regular file (it is a character device)",
        ],
    );
    // a FIFO without a writer: was a hang
    std::fs::remove_file(&seg).expect("remove");
    let made = Command::new("mkfifo").arg(&seg).status().expect("mkfifo");
    assert!(made.success());
    assert_refused_within_1gib(
        &plot,
        &["segments.csv is not a regular file (it is a FIFO)"],
    );
    // over the limit (sparse: nothing is written)
    std::fs::remove_file(&seg).expect("remove");
    std::fs::File::create(&seg)
        .and_then(|f| f.set_len((16 << 20) + 1))
        .expect("big file");
    assert_refused_within_1gib(
        &plot,
        &["segments.csv is 16777217 bytes, more than the limit of 16777216 (16 MiB)"],
    );
    // a missing file still says what a trace directory is
    std::fs::remove_file(&seg).expect("remove");
    assert_refused_within_1gib(&plot, &["segments.csv", "a trace directory written by"]);

    // run.json only gives the title: in its place a device is passed over, the plot drawn
    std::fs::write(&seg, saved).expect("restore");
    let run_json = trace.join("run.json");
    std::fs::remove_file(&run_json).expect("remove");
    std::os::unix::fs::symlink("/dev/zero", &run_json).expect("symlink");
    let o = guarded::snooplab_within(1 << 20, &plot);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("sequence.png"), "{}", stdout(&o));
}

#[test]
fn numbers_are_refused_for_what_is_wrong_with_them() {
    let max = u64::MAX.to_string();
    assert_refused(
        &["run", "--seed", "1e300"],
        &[&format!("seed '1e300' is too large (at most {max})")],
    );
    assert_refused(
        &["run", "--seed", "18446744073709551616"],
        &["seed '18446744073709551616' is too large"],
    );
    assert_refused(
        &["run", "--seed", "1e3"],
        &["seed '1e3' must be written in digits"],
    );
    assert_refused(
        &["run", "--transfer", "2T"],
        &["transfer: size '2T' has an unknown unit 'T' (known: k, M, G"],
    );
    assert_refused(
        &["run", "--buffer", "1e300"],
        &["buffer: size '1e300' has an exponent"],
    );
    // a number of seconds, only out of range; checked before the trace is read
    assert_refused(
        &["plot", "/nonexistent", "--to", "1e9"],
        &["--to '1e9' must be between 0 and 10000000 s"],
    );
}

#[test]
fn long_echoes_and_the_argument_parser_keep_to_one_short_line() {
    let long = "x".repeat(400);
    // a value clap parses itself: was echoed whole over four lines
    let err = assert_refused(
        &["sweep", "--threads", &long],
        &[
            "invalid value 'xxxx",
            "(400 characters)",
            "see 'snooplab sweep --help'",
        ],
    );
    assert!(err.len() < 300, "{err}");
    assert_refused(
        &["run", "--sed", "3"],
        &[
            "unexpected argument '--sed' found",
            "a similar argument exists: '--seed'",
            "see 'snooplab run --help'",
        ],
    );
    assert_refused(&["runn"], &["unrecognized subcommand 'runn'", "'run'"]);
    // a path the user named
    let err = assert_refused(
        &["run", "--scenario", &format!("/tmp/{long}")],
        &["cannot read scenario file /tmp/xxxx", "(406 characters)"],
    );
    assert!(err.len() < 200, "{err}");
    // help is still help
    let o = snooplab(&["run", "--help"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("Examples:"));
}

#[test]
fn an_incomplete_run_prints_its_result_and_exits_3() {
    // the time cap ends the transfer early
    let o = snooplab(&["run", "--transfer", "1M", "--max-time", "0.2"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stdout(&o).contains("transfer incomplete"), "{}", stdout(&o));
    assert!(
        stderr(&o).contains("note: transfer incomplete") && stderr(&o).contains("exit code 3"),
        "{}",
        stderr(&o)
    );
    let o = snooplab(&["run", "--transfer", "1M", "--max-time", "0.2", "--json"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).expect("the JSON result");
    assert_eq!(v["invariants"]["complete"], false);
    // a complete one still exits 0
    let o = snooplab(&["run", "--transfer", "64k"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn scenario_files_are_json_or_toml_and_an_empty_one_is_refused() {
    let dir = scratch("formats");
    let toml = dir.join("scen.toml");
    let json = dir.join("scen.json");
    let bare = dir.join("scen");
    std::fs::write(
        &toml,
        "protocol = \"snoop\"\nbuffer = \"8k\"\ntransfer = \"64k\"\n",
    )
    .expect("w");
    std::fs::write(
        &json,
        "{\"protocol\": \"snoop\", \"buffer\": \"8k\", \"transfer\": 65536}\n",
    )
    .expect("w");
    std::fs::write(
        &bare,
        "  {\"protocol\": \"snoop\", \"buffer\": 8192, \"transfer\": \"64k\"}",
    )
    .expect("w");
    let out = |p: &Path| {
        let o = snooplab(&["run", "--scenario", &s(p), "--json"]);
        assert!(o.status.success(), "{}: {}", p.display(), stderr(&o));
        stdout(&o)
    };
    let from_toml = out(&toml);
    assert!(
        from_toml.contains("\"protocol\":\"ll-tcp-aware\""),
        "{from_toml}"
    );
    assert_eq!(out(&json), from_toml, "a .json file was read as TOML");
    assert_eq!(
        out(&bare),
        from_toml,
        "JSON without the extension, by its first character"
    );
    let o = snooplab(&["sweep", "--scenario", &s(&json), "--seeds", "1", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // JSON's own messages, with the file's name
    std::fs::write(&json, "{\"bufer\": 1}").expect("w");
    assert_refused(
        &["run", "--scenario", &s(&json)],
        &["scenario file", "scen.json: unknown field `bufer`"],
    );
    // nothing set: was the default run, without a word
    for (name, text) in [
        ("empty.toml", ""),
        ("comments.toml", "# all\n\n# comments\n"),
        ("empty.json", "{}"),
    ] {
        let p = dir.join(name);
        std::fs::write(&p, text).expect("w");
        for cmd in ["run", "sweep"] {
            assert_refused(
                &[cmd, "--scenario", &s(&p)],
                &[&format!("scenario file {} is empty", s(&p))],
            );
        }
    }
}

#[test]
fn a_sweep_list_naming_a_value_twice_is_refused() {
    assert_refused(
        &["sweep", "--protocol", "e2e,e2e"],
        &["protocol list 'e2e,e2e' names 'e2e' twice: each combination would run twice"],
    );
    assert_refused(
        &["sweep", "--protocol", "snoop,ll-tcp-aware"],
        &["as 'snoop' and 'll-tcp-aware'"],
    );
    assert_refused(&["sweep", "--buffer", "32k,32768"], &["buffer list"]);
}

/// Issue 49: one duration grammar for flags and files, units up to days, exponents and
/// fractions, a bare number read as each setting read it before, one range text everywhere.
#[test]
fn durations_are_one_grammar_in_flags_and_files() {
    let dir = scratch("durations");
    // what a new user tried: an exponent with a unit, and days
    for max in ["1e7s", "1.5d", "2h", "1e7"] {
        let o = snooplab(&["run", "--max-time", max, "--transfer", "1k", "--json"]);
        assert!(o.status.success(), "{max}: {}", stderr(&o));
    }
    let (o, _) = run_file(
        &dir,
        "units.toml",
        "max-time-s = \"1.5d\"\ntransfer = \"1k\"\n",
        &["--json"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let trace = dir.join("periods.trace");
    let ge = |duration: &str| {
        snooplab(&[
            "channel-trace",
            "gilbert-elliott",
            "--good-time",
            "1s",
            "--bad-time",
            "50ms",
            "--duration",
            duration,
            "--out",
            &s(&trace),
        ])
    };
    for ok in ["1d", "1.5h", "120s"] {
        let o = ge(ok);
        assert!(o.status.success(), "{ok}: {}", stderr(&o));
    }
    // `1e7s` is a duration, longer than a trace may cover: its range, in the one form
    let o = ge("1e7s");
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("error: duration '1e7s' must be between 1 ns and 1 d"),
        "{err}"
    );
    assert_refused(
        &[
            "channel-trace",
            "gilbert-elliott",
            "--good-time",
            "1ns",
            "--bad-time",
            "50ms",
        ],
        &["good-time '1ns' must be between 1 us and 1 d"],
    );
    refused_file(
        &dir,
        "ge.toml",
        "down = { model = \"gilbert-elliott\", good-every = 0, bad-every = \"1k\", good-time = \"2d\", bad-time = \"50ms\" }\n",
        &["down.good-time '2d' must be between 1 us and 1 d"],
    );
    assert_refused(
        &["run", "--max-time", "1 fortnight"],
        &["max-time '1 fortnight' is not a duration (a number and a unit: ns, us, ms, s, min, h or d"],
    );
}

/// A network file with one cell of `stations` (TOML list items) and a flow to `mh`.
fn cell_file(stations: &str) -> String {
    format!(
        "[[node]]\nname = \"fh\"\n[[node]]\nname = \"bs\"\nkind = \"base-station\"\n\
         [[node]]\nname = \"mh\"\n[[link]]\nbetween = [\"fh\", \"bs\"]\n\
         [[cell]]\nbase-station = \"bs\"\nstations = [{stations}]\n\
         [[flow]]\nfrom = \"fh\"\nto = \"mh\"\ntransfer = \"1k\"\n"
    )
}

/// Issue 49: what a new user's test found accepted with exit 0, each refused with one line.
#[test]
fn garbage_that_ran_is_refused() {
    let dir = scratch("garbage");
    // a station listed twice in a cell: two queues and two channels for one node
    let (o, _) = run_file(&dir, "ok.toml", &cell_file("\"mh\""), &["--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    refused_file(
        &dir,
        "twice.toml",
        &cell_file("\"mh\", \"mh\""),
        &["cell 'bs-cell': station 'mh' is listed twice"],
    );
    // and listed once plainly, once with channel settings of its own
    refused_file(
        &dir,
        "twice-station.toml",
        &format!(
            "{}[[cell.station]]\nnode = \"mh\"\nerror-every = \"32k\"\n",
            cell_file("\"mh\"")
        ),
        &["cell 'bs-cell': station 'mh' is listed twice"],
    );
    // a channel key given twice kept the last silently
    assert_refused(
        &["run", "--down", "exponential:every=64k,every=1k"],
        &["down: every is given twice (64k and 1k): give each key once"],
    );
    assert_refused(
        &[
            "run",
            "--up",
            "gilbert-elliott:good-every=0,bad-every=1k,good-time=1s,bad-time=50ms,good-time=2s",
        ],
        &["good-time is given twice (1s and 2s)"],
    );
}

/// Issue 49: every comma-separated list flag takes each value once.
#[test]
fn list_flags_name_each_value_once() {
    assert_refused(
        &["bench", "--with", "trace,trace"],
        &["--with list 'trace,trace' names 'trace' twice: each is recorded once"],
    );
    assert_refused(
        &["bench", "--with", "none,pcap"],
        &["--with 'none,pcap' names none beside what to record"],
    );
    // live's checks come before it needs root
    assert_refused(
        &["live", "--protocol", "plain,ll-tcp-aware,plain"],
        &["protocol list 'plain,ll-tcp-aware,plain' names 'plain' twice"],
    );
}

/// Issue 49: a plot window outside the run's time drew an empty chart.
#[test]
fn a_plot_window_outside_the_run_is_refused() {
    let dir = scratch("plot-window");
    let trace = dir.join("trace");
    let o = snooplab(&["run", "--transfer", "64k", "--trace", &s(&trace)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = s(&trace);
    let out = s(&dir.join("plots"));
    let plot =
        |from: &str, to: &str| snooplab(&["plot", &t, "--from", from, "--to", to, "--out", &out]);
    let ok = plot("0", "0.1");
    assert!(ok.status.success(), "{}", stderr(&ok));
    for (from, to, needle) in [
        ("1000", "2000", "lies outside the run: its trace ends at"),
        ("2", "1", "the time window is empty"),
        ("1", "1", "the time window is empty"),
    ] {
        assert_refused(
            &["plot", &t, "--from", from, "--to", to, "--out", &out],
            &[needle],
        );
    }
}

/// Paper 002's handoff example with `every-s = 5` replaced by `handoff` lines and `extra` tables
/// appended.
fn handoff_file(handoff: &str, extra: &str) -> String {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/paper002-handoff.toml"
    );
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert!(text.contains("\nevery-s = 5\n"), "the example changed");
    format!(
        "{}{extra}",
        text.replace("\nevery-s = 5\n", &format!("\n{handoff}\n"))
    )
}

/// Issue 49: periods so short that a run never ends are refused when the file is read, each with
/// one line naming the key, the value and the limit.
#[test]
fn periods_below_their_floor_are_refused() {
    let dir = scratch("periods");
    for (name, handoff, extra, needle) in [
        (
            "handoff-us.toml",
            "every-s = 1e-6",
            "",
            "handoff of 'mh': every-s '0.000001' must be between 10 ms and 10000000 s",
        ),
        (
            "handoff-unit.toml",
            "every-s = \"1us\"",
            "",
            "handoff of 'mh': every-s '1us' must be between 10 ms and 10000000 s",
        ),
        (
            "beacon.toml",
            "every-s = 5\nbeacon-interval-s = 1e-9",
            "",
            "handoff of 'mh': beacon-interval-s '0.000000001' must be between 1024 us and \
             10000000 s, or 0 for none",
        ),
        (
            "retry.toml",
            "every-s = 5\nretry-s = \"1ms\"",
            "",
            "handoff of 'mh': retry-s '1ms' must be between 10 ms and 10000000 s",
        ),
        (
            "crash.toml",
            "every-s = 5",
            "\n[[crash]]\nnode = \"bs1\"\nat-s = 1\ndown-s = 0\n",
            "crash of 'bs1': down-s '0' must be between 10 ms and 10000000 s",
        ),
    ] {
        refused_file(&dir, name, &handoff_file(handoff, extra), &[needle]);
    }
}
