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
