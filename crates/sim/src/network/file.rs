//! Networks in scenario files (`docs/networks.md`): `[[node]]`, `[[link]]`, `[[cell]]` and `[[flow]]`
//! tables beside a scenario's top-level settings, which stay the defaults of every flow, link and
//! channel that does not set its own.
//!
//! Parsing happens in two steps: [`Topology::resolve`] checks the tables and turns names into
//! indices (every error names the table and the key), and [`Network::from_topology`] fills in the
//! scenario's defaults, which cannot fail. So a scenario carries its topology and `--protocol`,
//! `--buffer`, ... still change every flow that does not name its own.

use serde::Deserialize;
use snooplab_proto::tcp::{HostPreset, HostProfile};
use snooplab_proto::time::{Time, SEC, US};

use super::{Cell, Flow, InputQueue, Link, Network, Node, NodeKind, Station};
use crate::channel::{ChannelSpec, ChannelTrace, GilbertElliottParams};
use crate::link::WiredParams;
use crate::medium::{AccessModel, CsmaParams};
use crate::protocol::{AgentKind, Protocol};
use crate::scenario::{size_u32, value_text, Env, Scenario, SizeValue};
use std::path::Path;
use std::sync::Arc;

use std::collections::BTreeMap;
use std::net::Ipv4Addr;

/// First source and destination ports; flow `i` uses `+ i`.
use super::paper000::{DST_PORT, SRC_PORT};

/// A `[[node]]` table.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct NodeTable {
    pub name: String,
    /// `host` (the default), `base-station` or `router` (a base station without a cell that runs
    /// plain forwarding).
    pub kind: Option<String>,
    /// IPv4 address, dotted quad [default: 10.0.x.y by position].
    pub address: Option<String>,
    /// Base stations: the agent the named protocol runs at the base station (`snooplab
    /// protocols`), or `router` [default: the scenario's protocol's].
    pub agent: Option<String>,
    /// Base stations and routers: packets the IP input queue holds [default: 50, BSD's
    /// `IFQ_MAXLEN`].
    pub input_queue: Option<usize>,
    /// Base stations and routers: forwarding time per packet, microseconds; packets queue behind
    /// it in the input queue [default: 0, forwarded at once].
    pub forwarding_us: Option<f64>,
    /// bs-eln and bs-nack base stations: a gap in a mobile host's data is a possible congestion
    /// loss, never marked, while the input queue or the mobile host's output queue is above this
    /// fraction of its maximum [default: 0.75, paper 004].
    pub queue_threshold: Option<f64>,
}

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
    pub delay_ms: Option<f64>,
    /// Packets each direction's queue holds.
    pub queue: Option<usize>,
    /// Link-layer bytes added to each IP packet.
    pub framing_bytes: Option<u32>,
}

/// A channel model, named by `model`: `{ model = "none" }`, `{ model = "exponential", every =
/// "64k", burst = 1 }`, `{ model = "gilbert-elliott", good-every = "1M", bad-every = "2k", good-time =
/// "1s", bad-time = "50ms" }` or `{ model = "trace", file = "fading.trace" }` (docs/channels.md). A
/// plain table rather than a serde-tagged enum: serde reads a tagged enum through a buffer that loses
/// the positions, so an unknown key would be reported at the table's first line instead of its own.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct ChannelTable {
    /// `none`, `exponential`, `gilbert-elliott` or `trace`.
    pub model: String,
    /// Mean bytes between bit errors (`exponential`).
    pub every: Option<SizeValue>,
    /// Frames destroyed by each error event [default: 1] (`exponential`).
    pub burst: Option<i64>,
    /// Mean bytes between bit errors in the good and the bad state, 0 = none (`gilbert-elliott`).
    pub good_every: Option<SizeValue>,
    pub bad_every: Option<SizeValue>,
    /// Mean time in the good and the bad state: `1s`, `200ms`, `500us` (`gilbert-elliott`).
    pub good_time: Option<String>,
    pub bad_time: Option<String>,
    /// A channel trace file, relative to the scenario file's directory (`trace`).
    pub file: Option<String>,
}

