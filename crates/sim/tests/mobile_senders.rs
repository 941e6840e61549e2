//! Mobile senders (paper 004 section 3, paper 002 section 3.2): ELN and NACKs from the base
//! station, the queue rule, and the cellular transit link, end to end.

use snooplab_sim::scenario::{default_scenario, ScenarioFile};
use snooplab_sim::{run, Direction, Env, Protocol, RunResult, Scenario};

fn scenario(text: &str) -> Scenario {
    let mut sc = default_scenario();
    let f = ScenarioFile::parse(text).expect("the test's file parses");
    f.apply(&mut sc).expect("the test's file applies");
    sc.validate().expect("the test's network is valid");
    sc
}

fn assert_clean(r: &RunResult) {
    for f in &r.flows {
        assert!(
            f.invariants.ok() && f.invariants.complete,
            "{}: {:?}",
            f.flow,
            f.invariants
        );
    }
}

/// Paper 004's Fig. 2 setting: the mobile host sends over the WAN path.
fn upload(p: Protocol, every: u64, seed: u64) -> Scenario {
    let mut sc = Scenario::paper000(p, Env::Wan, 32768, seed);
    sc.direction = Direction::Up;
    sc.error_every = every;
    sc.transfer = 1 << 20;
    sc
}

fn mean(v: impl Iterator<Item = f64>) -> f64 {
    let v: Vec<f64> = v.collect();
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

#[test]
fn eln_from_the_base_station_doubles_a_mobile_senders_throughput_at_high_error_rates() {
    let seeds = 1..=4;
    let reno: Vec<RunResult> = seeds
        .clone()
        .map(|s| run(&upload(Protocol::E2e, 16384, s)))
        .collect();
    let eln: Vec<RunResult> = seeds
        .map(|s| run(&upload(Protocol::BsEln, 16384, s)))
        .collect();
    for r in reno.iter().chain(&eln) {
        assert_clean(r);
        assert_eq!(r.flows[0].from, "mh");
    }
    for r in &eln {
        assert!(
            r.agent_total("holes") > 0
                && r.agent_total("eln_marked_acks") > 0
                && r.flow().eln_retransmits > 0
        );
        assert_eq!(r.agent_total("congestion_gaps"), 0, "no queue above 75%");
    }
    for r in &reno {
        assert_eq!(
            r.agent_total("eln_marked_acks"),
            0,
            "a router marks nothing"
        );
    }
    let ratio = mean(eln.iter().map(|r| r.flow().throughput_mbps))
        / mean(reno.iter().map(|r| r.flow().throughput_mbps));
    assert!(ratio > 1.5, "Reno+ELN / Reno = {ratio:.2}");
}

#[test]
fn nacks_reach_a_sack_mobile_sender_and_the_transfer_completes() {
    let r = run(&upload(Protocol::BsNack, 16384, 1));
    assert_clean(&r);
    assert!(r.agent_total("nacks") > 0 && r.agent_total("holes") > 0);
    assert_eq!(r.agent_total("eln_marked_acks"), 0);
    let plain = run(&upload(Protocol::E2eIetfSack, 16384, 1));
    assert!(r.flow().throughput_mbps > plain.flow().throughput_mbps);
}

/// Four mobile hosts send through a base station whose forwarding path (12 ms a packet) cannot
/// keep up: its 50-packet input queue overflows; the channel corrupts nothing.
fn congested(threshold: f64, seed: u64) -> RunResult {
    let mut text = format!(
        "protocol = \"bs-eln\"\nbuffer = \"32k\"\ntransfer = \"1M\"\nerror-every = 0\nseed = {seed}\n\
         [[node]]\nname = \"fh\"\n[[node]]\nname = \"bs\"\nkind = \"base-station\"\n\
         input-queue = 50\nforwarding-us = 12000\nqueue-threshold = {threshold}\n\
         [[link]]\nbetween = [\"fh\", \"bs\"]\nenv = \"lan\"\n\
         [[cell]]\nbase-station = \"bs\"\nstations = [\"mh1\", \"mh2\", \"mh3\", \"mh4\"]\n"
    );
    for i in 1..=4 {
        text.push_str(&format!(
            "[[node]]\nname = \"mh{i}\"\n[[flow]]\nfrom = \"mh{i}\"\nto = \"fh\"\n"
        ));
    }
    let r = run(&scenario(&text));
    assert_clean(&r);
    assert!(r.drops.input_queues > 0, "the input queue overflows");
    r
}

#[test]
fn congestion_drops_at_the_base_stations_input_queue_are_not_marked() {
    let (mut holes, mut gaps, mut marks) = (0, 0, 0);
    for seed in 1..=3 {
        let r = congested(0.75, seed);
        holes += r.agent_total("holes");
        gaps += r.agent_total("congestion_gaps");
        marks += r.agent_total("eln_marked_acks");
        assert_eq!(
            r.flat().frames_corrupted_up + r.flat().frames_corrupted_down,
            0
        );
    }
    // the paper's rule reads the queue when the packet that reveals the gap arrives; a few gaps
    // show only after the queue has drained below 75% (docs/paper004.md)
    assert!(gaps >= 60, "{gaps} gaps bridged as congestion");
    assert!(
        holes * 10 <= gaps,
        "{holes} congestion losses taken for wireless ones"
    );
    // without the rule every such gap would be a wireless hole, and its ACKs marked
    let off = congested(1.0, 1);
    assert_eq!(off.agent_total("congestion_gaps"), 0);
    assert!(
        off.agent_total("holes") >= 15
            && off.agent_total("eln_marked_acks") > 10 * marks.max(1) / 3
    );
}

#[test]
fn corruption_losses_are_marked_and_never_taken_for_congestion() {
    let mut sc = Scenario::paper000(Protocol::BsEln, Env::Lan, 32768, 3);
    sc.direction = Direction::Up;
    sc.transfer = 1 << 20;
    sc.error_every_down = Some(0);
    let r = run(&sc);
    assert_clean(&r);
    assert!(r.flat().frames_corrupted_up > 0);
    assert_eq!(r.agent_total("congestion_gaps"), 0);
    assert!(r.agent_total("holes") > 0 && r.flow().eln_retransmits > 0);
    assert!(r.agent_total("eln_marked_acks") >= r.agent_total("holes"));
    assert_eq!(r.drops.input_queues, 0);
}

fn transit(agent_at_a: &str, protocol: &str, seed: u64) -> RunResult {
    let path = format!(
        "{}/../../examples/transit-eln.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(path)
        .expect("example exists")
        .replace(
            "agent = \"snoop-eln\"",
            &format!("agent = \"{agent_at_a}\""),
        )
        .replace(
            "protocol = \"bs-eln\"",
            &format!("protocol = \"{protocol}\""),
        );
    // the file's own seed gives way to the test's
    let r = run(&Scenario {
        seed,
        ..scenario(&text)
    });
    assert_clean(&r);
    r
}

#[test]
fn a_transit_link_carries_b_s_marks_through_a_to_the_sender() {
    // A only routes: the marks B sets reach the sender, which resends on them
    let r = transit("router", "bs-eln", 1);
    assert!(r.agent_total("holes") > 0 && r.agent_total("eln_marked_acks") > 0);
    assert!(r.flow().eln_retransmits > 0, "the marks crossed A");
    assert_eq!(r.agent_total("local_retransmissions"), 0);
    // snoop at A resends on marked duplicates only, for a plain Reno sender
    let s = transit("snoop-eln", "e2e", 1);
    assert!(s.agent_total("local_retransmissions") > 0 && s.agent_total("dupacks_suppressed") > 0);
    assert_eq!(s.flow().eln_retransmits, 0, "Reno ignores the marks");
    let plain = transit("router", "e2e", 1);
    assert!(s.flow().throughput_mbps > 1.5 * plain.flow().throughput_mbps);
}
