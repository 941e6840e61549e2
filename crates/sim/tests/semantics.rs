//! End-to-end semantics across every protocol (issue 3): no ACK reaches the fixed host for data the
//! mobile host lacks, except through a split base station, where it is counted.

use snooplab_sim::{run, Env, Protocol, Scenario};

#[test]
fn only_split_connections_acknowledge_ahead_of_the_mobile_host() {
    for p in Protocol::ALL {
        for env in [Env::Lan, Env::Wan] {
            let mut sc = Scenario::paper000(p, env, 32768, 4);
            sc.transfer = 1 << 20;
            let r = run(&sc);
            assert!(
                r.invariants.ok(),
                "{} {:?}: {}",
                p.name(),
                env,
                r.invariants.summary()
            );
            assert_eq!(r.invariants.ack_semantics_violations, 0, "{}", p.name());
            if p.is_split() {
                // In the LAN the base station's ACK reaches the fixed host long before the data
                // crosses the WaveLAN; in the WAN the ACK's 59 ms trip can hide it.
                if env == Env::Lan {
                    assert!(r.invariants.split_acks_ahead > 0, "{}", p.name());
                }
                assert_eq!(
                    r.flow().wired_goodput_pct,
                    100.0,
                    "the wired side never loses"
                );
            } else {
                assert_eq!(r.invariants.split_acks_ahead, 0, "{}", p.name());
            }
        }
    }
}

#[test]
fn tcp_aware_link_layer_beats_plain_link_layer_and_reno() {
    let mean = |p: Protocol| {
        (1..=4)
            .map(|seed| {
                let mut sc = Scenario::paper000(p, Env::Lan, 32768, seed);
                sc.transfer = 4 << 20;
                run(&sc).flow().throughput_mbps
            })
            .sum::<f64>()
            / 4.0
    };
    let (e2e, ll, snoop) = (
        mean(Protocol::E2e),
        mean(Protocol::Ll),
        mean(Protocol::LlTcpAware),
    );
    assert!(snoop > ll && ll > e2e, "snoop {snoop}, ll {ll}, e2e {e2e}");
}