/// The keys each model takes (besides `model`).
const MODEL_KEYS: [(&str, &[&str]); 4] = [
    ("none", &[]),
    ("exponential", &["every", "burst"]),
    (
        "gilbert-elliott",
        &["good-every", "bad-every", "good-time", "bad-time"],
    ),
    ("trace", &["file"]),
];

impl ChannelTable {
    /// The keys this table sets, by their file names.
    fn keys_set(&self) -> Vec<&'static str> {
        let set = [
            ("every", self.every.is_some()),
            ("burst", self.burst.is_some()),
            ("good-every", self.good_every.is_some()),
            ("bad-every", self.bad_every.is_some()),
            ("good-time", self.good_time.is_some()),
            ("bad-time", self.bad_time.is_some()),
            ("file", self.file.is_some()),
        ];
        set.iter().filter(|(_, on)| *on).map(|(k, _)| *k).collect()
    }

    pub fn spec(&self, what: &str) -> Result<ChannelSpec, String> {
        let model = self.model.as_str();
        let Some((_, takes)) = MODEL_KEYS.iter().find(|(m, _)| *m == model) else {
            return Err(format!(
                "{what}: unknown model '{}' (known: none, exponential, gilbert-elliott, trace)",
                model.chars().take(40).collect::<String>()
            ));
        };
        if let Some(k) = self.keys_set().into_iter().find(|k| !takes.contains(k)) {
            return Err(format!(
                "{what}: model \"{model}\" takes no {k} (its keys: {})",
                if takes.is_empty() {
                    "none".to_string()
                } else {
                    takes.join(", ")
                }
            ));
        }
        let need = |key: &str| format!("{what}: model \"{model}\" needs {key}");
        let size = |v: &Option<SizeValue>, key: &str| -> Result<u64, String> {
            v.as_ref()
                .ok_or_else(|| need(key))?
                .bytes(&format!("{what}.{key}"))
        };
        let time = |v: &Option<String>, key: &str| -> Result<Time, String> {
            let v = v.as_ref().ok_or_else(|| need(key))?;
            snooplab_proto::tcp::parse_duration(v).ok_or_else(|| {
                format!(
                    "{what}.{key}: '{}' is not a duration (e.g. 1s, 50ms, 500us)",
                    v.chars().take(40).collect::<String>()
                )
            })
        };
        let spec = match model {
            "exponential" => {
                let mean_bytes = size(&self.every, "every")?;
                if mean_bytes == 0 {
                    return Err(format!(
                        "{what}.every: use model = \"none\" for a channel without errors"
                    ));
                }
                let burst = match self.burst {
                    Some(b) => {
                        u32::try_from(b).map_err(|_| format!("{what}.burst {b} is out of range"))?
                    }
                    None => 1,
                };
                ChannelSpec::Exponential { mean_bytes, burst }
            }
            "gilbert-elliott" => ChannelSpec::GilbertElliott(GilbertElliottParams {
                good_every: size(&self.good_every, "good-every")?,
                bad_every: size(&self.bad_every, "bad-every")?,
                good_time: time(&self.good_time, "good-time")?,
                bad_time: time(&self.bad_time, "bad-time")?,
            }),
            "trace" => {
                let file = self.file.as_ref().ok_or_else(|| need("file"))?;
                ChannelSpec::Trace(Arc::new(
                    ChannelTrace::read(Path::new(file)).map_err(|e| format!("{what}: {e}"))?,
                ))
            }
            _ => ChannelSpec::None,
        };
        spec.validate().map_err(|e| format!("{what}: {e}"))?;
        Ok(spec)
    }

    /// Reads the command line's form of a model: `none`, `exponential:every=64k,burst=2`,
    /// `gilbert-elliott:good-every=1M,bad-every=2k,good-time=1s,bad-time=50ms`, `trace:FILE`: the
    /// same keys as the file's table, so both are read by one parser.
    pub fn from_flag(text: &str) -> Result<ChannelTable, String> {
        let (model, rest) = text.split_once(':').unwrap_or((text, ""));
        let mut table = toml::Table::new();
        table.insert("model".into(), toml::Value::String(model.trim().into()));
        if model.trim() == "trace" && !rest.contains('=') {
            table.insert("file".into(), toml::Value::String(rest.into()));
        } else {
            for kv in rest.split(',').filter(|kv| !kv.trim().is_empty()) {
                let (k, v) = kv
                    .split_once('=')
                    .ok_or_else(|| format!("`{kv}` is not KEY=VALUE (e.g. good-time=1s)"))?;
                let v = v.trim();
                let value = match v.parse::<i64>() {
                    Ok(n) => toml::Value::Integer(n),
                    Err(_) => toml::Value::String(v.into()),
                };
                table.insert(k.trim().into(), value);
            }
        }
        toml::Value::Table(table).try_into().map_err(|e: toml::de::Error| {
            format!(
                "{} (models: none, exponential:every=SIZE[,burst=K], gilbert-elliott:good-every=SIZE,\
                 bad-every=SIZE,good-time=T,bad-time=T, trace:FILE)",
                e.message().replace('\n', " ")
            )
        })
    }

    /// Makes a relative trace file name relative to `dir` (the scenario file's directory).
    pub fn rebase(&mut self, dir: &Path) {
        if let Some(file) = &mut self.file {
            if Path::new(file.as_str()).is_relative() {
                *file = dir.join(file.as_str()).to_string_lossy().into_owned();
            }
        }
    }
}

