//! The configuration of a live run and its checks, below everything that runs one: a scenario's
//! run ([`NetworkConfig`], `network_run.rs`) and the paper-000 preset's ([`LiveConfig`],
//! `run.rs`), the checks both make, and the one text of an interrupted run.

use std::path::PathBuf;

use snooplab_proto::Time;
use snooplab_sim::channel::check_error_settings;
use snooplab_sim::protocol::Protocol;
use snooplab_sim::scenario::check_buffer;
use snooplab_sim::Scenario;

use crate::exec::ExecSpec;
use crate::host_input::HostInput;
use crate::link_config::LinkConfig;
use crate::profile::{CongestionControl, LinuxProfile, MAX_RTO_MIN_MS};

/// IPv4 and TCP headers without options: the MTU is the MSS plus this.
pub(crate) const HEADER_BYTES: u32 = 40;

/// Everything one live run needs.
#[derive(Clone, Debug, PartialEq)]
pub struct LiveConfig {
    /// What the base station runs: one of [`live_protocols`].
    pub protocol: Protocol,
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
    /// Whether the hosts take in their packets on the other cores (`host_input.rs`).
    pub host_input: HostInput,
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

/// Checks a transfer's segment size and window against what the devices and the profile allow
/// (the buffer by the simulator's one rule, [`check_buffer`], with the profile's limit); the
/// message names the offending one and what is allowed.
pub(crate) fn check_segment_and_window(
    mss: u32,
    buffer: u32,
    profile: LinuxProfile,
) -> Result<(), String> {
    if !(88..=65495).contains(&mss) {
        return Err(format!(
            "mss {mss} is out of range: use 88 to 65495 (the MTU of the devices is mss + 40)"
        ));
    }
    check_buffer(buffer, &profile.buffer_limit())
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

/// Everything a scenario run needs besides the scenario.
#[derive(Clone, Debug)]
pub struct NetworkConfig {
    pub scenario: Scenario,
    pub profile: LinuxProfile,
    pub cc: CongestionControl,
    /// Route `rto_min` of every host, ms; `None` = the kernel's.
    pub rto_min_ms: Option<u32>,
    /// Give up after this much real time.
    pub max_time: Time,
    /// The user's programs to run in the hosts instead of the flows (`exec.rs`); empty = the
    /// flows, carried by snooplab's sender and receiver.
    pub exec: Vec<ExecSpec>,
    /// Whether the hosts take in their packets on the other cores (`host_input.rs`).
    pub host_input: HostInput,
}

impl NetworkConfig {
    /// `scenario` on the paper profile's kernels (Reno, its `rto_min`), with no `--exec`: what
    /// `snooplab live --scenario FILE` runs without other flags.
    pub fn paper(scenario: Scenario, max_time: Time) -> NetworkConfig {
        NetworkConfig {
            scenario,
            profile: LinuxProfile::Paper,
            cc: CongestionControl::Reno,
            rto_min_ms: LinuxProfile::Paper.default_rto_min_ms(),
            max_time,
            exec: Vec::new(),
            host_input: HostInput::Auto,
        }
    }
}

/// The time since the start, the bytes received so far over all flows, and the bytes of all
/// flows (for progress).
pub(crate) type NetworkProgress = (Time, u64, u64);
