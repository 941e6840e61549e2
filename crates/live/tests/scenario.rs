//! `snooplab live --scenario`: a scenario's network on the real clock, the simulator's engine
//! between kernel hosts in namespaces (docs/live.md, "Scenario files"). These need root,
//! /dev/net/tun and `ip netns`; elsewhere each prints why it skips and passes.

use snooplab_live::network_run::{kernel_hosts, run_network, validate, NetworkConfig};
use snooplab_live::{CongestionControl, LinuxProfile};
use snooplab_proto::time::SEC;
use snooplab_proto::wire;
use snooplab_sim::capture::{Capture, Sink};
use snooplab_sim::{Env, Protocol, Scenario};

fn skip(test: &str) -> bool {
    snooplab_live::testbed::skip_test(test)
}

fn config(scenario: Scenario) -> NetworkConfig {
    NetworkConfig {
        scenario,
        profile: LinuxProfile::Paper,
        cc: CongestionControl::Reno,
        rto_min_ms: LinuxProfile::Paper.default_rto_min_ms(),
        max_time: 120 * SEC,
        exec: Vec::new(),
    }
}

/// The keys of a JSON object.
fn keys(v: &serde_json::Value) -> Vec<String> {
    v.as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default()
}

#[test]
fn the_paper000_path_through_the_engine_delivers_intact_and_snoop_repairs_locally() {
    if skip("the_paper000_path_through_the_engine_delivers_intact_and_snoop_repairs_locally") {
        return;
    }
    let mut sc = Scenario::paper000(Protocol::LlTcpAware, Env::Lan, 32 * 1024, 3);
    sc.transfer = 512 * 1024;
    sc.error_every = 16 * 1024;
    let dir = std::env::temp_dir().join(format!("snooplab-scenario-pcap-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let sinks = sc
        .network()
        .capture_names()
        .into_iter()
        .map(|n| {
            let f = std::fs::File::create(dir.join(format!("{n}.pcap")))
                .unwrap_or_else(|e| panic!("{e}"));
            let sink: Sink = Box::new(std::io::BufWriter::new(f));
            (n, sink)
        })
        .collect();
    let capture = Some(Capture::new(sinks).unwrap_or_else(|e| panic!("{e}")));
    let r =
        run_network(&config(sc.clone()), capture, &mut |_| {}).unwrap_or_else(|e| panic!("{e}"));
    assert!(r.intact(), "{:?}", r.live.flows);
    let f = &r.run.flows[0];
    assert_eq!((f.from.as_str(), f.to.as_str()), ("fh", "mh"));
    assert!(f.throughput_mbps > 0.5, "{}", f.throughput_mbps);
    let cell = &r.run.cells[0];
    assert!(cell.frames_corrupted_down > 0, "{cell:?}");
    let local = r.run.agent_total("local_retransmissions");
    assert!(
        local >= cell.frames_corrupted_down / 2,
        "{local} local for {cell:?}"
    );
    // the mobile host's kernel dropped exactly the corrupted frames the engine handed it
    let mh = r.live.hosts.iter().find(|(n, _)| n == "mh").map(|(_, c)| c);
    assert_eq!(
        mh.map(|c| c.in_csum_errors),
        Some(r.live.driver.corrupted_out)
    );
    // the same keys as `snooplab run --json` for the same scenario, and the live mode's own
    let live = r.to_json().unwrap_or_else(|e| panic!("{e}"));
    let sim = serde_json::to_value(snooplab_sim::run(&sc).flat()).unwrap_or_default();
    let mut want = keys(&sim);
    want.extend(["live".to_string(), "mode".to_string()]);
    want.sort();
    let mut got = keys(&live);
    got.sort();
    assert_eq!(got, want);
    // the captures hold the real packets: every one parses, the corrupted frames (and only
    // they) with a bad checksum, and the data carries the payload's bytes
    let wireless = read_pcap(&dir.join("wireless.pcap"));
    let bad = wireless
        .iter()
        .filter(|p| !wire::parse(p).is_ok_and(|x| x.checksums_ok))
        .count() as u64;
    assert_eq!(bad, cell.frames_corrupted_down + cell.frames_corrupted_up);
    let wired = read_pcap(&dir.join("wired.pcap"));
    assert!(wired
        .iter()
        .all(|p| wire::parse(p).is_ok_and(|x| x.checksums_ok)));
    let payload: usize = wired
        .iter()
        .filter_map(|p| wire::parse(p).ok().map(|x| p.len() - x.payload_offset))
        .sum();
    assert!(payload >= 512 * 1024, "{payload}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A pcap file's packets, from our own writer's format.
fn read_pcap(path: &std::path::Path) -> Vec<Vec<u8>> {
    let b = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    snooplab_sim::capture::read_packets(&b)
}

#[test]
fn three_mobile_hosts_send_at_once_through_one_csma_cell() {
    if skip("three_mobile_hosts_send_at_once_through_one_csma_cell") {
        return;
    }
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/cell-3-senders.toml"
    ))
    .unwrap_or_else(|e| panic!("{e}"))
    .replace("transfer = \"1M\"", "transfer = \"384k\"")
    .replace(
        "stations = [\"mh1\", \"mh2\", \"mh3\"]",
        "stations = [\"mh1\", \"mh2\", \"mh3\"]\naccess = \"csma\"",
    );
    let sc = Scenario::from_toml(&text).unwrap_or_else(|e| panic!("{e}"));
    let r = run_network(&config(sc), None, &mut |_| {}).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.run.flows.len(), 3);
    for (f, l) in r.run.flows.iter().zip(&r.live.flows) {
        assert!(l.integrity_ok, "{f:?}");
        assert_eq!(f.to, "fh");
        assert!(f.invariants.complete);
    }
    assert_eq!(r.run.aggregate.complete_flows, 3);
    let cell = &r.run.cells[0];
    assert_eq!(cell.access, "csma");
    // three senders at once on one medium: frames collide (14-44 per run of 256 KB each here)
    assert!(cell.collisions > 0, "{cell:?}");
}

#[test]
fn a_modelled_host_is_refused_until_the_engine_runs_tcp_on_the_real_clock() {
    let text = "[[node]]\nname = \"fh\"\nstack = \"model\"\n[[node]]\nname = \"bs\"\n\
                kind = \"base-station\"\n[[node]]\nname = \"mh\"\n[[link]]\n\
                between = [\"fh\", \"bs\"]\n[[cell]]\nbase-station = \"bs\"\n\
                stations = [\"mh\"]\n[[flow]]\nfrom = \"fh\"\nto = \"mh\"\n";
    let sc = Scenario::from_toml(text).unwrap_or_else(|e| panic!("{e}"));
    let e = kernel_hosts(&sc, &sc.network()).unwrap_err();
    assert!(
        e.contains("node 'fh'") && e.contains("stack = \"model\""),
        "{e}"
    );
    // the others default to the kernel
    let ok = text.replace("stack = \"model\"\n", "");
    let sc = Scenario::from_toml(&ok).unwrap_or_else(|e| panic!("{e}"));
    let hosts = kernel_hosts(&sc, &sc.network()).unwrap_or_default();
    assert_eq!(
        hosts.iter().map(|h| h.1.as_str()).collect::<Vec<_>>(),
        ["fh", "mh"]
    );
}

#[test]
fn what_the_live_engine_cannot_run_yet_is_refused_with_a_message() {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/paper002-handoff.toml"
    );
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{e}"));
    let sc = Scenario::from_toml(&text).unwrap_or_else(|e| panic!("{e}"));
    let e = validate(&config(sc.clone()), &sc.network()).unwrap_err();
    assert!(e.contains("handoffs"), "{e}");
    // a split base station runs live: its relay carries the kernels' bytes
    for p in [Protocol::Split, Protocol::SplitSmart] {
        let sc = Scenario::paper000(p, Env::Lan, 32 * 1024, 1);
        assert_eq!(validate(&config(sc.clone()), &sc.network()), Ok(()));
        // but not the user's programs, whose connections it cannot be held to
        let mut cfg = config(sc.clone());
        cfg.exec = vec![snooplab_live::exec::ExecSpec::parse("fh=iperf3 -s -1")
            .unwrap_or_else(|e| panic!("{e}"))];
        let e = validate(&cfg, &sc.network()).unwrap_err();
        assert!(
            e.contains("split base station") && e.contains("--exec"),
            "{e}"
        );
    }
}
