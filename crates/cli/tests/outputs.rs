//! What `run --trace/--plot`, `plot` and `reproduce --report` leave on disk, as a user would open it.

mod common;

use std::process::Output;

use common::{scratch, snooplab};

fn ok(o: &Output) {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

fn is_png(p: &std::path::Path) -> bool {
    std::fs::read(p).is_ok_and(|b| b.starts_with(b"\x89PNG\r\n\x1a\n") && b.len() > 1000)
}

fn is_svg(p: &std::path::Path) -> bool {
    std::fs::read_to_string(p).is_ok_and(|s| s.contains("<svg") && s.contains("</svg>"))
}

fn lines(p: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(p)
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn trace_marks_local_retransmissions_and_suppressed_dupacks() {
    let dir = scratch("snoop");
    let d = dir.to_string_lossy().into_owned();
    let o = snooplab(&[
        "run",
        "--protocol",
        "snoop",
        "--transfer",
        "1M",
        "--error-every",
        "16k",
        "--json",
        "--plot",
        &d,
    ]);
    ok(&o);
    let r: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let segs = lines(&dir.join("segments.csv"));
    assert_eq!(segs[0], "time_s,flow,sender,seq,len,kind");
    assert_eq!(
        lines(&dir.join("nodes.csv")),
        vec!["name,kind", "fh,host", "bs,base-station", "mh,host"]
    );
    let local = segs
        .iter()
        .filter(|l| l.contains(",bs,") && l.ends_with(",local"))
        .count();
    assert_eq!(local as u64, r["local_retransmissions"].as_u64().unwrap());
    let sup = lines(&dir.join("suppressed_dupacks.csv")).len() - 1;
    assert_eq!(sup as u64, r["dupacks_suppressed"].as_u64().unwrap());
    let held = lines(&dir.join("bs_cache.csv"));
    assert!(
        held.iter().skip(1).any(|l| !l.ends_with(",0,0")),
        "snoop caches segments"
    );
    for stem in ["sequence", "cwnd", "bs_cache"] {
        assert!(is_png(&dir.join(format!("{stem}.png"))), "{stem}.png");
        assert!(is_svg(&dir.join(format!("{stem}.svg"))), "{stem}.svg");
    }
    // plotting again from the CSVs, zoomed
    let out = dir.join("zoom");
    let o = snooplab(&[
        "plot",
        &d,
        "--from",
        "0.5",
        "--to",
        "2",
        "--out",
        &out.to_string_lossy(),
    ]);
    ok(&o);
    assert!(is_png(&out.join("sequence.png")));
}

#[test]
fn e2e_trace_counts_match_the_run() {
    let dir = scratch("e2e");
    let d = dir.to_string_lossy().into_owned();
    let o = snooplab(&[
        "run",
        "--transfer",
        "1M",
        "--error-every",
        "16k",
        "--json",
        "--trace",
        &d,
    ]);
    ok(&o);
    let r: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let segs = lines(&dir.join("segments.csv"));
    let count = |kind: &str| {
        segs.iter()
            .filter(|l| l.ends_with(&format!(",{kind}")))
            .count() as u64
    };
    assert_eq!(
        count("timeout") + count("fast"),
        r["sender_retransmitted_segments"].as_u64().unwrap()
    );
    assert_eq!(count("new"), 1_048_576u64.div_ceil(1400));
    assert_eq!(count("local"), 0);
    let cwnd = lines(&dir.join("cwnd.csv"));
    // one segment once the connection is up (4.4BSD starts cwnd at the maximum window before)
    assert!(cwnd.len() > 10 && cwnd.iter().any(|l| l.contains(",fh,1400,")));
}

#[test]
fn plot_rejects_what_is_not_a_trace() {
    let dir = scratch("bad");
    std::fs::create_dir_all(&dir).unwrap();
    let d = dir.to_string_lossy().into_owned();
    let o = snooplab(&["plot", &d]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("nodes.csv") && err.contains("trace directory") && err.lines().count() == 1,
        "{err}"
    );
    std::fs::write(dir.join("nodes.csv"), "name,kind\nfh,host\n").unwrap();
    std::fs::write(
        dir.join("segments.csv"),
        "time_s,flow,sender,seq,len,kind\n1.0,flow0,xx,0,1400,new\n",
    )
    .unwrap();
    let o = snooplab(&["plot", &d]);
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("line 2"),
        "names the line"
    );
}

#[test]
fn report_is_one_self_contained_page() {
    let dir = scratch("report");
    let d = dir.to_string_lossy().into_owned();
    let o = snooplab(&["reproduce", "table4", "--seeds", "2", "--report", &d]);
    ok(&o);
    let html = std::fs::read_to_string(dir.join("index.html")).expect("index.html");
    assert!(html.contains("Table IV") && html.contains("<table>"));
    assert!(html.contains("paper") && html.contains("split-smart"));
    assert!(
        html.matches("data:image/png;base64,").count() >= 5,
        "table figure and example traces"
    );
    assert!(
        !html.contains("http://") && !html.contains("https://") && !html.contains("src=\"/"),
        "nothing to fetch"
    );
    let sub = dir.join("paper000");
    assert!(is_png(&sub.join("table4.png")) && is_svg(&sub.join("table4.svg")));
    assert!(is_png(&sub.join("example-e2e/sequence.png")));
}

#[test]
fn paper004_reproduces_fig2_with_its_claims_files_and_report_section() {
    let dir = scratch("paper004");
    let d = dir.to_string_lossy().into_owned();
    let rep = dir.join("report");
    let r = rep.to_string_lossy().into_owned();
    let o = snooplab(&[
        "reproduce",
        "paper004",
        "--seeds",
        "2",
        "--out",
        &d,
        "--report",
        &r,
    ]);
    ok(&o);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("paper 004") && text.contains("Fig. 2"),
        "{text}"
    );
    for kb in ["8 KB", "32 KB", "512 KB"] {
        assert!(text.contains(kb), "{kb}: {text}");
    }
    assert!(text.contains("ELN / Reno") && text.contains("roughly a factor of 2"));
    // the verdict, counted from the claims above
    let holds = text.matches("\n  holds ").count();
    let last = text.lines().last().unwrap_or_default();
    assert_eq!(
        last,
        format!(
            "claims: {holds} of 2 hold, {} fail (paper004 {holds}/2)",
            2 - holds
        ),
        "{text}"
    );
    let csv = std::fs::read_to_string(dir.join("paper004/runs.csv")).expect("runs.csv");
    assert_eq!(
        csv.lines().count(),
        1 + 7 * 3 * 2,
        "7 error rates x 3 protocols x 2 seeds"
    );
    assert!(
        csv.lines().skip(1).all(|l| l.ends_with(",true")),
        "every run complete"
    );
    let html = std::fs::read_to_string(rep.join("index.html")).expect("index.html");
    assert!(html.contains("Paper 004 reproduced") && html.contains("bs-eln"));
    assert!(is_png(&rep.join("paper004/fig2.png")));
    assert!(is_png(&rep.join("paper004/example-bs-eln/sequence.png")));
    let json = snooplab(&["reproduce", "paper004", "--seeds", "1", "--json"]);
    ok(&json);
    let v: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&json.stdout).trim()).expect("JSON");
    assert_eq!(v["paper004"]["points"].as_array().map(Vec::len), Some(7));
    assert!(!String::from_utf8_lossy(&json.stdout).contains("claims: "));
    assert!(v.get("paper000").is_none(), "only the paper asked for");
    let bad = snooplab(&["reproduce", "paper004", "table3"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown part 'table3' of paper004"));
}

/// Paper 002 as a study: every part's table on the terminal and the page, the split baseline's
/// handoff cost and the crash's first failure under their rows, the chart and the traces of Figs.
/// 8 and 9, and `report.json` with `runs.json` in its directory.
#[test]
fn paper002_reproduces_every_part_with_its_claims_files_and_report_section() {
    let dir = scratch("paper002");
    let d = dir.to_string_lossy().into_owned();
    let rep = dir.join("report");
    let r = rep.to_string_lossy().into_owned();
    let o = snooplab(&[
        "reproduce",
        "paper002",
        "--seeds",
        "1",
        "--out",
        &d,
        "--report",
        &r,
    ]);
    ok(&o);
    let text = String::from_utf8_lossy(&o.stdout);
    for part in [
        "paper 002",
        "Table 1: handoffs between the two base stations",
        "Figs. 7 and 11: Mb/s across bit-error rates",
        "Fig. 10: handoff latency",
        "Baselines (section 8)",
        "A base station crash",
        "  each handoff cost ",
        "  (flow0: ",
        "(docs/paper002.md explains each result.)",
    ] {
        assert!(text.contains(part), "{part}: {text}");
    }
    // the table rows start with their names, as the terminal's columns are read
    for row in [
        "1 s    ",
        "never, no beacons",
        "16 Kb ",
        "4096 Kb",
        "split  ",
    ] {
        assert!(text.lines().any(|l| l.starts_with(row)), "{row}: {text}");
    }
    let holds = text.matches("\n  holds ").count();
    let last = text.lines().last().unwrap_or_default();
    assert!(
        last.starts_with(&format!("claims: {holds} of 10 hold"))
            && last.ends_with(&format!("(paper002 {holds}/10)")),
        "{text}"
    );
    let runs: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("paper002/runs.json")).expect("runs.json"),
    )
    .expect("runs.json is JSON");
    assert_eq!(
        runs.as_array().map(Vec::len),
        Some(50 + 3 * 12),
        "50 jobs, one seed; Table 1 and Fig. 10 again under each other combination of the window \
         and old-primary-queue readings"
    );
    let report: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("paper002/report.json")).expect("report.json"),
    )
    .expect("report.json is JSON");
    assert_eq!(report["sweep"].as_array().map(Vec::len), Some(9));
    let html = std::fs::read_to_string(rep.join("index.html")).expect("index.html");
    assert!(html.contains("Paper 002 reproduced"));
    assert_eq!(
        html.matches("<table>").count(),
        5 + 4,
        "every part's table; the readings, Table 1 and Fig. 10 by window, the claims by window"
    );
    assert!(html.contains("os-default-8k"));
    assert_eq!(report["readings"][0]["window"], "os-default-8k");
    assert!(html.contains("during a transfer, to the first packet from the new base station"));
    assert!(is_png(&rep.join("paper002/fig7-fig11.png")));
    for run in ["fig8-reno", "fig8-snoop", "fig9-handoffs"] {
        assert!(
            is_png(&rep.join("paper002").join(run).join("sequence.png")),
            "{run}"
        );
    }
    assert_eq!(
        html.matches("data:image/png;base64,").count(),
        1 + 2 + 3 + 3,
        "the chart; each trace's sequence and window, and the cache of snoop's base station"
    );
}

#[test]
fn reproduce_checks_where_its_outputs_go_before_it_runs() {
    let dir = scratch("unwritable");
    std::fs::create_dir_all(&dir).expect("scratch");
    let file = dir.join("a-file");
    std::fs::write(&file, "").expect("a file in the way");
    let below = file.join("sub").to_string_lossy().into_owned();
    for args in [
        vec!["reproduce", "paper004", "--seeds", "1", "--out", &below],
        vec!["reproduce", "paper004", "--seeds", "1", "--report", &below],
        vec!["reproduce", "--ablation", "--seeds", "1", "--out", &below],
    ] {
        let o = snooplab(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        // one line: no progress, no "N runs in" -- nothing ran
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.starts_with("error: cannot create directory") && err.contains("a-file/sub"),
            "{args:?}: {err}"
        );
        assert!(o.stdout.is_empty(), "{args:?}: no table");
    }
}
