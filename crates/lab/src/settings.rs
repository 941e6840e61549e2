//! A scenario from settings given as text, as the command line's flags give them: the defaults,
//! then a scenario file, then each setting. The command line only reads its flags into
//! [`RunSettings`]; every check and message is here.

use std::path::PathBuf;

use snooplab_proto::duration::{self, Bare, Range};
use snooplab_proto::tcp::{HostPreset, HostProfile};
use snooplab_sim::channel::ChannelSpec;
use snooplab_sim::network::file::ChannelTable;
use snooplab_sim::scenario::{default_scenario, size_u32, MAX_TIME_RANGE};
use snooplab_sim::size::parse_size;
use snooplab_sim::{Direction, Env, Protocol, Scenario};

use crate::Error;

fn parse_u64(text: &str, what: &str) -> Result<u64, Error> {
    let t = text.trim();
    if t.starts_with('-') {
        return Err(Error::Invalid(format!("{what} '{text}' is negative")));
    }
    if let Ok(n) = t.parse::<u64>() {
        return Ok(n);
    }
    Err(Error::Invalid(not_u64(t, text, what)))
}

/// Why `t` (trimmed from `text`) is not a `u64`, in the words that fit: a number too large, a whole
/// number in a form other than digits (`1e3`), a fraction, or no number at all. ("not a whole
/// number" for `1e300` or 2^64 would send the user looking for a fraction that is not there.)
fn not_u64(t: &str, text: &str, what: &str) -> String {
    let digits = t.strip_prefix('+').unwrap_or(t);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        return format!("{what} '{text}' is too large (at most {})", u64::MAX);
    }
    match t.parse::<f64>() {
        Ok(v) if v.is_finite() && v.fract() == 0.0 => {
            if v >= u64::MAX as f64 {
                format!("{what} '{text}' is too large (at most {})", u64::MAX)
            } else {
                format!(
                    "{what} '{text}' must be written in digits, with no exponent or decimal point \
                     ({})",
                    v as u64
                )
            }
        }
        Ok(v) if v.is_finite() => format!("{what} '{text}' is not a whole number"),
        _ => format!("{what} '{text}' is not a number (use digits, e.g. 12)"),
    }
}

/// Parses `--mss`/`--burst`-style small integers.
pub fn parse_u32(text: &str, what: &str) -> Result<u32, Error> {
    let n = parse_u64(text, what)?;
    u32::try_from(n).map_err(|_| Error::Invalid(format!("{what} '{text}' is too large")))
}

pub fn parse_seed(text: &str) -> Result<u64, Error> {
    parse_u64(text, "seed")
}

/// A size setting (`8k`, `1.5M`), its name before the message.
pub fn parse_size_of(text: &str, what: &str) -> Result<u64, Error> {
    parse_size(text).map_err(|e| Error::Invalid(format!("{what}: {e}")))
}

/// The times a plot window's ends (`--from`, `--to`) may name: 0 to the longest run there is.
pub const WINDOW_RANGE: Range = Range::new(0, MAX_TIME_RANGE.max);

/// A point in a run's time (`--from 12.5`, `--to 2min`): the duration grammar, a bare number
/// being seconds, from 0 to 1e7 s; in nanoseconds.
pub fn parse_seconds(text: &str, what: &str) -> Result<u64, Error> {
    duration::parse_in(text, Bare::Seconds, WINDOW_RANGE, what).map_err(Error::Invalid)
}

/// `--max-time`: the duration grammar, a bare number being seconds (`600`, `12.5`, `1e4`,
/// `1.5d`), checked as a scenario file's `max-time-s`.
pub fn parse_max_time(text: &str) -> Result<u64, Error> {
    duration::parse_in(text, Bare::Seconds, MAX_TIME_RANGE, "max-time").map_err(Error::Invalid)
}

