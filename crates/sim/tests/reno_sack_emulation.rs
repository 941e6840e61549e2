//! Linux's SACK emulation for a connection without SACK, end to end (host detail
//! `reno-sack-emulation`, `proto/src/tcp/reno_sacks.rs`; docs/live.md, "Web pages"): short Web
//! replies through a lossy cell with no agent reach fast retransmit on a `linux-paper` server,
//! where the same host without the emulation (the model before it) only times out; every run
//! intact either way.

use snooplab_proto::tcp::HostPreset;
use snooplab_sim::scenario::{default_scenario, ScenarioFile};
use snooplab_sim::{run, RunResult, Scenario};

/// The Web example without snoop, 40 pages, no think time, on `linux-paper` hosts with the
/// emulation as given.
fn e2e_pages(emulation: bool) -> RunResult {
    let path = format!(
        "{}/../../examples/web-pages-snoop.toml",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(path)
        .expect("the example exists")
        .replace("protocol = \"snoop\"", "protocol = \"e2e\"")
        .replace("pages = 20", "pages = 40")
        .replace("think-s = 1.0", "think-s = 0");
    let mut sc: Scenario = default_scenario();
    sc.set_host(HostPreset::LinuxPaper);
    ScenarioFile::parse(&text)
        .and_then(|f| f.apply(&mut sc))
        .unwrap_or_else(|e| panic!("{e}"));
    sc.host.reno_sack_emulation = emulation;
    sc.validate().unwrap_or_else(|e| panic!("{e}"));
    run(&sc)
}

#[test]
fn short_replies_reach_fast_retransmit_with_the_emulation() {
    let (on, off) = (e2e_pages(true), e2e_pages(false));
    for r in [&on, &off] {
        assert!(
            r.invariants.ok() && r.invariants.complete,
            "{:?}",
            r.invariants
        );
    }
    let pages = |r: &RunResult| r.flows[0].pages.clone().expect("a workload flow has pages");
    let (p_on, p_off) = (pages(&on), pages(&off));
    assert_eq!(p_on.pages_completed, 40);
    assert_eq!(p_off.pages_completed, 40);
    assert_eq!(
        p_off.server_fast_retransmits, 0,
        "without it no reply draws three duplicates"
    );
    assert!(p_on.server_fast_retransmits > 0, "{p_on:?}");
    assert!(
        p_on.server_timeouts < p_off.server_timeouts,
        "{} timeouts with it, {} without",
        p_on.server_timeouts,
        p_off.server_timeouts
    );
}
