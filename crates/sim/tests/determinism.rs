//! Same scenario and seed, same bytes (docs/architecture.md#rules).

use snooplab_sim::{run, Env, Protocol, Scenario};

fn json(sc: &Scenario) -> String {
    serde_json::to_string(&run(sc)).expect("results encode")
}

#[test]
fn same_seed_gives_identical_json() {
    for env in [Env::Lan, Env::Wan] {
        let sc = Scenario::paper000(Protocol::E2e, env, 32768, 42);
        assert_eq!(json(&sc), json(&sc));
    }
}

#[test]
fn different_seeds_differ() {
    let a = Scenario::paper000(Protocol::E2e, Env::Lan, 32768, 1);
    let b = Scenario {
        seed: 2,
        ..a.clone()
    };
    assert_ne!(json(&a), json(&b));
}

#[test]
fn parallel_runs_match_sequential_runs() {
    let scs: Vec<Scenario> = (1..=6)
        .map(|s| Scenario::paper000(Protocol::E2e, Env::Lan, 8192, s))
        .collect();
    let sequential: Vec<String> = scs.iter().map(json).collect();
    let parallel: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = scs.iter().map(|sc| scope.spawn(move || json(sc))).collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("run thread"))
            .collect()
    });
    assert_eq!(sequential, parallel);
}

/// A pinned result: if this changes, the model changed, and the README's numbers must be re-measured.
#[test]
fn golden_result_is_stable() {
    let r = run(&Scenario::paper000(Protocol::E2e, Env::Lan, 32768, 1));
    assert!(r.invariants.ok());
    assert_eq!(r.flat().frames_corrupted_down, 122, "error process changed");
    assert!(r.events > 10_000);
}

/// Tracing and capturing watch a run without changing it, for every kind of base-station agent.
#[test]
fn observing_a_run_does_not_change_it() {
    use snooplab_sim::capture::Capture;
    use snooplab_sim::{Observer, Simulation};
    for p in [Protocol::E2e, Protocol::LlTcpAware, Protocol::SplitSmart] {
        let mut sc = Scenario::paper000(p, Env::Lan, 32768, 5);
        sc.transfer = 1 << 20;
        let plain = serde_json::to_string(&run(&sc)).unwrap();
        let sinks: Vec<(String, snooplab_sim::capture::Sink)> = vec![
            ("wired".into(), Box::new(std::io::sink())),
            ("wireless".into(), Box::new(std::io::sink())),
        ];
        let capture = Capture::new(sinks).unwrap();
        let (r, obs) =
            Simulation::observed(&sc, Observer::default().with_trace().with_capture(capture))
                .run_observed();
        assert_eq!(serde_json::to_string(&r).unwrap(), plain, "{p:?}");
        let trace = obs.trace.expect("a trace");
        assert!(!trace.segments.is_empty() && !trace.acks.is_empty());
        let counts = obs.capture.expect("captures").finish().unwrap();
        let (wired, wireless) = (counts[0].1, counts[1].1);
        assert!(wired > 0 && wireless > 0);
    }
}
