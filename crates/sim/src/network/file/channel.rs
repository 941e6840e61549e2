//! The channel keys of scenario files: `down`/`up` tables naming a loss model, and the
//! `error-every*` and `burst` shorthands, at the top level, in a cell and in a station; the
//! innermost that sets something wins.

use std::path::Path;
use std::sync::Arc;

use serde::Deserialize;
use snooplab_proto::duration::{self, Bare};
use snooplab_proto::time::Time;

use crate::channel::{ChannelSpec, ChannelTrace, GilbertElliottParams, STATE_TIME_RANGE};
use crate::file_value::SizeValue;

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
            duration::parse_in(v, Bare::Millis, STATE_TIME_RANGE, &format!("{what}.{key}"))
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
                // a key twice is a typo, not an override: a file's TOML refuses it too
                if let Some(first) = table.insert(k.trim().into(), value) {
                    let first = match first {
                        toml::Value::String(t) => t,
                        other => other.to_string(),
                    };
                    return Err(format!(
                        "{} is given twice ({first} and {v}): give each key once",
                        k.trim()
                    ));
                }
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
    pub(crate) fn rebase(&mut self, dir: &Path) {
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
pub(crate) struct ChannelKeys {
    pub error_every: Option<SizeValue>,
    pub error_every_down: Option<SizeValue>,
    pub error_every_up: Option<SizeValue>,
    pub burst: Option<i64>,
    pub down: Option<ChannelTable>,
    pub up: Option<ChannelTable>,
}

/// One level's channel settings, checked.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct ChannelLevel {
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
