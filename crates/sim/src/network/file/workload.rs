//! A `[[flow]]`'s workload keys (docs/networks.md, docs/web-workload.md): `workload = "web"` makes
//! the flow's `to` host fetch pages from its `from` host over request/response connections
//! (`workload/flow_workload.rs`), instead of one bulk transfer. Every key is read here
//! ([`read`]) and written here ([`write`]); their serde fields are `FlowTable`'s (`flow.rs`).
//!
//! - `model`: `"fixed"` (the default: every page `objects` objects of `request-bytes` and
//!   `response-bytes`, `think-s` after it) or `"mah"` (Mah's tables, read from the directory
//!   `SNOOPLAB_MAH_CDF_DIR` names; `surge` is refused, its numbers unchecked).
//! - `pages`: how many pages, one after another.
//! - `http`: `"1.0"` (a connection per object, `parallel` 1 to 4 at once for the embedded
//!   objects) or `"1.1"` (`parallel` 1 or 2 persistent connections, `pipelined` or not).

use snooplab_proto::duration::Bare;

use super::values::{float, quote, secs, size, FILE_TIME_RANGE};
use super::FlowTable;
use crate::workload::{FlowWorkload, Http, Model, PageSource, PagesSpec};

/// The keys only a web workload takes, as a file spells them.
pub(super) const WEB_KEYS: [&str; 9] = [
    "model",
    "pages",
    "objects",
    "request-bytes",
    "response-bytes",
    "think-s",
    "http",
    "parallel",
    "pipelined",
];

/// The fixed model's defaults: one object of a 250-byte request (about the median of Mah's
/// request tables, docs/web-workload.md) and an 8 KB response, no think time.
const DEFAULT_OBJECTS: i64 = 1;
const DEFAULT_REQUEST: u64 = 250;
const DEFAULT_RESPONSE: u64 = 8 * 1024;
/// HTTP/1.0's four connections at once (the browsers of 1998, `workload/plan.rs`) and HTTP/1.1's
/// two (RFC 2616 section 8.1.4).
const DEFAULT_PARALLEL_10: i64 = crate::workload::plan::MAX_PARALLEL_10 as i64;
const DEFAULT_PARALLEL_11: i64 = crate::workload::plan::MAX_CONNECTIONS_11 as i64;

/// The flow's workload as its table sets it; the message names `what` and the key.
pub(super) fn read(f: &FlowTable, what: &str) -> Result<FlowWorkload, String> {
    match f.workload.as_deref() {
        None | Some("bulk") => {
            if let Some(k) = web_keys_set(f).first() {
                return Err(format!("{what}: {k} is a key of workload = \"web\""));
            }
            return Ok(FlowWorkload::Bulk);
        }
        Some("web") => {}
        Some(other) => {
            return Err(format!(
                "{what}: workload '{other}' is not known (known: bulk, web)"
            ))
        }
    }
    let count = |v: Option<i64>, key: &str, default: i64, max: i64| -> Result<i64, String> {
        let n = v.unwrap_or(default);
        if !(1..=max).contains(&n) {
            return Err(format!("{what}: {key} must be 1 to {max}, not {n}"));
        }
        Ok(n)
    };
    let pages = count(f.pages, "pages", 1, crate::workload::MAX_PAGES as i64)? as u32;
    let parallel = |default: i64| count(f.parallel, "parallel", default, i64::from(u8::MAX));
    let http = match f.http.as_deref().unwrap_or("1.0") {
        "1.0" if f.pipelined.is_some() => {
            return Err(format!("{what}: pipelined is a key of http = \"1.1\""))
        }
        "1.0" => Http::http10(parallel(DEFAULT_PARALLEL_10)? as u8),
        "1.1" => Http::http11(
            parallel(DEFAULT_PARALLEL_11)? as u8,
            f.pipelined.unwrap_or(false),
        ),
        other => {
            return Err(format!(
                "{what}: http '{other}' is not known (known: 1.0, 1.1)"
            ))
        }
    }
    .map_err(|e| format!("{what}: parallel: {e}"))?;
    let source = match f.model.as_deref().unwrap_or("fixed") {
        "fixed" => PageSource::Fixed {
            objects: count(f.objects, "objects", DEFAULT_OBJECTS, 150)? as u16,
            request_bytes: fixed_bytes(&f.request_bytes, what, "request-bytes", DEFAULT_REQUEST)?,
            response_bytes: fixed_bytes(
                &f.response_bytes,
                what,
                "response-bytes",
                DEFAULT_RESPONSE,
            )?,
            think: f
                .think_s
                .as_ref()
                .map(|t| t.time(Bare::Seconds, FILE_TIME_RANGE, &format!("{what}: think-s")))
                .transpose()?
                .unwrap_or(0),
        },
        name => {
            let fixed = ["objects", "request-bytes", "response-bytes", "think-s"];
            let set = web_keys_set(f);
            if let Some(k) = set.iter().find(|k| fixed.contains(k)) {
                return Err(format!("{what}: {k} is a key of model = \"fixed\""));
            }
            let model = Model::from_name(name)
                .and_then(Model::require_verified)
                .map_err(|e| format!("{what}: model: {e}"))?;
            let spec = model.spec().map_err(|e| format!("{what}: model: {e}"))?;
            PageSource::Model(Box::new(spec))
        }
    };
    let spec = PagesSpec {
        source,
        pages,
        http,
    };
    spec.check(what)?;
    Ok(FlowWorkload::Pages(spec))
}

