//! `snooplab live --exec HOST=COMMAND` with the paper-000 preset (docs/live.md, "Your own
//! programs: --exec"): the preset's checks, and its network run as a scenario's (`live_scenario.rs`;
//! each command's output and the run's exit status are `live_text.rs`'s).

use snooplab_live::network_run::NetworkConfig;
use snooplab_live::LiveConfig;

use crate::cli::LiveArgs;
use crate::live_flags::exec_specs;
use crate::live_scenario::run_config;

/// The paper-000 preset with `--exec`: the flags' one configuration (one protocol, one run, as
/// the commands run once) as a network whose hosts are `fh` and `mh`.
pub fn live_preset_exec(a: &LiveArgs, configs: &[LiveConfig]) -> Result<(), String> {
    let [c] = configs else {
        return Err(format!(
            "--exec runs the commands once: give one --protocol and --runs 1 ({} runs planned)",
            configs.len()
        ));
    };
    snooplab_live::run::validate(c)?;
    let cfg = NetworkConfig {
        scenario: snooplab_live::run::preset_scenario(c),
        profile: c.profile,
        cc: c.cc,
        rto_min_ms: c.rto_min_ms,
        max_time: c.max_time,
        exec: exec_specs(a)?,
        host_input: c.host_input,
    };
    run_config(a, cfg, c.protocol.name())
}
