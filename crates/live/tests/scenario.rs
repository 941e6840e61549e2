//! `snooplab live --scenario`: a scenario's network on the real clock, the simulator's engine
//! between kernel hosts in namespaces (docs/live.md, "Scenario files"). The ones that run need
//! root, /dev/net/tun and `ip netns`: they are `#[ignore]`d (scripts/test-all includes them where
//! those exist) and fail, naming what is missing, when run without them.

use snooplab_live::network_run::{run_network, LiveHosts, LiveNetwork, NetworkConfig};
use snooplab_live::testbed::require_live;
use snooplab_live::{CongestionControl, LinuxProfile};
use snooplab_proto::time::SEC;
use snooplab_proto::wire;
use snooplab_sim::capture::{Capture, Sink};
use snooplab_sim::{Env, Protocol, Scenario};

fn config(scenario: Scenario) -> NetworkConfig {
    NetworkConfig {
        scenario,
        profile: LinuxProfile::Paper,
        cc: CongestionControl::Reno,
        rto_min_ms: LinuxProfile::Paper.default_rto_min_ms(),
        max_time: 120 * SEC,
        exec: Vec::new(),
        host_input: snooplab_live::host_input::HostInput::Auto,
    }
}

/// `cfg`'s network, built and checked as the live mode runs it.
fn checked(cfg: NetworkConfig) -> LiveNetwork {
    LiveNetwork::check(cfg).unwrap_or_else(|e| panic!("{e}"))
}

/// What the live mode's one check says of `cfg`'s network.
fn validate(cfg: NetworkConfig) -> Result<(), String> {
    LiveNetwork::check(cfg).map(|_| ())
}

/// The keys of a JSON object.
fn keys(v: &serde_json::Value) -> Vec<String> {
    v.as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default()
}

