//! SPLIT and SPLIT-SMART (paper 000 section III-C): the relay's two TCPs fed arbitrary segments
//! from both ports with arbitrary timing. Asserts no panic, every segment the relay sends one that
//! goes on the wire as it is (options that fit, a length IPv4 can carry, a header that encodes and
//! parses back), the relay holding a bounded number of bytes, and timers that move on.
//!
//! The bound is the relay buffer and a segment each way (a relay carries both directions): 4.4BSD's
//! `tcp_mss` rounds the receive buffers up to whole segments. This target found the relay holding
//! more (docs/fuzzing.md, finding 4: `pump` read the wired side before it reserved the bytes for
//! the wireless side).
#![no_main]

use libfuzzer_sys::arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use snooplab_fuzz::split_table::relay_settings;
use snooplab_fuzz::{check_sim_packet, drive_agent, sim_packet, Drive, SimPacket};
use snooplab_proto::agent::{Agent, SplitAgent};
use snooplab_proto::Segment;

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let sel: u8 = u.arbitrary().unwrap_or(0);
    let mut cfg = relay_settings(sel);
    let mss = cfg.wired.mss;
    if sel & 0x10 != 0 {
        cfg.relay_bytes = 4096;
    }
    let relay = u64::from(cfg.relay_bytes);
    let mut agent = SplitAgent::<SimPacket>::new(cfg);
    let given = std::cell::RefCell::new(Vec::<Segment>::new());
    drive_agent(
        &mut agent,
        &mut u,
        Drive {
            packet: &mut |u| {
                let p = sim_packet(u)?;
                given.borrow_mut().push(p.seg);
                Some(p)
            },
            check: &mut |t| check_sim_packet(&t.packet, &given.borrow(), "split"),
            after: &mut |a| {
                let probe = a.probe();
                let (held, relays) = (probe.held_bytes, u64::from(probe.connections));
                assert!(
                    held <= relays * 2 * (relay + u64::from(mss)),
                    "{relays} relays hold {held} bytes, each its buffer {relay} each way (MSS {mss})"
                );
            },
            extra: None,
        },
    );
    let _ = (agent.counters(), agent.relay().map(|r| r.reports()));
});
