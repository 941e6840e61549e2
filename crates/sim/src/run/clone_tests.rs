//! A run is `Clone`: a copy taken at its start or in its middle runs on to the original's result,
//! to the bit (event counts included). The networks cover what a copy must hold: TCP senders,
//! snoop's cache, a CSMA cell, a mobile host's mobility layer, the handoff agents and a split
//! connection's state on its way between base stations.

use super::sharing::Watch;
use super::{SimulatedTime, Simulation};
use crate::metrics::RunResult;
use crate::network::Network;
use crate::scenario::Scenario;
use crate::{Env, Protocol};

/// Paper 002's handoff testbed, 400 KB, a handoff every second under `scheme` with `agent` at
/// both base stations.
fn handoff(agent: &str, scheme: &str) -> Network {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/paper002-handoff.toml"
    );
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut text = text;
    for (key, value) in [
        ("transfer = \"10M\"", "transfer = \"400k\"".to_string()),
        ("agent = \"snoop-002\"", format!("agent = \"{agent}\"")),
        ("every-s = 5", format!("every-s = 1\nscheme = \"{scheme}\"")),
    ] {
        assert!(text.contains(key), "{path} has no `{key}`");
        text = text.replace(key, &value);
    }
    Scenario::from_toml(&text)
        .unwrap_or_else(|e| panic!("{e}"))
        .network()
}

fn networks() -> Vec<(String, Network)> {
    let mut out = vec![];
    for protocol in [Protocol::E2e, Protocol::LlTcpAware, Protocol::Split] {
        let mut sc = Scenario::paper000(protocol, Env::Lan, 16384, 3);
        sc.transfer = 300_000;
        out.push((protocol.name().to_string(), sc.network()));
    }
    let cell = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/paper001-3-hosts.toml"
    );
    let text = std::fs::read_to_string(cell).unwrap_or_else(|e| panic!("{cell}: {e}"));
    let mut net = Scenario::from_toml(&text)
        .unwrap_or_else(|e| panic!("{e}"))
        .network();
    for f in &mut net.flows {
        f.transfer = f.transfer.min(200_000);
    }
    out.push(("paper001 3 hosts".into(), net));
    out.push((
        "handoff, multicast".into(),
        handoff("snoop-002", "multicast"),
    ));
    out.push(("handoff, split".into(), handoff("split", "split")));
    out
}

fn run_from(sim: Simulation) -> RunResult {
    sim.run_to_end(&mut SimulatedTime).0
}

#[test]
fn a_clone_runs_to_the_same_result_as_the_original() {
    for (name, net) in networks() {
        let own = Simulation::of_network(&net, "lan").run();
        // at the start
        let sim = Simulation::of_network(&net, "lan");
        let copy = sim.clone();
        assert_eq!(run_from(copy), own, "{name}: a copy at the start");
        assert_eq!(run_from(sim), own, "{name}: the original");
        // in the middle, at a few points
        let mut whole = Simulation::of_network(&net, "lan");
        whole.run_events(&mut SimulatedTime, None);
        let total = whole.book.events;
        for at in [1, total / 3, total / 2, total * 9 / 10] {
            let mut sim = Simulation::of_network(&net, "lan");
            let stopped = sim.run_events(&mut SimulatedTime, Some(&Watch::after(at)));
            assert!(stopped, "{name}: stopped at {at} of {total} events");
            let copy = sim.clone();
            assert_eq!(run_from(copy), own, "{name}: a copy after {at} events");
            assert_eq!(run_from(sim), own, "{name}: the original after {at} events");
        }
    }
}
