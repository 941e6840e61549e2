//! One run of the paper-000 mode (`snooplab live` without `--scenario`): the flags make the
//! simulator's paper-000 preset, which runs on the engine between two kernel hosts as any
//! scenario does (`network_run.rs`), and the result keeps the mode's keys (`result.rs`).

use std::path::PathBuf;

use snooplab_proto::Time;
use snooplab_sim::capture::Capture;
use snooplab_sim::channel::check_error_settings;
use snooplab_sim::link::WiredParams;
use snooplab_sim::medium::WavelanParams;
use snooplab_sim::protocol::Protocol;
use snooplab_sim::{Env, Scenario};

use crate::dirlock::{DirLock, CAPTURE_LOCK};
use crate::link_config::LinkConfig;
use crate::network_run::{run_network, NetworkConfig};
use crate::profile::{CongestionControl, LinuxProfile, MAX_RTO_MIN_MS};
use crate::result::{live_result, LiveResult};

/// The most runs one `snooplab live` invocation plans (protocols x `--runs`): each takes real
/// time (about 50 s for the default 8 MB), so 1000 is about 14 hours, and the plan stays small.
pub const MAX_RUNS: u64 = 1000;

/// The largest window a TCP header carries without window scaling (RFC 7323 section 2).
pub const MAX_UNSCALED_WINDOW: u32 = 65_535;

/// IPv4 and TCP headers without options: the MTU is the MSS plus this.
pub const HEADER_BYTES: u32 = 40;

/// The agents the live base station runs (paper 000 Table I's link-layer family, the split
/// connection and no agent).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LiveProtocol {
    /// Forwarding only: the E2E configurations.
    Plain,
    Ll,
    LlTcpAware,
    /// Runs, but Linux receivers put no SMART option on their ACKs, so the selective switch has no
    /// information to act on and the agent behaves as `LlTcpAware` (see the README).
    LlSmartTcpAware,
    /// The split connection (paper 000 section III-C): the base station terminates the fixed
    /// host's connection with its own TCP and relays the bytes over a second one to the mobile
    /// host (proto/src/agent/split.rs, relay_bytes.rs).
    Split,
    /// The same with the SMART sender towards the mobile host. Linux receivers put no SMART
    /// option on their ACKs, so its sender has no SMART information to act on.
    SplitSmart,
}

impl LiveProtocol {
    pub const ALL: [LiveProtocol; 6] = [
        LiveProtocol::Plain,
        LiveProtocol::Ll,
        LiveProtocol::LlTcpAware,
        LiveProtocol::LlSmartTcpAware,
        LiveProtocol::Split,
        LiveProtocol::SplitSmart,
    ];

    pub fn name(self) -> &'static str {
        match self {
            LiveProtocol::Plain => "plain",
            LiveProtocol::Ll => "ll",
            LiveProtocol::LlTcpAware => "ll-tcp-aware",
            LiveProtocol::LlSmartTcpAware => "ll-smart-tcp-aware",
            LiveProtocol::Split => "split",
            LiveProtocol::SplitSmart => "split-smart",
        }
    }

    pub fn parse(text: &str) -> Result<LiveProtocol, String> {
        let t = text.trim().to_ascii_lowercase();
        if t == "snoop" {
            return Ok(LiveProtocol::LlTcpAware);
        }
        LiveProtocol::ALL
            .iter()
            .copied()
            .find(|p| p.name() == t)
            .ok_or_else(|| {
                format!(
                    "unknown live protocol '{text}' (known: plain, ll, ll-tcp-aware (snoop), \
                     ll-smart-tcp-aware, split, split-smart; the others change a host's TCP: \
                     run them live with `--scenario FILE` whose host at that end has \
                     stack = \"model\", or in `snooplab run`)"
                )
            })
    }

    /// The simulator's protocol whose base-station agent this is.
    pub fn sim_protocol(self) -> Protocol {
        match self {
            LiveProtocol::Plain => Protocol::E2e,
            LiveProtocol::Ll => Protocol::Ll,
            LiveProtocol::LlTcpAware => Protocol::LlTcpAware,
            LiveProtocol::LlSmartTcpAware => Protocol::LlSmartTcpAware,
            LiveProtocol::Split => Protocol::Split,
            LiveProtocol::SplitSmart => Protocol::SplitSmart,
        }
    }
}

