//! What the paper-000 preset adds to the one result of a live run (`network_report.rs`): the
//! flags' own label for the path (`--env off` is no simulator environment) and the capacity of
//! the emulated path. Everything else is the engine's result for the preset's network, in
//! `snooplab run --json`'s keys, with the `live` group every live run has (docs/outputs.md).

use crate::config::{LiveConfig, HEADER_BYTES};
use crate::network_report::NetworkResult;

/// The preset's result from the engine's: `r` with the flags' label and the path's capacity.
pub(crate) fn preset_result(cfg: &LiveConfig, mut r: NetworkResult) -> NetworkResult {
    // the segments' real size: options (timestamps) take payload room, not MTU
    let mss = r.run.flow().mss.clamp(1, cfg.mss);
    let headers = cfg.mss + HEADER_BYTES - mss;
    let capacity = cfg
        .link
        .as_ref()
        .map_or(0.0, |k| k.path_capacity_bps(mss, headers, 2) / 1e6);
    r.live.capacity_mbps = Some(capacity);
    // `off` runs the lan preset's shape with links that limit nothing (`run.rs`): say so
    r.run.setup.env.clone_from(&cfg.env_name);
    r
}
