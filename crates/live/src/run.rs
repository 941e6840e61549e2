//! One live run: set up the testbed, start the receiver and the sender in their namespaces, run the
//! base station until the transfer ends, tear everything down, and report as the simulator does.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use serde::Serialize;
use snooplab_proto::agent::Agent;
use snooplab_proto::time::{as_secs_f64, MS};
use snooplab_proto::Time;
use snooplab_sim::agents::forwarding_agent;
use snooplab_sim::channel::check_error_settings;
use snooplab_sim::protocol::Protocol;

use crate::emulator::{Emulator, LinkConfig};
use crate::endpoint::{self, Receiver, ReceiverReport, SenderReport};
use crate::netns;
use crate::packet::LivePacket;
use crate::profile::{CongestionControl, LinuxProfile, MAX_RTO_MIN_MS};
use crate::snmp::{self, TcpCounters};
use crate::station::{BaseStation, Captures, Ending, Lateness, StationCounters};
use crate::testbed::{Testbed, TestbedConfig, MH_ADDR};

/// The most runs one `snooplab live` invocation plans (protocols x `--runs`): each takes real
/// time (about 50 s for the default 8 MB), so 1000 is about 14 hours, and the plan stays small.
pub const MAX_RUNS: u64 = 1000;

/// The largest window a TCP header carries without window scaling (RFC 7323 section 2).
pub const MAX_UNSCALED_WINDOW: u32 = 65_535;

/// IPv4 and TCP headers without options: the MTU is the MSS plus this.
pub const HEADER_BYTES: u32 = 40;

/// The agents the live base station runs (paper 000 Table I's link-layer family and no agent).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LiveProtocol {
    /// Forwarding only: the E2E configurations.
    Plain,
    Ll,
    LlTcpAware,
    /// Runs, but Linux receivers put no SMART option on their ACKs, so the selective switch has no
    /// information to act on and the agent behaves as `LlTcpAware` (see the README).
    LlSmartTcpAware,
}

impl LiveProtocol {
    pub const ALL: [LiveProtocol; 4] = [
        LiveProtocol::Plain,
        LiveProtocol::Ll,
        LiveProtocol::LlTcpAware,
        LiveProtocol::LlSmartTcpAware,
    ];