/// The settings of one run as text, each `None` when not given (the file's or the default then).
#[derive(Clone, Debug, Default)]
pub struct RunSettings {
    pub scenario: Option<PathBuf>,
    pub protocol: Option<String>,
    pub env: Option<String>,
    pub buffer: Option<String>,
    pub mss: Option<String>,
    pub transfer: Option<String>,
    pub direction: Option<String>,
    pub error_every: Option<String>,
    pub error_every_down: Option<String>,
    pub error_every_up: Option<String>,
    pub burst: Option<String>,
    pub down: Option<String>,
    pub up: Option<String>,
    pub seed: Option<String>,
    pub max_time: Option<String>,
    pub host: Option<String>,
    pub host_detail: Vec<String>,
}

impl RunSettings {
    /// Defaults, then the scenario file, then the settings; checked.
    pub fn scenario(&self) -> Result<Scenario, Error> {
        let a = self;
        let inv = Error::Invalid;
        let mut sc = default_scenario();
        if let Some(path) = &a.scenario {
            crate::scenario::apply_file(path, &mut sc)?;
        }
        if let Some(p) = &a.protocol {
            sc.protocol = Protocol::parse(p).map_err(inv)?;
        }
        if let Some(e) = &a.env {
            sc.set_env(Env::parse(e).map_err(inv)?);
        }
        if let Some(b) = &a.buffer {
            sc.buffer = size_u32(parse_size_of(b, "buffer")?, "buffer").map_err(inv)?;
        }
        if let Some(m) = &a.mss {
            sc.mss = size_u32(parse_size_of(m, "mss")?, "mss").map_err(inv)?;
        }
        if let Some(t) = &a.transfer {
            sc.transfer = parse_size_of(t, "transfer")?;
        }
        if let Some(d) = &a.direction {
            sc.direction = Direction::parse(d).map_err(inv)?;
        }
        // the shorthand settings override the file's channel models
        if let Some(e) = &a.error_every {
            sc.error_every = parse_size_of(e, "error-every")?;
            sc.error_every_down = None;
            sc.error_every_up = None;
            sc.channel_down = None;
            sc.channel_up = None;
        }
        if let Some(e) = &a.error_every_down {
            sc.error_every_down = Some(parse_size_of(e, "error-every-down")?);
            sc.channel_down = None;
        }
        if let Some(e) = &a.error_every_up {
            sc.error_every_up = Some(parse_size_of(e, "error-every-up")?);
            sc.channel_up = None;
        }
        if let Some(b) = &a.burst {
            sc.burst = parse_u32(b, "burst")?;
            sc.channel_down = None;
            sc.channel_up = None;
        }
        if let Some(c) = &a.down {
            sc.channel_down = Some(channel_flag(c, "down")?);
        }
        if let Some(c) = &a.up {
            sc.channel_up = Some(channel_flag(c, "up")?);
        }
        if let Some(s) = &a.seed {
            sc.seed = parse_seed(s)?;
        }
        if let Some(m) = &a.max_time {
            sc.max_time = parse_max_time(m)?;
        }
        if let Some(h) = &a.host {
            sc.set_host(HostPreset::parse(h).map_err(inv)?);
        }
        apply_host_details(&mut sc, &a.host_detail)?;
        sc.validate().map_err(inv)?;
        Ok(sc)
    }
}

/// A `--down`/`--up` channel model (file names relative to the current directory).
pub fn channel_flag(text: &str, what: &str) -> Result<ChannelSpec, Error> {
    ChannelTable::from_flag(text)
        .map_err(|e| format!("{what}: {e}"))
        .and_then(|t| t.spec(what))
        .map_err(Error::Invalid)
}

/// `KEY=VALUE` host details, in order, over the scenario's host profile.
pub fn apply_host_details(sc: &mut Scenario, details: &[String]) -> Result<(), Error> {
    for d in details {
        let (k, v) = d.split_once('=').ok_or_else(|| {
            Error::Invalid(format!(
                "host-detail '{d}' is not KEY=VALUE (keys: {})",
                HostProfile::KEYS.join(", ")
            ))
        })?;
        sc.host.set(k.trim(), v).map_err(Error::Invalid)?;
    }
    Ok(())
}

