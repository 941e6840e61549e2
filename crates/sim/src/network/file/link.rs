//! The `[[link]]` table, and its keys that replace one number of the wired model it starts from,
//! each declared once ([`LINK_KEYS`], `params.rs`): a new link key is `WiredParams`'s field
//! (`link.rs`), its serde field and row here, and the code that uses it.

use serde::Deserialize;
use snooplab_proto::duration::Bare;
use snooplab_proto::time::MS;

use super::params::ParamKey;
use super::values::float;
use super::values::FILE_TIME_RANGE;
use crate::file_value::TimeValue;
use crate::link::WiredParams;

/// A `[[link]]` table: a full-duplex wired link.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct LinkTable {
    /// Name of its capture file [default: `a-b`].
    pub name: Option<String>,
    /// The two nodes it connects.
    pub between: Vec<String>,
    /// The wired model to start from: `lan` or `wan` [default: the scenario's env].
    pub env: Option<String>,
    pub rate_bps: Option<u64>,
    /// One-way propagation and processing delay, milliseconds.
    pub delay_ms: Option<TimeValue>,
    /// Packets each direction's queue holds.
    pub queue: Option<usize>,
    /// Link-layer bytes added to each IP packet.
    pub framing_bytes: Option<u32>,
}

/// Every key of a link's wired model, in the order a file is checked and written.
pub(super) const LINK_KEYS: [ParamKey<LinkTable, WiredParams>; 4] = [
    ParamKey {
        name: "rate-bps",
        read: |l, _| Ok(l.rate_bps),
        apply: |p, v| p.rate_bps = v,
        write: |p, _| Ok(p.rate_bps.to_string()),
    },
    ParamKey {
        name: "delay-ms",
        read: |l, what| {
            l.delay_ms
                .as_ref()
                .map(|d| d.time(Bare::Millis, FILE_TIME_RANGE, &format!("{what}: delay-ms")))
                .transpose()
        },
        apply: |p, v| p.delay = v,
        write: |p, _| Ok(float(p.delay as f64 / MS as f64)),
    },
    ParamKey {
        name: "queue",
        read: |l, _| Ok(l.queue.map(|q| q as u64)),
        apply: |p, v| p.queue_packets = v as usize,
        write: |p, _| Ok(p.queue_packets.to_string()),
    },
    ParamKey {
        name: "framing-bytes",
        read: |l, _| Ok(l.framing_bytes.map(u64::from)),
        apply: |p, v| p.framing_bytes = v as u32,
        write: |p, _| Ok(p.framing_bytes.to_string()),
    },
];
