//! Results that must not be lost or be unclear (issue 14), as the CLI prints and writes them.

use std::process::{Command, Output};

fn snooplab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_snooplab"))
        .args(args)
        .output()
        .expect("the snooplab binary runs")
}

fn stdout(o: &Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn scratch(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("snooplab-results-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// A split run's relay sender (the base station's TCP to the mobile host) in the table, the JSON
/// and `reproduce`'s runs.csv; absent for the other protocols.
#[test]
fn split_runs_report_the_relay_sender() {
    let text = stdout(&snooplab(&[
        "run",
        "--protocol",
        "split",
        "--transfer",
        "2M",
    ]));
    assert!(text.contains("relay sender"), "{text}");
    let v: serde_json::Value = serde_json::from_str(
        stdout(&snooplab(&[
            "run",
            "--protocol",
            "split",
            "--transfer",
            "2M",
            "--json",
        ]))
        .trim(),
    )
    .expect("JSON");
    assert_eq!(v["timeouts"], 0, "the fixed host's sender");
    assert!(
        v["relay"]["timeouts"].as_u64().is_some_and(|t| t > 0),
        "{v}"
    );
    assert_eq!(
        v["relay"]["retransmitted_segments"],
        v["local_retransmissions"]
    );
    assert_eq!(v["flows"][0]["relay"], v["relay"]);
    let e2e: serde_json::Value =
        serde_json::from_str(stdout(&snooplab(&["run", "--transfer", "512k", "--json"])).trim())
            .expect("JSON");
    assert!(e2e["relay"].is_null());
    assert!(!stdout(&snooplab(&["run", "--transfer", "512k"])).contains("relay sender"));

    let dir = scratch("csv");
    let d = dir.to_string_lossy().into_owned();
    stdout(&snooplab(&[
        "reproduce",
        "table4",
        "--seeds",
        "1",
        "--out",
        &d,
    ]));
    let csv = std::fs::read_to_string(dir.join("paper000/runs.csv")).expect("runs.csv");
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name);
    let (t, f, x) = (
        col("relay_timeouts").expect("relay_timeouts column"),
        col("relay_fast_retransmits").expect("relay_fast_retransmits column"),
        col("relay_retransmitted_segments").expect("relay_retransmitted_segments column"),
    );
    let local = col("local_retransmissions").expect("local_retransmissions column");
    for line in lines {
        let cells: Vec<&str> = line.split(',').collect();
        assert_eq!(cells.len(), header.len(), "{line}");
        assert!(cells[t].parse::<u64>().is_ok() && cells[f].parse::<u64>().is_ok());
        assert_eq!(cells[x], cells[local], "{line}");
    }
    let _ = std::fs::remove_dir_all(dir);

    let sweep = stdout(&snooplab(&[
        "sweep",
        "--protocol",
        "split,e2e",
        "--seeds",
        "2",
        "--transfer",
        "1M",
        "--json",
    ]));
    let v: serde_json::Value = serde_json::from_str(sweep.trim()).expect("JSON");
    assert!(v["summaries"][0]["relay_timeouts"]["mean"].is_number());
    assert!(v["summaries"][1].get("relay_timeouts").is_none());
}

/// At a split base station's relay-memory bound (two relays' worth, `relay-memory`) the other
/// connections are forwarded end to end, counted, and reported: in the table's line and under
/// the JSON's `split`, every flow still complete (issue 52 item 1).
#[test]
fn connections_beyond_the_relay_memory_are_reported_unsplit() {
    let dir = scratch("unsplit");
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    // each relay may store 2 x (64 KB buffer + 64 KB window + a 1400-byte segment)
    let one_relay = 2 * (2 * 65536 + 1400);
    let mut text = format!(
        "protocol = \"split\"\ntransfer = \"64k\"\nerror-every = \"64k\"\n\
         [[node]]\nname = \"fh\"\n[[node]]\nname = \"bs\"\nkind = \"base-station\"\n\
         relay-memory = {}\n[[link]]\nbetween = [\"fh\", \"bs\"]\n",
        2 * one_relay
    );
    for i in 1..=5 {
        text += &format!("[[node]]\nname = \"mh{i}\"\n[[flow]]\nfrom = \"fh\"\nto = \"mh{i}\"\n");
    }
    text += "[[cell]]\nbase-station = \"bs\"\nstations = [\"mh1\", \"mh2\", \"mh3\", \"mh4\", \"mh5\"]\n";
    let file = dir.join("five.toml");
    std::fs::write(&file, text).expect("the scenario written");
    let f = file.to_string_lossy().into_owned();
    let table = stdout(&snooplab(&["run", "--scenario", &f]));
    assert!(table.contains("5 of 5 complete"), "{table}");
    assert!(
        table.contains("split relays 2 (at most 2 at once), connections not split 3"),
        "{table}"
    );
    let v: serde_json::Value =
        serde_json::from_str(stdout(&snooplab(&["run", "--scenario", &f, "--json"])).trim())
            .expect("JSON");
    assert_eq!(v["split"]["relays"], 2, "{v}");
    assert_eq!(v["split"]["relays_most"], 2, "{v}");
    assert_eq!(v["split"]["unsplit"], 3, "{v}");
    let _ = std::fs::remove_dir_all(dir);
}

/// An incomplete split run names the connection that gave up, and when (issue 14's run).
#[test]
fn an_incomplete_split_run_names_the_connection_that_gave_up() {
    let o = snooplab(&[
        "run",
        "--protocol",
        "split",
        "--env",
        "wan",
        "--buffer",
        "4k",
        "--error-every",
        "4k",
        "--burst",
        "4",
        "--transfer",
        "512k",
        "--seed",
        "148014286",
    ]);
    // incomplete: the result printed all the same, exit code 3
    assert_eq!(
        o.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        text.contains(
            "the base station's relay sender (the split connection's wireless half) gave up"
        ),
        "{text}"
    );
    assert!(text.contains("reset the fixed host's connection"), "{text}");
    assert!(
        !text.contains("deadlock") && !text.contains("time cap"),
        "{text}"
    );
}

/// `protocols` marks the ones `live` runs, as the live mode itself parses them.
#[test]
fn protocols_say_which_run_live() {
    use snooplab_live::{live_protocol, live_protocols};
    let text = stdout(&snooplab(&["protocols"]));
    let mut marked = 0;
    for line in text.lines() {
        let Some(name) = line.split_whitespace().next() else {
            continue;
        };
        let Ok(p) = snooplab_sim::Protocol::parse(name) else {
            continue;
        };
        if live_protocols().contains(&p) {
            assert!(line.ends_with("[live]"), "{line}");
            assert_eq!(live_protocol(name), Ok(p));
            marked += 1;
        } else {
            assert!(!line.contains("[live"), "{line}");
            assert!(live_protocol(name).is_err(), "{line}");
        }
    }
    assert_eq!(marked, live_protocols().len());
    assert!(text.contains("Live mode"), "{text}");
}

/// `run` prints the buffer the hosts used, and the one asked for when it was rounded up.
#[test]
fn run_prints_the_buffer_used() {
    let text = stdout(&snooplab(&["run", "--transfer", "64k"]));
    let head = text.lines().next().unwrap_or_default();
    assert!(
        head.contains("buffer 33600 B (32768 B requested, rounded up to whole segments"),
        "{head}"
    );
    let text = stdout(&snooplab(&[
        "run",
        "--transfer",
        "64k",
        "--buffer",
        "33600",
    ]));
    let head = text.lines().next().unwrap_or_default();
    assert!(head.contains("buffer 33600 B,"), "{head}");
}

/// `reproduce` explains `gp ok`, and every value sits under its own heading: Table III's WAN row
/// has no E2E-SMART (the paper ran none), which printed five values under six headings.
#[test]
fn reproduce_aligns_every_value_under_its_heading_and_explains_gp() {
    let text = stdout(&snooplab(&["reproduce", "table3", "--seeds", "1"]));
    assert!(
        text.contains("'gp ok'") && text.contains("within 1 point"),
        "{text}"
    );
    let lines: Vec<&str> = text.lines().collect();
    let head = lines
        .iter()
        .position(|l| l.trim_start().starts_with("e2e "))
        .expect("the heading");
    let columns: Vec<usize> = ["e2e-newreno", "e2e-smart", "e2e-ietf-sack", "e2e-eln-rxmt"]
        .iter()
        // each name once in the heading (none is the start of another here)
        .map(|p| lines[head].find(&format!(" {p}")).map_or(0, |i| i + 1))
        .collect();
    assert!(columns.iter().all(|&c| c > 0), "{}", lines[head]);
    let wan = lines
        .iter()
        .position(|l| l.starts_with("wan-32k"))
        .expect("the WAN row");
    for l in &lines[wan..wan + 3] {
        // ours, the paper's and the error line: a value starts at each heading's column
        for &c in &columns {
            let at = l.get(c..c + 1).unwrap_or(" ");
            assert_ne!(at, " ", "nothing under column {c}: {l}");
            assert_eq!(l.get(c - 1..c), Some(" "), "{l}");
        }
        assert_eq!(l.get(columns[1]..columns[1] + 2), Some("- "), "{l}");
    }
}

/// The report's example runs say how many segments their timeouts resent, as the plot's legend
/// counts them, beside the number of timeouts.
#[test]
fn report_captions_tell_timeouts_from_the_segments_they_resent() {
    let dir = scratch("report");
    let d = dir.to_string_lossy().into_owned();
    stdout(&snooplab(&[
        "reproduce",
        "table4",
        "--seeds",
        "1",
        "--report",
        &d,
    ]));
    let html = std::fs::read_to_string(dir.join("index.html")).expect("index.html");
    let segs = std::fs::read_to_string(dir.join("paper000/example-e2e").join("segments.csv"))
        .expect("the example's trace");
    let resent = segs
        .lines()
        .filter(|l| l.contains(",fh,") && l.ends_with(",timeout"))
        .count();
    let run: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("paper000/example-e2e").join("run.json"))
            .expect("run.json"),
    )
    .expect("JSON");
    let timeouts = run["timeouts"].as_u64().unwrap_or_default();
    assert!(
        resent as u64 > timeouts,
        "{resent} segments, {timeouts} timeouts"
    );
    assert!(
        html.contains(&format!(
            "{timeouts} timeouts, which resent {resent} segments"
        )),
        "the caption"
    );
    assert!(html.contains("'gp ok'"));
    let _ = std::fs::remove_dir_all(dir);
}

/// Every key `run --json` prints for a split run, its checks' and its relay sender's included, is
/// documented in docs/outputs.md (`split_acks_ahead` was not).
#[test]
fn every_run_json_key_is_documented() {
    let doc = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/outputs.md"),
    )
    .expect("docs/outputs.md");
    let v: serde_json::Value = serde_json::from_str(
        stdout(&snooplab(&[
            "run",
            "--protocol",
            "split",
            "--transfer",
            "256k",
            "--json",
        ]))
        .trim(),
    )
    .expect("JSON");
    let mut missing = vec![];
    for obj in [
        &v,
        &v["invariants"],
        &v["relay"],
        &v["split"],
        &v["timeout_causes"],
    ] {
        let keys = obj.as_object().expect("an object").keys();
        missing.extend(keys.filter(|k| !doc.contains(&format!("`{k}`"))).cloned());
    }
    assert!(missing.is_empty(), "not in docs/outputs.md: {missing:?}");
    assert!(doc.contains("broken end-to-end semantics"));
}
