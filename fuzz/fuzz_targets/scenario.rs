//! The scenario-file reader: TOML text parsed, applied over the defaults of `snooplab run` and
//! checked as a run checks it (which builds the network). Nothing is run. Asserts no panic (and
//! bounded memory, through libFuzzer's limits). Messages may hold what the file holds, newlines
//! included: the command line puts each on one short line (`crates/cli/src/message.rs`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use snooplab_sim::scenario::ScenarioFile;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(file) = ScenarioFile::parse(text) else {
        return;
    };
    if let Ok(sc) = file.scenario() {
        let _ = (
            sc.config_label(),
            sc.host_label(),
            sc.channel(true),
            sc.channel(false),
        );
    }
});