/// Everything one live run needs.
#[derive(Clone, Debug, PartialEq)]
pub struct LiveConfig {
    pub protocol: LiveProtocol,
    /// `lan`, `wan` or `off`, for the report.
    pub env_name: String,
    /// The emulated links; `None` = emulator off (no rate limit, no delay, no errors).
    pub link: Option<LinkConfig>,
    pub profile: LinuxProfile,
    pub cc: CongestionControl,
    /// Lower bound of both hosts' retransmission timeout (route `rto_min`), ms; `None` = the
    /// kernel's 200 ms. Usually the profile's [`LinuxProfile::default_rto_min_ms`].
    pub rto_min_ms: Option<u32>,
    /// The receiver's largest advertised window, bytes (see [`crate::endpoint::Receiver`]).
    pub buffer: u32,
    /// TCP payload per segment without options: the devices' MTU is this plus 40.
    pub mss: u32,
    pub transfer: u64,
    /// Seeds the transfer's bytes.
    pub seed: u64,
    /// Give up after this much real time.
    pub max_time: Time,
    /// Write wired.pcap and wireless.pcap here.
    pub pcap: Option<PathBuf>,
}

/// How far a run is, for a progress display.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub elapsed: Time,
    pub received: u64,
    pub transfer: u64,
}

/// Runs one live transfer: the preset's network ([`preset_scenario`]) on the engine, its two
/// hosts in namespaces of their own (`network_run.rs`). `progress` is called about twice a second.
pub fn run(cfg: &LiveConfig, progress: &mut dyn FnMut(Progress)) -> Result<LiveResult, String> {
    validate(cfg)?;
    let scenario = preset_scenario(cfg);
    let net = scenario.network();
    // First, so that a directory another run is writing is refused before anything is set up;
    // held until the captures are written.
    let (capture, _lock) = match &cfg.pcap {
        Some(dir) => {
            let lock = DirLock::acquire(dir, CAPTURE_LOCK)?;
            (
                Some(Capture::create_files(dir, &net.capture_names())?),
                Some(lock),
            )
        }
        None => (None, None),
    };
    let ncfg = NetworkConfig {
        scenario,
        profile: cfg.profile,
        cc: cfg.cc,
        rto_min_ms: cfg.rto_min_ms,
        max_time: cfg.max_time,
        exec: Vec::new(),
    };
    let transfer = cfg.transfer;
    let r = run_network(&ncfg, capture, &mut |(elapsed, received, _)| {
        progress(Progress {
            elapsed,
            received,
            transfer,
        })
    })?;
    Ok(live_result(cfg, &r))
}

/// Link rates of the emulator-off path (`--env off`): 1 Tb/s, so that a 1500-byte packet takes 12
/// ns on a link, no delay, no framing, no errors: what limits the transfer is the hosts and the
/// engine.
const OFF_RATE_BPS: u64 = 1_000_000_000_000;

/// The paper-000 path as the flags set it: the simulator's preset (crates/sim/src/network/
/// paper000.rs, fh - wired - bs - WaveLAN - mh) with the flags' agent, links, channels, window,
/// segment size and transfer.
pub fn preset_scenario(cfg: &LiveConfig) -> Scenario {
    let env = Env::parse(&cfg.env_name).unwrap_or(Env::Lan);
    let mut sc = Scenario::paper000(cfg.protocol.sim_protocol(), env, cfg.buffer, cfg.seed);
    sc.mss = cfg.mss;
    sc.transfer = cfg.transfer;
    sc.max_time = cfg.max_time;
    match &cfg.link {
        Some(l) => {
            sc.wired = l.wired.clone();
            sc.wavelan = l.wavelan.clone();
            sc.error_every = l.error_every;
            sc.burst = l.burst;
            sc.channel_down = l.down.clone();
            sc.channel_up = l.up.clone();
        }
        None => {
            sc.wired = WiredParams {
                rate_bps: OFF_RATE_BPS,
                delay: 0,
                framing_bytes: 0,
                queue_packets: sc.wired.queue_packets.max(1000),
            };
            sc.wavelan = WavelanParams {
                rate_bps: OFF_RATE_BPS,
                frame_overhead: 0,
                queue_packets: sc.wavelan.queue_packets.max(1000),
            };
            sc.error_every = 0;
        }
    }
    sc
}

