//! What paper 004 runs: Fig. 2's protocols at each of its error rates, each a scenario on paper
//! 000's WAN testbed.

use snooplab_sim::scenario::{Direction, Env, Scenario};
use snooplab_sim::Protocol;

use super::data::{Paper004, ABOUT};

/// The protocols of Fig. 2, in its order, and the NACK scheme after them.
pub const PROTOCOLS: [Protocol; 3] = [Protocol::E2e, Protocol::BsEln, Protocol::BsNack];

/// The scenario of one point of Fig. 2: paper 000's WAN testbed (the same "one wireless WaveLAN
/// hop and 16 Internet hops"), the mobile host sending 8 MB with 32 KB buffers, bit errors every
/// `kbytes` KB in both directions.
pub fn scenario(protocol: Protocol, kbytes: u64, seed: u64) -> Scenario {
    let mut sc = Scenario::paper000(protocol, Env::Wan, 32768, seed);
    sc.direction = Direction::Up;
    sc.error_every = kbytes * 1024;
    sc.set_host(ABOUT.default_host);
    sc
}

/// Every run of Fig. 2 in a fixed order: error rate, then protocol, then seed.
pub fn jobs(paper: &Paper004, seeds: u64) -> Vec<Scenario> {
    let mut out = vec![];
    for &kb in &paper.kbytes_between_errors {
        for p in PROTOCOLS {
            for s in 1..=seeds {
                out.push(scenario(p, kb, s));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_paper_data_gives_fig2s_axis_and_the_constants() {
        let p = Paper004::load().expect("paper data");
        assert_eq!(p.kbytes_between_errors, [8, 16, 32, 64, 128, 256, 512]);
        assert_eq!(p.eln_rexmt_thresh, 2);
        assert!((p.congestion_queue_threshold - 0.75).abs() < 1e-9);
        let j = jobs(&p, 2);
        assert_eq!(j.len(), 7 * 3 * 2);
        assert_eq!(j[0].direction, Direction::Up);
        assert_eq!(j[0].error_every, 8 * 1024);
        assert_eq!(j[2].protocol, Protocol::BsEln);
        assert_eq!(j[2].seed, 1);
        // the mechanisms run with the paper's constants
        let eln = Protocol::BsEln.sender_policy().eln.map(|e| e.rexmt_thresh);
        assert_eq!(eln, Some(p.eln_rexmt_thresh));
        let q = snooplab_proto::agent::ElnConfig::paper004().queue_threshold;
        assert!((q - p.congestion_queue_threshold).abs() < 1e-9);
        assert!(
            (snooplab_sim::network::InputQueue::default().congestion_fraction - q).abs() < 1e-9
        );
    }
}