/// The channel keys a scenario's top level, a cell and a station may set; the most specific level
/// that says something about a direction decides it. (The tables spell them out rather than
/// flattening this struct in, so that the parser's errors keep their line numbers.)
#[derive(Clone, Debug, Default)]
pub struct ChannelKeys {
    pub error_every: Option<SizeValue>,
    pub error_every_down: Option<SizeValue>,
    pub error_every_up: Option<SizeValue>,
    pub burst: Option<i64>,
    pub down: Option<ChannelTable>,
    pub up: Option<ChannelTable>,
}

/// One level's channel settings, checked.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChannelLevel {
    pub every: Option<u64>,
    pub every_down: Option<u64>,
    pub every_up: Option<u64>,
    pub burst: Option<u32>,
    pub down: Option<ChannelSpec>,
    pub up: Option<ChannelSpec>,
}

impl ChannelKeys {
    pub fn resolve(&self, what: &str) -> Result<ChannelLevel, String> {
        let size = |v: &Option<SizeValue>, key: &str| -> Result<Option<u64>, String> {
            v.as_ref()
                .map(|s| s.bytes(&format!("{what}{key}")))
                .transpose()
        };
        let level = ChannelLevel {
            every: size(&self.error_every, "error-every")?,
            every_down: size(&self.error_every_down, "error-every-down")?,
            every_up: size(&self.error_every_up, "error-every-up")?,
            burst: self
                .burst
                .map(|b| u32::try_from(b).map_err(|_| format!("{what}burst {b} is out of range")))
                .transpose()?,
            down: self
                .down
                .as_ref()
                .map(|c| c.spec(&format!("{what}down")))
                .transpose()?,
            up: self
                .up
                .as_ref()
                .map(|c| c.spec(&format!("{what}up")))
                .transpose()?,
        };
        let check = |every: u64, burst: u32| {
            crate::channel::check_error_settings(every, burst).map_err(|m| format!("{what}{m}"))
        };
        for e in [level.every, level.every_down, level.every_up]
            .into_iter()
            .flatten()
        {
            check(e, 1)?;
        }
        if let Some(b) = level.burst {
            check(0, b)?;
        }
        Ok(level)
    }
}

impl ChannelLevel {
    /// The channel of one direction given the levels from the most specific outwards: the first
    /// level with a tagged model for the direction or an `error-every` decides, with the most
    /// specific `burst`; if none does, `outer` (the scenario's channel), with that burst.
    pub fn pick(levels: &[&ChannelLevel], down: bool, outer: ChannelSpec) -> ChannelSpec {
        let burst = levels.iter().find_map(|l| l.burst);
        let outer_burst = match outer {
            ChannelSpec::Exponential { burst, .. } => burst,
            _ => 1,
        };
        for l in levels {
            let (tagged, every_dir) = if down {
                (&l.down, l.every_down)
            } else {
                (&l.up, l.every_up)
            };
            if let Some(spec) = tagged {
                return spec.clone();
            }
            if let Some(every) = every_dir.or(l.every) {
                return ChannelSpec::every(every, burst.unwrap_or(outer_burst));
            }
        }
        match (outer, burst) {
            (ChannelSpec::Exponential { mean_bytes, .. }, Some(burst)) => {
                ChannelSpec::Exponential { mean_bytes, burst }
            }
            (spec, _) => spec,
        }
    }
}

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
        }
    }
}