#[test]
#[ignore = "live: needs root, /dev/net/tun and ip netns (scripts/test-all runs it where they exist)"]
fn the_paper000_path_through_the_engine_delivers_intact_and_snoop_repairs_locally() {
    require_live("the_paper000_path_through_the_engine_delivers_intact_and_snoop_repairs_locally");
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
    let r = run_network(&checked(config(sc.clone())), capture, &mut |_| {})
        .unwrap_or_else(|e| panic!("{e}"));
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
    want.push("live".to_string());
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
#[ignore = "live: needs root, /dev/net/tun and ip netns (scripts/test-all runs it where they exist)"]
fn three_mobile_hosts_send_at_once_through_one_csma_cell() {
    require_live("three_mobile_hosts_send_at_once_through_one_csma_cell");
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
    let r = run_network(&checked(config(sc)), None, &mut |_| {}).unwrap_or_else(|e| panic!("{e}"));
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
fn a_modelled_host_runs_in_the_engine_and_the_others_in_the_kernel() {
    let text = "[[node]]\nname = \"fh\"\nstack = \"model\"\n[[node]]\nname = \"bs\"\n\
                kind = \"base-station\"\n[[node]]\nname = \"mh\"\n[[link]]\n\
                between = [\"fh\", \"bs\"]\n[[cell]]\nbase-station = \"bs\"\n\
                stations = [\"mh\"]\n[[flow]]\nfrom = \"fh\"\nto = \"mh\"\n";
    let sc = Scenario::from_toml(text).unwrap_or_else(|e| panic!("{e}"));
    let hosts = LiveHosts::of(&sc, &sc.network());
    let names = |h: &LiveHosts| h.kernel.iter().map(|k| k.1.clone()).collect::<Vec<_>>();
    assert_eq!(names(&hosts), ["mh"]);
    assert_eq!(hosts.modelled.len(), 1);
    // --exec replaces the flows, which are all a modelled host runs: refused up front
    let mut cfg = config(sc.clone());
    cfg.exec =
        vec![snooplab_live::exec::ExecSpec::parse("mh=true").unwrap_or_else(|e| panic!("{e}"))];
    let e = validate(cfg).unwrap_err();
    assert!(
        e.contains("node 'fh' is modelled") && e.contains("--exec"),
        "{e}"
    );
    // the others default to the kernel
    let ok = text.replace("stack = \"model\"\n", "");
    let sc = Scenario::from_toml(&ok).unwrap_or_else(|e| panic!("{e}"));
    let hosts = LiveHosts::of(&sc, &sc.network());
    assert_eq!(names(&hosts), ["fh", "mh"]);
    assert!(hosts.modelled.is_empty());
}

#[test]
fn what_the_live_engine_cannot_run_yet_is_refused_with_a_message() {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/paper002-handoff.toml"
    );
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{e}"));
    // handoffs run live (the modern profile: the file's 64 KB window needs window scaling)
    let sc = Scenario::from_toml(&text).unwrap_or_else(|e| panic!("{e}"));
    let mut cfg = config(sc.clone());
    cfg.profile = LinuxProfile::Modern;
    validate(cfg).unwrap_or_else(|e| panic!("{e}"));
    // ... but not Caceres and Iftode's scheme, whose duplicate ACKs are the host's TCP's
    let fast = text.replace("every-s = 5", "every-s = 5\nscheme = \"fast-retransmit\"");
    let sc = Scenario::from_toml(&fast).unwrap_or_else(|e| panic!("{e}"));
    let mut cfg = config(sc.clone());
    cfg.profile = LinuxProfile::Modern;
    let e = validate(cfg).unwrap_err();
    assert!(
        e.starts_with("handoff of 'mh'") && e.contains("fast-retransmit"),
        "{e}"
    );
    // a split base station runs live: its relays carry the kernels' bytes, both ways, so the
    // user's programs run through it too
    for p in [Protocol::Split, Protocol::SplitSmart] {
        let sc = Scenario::paper000(p, Env::Lan, 32 * 1024, 1);
        assert_eq!(validate(config(sc.clone())), Ok(()));
        let mut cfg = config(sc.clone());
        cfg.exec = vec![snooplab_live::exec::ExecSpec::parse("fh=iperf3 -s -1")
            .unwrap_or_else(|e| panic!("{e}"))];
        assert_eq!(validate(cfg), Ok(()));
    }
}

#[test]
#[ignore = "live: needs root, /dev/net/tun and ip netns (scripts/test-all runs it where they exist)"]
fn a_kernel_mobile_host_hands_off_between_two_buffering_base_stations() {
    require_live("a_kernel_mobile_host_hands_off_between_two_buffering_base_stations");
    // paper 002's testbed (examples/paper002-handoff.toml) with 2 MB and a handoff every
    // second (about 15 s of transfer); the paper profile has no window scaling, so 65535 for 64 KB
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/paper002-handoff.toml"
    ))
    .unwrap_or_else(|e| panic!("{e}"))
    .replace("transfer = \"10M\"", "transfer = \"2M\"")
    .replace("buffer = \"64k\"", "buffer = \"65535\"")
    .replace("every-s = 5", "every-s = 1");
    let sc = Scenario::from_toml(&text).unwrap_or_else(|e| panic!("{e}"));
    let net = sc.network();
    let dir = std::env::temp_dir().join(format!("snooplab-handoff-pcap-{}", std::process::id()));
    let capture =
        Capture::create_files(&dir, &net.capture_names()).unwrap_or_else(|e| panic!("{e}"));
    let r = run_network(&checked(config(sc.clone())), Some(capture), &mut |_| {})
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(r.intact(), "{:?}", r.live.flows);
    assert_eq!(r.live.flows[0].received_bytes, 2 << 20);
    // the mobility layer below the kernel's TCP handed off on its timer, and each new primary
    // confirmed
    let h = &r.run.handoffs[0];
    assert_eq!(h.mobile, "mh");
    assert!(h.handoffs >= 2, "{h:?}");
    assert!(h.confirmed >= 2, "{h:?}");
    assert!(h.beacons > 0, "{h:?}");
    assert!(
        h.events.iter().any(|e| e.from == "bs2" && e.to == "bs1"),
        "{h:?}"
    );
    // the same keys as `snooplab run --json` for the same file, handoffs included
    let live = r.to_json().unwrap_or_else(|e| panic!("{e}"));
    let sim = serde_json::to_value(snooplab_sim::run::run_network(&net, sc.env.name()).flat())
        .unwrap_or_default();
    let (lh, sh) = (&live["handoffs"][0], &sim["handoffs"][0]);
    assert_eq!(keys(lh), keys(sh));
    assert_eq!(keys(&lh["events"][0]), keys(&sh["events"][0]));
    // the handoff messages went over the air as UDP datagrams on port 4344: beacons from each
    // base station, the mobile host's requests to it and its confirmations
    let mh = net.nodes[net.node_id("mh").unwrap_or_default()]
        .addr
        .to_be_bytes();
    for cell in ["cell1", "cell2"] {
        let packets = read_pcap(&dir.join(format!("{cell}.pcap")));
        let control: Vec<&Vec<u8>> = packets
            .iter()
            .filter(|p| p.len() >= 28 && p[9] == 17 && p[20..24] == [0x10, 0xf8, 0x10, 0xf8])
            .collect();
        let requests = control.iter().filter(|p| p[12..16] == mh).count();
        let to_mh = control.iter().filter(|p| p[16..20] == mh).count();
        assert!(
            requests >= 1 && to_mh >= 1,
            "{cell}: {requests} requests, {to_mh} answers"
        );
        assert!(control.len() > requests + to_mh, "{cell}: no beacon");
    }
    // the home agent's tunnel: the fixed host's real packets inside IP-in-IP
    let tunnel = read_pcap(&dir.join("ha-bs2.pcap"));
    let inner: Vec<&[u8]> = tunnel
        .iter()
        .filter(|p| p[9] == 4)
        .map(|p| &p[20..])
        .collect();
    assert!(!inner.is_empty());
    assert!(inner.iter().all(
        |p| wire::parse(p).is_ok_and(|x| x.checksums_ok && x.seg.dst.addr.to_be_bytes() == mh)
    ));
    let _ = std::fs::remove_dir_all(&dir);
}
