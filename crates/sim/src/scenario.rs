//! What one run is: protocol, environment, sizes, error model and seed (DESIGN section 2), from the
//! command line or a TOML file, validated with errors that say what to fix.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use snooplab_proto::tcp::{HostPreset, HostProfile};
use snooplab_proto::time::{Time, SEC, US};

use crate::network::file::Tables;

use std::sync::Arc;

use crate::channel::{check_error_settings, ChannelSpec};
use crate::link::WiredParams;
use crate::medium::WavelanParams;
use crate::network::file::{CellTable, ChannelTable, FlowTable, LinkTable, NodeTable, Topology};
use crate::network::Network;
pub use crate::protocol::Protocol;
use crate::size::{format_size, parse_size};

/// The wired part of the path (paper 000 section IV-A, Fig. 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Env {
    /// Fixed host and base station on one 10 Mb/s Ethernet.
    Lan,
    /// 16 more Internet hops between them: RTT about 135 ms.
    Wan,
}

/// Which way paper 000's testbed carries the transfer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// The fixed host sends to the mobile host (papers 000 and 002).
    #[default]
    Down,
    /// The mobile host sends to the fixed host (paper 004 section 3, Fig. 1).
    Up,
}

impl Direction {
    pub fn name(self) -> &'static str {
        match self {
            Direction::Down => "down",
            Direction::Up => "up",
        }
    }

    pub fn parse(name: &str) -> Result<Direction, String> {
        match name.trim().to_ascii_lowercase().as_str() {
            "down" => Ok(Direction::Down),
            "up" => Ok(Direction::Up),
            _ => Err(format!(
                "unknown direction '{name}' (known: down, the fixed host sends; up, the mobile \
                 host sends)"
            )),
        }
    }
}

/// The share of the WAN path's capacity our flow gets, in bit/s of IP packets. Paper 000 reports 1.35
/// Mb/s of TCP payload with no wireless errors although a 32 KB window exceeds the 23 KB
/// bandwidth-delay product, so the Internet path, not the WaveLAN, was the bottleneck:
/// 1.35 Mb/s * 1440 / 1400 (IP bytes per payload byte) = 1.3886 Mb/s.
pub const WAN_PATH_RATE_BPS: u64 = 1_388_571;

impl Env {
    pub fn name(self) -> &'static str {
        match self {
            Env::Lan => "lan",
            Env::Wan => "wan",
        }
    }

    pub fn parse(name: &str) -> Result<Env, String> {
        match name.trim().to_ascii_lowercase().as_str() {
            "lan" => Ok(Env::Lan),
            "wan" => Ok(Env::Wan),
            _ => Err(format!("unknown env '{name}' (known: lan, wan)")),
        }
    }

    /// The wired link from the fixed host to the base station (the same in reverse).
    pub fn wired(self) -> WiredParams {
        match self {
            // 10 Mb/s Ethernet; 0.3 ms one way of propagation and host processing makes the
            // light-load RTT of a 1440-byte segment and its ACK about 10 ms.
            Env::Lan => WiredParams {
                rate_bps: 10_000_000,
                delay: 300 * US,
                framing_bytes: 38,
                queue_packets: 1000,
            },
            // The 16-hop path as one pipe: its available rate (see WAN_PATH_RATE_BPS) and 59.2 ms one
            // way, so a 1440-byte segment and its ACK take 135 ms at light load.
            Env::Wan => WiredParams {
                rate_bps: WAN_PATH_RATE_BPS,
                delay: 59_200 * US,
                framing_bytes: 0,
                queue_packets: 1000,
            },
        }
    }
}

