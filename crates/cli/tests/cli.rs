//! The command line as a user meets it: outputs, determinism across threads, and errors on bad input
//! (one line naming the problem, exit code 2, no panic).

mod common;

use common::{scratch, snooplab, stderr, stdout};

const SHORT: &[&str] = &["--transfer", "512k"];

#[test]
fn run_json_has_the_documented_keys() {
    let mut args = vec!["run", "--json", "--seed", "3"];
    args.extend_from_slice(SHORT);
    let o = snooplab(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).expect("one JSON object");
    for key in [
        "protocol",
        "env",
        "buffer_bytes",
        "mss",
        "transfer_bytes",
        "error_every_bytes",
        "burst",
        "seed",
        "throughput_mbps",
        "wireless_goodput_pct",
        "wired_goodput_pct",
        "timeouts",
        "fast_retransmits",
        "duration_s",
        "events",
    ] {
        assert!(v.get(key).is_some(), "missing key {key}");
    }
    assert_eq!(v["protocol"], "e2e");
    assert_eq!(v["transfer_bytes"], 524288);
    assert_eq!(v["seed"], 3);
}

#[test]
fn run_is_byte_identical_across_invocations() {
    let args = [
        "run",
        "--json",
        "--env",
        "wan",
        "--buffer",
        "8k",
        "--seed",
        "9",
        "--transfer",
        "1M",
    ];
    assert_eq!(stdout(&snooplab(&args)), stdout(&snooplab(&args)));
}

#[test]
fn sweep_json_does_not_depend_on_thread_count() {
    let base = [
        "sweep",
        "--json",
        "--env",
        "lan,wan",
        "--buffer",
        "8k,32k",
        "--seeds",
        "3",
        "--transfer",
        "512k",
    ];
    let mut one = base.to_vec();
    one.extend_from_slice(&["--threads", "1"]);
    let mut two = base.to_vec();
    two.extend_from_slice(&["--threads", "2"]);
    let a = snooplab(&one);
    let b = snooplab(&two);
    assert!(a.status.success(), "{}", stderr(&a));
    assert_eq!(stdout(&a), stdout(&b));
    let v: serde_json::Value = serde_json::from_str(stdout(&a).trim()).expect("JSON");
    assert_eq!(v["summaries"].as_array().map(Vec::len), Some(4));
    assert_eq!(v["runs"].as_array().map(Vec::len), Some(12));
}

#[test]
fn sweep_table_shows_mean_and_interval() {
    let o = snooplab(&["sweep", "--seeds", "3", "--transfer", "256k"]);
    assert!(o.status.success());
    let out = stdout(&o);
    assert!(out.contains("e2e") && out.contains('±'), "{out}");
}

