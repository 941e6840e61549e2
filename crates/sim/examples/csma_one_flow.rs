//! Paper 000's single flow (LAN, 32 KB buffers, end-to-end TCP, 8 MB) under the cell's two access
//! models (and CSMA with the note's upper IFS and slot, 60 us and 23 us), error-free and at one
//! error per 64 KB, seeds 1-5:
//!
//! `cargo run --release -p snooplab-sim --example csma_one_flow`

use snooplab_proto::time::US;
use snooplab_sim::medium::{AccessModel, CsmaParams};
use snooplab_sim::{run_network, Env, Network, Protocol, RunResult, Scenario};

fn run(access: &AccessModel, error_every: u64, seed: u64) -> RunResult {
    let mut sc = Scenario::paper000(Protocol::E2e, Env::Lan, 32768, seed);
    sc.error_every = error_every;
    let mut net = Network::paper000(&sc);
    net.cells[0].access = access.clone();
    run_network(&net, sc.env.name())
}

fn main() {
    let slow = CsmaParams {
        ifs: 60 * US,
        slot: 23 * US,
        ..CsmaParams::default()
    };
    let models = [
        ("turns", AccessModel::Turns),
        ("csma", AccessModel::Csma(CsmaParams::default())),
        ("csma60/23", AccessModel::Csma(slow)),
    ];
    println!(
        "errors  model      seed  Mb/s   timeouts  fast_rexmt  frames  collisions  access_drops  invariants"
    );
    for error_every in [0, 65536] {
        for (name, m) in &models {
            let mut sum = 0.0;
            for seed in 1..=5 {
                let r = run(m, error_every, seed);
                let c = &r.cells[0];
                sum += r.flow().throughput_mbps;
                println!(
                    "{:>6}  {:<9}  {seed:>4}  {:.3}  {:>8}  {:>10}  {:>6}  {:>10}  {:>12}  {}",
                    error_every,
                    name,
                    r.flow().throughput_mbps,
                    r.flow().timeouts,
                    r.flow().fast_retransmits,
                    c.frames,
                    c.collisions,
                    c.access_drops,
                    r.invariants.ok()
                );
            }
            println!("{:>6}  {:<9}  mean  {:.3}", error_every, name, sum / 5.0);
        }
    }
}
