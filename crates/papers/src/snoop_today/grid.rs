//! The study's configurations: paper 000's testbed with one of three senders (the 1996 BSD/OS
//! Reno, the same host with SACK, today's Linux), one base-station agent, one path and one
//! channel; each part of the study varies some of these (docs/snoop-today.md).

use snooplab_proto::tcp::HostPreset;
use std::sync::{Arc, OnceLock};

use snooplab_sim::channel::{ChannelSpec, ChannelTrace};
use snooplab_sim::protocol::Protocol;
use snooplab_sim::scenario::Scenario;
use snooplab_sim::Job;

use super::Part;

pub use crate::kernel_check::grid::Path;
use crate::kernel_check::grid::GILBERT_ELLIOTT;

/// One sending host (and its receiver: every TCP of a run is the same host).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sender {
    /// The name in tables and JSON.
    pub name: &'static str,
    pub preset: HostPreset,
    /// Negotiate SACK whatever the agent (the host detail `sack = on`): the BSD host then
    /// recovers as Fall and Floyd's SACK sender (`sack-recovery = fall-floyd`), the SACK TCP of
    /// the papers' time.
    pub sack: bool,
}

/// Paper 000's hosts: BSD/OS 2.1's Reno.
pub const RENO_1996: Sender = Sender {
    name: "reno-1996",
    preset: HostPreset::Bsdos21,
    sack: false,
};

/// The same host with SACK (Fall and Floyd's recovery: the E2E-SACK of paper 000, and the SACK
/// sender of ns-2 that Vangala and Labrador measured snoop against).
pub const SACK_1996: Sender = Sender {
    name: "sack-1996",
    preset: HostPreset::Bsdos21,
    sack: true,
};

impl Sender {
    /// Whether the host scales its windows (RFC 7323), so that a buffer above 64 KB widens them.
    pub fn scales_windows(&self) -> bool {
        self.preset.profile().window_scaling
    }
}

/// Today's Linux (`--host`: the `linux` profile, CUBIC, by default).
pub fn today(preset: HostPreset) -> Sender {
    Sender {
        name: if preset == HostPreset::Linux {
            "linux-cubic"
        } else {
            preset.name()
        },
        preset,
        sack: false,
    }
}

/// What the base station runs: no agent, snoop (LL-TCP-AWARE), snoop with SMART's selective
/// information (LL-SMART-TCP-AWARE), and the split connection (SPLIT-SMART), paper 000's best of
/// each family; then the two snoops for a SACK sender (docs/snoop-sack.md): Vangala and
/// Labrador's SACK-aware snoop as we read it, and ours, which hides the SACK blocks of the holes
/// it repairs.
pub const AGENTS: [Protocol; 6] = [
    Protocol::E2e,
    Protocol::LlTcpAware,
    Protocol::LlSmartTcpAware,
    Protocol::SplitSmart,
    Protocol::SnoopSackVl,
    Protocol::SnoopSack,
];

/// What corrupts the wireless hop's frames, each direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Channel {
    /// Bit errors with exponential gaps of this mean, in bytes (paper 000's model).
    Every(u64),
    /// The same, each error destroying `frames` frames in a row (paper 000's Table V).
    Burst { every: u64, frames: u32 },
    /// The kernel check's Gilbert-Elliott channel ([`GILBERT_ELLIOTT`]).
    GilbertElliott,
    /// The trace the project ships, replayed ([`REPLAYED_TRACE`]): its bad periods fade the link
    /// both ways at once.
    Replayed,
}

/// The channel trace the project ships (`examples/fading.trace`: 600 s of a Gilbert-Elliott
/// channel's bad periods, made by `snooplab channel-trace`, docs/channels.md), built in.
pub const REPLAYED_TRACE: &str = include_str!("../../../../examples/fading.trace");

/// [`REPLAYED_TRACE`] read once; the study's plan refuses to run the `bursts` part if it does not
/// read (it always does: a test holds it).
pub fn replayed_trace() -> Result<Arc<ChannelTrace>, String> {
    static TRACE: OnceLock<Result<Arc<ChannelTrace>, String>> = OnceLock::new();
    TRACE
        .get_or_init(|| ChannelTrace::parse(REPLAYED_TRACE, "examples/fading.trace").map(Arc::new))
        .clone()
}

