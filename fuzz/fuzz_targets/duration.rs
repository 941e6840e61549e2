//! The duration parsers: `proto::tcp::parse_duration` (`250us`, `1.5ms`, `1s`; host details and
//! the command line) and the trace files' seconds (`sim::trace::parse_secs`, also the channel
//! traces'). Arbitrary text; asserts no panic, and that a duration that reads is formatted
//! (`format_duration`, `secs`) as text that reads to the same duration.
#![no_main]

use libfuzzer_sys::fuzz_target;
use snooplab_proto::tcp::{format_duration, parse_duration};
use snooplab_sim::trace::{parse_secs, secs};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Some(t) = parse_duration(text) {
        assert_eq!(parse_duration(&format_duration(t)), Some(t), "{text:?}");
    }
    if let Some(t) = parse_secs(text) {
        assert_eq!(parse_secs(&secs(t)), Some(t), "{text:?}");
    }
});
