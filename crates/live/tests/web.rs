//! `snooplab live --scenario` with a `workload = "web"` flow (issue 53, item 5; docs/live.md,
//! "Web pages"): snooplab's HTTP server and client in the kernel hosts' namespaces fetch the
//! flow's pages through snoop on a lossy cell. Needs root, /dev/net/tun and `ip netns`: `#[ignore]`d
//! (scripts/test-all includes them where those exist) and failing, naming what is missing, when
//! run without them.

use snooplab_live::network_run::{run_network, LiveNetwork, NetworkConfig};
use snooplab_live::testbed::require_live;
use snooplab_proto::time::SEC;
use snooplab_sim::scenario::{default_scenario, ScenarioFile};
use snooplab_sim::Scenario;

const EXAMPLE: &str = include_str!("../../../examples/web-pages-snoop.toml");

/// The example with `pages` pages, no think time, and `http`'s keys.
fn scenario(pages: u32, http: &str) -> Scenario {
    let text = EXAMPLE
        .replace("pages = 20", &format!("pages = {pages}"))
        .replace("think-s = 1.0", "think-s = 0")
        .replace(
            "http = \"1.0\"              # \"1.1\": persistent connections\nparallel = 4",
            http,
        );
    let mut sc = default_scenario();
    let file = ScenarioFile::parse(&text).unwrap_or_else(|e| panic!("{e}"));
    file.apply(&mut sc).unwrap_or_else(|e| panic!("{e}"));
    sc
}

fn keys(v: &serde_json::Value) -> Vec<String> {
    let mut k: Vec<String> = v
        .as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default();
    k.sort();
    k
}

#[test]
#[ignore = "live: needs root, /dev/net/tun and ip netns (scripts/test-all runs it where they exist)"]
fn pages_through_snoop_arrive_intact_in_the_simulators_shape() {
    require_live("pages_through_snoop_arrive_intact_in_the_simulators_shape");
    let https = [
        "http = \"1.0\"\nparallel = 4",
        "http = \"1.1\"\nparallel = 1\npipelined = true",
    ];
    for http in https {
        let sc = scenario(6, http);
        let cfg = NetworkConfig::paper(sc.clone(), 120 * SEC);
        let live = LiveNetwork::check(cfg).unwrap_or_else(|e| panic!("{e}"));
        let r = run_network(&live, None, &mut |_| {}).unwrap_or_else(|e| panic!("{e}"));
        // every object in, every byte as the server sent it
        assert!(r.intact(), "{http}: {:?}", r.live.flows);
        let web = r.live.flows[0]
            .web
            .as_ref()
            .unwrap_or_else(|| panic!("no web group"));
        assert_eq!((web.objects_failed, web.objects_corrupt), (0, 0), "{web:?}");
        let pages = r.run.flows[0]
            .pages
            .as_ref()
            .unwrap_or_else(|| panic!("no pages"));
        assert_eq!((pages.pages_completed, pages.objects_completed), (6, 24));
        assert!(r.run.invariants.ok(), "{:?}", r.run.invariants);
        // the same pages as the simulator's, in the same shape
        let sim = snooplab_sim::run(&sc);
        let sim_pages = sim.flows[0]
            .pages
            .as_ref()
            .unwrap_or_else(|| panic!("sim pages"));
        let live_json = r.to_json().unwrap_or_else(|e| panic!("{e}"));
        let sim_json = serde_json::to_value(sim.flat()).unwrap_or_else(|e| panic!("{e}"));
        let (lp, sp) = (
            &live_json["flows"][0]["pages"],
            &sim_json["flows"][0]["pages"],
        );
        assert_eq!(keys(lp), keys(sp), "{http}");
        assert_eq!(keys(&lp["per_object"][0]), keys(&sp["per_object"][0]));
        assert_eq!(keys(&lp["per_page"][0]), keys(&sp["per_page"][0]));
        assert_eq!(keys(&lp["page_latency"]), keys(&sp["page_latency"]));
        for (l, s) in pages.per_object.iter().zip(&sim_pages.per_object) {
            assert_eq!(
                (l.page, l.object, l.request_bytes, l.response_bytes),
                (s.page, s.object, s.request_bytes, s.response_bytes)
            );
            let (Some(c), Some(f), Some(d)) = (l.connect_s, l.first_byte_s, l.complete_s) else {
                panic!("{http}: {l:?}");
            };
            assert!(c <= f && f <= d, "{l:?}");
        }
        // HTTP/1.0: a connection per object; HTTP/1.1: one a page
        let want = if http.contains("1.0") { 24 } else { 6 };
        assert_eq!(pages.connections, want, "{http}");
        assert_eq!(pages.connections, sim_pages.connections, "{http}");
    }
}

/// The windows the client (the mobile host, the capture's destination of port 20000's data)
/// advertised in a capture: every segment it sent, its SYNs included (no window scaling).
fn client_windows(packets: &[Vec<u8>], client: [u8; 4]) -> Vec<u32> {
    packets
        .iter()
        .filter(|p| p.len() >= 40 && p[12..16] == client)
        .map(|p| {
            let t = &p[usize::from(p[0] & 0x0f) * 4..];
            u32::from(u16::from_be_bytes([t[14], t[15]]))
        })
        .collect()
}

/// The client holds its receive window at the flow's buffer, as a bulk flow's receiver does
/// (`endpoint.rs`'s window keeping, `web/client.rs`): no segment of its advertises more than the
/// example's 32 KB, where the kernel's own window was 65,535. Fails if the client stops sizing
/// its namespace's buffers.
#[test]
#[ignore = "live: needs root, /dev/net/tun and ip netns (scripts/test-all runs it where they exist)"]
fn the_client_advertises_at_most_the_flows_buffer() {
    require_live("the_client_advertises_at_most_the_flows_buffer");
    let sc = scenario(4, "http = \"1.0\"\nparallel = 4");
    let buffer = sc.network().flows[0].buffer;
    assert_eq!(buffer, 32 * 1024);
    let net = sc.network();
    let dir = std::env::temp_dir().join(format!("snooplab-web-window-{}", std::process::id()));
    let capture = snooplab_sim::capture::Capture::create_files(&dir, &net.capture_names())
        .unwrap_or_else(|e| panic!("{e}"));
    let live =
        LiveNetwork::check(NetworkConfig::paper(sc, 120 * SEC)).unwrap_or_else(|e| panic!("{e}"));
    let r = run_network(&live, Some(capture), &mut |_| {}).unwrap_or_else(|e| panic!("{e}"));
    assert!(r.intact(), "{:?}", r.live.flows);
    let wired = net
        .capture_names()
        .into_iter()
        .find(|n| n.starts_with("fh"))
        .unwrap_or_else(|| panic!("no wired capture"));
    let bytes = std::fs::read(dir.join(format!("{wired}.pcap"))).unwrap_or_else(|e| panic!("{e}"));
    let _ = std::fs::remove_dir_all(&dir);
    let packets = snooplab_sim::capture::read_packets(&bytes);
    let client = packets
        .iter()
        .find(|p| p.len() >= 40 && p[9] == 6 && p[33] & 0x12 == 0x02)
        .map(|p| [p[12], p[13], p[14], p[15]])
        .unwrap_or_else(|| panic!("no SYN from the client"));
    let windows = client_windows(&packets, client);
    assert!(windows.len() > 40, "{} segments", windows.len());
    let most = windows.iter().copied().max().unwrap_or(0);
    assert!(
        most <= buffer,
        "the client advertised {most} bytes, above {buffer}"
    );
}
