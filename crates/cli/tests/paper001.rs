//! `snooplab reproduce paper001` on a few short runs.

mod common;

use common::{scratch, snooplab};

#[test]
fn reproduce_paper001_prints_the_figures_and_writes_outputs() {
    let dir = scratch("p001");
    let d = dir.to_string_lossy().to_string();
    let o = snooplab(&[
        "reproduce",
        "paper001",
        "retransmissions",
        "--seeds",
        "1",
        "--out",
        &d,
        "--report",
        &format!("{d}/report"),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("Figs. 15-17"), "{out}");
    assert!(out.contains("N_dup"), "{out}");
    assert!(out.contains("single host alone loses"), "{out}");
    let csv = std::fs::read_to_string(dir.join("paper001/runs.csv")).expect("runs.csv");
    // one row per flow: 5 protocols x (1 + 2 + 3 + 4) hosts x 1 seed, under each MAC reading
    assert_eq!(csv.lines().count(), 1 + 2 * 5 * 10);
    assert!(csv
        .lines()
        .skip(1)
        .all(|l| l.ends_with(",isa-82586") || l.ends_with(",berkeley-ns2")));
    let report: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("paper001/report.json")).expect("report"),
    )
    .expect("report.json is JSON");
    assert_eq!(report["retransmissions"].as_array().map(Vec::len), Some(20));
    // the same rows under the other MAC reading
    let berkeley = &report["readings"][0];
    assert_eq!(berkeley["mac"], "berkeley-ns2");
    assert_eq!(
        berkeley["report"]["retransmissions"]
            .as_array()
            .map(Vec::len),
        Some(20)
    );
    // the report's section: Figs. 15-17 as charts (the throughput part was not run: no Figs.
    // 18-19), and the traced runs with snd_cur in their window plots
    let fig = dir.join("report/paper001");
    for stem in [
        "fig15",
        "fig16",
        "fig17-2-hosts",
        "fig17-3-hosts",
        "fig17-4-hosts",
    ] {
        assert!(fig.join(format!("{stem}.png")).is_file(), "{stem}.png");
        assert!(fig.join(format!("{stem}.svg")).is_file(), "{stem}.svg");
    }
    assert!(!fig.join("fig18.png").exists());
    let page = std::fs::read_to_string(dir.join("report/index.html")).expect("index.html");
    assert!(
        page.contains("Fig. 15: segments each host"),
        "no Fig. 15 in the page"
    );
    assert_eq!(
        page.matches("alt=\"host 1 of 3, ").count(),
        4,
        "two plots of host 1 per traced run"
    );
    let svg = std::fs::read_to_string(fig.join("trace-3-hosts-e2e/cwnd-flow0.svg")).expect("svg");
    assert!(svg.contains("snd_cur"), "the window plot draws snd_cur");
    let bad = snooplab(&["reproduce", "paper001", "table2"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown part 'table2' of paper001"));
}
