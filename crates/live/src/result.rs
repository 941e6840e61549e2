//! The result of a run of the paper-000 mode (`live --json`): the simulator's keys where they
//! apply, plus what the hosts' kernels, the engine and its driver counted. It is made from the
//! engine's result for the preset's network (`network_report.rs`).

use serde::Serialize;

use crate::config::{LiveConfig, HEADER_BYTES};
use crate::lateness::Lateness;
use crate::link_config::LinkConfig;
use crate::network_report::NetworkResult;
use crate::snmp::TcpCounters;
use crate::tun_driver::HostTraffic;
use snooplab_sim::stats::pct;

/// What the base station counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct StationCounters {
    /// Packets read from the fixed host's and the mobile host's devices.
    pub packets_from_fh: u64,
    pub packets_from_mh: u64,
    /// Packets written to each device.
    pub packets_to_fh: u64,
    pub packets_to_mh: u64,
    /// IP bytes read from both devices.
    pub bytes_in: u64,
    /// Read from a device and dropped: not IPv4.
    pub rejected_not_ipv4: u64,
    /// Read from a device and dropped: truncated, bad header lengths or checksum, bad TCP option.
    pub rejected_malformed: u64,
    /// IPv4 packets that are not TCP (ICMP, UDP), passed through untouched.
    pub passed_non_tcp: u64,
    /// TCP payload bytes that arrived from the fixed host.
    pub wired_payload_bytes: u64,
    /// TCP payload bytes sent to the mobile host (corrupted frames and retransmissions included).
    pub wireless_payload_bytes: u64,
    /// Data frames sent to the mobile host.
    pub wireless_data_frames: u64,
    /// Frames the channel corrupted that were handed to the mobile host's kernel (with a broken
    /// checksum): its `TcpInCsumErrors` must count exactly these.
    pub corrupted_to_mh: u64,
    /// Frames from the mobile host the channel corrupted, discarded by the base station.
    pub corrupted_from_mh: u64,
    /// Writes a device refused.
    pub write_errors: u64,
    /// Most segments the agent held at once.
    pub agent_max_held_segments: u32,
    /// Most payload bytes the agent held at once.
    pub agent_max_held_bytes: u64,
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
    /// A split run's relay sender, the base station's own TCP towards the mobile host (the split
    /// connection's wireless half, paper 000 section III-C), as `snooplab run --json` gives it;
    /// null for the other protocols.
    pub relay: Option<snooplab_sim::metrics::RelayCounters>,
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
    /// How late the engine released its events against their times (the name is the one the
    /// JSON has always had); see [`crate::lateness::Lateness`].
    pub emulator_lateness: Lateness,
    /// What makes this result less than it looks: an emulator that ran late (more than
    /// `LATE_WARN_FRACTION` of its packets more than `LATE_THRESHOLD` late), a window clamp the
    /// kernel changed. Empty for a clean run.
    pub warnings: Vec<String>,
}

/// The channel models of the wireless hop, as labels; `off` without link models.
fn channel_labels(link: Option<&LinkConfig>) -> (String, String) {
    match link {
        None => ("off".into(), "off".into()),
        Some(l) => {
            let (down, up) = l.channels();
            (down.label(), up.label())
        }
    }
}

/// A host's traffic and kernel counters, by its name in the preset.
fn host(r: &NetworkResult, name: &str) -> (HostTraffic, TcpCounters) {
    let t = r.live.traffic.iter().find(|h| h.0 == name).map(|h| h.1);
    let c = r.live.hosts.iter().find(|h| h.0 == name).map(|h| h.1);
    (t.unwrap_or_default(), c.unwrap_or_default())
}

