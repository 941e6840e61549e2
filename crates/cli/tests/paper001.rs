//! `snooplab reproduce paper001` on a few short runs.

use std::process::{Command, Output};

fn snooplab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_snooplab"))
        .args(args)
        .output()
        .expect("run snooplab")
}

#[test]
fn reproduce_paper001_prints_the_figures_and_writes_outputs() {
    let dir = std::env::temp_dir().join(format!("snooplab-p001-{}", std::process::id()));
    let d = dir.to_string_lossy().to_string();
    let o = snooplab(&[
        "reproduce",
        "paper001",
        "retransmissions",
        "--seeds",
        "1",
        "--out",
        &d,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("Figs. 15-17"), "{out}");
    assert!(out.contains("N_dup"), "{out}");
    assert!(out.contains("single host alone loses"), "{out}");
    let csv = std::fs::read_to_string(dir.join("paper001/runs.csv")).expect("runs.csv");
    // one row per flow: 5 protocols x (1 + 2 + 3 + 4) hosts x 1 seed
    assert_eq!(csv.lines().count(), 1 + 5 * 10);
    let report: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("paper001/report.json")).expect("report"),
    )
    .expect("report.json is JSON");
    assert_eq!(report["retransmissions"].as_array().map(Vec::len), Some(20));
    std::fs::remove_dir_all(&dir).ok();
    let bad = snooplab(&["reproduce", "paper001", "table2"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown part 'table2' of paper001"));
}
