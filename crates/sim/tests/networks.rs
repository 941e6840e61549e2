//! Networks beyond paper 000's single path (`docs/networks.md`): several mobile hosts on one cell,
//! flows in both directions, mobile senders, and network files that describe paper 000's testbed.

use snooplab_sim::medium::one_flow_capacity_bps;
use snooplab_sim::scenario::{default_scenario, ScenarioFile};
use snooplab_sim::stats::summarize;
use snooplab_sim::{run, Protocol, RunResult, Scenario};

/// The scenario a file describes, over `snooplab run`'s defaults.
fn scenario(text: &str) -> Scenario {
    let mut sc = default_scenario();
    let f = ScenarioFile::parse(text).expect("the test's file parses");
    f.apply(&mut sc).expect("the test's file applies");
    sc.validate().expect("the test's network is valid");
    sc
}

fn example(name: &str) -> Scenario {
    let path = format!("{}/../../examples/{name}", env!("CARGO_MANIFEST_DIR"));
    scenario(&std::fs::read_to_string(path).expect("example exists"))
}

fn assert_clean(r: &RunResult) {
    assert!(
        r.invariants.ok() && r.invariants.complete,
        "{:?}",
        r.invariants
    );
    for f in &r.flows {
        assert!(
            f.invariants.ok() && f.invariants.complete,
            "{}: {:?}",
            f.flow,
            f.invariants
        );
    }
}

#[test]
fn three_mobile_senders_share_the_cell_within_its_capacity() {
    let sc = example("cell-3-senders.toml");
    let r = run(&sc);
    assert_clean(&r);
    assert_eq!(r.flows.len(), 3);
    assert_eq!(r.aggregate.complete_flows, 3);
    let net = sc.network();
    let cap = one_flow_capacity_bps(&net.cells[0].params, sc.mss, 40, 2) / 1e6;
    assert!(
        r.aggregate.throughput_mbps <= cap,
        "{} Mb/s above the cell's {cap} Mb/s",
        r.aggregate.throughput_mbps
    );
    // the medium is the bottleneck, and turn taking shares it evenly
    assert!(r.aggregate.throughput_mbps > 0.9 * cap);
    assert!(r.aggregate.fairness > 0.99, "{}", r.aggregate.fairness);
    for f in &r.flows {
        assert_eq!(f.to, "fh");
        assert!(f.throughput_mbps > 0.0);
    }
    assert_eq!(r.cells.len(), 1);
    assert_eq!(r.cells[0].stations, 4);
    assert!(r.cells[0].utilisation_pct > 90.0);
}

#[test]
fn flows_in_both_directions_complete_with_errors_each_way() {
    let r = run(&example("both-ways.toml"));
    assert_clean(&r);
    let names: Vec<&str> = r.flows.iter().map(|f| f.flow.as_str()).collect();
    assert_eq!(names, ["down", "up"]);
    assert_eq!(
        (r.flows[1].from.as_str(), r.flows[1].to.as_str()),
        ("mh", "fh")
    );
    assert!((r.flows[1].start_s - 0.5).abs() < 1e-9);
    let c = &r.cells[0];
    assert!(
        c.frames_corrupted_down > 0 && c.frames_corrupted_up > 0,
        "{c:?}"
    );
    // errors 4 times as often downstream
    assert!(c.frames_corrupted_down > c.frames_corrupted_up);
}

