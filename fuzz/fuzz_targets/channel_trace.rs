//! The channel-trace reader (`sim/src/channel/replay.rs`): arbitrary text. Asserts no panic, that
//! a trace that reads is written back (`to_text`) as text that reads to the same trace, and that
//! replaying it answers for a run of frames.
#![no_main]

use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use snooplab_sim::channel::{ChannelTrace, Replay};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(trace) = ChannelTrace::parse(text, "fuzz") else {
        return;
    };
    let _ = trace.summary();
    let back = ChannelTrace::parse(&trace.to_text("written\nback"), "fuzz")
        .expect("a trace's own text reads");
    assert_eq!(back, trace, "to_text does not give the trace back");
    let mut r = Replay::new(Arc::new(trace));
    let mut now = 0u64;
    for i in 0..64u64 {
        now += i * 7_000_000;
        let _ = r.corrupts(now);
    }
});