    pub fn name(self) -> &'static str {
        match self {
            LiveProtocol::Plain => "plain",
            LiveProtocol::Ll => "ll",
            LiveProtocol::LlTcpAware => "ll-tcp-aware",
            LiveProtocol::LlSmartTcpAware => "ll-smart-tcp-aware",
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
                     ll-smart-tcp-aware; the end-to-end variants need the simulator's TCP: use \
                     `snooplab run`)"
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
        }
    }

    /// The agent object, the simulator's own.
    pub fn agent(self) -> Result<Box<dyn Agent<LivePacket>>, String> {
        forwarding_agent(self.sim_protocol().agent())
            .ok_or_else(|| format!("{} has no forwarding agent", self.name()))
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

/// The result of a live run (`live --json`): the simulator's keys where they apply, plus what the
/// endpoints' kernels and the base station counted.
#[derive(Clone, Debug, Serialize)]
pub struct LiveResult {
    pub mode: &'static str,
    pub protocol: String,
    pub env: String,
    pub linux_profile: String,
    pub cc: String,
    /// Route `rto_min` of both hosts, ms; null = the kernel's (200 ms).
    pub rto_min_ms: Option<u32>,
    /// Route `initcwnd` of both hosts, segments; null = the kernel's (10).
    pub initcwnd: Option<u32>,
    /// The sender's retransmission timeout when the transfer ended (`tcpi_rto`), ms.
    pub sender_rto_ms: f64,
    pub buffer_bytes: u32,
    /// The receiver's `TCP_WINDOW_CLAMP`: `buffer_bytes`, rounded down to a multiple of the window
    /// scale unit where the buffer needs window scaling. No advertised window exceeds it; without
    /// window scaling Linux also rounds the window down to whole segments (32,200 for 32k at MSS
    /// 1400). See [`crate::endpoint::Receiver`].
    pub window_clamp_bytes: u32,
    /// Times the kernel replaced the receiver's window clamp during the transfer and the receiver
    /// set it back (0 expected).
    pub window_clamp_restored: u32,
    /// MSS the sender used (`TCP_INFO`).
    pub mss: u32,
    pub transfer_bytes: u64,
    pub error_every_bytes: u64,
    pub burst: u32,
    pub seed: u64,
    /// Transfer bytes * 8 / (last byte received - connection established), Mb/s.
    pub throughput_mbps: f64,
    /// Best payload rate the emulated path allows, Mb/s: the slower of the wired link and the
    /// wireless hop (back-to-back frames of the MSS in use and one ACK frame per two of them on the
    /// half-duplex medium); 0 with the emulator off.
    pub capacity_mbps: f64,
    /// Transfer bytes / payload bytes the base station sent to the mobile host, %.
    pub wireless_goodput_pct: f64,
    /// Transfer bytes / payload bytes that reached the base station from the fixed host, %.
    pub wired_goodput_pct: f64,
    pub duration_s: f64,
    /// Retransmission-timer expirations at the sender (`TCPTimeouts` of the fixed host).
    pub timeouts: u64,
    /// Fast recoveries the sender entered (`TCPRenoRecovery` + `TCPSackRecovery`).
    pub fast_retransmits: u64,
    /// Retransmissions by the base station.
    pub local_retransmissions: u64,
    /// Duplicate ACKs the base station kept from the sender.
    pub dupacks_suppressed: u64,
    /// ACKs the base station made up (snoop's answer to data already acknowledged).
    pub generated_acks: u64,
    pub frames_corrupted_down: u64,
    pub frames_corrupted_up: u64,
    /// The channel models of each direction (`1/64k`, `ge 0-1/1k 1s-50ms`, `trace FILE`, `none`),
    /// and the frames each passed.
    pub channel_down: String,
    pub channel_up: String,
    pub frames_down: u64,
    pub frames_up: u64,
    pub wireless_data_frames: u64,
    pub queue_drops: u64,
    /// `tcpi_total_retrans` of the sender's socket.
    pub sender_retransmitted_segments: u64,
    /// `TcpRetransSegs` of the fixed host's namespace.
    pub fh_tcp_retrans_segs: u64,
    /// `TcpInCsumErrors` of the mobile host's namespace: the corrupted frames its kernel dropped.
    pub mh_tcp_in_csum_errors: u64,
    pub fh_tcp: TcpCounters,
    pub mh_tcp: TcpCounters,
    /// The receiver's digest of the bytes equals the sender's, and the byte counts agree.
    pub integrity_ok: bool,
    /// Packets through the base station per second (both directions).
    pub bs_packets_per_s: f64,
    /// Throughput in Gb/s, for the speed benchmark.
    pub throughput_gbps: f64,
    pub station: StationCounters,
    /// Namespaces of crashed earlier runs removed before this one.
    pub leftovers_removed: Vec<String>,
    /// How late the base station released the emulator's packets against their scheduled times
    /// (all zero with the emulator off); see [`crate::station::Lateness`].
    pub emulator_lateness: Lateness,
    /// What makes this result less than it looks: an emulator that ran late (more than
    /// `LATE_WARN_FRACTION` of its packets more than `LATE_THRESHOLD` late), a window clamp the
    /// kernel changed. Empty for a clean run.
    pub warnings: Vec<String>,
}

/// Runs one live transfer. `progress` is called about twice a second.
pub fn run(cfg: &LiveConfig, progress: &mut dyn FnMut(Progress)) -> Result<LiveResult, String> {
    validate(cfg)?;
    // First, so that a directory another run is writing is refused before anything is set up.
    let capture = match &cfg.pcap {
        Some(dir) => Some(Captures::create(dir)?),
        None => None,
    };
    let leftovers_removed = netns::sweep_leftovers()?;
    let testbed = Testbed::create(&TestbedConfig {
        profile: cfg.profile,
        mtu: cfg.mss + HEADER_BYTES,
        rto_min_ms: cfg.rto_min_ms,
        initcwnd: cfg.profile.initcwnd(),
    })
    .map_err(interrupted_or)?;
    let receiver = Receiver::listen(&testbed.mh, MH_ADDR, cfg.buffer).map_err(interrupted_or)?;
    let mut station = BaseStation::new(
        &testbed.fh_tun,
        &testbed.mh_tun,
        cfg.protocol.agent()?,
        Emulator::new(cfg.link.as_ref()),
        capture,
    );
    let stop = AtomicBool::new(false);
    let finished = AtomicUsize::new(0);
    let received = AtomicU64::new(0);
    let (ending, rx, tx) = std::thread::scope(|s| {
        let rx = s.spawn(|| {
            let r = receiver.run(&stop, &received);
            finished.fetch_add(1, Ordering::SeqCst);
            r
        });
        let tx = s.spawn(|| {
            let r = endpoint::send(&testbed.fh, MH_ADDR, cfg.cc, cfg.transfer, cfg.seed, &stop);
            finished.fetch_add(1, Ordering::SeqCst);
            r
        });
        let done = || finished.load(Ordering::SeqCst) == 2;
        let mut tick = |elapsed| {
            progress(Progress {
                elapsed,
                received: received.load(Ordering::Relaxed),
                transfer: cfg.transfer,
            })
        };
        let ending = station.run(cfg.max_time, &done, 500 * MS, &mut tick);
        // However the loop ended, the endpoints stop now (they look every 100 ms).
        stop.store(true, Ordering::SeqCst);
        let rx = rx
            .join()
            .unwrap_or_else(|_| Err("the receiver thread panicked".into()));
        let tx = tx
            .join()
            .unwrap_or_else(|_| Err("the sender thread panicked".into()));
        (ending, rx, tx)
    });
    let ending = ending?;
    match ending {
        Ending::Done => {}
        Ending::Interrupted => return Err(interrupted_or(String::new())),
        Ending::TimedOut => {
            return Err(format!(
                "the transfer did not finish within {} s ({} of {} bytes received); raise \
                 --max-time",
                as_secs_f64(cfg.max_time),
                received.load(Ordering::Relaxed),
                cfg.transfer
            ))
        }
    }
    let rx = rx.map_err(|e| format!("receiver: {e}"))?;
    let tx = tx.map_err(|e| format!("sender: {e}"))?;
    // The kernels' counters once the base station has stopped: nothing more reaches either host.
    let hosts = Hosts {
        fh: snmp::read(&testbed.fh)?,
        mh: snmp::read(&testbed.mh)?,
    };
    let result = report(cfg, &station, &rx, &tx, &hosts, leftovers_removed);
    station.finish()?;
    Ok(result)
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

fn pct(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

/// The TCP counters of both namespaces at the end of a run.
struct Hosts {
    fh: TcpCounters,
    mh: TcpCounters,
}

fn report(
    cfg: &LiveConfig,
    station: &BaseStation,
    rx: &ReceiverReport,
    tx: &SenderReport,
    hosts: &Hosts,
    leftovers_removed: Vec<String>,
) -> LiveResult {
    let st = station.counters();
    let lateness = station.lateness();
    let mut warnings: Vec<String> = lateness.warning("the emulator").into_iter().collect();
    if rx.clamp_restored > 0 {
        warnings.push(format!(
            "the kernel changed the receiver's window clamp {} times during the transfer (each \
             restored at the next read): a window may have exceeded --buffer in between",
            rx.clamp_restored
        ));
    }
    let agent = station.agent_counters();
    let links = station.link_counters();
    let end = rx.last_byte.unwrap_or(tx.finished);
    let duration = end.saturating_duration_since(tx.started).as_nanos() as Time;
    let secs = as_secs_f64(duration.max(1));
    let bits = rx.bytes as f64 * 8.0;
    let packets = st.packets_from_fh + st.packets_from_mh;
    // The segments' real size: options (timestamps) take payload room, not MTU.
    let mss = tx.tcp_info.snd_mss.clamp(1, cfg.mss);
    let headers = cfg.mss + HEADER_BYTES - mss;
    let (error_every, burst, capacity) = match &cfg.link {
        Some(l) => (
            l.error_every,
            l.burst,
            l.path_capacity_bps(mss, headers, 2) / 1e6,
        ),
        None => (0, 1, 0.0),
    };
    LiveResult {
        mode: "live",
        protocol: cfg.protocol.name().into(),
        env: cfg.env_name.clone(),
        linux_profile: cfg.profile.name().into(),
        cc: tx.cc.clone(),
        rto_min_ms: cfg.rto_min_ms,
        initcwnd: cfg.profile.initcwnd(),
        sender_rto_ms: f64::from(tx.tcp_info.rto_us) / 1e3,
        buffer_bytes: cfg.buffer,
        window_clamp_bytes: endpoint::window_clamp(cfg.buffer),
        window_clamp_restored: rx.clamp_restored,
        mss: tx.tcp_info.snd_mss,
        transfer_bytes: cfg.transfer,
        error_every_bytes: error_every,
        burst,
        seed: cfg.seed,
        throughput_mbps: bits / secs / 1e6,
        capacity_mbps: capacity,
        wireless_goodput_pct: pct(rx.bytes, st.wireless_payload_bytes),
        wired_goodput_pct: pct(rx.bytes, st.wired_payload_bytes),
        duration_s: secs,
        timeouts: hosts.fh.timeouts,
        fast_retransmits: hosts.fh.reno_recovery + hosts.fh.sack_recovery,
        local_retransmissions: agent.get("local_retransmissions"),
        dupacks_suppressed: agent.get("dupacks_suppressed"),
        generated_acks: agent.get("generated_acks"),
        frames_corrupted_down: links.frames_corrupted_down,
        frames_corrupted_up: links.frames_corrupted_up,
        channel_down: channel_labels(cfg.link.as_ref()).0,
        channel_up: channel_labels(cfg.link.as_ref()).1,
        frames_down: links.frames_down,
        frames_up: links.frames_up,
        wireless_data_frames: st.wireless_data_frames,
        queue_drops: links.queue_drops,
        sender_retransmitted_segments: u64::from(tx.tcp_info.total_retrans),
        fh_tcp_retrans_segs: hosts.fh.retrans_segs,
        mh_tcp_in_csum_errors: hosts.mh.in_csum_errors,
        fh_tcp: hosts.fh,
        mh_tcp: hosts.mh,
        integrity_ok: rx.bytes == tx.bytes && rx.bytes == cfg.transfer && rx.digest == tx.digest,
        bs_packets_per_s: packets as f64 / secs,
        throughput_gbps: bits / secs / 1e9,
        station: st,
        leftovers_removed,
        emulator_lateness: lateness,
        warnings,
    }
}

/// The channel models of the emulated wireless hop, as labels; `off` without the emulator.
fn channel_labels(link: Option<&LinkConfig>) -> (String, String) {
    match link {
        None => ("off".into(), "off".into()),
        Some(l) => {
            let (down, up) = l.channels();
            (down.label(), up.label())
        }
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
}