/// The error of a run that a stop signal ended; `error` if none arrived. A signal sent to the
/// whole process group can reach an `ip` child of the setup in the moment between its fork and
/// its own process group (`netns::ip`), and the setup then fails: that is the signal's doing.
pub(crate) fn interrupted_or(error: String) -> String {
    match crate::sys::stop_signal() {
        Some(sig) => format!(
            "interrupted by {}; the run's namespaces are removed",
            crate::sys::signal_name(sig)
        ),
        None => error,
    }
}

/// Checks a transfer's segment size and window against what the devices and the profile allow;
/// the message names the offending one and what is allowed.
pub fn check_segment_and_window(
    mss: u32,
    buffer: u32,
    profile: LinuxProfile,
) -> Result<(), String> {
    if !(88..=65495).contains(&mss) {
        return Err(format!(
            "mss {mss} is out of range: use 88 to 65495 (the MTU of the devices is mss + 40)"
        ));
    }
    if !(2048..=(1 << 26)).contains(&buffer) {
        return Err(format!("buffer {buffer} is out of range: use 2k to 64M"));
    }
    if !profile.window_scaling() && buffer > MAX_UNSCALED_WINDOW {
        return Err(format!(
            "buffer {buffer} is more than {MAX_UNSCALED_WINDOW} bytes, the largest window without \
             window scaling, which the {} profile turns off: use at most {MAX_UNSCALED_WINDOW}, \
             or --linux-profile modern",
            profile.name()
        ));
    }
    Ok(())
}

/// Checks the settings; the message names the offending one and what is allowed.
pub fn validate(cfg: &LiveConfig) -> Result<(), String> {
    check_segment_and_window(cfg.mss, cfg.buffer, cfg.profile)?;
    if cfg.transfer == 0 {
        return Err("transfer must be at least 1 byte".into());
    }
    if let Some(ms) = cfg.rto_min_ms {
        if !(1..=MAX_RTO_MIN_MS).contains(&ms) {
            return Err(format!(
                "rto-min {ms} ms is out of range: use 1ms to {}s",
                MAX_RTO_MIN_MS / 1000
            ));
        }
    }
    match &cfg.link {
        Some(l) => check_error_settings(l.error_every, l.burst),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use snooplab_proto::time::SEC;

    fn cfg(profile: LinuxProfile, buffer: u32) -> LiveConfig {
        LiveConfig {
            protocol: LiveProtocol::Plain,
            env_name: "off".into(),
            link: None,
            profile,
            cc: profile.default_cc(),
            rto_min_ms: None,
            buffer,
            mss: 1400,
            transfer: 1,
            seed: 1,
            max_time: SEC,
            pcap: None,
        }
    }

    #[test]
    fn windows_above_64k_need_the_modern_profile() {
        assert!(validate(&cfg(LinuxProfile::Paper, 65_535)).is_ok());
        let e = validate(&cfg(LinuxProfile::Paper, 65_536)).unwrap_err();
        assert!(e.contains("without window scaling"), "{e}");
        assert!(validate(&cfg(LinuxProfile::PaperSack, 1 << 20)).is_err());
        assert!(validate(&cfg(LinuxProfile::Modern, 1 << 20)).is_ok());
    }

    #[test]
    fn the_flags_make_the_simulators_paper000_network() {
        let mut c = cfg(LinuxProfile::Paper, 32 * 1024);
        c.protocol = LiveProtocol::LlTcpAware;
        c.env_name = "wan".into();
        c.link = Some(LinkConfig {
            wired: Env::Wan.wired(),
            wavelan: WavelanParams::default(),
            error_every: 65536,
            burst: 2,
            down: None,
            up: None,
            seed: 7,
        });
        c.seed = 7;
        c.transfer = 1 << 20;
        // what `snooplab run --env wan --protocol ll-tcp-aware --burst 2 --transfer 1M` runs
        let mut want = Scenario::paper000(Protocol::LlTcpAware, Env::Wan, 32 * 1024, 7);
        want.transfer = 1 << 20;
        want.burst = 2;
        want.max_time = c.max_time;
        assert_eq!(preset_scenario(&c).network(), want.network());
        // off: the same path with links that limit nothing and no errors
        let off = preset_scenario(&cfg(LinuxProfile::Paper, 32 * 1024)).network();
        assert_eq!(off.links[0].params.rate_bps, OFF_RATE_BPS);
        assert_eq!(off.cells[0].params.frame_overhead, 0);
        assert_eq!(
            off.cells[0].stations[0].down,
            snooplab_sim::channel::ChannelSpec::None
        );
    }
}
