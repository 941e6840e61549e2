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
    let csv = std::fs::read_to_string(dir.join("runs.csv")).expect("runs.csv");
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