/// Everything that defines one run. Identical scenarios give byte-identical results.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    pub protocol: Protocol,
    pub env: Env,
    /// Socket buffer of both endpoints, bytes (bounds both windows).
    pub buffer: u32,
    /// Segment size (payload bytes).
    pub mss: u32,
    /// Bytes the sender transfers.
    pub transfer: u64,
    /// Paper 000's testbed: which host sends (a scenario's own network names its flows' ends).
    pub direction: Direction,
    /// Mean bytes between bit errors on the wireless link, each direction; 0 = no errors.
    pub error_every: u64,
    /// The same for one direction only (base station to mobile host, and back), over `error_every`.
    pub error_every_down: Option<u64>,
    pub error_every_up: Option<u64>,
    /// Frames destroyed by each error event.
    pub burst: u32,
    /// A channel model named in a scenario file (`down = { model = ... }`), over the shorthand
    /// above: the base station to its mobile hosts, and back.
    pub channel_down: Option<ChannelSpec>,
    pub channel_up: Option<ChannelSpec>,
    pub seed: u64,
    /// Give up (and report the run incomplete) at this simulated time.
    pub max_time: Time,
    pub wavelan: WavelanParams,
    pub wired: WiredParams,
    /// The named host profile the TCP details start from (every TCP of the run: both hosts, and
    /// a split base station's two connections).
    pub host_preset: HostPreset,
    /// The TCP implementation details in force: the preset's, with any single details changed.
    pub host: HostProfile,
    /// A network from a scenario file (`[[node]]`, `[[link]]`, `[[cell]]`, `[[flow]]`), run instead
    /// of paper 000's testbed; the settings above are its defaults.
    pub topology: Option<Arc<Topology>>,
}

impl Scenario {
    /// Paper 000's standard run: 8 MB, 1400-byte segments, one error every 64 KB.
    pub fn paper000(protocol: Protocol, env: Env, buffer: u32, seed: u64) -> Scenario {
        Scenario {
            protocol,
            env,
            buffer,
            mss: 1400,
            transfer: 8 << 20,
            direction: Direction::Down,
            error_every: 65536,
            error_every_down: None,
            error_every_up: None,
            burst: 1,
            channel_down: None,
            channel_up: None,
            seed,
            max_time: 3600 * SEC,
            wavelan: WavelanParams::default(),
            wired: env.wired(),
            host_preset: PAPER000_HOST,
            host: PAPER000_HOST.profile(),
            topology: None,
        }
    }

    /// The wireless channel of one direction (`down`: base station to mobile host): a model the
    /// file named, else the shorthand's exponential errors.
    pub fn channel(&self, down: bool) -> ChannelSpec {
        let (named, every) = if down {
            (&self.channel_down, self.error_every_down)
        } else {
            (&self.channel_up, self.error_every_up)
        };
        match named {
            Some(spec) => spec.clone(),
            None => ChannelSpec::every(every.unwrap_or(self.error_every), self.burst),
        }
    }

    /// The network this scenario runs: its file's, or paper 000's testbed.
    pub fn network(&self) -> Network {
        match &self.topology {
            Some(t) => Network::from_topology(t, self),
            None => Network::paper000(self),
        }
    }

    /// The env also chooses the wired link model.
    pub fn set_env(&mut self, env: Env) {
        self.env = env;
        self.wired = env.wired();
    }

    /// Uses the named host profile, dropping single-detail changes.
    pub fn set_host(&mut self, preset: HostPreset) {
        self.host_preset = preset;
        self.host = preset.profile();
    }

    /// The host as reports name it: the preset, and the details changed from it
    /// (`bsdos-2.1` or `bsdos-2.1 [reader=instant]`).
    pub fn host_label(&self) -> String {
        host_label(self.host_preset, &self.host)
    }

    /// Checks the settings; the message names the offending setting and says what is allowed.
    pub fn validate(&self) -> Result<(), String> {
        check_tcp_settings(self.mss, self.buffer, self.transfer)?;
        check_error_settings(self.error_every, self.burst)?;
        for every in [self.error_every_down, self.error_every_up]
            .into_iter()
            .flatten()
        {
            check_error_settings(every, self.burst)?;
        }
        if self.max_time == 0 {
            return Err("max-time must be positive".into());
        }
        self.network().validate()
    }

    /// A short label for tables: `lan-32k`.
    pub fn config_label(&self) -> String {
        format!(
            "{}-{}",
            self.env.name(),
            format_size(u64::from(self.buffer))
        )
    }
}

