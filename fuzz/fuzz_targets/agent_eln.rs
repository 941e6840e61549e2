//! The ELN marker (paper 004) on the live mode's packets: arbitrary packets from both ports, input
//! queue levels and timing. Asserts no panic, every packet sent valid IPv4/TCP (a marked ACK is
//! rebuilt, its checksum recomputed) or one it was given, and the connection table within its cap.
#![no_main]

use libfuzzer_sys::arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use snooplab_fuzz::{drive_live_agent, LivePacket};
use snooplab_proto::agent::{Agent, ElnAgent, ElnConfig};

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let sel: u8 = u.arbitrary().unwrap_or(0);
    let mut cfg = ElnConfig::paper004();
    if sel & 1 != 0 {
        cfg.max_blocks = 3;
        cfg.max_connections = 2;
    }
    cfg.queue_threshold = f64::from(sel >> 1) / 127.0;
    let conns = cfg.max_connections;
    let mut agent = ElnAgent::<LivePacket>::new(cfg);
    drive_live_agent(&mut agent, &mut u, "eln", &mut |a| {
        assert!(
            a.probe().connections as usize <= conns,
            "more connections than the cap"
        );
    });
    let _ = (agent.stats(), agent.counters());
});