impl Channel {
    pub fn name(self) -> String {
        match self {
            Channel::Every(b) => format!("1/{}", kb(b)),
            Channel::Burst { every, frames } => format!("1/{} x{frames}", kb(every)),
            Channel::GilbertElliott => "gilbert-elliott".into(),
            Channel::Replayed => "fading.trace".into(),
        }
    }

    fn apply(self, sc: &mut Scenario) {
        match self {
            Channel::Every(b) => sc.error_every = b,
            Channel::Burst { every, frames } => {
                sc.error_every = every;
                sc.burst = frames;
            }
            Channel::GilbertElliott => {
                let ge = ChannelSpec::GilbertElliott(GILBERT_ELLIOTT);
                sc.channel_down = Some(ge.clone());
                sc.channel_up = Some(ge);
            }
            Channel::Replayed => {
                if let Ok(t) = replayed_trace() {
                    sc.channel_down = Some(ChannelSpec::Trace(t.clone()));
                    sc.channel_up = Some(ChannelSpec::Trace(t));
                }
            }
        }
    }
}

/// `16 KB`, `1 MB`.
pub fn kb(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MB", bytes >> 20)
    } else {
        format!("{} KB", bytes >> 10)
    }
}

/// The mean bytes between errors of the `errors` part: one per 4 KB to one per 1 MB.
pub const ERROR_EVERY: [u64; 5] = [4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20];

/// The transfers of the `transfers` part: a small Web object to paper 000's 8 MB.
pub const TRANSFERS: [u64; 4] = [10 << 10, 100 << 10, 1 << 20, 8 << 20];

/// The channels of the `bursts` part, at one error event per 64 KB where it has a rate.
pub const BURSTS: [Channel; 4] = [
    Channel::Burst {
        every: 64 << 10,
        frames: 2,
    },
    Channel::Burst {
        every: 64 << 10,
        frames: 4,
    },
    Channel::GilbertElliott,
    Channel::Replayed,
];

/// Every run's window: 64 KB, the most a BSD host of 1996 could use without window scaling, so
/// that the senders differ in their TCP, not in their buffers.
pub const BUFFER: u32 = 64 * 1024;
/// The transfer of the `errors`, `bursts` and `buffers` parts (the kernel check's).
pub const TRANSFER: u64 = 2 << 20;

/// Mobile hosts in the cell in the `flows` part (issue 51: "1 to 20 flows in a cell").
pub const FLOWS: [usize; 3] = [1, 5, 20];

/// The error rates of the `flows` and `buffers` parts: where snoop's gain for today's sender is
/// large (16 KB) and where it fades (64 KB) in the `errors` part.
pub const FLOW_CHANNELS: [u64; 2] = [16 << 10, 64 << 10];

/// Each mobile host's transfer in the `flows` part: 512 KB, so that 20 flows move 10 MB, more than
/// the 8 MB of paper 000's runs, and the part stays within its share of the study's time
/// (docs/snoop-today.md, "The setting").
pub const FLOW_TRANSFER: u64 = 1 << 20;

/// The socket buffers of the `buffers` part for a sender that scales its windows: paper 000's 64
/// KB to 4 MB (issue 51).
pub const BUFFERS: [u32; 4] = [64 << 10, 256 << 10, 1 << 20, 4 << 20];

/// One configuration: everything but the seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    pub sender: Sender,
    pub agent: Protocol,
    pub path: Path,
    pub channel: Channel,
    pub transfer: u64,
    /// Mobile hosts in the cell, each downloading `transfer` ([`super::cell::cell_of`]): 1 but in
    /// the `flows` part.
    pub flows: usize,
    /// Both ends' socket buffers: [`BUFFER`] but in the `buffers` part.
    pub buffer: u32,
}

impl Config {
    /// A configuration of one flow with [`BUFFER`]s.
    pub fn new(
        sender: Sender,
        agent: Protocol,
        path: Path,
        channel: Channel,
        transfer: u64,
    ) -> Config {
        Config {
            sender,
            agent,
            path,
            channel,
            transfer,
            flows: 1,
            buffer: BUFFER,
        }
    }

