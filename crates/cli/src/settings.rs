//! Turning command-line text and scenario files into a validated [`Scenario`].

use snooplab_proto::tcp::{HostPreset, HostProfile};
use snooplab_proto::time::SEC;
use snooplab_sim::channel::ChannelSpec;
use snooplab_sim::network::file::ChannelTable;
use snooplab_sim::scenario::{default_scenario, max_time_from_secs, size_u32, ScenarioFile};
use snooplab_sim::size::parse_size;
use snooplab_sim::{Env, Protocol, Scenario};

use crate::cli::RunArgs;

fn parse_u64(text: &str, what: &str) -> Result<u64, String> {
    let t = text.trim();
    if t.starts_with('-') {
        return Err(format!("{what} '{text}' is negative"));
    }
    t.parse::<u64>()
        .map_err(|_| format!("{what} '{text}' is not a whole number"))
}

/// Parses `--mss`/`--burst`-style small integers.
pub fn parse_u32(text: &str, what: &str) -> Result<u32, String> {
    let n = parse_u64(text, what)?;
    u32::try_from(n).map_err(|_| format!("{what} '{text}' is too large"))
}

pub fn parse_seed(text: &str) -> Result<u64, String> {
    parse_u64(text, "seed")
}

/// A time in decimal seconds (`12`, `12.5`, down to nanoseconds), from 0 to 1e7 s, in nanoseconds.
pub fn parse_seconds(text: &str, what: &str) -> Result<u64, String> {
    let t = snooplab_sim::trace::parse_secs(text.trim())
        .ok_or_else(|| format!("{what} '{text}' is not a number of seconds (e.g. 12 or 12.5)"))?;
    if t > 10_000_000 * SEC {
        return Err(format!("{what} '{text}' must be between 0 and 1e7 seconds"));
    }
    Ok(t)
}

/// `--max-time`: decimal seconds, exponents allowed (`600`, `12.5`, `1e4`), checked and rounded
/// as a scenario file's `max-time-s`.
pub fn parse_max_time(text: &str) -> Result<u64, String> {
    let secs: f64 = text.trim().parse().map_err(|_| {
        format!("max-time '{text}' is not a number of seconds (e.g. 600, 12.5 or 1e4)")
    })?;
    max_time_from_secs(secs, &format!("max-time '{text}'"))
}

/// Defaults, then the scenario file, then the flags.
pub fn scenario_from_args(a: &RunArgs) -> Result<Scenario, String> {
    let mut sc = default_scenario();
    if let Some(path) = &a.scenario {
        let text = crate::files::read_scenario(path)?;
        let mut f = ScenarioFile::parse(&text)
            .map_err(|e| format!("scenario file {}: {e}", path.display()))?;
        f.rebase_paths(path.parent().unwrap_or(std::path::Path::new(".")));
        f.apply(&mut sc)
            .map_err(|e| format!("scenario file {}: {e}", path.display()))?;
    }
    if let Some(p) = &a.protocol {
        sc.protocol = Protocol::parse(p)?;
    }
    if let Some(e) = &a.env {
        sc.set_env(Env::parse(e)?);
    }
    if let Some(b) = &a.buffer {
        sc.buffer = size_u32(parse_size(b).map_err(|e| format!("buffer: {e}"))?, "buffer")?;
    }
    if let Some(m) = &a.mss {
        sc.mss = size_u32(parse_size(m).map_err(|e| format!("mss: {e}"))?, "mss")?;
    }
    if let Some(t) = &a.transfer {
        sc.transfer = parse_size(t).map_err(|e| format!("transfer: {e}"))?;
    }
    if let Some(d) = &a.direction {
        sc.direction = snooplab_sim::Direction::parse(d)?;
    }
    // the shorthand flags override the file's channel models
    if let Some(e) = &a.error_every {
        sc.error_every = parse_size(e).map_err(|e| format!("error-every: {e}"))?;
        sc.error_every_down = None;
        sc.error_every_up = None;
        sc.channel_down = None;
        sc.channel_up = None;
    }
    if let Some(e) = &a.error_every_down {
        sc.error_every_down = Some(parse_size(e).map_err(|e| format!("error-every-down: {e}"))?);
        sc.channel_down = None;
    }
    if let Some(e) = &a.error_every_up {
        sc.error_every_up = Some(parse_size(e).map_err(|e| format!("error-every-up: {e}"))?);
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
        sc.set_host(HostPreset::parse(h)?);
    }
    apply_host_details(&mut sc, &a.host_detail)?;
    sc.validate()?;
    Ok(sc)
}

/// A `--down`/`--up` channel model (file names relative to the current directory).
pub fn channel_flag(text: &str, what: &str) -> Result<ChannelSpec, String> {
    ChannelTable::from_flag(text)
        .map_err(|e| format!("{what}: {e}"))?
        .spec(what)
}

/// `--host-detail KEY=VALUE` flags, in order, over the scenario's host profile.
pub fn apply_host_details(sc: &mut Scenario, details: &[String]) -> Result<(), String> {
    for d in details {
        let (k, v) = d.split_once('=').ok_or_else(|| {
            format!(
                "host-detail '{d}' is not KEY=VALUE (keys: {})",
                HostProfile::KEYS.join(", ")
            )
        })?;
        sc.host.set(k.trim(), v)?;
    }
    Ok(())
}

/// Splits a comma-separated list, rejecting empty items.
pub fn split_list(text: &str, what: &str) -> Result<Vec<String>, String> {
    let items: Vec<String> = text.split(',').map(|s| s.trim().to_string()).collect();
    if items.iter().any(|s| s.is_empty()) {
        return Err(format!("{what} list '{text}' has an empty item"));
    }
    Ok(items)
}
