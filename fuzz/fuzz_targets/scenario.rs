//! The scenario-file reader: TOML text parsed, applied over the defaults of `snooplab run` and
//! checked as a run checks it (which builds the network). Nothing is run. Asserts no panic, and
//! that an error message is one line.
#![no_main]

use libfuzzer_sys::fuzz_target;
use snooplab_sim::scenario::ScenarioFile;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let file = match ScenarioFile::parse(text) {
        Ok(f) => f,
        Err(e) => {
            assert!(!e.contains('\n'), "a message of more than one line: {e}");
            return;
        }
    };
    match file.scenario() {
        Ok(sc) => {
            let _ = (
                sc.config_label(),
                sc.host_label(),
                sc.channel(true),
                sc.channel(false),
            );
        }
        Err(e) => assert!(!e.contains('\n'), "a message of more than one line: {e}"),
    }
});
