//! Channel models from the command line: `--down`/`--up`, traces named in scenario files (relative to
//! the file), `snooplab channel-trace`, and one `error:` line for every bad model.

mod common;

use std::process::{Command, Output};

use common::{scratch, snooplab};

fn json(o: &Output) -> serde_json::Value {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).expect("one JSON object")
}

fn one_error_line(o: &Output, needle: &str) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: ") && err.contains(needle), "{err}");
}

#[test]
fn a_generated_trace_runs_from_a_flag_and_from_a_scenario_file() {
    let d = scratch("gen");
    let trace = d.join("ge.trace");
    let o = snooplab(&[
        "channel-trace",
        "gilbert-elliott",
        "--good-time",
        "500ms",
        "--bad-time",
        "30ms",
        "--frames",
        "2000",
        "--repeat",
        "--out",
        trace.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&trace).unwrap();
    assert!(text.contains("\nframes repeat\n"), "{text}");

    let flag = format!("trace:{}", trace.display());
    let by_flag = json(&snooplab(&[
        "run",
        "--json",
        "--transfer",
        "512k",
        "--protocol",
        "ll-tcp-aware",
        "--down",
        &flag,
        "--up",
        "none",
    ]));
    // the same trace named relative to a scenario file, run from another directory
    std::fs::write(
        d.join("s.toml"),
        "transfer = \"512k\"\nprotocol = \"ll-tcp-aware\"\n\
         down = { model = \"trace\", file = \"ge.trace\" }\nup = { model = \"none\" }\n",
    )
    .unwrap();
    let by_file = json(
        &Command::new(env!("CARGO_BIN_EXE_snooplab"))
            .args(["run", "--json", "--scenario", "s.toml"])
            .current_dir(&d)
            .output()
            .unwrap(),
    );
    let ch = |v: &serde_json::Value, k: &str| v["cells"][0]["channels"][0][k].clone();
    assert!(ch(&by_flag, "corrupted_down").as_u64().unwrap() > 0);
    for k in ["frames_down", "corrupted_down", "corrupted_up"] {
        assert_eq!(ch(&by_flag, k), ch(&by_file, k), "{k}");
    }
    assert_eq!(by_flag["throughput_mbps"], by_file["throughput_mbps"]);
}

#[test]
fn bad_channel_models_give_one_error_line() {
    let d = scratch("bad");
    let broken = d.join("broken.trace");
    std::fs::write(&broken, "frames\n0101\n01a1\n").unwrap();
    let broken_flag = format!("trace:{}", broken.display());
    for (args, needle) in [
        (vec!["run", "--down", "trace:/no/such/file"], "no/such/file"),
        (vec!["run", "--down", &broken_flag], "line 3"),
        (
            vec!["run", "--up", "gilbert-elliott:good-every=0"],
            "bad-every",
        ),
        (vec!["run", "--down", "fading"], "unknown model"),
        (
            vec![
                "run",
                "--down",
                "gilbert-elliott:good-every=0,bad-every=1k,good-time=0,bad-time=1s",
            ],
            "good-time",
        ),
        (vec!["run", "--down", "exponential:every=100"], "too small"),
        (
            vec![
                "channel-trace",
                "gilbert-elliott",
                "--good-time",
                "1s",
                "--bad-time",
                "1s",
                "--frames",
                "0",
            ],
            "frames",
        ),
        (
            vec!["channel-trace", "from-ping", "/no/such/log"],
            "no/such/log",
        ),
        // a day of microsecond states: refused as it grows past what a trace file holds (it
        // aborted on allocation before); and a frame count whose file the reader would refuse
        (
            vec![
                "channel-trace",
                "gilbert-elliott",
                "--good-time",
                "1us",
                "--bad-time",
                "1us",
                "--duration",
                "86400s",
            ],
            "bad periods",
        ),
        (
            vec![
                "channel-trace",
                "gilbert-elliott",
                "--good-time",
                "1s",
                "--bad-time",
                "1s",
                "--frames",
                "100000000",
            ],
            "frames",
        ),
    ] {
        one_error_line(&snooplab(&args), needle);
    }
}

/// `channel fit` on a trace drawn from the Gilbert-Elliott model: the table, the JSON, and a
/// model string that `run --down` takes as it stands.
#[test]
fn channel_fit_prints_a_model_run_takes() {
    let d = scratch("fit");
    let trace = d.join("ge.trace");
    let o = snooplab(&[
        "channel-trace",
        "gilbert-elliott",
        "--bad-every",
        "64",
        "--good-time",
        "300ms",
        "--bad-time",
        "30ms",
        "--frames",
        "200000",
        "--out",
        trace.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let t = trace.to_str().unwrap();
    let o = snooplab(&["channel", "fit", t]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    for needle in [
        "method: run lengths",
        "bad runs (lost frames in a row)",
        "chi-square",
        "the fitted distribution holds",
        "--down gilbert-elliott:good-every=0,bad-every=64,good-time=",
    ] {
        assert!(text.contains(needle), "{needle}: {text}");
    }
    let model = text
        .lines()
        .find_map(|l| l.strip_prefix("--down "))
        .unwrap()
        .to_string();
    let only = snooplab(&["channel", "fit", t, "--model-only"]);
    assert_eq!(String::from_utf8_lossy(&only.stdout).trim(), model);

    let v = json(&snooplab(&["channel", "fit", t, "--json"]));
    assert_eq!(v["model"], model.as_str());
    assert_eq!(v["form"], "frames");
    let bad_s = v["params"]["bad_time_s"].as_f64().unwrap();
    // a smoke check of the JSON (sim/tests/channel_fit.rs holds the fit to tolerances from its
    // sample size): 200,000 frames hold about 3,300 bad runs, their mean near 30 ms
    assert!((bad_s - 0.030).abs() < 0.006, "{bad_s}");
    assert!(v["bad"]["lengths"]["bins"].as_array().unwrap().len() >= 3);

    let run = json(&snooplab(&[
        "run",
        "--json",
        "--transfer",
        "256k",
        "--down",
        &model,
        "--up",
        "none",
    ]));
    assert!(
        run["cells"][0]["channels"][0]["corrupted_down"]
            .as_u64()
            .unwrap()
            > 0
    );
}

#[test]
fn channel_fit_refuses_with_one_line() {
    let d = scratch("fit-bad");
    let write = |name: &str, text: &[u8]| {
        let p = d.join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    };
    let clean = write("clean.trace", b"frames\n0000000000\n");
    one_error_line(&snooplab(&["channel", "fit", &clean]), "no frame is lost");
    let junk = write("junk.trace", b"frames\n01\x00\xff\n");
    one_error_line(&snooplab(&["channel", "fit", &junk]), "junk.trace");
    let short = write("short.trace", b"frames\n0110\n");
    one_error_line(&snooplab(&["channel", "fit", &short]), "too few runs");
    let odd = write("odd.trace", b"time\n2 1\n");
    one_error_line(&snooplab(&["channel", "fit", &odd]), "line 2");
    // larger than a trace may be: refused before it is read (a sparse file, no disk spent)
    let big = d.join("big.trace");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(17 << 20).unwrap();
    one_error_line(
        &snooplab(&["channel", "fit", big.to_str().unwrap()]),
        "more than the limit",
    );
    one_error_line(
        &snooplab(&["channel", "fit", d.to_str().unwrap()]),
        "not a regular file",
    );
    one_error_line(
        &snooplab(&["channel", "fit", &clean, "--frame-bytes", "0"]),
        "frame-bytes",
    );
    one_error_line(
        &snooplab(&["channel", "fit", &clean, "--frame-gap", "0"]),
        "frame-gap",
    );
    one_error_line(
        &snooplab(&["channel", "fit", "/nonexistent/x.trace"]),
        "cannot read",
    );
}