#[test]
fn scenario_file_sets_the_run_and_flags_override_it() {
    let dir = scratch("cli");
    let path = dir.join("s.toml");
    std::fs::write(
        &path,
        "protocol = \"e2e\"\nenv = \"wan\"\nbuffer = \"8k\"\nmss = 1400\ntransfer = \"256k\"\nerror-every = \"32k\"\nburst = 2\nseed = 5\n",
    )
    .expect("write scenario");
    let p = path.to_string_lossy().to_string();
    let o = snooplab(&["run", "--scenario", &p, "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).expect("JSON");
    assert_eq!(v["env"], "wan");
    assert_eq!(v["buffer_bytes"], 8192);
    assert_eq!(v["error_every_bytes"], 32768);
    assert_eq!(v["burst"], 2);
    assert_eq!(v["seed"], 5);
    let o = snooplab(&[
        "run",
        "--scenario",
        &p,
        "--json",
        "--seed",
        "6",
        "--env",
        "lan",
    ]);
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).expect("JSON");
    assert_eq!(v["seed"], 6);
    assert_eq!(v["env"], "lan");
}

#[test]
fn host_profiles_from_flags_and_scenario_files() {
    // the default is paper 000's BSD/OS 2.1
    let o = snooplab(&["run", "--json", "--transfer", "256k"]);
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).expect("JSON");
    assert_eq!(v["host"], "bsdos-2.1");
    assert_eq!(v["host_details"]["reader"], "process");
    for key in [
        "persist_timeouts",
        "zero_window_acks",
        "window_updates",
        "predicted_acks",
        "predicted_data",
    ] {
        assert!(v.get(key).is_some(), "missing key {key}");
    }
    let o = snooplab(&[
        "run",
        "--json",
        "--transfer",
        "256k",
        "--host",
        "freebsd-2.2",
        "--host-detail",
        "read-delay=2ms",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).expect("JSON");
    assert_eq!(v["host"], "freebsd-2.2 [read-delay=2ms]");
    assert_eq!(v["host_details"]["rtt-estimator"], "fine");
    // the same from a file, and the flag over the file
    let dir = scratch("host");
    let path = dir.join("h.toml");
    std::fs::write(
        &path,
        "transfer = \"256k\"\nhost = \"freebsd-2.2\"\n[host-details]\nread-delay = \"2ms\"\nread-size = 4096\npersist = true\n",
    )
    .expect("write scenario");
    let p = path.to_string_lossy().to_string();
    let o = snooplab(&["run", "--scenario", &p, "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).expect("JSON");
    assert_eq!(v["host"], "freebsd-2.2 [read-delay=2ms,read-size=4096]");
    let o = snooplab(&[
        "run",
        "--scenario",
        &p,
        "--json",
        "--host-detail",
        "read-size=8192",
    ]);
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).expect("JSON");
    assert_eq!(v["host"], "freebsd-2.2 [read-delay=2ms]");
    // every profile is listed with its details
    let o = snooplab(&["hosts"]);
    let out = stdout(&o);
    for name in [
        "bsd44-lite",
        "bsdos-2.1",
        "freebsd-2.2",
        "ca-increment=plain",
    ] {
        assert!(out.contains(name), "{out}");
    }
}

#[test]
fn protocols_lists_names_with_descriptions() {
    let o = snooplab(&["protocols"]);
    assert!(o.status.success());
    let out = stdout(&o);
    assert!(out
        .lines()
        .any(|l| l.starts_with("e2e ") && l.contains("Reno")));
}

/// Bad input: exit code 2, one line on stderr naming the problem, nothing that looks like a panic.
fn assert_rejected(args: &[&str], needle: &str) {
    let o = snooplab(args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    assert!(
        err.to_lowercase().contains(&needle.to_lowercase()),
        "{args:?}: expected '{needle}' in: {err}"
    );
}

#[test]
fn bad_input_is_rejected_with_a_clear_error() {
    assert_rejected(&["run", "--protocol", "tahoe"], "unknown protocol 'tahoe'");
    assert_rejected(&["run", "--env", "moon"], "unknown env 'moon'");
    assert_rejected(&["run", "--buffer", "-8k"], "negative");
    assert_rejected(&["run", "--buffer", "lots"], "not a number of bytes");
    assert_rejected(&["run", "--transfer", "-1"], "negative");
    assert_rejected(&["run", "--mss", "0"], "mss 0 is out of range");
    assert_rejected(&["run", "--buffer", "10G"], "buffer");
    assert_rejected(&["run", "--burst", "0"], "burst 0");
    assert_rejected(&["run", "--seed", "x"], "seed");
    assert_rejected(&["run", "--error-every", "3"], "error-every 3 is too small");
    assert_rejected(&["run", "--host", "solaris"], "unknown host 'solaris'");
    assert_rejected(&["run", "--host-detail", "reader"], "is not KEY=VALUE");
    assert_rejected(
        &["run", "--host-detail", "nagle=on"],
        "unknown host detail 'nagle'",
    );
    assert_rejected(
        &["run", "--host-detail", "read-delay=soon"],
        "host detail read-delay = 'soon'",
    );
    assert_rejected(&["sweep", "--host", "bsdos-2.1,,"], "empty item");
    assert_rejected(
        &["reproduce", "--ablation", "--against", "bsdos-2.1"],
        "both bsdos-2.1",
    );
    assert_rejected(&["sweep", "--seeds", "0"], "seeds");
    assert_rejected(&["sweep", "--buffer", "8k,,32k"], "empty item");
    assert_rejected(
        &["run", "--scenario", "/nonexistent/x.toml"],
        "cannot read scenario file",
    );
    assert_rejected(&["frobnicate"], "unrecognized subcommand");
    // live: settings are checked before anything needs root
    assert_rejected(
        &["live", "--protocol", "e2e-smart"],
        "protocol e2e-smart changes a host's TCP",
    );
    assert_rejected(&["live", "--env", "moon"], "unknown env 'moon'");
    assert_rejected(
        &["live", "--linux-profile", "bsd"],
        "unknown Linux profile 'bsd'",
    );
    assert_rejected(
        &["live", "--cc", "vegas"],
        "unknown congestion control 'vegas'",
    );
    assert_rejected(&["live", "--runs", "0"], "runs must be at least 1");
    assert_rejected(&["live", "--mss", "10"], "mss 10 is out of range");
    assert_rejected(
        &["live", "--error-every", "3"],
        "error-every 3 is too small",
    );
    assert_rejected(&["live", "--rto-min", "1"], "rto-min '1' needs a unit");
}

#[test]
fn malformed_scenario_files_are_rejected() {
    let dir = scratch("bad");
    let cases = [
        ("syntax.toml", "buffer = = 3\n", "scenario file"),
        ("unknown.toml", "bufer = \"8k\"\n", "unknown field"),
        ("type.toml", "burst = \"many\"\n", "scenario file"),
        ("negative.toml", "buffer = -8192\n", "negative"),
        ("proto.toml", "protocol = \"vegas\"\n", "unknown protocol"),
        ("host.toml", "host = \"ultrix\"\n", "unknown host 'ultrix'"),
        (
            "detail.toml",
            "[host-details]\npersist = \"maybe\"\n",
            "host detail persist",
        ),
        (
            "detailkey.toml",
            "[host-details]\nwindow-scale = true\n",
            "unknown host detail 'window-scale'",
        ),
    ];
    for (name, text, needle) in cases {
        let path = dir.join(name);
        std::fs::write(&path, text).expect("write");
        let p = path.to_string_lossy().to_string();
        assert_rejected(&["run", "--scenario", &p], needle);
    }
}

/// Three hosts and a base station: fh on the wire, mh in the cell.
const NET: &str = "[[node]]\nname = \"fh\"\n[[node]]\nname = \"bs\"\nkind = \"base-station\"\n\
[[node]]\nname = \"mh\"\n[[link]]\nbetween = [\"fh\", \"bs\"]\n[[cell]]\nbase-station = \"bs\"\n\
stations = [\"mh\"]\n";

#[test]
fn malformed_network_files_are_rejected_in_one_line() {
    let dir = scratch("badnet");
    let flow = "[[flow]]\nfrom = \"fh\"\nto = \"mh\"\n";
    let cases = [
        (format!("{NET}{flow}rate = 3\n"), "unknown field `rate`"),
        (format!("{NET}[[link]]\nbetween = [\"bs\", \"ghost\"]\n{flow}"), "unknown node 'ghost'"),
        (format!("{NET}[[flow]]\nfrom = \"fh\"\nto = \"mhx\"\n"), "flow 'flow0', to: unknown node 'mhx'"),
        (
            format!("{NET}[[node]]\nname = \"bs2\"\nkind = \"base-station\"\n[[node]]\nname = \"mh2\"\n\
[[cell]]\nbase-station = \"bs2\"\nstations = [\"mh2\"]\n[[flow]]\nfrom = \"fh\"\nto = \"mh2\"\n"),
            "no path from 'fh' to 'mh2'",
        ),
        (format!("{NET}{flow}[[flow]]\nfrom = \"mh\"\nto = \"mh\"\n"), "from a host to itself"),
        (format!("[[node]]\nname = \"fh\"\n{flow}"), "unknown node 'mh'"),
        (NET.replace("stations", "down = { model = \"gilbert\" }\nstations") + flow, "gilbert"),
        (NET.replace("stations", "access = \"aloha\"\nstations") + flow, "unknown access 'aloha'"),
        (NET.replace("stations", "csma = { slot-us = 23 }\nstations") + flow, "csma settings need access"),
        (NET.replace("stations", "access = \"csma\"\ncsma = { slot = 23 }\nstations") + flow, "unknown field `slot`"),
        (NET.replace("stations", "error-every = 7\nstations") + flow, "error-every 7 is too small"),
        (
            format!("{NET}{flow}").replace("kind = \"base-station\"", "kind = \"base-station\"\nagent = \"router\"\nrelay-memory = \"1M\""),
            "relay-memory is for split base stations",
        ),
        (format!("{NET}{flow}").replace("kind = \"base-station\"", "kind = \"satellite\""), "unknown kind 'satellite'"),
        (NET.to_string(), "at least one [[flow]]"),
    ];
    for (i, (text, needle)) in cases.iter().enumerate() {
        let path = dir.join(format!("net{i}.toml"));
        std::fs::write(&path, text).expect("write");
        let p = path.to_string_lossy().to_string();
        assert_rejected(&["run", "--scenario", &p], needle);
        let err = stderr(&snooplab(&["run", "--scenario", &p]));
        assert_eq!(err.lines().count(), 1, "{text}: {err}");
        assert!(err.starts_with("error: "), "{err}");
    }
}

#[test]
fn network_runs_are_per_flow_and_do_not_depend_on_thread_count() {
    let example = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/cell-3-senders.toml"
    );
    let base = [
        "sweep",
        "--json",
        "--scenario",
        example,
        "--seeds",
        "3",
        "--transfer",
        "256k",
        "--protocol",
        "e2e,efr",
    ];
    let mut one = base.to_vec();
    one.extend_from_slice(&["--threads", "1"]);
    let mut two = base.to_vec();
    two.extend_from_slice(&["--threads", "2"]);
    let (a, b) = (snooplab(&one), snooplab(&two));
    assert!(a.status.success(), "{}", stderr(&a));
    assert_eq!(stdout(&a), stdout(&b));
    let v: serde_json::Value = serde_json::from_str(stdout(&a).trim()).expect("JSON");
    let runs = v["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 6);
    assert_eq!(runs[0]["flows"].as_array().map(Vec::len), Some(3));
    assert_eq!(runs[0]["flows"][2]["from"], "mh3");
    assert_eq!(runs[0]["cells"][0]["stations"], 4);
    assert!(v["summaries"][0]["aggregate_throughput_mbps"]["mean"]
        .as_f64()
        .is_some());
    // run --json: one flow's keys at the top, every flow under "flows"
    let o = snooplab(&["run", "--json", "--scenario", example, "--transfer", "256k"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r: serde_json::Value = serde_json::from_str(stdout(&o).trim()).expect("JSON");
    assert_eq!(r["aggregate"]["flows"], 3);
    assert_eq!(r["aggregate"]["complete_flows"], 3);
    assert_eq!(r["throughput_mbps"], r["flows"][0]["throughput_mbps"]);
}

#[test]
fn reproduce_prints_tables_beside_the_paper_and_writes_outputs() {
    let dir = scratch("repro");
    let d = dir.to_string_lossy().to_string();
    let o = snooplab(&["reproduce", "table4", "--seeds", "2", "--out", &d]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("Table IV"), "{out}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("  paper") && l.split_whitespace().nth(1) == Some("0.54")),
        "the paper's LAN-8k SPLIT value is shown under ours: {out}"
    );
    assert!(out.contains("ordering"));
    let csv = std::fs::read_to_string(dir.join("paper000/runs.csv")).expect("runs.csv");
    assert_eq!(
        csv.lines().count(),
        1 + 2 * 3 * 2,
        "header + 2 protocols x 3 configs x 2 seeds"
    );
    let report: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("paper000/report.json")).expect("report"),
    )
    .expect("report.json is JSON");
    assert_eq!(
        report["tables"][0]["rows"].as_array().map(Vec::len),
        Some(3)
    );
    assert!(dir.join("paper000/runs.json").exists());
    assert_rejected(&["reproduce", "table9"], "unknown part 'table9'");
    assert_rejected(&["reproduce", "--seeds", "0"], "seeds");
    assert_rejected(&["reproduce", "paper003"], "unknown paper 'paper003'");
}

#[test]
fn reproduce_json_has_claims_and_is_deterministic() {
    let a = snooplab(&[
        "reproduce",
        "table2",
        "--seeds",
        "2",
        "--json",
        "--threads",
        "1",
    ]);
    let b = snooplab(&[
        "reproduce",
        "table2",
        "--seeds",
        "2",
        "--json",
        "--threads",
        "2",
    ]);
    assert!(a.status.success(), "{}", stderr(&a));
    assert_eq!(stdout(&a), stdout(&b));
    let v: serde_json::Value = serde_json::from_str(stdout(&a).trim()).expect("JSON");
    let claims = v["paper000"]["claims"].as_array().expect("claims");
    assert!(claims
        .iter()
        .any(|c| c["id"] == "ll_tcp_aware_over_ll" && c["holds"].is_boolean()));
}

/// `examples/paper001-2-hosts.toml` runs, and a sweep's JSON has every field that
/// `docs/paper001-checks.jq` reads (docs/paper001.md, "What we checked").
#[test]
fn paper001_two_host_example_has_the_fields_of_the_checks_filter() {
    let example = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/paper001-2-hosts.toml"
    );
    let o = snooplab(&[
        "sweep",
        "--json",
        "--scenario",
        example,
        "--seeds",
        "1",
        "--transfer",
        "256k",
        "--protocol",
        "e2e",
        "--threads",
        "1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).expect("JSON");
    let run = &v["runs"][0];
    assert_eq!(run["host"], "freebsd-2.2");
    assert!(run["error_every_bytes"].as_u64().is_some());
    assert!(run["aggregate"]["throughput_mbps"].as_f64().is_some());
    let flows = run["flows"].as_array().expect("flows");
    assert_eq!(flows.len(), 2);
    for f in flows {
        for key in [
            "timeouts",
            "fast_retransmits",
            "sender_retransmitted_segments",
            "timeout_stall_s",
            "wireless_data_frames",
            "wireless_data_frames_lost",
            "wireless_data_frames_collided",
            "throughput_mbps",
        ] {
            assert!(f[key].is_number(), "flow field {key}");
        }
        assert_eq!(
            f["timeouts_after_dupacks"].as_array().map(Vec::len),
            Some(4)
        );
    }
    let cell = &run["cells"][0];
    assert!(cell["access_drops"].is_number() && cell["collisions"].is_number());
    let channels = cell["channels"].as_array().expect("channels");
    assert_eq!(channels.len(), 2);
    assert!(channels.iter().all(|c| c["frames_down"].is_number()));
}

#[test]
fn run_table_says_which_way_the_data_go_and_shows_handoffs() {
    let o = snooplab(&["run", "--transfer", "256k", "--error-every", "16k"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("direction           down (fh -> mh: the fixed host sends"),
        "{out}"
    );
    assert!(
        out.contains(" up (down: base station to mobile host, the data; up: the ACKs)"),
        "{out}"
    );
    // a mobile sender: the frames corrupted upstream are its data, not ACKs
    let o = snooplab(&[
        "run",
        "--direction",
        "up",
        "--transfer",
        "256k",
        "--error-every",
        "16k",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("direction           up (mh -> fh: the mobile host sends"),
        "{out}"
    );
    assert!(
        out.contains(" up (down: base station to mobile host, the ACKs; up: the data)"),
        "{out}"
    );
    assert!(!out.contains("handoffs"), "{out}");
    // paper 002's handoffs: how many, and their latency
    let o = snooplab(&[
        "run",
        "--scenario",
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../examples/paper002-handoff.toml"
        ),
        "--transfer",
        "1M",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let line = out
        .lines()
        .find(|l| l.trim_start().starts_with("handoffs"))
        .unwrap_or_else(|| panic!("a handoffs line: {out}"));
    assert!(
        line.contains("confirmed, latency mean") && line.contains(" ms"),
        "{line}"
    );
}

/// A wired-only network: no wireless link, so no wireless goodput.
const WIRED: &str = "transfer = \"64k\"\n[[node]]\nname = \"a\"\n[[node]]\nname = \"b\"\n\
                     [[link]]\nname = \"wire\"\nbetween = [\"a\", \"b\"]\n\
                     [[flow]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\n";

#[test]
fn undefined_values_are_n_a_in_tables_and_null_in_json() {
    let dir = scratch("undefined");
    let wired = dir.join("wired.toml");
    std::fs::write(&wired, WIRED).expect("scenario");
    let w = wired.to_string_lossy().into_owned();
    // no wireless link: was "wireless goodput 0.00 %"
    let o = snooplab(&["run", "--scenario", &w]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("wireless goodput         n/a %"),
        "{}",
        stdout(&o)
    );
    let o = snooplab(&["run", "--scenario", &w, "--json"]);
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).expect("JSON");
    assert!(v["wireless_goodput_pct"].is_null(), "{v}");
    assert!(v["flows"][0]["wireless_goodput_pct"].is_null());
    assert!(v["wired_goodput_pct"].as_f64().is_some());
    // one seed: no interval, was "± 0.000"
    let o = snooplab(&["sweep", "--scenario", &w, "--seeds", "1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let row = stdout(&o)
        .lines()
        .find(|l| l.starts_with("e2e"))
        .map(str::to_string)
        .unwrap_or_default();
    assert!(row.contains("± n/a") && row.contains("   n/a   "), "{row}");
    let o = snooplab(&["sweep", "--scenario", &w, "--seeds", "1", "--json"]);
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).expect("JSON");
    let s = &v["summaries"][0];
    assert!(s["throughput_mbps"]["ci95"].is_null(), "{s}");
    assert!(s["wireless_goodput_pct"].is_null(), "{s}");
}

#[test]
fn paper_tables_print_undefined_ratios_and_failed_series_as_n_a() {
    // paper 001, one trial: one host alone has no timeout, so no fast retransmits per timeout
    let o = snooplab(&["reproduce", "paper001", "fig16", "--seeds", "1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let alone = out
        .lines()
        .find(|l| l.split_whitespace().take(2).eq(["1", "e2e"]))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(alone.contains(" n/a "), "was fr/to 0.00: {alone}");
    let o = snooplab(&["reproduce", "paper001", "fig16", "--seeds", "1", "--json"]);
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).expect("JSON");
    let row = &v["paper001"]["retransmissions"][0];
    assert_eq!(row["hosts"], 1);
    assert!(row["fast_per_timeout"].is_null(), "{row}");
    assert!(row["retransmitted_segments_per_host"]["ci95"].is_null());
    // paper 002: every Reno run fails at one error per 16 Kbits; was "0.000 ± 0.000", unflagged
    let o = snooplab(&["reproduce", "paper002", "fig7", "--seeds", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let at16 = out
        .lines()
        .find(|l| l.starts_with("16 Kb"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(at16.contains("n/a !2"), "{at16}");
    let o = snooplab(&["reproduce", "paper002", "fig7", "--seeds", "2", "--json"]);
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).expect("JSON");
    let p = &v["paper002"]["sweep"][0];
    assert_eq!(p["kbits_between_errors"], 16);
    assert!(p["reno_mbps"].is_null() && p["reno_failures"] == 2, "{p}");
    assert!(p["snoop_mbps"]["mean"].as_f64().is_some(), "{p}");
}

#[test]
fn reproduce_help_lists_every_built_paper_with_its_parts() {
    let o = snooplab(&["reproduce", "--help"]);
    assert_eq!(o.status.code(), Some(0));
    let help = stdout(&o);
    // the list comes from the papers' registry, each with the words of its parts
    for (paper, part) in [
        ("paper000", "ablation (alone"),
        ("paper001", "fig18"),
        ("paper002", "baselines"),
        ("paper004", "fig2"),
    ] {
        let line = help
            .lines()
            .position(|l| l.trim_start().starts_with(paper))
            .unwrap_or_else(|| panic!("{paper} is not listed: {help}"));
        let parts = help.lines().nth(line + 1).unwrap_or_default();
        assert!(
            parts.contains("parts:") && parts.contains(part),
            "{paper}: {parts}"
        );
    }
}
