//! A split base station's relay table (issue 52 item 1): connections opened, closed, reset, left
//! idle and flooded with SYNs from both sides, under a memory bound of 0 to 8 relays or the
//! default; what it asserts is in `fuzz/src/split_table.rs`, which `examples/split_table_drive.rs`
//! drives from a seeded generator for millions of operations on one table.
#![no_main]

use libfuzzer_sys::arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use snooplab_fuzz::split_table::{config, ByteSource, Table};

/// Most operations one input drives (a flood is one operation of up to 32 SYNs).
const MAX_OPS: usize = 200;

fuzz_target!(|data: &[u8]| {
    let mut input = Unstructured::new(data);
    let mut table = Table::new(config(&mut input));
    for _ in 0..MAX_OPS {
        if input.done() {
            break;
        }
        table.step(&mut input);
    }
});
