//! The NACK generator (paper 002 section 3.2) on the live mode's packets: arbitrary packets from
//! both ports, input queue levels and timing. Asserts no panic, every packet sent (a NACK is a
//! made-up ACK with SACK blocks) valid IPv4/TCP or one it was given, the connection table within
//! its cap, and timers that move on.
#![no_main]

use libfuzzer_sys::arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use snooplab_fuzz::{drive_live_agent, LivePacket};
use snooplab_proto::agent::{Agent, NackAgent, NackConfig};

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let sel: u8 = u.arbitrary().unwrap_or(0);
    let mut cfg = NackConfig::paper002();
    if sel & 1 != 0 {
        cfg.max_blocks = 3;
        cfg.max_connections = 2;
    }
    cfg.threshold = u32::from(sel >> 1) % 5;
    let conns = cfg.max_connections;
    let mut agent = NackAgent::<LivePacket>::new(cfg);
    drive_live_agent(&mut agent, &mut u, "nack", &mut |a| {
        assert!(
            a.probe().connections as usize <= conns,
            "more connections than the cap"
        );
    });
    let _ = (agent.stats(), agent.counters());
});
