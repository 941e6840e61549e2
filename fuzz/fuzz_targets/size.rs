//! The size parser (`sim/src/size.rs`: `8192`, `8k`, `1.5M`, `64KiB`): arbitrary text. Asserts no
//! panic, and that a size that reads is formatted (`format_size`) as text that reads to the same
//! size.
#![no_main]

use libfuzzer_sys::fuzz_target;
use snooplab_sim::size::{format_size, parse_size};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(n) = parse_size(text) {
        assert_eq!(parse_size(&format_size(n)), Ok(n), "{text:?}");
    }
});