/// Whether a flow's segment size, socket buffer and transfer are usable; the message names the setting
/// and says what is allowed.
pub fn check_tcp_settings(mss: u32, buffer: u32, transfer: u64) -> Result<(), String> {
    if !(64..=65495).contains(&mss) {
        return Err(format!(
            "mss {mss} is out of range: use 64 to 65495 bytes (the papers use 1400, 1440, 1460)"
        ));
    }
    if !(1024..=262_144).contains(&buffer) {
        return Err(format!(
            "buffer {buffer} is out of range: use 1k to 256k (4.4BSD sb_max; the papers use 8k, 32k, 64k)"
        ));
    }
    if transfer == 0 || transfer > 1 << 30 {
        return Err(format!(
            "transfer {transfer} is out of range: use 1 byte to 1G"
        ));
    }
    Ok(())
}

/// The hosts of paper 000 (section IV-A: "all running BSD/OS 2.1") and paper 002 (BSD/OS 2.0).
pub const PAPER000_HOST: HostPreset = HostPreset::Bsdos21;

/// A size in a scenario file: a number of bytes or a string such as "32k".
#[derive(Clone, Debug)]
pub enum SizeValue {
    Bytes(i64),
    Text(String),
}

/// What a size in a file should look like, for messages.
const SIZE_EXPECTED: &str = "expected a size like 32k or 32768";

/// Written by hand rather than `#[serde(untagged)]`, whose only message is "data did not match any
/// variant of untagged enum SizeValue": this one says what a size looks like and what was found.
impl<'de> Deserialize<'de> for SizeValue {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<SizeValue, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = SizeValue;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(SIZE_EXPECTED)
            }
            fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<SizeValue, E> {
                Ok(SizeValue::Bytes(n))
            }
            fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<SizeValue, E> {
                i64::try_from(n)
                    .map(SizeValue::Bytes)
                    .map_err(|_| E::custom(format!("size {n} is too large")))
            }
            // a whole number written as a float (`1400.0`) is that many bytes, as "1400.0" is
            // on the command line; anything else is not a number of bytes
            fn visit_f64<E: serde::de::Error>(self, x: f64) -> Result<SizeValue, E> {
                if x.is_finite() && x.fract() == 0.0 && x.abs() < 9.0e15 {
                    Ok(SizeValue::Bytes(x as i64))
                } else {
                    Err(E::custom(format!(
                        "{x} is not a whole number of bytes ({SIZE_EXPECTED})"
                    )))
                }
            }
            fn visit_str<E: serde::de::Error>(self, t: &str) -> Result<SizeValue, E> {
                Ok(SizeValue::Text(t.to_string()))
            }
            fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<SizeValue, E> {
                Err(E::custom(format!("{SIZE_EXPECTED}, got a boolean")))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, _: A) -> Result<SizeValue, A::Error> {
                Err(serde::de::Error::custom(format!(
                    "{SIZE_EXPECTED}, got an array"
                )))
            }
            // TOML hands dates and times over as a one-key table
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut m: A,
            ) -> Result<SizeValue, A::Error> {
                let date = m
                    .next_key::<String>()
                    .ok()
                    .flatten()
                    .is_some_and(|k| k.contains("datetime"));
                let found = if date { "a date or time" } else { "a table" };
                Err(serde::de::Error::custom(format!(
                    "{SIZE_EXPECTED}, got {found}"
                )))
            }
        }
        d.deserialize_any(V)
    }
}

impl SizeValue {
    pub fn bytes(&self, what: &str) -> Result<u64, String> {
        match self {
            SizeValue::Bytes(n) if *n < 0 => Err(format!("{what} {n} is negative")),
            SizeValue::Bytes(n) => Ok(*n as u64),
            SizeValue::Text(t) => parse_size(t).map_err(|e| format!("{what}: {e}")),
        }
    }
}

