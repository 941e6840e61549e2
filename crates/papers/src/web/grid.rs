//! The Web study's configurations (docs/web-workload.md, "The study"): paper 000's LAN testbed
//! with a browser on the mobile host fetching pages from the fixed host (paper 004's Web
//! workload "to mobile hosts"), one sender and base-station agent, one channel, one HTTP.

use snooplab_proto::tcp::HostPreset;
use snooplab_proto::time::SEC;
use snooplab_sim::channel::ChannelSpec;
use snooplab_sim::network::Network;
use snooplab_sim::protocol::Protocol;
use snooplab_sim::scenario::Scenario;
use snooplab_sim::workload::{FlowWorkload, Http, PageSource, PagesSpec, Spec};
use snooplab_sim::{Env, Job};

use crate::kernel_check::grid::GILBERT_ELLIOTT;
use crate::snoop_today::grid::kb;

/// One TCP as the study names it: the hosts' profile and the protocol (the agent at the base
/// station, or the end-to-end variant).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sender {
    pub name: &'static str,
    pub preset: HostPreset,
    pub protocol: Protocol,
}

/// The senders, in the tables' order: paper 004's three (Reno, SACK, snoop: its introduction),
/// paper 000's ELN, and today's Linux without and with snoop.
pub const SENDERS: [Sender; 6] = [
    // paper 000's E2E: the BSD/OS 2.1 hosts' Reno
    Sender {
        name: "reno",
        preset: HostPreset::Bsdos21,
        protocol: Protocol::E2e,
    },
    // paper 000's E2E-IETF-SACK (RFC 2018 blocks, Fall and Floyd's Sack1 recovery)
    Sender {
        name: "sack",
        preset: HostPreset::Bsdos21,
        protocol: Protocol::E2eIetfSack,
    },
    // paper 000's LL-TCP-AWARE
    Sender {
        name: "snoop",
        preset: HostPreset::Bsdos21,
        protocol: Protocol::LlTcpAware,
    },
    // paper 000's E2E-ELN: the mobile receiver marks the duplicate ACKs of corrupted segments
    Sender {
        name: "eln",
        preset: HostPreset::Bsdos21,
        protocol: Protocol::E2eEln,
    },
    Sender {
        name: "linux",
        preset: HostPreset::Linux,
        protocol: Protocol::E2e,
    },
    Sender {
        name: "linux-snoop",
        preset: HostPreset::Linux,
        protocol: Protocol::LlTcpAware,
    },
];

/// What corrupts the WaveLAN hop's frames, each direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Channel {
    /// Bit errors with exponential gaps of this mean, in bytes (paper 000's and 004's model).
    Every(u64),
    /// A two-state channel: the kernel check's Gilbert-Elliott stand-in ([`GILBERT_ELLIOTT`]),
    /// since no published mean lengths of a 1990s WaveLAN's good and bad periods could be read
    /// (docs/channels.md, "No default WaveLAN parameters").
    TwoState,
}

impl Channel {
    pub fn name(self) -> String {
        match self {
            Channel::Every(b) => format!("1/{}", kb(b)),
            Channel::TwoState => "two-state".into(),
        }
    }

    fn apply(self, sc: &mut Scenario) {
        match self {
            Channel::Every(b) => sc.error_every = b,
            Channel::TwoState => {
                let ge = ChannelSpec::GilbertElliott(GILBERT_ELLIOTT);
                sc.channel_down = Some(ge.clone());
                sc.channel_up = Some(ge);
            }
        }
    }
}

/// The channels: one error per 64 KB and per 16 KB, and the two-state channel.
pub const CHANNELS: [Channel; 3] = [
    Channel::Every(64 << 10),
    Channel::Every(16 << 10),
    Channel::TwoState,
];

/// The browsers: HTTP/1.0 with up to four connections at once (the browsers of 1998), and
/// HTTP/1.1 with two persistent connections, not pipelined (RFC 2616 section 8.1.4's limit).
pub const HTTPS: [Http; 2] = [
    Http::Http10 { parallel: 4 },
    Http::Http11 {
        connections: 2,
        pipelined: false,
    },
];

/// `HTTP/1.0 x4`, `HTTP/1.1 x2`.
pub fn http_name(h: Http) -> String {
    match h {
        Http::Http10 { parallel } => format!("HTTP/1.0 x{parallel}"),
        Http::Http11 {
            connections,
            pipelined,
        } => format!(
            "HTTP/1.1 x{connections}{}",
            if pipelined { " pipelined" } else { "" }
        ),
    }
}

/// Pages each seed's run fetches: the default four seeds give 1,000 pages per sender, channel
/// and HTTP (issue 53's "at least 1,000 pages per protocol and channel").
pub const PAGES_PER_SEED: u32 = 250;

/// Both ends' socket buffers: 64 KB, the most a 1996 BSD host used without window scaling (the
/// snoop-today study's), so that the senders differ in their TCP, not in their buffers.
pub const BUFFER: u32 = 64 * 1024;

/// A run of pages ends by this simulated time at the latest: 250 of SURGE's pages average about
/// 15 MB, under 2 minutes at the WaveLAN's 2 Mb/s; an hour leaves room for every timeout.
pub const MAX_TIME: u64 = 3600 * SEC;

/// One configuration: everything but the seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    pub sender: Sender,
    pub channel: Channel,
    pub http: Http,
}

impl Config {
    /// Every configuration, sender by sender within each channel and HTTP.
    pub fn all() -> Vec<Config> {
        let mut out = vec![];
        for channel in CHANNELS {
            for http in HTTPS {
                for sender in SENDERS {
                    out.push(Config {
                        sender,
                        channel,
                        http,
                    });
                }
            }
        }
        out
    }

    /// The run with `seed`: paper 000's LAN testbed (fixed host, 10 Mb/s Ethernet, base station,
    /// 2 Mb/s WaveLAN, mobile host), 1400-byte segments, its one flow carrying `pages` pages of
    /// `spec` from the fixed host (the server) to the mobile host (the browser). The same seed
    /// gives every configuration the same pages.
    pub fn job(&self, seed: u64, spec: &Spec, pages: u32) -> Job {
        let mut sc = Scenario::paper000(self.sender.protocol, Env::Lan, BUFFER, seed);
        sc.set_host(self.sender.preset);
        sc.max_time = MAX_TIME;
        self.channel.apply(&mut sc);
        let mut net = Network::paper000(&sc);
        for f in &mut net.flows {
            f.workload = FlowWorkload::Pages(PagesSpec {
                source: PageSource::Model(Box::new(spec.clone())),
                pages,
                http: self.http,
            });
        }
        Job::new(net, sc.env.name())
    }
}
