//! The duration parsers: `proto::duration::parse`, the one grammar of every flag and file key
//! (`250us`, `1.5ms`, `1e7s`, `1.5d`), and the trace files' seconds (`sim::trace::parse_secs`, also the channel
//! traces'). Arbitrary text; asserts no panic, and that a duration that reads is formatted
//! (`format_duration`, `show`, `secs`) as text that reads to the same duration.
#![no_main]

use libfuzzer_sys::fuzz_target;
use snooplab_proto::duration::{format_duration, parse, show, Bare};
use snooplab_sim::trace::{parse_secs, secs};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(t) = parse(text, Bare::Millis) {
        assert_eq!(parse(&format_duration(t), Bare::Millis), Ok(t), "{text:?}");
        assert_eq!(parse(&show(t), Bare::Seconds), Ok(t), "{text:?}");
    }
    if let Some(t) = parse_secs(text) {
        assert_eq!(parse_secs(&secs(t)), Some(t), "{text:?}");
    }
});