/// `examples/cell-3-senders.toml` with `keys` added to its cell's table.
fn three_senders_with(keys: &str) -> String {
    let text = std::fs::read_to_string(format!(
        "{}/../../examples/cell-3-senders.toml",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("example exists");
    let stations = "stations = [\"mh1\", \"mh2\", \"mh3\"]";
    let changed = text.replace(stations, &format!("{stations}\n{keys}"));
    assert_ne!(text, changed, "the example's cell lists its stations so");
    changed
}

#[test]
fn a_csma_cell_from_a_file_counts_its_collisions() {
    let sc = scenario(&three_senders_with(
        "access = \"csma\"\ncsma = { slot-us = 23, ifs-us = 60 }",
    ));
    match &sc.network().cells[0].access {
        snooplab_sim::medium::AccessModel::Csma(p) => {
            assert_eq!((p.slot, p.ifs), (23_000, 60_000));
            assert_eq!(p.cw_min, 32);
        }
        other => panic!("expected csma, got {other:?}"),
    }
    let r = run(&sc);
    assert_clean(&r);
    let c = &r.cells[0];
    assert_eq!(c.access, "csma");
    assert!(c.collisions > 0, "{c:?}");
    // a collision destroys every frame in it: the senders resend them
    assert!(
        r.flows
            .iter()
            .map(|f| f.sender_retransmitted_segments)
            .sum::<u64>()
            > 0
    );
}

#[test]
fn a_full_duplex_cell_carries_every_stations_frames_at_once() {
    let sc = scenario(&three_senders_with("access = \"full-duplex\""));
    assert_eq!(
        sc.network().cells[0].access,
        snooplab_sim::medium::AccessModel::FullDuplex
    );
    let r = run(&sc);
    assert_clean(&r);
    assert_eq!(r.cells[0].access, "full-duplex");
    assert_eq!(r.aggregate.complete_flows, 3);
    // three transmitters at once, not one turn at a time: beyond what the shared medium carries
    let cap = one_flow_capacity_bps(&sc.network().cells[0].params, sc.mss, 40, 2) / 1e6;
    assert!(
        r.aggregate.throughput_mbps > 1.5 * cap,
        "{} Mb/s against the half-duplex cell's {cap}",
        r.aggregate.throughput_mbps
    );
    // written back as a file, it reads the same
    let written =
        snooplab_sim::network::file::write_scenario(&sc).unwrap_or_else(|e| panic!("{e}"));
    assert!(written.contains("access = \"full-duplex\""), "{written}");
    assert_eq!(scenario(&written).network(), sc.network());
}

/// Paper 000's testbed written as a network file, with the preset's names and addresses.
const PAPER000_AS_FILE: &str = r#"
[[node]]
name = "fh"
address = "10.0.0.1"
[[node]]
name = "bs"
kind = "base-station"
address = "10.0.0.254"
[[node]]
name = "mh"
address = "10.0.1.2"
[[link]]
name = "wired"
between = ["fh", "bs"]
[[cell]]
name = "wireless"
base-station = "bs"
stations = ["mh"]
[[flow]]
from = "fh"
to = "mh"
"#;

#[test]
fn paper000_written_as_a_file_runs_exactly_as_the_preset() {
    let file = scenario(PAPER000_AS_FILE);
    for protocol in [Protocol::E2e, Protocol::LlTcpAware, Protocol::Split] {
        for env in [snooplab_sim::Env::Lan, snooplab_sim::Env::Wan] {
            let mut preset = Scenario::paper000(protocol, env, 32768, 3);
            preset.transfer = 1 << 20;
            let mut described = preset.clone();
            described.topology = file.topology.clone();
            let (a, b) = (run(&preset), run(&described));
            assert_eq!(
                serde_json::to_string(&a).expect("encodes"),
                serde_json::to_string(&b).expect("encodes"),
                "{protocol:?} {env:?}"
            );
        }
    }
}

/// One flow from the mobile host to the fixed host over paper 000's LAN testbed.
fn upstream(protocol: Protocol, seed: u64) -> RunResult {
    let mut sc = scenario(
        r#"
[[node]]
name = "fh"
[[node]]
name = "bs"
kind = "base-station"
[[node]]
name = "mh"
[[link]]
between = ["fh", "bs"]
[[cell]]
base-station = "bs"
stations = ["mh"]
[[flow]]
from = "mh"
to = "fh"
"#,
    );
    sc.protocol = protocol;
    sc.error_every = 65536;
    sc.buffer = 32768;
    sc.seed = seed;
    run(&sc)
}

#[test]
fn snoop_does_an_upstream_flow_no_harm() {
    let seeds = 1..=10;
    let mean = |p: Protocol| {
        let xs: Vec<f64> = seeds
            .clone()
            .map(|s| {
                let r = upstream(p, s);
                assert_clean(&r);
                assert!(r.cells[0].frames_corrupted_up > 0);
                // data goes up: the mobile host's sender saw the losses
                assert!(r.flow().fast_retransmits + r.flow().timeouts > 0);
                r.flow().throughput_mbps
            })
            .collect();
        summarize(&xs)
    };
    let (plain, snoop) = (mean(Protocol::E2e), mean(Protocol::LlTcpAware));
    let ci = |s: &snooplab_sim::stats::Summary| s.ci95.unwrap_or(0.0);
    let noise = 2.0 * (ci(&plain) + ci(&snoop)) + 0.01 * plain.mean;
    assert!(
        (snoop.mean - plain.mean).abs() <= noise,
        "snoop {snoop:?} vs plain {plain:?}"
    );
}

mod random_topologies {
    use super::*;
    use proptest::prelude::*;
    use snooplab_sim::network::file::{
        CellTable, FlowTable, LinkTable, NodeTable, Tables, Topology,
    };

    /// A random network: base stations and routers joined in a tree, fixed hosts on them, mobile
    /// hosts in the base stations' cells, flows between random hosts; then, sometimes, one mistake.
    #[derive(Debug, Clone)]
    struct Spec {
        base_stations: usize,
        routers: usize,
        /// For each infrastructure node after the first, the earlier one it links to.
        tree: Vec<usize>,
        /// Each fixed host's infrastructure node.
        fixed: Vec<usize>,
        /// Mobile hosts in each base station's cell.
        mobiles: Vec<usize>,
        /// Flows between hosts, by index among all hosts.
        flows: Vec<(usize, usize)>,
        /// 0: none; 1: a dangling name; 2: an extra link; 3: a missing link; 4: a repeated name.
        mistake: (u8, usize),
        snoop: bool,
    }

    fn spec() -> impl Strategy<Value = Spec> {
        (1usize..4, 0usize..3).prop_flat_map(|(b, r)| {
            let infra = b + r;
            (
                Just((b, r)),
                prop::collection::vec(0usize..64, infra - 1),
                prop::collection::vec(0usize..infra, 0..4),
                prop::collection::vec(prop_oneof![1 => Just(0usize), 6 => 1usize..4], b),
                prop::collection::vec((0usize..64, 0usize..64), 1..5),
                (prop_oneof![6 => Just(0u8), 1 => 1u8..5], 0usize..64),
                any::<bool>(),
            )
                .prop_map(|((b, r), tree, fixed, mobiles, flows, mistake, snoop)| {
                    Spec {
                        base_stations: b,
                        routers: r,
                        tree,
                        fixed,
                        mobiles,
                        flows,
                        mistake,
                        snoop,
                    }
                })
        })
    }

    struct Built {
        nodes: Vec<NodeTable>,
        links: Vec<LinkTable>,
        cells: Vec<CellTable>,
        flows: Vec<FlowTable>,
    }

    fn build(s: &Spec) -> Built {
        let node = |name: String, kind: &str| NodeTable {
            name,
            kind: Some(kind.into()),
            ..NodeTable::default()
        };
        let mut nodes = vec![];
        let infra: Vec<String> = (0..s.base_stations)
            .map(|i| format!("bs{i}"))
            .chain((0..s.routers).map(|i| format!("r{i}")))
            .collect();
        for (i, n) in infra.iter().enumerate() {
            let kind = if i < s.base_stations {
                "base-station"
            } else {
                "router"
            };
            nodes.push(node(n.clone(), kind));
        }
        let mut links = vec![];
        let link = |a: &str, b: &str| LinkTable {
            name: Some(format!("{a}-{b}")),
            between: vec![a.into(), b.into()],
            ..LinkTable::default()
        };
        for (i, &to) in s.tree.iter().enumerate() {
            links.push(link(&infra[i + 1], &infra[to % (i + 1)]));
        }
        let mut hosts = vec![];
        for (i, &at) in s.fixed.iter().enumerate() {
            let h = format!("fh{i}");
            nodes.push(node(h.clone(), "host"));
            links.push(link(&h, &infra[at]));
            hosts.push(h);
        }
        let mut cells = vec![];
        for (b, &m) in s.mobiles.iter().enumerate() {
            if m == 0 {
                continue; // a base station without a cell forwards like a router
            }
            let stations: Vec<String> = (0..m).map(|j| format!("mh{b}x{j}")).collect();
            for st in &stations {
                nodes.push(node(st.clone(), "host"));
                hosts.push(st.clone());
            }
            cells.push(CellTable {
                name: Some(format!("cell{b}")),
                base_station: infra[b].clone(),
                stations,
                ..CellTable::default()
            });
        }
        let pick = |i: usize| {
            hosts
                .get(i % hosts.len().max(1))
                .cloned()
                .unwrap_or_default()
        };
        let mut flows: Vec<FlowTable> = s
            .flows
            .iter()
            .map(|&(a, b)| FlowTable {
                from: pick(a),
                // another host, where there is one
                to: pick(a + 1 + b % hosts.len().saturating_sub(1).max(1)),
                ..FlowTable::default()
            })
            .collect();
        let (kind, at) = s.mistake;
        match kind {
            1 => {
                let k = at % flows.len();
                flows[k].to = "ghost".into();
            }
            2 if nodes.len() > 1 => {
                let (a, b) = (
                    nodes[at % nodes.len()].name.clone(),
                    nodes[(at / 7) % nodes.len()].name.clone(),
                );
                links.push(LinkTable {
                    name: Some("extra".into()),
                    between: vec![a, b],
                    ..LinkTable::default()
                });
            }
            3 if !links.is_empty() => {
                links.remove(at % links.len());
            }
            4 if nodes.len() > 1 => {
                let k = at % (nodes.len() - 1) + 1;
                nodes[k].name = nodes[0].name.clone();
            }
            _ => {}
        }
        Built {
            nodes,
            links,
            cells,
            flows,
        }
    }

    fn one_line(msg: &str) -> bool {
        !msg.trim().is_empty() && !msg.contains('\n')
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

        /// Any description either gives a clear one-line error or a network whose flows all
        /// complete with their invariants clean.
        #[test]
        fn validate_or_say_why(s in spec()) {
            let b = build(&s);
            let tables = Tables { nodes: &b.nodes, links: &b.links, cells: &b.cells, flows: &b.flows, handoffs: &[], crashes: &[] };
            let topo = match Topology::resolve(&tables) {
                Ok(t) => t,
                Err(msg) => {
                    prop_assert!(one_line(&msg), "{msg:?}");
                    return Ok(());
                }
            };
            let mut sc = default_scenario();
            sc.protocol = if s.snoop { Protocol::LlTcpAware } else { Protocol::E2e };
            sc.transfer = 20_000;
            sc.error_every = 0;
            sc.topology = Some(std::sync::Arc::new(topo));
            if let Err(msg) = sc.validate() {
                prop_assert!(one_line(&msg), "{msg:?}");
                // without a planted mistake only the flows' ends can be wrong
                prop_assert!(s.mistake.0 != 0 || msg.contains("itself"), "{msg}");
                return Ok(());
            }
            let r = run(&sc);
            for f in &r.flows {
                prop_assert!(f.invariants.ok() && f.invariants.complete, "{}: {:?}", f.flow, f.invariants);
            }
        }
    }
}
