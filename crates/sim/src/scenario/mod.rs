//! What one run is: protocol, environment, sizes, error model and seed (docs/model.md), from the
//! command line or a TOML file, validated with errors that say what to fix.

use serde::{Deserialize, Serialize};
use snooplab_proto::duration::Range;
use snooplab_proto::tcp::{BufferLimit, HostPreset, HostProfile, MIN_BUFFER};
use snooplab_proto::time::{Time, SEC, US};

use std::sync::Arc;

use crate::channel::{check_error_settings, ChannelSpec};
use crate::link::WiredParams;
use crate::medium::{AccessModel, WavelanParams};
use crate::network::file::Topology;
use crate::network::Network;
pub use crate::protocol::Protocol;

mod file;

use crate::size::format_size;
pub(crate) use file::value_text;
pub use file::ScenarioFile;

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
pub(crate) const WAN_PATH_RATE_BPS: u64 = 1_388_571;

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
    /// How paper 000's cell shares its medium (a scenario file's cells name their own): turn
    /// taking, the calibrated default; full duplex for the live mode's `--env off`.
    pub access: AccessModel,
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
            max_time: DEFAULT_MAX_TIME,
            wavelan: WavelanParams::default(),
            access: AccessModel::Turns,
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
        check_tcp_settings(
            self.mss,
            self.buffer,
            self.transfer,
            &self.host_preset.buffer_limit(),
        )?;
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

/// Whether a flow's segment size, socket buffer and transfer are usable by hosts with the buffer
/// limit `limit` ([`check_buffer`]); the message names the setting and says what is allowed.
pub(crate) fn check_tcp_settings(
    mss: u32,
    buffer: u32,
    transfer: u64,
    limit: &BufferLimit,
) -> Result<(), String> {
    if !(64..=65495).contains(&mss) {
        return Err(format!(
            "mss {mss} is out of range: use 64 to 65495 bytes (the papers use 1400, 1440, 1460)"
        ));
    }
    check_buffer(buffer, limit)?;
    if transfer == 0 || transfer > 1 << 30 {
        return Err(format!(
            "transfer {transfer} is out of range: use 1 byte to 1G"
        ));
    }
    Ok(())
}

/// The one buffer rule of both clocks: `buffer` (a host's socket buffer, `--buffer` or a flow's
/// `buffer`) from [`MIN_BUFFER`] (the smallest window the live mode's kernels hold, taken by every
/// host) to what the hosts take, `limit` (the BSD profiles' 4.4BSD `sb_max`, which the live mode's
/// `paper` profiles share; a live Linux profile's own; `snooplab_proto::tcp::BufferLimit`). One
/// message for every command and file: `buffer 4M is more than the bsdos-2.1 hosts' limit of 256k
/// (4.4BSD sb_max); use 2k to 256k`.
pub fn check_buffer(buffer: u32, limit: &BufferLimit) -> Result<(), String> {
    let size = |n: u32| format_size(u64::from(n));
    let b = size(buffer);
    let range = format!("use {} to {}", size(MIN_BUFFER), size(limit.max));
    if buffer < MIN_BUFFER {
        return Err(format!(
            "buffer {b} is less than the minimum of {} (the smallest window Linux holds); {range}",
            size(MIN_BUFFER)
        ));
    }
    if buffer > limit.max {
        return Err(format!(
            "buffer {b} is more than the {} hosts' limit of {} ({}); {range}",
            limit.hosts,
            size(limit.max),
            limit.source
        ));
    }
    Ok(())
}

/// The hosts of paper 000 (section IV-A: "all running BSD/OS 2.1") and paper 002 (BSD/OS 2.0).
pub const PAPER000_HOST: HostPreset = HostPreset::Bsdos21;

/// Defaults of `snooplab run`: paper 000's LAN, 32 KB, one error every 64 KB.
pub fn default_scenario() -> Scenario {
    Scenario::paper000(Protocol::E2e, Env::Lan, 32768, 1)
}

/// Converts a size to u32 for settings that must fit one.
pub fn size_u32(n: u64, what: &str) -> Result<u32, String> {
    u32::try_from(n).map_err(|_| format!("{what} {n} is too large"))
}

/// The caps on simulated time a run may be given (`--max-time`, a file's `max-time-s`): more than
/// nothing, and at most 1e7 s (about 116 days), far beyond any paper's run (paper 000's longest is
/// minutes) yet small enough that a run's clock, in 64-bit nanoseconds (up to 584 years), never
/// nears its end. One range for both, so the same text means the same run wherever it is written.
pub const MAX_TIME_RANGE: Range = Range::new(1, 10_000_000 * SEC);

/// Default cap on simulated time.
pub(crate) const DEFAULT_MAX_TIME: Time = 3600 * SEC;

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
