//! The channel models beyond the exponential one, in whole runs (docs/channels.md): a replayed trace
//! hits exactly the frames it marks, a Gilbert-Elliott channel loses frames in runs, and both leave the
//! protocols' invariants clean.

use std::sync::Arc;

use snooplab_sim::channel::{ChannelSpec, ChannelTrace, GilbertElliottParams, Marks};
use snooplab_sim::scenario::default_scenario;
use snooplab_sim::{run, Protocol, RunResult, Scenario};

const MS: u64 = 1_000_000;

fn scenario(protocol: &str, down: ChannelSpec, up: ChannelSpec) -> Scenario {
    let mut sc = default_scenario();
    sc.protocol = Protocol::parse(protocol).expect("known protocol");
    sc.transfer = 1 << 20;
    sc.channel_down = Some(down);
    sc.channel_up = Some(up);
    sc.validate().expect("valid scenario");
    sc
}

fn assert_clean(r: &RunResult) {
    assert!(
        r.invariants.ok() && r.invariants.complete,
        "{:?}",
        r.invariants
    );
}

/// A frame trace: every 29th frame and a pair after every 97th, repeated.
fn frame_trace() -> Arc<ChannelTrace> {
    let lost: Vec<bool> = (0..970)
        .map(|i| i % 29 == 5 || i % 97 == 60 || i % 97 == 61)
        .collect();
    Arc::new(ChannelTrace {
        source: "test".into(),
        marks: Marks::Frames { lost, repeat: true },
    })
}

#[test]
fn a_frame_trace_corrupts_exactly_the_frames_it_marks() {
    let t = frame_trace();
    let Marks::Frames { lost, .. } = &t.marks else {
        unreachable!()
    };
    for protocol in ["e2e", "ll-tcp-aware"] {
        let r = run(&scenario(
            protocol,
            ChannelSpec::Trace(t.clone()),
            ChannelSpec::Trace(t.clone()),
        ));
        assert_clean(&r);
        let ch = &r.cells[0].channels[0];
        let marked = |n: u64| (0..n as usize).filter(|&i| lost[i % lost.len()]).count() as u64;
        assert!(
            ch.frames_down > 700,
            "{protocol}: {} frames",
            ch.frames_down
        );
        assert_eq!(ch.corrupted_down, marked(ch.frames_down), "{protocol} down");
        assert_eq!(ch.corrupted_up, marked(ch.frames_up), "{protocol} up");
        assert_eq!(ch.down, "trace test");
    }
}

#[test]
fn a_time_trace_corrupts_the_frames_that_start_in_its_bad_periods() {
    // bad for 30 ms of every second: about 3% of the time
    let bad = (0..60)
        .map(|s| (s * 1000 * MS + 400 * MS, s * 1000 * MS + 430 * MS))
        .collect();
    let t = Arc::new(ChannelTrace {
        source: "periods".into(),
        marks: Marks::Times { bad },
    });
    let clean = run(&scenario(
        "ll-tcp-aware",
        ChannelSpec::None,
        ChannelSpec::None,
    ));
    let r = run(&scenario(
        "ll-tcp-aware",
        ChannelSpec::Trace(t),
        ChannelSpec::None,
    ));
    assert_clean(&r);
    let ch = &r.cells[0].channels[0];
    let share = ch.corrupted_down as f64 / ch.frames_down as f64;
    assert!((0.01..0.06).contains(&share), "{share}");
    assert_eq!(ch.corrupted_up, 0);
    assert!(r.flow().throughput_mbps < clean.flow().throughput_mbps);
}

#[test]
fn gilbert_elliott_runs_lose_frames_and_snoop_recovers_them() {
    let ge = ChannelSpec::GilbertElliott(GilbertElliottParams {
        good_every: 0,
        bad_every: 1024,
        good_time: 1000 * MS,
        bad_time: 50 * MS,
    });
    let e2e = run(&scenario("e2e", ge.clone(), ChannelSpec::None));
    let snoop = run(&scenario("ll-tcp-aware", ge.clone(), ChannelSpec::None));
    for r in [&e2e, &snoop] {
        assert_clean(r);
        assert!(r.cells[0].channels[0].corrupted_down > 0);
        assert_eq!(r.cells[0].channels[0].down, "ge 0-1/1k 1s-50ms");
    }
    assert!(snoop.flow().throughput_mbps > e2e.flow().throughput_mbps);
    // the same seed gives the same run
    assert_eq!(run(&scenario("e2e", ge, ChannelSpec::None)), e2e);
}
