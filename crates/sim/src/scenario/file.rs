//! Scenario files: the keys a TOML or JSON file (or a Python dict) may set, read by serde with
//! messages that name the line and the key and say what a value should look like, and applied
//! over a scenario's defaults.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Deserialize;
use snooplab_proto::tcp::HostPreset;

use snooplab_proto::duration::Bare;

use super::{default_scenario, size_u32, Direction, Env, Protocol, Scenario, MAX_TIME_RANGE};
use crate::file_value::{SizeValue, TimeValue};
use crate::network::file::{
    CellTable, ChannelTable, FlowTable, LinkTable, NodeTable, Tables, Topology,
};

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
    pub max_time_s: Option<TimeValue>,
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
pub(crate) fn value_text(v: &toml::Value) -> Result<String, String> {
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
        if let Some(m) = &f.max_time_s {
            sc.max_time = m.time(Bare::Seconds, MAX_TIME_RANGE, "max-time-s")?;
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