/// The paper-000 mode's result from the engine's.
pub fn live_result(cfg: &LiveConfig, r: &NetworkResult) -> LiveResult {
    let f = r.run.flow();
    let l = r.live.flows.first();
    let ((fh, fh_tcp), (mh, mh_tcp)) = (host(r, "fh"), host(r, "mh"));
    let cell = r.run.cells.first();
    let channel = cell.and_then(|c| c.channels.first());
    let drv = &r.live.driver;
    let received = l.map_or(0, |l| l.received_bytes);
    let secs = f.duration_s.max(1e-9);
    // the segments' real size: options (timestamps) take payload room, not MTU
    let mss = f.mss.clamp(1, cfg.mss);
    let headers = cfg.mss + HEADER_BYTES - mss;
    let (error_every, burst, capacity) = match &cfg.link {
        Some(k) => (
            k.error_every,
            k.burst,
            k.path_capacity_bps(mss, headers, 2) / 1e6,
        ),
        None => (0, 1, 0.0),
    };
    let (channel_down, channel_up) = channel_labels(cfg.link.as_ref());
    LiveResult {
        mode: "live",
        protocol: cfg.protocol.name().into(),
        env: cfg.env_name.clone(),
        linux_profile: cfg.profile.name().into(),
        cc: l.map_or_else(String::new, |l| l.cc.clone()),
        rto_min_ms: cfg.rto_min_ms,
        initcwnd: cfg.profile.initcwnd(),
        sender_rto_ms: l.map_or(0.0, |l| l.sender_rto_ms),
        buffer_bytes: cfg.buffer,
        window_clamp_bytes: crate::endpoint::window_clamp(cfg.buffer),
        window_clamp_restored: l.map_or(0, |l| l.window_clamp_restored),
        mss: f.mss,
        transfer_bytes: cfg.transfer,
        error_every_bytes: error_every,
        burst,
        seed: cfg.seed,
        throughput_mbps: f.throughput_mbps,
        capacity_mbps: capacity,
        wireless_goodput_pct: pct(received, mh.payload_out),
        wired_goodput_pct: pct(received, fh.payload_in),
        duration_s: secs,
        timeouts: fh_tcp.timeouts,
        fast_retransmits: fh_tcp.reno_recovery + fh_tcp.sack_recovery,
        local_retransmissions: r.run.agent_total("local_retransmissions"),
        dupacks_suppressed: r.run.agent_total("dupacks_suppressed"),
        generated_acks: r.run.agent_total("generated_acks"),
        frames_corrupted_down: cell.map_or(0, |c| c.frames_corrupted_down),
        frames_corrupted_up: cell.map_or(0, |c| c.frames_corrupted_up),
        channel_down,
        channel_up,
        frames_down: channel.map_or(0, |c| c.frames_down),
        frames_up: channel.map_or(0, |c| c.frames_up),
        wireless_data_frames: mh.data_out,
        queue_drops: r.run.drops.queues,
        sender_retransmitted_segments: f.sender_retransmitted_segments,
        relay: f.relay.clone(),
        fh_tcp_retrans_segs: fh_tcp.retrans_segs,
        mh_tcp_in_csum_errors: mh_tcp.in_csum_errors,
        fh_tcp,
        mh_tcp,
        integrity_ok: l.is_some_and(|l| l.integrity_ok),
        bs_packets_per_s: (fh.packets_in + mh.packets_in) as f64 / secs,
        throughput_gbps: f.throughput_mbps / 1e3,
        station: StationCounters {
            packets_from_fh: fh.packets_in,
            packets_from_mh: mh.packets_in,
            packets_to_fh: fh.packets_out,
            packets_to_mh: mh.packets_out,
            bytes_in: drv.bytes_in,
            rejected_not_ipv4: drv.rejected_not_ipv4,
            rejected_malformed: drv.rejected_malformed,
            passed_non_tcp: drv.passed_non_tcp,
            wired_payload_bytes: fh.payload_in,
            wireless_payload_bytes: mh.payload_out,
            wireless_data_frames: mh.data_out,
            corrupted_to_mh: mh.corrupted_out,
            corrupted_from_mh: cell.map_or(0, |c| c.frames_corrupted_up),
            write_errors: drv.write_errors,
            agent_max_held_segments: r.live.agent_max_held_segments,
            agent_max_held_bytes: r.live.agent_max_held_bytes,
        },
        leftovers_removed: r.live.leftovers_removed.clone(),
        emulator_lateness: r.live.lateness,
        warnings: r.live.warnings.clone(),
    }
}
