//! The `[[cell]]` table, and its keys that replace one number of the WaveLAN model it starts from,
//! each declared once ([`CELL_KEYS`], `params.rs`): a new such key is `WavelanParams`'s field
//! (`medium/mod.rs`), its serde field and row here, and the code that uses it. Its stations,
//! access rule and channels are tables of their own (`resolve.rs`, `channel.rs`).

use serde::Deserialize;
use snooplab_proto::time::US;

use super::params::ParamKey;
use super::values::whole_us;
use super::{ChannelTable, CsmaTable, StationTable};
use crate::file_value::SizeValue;
use crate::medium::WavelanParams;

/// A `[[cell]]` table: a base station's wireless cell.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct CellTable {
    /// Name of its capture file [default: `<base station>-cell`].
    pub name: Option<String>,
    pub base_station: String,
    /// Its mobile hosts, with the cell's channel settings.
    #[serde(default)]
    pub stations: Vec<String>,
    /// Mobile hosts with channel settings of their own.
    #[serde(default)]
    pub station: Vec<StationTable>,
    /// How the stations share the medium: `turns` [default] or `csma`.
    pub access: Option<String>,
    /// CSMA/CA's constants, each over its default (`access = "csma"` only).
    pub csma: Option<CsmaTable>,
    pub rate_bps: Option<u64>,
    /// Fixed airtime of every frame besides its bits, microseconds.
    pub frame_overhead_us: Option<u64>,
    /// Frames each station's queue holds.
    pub queue: Option<usize>,
    pub error_every: Option<SizeValue>,
    pub error_every_down: Option<SizeValue>,
    pub error_every_up: Option<SizeValue>,
    pub burst: Option<i64>,
    pub down: Option<ChannelTable>,
    pub up: Option<ChannelTable>,
}

/// Every key of a cell's WaveLAN model, in the order a file is checked and written.
pub(super) const CELL_KEYS: [ParamKey<CellTable, WavelanParams>; 3] = [
    ParamKey {
        name: "rate-bps",
        read: |c, _| Ok(c.rate_bps),
        apply: |p, v| p.rate_bps = v,
        write: |p, _| Ok(p.rate_bps.to_string()),
    },
    ParamKey {
        name: "frame-overhead-us",
        read: |c, _| Ok(c.frame_overhead_us.map(|u| u * US)),
        apply: |p, v| p.frame_overhead = v,
        write: |p, what| {
            whole_us(p.frame_overhead, &format!("{what}: frame-overhead-us")).map(|u| u.to_string())
        },
    },
    ParamKey {
        name: "queue",
        read: |c, _| Ok(c.queue.map(|q| q as u64)),
        apply: |p, v| p.queue_packets = v as usize,
        write: |p, _| Ok(p.queue_packets.to_string()),
    },
];