/// A fixed page's size key, 1 byte to 4 GiB.
fn fixed_bytes(
    v: &Option<crate::file_value::SizeValue>,
    what: &str,
    key: &str,
    default: u64,
) -> Result<u32, String> {
    let n = match v {
        Some(v) => v.bytes(&format!("{what}: {key}"))?,
        None => default,
    };
    if n == 0 {
        return Err(format!("{what}: {key} must be at least 1 byte"));
    }
    crate::scenario::size_u32(n, &format!("{what}: {key}"))
}

/// The web keys the table sets, in [`WEB_KEYS`]' order.
fn web_keys_set(f: &FlowTable) -> Vec<&'static str> {
    let set = [
        f.model.is_some(),
        f.pages.is_some(),
        f.objects.is_some(),
        f.request_bytes.is_some(),
        f.response_bytes.is_some(),
        f.think_s.is_some(),
        f.http.is_some(),
        f.parallel.is_some(),
        f.pipelined.is_some(),
    ];
    WEB_KEYS
        .iter()
        .zip(set)
        .filter(|(_, s)| *s)
        .map(|(k, _)| *k)
        .collect()
}

/// The workload's `key = value` lines (none for a bulk flow).
pub(super) fn write(w: &FlowWorkload) -> Vec<String> {
    let FlowWorkload::Pages(spec) = w else {
        return vec![];
    };
    let mut out = vec!["workload = \"web\"".to_string()];
    match &spec.source {
        PageSource::Fixed {
            objects,
            request_bytes,
            response_bytes,
            think,
        } => {
            out.push("model = \"fixed\"".into());
            out.push(format!("pages = {}", spec.pages));
            out.push(format!("objects = {objects}"));
            out.push(format!(
                "request-bytes = {}",
                size(u64::from(*request_bytes))
            ));
            out.push(format!(
                "response-bytes = {}",
                size(u64::from(*response_bytes))
            ));
            out.push(format!("think-s = {}", float(secs(*think))));
        }
        PageSource::Model(m) => {
            out.push(format!("model = {}", quote(m.model.name())));
            out.push(format!("pages = {}", spec.pages));
        }
    }
    match spec.http {
        Http::Http10 { parallel } => {
            out.push("http = \"1.0\"".into());
            out.push(format!("parallel = {parallel}"));
        }
        Http::Http11 {
            connections,
            pipelined,
        } => {
            out.push("http = \"1.1\"".into());
            out.push(format!("parallel = {connections}"));
            out.push(format!("pipelined = {pipelined}"));
        }
    }
    out
}
