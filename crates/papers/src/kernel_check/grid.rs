//! The kernel check's points: paper 000's testbed (fixed host, 10 Mb/s Ethernet to the base
//! station, or 16 more Internet hops for the WAN; a 2 Mb/s WaveLAN hop to the mobile host) with
//! exponentially distributed bit errors from one per 16 KB to one per 1 MB or a Gilbert-Elliott
//! channel of bursts, no agent (`e2e`) or snoop (`ll-tcp-aware`), and the sender's congestion
//! control CUBIC (Linux's default) or Reno.
//! Every point shares [`Settings`]: the receiver's window and the transfer the live finding of
//! `docs/live.md` ("The modern profile") was measured with.

use snooplab_proto::time::{Time, MS};
use snooplab_sim::channel::{ChannelSpec, GilbertElliottParams};
use snooplab_sim::link::WiredParams;
use snooplab_sim::protocol::Protocol;
use snooplab_sim::Env;

/// What every point shares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    /// The receiver's largest window, bytes.
    pub buffer: u32,
    /// Bytes each run sends.
    pub transfer: u64,
    /// TCP payload per segment without options (the devices' MTU is this plus 40).
    pub mss: u32,
}

/// 64 KB windows and 2 MB transfers, paper 000's 1400-byte segments: the settings of the live
/// finding this check starts from (`docs/live.md`).
pub const SETTINGS: Settings = Settings {
    buffer: 64 * 1024,
    transfer: 2 * 1024 * 1024,
    mss: 1400,
};

/// The mean bytes between errors the grid takes: one per 16 KB to one per 1 MB.
pub const ERROR_EVERY: [u64; 4] = [16 << 10, 64 << 10, 256 << 10, 1 << 20];

/// The wired path between the fixed host and the base station.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    /// Paper 000's LAN: 10 Mb/s Ethernet, RTT about 10 ms with the wireless hop.
    Lan,
    /// Paper 000's WAN: 16 more Internet hops, a 1.35 Mb/s pipe, RTT about 135 ms.
    Wan,
    /// A long fat path: the LAN's Ethernet with 100 ms one way (RTT about 210 ms), the issue's
    /// "100-200 ms path" without the WAN's narrow pipe, so that the window, not the wire, bounds
    /// the sender.
    Long,
}

/// The long path's one-way delay.
pub const LONG_DELAY: Time = 100 * MS;

impl Path {
    pub const ALL: [Path; 3] = [Path::Lan, Path::Wan, Path::Long];

    pub fn name(self) -> &'static str {
        match self {
            Path::Lan => "lan",
            Path::Wan => "wan",
            Path::Long => "long",
        }
    }

    /// The simulator's paper-000 environment the path starts from (its wired link replaced by
    /// [`Path::wired`]).
    pub fn env(self) -> Env {
        match self {
            Path::Wan => Env::Wan,
            Path::Lan | Path::Long => Env::Lan,
        }
    }

    /// The wired link.
    pub fn wired(self) -> WiredParams {
        match self {
            Path::Long => WiredParams {
                delay: LONG_DELAY,
                ..Env::Lan.wired()
            },
            p => p.env().wired(),
        }
    }
}

/// The bursty channel of the grid, each direction: good periods of 1 s mean without errors, bad
/// periods of 50 ms mean with a bit error every 1 KB (a 1440-byte frame lost with probability
/// 0.75). Not a measured channel (no published 1990s WaveLAN parameters are shipped,
/// docs/channels.md): the project's example of a bursty channel (`examples/gilbert-elliott.toml`),
/// used here because it is where the grid's exponential errors say nothing, losses in runs.
pub const GILBERT_ELLIOTT: GilbertElliottParams = GilbertElliottParams {
    good_every: 0,
    bad_every: 1024,
    good_time: 1000 * MS,
    bad_time: 50 * MS,
};

/// What corrupts the wireless hop's frames at a point, each direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Errors {
    /// Bit errors with exponential gaps of this mean, in bytes.
    Every(u64),
    /// The [`GILBERT_ELLIOTT`] channel.
    GilbertElliott,
}

impl Errors {
    /// The point id's part: `16k`, `1m`, `ge`.
    pub fn name(self) -> String {
        match self {
            Errors::Every(b) => size_name(b),
            Errors::GilbertElliott => "ge".into(),
        }
    }

    /// The channel model of each direction.
    pub fn channel(self) -> ChannelSpec {
        match self {
            Errors::Every(b) => ChannelSpec::every(b, 1),
            Errors::GilbertElliott => ChannelSpec::GilbertElliott(GILBERT_ELLIOTT),
        }
    }

    /// Every channel of the grid: the exponential error rates, then the bursty channel.
    fn all() -> impl Iterator<Item = Errors> {
        ERROR_EVERY
            .into_iter()
            .map(Errors::Every)
            .chain([Errors::GilbertElliott])
    }
}

/// The sender's congestion control, as the kernel names it.
pub const CONGESTION: [&str; 2] = ["cubic", "reno"];