    /// The run of this configuration with `seed`: paper 000's testbed, 1400-byte segments.
    pub fn scenario(&self, seed: u64) -> Scenario {
        let mut sc = Scenario::paper000(self.agent, self.path.env(), self.buffer, seed);
        sc.wired = self.path.wired();
        sc.transfer = self.transfer;
        sc.set_host(self.sender.preset);
        if self.sender.sack {
            // a fixed key and value of the host profile: cannot be refused
            let _ = sc.host.set("sack", "on");
        }
        self.channel.apply(&mut sc);
        sc
    }

    /// The run with `seed` as a job: the scenario's testbed, with [`Config::flows`] mobile hosts.
    pub fn job(&self, seed: u64) -> Job {
        let sc = self.scenario(seed);
        if self.flows == 1 {
            Job::from(&sc)
        } else {
            Job::new(super::cell::cell_of(&sc, self.flows), sc.env.name())
        }
    }

    /// The row a table shows the configuration in, within its sender and path: what `part`
    /// varies besides the agent.
    pub fn setting(&self, part: Part) -> String {
        let channel = self.channel.name();
        match part {
            Part::Transfers => kb(self.transfer),
            Part::Flows => format!("{channel}, {}", flows(self.flows)),
            Part::Buffers => format!("{channel}, {}", window(self.buffer)),
            Part::Errors | Part::Bursts => channel,
        }
    }

    /// The same configuration without an agent: what a gain is measured against.
    pub fn without_agent(&self) -> Config {
        Config {
            agent: Protocol::E2e,
            ..*self
        }
    }
}

/// The `flows` part's setting after the channel: `5 flows`.
pub(super) fn flows(n: usize) -> String {
    match n {
        1 => "1 flow".into(),
        n => format!("{n} flows"),
    }
}

/// The `buffers` part's setting after the channel: `256 KB window`.
pub(super) fn window(buffer: u32) -> String {
    format!("{} window", kb(u64::from(buffer)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use snooplab_sim::Env;

    #[test]
    fn a_sack_sender_negotiates_sack_under_every_agent() {
        let c = Config::new(
            SACK_1996,
            Protocol::LlTcpAware,
            Path::Long,
            Channel::Every(16 << 10),
            TRANSFER,
        );
        let sc = c.scenario(3);
        assert_eq!(sc.host.get("sack").as_deref(), Some("on"));
        assert_eq!(sc.host_preset, HostPreset::Bsdos21);
        assert_eq!(sc.wired.delay, crate::kernel_check::grid::LONG_DELAY);
        assert_eq!(sc.error_every, 16 << 10);
        assert_eq!(sc.buffer, BUFFER);
        let reno = Config {
            sender: RENO_1996,
            ..c
        };
        assert_eq!(
            reno.scenario(3).host.get("sack").as_deref(),
            Some("by-protocol")
        );
    }

    #[test]
    fn channels_set_the_scenario_they_name() {
        let base = Config::new(
            today(HostPreset::Linux),
            Protocol::E2e,
            Path::Wan,
            BURSTS[1],
            TRANSFER,
        );
        let sc = base.scenario(1);
        assert_eq!((sc.error_every, sc.burst), (64 << 10, 4));
        assert_eq!(sc.env, Env::Wan);
        let ge = Config {
            channel: Channel::GilbertElliott,
            ..base
        }
        .scenario(1);
        assert_eq!(
            ge.channel(true),
            ChannelSpec::GilbertElliott(GILBERT_ELLIOTT)
        );
        assert_eq!(base.sender.name, "linux-cubic");
        let replayed = Config {
            channel: Channel::Replayed,
            ..base
        }
        .scenario(1);
        let trace = replayed_trace().map(ChannelSpec::Trace);
        assert_eq!(Ok(replayed.channel(true)), trace);
        assert_eq!(Ok(replayed.channel(false)), trace);
        assert_eq!(Channel::Every(1 << 20).name(), "1/1 MB");
    }
}
