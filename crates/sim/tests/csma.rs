//! A cell under CSMA/CA end to end: one base station, three mobile hosts each sending a bulk TCP
//! transfer to the fixed host over an error-free cell, so collisions are the only losses.

use snooplab_sim::channel::ChannelSpec;
use snooplab_sim::medium::{one_flow_capacity_bps, AccessModel, CsmaParams};
use snooplab_sim::network::paper000::{DST_PORT, SRC_PORT};
use snooplab_sim::network::{Flow, Node, NodeKind, Station};
use snooplab_sim::{run_network, Env, Network, Protocol, RunResult, Scenario};

const MOBILES: usize = 3;
const TRANSFER: u64 = 1 << 20;

/// Paper 000's LAN testbed with two more mobile hosts in the cell, each mobile host sending
/// `TRANSFER` bytes to the fixed host with end-to-end TCP (32 KB buffers, 1400-byte segments).
fn three_senders(access: AccessModel, seed: u64) -> Network {
    let mut sc = Scenario::paper000(Protocol::E2e, Env::Lan, 32768, seed);
    sc.error_every = 0;
    sc.transfer = TRANSFER;
    let mut net = Network::paper000(&sc);
    let fh = net.node_id("fh").expect("fh");
    let template = net.flows[0].clone();
    net.flows.clear();
    net.cells[0].access = access;
    net.cells[0].stations.clear();
    for i in 0..MOBILES {
        let node = if i == 0 {
            net.node_id("mh").expect("mh")
        } else {
            net.nodes.push(Node {
                name: format!("mh{i}"),
                kind: NodeKind::Host,
                addr: 0x0a00_0102 + i as u32,
            });
            net.nodes.len() - 1
        };
        net.cells[0].stations.push(Station {
            node,
            down: ChannelSpec::None,
            up: ChannelSpec::None,
        });
        net.flows.push(Flow {
            name: format!("flow{i}"),
            from: node,
            to: fh,
            src_port: SRC_PORT + i as u16,
            dst_port: DST_PORT + i as u16,
            ..template.clone()
        });
    }
    net.validate().expect("a valid network");
    net
}

fn run(access: AccessModel, seed: u64) -> RunResult {
    run_network(&three_senders(access, seed), "lan")
}

#[test]
fn three_mobile_senders_share_a_csma_cell() {
    let net = three_senders(AccessModel::Csma(CsmaParams::default()), 1);
    let r = run_network(&net, "lan");
    assert!(r.invariants.ok(), "{}", r.invariants.summary());
    assert_eq!(r.aggregate.complete_flows, MOBILES);
    for f in &r.flows {
        assert!(f.invariants.ok(), "{}: {}", f.flow, f.invariants.summary());
        assert!(f.throughput_mbps > 0.0, "{}", f.flow);
    }
    let cell = &r.cells[0];
    assert_eq!(cell.access, "csma");
    assert_eq!(cell.stations, MOBILES + 1);
    assert!(cell.collisions > 0, "no collisions");
    assert!(cell.utilisation_pct <= 100.0);
    let capacity = one_flow_capacity_bps(&net.cells[0].params, 1400, 40, 2) / 1e6;
    eprintln!(
        "3 senders, CSMA: aggregate {:.3} Mb/s (one-flow capacity {capacity:.3}), flows {:?}, \
         fairness {:.3}, frames {}, collisions {}, access drops {}, utilisation {:.1}%",
        r.aggregate.throughput_mbps,
        r.flows
            .iter()
            .map(|f| f.throughput_mbps)
            .collect::<Vec<_>>(),
        r.aggregate.fairness,
        cell.frames,
        cell.collisions,
        cell.access_drops,
        cell.utilisation_pct
    );
    assert!(r.aggregate.throughput_mbps > 0.0);
    assert!(
        r.aggregate.throughput_mbps <= capacity,
        "aggregate {} above the cell's capacity {capacity}",
        r.aggregate.throughput_mbps
    );
}

#[test]
fn the_same_network_under_turn_taking_never_collides() {
    let r = run(AccessModel::Turns, 1);
    assert!(r.invariants.ok(), "{}", r.invariants.summary());
    assert_eq!(r.aggregate.complete_flows, MOBILES);
    assert_eq!(r.cells[0].access, "turns");
    assert_eq!(r.cells[0].collisions, 0);
    assert_eq!(r.cells[0].access_drops, 0);
    eprintln!(
        "3 senders, turns: aggregate {:.3} Mb/s, fairness {:.3}",
        r.aggregate.throughput_mbps, r.aggregate.fairness
    );
}

#[test]
fn a_csma_run_is_deterministic() {
    let json =
        |seed| serde_json::to_string(&run(AccessModel::Csma(CsmaParams::default()), seed)).unwrap();
    assert_eq!(json(2), json(2));
    assert_ne!(json(2), json(3));
}

#[test]
fn bad_csma_parameters_are_a_clear_error() {
    let mut net = three_senders(AccessModel::Turns, 1);
    net.cells[0].access = AccessModel::Csma(CsmaParams {
        cw_max: 16,
        ..CsmaParams::default()
    });
    let e = net.validate().unwrap_err();
    assert!(e.contains("cell 'wireless'") && e.contains("cw_min"), "{e}");
}
