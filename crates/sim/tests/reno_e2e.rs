//! End-to-end behaviour of TCP Reno on the lossy testbed: invariants hold, goodput matches the loss
//! rate, and the orderings paper 000 reports for E2E (LAN above WAN; 32 KB at least as good as 8 KB;
//! far below the error-free peak) hold.

use snooplab_sim::stats::summarize;
use snooplab_sim::{run, Env, Protocol, Scenario};

fn mean_throughput(env: Env, buffer: u32, seeds: u64) -> (f64, f64) {
    let rs: Vec<_> = (1..=seeds)
        .map(|s| run(&Scenario::paper000(Protocol::E2e, env, buffer, s)))
        .collect();
    for r in &rs {
        assert!(
            r.invariants.ok(),
            "seed {}: {}",
            r.setup.seed,
            r.invariants.summary()
        );
        assert_eq!(r.invariants.ack_semantics_violations, 0);
        assert!(r.flow().timeouts > 0 && r.flow().fast_retransmits > 0);
    }
    let t = summarize(
        &rs.iter()
            .map(|r| r.flow().throughput_mbps)
            .collect::<Vec<_>>(),
    );
    let g = summarize(
        &rs.iter()
            .filter_map(|r| r.flow().wireless_goodput_pct)
            .collect::<Vec<_>>(),
    );
    (t.mean, g.mean)
}

#[test]
fn e2e_orderings_and_goodput() {
    let (lan8, g) = mean_throughput(Env::Lan, 8192, 5);
    let (lan32, _) = mean_throughput(Env::Lan, 32768, 5);
    let (wan32, _) = mean_throughput(Env::Wan, 32768, 5);
    // Goodput is about 1 - the 2.2% frame loss rate.
    assert!((96.5..=98.5).contains(&g), "goodput {g}");
    assert!(lan32 > wan32, "LAN {lan32} vs WAN {wan32}");
    assert!(lan32 >= lan8 * 0.97, "32k {lan32} vs 8k {lan8}");
    // Wireless losses cost Reno a large share of the 1.50 / 1.35 Mb/s peaks.
    assert!(lan32 < 0.8 * 1.50, "LAN {lan32}");
    assert!(wan32 < 0.5 * 1.35, "WAN {wan32}");
}

#[test]
fn burst_errors_hurt_more_than_single_errors() {
    let mut single = Scenario::paper000(Protocol::E2e, Env::Lan, 32768, 1);
    single.transfer = 2 << 20;
    let burst = Scenario {
        burst: 4,
        ..single.clone()
    };
    let a: f64 = (1..=4)
        .map(|s| {
            run(&Scenario {
                seed: s,
                ..single.clone()
            })
            .flow()
            .throughput_mbps
        })
        .sum();
    let b: f64 = (1..=4)
        .map(|s| {
            run(&Scenario {
                seed: s,
                ..burst.clone()
            })
            .flow()
            .throughput_mbps
        })
        .sum();
    assert!(b < a, "burst 4: {b} vs single: {a}");
}
