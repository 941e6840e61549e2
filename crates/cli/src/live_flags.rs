//! What every `snooplab live` run reads of its flags, the paper-000 preset's and a scenario's
//! alike: the hosts' settings and the `--exec` commands (below `live_cmd.rs`, `live_exec.rs` and
//! `live_scenario.rs`, which all read them).

use snooplab_live::exec::ExecSpec;
use snooplab_live::{CongestionControl, LinuxProfile};

use crate::cli::LiveArgs;

/// The hosts' settings: `--linux-profile`, and `--cc` and `--rto-min` over the profile's.
pub fn host_settings(
    a: &LiveArgs,
) -> Result<(LinuxProfile, CongestionControl, Option<u32>), String> {
    let profile = LinuxProfile::parse(&a.linux_profile)?;
    let cc = match &a.cc {
        Some(c) => CongestionControl::parse(c)?,
        None => profile.default_cc(),
    };
    let rto_min_ms = match &a.rto_min {
        Some(t) => snooplab_live::profile::parse_rto_min(t)?,
        None => profile.default_rto_min_ms(),
    };
    Ok((profile, cc, rto_min_ms))
}

/// The `--exec` commands, parsed (their hosts are checked against the network's).
pub fn exec_specs(a: &LiveArgs) -> Result<Vec<ExecSpec>, String> {
    a.exec.iter().map(|e| ExecSpec::parse(e)).collect()
}
