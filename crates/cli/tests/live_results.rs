//! `snooplab live`'s results as `snooplab run` has them (issue 48: one result for both clocks):
//! a scenario file's and paper 000's flags' `--json` with `run --json`'s keys and the `live`
//! group, a replayed trace channel corrupting live frames as in the simulator, and the split
//! relay carrying every byte between kernel hosts with the handshakes its TCP implements. They
//! need root, /dev/net/tun and `ip netns`: they are `#[ignore]`d (scripts/test-all includes them
//! where those exist) and fail, naming what is missing, when run without them.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::live::{output, temp_dir};
use common::stderr;
use snooplab_live::testbed::require_live;

/// A replayed frame trace means the same live as in the simulator: the n-th frame towards the
/// mobile host is corrupted exactly when the trace marks it (issue 16, channels).
#[test]
#[ignore = "live: needs root, /dev/net/tun and ip netns (scripts/test-all runs it where they exist)"]
fn a_trace_channel_corrupts_live_frames_frame_for_frame() {
    require_live("a_trace_channel_corrupts_live_frames_frame_for_frame");
    let dir = std::env::temp_dir().join(format!("snooplab-live-trace-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let trace = dir.join("t.trace");
    let marks: String = (0..230)
        .map(|i| if i % 23 == 5 { '1' } else { '0' })
        .collect();
    std::fs::write(&trace, format!("frames repeat\n{marks}\n")).expect("write trace");
    let down = format!("trace:{}", trace.display());
    let o = output(&[
        "live",
        "--protocol",
        "plain",
        "--transfer",
        "256k",
        "--down",
        &down,
        "--up",
        "none",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let r = &v;
    let channels = &r["cells"][0]["channels"][0];
    let frames = channels["frames_down"].as_u64().expect("frames_down");
    let marked = (0..frames).filter(|i| i % 23 == 5).count() as u64;
    assert!(frames > 150, "{frames}");
    assert_eq!(r["frames_corrupted_down"].as_u64(), Some(marked));
    assert_eq!(r["frames_corrupted_up"].as_u64(), Some(0));
    assert_eq!(channels["up"], "none");
    assert_eq!(r["live"]["flows"][0]["integrity_ok"], true);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Where two results' shapes differ: the key paths only one of them has, walking objects and
/// the first element of arrays both have (whether a list is empty is what a run found, not its
/// shape), `live` at the top left out: the live mode's own group, which `run --json` has not.
fn shape_diff(live: &serde_json::Value, run: &serde_json::Value, path: &str) -> Vec<String> {
    use serde_json::Value;
    match (live, run) {
        (Value::Object(a), Value::Object(b)) => {
            let mut out = Vec::new();
            for k in a.keys().chain(b.keys().filter(|k| !a.contains_key(*k))) {
                if path.is_empty() && k == "live" {
                    continue;
                }
                match (a.get(k), b.get(k)) {
                    (Some(x), Some(y)) => out.extend(shape_diff(x, y, &format!("{path}{k}."))),
                    (Some(_), None) => out.push(format!("{path}{k} (live only)")),
                    _ => out.push(format!("{path}{k} (run only)")),
                }
            }
            out
        }
        (Value::Array(a), Value::Array(b)) => match (a.first(), b.first()) {
            (Some(x), Some(y)) => shape_diff(x, y, &format!("{path}[].")),
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("stdout is one JSON result: {e}"))
}

/// A copy of `examples/NAME.toml` in `dir` whose every flow carries 64 KB (a live run takes real
/// time), with the files it names beside it.
fn short_example(dir: &Path, name: &str) -> PathBuf {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let text = std::fs::read_to_string(examples.join(name)).unwrap_or_else(|e| panic!("{e}"));
    let mut short = String::new();
    let mut set = false;
    for line in text.lines() {
        if line.trim_start().starts_with("transfer") && line.contains('=') {
            let indent = &line[..line.len() - line.trim_start().len()];
            short.push_str(&format!("{indent}transfer = \"64k\"\n"));
            set = true;
        } else {
            short.push_str(line);
            short.push('\n');
        }
    }
    if !set {
        // a flat file's transfer is its default's (8 MB): a top-level key sets it
        short.insert_str(0, "transfer = \"64k\"\n");
    }
    let file = dir.join(name);
    std::fs::write(&file, short).unwrap_or_else(|e| panic!("{e}"));
    for e in std::fs::read_dir(&examples).into_iter().flatten().flatten() {
        if e.path().extension().is_some_and(|x| x == "trace") {
            let _ = std::fs::copy(e.path(), dir.join(e.file_name()));
        }
    }
    file
}

/// Whether the live mode runs a scenario file with the modern hosts (whose windows scale, as
/// paper 002's 64 KB needs): what `live --scenario` checks before it sets anything up.
fn runs_live(file: &Path) -> Result<(), String> {
    use snooplab_live::network_run::{LiveNetwork, NetworkConfig};
    use snooplab_live::LinuxProfile;
    let scenario = snooplab_lab::settings::RunSettings {
        scenario: Some(file.to_path_buf()),
        ..Default::default()
    }
    .scenario()
    .map_err(|e| e.to_string())?;
    let profile = LinuxProfile::Modern;
    let cfg = NetworkConfig {
        scenario,
        profile,
        cc: profile.default_cc(),
        rto_min_ms: profile.default_rto_min_ms(),
        max_time: 60 * snooplab_proto::time::SEC,
        exec: Vec::new(),
        host_input: snooplab_live::host_input::HostInput::Auto,
    };
    LiveNetwork::check(cfg).map(|_| ())
}

/// Every example file the live mode runs: `live --scenario F --json` has `run --scenario F
/// --json`'s keys, every group's included, and the `live` group (issue 48: one result for both
/// clocks).
#[test]
#[ignore = "live: needs root, /dev/net/tun and ip netns (scripts/test-all runs it where they exist)"]
fn a_scenario_runs_live_with_the_keys_of_run_json() {
    require_live("a_scenario_runs_live_with_the_keys_of_run_json");
    let dir = temp_dir("examples");
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let mut names: Vec<String> =
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".toml"))
            .collect();
    names.sort();
    let mut ran = Vec::new();
    for name in &names {
        let file = short_example(&dir, name);
        if let Err(e) = runs_live(&file) {
            eprintln!("{name}: not a live scenario: {e}");
            continue;
        }
        let f = file.to_string_lossy().into_owned();
        let live = output(&[
            "live",
            "--scenario",
            &f,
            "--linux-profile",
            "modern",
            "--json",
            "--quiet",
        ]);
        assert!(live.status.success(), "{name}: {}", stderr(&live));
        let run = output(&["run", "--scenario", &f, "--json"]);
        assert!(run.status.success(), "{name}: {}", stderr(&run));
        let (live, run) = (json(&live), json(&run));
        assert_eq!(shape_diff(&live, &run, ""), Vec::<String>::new(), "{name}");
        assert_eq!(live["live"]["mode"], "live", "{name}");
        assert!(run.get("live").is_none(), "{name}");
        if name == "cell-3-senders.toml" {
            assert_eq!(live["aggregate"]["complete_flows"], 3, "{live}");
            assert_eq!(live["invariants"]["complete"], true, "{live}");
            // text mode: run's table (a row per flow), then the live lines: a digest row per
            // flow, each intact
            let text = output(&["live", "--scenario", &f, "--quiet"]);
            let out = String::from_utf8_lossy(&text.stdout);
            assert!(text.status.success(), "{}", stderr(&text));
            let (table, live) = out
                .split_once("\nlive: ")
                .unwrap_or_else(|| panic!("no live lines after run's table: {out}"));
            assert!(
                table.starts_with("3 flows, seed ") && table.contains(": 3 of 3 complete"),
                "{out}"
            );
            let ok = |text: &str| {
                text.lines()
                    .filter(|l| l.trim_end().ends_with(" ok"))
                    .count()
            };
            assert_eq!(ok(table), 3 + 1, "a row per flow and the invariants: {out}");
            assert_eq!(ok(live), 3, "a digest row per flow: {out}");
        }
        ran.push(name.clone());
    }
    // every example but those the live mode refuses ran live (web-pages-snoop.toml too: its
    // Web workload is fetched by snooplab's HTTP client and server)
    assert!(
        ran.len() >= 13 && ran.contains(&"cell-3-senders.toml".to_string()),
        "{ran:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `live` with paper 000's flags (one protocol, one run) writes `run --json`'s result for the
/// same flags, every group's keys included, and the `live` group (issue 48: one result for both
/// clocks); several runs write each in that shape under `runs`, with their `summaries`.
#[test]
#[ignore = "live: needs root, /dev/net/tun and ip netns (scripts/test-all runs it where they exist)"]
fn paper000_flags_write_run_json_and_the_live_group() {
    require_live("paper000_flags_write_run_json_and_the_live_group");
    let flags = [
        "--protocol",
        "snoop",
        "--env",
        "lan",
        "--transfer",
        "64k",
        "--json",
    ];
    let run = output(&[&["run"], &flags[..]].concat());
    assert!(run.status.success(), "{}", stderr(&run));
    let live = output(&[&["live", "--quiet"], &flags[..]].concat());
    assert!(live.status.success(), "{}", stderr(&live));
    let (live, run) = (json(&live), json(&run));
    assert_eq!(shape_diff(&live, &run, ""), Vec::<String>::new());
    assert_eq!(live["protocol"], "ll-tcp-aware");
    assert_eq!(live["transfer_bytes"], 65536);
    assert_eq!(live["live"]["flows"][0]["integrity_ok"], true, "{live}");
    assert!(live["live"]["capacity_mbps"].as_f64() > Some(0.0), "{live}");
    assert!(live["wireless_data_frames"].as_u64() >= Some(47), "{live}");
    // the kernel sender's TCP_INFO over time: in order, a window from the first sample
    let samples = live["live"]["flows"][0]["sender_samples"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(!samples.is_empty(), "{live}");
    assert!(samples[0]["cwnd_bytes"].as_u64() > Some(0), "{live}");
    let times: Vec<f64> = samples.iter().filter_map(|s| s["t_s"].as_f64()).collect();
    assert_eq!(times.len(), samples.len());
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
    // the last sample after the FIN was acknowledged: the bytes, the SYN and the FIN
    assert_eq!(
        samples.last().map(|s| &s["bytes_acked"]),
        Some(&65538.into())
    );
    // every key of the live group, and of its groups, is in docs/outputs.md
    let doc = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/outputs.md"),
    )
    .unwrap_or_default();
    let l = &live["live"];
    let host = |group: &str| l[group][0][1].clone();
    let mut missing = Vec::new();
    for obj in [
        l,
        &l["flows"][0],
        &l["flows"][0]["sender_samples"][0],
        &host("hosts"),
        &host("traffic"),
        &l["driver"],
        &l["lateness"],
    ] {
        let keys = obj
            .as_object()
            .map(|m| m.keys().cloned().collect::<Vec<_>>());
        assert!(keys.as_ref().is_some_and(|k| !k.is_empty()), "{obj}");
        missing.extend(
            keys.into_iter()
                .flatten()
                .filter(|k| !doc.contains(&format!("`{k}`"))),
        );
    }
    assert!(missing.is_empty(), "not in docs/outputs.md: {missing:?}");
    // two runs: each in the one shape, and a summary per protocol
    let two = output(&[
        "live",
        "--quiet",
        "--protocol",
        "snoop",
        "--runs",
        "2",
        "--transfer",
        "64k",
        "--json",
    ]);
    assert!(two.status.success(), "{}", stderr(&two));
    let two = json(&two);
    assert_eq!(two["runs"].as_array().map(Vec::len), Some(2), "{two}");
    assert_eq!(shape_diff(&two["runs"][1], &run, ""), Vec::<String>::new());
    assert_eq!(two["summaries"][0]["throughput_mbps"]["n"], 2, "{two}");
    assert_eq!(two["complete"], true);
}

/// `live --protocol split` (paper 000 section III-C between kernel hosts): the base station's
/// relay carries every byte intact, its own sender's counters are reported as `snooplab run`
/// reports them, and the fixed host is acknowledged ahead of the mobile host (the relay held
/// bytes the mobile host had not acknowledged). The capture shows what the relay's handshakes
/// carry: the MSS option and nothing the relay's TCP does not implement (RFC 793/1122), even to
/// a fixed host that offers window scaling, timestamps and SACK (the modern profile).
#[test]
#[ignore = "live: needs root, /dev/net/tun and ip netns (scripts/test-all runs it where they exist)"]
fn split_relays_every_byte_between_kernel_hosts() {
    require_live("split_relays_every_byte_between_kernel_hosts");
    let dir = temp_dir("split");
    let caps = dir.join("caps");
    let c = caps.to_string_lossy().into_owned();
    for profile in ["paper", "modern"] {
        let _ = std::fs::remove_dir_all(&caps);
        let o = output(&[
            "live",
            "--protocol",
            "split",
            "--linux-profile",
            profile,
            "--transfer",
            "256k",
            "--error-every",
            "32k",
            "--pcap",
            &c,
            "--json",
        ]);
        assert!(o.status.success(), "{profile}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
        let r = &v;
        assert_eq!(r["protocol"], "split");
        assert_eq!(
            r["live"]["flows"][0]["integrity_ok"], true,
            "{profile}: {r}"
        );
        // the fixed host's device: every payload byte it sent, [name, counters] per host
        let fh = r["live"]["traffic"]
            .as_array()
            .and_then(|t| t.iter().find(|h| h[0] == "fh"))
            .map(|h| &h[1]);
        assert!(
            fh.and_then(|t| t["payload_in"].as_u64()) >= Some(256 * 1024),
            "{r}"
        );
        // the relay's own sender repaired the wireless losses
        let relay = &r["relay"];
        let corrupted = r["frames_corrupted_down"].as_u64().unwrap_or(0);
        assert!(corrupted > 3, "{profile}: too few errors to test: {r}");
        assert!(
            relay["retransmitted_segments"].as_u64() >= Some(corrupted / 2),
            "{profile}: {r}"
        );
        assert_eq!(r["local_retransmissions"], relay["retransmitted_segments"]);
        // the fixed host was acknowledged bytes the mobile host had not acknowledged yet
        assert!(
            r["live"]["agent_max_held_bytes"].as_u64() > Some(1400),
            "{profile}: {r}"
        );
        assert_eq!(
            r["mss"], 1400,
            "{profile}: the relay offered MSS 1400 and no timestamps"
        );
        let wired = std::fs::read(caps.join("wired.pcap")).unwrap_or_default();
        let wireless = std::fs::read(caps.join("wireless.pcap")).unwrap_or_default();
        // the relay's half of each handshake, the SYN-ACK to the fixed host (from the mobile
        // host's address) and the SYN to the mobile host (from the fixed host's): the MSS
        // option alone (kind 2)
        for (name, pcap, relay_as_fh) in [("wired", &wired, false), ("wireless", &wireless, true)] {
            let syns = syn_options(pcap);
            let mine: Vec<_> = syns
                .iter()
                .filter(|(from_fh, ack, _)| *from_fh == relay_as_fh && *ack != relay_as_fh)
                .collect();
            assert!(!mine.is_empty(), "{profile} {name}: {syns:?}");
            assert!(
                mine.iter().all(|s| s.2 == [2]),
                "{profile} {name}: {syns:?}"
            );
        }
        // what the fixed host's kernel offered: more than the MSS with the modern profile
        let fh_syn = syn_options(&wired)
            .into_iter()
            .find(|s| s.0 && !s.1)
            .map(|s| s.2)
            .unwrap_or_default();
        if profile == "modern" {
            assert!(fh_syn.contains(&3) && fh_syn.contains(&8), "{fh_syn:?}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every SYN in a pcap file: (sent by the fixed host 10.0.0.1, carries ACK, its option kinds
/// other than NOP and EOL).
fn syn_options(pcap: &[u8]) -> Vec<(bool, bool, Vec<u8>)> {
    let mut out = Vec::new();
    let mut at = 24; // the file header
    while at + 16 <= pcap.len() {
        let len =
            u32::from_le_bytes([pcap[at + 8], pcap[at + 9], pcap[at + 10], pcap[at + 11]]) as usize;
        let Some(p) = pcap.get(at + 16..at + 16 + len) else {
            break;
        };
        at += 16 + len;
        if p.len() < 40 || p[9] != 6 {
            continue;
        }
        let ihl = usize::from(p[0] & 0x0f) * 4;
        let Some(tcp) = p.get(ihl..) else { continue };
        if tcp.len() < 20 || tcp[13] & 0x02 == 0 {
            continue;
        }
        let doff = usize::from(tcp[12] >> 4) * 4;
        let mut kinds = Vec::new();
        let mut o = 20;
        while o < doff.min(tcp.len()) {
            match tcp[o] {
                0 => break,
                1 => o += 1,
                k => {
                    kinds.push(k);
                    o += usize::from(tcp.get(o + 1).copied().unwrap_or(2)).max(2);
                }
            }
        }
        out.push((p[12..16] == [10, 0, 0, 1], tcp[13] & 0x10 != 0, kinds));
    }
    out
}
