//! Networks in scenario files (`docs/networks.md`): `[[node]]`, `[[link]]`, `[[cell]]` and `[[flow]]`
//! tables beside a scenario's top-level settings, which stay the defaults of every flow, link and
//! channel that does not set its own.
//!
//! This file holds the tables as a file spells them; `node.rs`, `link.rs`, `cell.rs` and
//! `flow.rs` the `[[node]]`, `[[link]]`, `[[cell]]` and `[[flow]]` tables with their keys that set
//! one value of the model,
//! each declared once (`params.rs`); `channel.rs` the channel keys they share;
//! `resolve.rs` the two steps from tables to a network: [`Topology::resolve`] checks the tables and
//! turns names into indices (every error names the table and the key), and
//! [`Network::from_topology`](crate::network::Network::from_topology) fills in the scenario's
//! defaults, which cannot fail. So a scenario carries its topology and `--protocol`,
//! `--buffer`, ... still change every flow that does not name its own.

use serde::Deserialize;
use snooplab_proto::time::US;

use crate::file_value::{SizeValue, TimeValue};
use crate::medium::CsmaParams;

mod cell;
mod channel;
mod flow;
mod link;
mod node;
mod params;
mod values;
mod workload;
mod write;

pub use cell::CellTable;
pub use channel::ChannelTable;
pub(crate) use channel::{ChannelKeys, ChannelLevel};
pub use flow::FlowTable;
pub use link::LinkTable;
pub use node::{NodeTable, Stack};
pub use resolve::Topology;
pub(crate) use resolve::CRASH_DOWN_RANGE;
pub use write::write_scenario;

/// A station of a cell with its own channel settings (`[[cell.station]]`).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct StationTable {
    pub node: String,
    pub error_every: Option<SizeValue>,
    pub error_every_down: Option<SizeValue>,
    pub error_every_up: Option<SizeValue>,
    pub burst: Option<i64>,
    pub down: Option<ChannelTable>,
    pub up: Option<ChannelTable>,
}

/// `csma = { slot-us = 23, ifs-us = 60 }`: the CSMA/CA constants a cell changes
/// (`crate::medium::CsmaParams` documents each and its source).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct CsmaTable {
    pub ifs_us: Option<u64>,
    pub slot_us: Option<u64>,
    pub cw_min: Option<u32>,
    pub cw_max: Option<u32>,
    pub max_attempts: Option<u32>,
    pub post_tx_window: Option<u32>,
    pub load_ns_per_byte: Option<u64>,
    pub framing_us: Option<u64>,
    pub sense_delay_us: Option<u64>,
}

impl CsmaTable {
    fn params(&self) -> CsmaParams {
        let d = CsmaParams::default();
        CsmaParams {
            ifs: self.ifs_us.map_or(d.ifs, |u| u * US),
            slot: self.slot_us.map_or(d.slot, |u| u * US),
            cw_min: self.cw_min.unwrap_or(d.cw_min),
            cw_max: self.cw_max.unwrap_or(d.cw_max),
            max_attempts: self.max_attempts.unwrap_or(d.max_attempts),
            post_tx_window: self.post_tx_window.unwrap_or(d.post_tx_window),
            load_ns_per_byte: self.load_ns_per_byte.unwrap_or(d.load_ns_per_byte),
            framing: self.framing_us.map_or(d.framing, |u| u.saturating_mul(US)),
            sense_delay: self
                .sense_delay_us
                .map_or(d.sense_delay, |u| u.saturating_mul(US)),
        }
    }
}

/// The channel keys of a table that has them all.
macro_rules! channel_keys {
    ($t:expr) => {
        $crate::network::file::ChannelKeys {
            error_every: $t.error_every.clone(),
            error_every_down: $t.error_every_down.clone(),
            error_every_up: $t.error_every_up.clone(),
            burst: $t.burst,
            down: $t.down.clone(),
            up: $t.up.clone(),
        }
    };
}

/// The network tables of a scenario file.
#[derive(Clone, Debug, Default)]
pub struct Tables<'a> {
    pub nodes: &'a [NodeTable],
    pub links: &'a [LinkTable],
    pub cells: &'a [CellTable],
    pub flows: &'a [FlowTable],
    pub handoffs: &'a [crate::network::HandoffTable],
    pub crashes: &'a [CrashTable],
}

/// A `[[crash]]` table: a base station that crashes and comes back.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct CrashTable {
    pub node: String,
    /// When it crashes, seconds.
    pub at_s: TimeValue,
    /// How long it stays down, seconds.
    pub down_s: TimeValue,
}

// after `channel_keys!`, which it uses
mod resolve;