/// Splits a comma-separated list, rejecting empty items.
pub fn split_list(text: &str, what: &str) -> Result<Vec<String>, Error> {
    let items: Vec<String> = text.split(',').map(|s| s.trim().to_string()).collect();
    if items.iter().any(|s| s.is_empty()) {
        return Err(Error::Invalid(format!(
            "{what} list '{text}' has an empty item"
        )));
    }
    Ok(items)
}

/// A comma-separated list of distinct values: each item parsed, and a value named twice (`e2e,e2e`,
/// or one value by two names, `snoop,ll-tcp-aware`) refused, `why` saying what it would do. Every
/// list flag of the command line reads through here (`sweep`'s lists, `live --protocol`, `bench
/// --with`), so none keeps a repeated value silently.
pub fn split_distinct<T: Eq + std::hash::Hash>(
    text: &str,
    what: &str,
    why: &str,
    parse: impl Fn(&str) -> Result<T, Error>,
) -> Result<Vec<T>, Error> {
    let items = split_list(text, what)?;
    // by hash: a list of a million values is found too long later, not compared pairwise here
    let mut seen: std::collections::HashMap<&T, usize> = std::collections::HashMap::new();
    let mut index = Vec::with_capacity(items.len());
    for item in &items {
        index.push(parse(item)?);
    }
    for (i, v) in index.iter().enumerate() {
        if let Some(&j) = seen.get(v) {
            let item = &items[i];
            let twice = if items[j] == *item {
                format!("'{item}' twice")
            } else {
                format!("one value twice, as '{}' and '{item}'", items[j])
            };
            return Err(Error::Invalid(format!(
                "{what} list '{text}' names {twice}: {why}"
            )));
        }
        seen.insert(v, i);
    }
    Ok(index)
}

#[cfg(test)]
mod tests {
    use super::*;
    use snooplab_proto::time::SEC;

    fn msg(r: Result<u64, Error>) -> String {
        r.expect_err("refused").to_string()
    }

    #[test]
    fn whole_numbers_are_refused_for_what_is_wrong_with_them() {
        assert_eq!(parse_seed("+7"), Ok(7));
        assert_eq!(
            msg(parse_seed("1e300")),
            format!("seed '1e300' is too large (at most {})", u64::MAX)
        );
        assert_eq!(
            msg(parse_seed("18446744073709551616")),
            format!(
                "seed '18446744073709551616' is too large (at most {})",
                u64::MAX
            )
        );
        assert!(msg(parse_seed("1e3")).contains("must be written in digits"));
        assert_eq!(msg(parse_seed("1.5")), "seed '1.5' is not a whole number");
        assert!(msg(parse_seed("x")).contains("is not a number"));
        assert!(msg(parse_seed("-1")).contains("is negative"));
        let e = parse_u32("5000000000", "burst").expect_err("too large");
        assert!(e.to_string().contains("too large"), "{e}");
    }

    #[test]
    fn seconds_with_an_exponent_are_seconds() {
        assert_eq!(parse_seconds("1e3", "--from"), Ok(1_000 * SEC));
        assert_eq!(parse_seconds("12.5", "--from"), Ok(12_500_000_000));
        assert_eq!(parse_seconds("2min", "--from"), Ok(120 * SEC));
        assert_eq!(
            msg(parse_seconds("1e9", "--to")),
            "--to '1e9' must be between 0 and 10000000 s"
        );
        assert!(msg(parse_seconds("soon", "--to")).contains("is not a duration"));
        assert_eq!(parse_max_time("1e7"), Ok(10_000_000 * SEC));
        assert_eq!(parse_max_time("1.5d"), Ok(129_600 * SEC));
        assert_eq!(
            msg(parse_max_time("0")),
            "max-time '0' must be between 1 ns and 10000000 s"
        );
    }
}