/// The channel keys of a table that has them all.
macro_rules! channel_keys {
    ($t:expr) => {
        ChannelKeys {
            error_every: $t.error_every.clone(),
            error_every_down: $t.error_every_down.clone(),
            error_every_up: $t.error_every_up.clone(),
            burst: $t.burst,
            down: $t.down.clone(),
            up: $t.up.clone(),
        }
    };
}

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
    pub start_s: Option<f64>,
}

/// The network tables of a scenario file.
#[derive(Clone, Debug, Default)]
pub struct Tables<'a> {
    pub nodes: &'a [NodeTable],
    pub links: &'a [LinkTable],
    pub cells: &'a [CellTable],
    pub flows: &'a [FlowTable],
    pub handoffs: &'a [super::HandoffTable],
    pub crashes: &'a [CrashTable],
}

/// A `[[crash]]` table: a base station that crashes and comes back.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct CrashTable {
    pub node: String,
    /// When it crashes, seconds.
    pub at_s: f64,
    /// How long it stays down, seconds.
    pub down_s: f64,
}

/// A network described in a file, names resolved to indices and values checked; the scenario
/// fills in what it leaves open ([`Network::from_topology`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Topology {
    nodes: Vec<TopoNode>,
    links: Vec<TopoLink>,
    cells: Vec<TopoCell>,
    flows: Vec<TopoFlow>,
    handoffs: Vec<super::HandoffSpec>,
    crashes: Vec<super::Crash>,
}

#[derive(Clone, Debug, PartialEq)]
struct TopoNode {
    name: String,
    addr: u32,
    /// `None` for a host; for a base station its agent, `None` inside for the scenario's.
    base_station: Option<Option<AgentKind>>,
    input: InputQueue,
}

#[derive(Clone, Debug, PartialEq)]
struct TopoLink {
    name: String,
    ends: [usize; 2],
    env: Option<Env>,
    rate_bps: Option<u64>,
    delay: Option<Time>,
    queue: Option<usize>,
    framing_bytes: Option<u32>,
}

#[derive(Clone, Debug, PartialEq)]
struct TopoCell {
    name: String,
    base_station: usize,
    /// Each station's node and its own channel settings.
    stations: Vec<(usize, ChannelLevel)>,
    channel: ChannelLevel,
    access: AccessModel,
    rate_bps: Option<u64>,
    frame_overhead: Option<Time>,
    queue: Option<usize>,
}

#[derive(Clone, Debug, PartialEq)]
struct TopoFlow {
    name: String,
    from: usize,
    to: usize,
    protocol: Option<Protocol>,
    host: Option<HostPreset>,
    host_details: Vec<(String, String)>,
    buffer: Option<u32>,
    mss: Option<u32>,
    transfer: Option<u64>,
    start: Time,
}

/// Names become file names (captures) and CSV values: letters, digits, `-`, `_`, `.`.
fn check_name(name: &str, what: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{what} name '{name}' must be letters, digits, '-', '_' or '.'"
        ))
    }
}

/// Seconds from a file as nanoseconds, within 0..=1e7 s.
fn seconds(s: f64, what: &str) -> Result<Time, String> {
    if !(0.0..=1e7).contains(&s) {
        return Err(format!("{what} {s} must be between 0 and 1e7 seconds"));
    }
    Ok((s * SEC as f64).round() as Time)
}

