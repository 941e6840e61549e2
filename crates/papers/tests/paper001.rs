//! Paper 001's testbed (`crates/papers/src/paper001/testbed.rs`): short transfers, few seeds.

use snooplab_papers::paper001::testbed::Paper001;
use snooplab_sim::{run_network, Protocol};

fn run(hosts: usize, protocol: Protocol, seed: u64) -> snooplab_sim::RunResult {
    run_network(
        &(Paper001::new(hosts, protocol, 1 << 20, seed)).network(),
        "paper001",
    )
}

#[test]
fn a_single_host_never_collides() {
    // the host turnaround: the access point's ACK goes while the sender copies its next frame
    for seed in 1..=3 {
        let r = run(1, Protocol::E2e, seed);
        assert!(r.invariants.ok(), "{:?}", r.invariants);
        assert_eq!(r.cells[0].collisions, 0, "seed {seed}");
        assert!(
            r.aggregate.throughput_mbps > 1.4,
            "{}",
            r.aggregate.throughput_mbps
        );
    }
}

#[test]
fn several_hosts_collide_and_complete_with_every_protocol() {
    for p in snooplab_papers::paper001::PROTOCOLS {
        let r = run(3, p, 1);
        assert!(r.invariants.ok(), "{}: {:?}", p.name(), r.invariants);
        assert!(r.cells[0].collisions > 0, "{}", p.name());
        let n: u64 = r
            .flows
            .iter()
            .map(|f| f.timeouts_after_dupacks.iter().sum::<u64>())
            .sum();
        let t: u64 = r.flows.iter().map(|f| f.timeouts).sum();
        assert_eq!(n, t, "N_dup adds up to the timeouts");
    }
}

#[test]
fn limited_transmit_sends_and_efr_retransmits_early() {
    let lt = run(3, Protocol::LimitedTransmit, 2);
    assert!(lt.flows.iter().map(|f| f.limited_transmits).sum::<u64>() > 0);
    let efr = run(3, Protocol::Efr, 2);
    assert!(
        efr.flows
            .iter()
            .map(|f| f.fast_retransmits_below_three)
            .sum::<u64>()
            > 0
    );
    let reno = run(3, Protocol::E2e, 2);
    assert_eq!(
        reno.flows
            .iter()
            .map(|f| f.fast_retransmits_below_three)
            .sum::<u64>(),
        0
    );
}
