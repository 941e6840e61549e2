//! Runs that share their start (`run/fork.rs`): a family of networks that differ only in their
//! transfers, run as one run that forks, gives each network the result of its own run to the
//! bit, event counts included.

use snooplab_sim::medium::{AccessModel, CsmaParams};
use snooplab_sim::run::{families, run_sharing_start};
use snooplab_sim::{Env, Job, Network, Protocol, RunResult, Scenario};

/// Paper 000's testbed with `protocol`, sending `transfer` bytes, 16 KB buffers.
fn testbed(protocol: Protocol, transfer: u64, seed: u64) -> Job {
    let mut sc = Scenario::paper000(protocol, Env::Lan, 16384, seed);
    sc.transfer = transfer;
    Job::from(&sc)
}

fn separately(jobs: &[Job]) -> Vec<RunResult> {
    jobs.iter().map(Job::run).collect()
}

/// Each family of `jobs` run sharing its start, the results put back in the jobs' order, and
/// how many runs were copies.
fn forked(jobs: &[Job]) -> (Vec<RunResult>, usize) {
    let mut out: Vec<Option<RunResult>> = vec![None; jobs.len()];
    let mut copies = 0;
    for family in families(jobs) {
        let members: Vec<&Job> = family.iter().map(|&i| &jobs[i]).collect();
        let (results, forked) = run_sharing_start(&members);
        copies += forked;
        for (i, r) in family.iter().zip(results) {
            out[*i] = Some(r);
        }
    }
    let results = out.into_iter().map(|r| r.expect("every job ran")).collect();
    (results, copies)
}

#[test]
fn every_protocol_gives_each_transfer_its_own_runs_result() {
    for protocol in Protocol::ALL {
        let jobs: Vec<Job> = [200_000, 50_000, 400_000, 120_000]
            .into_iter()
            .map(|t| testbed(protocol, t, 3))
            .collect();
        let (shared, copies) = forked(&jobs);
        let own = separately(&jobs);
        for (s, o) in shared.iter().zip(&own) {
            assert_eq!(
                s,
                o,
                "{} {} bytes",
                protocol.name(),
                o.flow().transfer_bytes
            );
        }
        assert_eq!(copies, 3, "{}", protocol.name());
    }
}

/// Three mobile hosts sending to the fixed host over a CSMA cell, each `transfers[i]` bytes.
fn csma_cell(transfers: [u64; 3], seed: u64) -> Job {
    let mut sc = Scenario::paper000(Protocol::Efr, Env::Lan, 16384, seed);
    sc.error_every = 200_000;
    let mut net = Network::paper000(&sc);
    net.cells[0].access = AccessModel::Csma(CsmaParams::default());
    let mh = net.node_id("mh").expect("mh");
    let fh = net.node_id("fh").expect("fh");
    let template = net.flows[0].clone();
    let station = net.cells[0].stations[0].clone();
    net.flows.clear();
    net.cells[0].stations.clear();
    for (i, transfer) in transfers.into_iter().enumerate() {
        let node = if i == 0 {
            mh
        } else {
            net.nodes.push(snooplab_sim::network::Node {
                name: format!("mh{i}"),
                kind: snooplab_sim::network::NodeKind::Host,
                addr: 0x0a00_0102 + i as u32,
            });
            net.nodes.len() - 1
        };
        net.cells[0].stations.push(snooplab_sim::network::Station {
            node,
            ..station.clone()
        });
        net.flows.push(snooplab_sim::network::Flow {
            name: format!("flow{i}"),
            from: node,
            to: fh,
            transfer,
            start: i as u64 * 1_000_000,
            src_port: template.src_port + i as u16,
            dst_port: template.dst_port + i as u16,
            ..template.clone()
        });
    }
    net.validate().expect("a valid network");
    Job::new(net, "lan")
}

#[test]
fn a_shared_cell_parts_where_each_flow_of_the_smaller_run_ends() {
    for seed in 1..=3 {
        // flows of unequal transfers, one family member that sends more in one flow and less
        // in another than the largest (a family of its own), and a duplicate of the largest
        let jobs = vec![
            csma_cell([300_000, 300_000, 300_000], seed),
            csma_cell([100_000, 300_000, 50_000], seed),
            csma_cell([300_000, 20_000, 300_000], seed),
            csma_cell([400_000, 100_000, 300_000], seed),
            csma_cell([300_000, 300_000, 300_000], seed),
            csma_cell([200_000, 400_000, 300_000], seed),
        ];
        let f = families(&jobs);
        assert_eq!(f, vec![vec![1, 2, 4, 0], vec![3], vec![5]], "seed {seed}");
        let (shared, copies) = forked(&jobs);
        assert_eq!(shared, separately(&jobs), "seed {seed}");
        // the duplicate is the largest's result again
        assert_eq!(copies, 2, "seed {seed}");
    }
}

#[test]
fn networks_that_differ_in_more_than_their_transfers_are_not_one_family() {
    let a = testbed(Protocol::E2e, 100_000, 1);
    let b = testbed(Protocol::E2e, 200_000, 2);
    let c = testbed(Protocol::Efr, 200_000, 1);
    let d = testbed(Protocol::E2e, 300_000, 1);
    assert_eq!(families(&[a, b, c, d]), vec![vec![0, 3], vec![1], vec![2]]);
}