/// One point of the grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Point {
    pub path: Path,
    /// The wireless hop's errors.
    pub errors: Errors,
    /// What the base station runs: `e2e` (it only routes) or snoop.
    pub protocol: Protocol,
    /// The sender's congestion control (`cubic`, `reno`).
    pub cc: &'static str,
}

impl Point {
    /// The point's name in data files and on the command line: `lan-16k-snoop-cubic`.
    pub fn id(&self) -> String {
        let agent = match self.protocol {
            Protocol::LlTcpAware => "snoop",
            p => p.name(),
        };
        format!(
            "{}-{}-{agent}-{}",
            self.path.name(),
            self.errors.name(),
            self.cc
        )
    }
}

/// `16k`, `1m`: a power-of-two size as the command line writes it.
fn size_name(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{}m", bytes >> 20)
    } else if bytes.is_multiple_of(1024) {
        format!("{}k", bytes >> 10)
    } else {
        bytes.to_string()
    }
}

/// The long path's points: CUBIC at one error per 16 KB and per 64 KB (each long run takes
/// minutes of real time; these are the points where the snoop-today study finds snoop's gain for
/// today's sender largest, docs/snoop-today.md).
fn long_point(errors: Errors, cc: &str) -> bool {
    cc == "cubic" && matches!(errors, Errors::Every(b) if b <= 64 << 10)
}

/// Every point: LAN and WAN x the four error rates and the bursty channel x no agent and snoop x
/// CUBIC and Reno (40 points), the long path's four, and snoop-sack (docs/snoop-sack.md) on each
/// path with CUBIC at one error per 16 KB and per 64 KB (6 points).
pub fn grid() -> Vec<Point> {
    let mut out = Vec::new();
    for path in Path::ALL {
        for errors in Errors::all() {
            for protocol in [Protocol::E2e, Protocol::LlTcpAware, Protocol::SnoopSack] {
                for cc in CONGESTION {
                    if path == Path::Long && !long_point(errors, cc) {
                        continue;
                    }
                    if protocol == Protocol::SnoopSack && !long_point(errors, cc) {
                        continue;
                    }
                    out.push(Point {
                        path,
                        errors,
                        protocol,
                        cc,
                    });
                }
            }
        }
    }
    out
}

/// The points of the live finding the simulator must reproduce: snoop's gain for CUBIC on the LAN
/// at one error per 16 KB and per 64 KB (both agents of each).
pub fn headline() -> Vec<Point> {
    grid()
        .into_iter()
        .filter(|p| {
            p.path == Path::Lan
                && p.protocol != Protocol::SnoopSack
                && p.cc == "cubic"
                && matches!(p.errors, Errors::Every(b) if b <= 64 << 10)
        })
        .collect()
}

/// The points `spec` names: `all`, `headline`, or a comma-separated list of ids; an unknown id is
/// refused with the known ones' pattern.
pub fn select(spec: &str) -> Result<Vec<Point>, String> {
    match spec.trim() {
        "all" => return Ok(grid()),
        "headline" => return Ok(headline()),
        _ => {}
    }
    let all = grid();
    let mut out: Vec<Point> = Vec::new();
    for id in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let p = all.iter().find(|p| p.id() == id).ok_or_else(|| {
            format!(
                "unknown kernel-check point '{id}': use all, headline or ids such as \
                 lan-16k-snoop-cubic (ENV-ERRORS-AGENT-CC: lan|wan|long, 16k|64k|256k|1m|ge, \
                 e2e|snoop|snoop-sack, cubic|reno)"
            )
        })?;
        if !out.contains(p) {
            out.push(*p);
        }
    }
    if out.is_empty() {
        return Err("no kernel-check point named: use all, headline or a list of ids".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grid_has_every_combination_once() {
        let g = grid();
        assert_eq!(g.len(), 2 * 5 * 2 * 2 + 4 + 6);
        let mut ids: Vec<String> = g.iter().map(Point::id).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), g.len());
        assert!(ids.contains(&"lan-16k-snoop-cubic".to_string()));
        assert!(ids.contains(&"wan-1m-e2e-reno".to_string()));
        assert!(ids.contains(&"lan-ge-snoop-cubic".to_string()));
    }

    #[test]
    fn points_are_selected_by_id_or_group() {
        assert_eq!(select("all").map(|p| p.len()), Ok(50));
        assert!(select("wan-16k-snoop-sack-cubic").is_ok());
        assert!(select("long-16k-snoop-cubic").is_ok());
        assert!(select("long-16k-snoop-reno").is_err());
        let h = select("headline").unwrap_or_default();
        assert_eq!(h.len(), 4);
        assert!(h.iter().all(|p| p.path == Path::Lan && p.cc == "cubic"));
        let two = select("lan-16k-e2e-cubic, lan-16k-e2e-cubic,wan-64k-snoop-reno");
        assert_eq!(two.map(|p| p.len()), Ok(2));
        assert!(select("lan-8k-e2e-cubic")
            .unwrap_err()
            .contains("unknown kernel-check point 'lan-8k-e2e-cubic'"));
        assert!(select(" , ").is_err());
    }
}
