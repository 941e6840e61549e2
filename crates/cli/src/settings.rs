//! The `run` flags as the library's settings (`snooplab_lab::settings`), which own every check and
//! message; the parsers other commands share are the library's too.

use snooplab_lab::settings::RunSettings;
pub use snooplab_lab::settings::{
    channel_flag, parse_max_time, parse_seconds, parse_seed, parse_u32, split_distinct,
};
use snooplab_sim::Scenario;

use crate::cli::RunArgs;

/// Defaults, then the scenario file, then the flags.
pub fn scenario_from_args(a: &RunArgs) -> Result<Scenario, String> {
    Ok(run_settings(a).scenario()?)
}

/// The flags that define the scenario.
fn run_settings(a: &RunArgs) -> RunSettings {
    RunSettings {
        scenario: a.scenario.clone(),
        protocol: a.protocol.clone(),
        env: a.env.clone(),
        buffer: a.buffer.clone(),
        mss: a.mss.clone(),
        transfer: a.transfer.clone(),
        direction: a.direction.clone(),
        error_every: a.error_every.clone(),
        error_every_down: a.error_every_down.clone(),
        error_every_up: a.error_every_up.clone(),
        burst: a.burst.clone(),
        down: a.down.clone(),
        up: a.up.clone(),
        seed: a.seed.clone(),
        max_time: a.max_time.clone(),
        host: a.host.clone(),
        host_detail: a.host_detail.clone(),
    }
}
