//! One run of the paper-000 mode (`snooplab live` without `--scenario`): the flags make the
//! simulator's paper-000 preset, which runs on the engine between two kernel hosts as any
//! scenario does (`network_run.rs`), and its result is any live run's (`network_report.rs`),
//! with the preset's path capacity (`result.rs`).

use snooplab_proto::Time;
use snooplab_sim::capture::Capture;
use snooplab_sim::link::WiredParams;
use snooplab_sim::medium::{AccessModel, WavelanParams};
use snooplab_sim::protocol::Protocol;
use snooplab_sim::{Env, Scenario};

pub use crate::config::{validate, LiveConfig};
use crate::dirlock::{DirLock, CAPTURE_LOCK};
use crate::network_report::NetworkResult;
use crate::network_run::{run_network, LiveNetwork, NetworkConfig};
use crate::result::preset_result;

/// The most runs one `snooplab live` invocation plans (protocols x `--runs`): each takes real
/// time (about 50 s for the default 8 MB), so 1000 is about 14 hours, and the plan stays small.
pub const MAX_RUNS: u64 = 1000;

/// The protocols the paper-000 mode runs (`snooplab live --protocol`): those whose every change
/// is the base station's agent ([`Protocol::runs_between_kernels`], the simulator's list), the
/// kernels being both hosts: e2e (the base station only routes), the link-layer family and the
/// split connection.
pub fn live_protocols() -> Vec<Protocol> {
    Protocol::ALL
        .into_iter()
        .filter(|p| p.runs_between_kernels())
        .collect()
}