/// The settings a scenario file may hold; each is optional and falls back to the default.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ScenarioFile {
    pub protocol: Option<String>,
    pub env: Option<String>,
    pub buffer: Option<SizeValue>,
    pub mss: Option<SizeValue>,
    pub transfer: Option<SizeValue>,
    /// `down` (the fixed host sends) or `up` (the mobile host sends), in paper 000's testbed.
    pub direction: Option<String>,
    pub error_every: Option<SizeValue>,
    pub error_every_down: Option<SizeValue>,
    pub error_every_up: Option<SizeValue>,
    pub burst: Option<i64>,
    /// Channel models by name, over the `error-every` shorthand: `{ model = "exponential", every
    /// = "64k", burst = 2 }` or `{ model = "none" }`.
    pub down: Option<ChannelTable>,
    pub up: Option<ChannelTable>,
    pub seed: Option<u64>,
    pub max_time_s: Option<f64>,
    /// A host profile name (`snooplab run --help` lists them).
    pub host: Option<String>,
    /// Single host details over the profile: `reader = "instant"`, `persist = false`, ...
    pub host_details: Option<BTreeMap<String, toml::Value>>,
    /// A network instead of paper 000's testbed (`docs/networks.md`).
    #[serde(default)]
    pub node: Vec<NodeTable>,
    #[serde(default)]
    pub link: Vec<LinkTable>,
    #[serde(default)]
    pub cell: Vec<CellTable>,
    #[serde(default)]
    pub flow: Vec<FlowTable>,
    /// Mobile hosts that hand off between base stations (paper 002).
    #[serde(default)]
    pub handoff: Vec<crate::network::HandoffTable>,
    /// Base stations that crash and come back.
    #[serde(default)]
    pub crash: Vec<crate::network::file::CrashTable>,
}

/// A scalar of a scenario file as the text a flag would carry. The error names what was found
/// by its kind, not its text: a table or an array echoed whole could run to many lines (a
/// multi-line string inside it; found by fuzzing, fuzz/fuzz_targets/scenario.rs), and an error is
/// one short line.
pub fn value_text(v: &toml::Value) -> Result<String, String> {
    Ok(match v {
        toml::Value::String(s) => s.clone(),
        toml::Value::Integer(i) => i.to_string(),
        toml::Value::Float(f) => f.to_string(),
        toml::Value::Boolean(b) => if *b { "on" } else { "off" }.to_string(),
        toml::Value::Datetime(_) => return Err(not_scalar("a date")),
        toml::Value::Array(_) => return Err(not_scalar("an array")),
        toml::Value::Table(_) => return Err(not_scalar("a table")),
    })
}

fn not_scalar(found: &str) -> String {
    format!("expected a string, number or boolean, found {found}")
}

impl ScenarioFile {
    /// Reads a file; a message names the line, the key when the error is in its value, and what
    /// was expected.
    pub fn parse(text: &str) -> Result<ScenarioFile, String> {
        toml::from_str(text).map_err(|e| {
            let msg = plain_message(&e.message().replace('\n', " "));
            match e.span() {
                Some(span) => {
                    let line = text.as_bytes()[..span.start.min(text.len())]
                        .iter()
                        .filter(|&&b| b == b'\n')
                        .count()
                        + 1;
                    match key_of_value(text, span.start) {
                        Some(key) => format!("line {line}: {key}: {msg}"),
                        None => format!("line {line}: {msg}"),
                    }
                }
                None => msg,
            }
        })
    }

    /// Makes the relative file names inside the file (channel traces) relative to `dir`, the
    /// directory the scenario file is in.
    pub fn rebase_paths(&mut self, dir: &std::path::Path) {
        let cells = self.cell.iter_mut().flat_map(|c| {
            let stations = c.station.iter_mut().flat_map(|s| [&mut s.down, &mut s.up]);
            [&mut c.down, &mut c.up].into_iter().chain(stations)
        });
        for t in [&mut self.down, &mut self.up]
            .into_iter()
            .chain(cells)
            .flatten()
        {
            t.rebase(dir);
        }
    }

