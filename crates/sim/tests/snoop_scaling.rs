//! Snoop with many flows in one cell (docs/snoop-scaling.md, issue 26 item 3): one fixed host sends
//! 100 KB to each of `n` mobile hosts of one base station's cell, paper 000's 1 error / 64 KB, the
//! scenario `scripts/snoop-scaling scenario n` prints.

use snooplab_sim::scenario::{default_scenario, ScenarioFile};
use snooplab_sim::{run, RunResult, Scenario};

/// `n` flows from the fixed host to `n` mobile hosts; `agent` replaces the base station's agent.
fn cell(n: usize, protocol: &str, agent: Option<&str>) -> Scenario {
    let mut text = format!(
        "protocol = \"{protocol}\"\nbuffer = \"32k\"\ntransfer = \"100k\"\nerror-every = \"64k\"\n\
         seed = 1\n\n[[node]]\nname = \"fh\"\n\n[[node]]\nname = \"bs\"\nkind = \"base-station\"\n"
    );
    if let Some(a) = agent {
        text += &format!("agent = \"{a}\"\n");
    }
    text += "\n[[link]]\nbetween = [\"fh\", \"bs\"]\n";
    for i in 1..=n {
        text += &format!("\n[[node]]\nname = \"mh{i}\"\n");
    }
    let stations: Vec<String> = (1..=n).map(|i| format!("\"mh{i}\"")).collect();
    text += &format!(
        "\n[[cell]]\nbase-station = \"bs\"\nstations = [{}]\n",
        stations.join(", ")
    );
    for i in 1..=n {
        text += &format!("\n[[flow]]\nfrom = \"fh\"\nto = \"mh{i}\"\n");
    }
    let mut sc = default_scenario();
    let f = ScenarioFile::parse(&text).expect("the test's file parses");
    f.apply(&mut sc).expect("the test's file applies");
    sc.validate().expect("the test's network is valid");
    sc
}

/// Local retransmissions per data frame the channel corrupted on the way to the mobile hosts.
fn per_corrupted(r: &RunResult) -> f64 {
    let corrupted = r.cells[0].frames_corrupted_down;
    assert!(corrupted > 0, "the channel corrupted no frame");
    r.agent_total("local_retransmissions") as f64 / corrupted as f64
}

fn complete(r: &RunResult, n: usize) {
    assert_eq!(r.aggregate.complete_flows, n, "{:?}", r.invariants);
    for f in &r.flows {
        assert!(f.invariants.ok(), "{}: {:?}", f.flow, f.invariants);
    }
}

#[test]
fn a_hundred_flows_through_snoop_resend_each_corrupted_frame_about_once() {
    let snoop = run(&cell(100, "ll-tcp-aware", None));
    let e2e = run(&cell(100, "e2e", None));
    complete(&snoop, 100);
    complete(&e2e, 100);
    let per = per_corrupted(&snoop);
    assert!(
        per <= 1.5,
        "{} local retransmissions for {} corrupted frames",
        snoop.agent_total("local_retransmissions"),
        snoop.cells[0].frames_corrupted_down
    );
    assert!(
        snoop.aggregate.throughput_mbps >= e2e.aggregate.throughput_mbps,
        "snoop {} Mb/s, e2e {} Mb/s",
        snoop.aggregate.throughput_mbps,
        e2e.aggregate.throughput_mbps
    );
    // nothing piles up in the base station's queue: it never overflows
    assert_eq!(snoop.cells[0].queue_drops, 0);
}

/// Twice as many: the queue overflows now and then (congestion, which snoop leaves to the
/// senders), and snoop still resends each corrupted frame about once.
#[test]
fn two_hundred_flows_through_snoop_still_beat_e2e() {
    let snoop = run(&cell(200, "ll-tcp-aware", None));
    let e2e = run(&cell(200, "e2e", None));
    complete(&snoop, 200);
    complete(&e2e, 200);
    assert!(per_corrupted(&snoop) <= 1.5, "{}", per_corrupted(&snoop));
    assert!(snoop.aggregate.throughput_mbps >= e2e.aggregate.throughput_mbps);
}

/// The same snoop with its queue out of sight (`snoop-queue-blind`: the timers count only the
/// packets of the sender and the receiver) resends segments that still wait behind the other
/// flows' packets: what the issue measured before the fix (30 flows: 3,157 local retransmissions
/// for 94 corrupted frames at the time).
#[test]
fn snoop_that_does_not_look_into_its_queue_resends_what_still_waits() {
    let blind = run(&cell(30, "ll-tcp-aware", Some("snoop-queue-blind")));
    let aware = run(&cell(30, "ll-tcp-aware", None));
    complete(&blind, 30);
    complete(&aware, 30);
    assert!(per_corrupted(&blind) > 10.0, "{}", per_corrupted(&blind));
    assert!(per_corrupted(&aware) <= 1.5, "{}", per_corrupted(&aware));
    assert!(blind.aggregate.throughput_mbps < aware.aggregate.throughput_mbps);
}

/// One flow: whether snoop looks into its queue changes nothing at light load.
#[test]
fn one_flow_is_the_same_either_way() {
    let blind = run(&cell(1, "ll-tcp-aware", Some("snoop-queue-blind")));
    let aware = run(&cell(1, "ll-tcp-aware", None));
    assert_eq!(
        blind.aggregate.throughput_mbps,
        aware.aggregate.throughput_mbps
    );
    assert_eq!(
        blind.agent_total("local_retransmissions"),
        aware.agent_total("local_retransmissions")
    );
}
