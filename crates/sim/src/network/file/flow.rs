//! The `[[flow]]` table, and its keys that set one number of the flow (its buffer, segment size,
//! transfer and start), each declared once ([`FLOW_KEYS`], `params.rs`): a new such key is
//! `Flow`'s field (`network/mod.rs`), its serde field and row here, and the code that uses it.
//! Its ends, protocol and host (a preset and its details, `proto/src/tcp/host.rs`) are read in
//! `resolve.rs`; its workload keys in `workload.rs`.

use std::collections::BTreeMap;

use serde::Deserialize;
use snooplab_proto::duration::Bare;

use super::params::ParamKey;
use super::values::FILE_TIME_RANGE;
use super::values::{float, secs, size};
use crate::file_value::{SizeValue, TimeValue};
use crate::network::Flow;
use crate::scenario::size_u32;

/// A `[[flow]]` table: a one-way TCP transfer.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct FlowTable {
    /// [default: `flow<i>`]
    pub name: Option<String>,
    pub from: String,
    pub to: String,
    pub protocol: Option<String>,
    pub host: Option<String>,
    pub host_details: Option<BTreeMap<String, toml::Value>>,
    pub buffer: Option<SizeValue>,
    pub mss: Option<SizeValue>,
    pub transfer: Option<SizeValue>,
    /// When the sender opens the connection, seconds [default: 0].
    pub start_s: Option<TimeValue>,
    /// `bulk` [default] or `web`, and the web workload's keys (`workload.rs`).
    pub workload: Option<String>,
    pub model: Option<String>,
    pub pages: Option<i64>,
    pub objects: Option<i64>,
    pub request_bytes: Option<SizeValue>,
    pub response_bytes: Option<SizeValue>,
    pub think_s: Option<TimeValue>,
    pub http: Option<String>,
    pub parallel: Option<i64>,
    pub pipelined: Option<bool>,
}

/// A flow's size key: its bytes, checked to fit 32 bits where the flow keeps it so.
fn bytes(
    v: &Option<SizeValue>,
    what: &str,
    key: &str,
    in_u32: bool,
) -> Result<Option<u64>, String> {
    let Some(v) = v else { return Ok(None) };
    let n = v.bytes(&format!("{what}: {key}"))?;
    if in_u32 {
        size_u32(n, &format!("{what}: {key}"))?;
    }
    Ok(Some(n))
}

/// Every key that sets one number of a flow (over the scenario's, or 0 for `start-s`), in the
/// order a file is checked and written.
pub(super) const FLOW_KEYS: [ParamKey<FlowTable, Flow>; 4] = [
    ParamKey {
        name: "buffer",
        read: |f, what| bytes(&f.buffer, what, "buffer", true),
        apply: |f, v| f.buffer = v as u32,
        write: |f, _| Ok(size(u64::from(f.buffer))),
    },
    ParamKey {
        name: "mss",
        read: |f, what| bytes(&f.mss, what, "mss", true),
        apply: |f, v| f.mss = v as u32,
        write: |f, _| Ok(f.mss.to_string()),
    },
    ParamKey {
        name: "transfer",
        read: |f, what| bytes(&f.transfer, what, "transfer", false),
        apply: |f, v| f.transfer = v,
        write: |f, _| Ok(size(f.transfer)),
    },
    ParamKey {
        name: "start-s",
        read: |f, what| {
            f.start_s
                .as_ref()
                .map(|s| s.time(Bare::Seconds, FILE_TIME_RANGE, &format!("{what}: start-s")))
                .transpose()
        },
        apply: |f, v| f.start = v,
        write: |f, _| Ok(float(secs(f.start))),
    },
];
