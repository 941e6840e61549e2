//! One network language (issue 48): one buffer rule for both clocks, the hosts' limit, with one
//! message wherever a buffer is given (`run --buffer`, a scenario file, `live --buffer`); and
//! `run --print-scenario`, the flags' network as a scenario file that runs the same run.

mod common;

use std::process::{Command, Output, Stdio};

use common::{assert_refused_with, scratch, snooplab, stderr, stdout};

/// The simulator's BSD hosts take 4.4BSD's sb_max, and say so in one line, from a flag and from a
/// file alike, and so does the live mode's paper profile, which emulates them.
const BSDOS_4M: &str =
    "buffer 4M is more than the bsdos-2.1 hosts' limit of 256k (4.4BSD sb_max); use 2k to 256k";

#[test]
fn run_refuses_a_buffer_above_sb_max_in_one_line() {
    assert_refused_with(&snooplab(&["run", "--buffer", "4M"]), BSDOS_4M);
    assert_refused_with(
        &snooplab(&["run", "--buffer", "4M", "--host", "freebsd-2.2"]),
        "buffer 4M is more than the freebsd-2.2 hosts' limit of 256k (4.4BSD sb_max); use 2k \
         to 256k",
    );
    // one floor for both clocks: the smallest window the live mode's kernels hold
    assert_refused_with(
        &snooplab(&["run", "--buffer", "1k"]),
        "buffer 1k is less than the minimum of 2k (the smallest window Linux holds); use 2k to \
         256k",
    );
    // the edges are the hosts'
    for ok in ["2k", "256k"] {
        let o = snooplab(&["run", "--buffer", ok, "--print-scenario"]);
        assert_eq!(o.status.code(), Some(0), "{ok}: {}", stderr(&o));
    }
    // sweep checks each combination by the same rule
    let o = snooplab(&["sweep", "--buffer", "32k,4M", "--seeds", "1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(BSDOS_4M), "{}", stderr(&o));
}

#[test]
fn a_scenario_files_buffer_is_refused_with_the_same_line() {
    let dir = scratch("file");
    let file = dir.join("big.toml");
    std::fs::write(&file, "buffer = \"4M\"\n").unwrap_or_else(|e| panic!("{e}"));
    let path = file.to_string_lossy().into_owned();
    assert_refused_with(&snooplab(&["run", "--scenario", &path]), BSDOS_4M);
    // a flow's own buffer, by its own hosts' limit
    let net = dir.join("net.toml");
    std::fs::write(
        &net,
        "[[node]]\nname = \"a\"\n[[node]]\nname = \"b\"\n[[link]]\nbetween = [\"a\", \"b\"]\n\
         [[flow]]\nname = \"big\"\nfrom = \"a\"\nto = \"b\"\nhost = \"freebsd-2.2\"\nbuffer = \"4M\"\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let path = net.to_string_lossy().into_owned();
    assert_refused_with(
        &snooplab(&["run", "--scenario", &path]),
        "flow 'big': buffer 4M is more than the freebsd-2.2 hosts' limit of 256k (4.4BSD \
         sb_max); use 2k to 256k",
    );
}

/// The namespaces a snooplab process with this pid made (`snooplab-<pid>-<n>-fh`, `-mh`).
fn namespaces_of(pid: u32) -> Vec<String> {
    let prefix = format!("snooplab-{pid}-");
    std::fs::read_dir("/run/netns")
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with(&prefix))
                .collect()
        })
        .unwrap_or_default()
}

/// `snooplab live ARGS`, and the namespaces its process left behind.
fn live(args: &[&str]) -> (Output, Vec<String>) {
    let child = Command::new(env!("CARGO_BIN_EXE_snooplab"))
        .arg("live")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("the snooplab binary runs: {e}"));
    let pid = child.id();
    let o = child
        .wait_with_output()
        .unwrap_or_else(|e| panic!("waiting for snooplab: {e}"));
    (o, namespaces_of(pid))
}

#[test]
fn live_refuses_by_the_profiles_limit_before_making_anything() {
    // the paper profiles emulate paper 000's BSD/OS 2.1 hosts: their limit, in run's very line
    for profile in ["paper", "paper-sack"] {
        let (o, left) = live(&["--buffer", "4M", "--linux-profile", profile]);
        assert_refused_with(&o, BSDOS_4M);
        assert!(left.is_empty(), "{left:?}");
    }
    // a scenario file run live is refused by the same line
    let dir = scratch("live-file");
    let file = dir.join("big.toml");
    std::fs::write(&file, "buffer = \"4M\"\n").unwrap_or_else(|e| panic!("{e}"));
    let path = file.to_string_lossy().into_owned();
    let (o, left) = live(&["--scenario", &path]);
    assert_refused_with(&o, BSDOS_4M);
    assert!(left.is_empty(), "{left:?}");
    // one floor, the kernels'
    let (o, _) = live(&["--buffer", "1k"]);
    assert_refused_with(
        &o,
        "buffer 1k is less than the minimum of 2k (the smallest window Linux holds); use 2k to \
         256k",
    );
    // modern's is this mode's own cap
    let (o, left) = live(&["--linux-profile", "modern", "--buffer", "128M"]);
    assert_refused_with(
        &o,
        "buffer 128M is more than the modern hosts' limit of 64M (snooplab's cap; Linux's own \
         are sysctls); use 2k to 64M",
    );
    assert!(left.is_empty(), "{left:?}");
}