    /// Sets what the file sets in `sc`; the message names the key.
    pub fn apply(&self, sc: &mut Scenario) -> Result<(), String> {
        let f = self;
        if let Some(p) = &f.protocol {
            sc.protocol = Protocol::parse(p)?;
        }
        if let Some(e) = &f.env {
            sc.set_env(Env::parse(e)?);
        }
        if let Some(b) = &f.buffer {
            sc.buffer = size_u32(b.bytes("buffer")?, "buffer")?;
        }
        if let Some(m) = &f.mss {
            sc.mss = size_u32(m.bytes("mss")?, "mss")?;
        }
        if let Some(t) = &f.transfer {
            sc.transfer = t.bytes("transfer")?;
        }
        if let Some(d) = &f.direction {
            sc.direction = Direction::parse(d)?;
        }
        if let Some(e) = &f.error_every {
            sc.error_every = e.bytes("error-every")?;
        }
        if let Some(e) = &f.error_every_down {
            sc.error_every_down = Some(e.bytes("error-every-down")?);
        }
        if let Some(e) = &f.error_every_up {
            sc.error_every_up = Some(e.bytes("error-every-up")?);
        }
        if let Some(b) = f.burst {
            sc.burst = u32::try_from(b).map_err(|_| format!("burst {b} is out of range"))?;
        }
        if let Some(c) = &f.down {
            sc.channel_down = Some(c.spec("down")?);
        }
        if let Some(c) = &f.up {
            sc.channel_up = Some(c.spec("up")?);
        }
        if let Some(s) = f.seed {
            sc.seed = s;
        }
        if let Some(m) = f.max_time_s {
            sc.max_time = max_time_from_secs(m, &format!("max-time-s {m}"))?;
        }
        if let Some(h) = &f.host {
            sc.set_host(HostPreset::parse(h)?);
        }
        if let Some(details) = &f.host_details {
            for (k, v) in details {
                let text = value_text(v).map_err(|e| format!("host-details.{k}: {e}"))?;
                sc.host.set(k, &text)?;
            }
        }
        if !(f.node.is_empty()
            && f.link.is_empty()
            && f.cell.is_empty()
            && f.flow.is_empty()
            && f.handoff.is_empty()
            && f.crash.is_empty())
        {
            let tables = Tables {
                nodes: &f.node,
                links: &f.link,
                cells: &f.cell,
                flows: &f.flow,
                handoffs: &f.handoff,
                crashes: &f.crash,
            };
            sc.topology = Some(Arc::new(Topology::resolve(&tables)?));
        }
        Ok(())
    }
}

impl ScenarioFile {
    /// The file's settings over the defaults of `snooplab run`, checked as a run checks them.
    pub fn scenario(&self) -> Result<Scenario, String> {
        let mut sc = default_scenario();
        self.apply(&mut sc)?;
        sc.validate()?;
        Ok(sc)
    }
}

/// A scenario as serde reads it from any format (TOML, JSON, a Python dict): the keys of a
/// scenario file, unknown keys refused, over the defaults of `snooplab run`, and checked. So a
/// file, a dict and the struct are one shape. Relative channel-trace names are relative to the
/// current directory.
impl<'de> Deserialize<'de> for Scenario {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Scenario, D::Error> {
        ScenarioFile::deserialize(d)?
            .scenario()
            .map_err(serde::de::Error::custom)
    }
}

impl Scenario {
    /// A scenario from the TOML of a scenario file; messages name the line and the key as for
    /// `--scenario`.
    pub fn from_toml(text: &str) -> Result<Scenario, String> {
        ScenarioFile::parse(text)?.scenario()
    }
}

/// serde's type errors in words: `invalid type: string "x", expected i64` becomes `expected a
/// whole number, got string "x"`.
fn plain_message(msg: &str) -> String {
    let rest = msg
        .strip_prefix("invalid type: ")
        .or_else(|| msg.strip_prefix("invalid value: "));
    let Some((found, expected)) = rest.and_then(|r| r.rsplit_once(", expected ")) else {
        return msg.to_string();
    };
    let expected = match expected {
        "i64" | "i32" => "a whole number",
        "u64" | "u32" | "u16" | "u8" | "usize" => "a whole number, 0 or more",
        "f64" | "f32" => "a number",
        "a boolean" => "true or false",
        "a map" => "a table",
        other => other,
    };
    format!("expected {expected}, got {found}")
}

