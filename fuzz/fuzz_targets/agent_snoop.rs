//! The link-layer family of base-station agents (LL, LL-TCP-AWARE/snoop, LL-SMART, their paper 002
//! and transit settings, the SACK-reading and SACK-hiding snoops) on the live mode's packets: arbitrary packets from both ports with
//! arbitrary timing. Asserts no panic, every packet sent valid IPv4/TCP (or one it was given), the
//! cache and the connection table within their configured bounds, and timers that move on.
#![no_main]

use libfuzzer_sys::arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use snooplab_fuzz::{drive_live_agent, LivePacket};
use snooplab_proto::agent::{Agent, SnoopAgent, SnoopConfig};

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let sel: u8 = u.arbitrary().unwrap_or(0);
    let mut cfg = match sel % 6 {
        0 => SnoopConfig::paper000(false, false),
        1 => SnoopConfig::paper000(true, false),
        2 => SnoopConfig::paper000(false, true),
        3 => SnoopConfig::paper000(true, true),
        4 => SnoopConfig::paper002(),
        _ => SnoopConfig::transit(),
    };
    // snoop for a SACK sender (agent/snoop/sack.rs): snoop-sack-vl's reading of the blocks, and
    // snoop-sack's rewriting of the ACKs it forwards, over any of the above
    if sel & 0x40 != 0 {
        cfg.read_sack = true;
        cfg.hide_repaired_sack = sel & 0x20 != 0;
        cfg.resend_overtaken = sel & 0x10 != 0;
    }
    // small limits, so that eviction and the caps are reached within one input
    if sel & 0x80 != 0 {
        cfg.high_water = 2;
        cfg.max_cached_per_connection = 4;
        cfg.max_cached_total = 6;
        cfg.max_connections = 2;
    }
    let (per_conn, total, conns) = (
        cfg.max_cached_per_connection,
        cfg.max_cached_total,
        cfg.max_connections,
    );
    let mut agent = SnoopAgent::<LivePacket>::new(cfg);
    drive_live_agent(&mut agent, &mut u, "snoop", &mut |a| {
        let p = a.probe();
        assert!(
            p.held_segments as usize <= total,
            "cache above its total cap"
        );
        assert!(
            p.held_segments as usize <= per_conn * conns,
            "cache above its per-connection cap"
        );
        assert!(
            p.connections as usize <= conns,
            "more connections than the cap"
        );
    });
    let _ = (agent.stats(), agent.counters());
});