#[test]
#[ignore = "live: needs root, /dev/net/tun and ip netns (scripts/test-all runs it where they exist)"]
fn live_modern_runs_a_4m_window() {
    snooplab_live::testbed::require_live("live_modern_runs_a_4m_window");
    let (o, left) = live(&[
        "--linux-profile",
        "modern",
        "--buffer",
        "4M",
        "--env",
        "off",
        "--transfer",
        "1M",
        "--protocol",
        "plain",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value =
        serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", stdout(&o)));
    // one run: its result alone, as `run --json` writes it, with the live group
    let run = &v;
    // plain is e2e's alias, and results name e2e
    assert_eq!(run["protocol"], "e2e", "{run}");
    assert_eq!(run["live"]["flows"][0]["integrity_ok"], true, "{run}");
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn live_takes_runs_protocol_names() {
    let (o, _) = live(&["--protocol", "e2e-newreno"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with(
            "error: protocol e2e-newreno changes a host's TCP, which the Linux hosts \
             do not run; live runs e2e (reno, plain), ll, ll-tcp-aware (snoop), \
             ll-smart-tcp-aware, split, split-smart"
        ),
        "{err}"
    );
    let (o, _) = live(&["--protocol", "moon"]);
    assert!(
        stderr(&o).starts_with("error: unknown protocol 'moon' (live runs: e2e (reno, plain)"),
        "{}",
        stderr(&o)
    );
    let o = snooplab(&["live", "--help"]);
    assert!(
        stdout(&o).contains("plain is an alias of e2e"),
        "{}",
        stdout(&o)
    );
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// `--print-scenario` writes the network and runs nothing; the file runs the same run.
fn assert_prints_the_same_run(flags: &[&str], name: &str) {
    let dir = scratch(name);
    let mut args = vec!["run"];
    args.extend_from_slice(flags);
    let printed = snooplab(&[args.as_slice(), &["--print-scenario"]].concat());
    assert_eq!(printed.status.code(), Some(0), "{}", stderr(&printed));
    assert_eq!(stderr(&printed), "", "nothing runs");
    let text = stdout(&printed);
    assert!(
        text.contains("[[node]]") && text.contains("[[flow]]"),
        "{text}"
    );
    let file = dir.join("printed.toml");
    std::fs::write(&file, &text).unwrap_or_else(|e| panic!("{e}"));
    let direct = snooplab(&[args.as_slice(), &["--json"]].concat());
    let path = file.to_string_lossy().into_owned();
    let again = snooplab(&["run", "--scenario", &path, "--json"]);
    assert_eq!(
        direct.status.code(),
        again.status.code(),
        "{}",
        stderr(&again)
    );
    // every key of the result, the flows', cells' and agents' counters and the events among
    // them (a channel trace, named by its absolute file name in the file, would differ in its
    // label: none here)
    let (a, b) = (json(&stdout(&direct)), json(&stdout(&again)));
    assert_eq!(a, b, "{flags:?}\n{text}");
    assert!(a["flows"].as_array().is_some_and(|f| !f.is_empty()), "{a}");
    assert!(a["events"].as_u64().is_some_and(|n| n > 0), "{a}");
}

#[test]
fn print_scenario_writes_the_flags_network_which_runs_the_same() {
    assert_prints_the_same_run(
        &[
            "--env",
            "wan",
            "--protocol",
            "snoop",
            "--buffer",
            "8k",
            "--transfer",
            "300k",
            "--error-every",
            "16k",
            "--burst",
            "2",
            "--seed",
            "3",
            "--host",
            "freebsd-2.2",
            "--host-detail",
            "read-delay=2ms",
        ],
        "flags",
    );
    assert_prints_the_same_run(
        &[
            "--direction",
            "up",
            "--protocol",
            "bs-eln",
            "--transfer",
            "200k",
            "--down",
            "gilbert-elliott:good-every=0,bad-every=2k,good-time=1s,bad-time=50ms",
            "--up",
            "exponential:every=32k,burst=2",
        ],
        "channels",
    );
}

#[test]
fn print_scenario_writes_a_files_network_with_the_flags_over_it() {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/cell-3-senders.toml"
    );
    assert_prints_the_same_run(
        &[
            "--scenario",
            file,
            "--transfer",
            "200k",
            "--protocol",
            "efr",
        ],
        "print-file",
    );
    // a refused scenario prints nothing
    assert_refused_with(
        &snooplab(&["run", "--buffer", "4M", "--print-scenario"]),
        BSDOS_4M,
    );
}