/// A `--protocol` name as `snooplab run` reads it (its aliases too: `plain` is e2e, `snoop`
/// ll-tcp-aware), refused in one line naming what the mode runs when its hosts would have to
/// run a TCP the kernels do not.
pub fn live_protocol(name: &str) -> Result<Protocol, String> {
    let runs = || {
        let names: Vec<String> = live_protocols()
            .iter()
            .map(|p| match p.def().aliases {
                [] => p.name().to_string(),
                aliases => format!("{} ({})", p.name(), aliases.join(", ")),
            })
            .collect();
        names.join(", ")
    };
    let p = Protocol::parse(name)
        .map_err(|_| format!("unknown protocol '{name}' (live runs: {})", runs()))?;
    if !p.runs_between_kernels() {
        return Err(format!(
            "protocol {} changes a host's TCP, which the Linux hosts do not run; live runs {} \
             (the others run live with `--scenario FILE` whose host at that end has stack = \
             \"model\", or in `snooplab run`)",
            p.name(),
            runs()
        ));
    }
    Ok(p)
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
pub fn run(cfg: &LiveConfig, progress: &mut dyn FnMut(Progress)) -> Result<NetworkResult, String> {
    validate(cfg)?;
    let live = LiveNetwork::check(NetworkConfig {
        scenario: preset_scenario(cfg),
        profile: cfg.profile,
        cc: cfg.cc,
        rto_min_ms: cfg.rto_min_ms,
        max_time: cfg.max_time,
        exec: Vec::new(),
        host_input: cfg.host_input,
    })?;
    // Before anything is set up, so that a directory another run is writing is refused first;
    // held until the captures are written.
    let (capture, _lock) = match &cfg.pcap {
        Some(dir) => {
            let lock = DirLock::acquire(dir, CAPTURE_LOCK)?;
            (
                Some(Capture::create_files(dir, &live.network().capture_names())?),
                Some(lock),
            )
        }
        None => (None, None),
    };
    let transfer = cfg.transfer;
    let r = run_network(&live, capture, &mut |(elapsed, received, _)| {
        progress(Progress {
            elapsed,
            received,
            transfer,
        })
    })?;
    Ok(preset_result(cfg, r))
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
    let mut sc = Scenario::paper000(cfg.protocol, env, cfg.buffer, cfg.seed);
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
            // no radio: nothing waits for a turn, as over a wire (docs/live.md, "The emulator
            // off")
            sc.access = AccessModel::FullDuplex;
        }
    }
    sc
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link_config::LinkConfig;
    use crate::profile::LinuxProfile;
    use snooplab_proto::time::SEC;
    use snooplab_sim::scenario::PAPER000_HOST;

    fn cfg(profile: LinuxProfile, buffer: u32) -> LiveConfig {
        LiveConfig {
            protocol: Protocol::E2e,
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
            host_input: crate::host_input::HostInput::Auto,
        }
    }

    #[test]
    fn live_takes_runs_names_and_refuses_those_it_cannot_run_in_one_line() {
        assert_eq!(live_protocol("plain"), Ok(Protocol::E2e));
        assert_eq!(live_protocol("e2e"), Ok(Protocol::E2e));
        assert_eq!(live_protocol("snoop"), Ok(Protocol::LlTcpAware));
        assert_eq!(live_protocol("split-smart"), Ok(Protocol::SplitSmart));
        let e = live_protocol("e2e-smart").unwrap_err();
        assert!(
            e.starts_with("protocol e2e-smart changes a host's TCP"),
            "{e}"
        );
        assert!(
            e.contains("live runs e2e (reno, plain), ll, ll-tcp-aware (snoop), "),
            "{e}"
        );
        assert!(!e.contains('\n'), "{e}");
        let e = live_protocol("moon").unwrap_err();
        assert!(
            e.starts_with("unknown protocol 'moon' (live runs: e2e"),
            "{e}"
        );
        assert_eq!(live_protocols().len(), 8);
    }

    #[test]
    fn buffers_follow_the_profiles_limits() {
        // the paper profiles emulate paper 000's hosts: their limit, in run's words
        let bsd = snooplab_sim::scenario::check_buffer(4 << 20, &PAPER000_HOST.buffer_limit());
        for p in [LinuxProfile::Paper, LinuxProfile::PaperSack] {
            let e = validate(&cfg(p, 4 << 20)).unwrap_err();
            assert_eq!(
                e,
                "buffer 4M is more than the bsdos-2.1 hosts' limit of 256k (4.4BSD sb_max); use \
                 2k to 256k"
            );
            assert_eq!(Err(e), bsd);
        }
        assert!(validate(&cfg(LinuxProfile::Modern, 4 << 20)).is_ok());
        assert!(validate(&cfg(LinuxProfile::Modern, 64 << 20)).is_ok());
        let e = validate(&cfg(LinuxProfile::Modern, (64 << 20) + 1)).unwrap_err();
        assert!(
            e.contains("more than the modern hosts' limit of 64M"),
            "{e}"
        );
        // one floor, the kernels', for every profile
        for p in LinuxProfile::ALL {
            let e = validate(&cfg(p, 2047)).unwrap_err();
            assert!(e.contains("less than the minimum of 2k"), "{e}");
            assert!(validate(&cfg(p, 2048)).is_ok());
        }
    }

    #[test]
    fn windows_above_64k_run_as_the_modelled_hosts_run_them() {
        // no profile refuses a buffer the hosts take: without window scaling the kernel, as the
        // modelled hosts, advertises at most 65,535 of it
        for p in LinuxProfile::ALL {
            assert!(validate(&cfg(p, 65_536)).is_ok());
            assert!(validate(&cfg(p, 256 << 10)).is_ok());
        }
        assert!(validate(&cfg(LinuxProfile::PaperSack, (256 << 10) + 1)).is_err());
        assert!(validate(&cfg(LinuxProfile::Modern, 1 << 20)).is_ok());
    }

    #[test]
    fn the_flags_make_the_simulators_paper000_network() {
        let mut c = cfg(LinuxProfile::Paper, 32 * 1024);
        c.protocol = Protocol::LlTcpAware;
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
        // no radio: no station waits for a turn (the medium's `full_duplex.rs`)
        assert_eq!(off.cells[0].access, AccessModel::FullDuplex);
        assert_eq!(want.network().cells[0].access, AccessModel::Turns);
        assert_eq!(
            off.cells[0].stations[0].down,
            snooplab_sim::channel::ChannelSpec::None
        );
    }
}
