//! Results that must not be lost or contradict each other (issue 14): a split run reports its relay
//! sender's counters; an incomplete run says which connection gave up or stalled, and why; the
//! timeout stall lies within the transfer's duration.

use proptest::prelude::*;
use snooplab_sim::{run, Env, Protocol, Scenario};

/// SPLIT's wireless losses are repaired by the base station's own sender: its timeouts (14 in this
/// run) were lost behind the fixed host's, which are always 0.
#[test]
fn split_reports_the_relay_senders_counters() {
    let r = run(&Scenario::paper000(Protocol::Split, Env::Lan, 32768, 1));
    assert!(r.invariants.ok(), "{:?}", r.invariants.messages);
    assert_eq!(r.flow().timeouts, 0, "the fixed host's sender");
    let relay = r
        .flow()
        .relay
        .as_ref()
        .expect("a split run reports its relay sender");
    assert!(relay.timeouts > 0, "{relay:?}");
    assert!(relay.fast_retransmits > 0);
    assert_eq!(
        relay.retransmitted_segments,
        r.agent_total("local_retransmissions")
    );
    assert!(!relay.gave_up);
    let causes = &relay.timeout_causes;
    assert_eq!(
        causes.retransmission_lost
            + causes.multiple_losses
            + causes.small_window
            + causes.other
            + causes.handshake,
        relay.timeouts
    );
    assert_eq!(r.flows[0].relay.as_ref(), Some(relay));
    // the other protocols have no relay, and keep their keys' meaning
    let e2e = run(&Scenario::paper000(Protocol::E2e, Env::Lan, 32768, 1));
    assert!(e2e.flow().relay.is_none() && e2e.flow().timeouts > 0);
}

/// Issue 14's incomplete split run. The relay sender (base station to mobile host) gave up after 12
/// retransmissions at 646 s with 64 KB in its buffer; the full buffer then held the wired window at
/// zero and the fixed host probed it until the time cap (3600 s), and the run said only "nothing
/// was left to happen (a deadlock ...)" and "stopped at the time cap". The relay now resets the
/// fixed host's connection, the run ends there, and the message names the connection.
#[test]
fn an_incomplete_split_run_says_the_relay_gave_up() {
    let mut sc = Scenario::paper000(Protocol::Split, Env::Wan, 4096, 148_014_286);
    sc.error_every = 4096;
    sc.burst = 4;
    sc.transfer = 512 * 1024;
    let r = run(&sc);
    assert!(!r.invariants.complete);
    let relay = r.flow().relay.as_ref().expect("a split run");
    assert!(relay.gave_up && relay.timeouts >= 12, "{relay:?}");
    let msgs = r.invariants.messages.join("\n");
    assert!(
        msgs.contains("relay sender") && msgs.contains("gave up") && msgs.contains("646.088 s"),
        "{msgs}"
    );
    assert!(msgs.contains("reset the fixed host's connection"), "{msgs}");
    assert!(
        !msgs.contains("deadlock") && !msgs.contains("time cap"),
        "{msgs}"
    );
    // the run ends when the reset reaches the fixed host, not at a timer cancelled by it
    assert!(
        r.flow().duration_s > 645.0 && r.flow().duration_s < 646.1,
        "{}",
        r.flow().duration_s
    );
    assert!(
        r.flow().persist_timeouts < 30,
        "{} probes",
        r.flow().persist_timeouts
    );
}

/// A run stopped by its time cap says so, not that nothing was left to happen.
#[test]
fn a_run_stopped_by_the_time_cap_says_so() {
    let mut sc = Scenario::paper000(Protocol::E2e, Env::Lan, 32768, 1);
    sc.max_time = snooplab_proto::time::SEC;
    let r = run(&sc);
    assert!(!r.invariants.complete);
    let msgs = r.invariants.messages.join("\n");
    assert!(
        msgs.contains("the run reached its time cap of 1.000 s"),
        "{msgs}"
    );
    assert!(!msgs.contains("deadlock"), "{msgs}");
}

/// An e2e sender that gives up is named, with the time.
#[test]
fn a_sender_that_gives_up_says_when() {
    let mut sc = Scenario::paper000(Protocol::E2e, Env::Lan, 8192, 964_442_835);
    sc.error_every = 16384;
    sc.burst = 4;
    sc.transfer = 512 * 1024;
    let r = run(&sc);
    let msgs = r.invariants.messages.join("\n");
    assert!(
        msgs.contains("the sender gave up after 12 retransmissions of one segment at 1142.713 s"),
        "{msgs}"
    );
    assert!(r.flow().relay.is_none());
}

/// The run of issue 14: five SYN timeouts (about 206 s) before the first data segment, counted in
/// `timeout_stall_s` (1135.5 s) but not in `duration_s` (937.0 s), which starts at the first data
/// segment.
#[test]
fn handshake_timeouts_do_not_count_in_the_stall() {
    let mut sc = Scenario::paper000(Protocol::E2e, Env::Lan, 8192, 964_442_835);
    sc.error_every = 16384;
    sc.burst = 4;
    sc.transfer = 512 * 1024;
    let r = run(&sc);
    assert!(r.flow().timeout_causes.handshake > 0, "the SYN was lost");
    assert!(
        r.flow().timeout_stall_s <= r.flow().duration_s,
        "stall {} s > duration {} s",
        r.flow().timeout_stall_s,
        r.flow().duration_s
    );
    // the data phase's waits are all still there: 1135.5 s less the handshake's 205.7 s
    assert!(
        (r.flow().timeout_stall_s - 929.8).abs() < 0.1,
        "stall {} s",
        r.flow().timeout_stall_s
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Whatever happens (lost SYNs, lost FINs, give-ups, a full split relay), the sender cannot
    /// have waited for its retransmission timer longer than the transfer took.
    #[test]
    fn the_timeout_stall_never_exceeds_the_duration(
        protocol in prop::sample::select(Protocol::ALL.to_vec()),
        wan in any::<bool>(),
        buffer in prop::sample::select(vec![4096u32, 8192, 32768]),
        (error_every, burst) in prop::sample::select(vec![
            (4096u64, 4u32), (8192, 2), (16384, 4), (16384, 1), (65536, 1),
        ]),
        seed in 1u64..u64::from(u32::MAX),
    ) {
        let env = if wan { Env::Wan } else { Env::Lan };
        let mut sc = Scenario::paper000(protocol, env, buffer, seed);
        sc.transfer = 128 * 1024;
        sc.error_every = error_every;
        sc.burst = burst;
        let r = run(&sc);
        prop_assert!(
            r.flow().timeout_stall_s <= r.flow().duration_s,
            "{} seed {seed}: stall {} s > duration {} s",
            protocol.name(), r.flow().timeout_stall_s, r.flow().duration_s
        );
        for f in &r.flows {
            prop_assert!(f.timeout_stall_s <= f.duration_s);
        }
    }
}