impl Topology {
    /// Checks the tables and resolves their names; the message names the table and the key.
    pub fn resolve(t: &Tables) -> Result<Topology, String> {
        if t.nodes.is_empty() {
            return Err("a network needs [[node]] tables".into());
        }
        if t.flows.is_empty() {
            return Err("a network needs at least one [[flow]] table".into());
        }
        let mut nodes = Vec::with_capacity(t.nodes.len());
        if t.nodes.len() > 250 * 256 {
            return Err("a network holds at most 64000 nodes".into());
        }
        for (i, n) in t.nodes.iter().enumerate() {
            let what = format!("node '{}'", n.name);
            check_name(&n.name, "node")?;
            let base_station = match n.kind.as_deref().unwrap_or("host") {
                "host" => {
                    if n.agent.is_some() {
                        return Err(format!(
                            "{what}: agent is for base stations (kind = \"base-station\")"
                        ));
                    }
                    None
                }
                "base-station" => Some(
                    n.agent
                        .as_deref()
                        .map(|a| parse_agent(a).map_err(|e| format!("{what}: agent: {e}")))
                        .transpose()?,
                ),
                "router" => {
                    if n.agent.is_some() {
                        return Err(format!("{what}: a router runs no agent"));
                    }
                    Some(Some(AgentKind::Router))
                }
                other => {
                    return Err(format!(
                        "{what}: unknown kind '{other}' (known: host, base-station, router)"
                    ))
                }
            };
            let addr = match &n.address {
                Some(a) => u32::from(
                    a.trim()
                        .parse::<Ipv4Addr>()
                        .map_err(|_| format!("{what}: address '{a}' is not an IPv4 address"))?,
                ),
                // 10.0.0.1, 10.0.0.2, ...
                None => u32::from(Ipv4Addr::new(10, 0, (i / 250) as u8, (i % 250 + 1) as u8)),
            };
            if base_station.is_none()
                && (n.input_queue.is_some()
                    || n.forwarding_us.is_some()
                    || n.queue_threshold.is_some())
            {
                return Err(format!(
                    "{what}: input-queue, forwarding-us and queue-threshold are for base stations \
                     and routers"
                ));
            }
            let mut input = InputQueue::default();
            if let Some(q) = n.input_queue {
                if !(1..=100_000).contains(&q) {
                    return Err(format!(
                        "{what}: input-queue {q} must be 1 to 100000 packets"
                    ));
                }
                input.max = q;
            }
            if let Some(us) = n.forwarding_us {
                if !(0.0..=1e9).contains(&us) {
                    return Err(format!(
                        "{what}: forwarding-us {us} must be 0 to 1e9 microseconds"
                    ));
                }
                input.service = (us * 1000.0).round() as Time;
            }
            if let Some(f) = n.queue_threshold {
                if !(0.0..=1.0).contains(&f) {
                    return Err(format!(
                        "{what}: queue-threshold {f} must be a fraction from 0 to 1"
                    ));
                }
                input.congestion_fraction = f;
            }
            nodes.push(TopoNode {
                name: n.name.clone(),
                addr,
                base_station,
                input,
            });
        }
        let node = |name: &str, what: &str| -> Result<usize, String> {
            t.nodes
                .iter()
                .position(|n| n.name == name)
                .ok_or_else(|| format!("{what}: unknown node '{name}'"))
        };
        let mut links = Vec::with_capacity(t.links.len());
        for (i, l) in t.links.iter().enumerate() {
            let label = l.name.clone().unwrap_or_else(|| format!("#{}", i + 1));
            let what = format!("link '{label}'");
            let [a, b] = l.between.as_slice() else {
                return Err(format!("{what}: between must name two nodes"));
            };
            let ends = [
                node(a, &format!("{what}, between"))?,
                node(b, &format!("{what}, between"))?,
            ];
            let name = l.name.clone().unwrap_or_else(|| format!("{a}-{b}"));
            check_name(&name, "link")?;
            links.push(TopoLink {
                name,
                ends,
                env: l
                    .env
                    .as_deref()
                    .map(Env::parse)
                    .transpose()
                    .map_err(|e| format!("{what}: {e}"))?,
                rate_bps: l.rate_bps,
                delay: l
                    .delay_ms
                    .map(|d| seconds(d / 1000.0, &format!("{what}: delay-ms")))
                    .transpose()?,
                queue: l.queue,
                framing_bytes: l.framing_bytes,
            });
        }
        let mut cells = Vec::with_capacity(t.cells.len());
        for c in t.cells {
            let name = c
                .name
                .clone()
                .unwrap_or_else(|| format!("{}-cell", c.base_station));
            let what = format!("cell '{name}'");
            check_name(&name, "cell")?;
            let base_station = node(&c.base_station, &format!("{what}, base-station"))?;
            let mut stations = Vec::new();
            for s in &c.stations {
                stations.push((
                    node(s, &format!("{what}, stations"))?,
                    ChannelLevel::default(),
                ));
            }
            for s in &c.station {
                let swhat = format!("{what}, station '{}'", s.node);
                stations.push((
                    node(&s.node, &swhat)?,
                    channel_keys!(s).resolve(&format!("{swhat}: "))?,
                ));
            }
            let access = match (c.access.as_deref().unwrap_or("turns"), &c.csma) {
                ("turns", None) => AccessModel::Turns,
                ("csma", csma) => {
                    AccessModel::Csma(csma.as_ref().map(CsmaTable::params).unwrap_or_default())
                }
                ("turns", Some(_)) => {
                    return Err(format!("{what}: csma settings need access = \"csma\""))
                }
                (other, _) => {
                    return Err(format!(
                        "{what}: unknown access '{other}' (known: turns, csma)"
                    ))
                }
            };
            cells.push(TopoCell {
                name,
                base_station,
                stations,
                channel: channel_keys!(c).resolve(&format!("{what}: "))?,
                access,
                rate_bps: c.rate_bps,
                frame_overhead: c.frame_overhead_us.map(|u| u * US),
                queue: c.queue,
            });
        }
        let mut flows = Vec::with_capacity(t.flows.len());
        for (i, f) in t.flows.iter().enumerate() {
            let name = f.name.clone().unwrap_or_else(|| format!("flow{i}"));
            check_name(&name, "flow")?;
            let what = format!("flow '{name}'");
            let mut host_details = Vec::new();
            let preset = f
                .host
                .as_deref()
                .map(HostPreset::parse)
                .transpose()
                .map_err(|e| format!("{what}: {e}"))?;
            for (k, v) in f.host_details.iter().flatten() {
                let text = value_text(v).map_err(|e| format!("{what}: host-details.{k}: {e}"))?;
                // checked against a profile now, applied to the flow's later
                let mut p = preset.map_or_else(HostProfile::default, HostPreset::profile);
                p.set(k, &text)
                    .map_err(|e| format!("{what}: host-details: {e}"))?;
                host_details.push((k.clone(), text));
            }
            let size = |v: &Option<SizeValue>, key: &str| -> Result<Option<u64>, String> {
                v.as_ref()
                    .map(|s| s.bytes(&format!("{what}: {key}")))
                    .transpose()
            };
            flows.push(TopoFlow {
                from: node(&f.from, &format!("{what}, from"))?,
                to: node(&f.to, &format!("{what}, to"))?,
                protocol: f
                    .protocol
                    .as_deref()
                    .map(Protocol::parse)
                    .transpose()
                    .map_err(|e| format!("{what}: {e}"))?,
                host: preset,
                host_details,
                buffer: size(&f.buffer, "buffer")?
                    .map(|b| size_u32(b, &format!("{what}: buffer")))
                    .transpose()?,
                mss: size(&f.mss, "mss")?
                    .map(|b| size_u32(b, &format!("{what}: mss")))
                    .transpose()?,
                transfer: size(&f.transfer, "transfer")?,
                start: f
                    .start_s
                    .map(|s| seconds(s, &format!("{what}: start-s")))
                    .transpose()?
                    .unwrap_or(0),
                name,
            });
        }
        let handoffs = t
            .handoffs
            .iter()
            .map(|h| h.resolve(&node))
            .collect::<Result<Vec<_>, _>>()?;
        let crashes = t
            .crashes
            .iter()
            .map(|c| {
                let what = format!("crash of '{}'", c.node);
                Ok(super::Crash {
                    node: node(&c.node, &what)?,
                    at: seconds(c.at_s, &format!("{what}: at-s"))?,
                    down_for: seconds(c.down_s, &format!("{what}: down-s"))?,
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        let topo = Topology {
            nodes,
            links,
            cells,
            flows,
            handoffs,
            crashes,
        };
        let names: Vec<&str> = topo
            .links
            .iter()
            .map(|l| l.name.as_str())
            .chain(topo.cells.iter().map(|c| c.name.as_str()))
            .collect();
        for (i, n) in names.iter().enumerate() {
            if names[..i].contains(n) {
                return Err(format!(
                    "two links or cells are named '{n}' (each names a capture file)"
                ));
            }
        }
        for (i, f) in topo.flows.iter().enumerate() {
            if topo.flows[..i].iter().any(|g| g.name == f.name) {
                return Err(format!("flow '{}' is defined twice", f.name));
            }
        }
        Ok(topo)
    }
}

/// A base station's agent by the protocol that runs it, or `router`, or `snoop-eln` (snoop at base
/// station A of a transit link, paper 004 section 3.5), or `snoop-002` (paper 002's settings), or
/// `snoop-queue-blind` (snoop that does not look into its transmit queue, docs/snoop-scaling.md).
fn parse_agent(name: &str) -> Result<AgentKind, String> {
    match name.trim().to_ascii_lowercase().as_str() {
        "router" => Ok(AgentKind::Router),
        "snoop-eln" => Ok(AgentKind::SnoopOnEln),
        "snoop-002" => Ok(AgentKind::Snoop002),
        "snoop-queue-blind" => Ok(AgentKind::SnoopQueueBlind),
        _ => Protocol::parse(name)
            .map(Protocol::agent)
            .map_err(|e| format!("{e}; or router, snoop-eln, snoop-002, snoop-queue-blind")),
    }
}

impl Network {
    /// The network a file described, with `sc`'s settings wherever it leaves one open.
    pub fn from_topology(t: &Topology, sc: &Scenario) -> Network {
        let nodes = t
            .nodes
            .iter()
            .map(|n| Node {
                name: n.name.clone(),
                kind: match n.base_station {
                    None => NodeKind::Host,
                    Some(agent) => NodeKind::BaseStation {
                        agent: agent.unwrap_or_else(|| sc.protocol.agent()),
                        input: n.input,
                    },
                },
                addr: n.addr,
            })
            .collect();
        let links = t
            .links
            .iter()
            .map(|l| {
                let base = l.env.map_or_else(|| sc.wired.clone(), Env::wired);
                Link {
                    name: l.name.clone(),
                    ends: l.ends,
                    params: WiredParams {
                        rate_bps: l.rate_bps.unwrap_or(base.rate_bps),
                        delay: l.delay.unwrap_or(base.delay),
                        framing_bytes: l.framing_bytes.unwrap_or(base.framing_bytes),
                        queue_packets: l.queue.unwrap_or(base.queue_packets),
                    },
                }
            })
            .collect();
        let cells = t
            .cells
            .iter()
            .map(|c| {
                let mut params = sc.wavelan.clone();
                params.rate_bps = c.rate_bps.unwrap_or(params.rate_bps);
                params.frame_overhead = c.frame_overhead.unwrap_or(params.frame_overhead);
                params.queue_packets = c.queue.unwrap_or(params.queue_packets);
                Cell {
                    name: c.name.clone(),
                    base_station: c.base_station,
                    stations: c
                        .stations
                        .iter()
                        .map(|(node, own)| {
                            let levels = [own, &c.channel];
                            Station {
                                node: *node,
                                down: ChannelLevel::pick(&levels, true, sc.channel(true)),
                                up: ChannelLevel::pick(&levels, false, sc.channel(false)),
                            }
                        })
                        .collect(),
                    params,
                    access: c.access.clone(),
                }
            })
            .collect();
        let flows = t
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let (host_preset, mut host) = match f.host {
                    Some(p) => (p, p.profile()),
                    None => (sc.host_preset, sc.host),
                };
                for (k, v) in &f.host_details {
                    // checked when the file was read
                    let _ = host.set(k, v);
                }
                Flow {
                    name: f.name.clone(),
                    from: f.from,
                    to: f.to,
                    protocol: f.protocol.unwrap_or(sc.protocol),
                    host_preset,
                    host,
                    buffer: f.buffer.unwrap_or(sc.buffer),
                    mss: f.mss.unwrap_or(sc.mss),
                    transfer: f.transfer.unwrap_or(sc.transfer),
                    start: f.start,
                    src_port: SRC_PORT.wrapping_add(i as u16),
                    dst_port: DST_PORT.wrapping_add(i as u16),
                }
            })
            .collect();
        Network {
            nodes,
            links,
            cells,
            flows,
            handoffs: t.handoffs.clone(),
            crashes: t.crashes.clone(),
            seed: sc.seed,
            max_time: sc.max_time,
        }
    }
}