/// The key (dotted from its table) whose value starts at byte `pos`: `buffer` for `buffer = true`,
/// `down.every` for `down = { every = true }` or `every = true` under `[down]`. `None` when `pos`
/// is not right after `key =` on its line (the error is about a key or a whole table, and the
/// message names it).
fn key_of_value(text: &str, pos: usize) -> Option<String> {
    let before = text.get(..pos)?;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let prefix = before[line_start..].trim_end().strip_suffix('=')?;
    // `a = { b = 1, c = {` ... : every `{` opens a key's inline table
    let mut path: Vec<&str> = Vec::new();
    let parts: Vec<&str> = prefix.split('{').collect();
    for (i, part) in parts.iter().enumerate() {
        let mut k = part.rsplit(',').next().unwrap_or(part).trim();
        if i + 1 < parts.len() {
            k = k.strip_suffix('=')?.trim_end();
        }
        path.push(k);
    }
    let bare = |k: &str| {
        !k.is_empty()
            && k.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    };
    if !path.iter().all(|k| bare(k)) {
        return None;
    }
    // the table the line is in: the last header above it
    let header = text[..line_start].lines().rev().find_map(|l| {
        let l = l.trim();
        l.starts_with('[')
            .then(|| l.trim_matches(|c| c == '[' || c == ']').trim())
    });
    let mut key = path.join(".");
    if let Some(h) = header.filter(|h| bare(h)) {
        key = format!("{h}.{key}");
    }
    Some(key)
}

/// Defaults of `snooplab run`: paper 000's LAN, 32 KB, one error every 64 KB.
pub fn default_scenario() -> Scenario {
    Scenario::paper000(Protocol::E2e, Env::Lan, 32768, 1)
}

/// Converts a size to u32 for settings that must fit one.
pub fn size_u32(n: u64, what: &str) -> Result<u32, String> {
    u32::try_from(n).map_err(|_| format!("{what} {n} is too large"))
}

/// The longest simulated time a run may be given, seconds (about 116 days).
pub const MAX_TIME_LIMIT_S: f64 = 1e7;

/// A run's cap on simulated time from seconds, as the command line (`--max-time`) and a scenario
/// file (`max-time-s`) give it: one check and one rounding for both, so the same number means the
/// same run wherever it is written. `what` names the setting and its value in the message.
pub fn max_time_from_secs(secs: f64, what: &str) -> Result<Time, String> {
    if !(secs > 0.0 && secs <= MAX_TIME_LIMIT_S) {
        return Err(format!(
            "{what} is out of range: use more than 0 and at most 1e7 seconds"
        ));
    }
    match (secs * SEC as f64).round() as Time {
        // below half a nanosecond: no time at all
        0 => Err(format!(
            "{what} is out of range: use more than 0 and at most 1e7 seconds"
        )),
        t => Ok(t),
    }
}

/// Default cap on simulated time.
pub const DEFAULT_MAX_TIME: Time = 3600 * SEC;

/// A host's label: its preset's name, and the details that differ from the preset
/// (`bsdos-2.1 [read-delay=5ms]`).
pub fn host_label(preset: HostPreset, host: &HostProfile) -> String {
    let changed: Vec<String> = preset
        .profile()
        .differences(host)
        .iter()
        .filter_map(|k| host.get(k).map(|v| format!("{k}={v}")))
        .collect();
    if changed.is_empty() {
        preset.name().to_string()
    } else {
        format!("{} [{}]", preset.name(), changed.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by fuzzing (fuzz/fuzz_targets/scenario.rs): a dotted key under `[host-details]` makes
    /// a table, whose whole text, a multi-line string in it, was echoed in the error.
    #[test]
    fn a_table_where_a_value_goes_is_named_not_echoed() {
        let text = "[host-details]\nea.__y = \"\"\"\n4-)---D\n-ms\"\"\"\nread-size = 4096\n";
        let err = ScenarioFile::parse(text).unwrap().scenario().unwrap_err();
        assert_eq!(
            err,
            "host-details.ea: expected a string, number or boolean, found a table"
        );
        let err = Scenario::from_toml("[host-details]\nreader = [1, 2]\n").unwrap_err();
        assert!(err.ends_with("found an array"), "{err}");
    }
}
