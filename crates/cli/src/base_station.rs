//! `snooplab base-station`: a base-station agent between two real interfaces of this machine, as
//! a transparent middlebox (docs/live.md, "The base station as a middlebox";
//! `snooplab_live::middlebox`).

use clap::Args;

use snooplab_live::middlebox::af_packet::{interface_index, PacketSocket};
use snooplab_live::middlebox::agent_choice::{agent_kind, make_agent, relay_host, SplitSettings};
use snooplab_live::middlebox::bridge::{Bridge, WIRED, WIRELESS};
use snooplab_live::middlebox::device::FrameDevice;
use snooplab_live::middlebox::egress_link::{self, EgressLink, LinkSpec};
use snooplab_live::middlebox::signals;
use snooplab_live::middlebox::status::{connection_lines, status_line};
use snooplab_live::sys;
use snooplab_proto::duration::{self, Bare};
use snooplab_sim::capture::Sink;
use snooplab_sim::channel::{check_error_settings, ChannelSpec};
use snooplab_sim::protocol::AgentKind;
use snooplab_sim::size::parse_size;

#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
    sudo snooplab base-station --wired eth0 --wireless wlan0              # snoop between the uplink and the radio\n  \
    sudo snooplab base-station --wired eth0 --wireless wlan0 --agent ll   # the link-layer agent, TCP-unaware\n  \
    sudo ip netns exec mb snooplab base-station --wired veth-w --wireless veth-m\n  \
    sudo kill -USR1 $(pidof snooplab)                                     # print the counters now\n  \
    sudo snooplab base-station --wired eth0 --wireless wlan0 --pcap caps/ # caps/wired.pcap, caps/wireless.pcap\n  \
    sudo snooplab base-station --wired eth0 --wireless wlan0 --agent split --relay-memory 256M\n  \
    sudo snooplab base-station --wired eth0 --wireless wlan0 --agent split --relay-host linux-paper\n  \
    sudo snooplab base-station --wired eth0 --wireless wlan0 --wired-delay 50ms # as netem delay 50ms on eth0\n\n\
Frames are read raw on both interfaces (AF_PACKET, promiscuous while it runs); IPv4/TCP goes to the\n\
agent, everything else (ARP, IPv6, UDP, ICMP) passes unchanged. The interfaces must be up, best\n\
without addresses of their own, and hand over frames as on the wire: GRO and LRO off\n\
(ethtool -K IFACE gro off lro off). Ctrl-C stops it and prints the counters; nothing of the\n\
interfaces is left changed. Needs root (CAP_NET_RAW).")]
pub struct BaseStationArgs {
    /// The interface facing the wired side (the fixed hosts).
    #[arg(long, value_name = "IFACE")]
    pub wired: String,
    /// The interface facing the wireless side (the mobile hosts).
    #[arg(long, value_name = "IFACE")]
    pub wireless: String,
    /// The agent: snoop (ll-tcp-aware), ll, ll-smart-tcp-aware, bs-eln, bs-nack, split,
    /// split-smart, e2e (routes only), or a scenario file's node agent (snoop-002, ...).
    #[arg(long, default_value = "snoop")]
    pub agent: String,
    /// split, split-smart: the most bytes all relays hold together (each relay: 64 KB each way
    /// plus the window and a segment); a connection past it is forwarded end to end, counted as
    /// `unsplit` [default: 64M, the simulator's: about 245 relays].
    #[arg(long, value_name = "SIZE")]
    pub relay_memory: Option<String>,
    /// split, split-smart: the host whose TCP both halves of every relay run, by the simulator's
    /// names (`snooplab hosts`): bsdos-2.1 (paper 000's hosts), bsd44-lite, freebsd-2.2 or
    /// linux-paper (Linux's timers and Reno, no SACK). Hosts that use SACK on every connection
    /// (linux) are refused: a relay's handshake does not negotiate it [default: bsdos-2.1].
    #[arg(long, value_name = "HOST")]
    pub relay_host: Option<String>,
    /// Hold every frame leaving by the wired interface this long (one way, as `tc qdisc add dev
    /// WIRED root netem delay DELAY`; e.g. 50ms), for kernels without netem.
    #[arg(long, value_name = "DELAY")]
    pub wired_delay: Option<String>,
    /// The same for frames leaving by the wireless interface.
    #[arg(long, value_name = "DELAY")]
    pub wireless_delay: Option<String>,
    /// Send frames leaving by the wireless interface at this rate (tc's units: 10mbit), each
    /// with Ethernet's framing, as the simulator's wired link: instead of a tbf qdisc.
    #[arg(long, value_name = "RATE")]
    pub wireless_rate: Option<String>,
    /// Lose frames leaving by the wireless interface to bit errors, a mean of this many bytes
    /// apart (the simulator's channel, as `--error-every`: 64k, 150k): instead of netem's loss.
    #[arg(long, value_name = "BYTES")]
    pub wireless_error_every: Option<String>,
    /// Seeds the wireless errors (the simulator's downlink error stream).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The most frames each emulated link holds at once; a frame past it is dropped and
    /// counted (netem's `limit`) [default: 1000, netem's].
    #[arg(long, value_name = "PACKETS")]
    pub delay_limit: Option<String>,
    /// Write each interface's frames (read and written) to DIR/wired.pcap and DIR/wireless.pcap.
    #[arg(long, value_name = "DIR")]
    pub pcap: Option<std::path::PathBuf>,
}

/// The two capture files in `dir`, created (with `dir`) empty.
fn capture_files(dir: &std::path::Path) -> Result<[Sink; 2], String> {
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("cannot create the capture directory {}: {e}", dir.display()))?;
    let open = |name: &str| -> Result<Sink, String> {
        let path = dir.join(name);
        let f = std::fs::File::create(&path)
            .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
        Ok(Box::new(std::io::BufWriter::new(f)))
    };
    Ok([open("wired.pcap")?, open("wireless.pcap")?])
}

/// Whether this process runs as root (the effective user id).
fn is_root() -> bool {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("Uid:"))
        .and_then(|l| l.split_whitespace().nth(2))
        .is_some_and(|v| v == "0")
}

/// The emulated links the flags ask for, (wired, wireless); refused in one message when a value
/// is impossible.
type LinkAsks = [Option<LinkSpec>; 2];

/// A rate as tc(8) writes one ("RATES": `bit`, `kbit`, `mbit`, `gbit`, powers of 1000, bits per
/// second; its unit required, as tc reads a bare number as bytes), within
/// [`egress_link::RATE_RANGE`].
fn parse_rate(text: &str, what: &str) -> Result<u64, String> {
    let t = text.trim().to_ascii_lowercase();
    let (lo, hi) = egress_link::RATE_RANGE;
    let refused = || format!("{what} '{text}' must be a rate from 1kbit to 100gbit (e.g. 10mbit)");
    let (number, unit) = [("gbit", 1e9), ("mbit", 1e6), ("kbit", 1e3), ("bit", 1.0)]
        .into_iter()
        .find_map(|(u, m)| t.strip_suffix(u).map(|n| (n, m)))
        .ok_or_else(refused)?;
    let bps = number.trim().parse::<f64>().map_err(|_| refused())? * unit;
    if !(lo as f64..=hi as f64).contains(&bps) {
        return Err(refused());
    }
    Ok(bps.round() as u64)
}

fn link_asks(a: &BaseStationArgs) -> Result<LinkAsks, String> {
    let delay = |text: &Option<String>, what: &str| {
        text.as_deref()
            .map(|t| duration::parse_in(t, Bare::Refused, egress_link::DELAY_RANGE, what))
            .transpose()
    };
    let wired_delay = delay(&a.wired_delay, "--wired-delay")?;
    let wireless_delay = delay(&a.wireless_delay, "--wireless-delay")?;
    let rate = a
        .wireless_rate
        .as_deref()
        .map(|t| parse_rate(t, "--wireless-rate"))
        .transpose()?;
    let error_every = match &a.wireless_error_every {
        None => 0,
        Some(t) => {
            let n = parse_size(t).map_err(|e| format!("--wireless-error-every: {e}"))?;
            check_error_settings(n, 1).map_err(|e| format!("--wireless-{e}"))?;
            n
        }
    };
    let wireless = wireless_delay.is_some() || rate.is_some() || error_every > 0;
    let limit = match &a.delay_limit {
        None => egress_link::DEFAULT_LIMIT,
        Some(_) if wired_delay.is_none() && !wireless => {
            return Err(
                "--delay-limit bounds what an emulated link holds: it needs \
                        --wired-delay or a --wireless-... link"
                    .into(),
            )
        }
        Some(t) => t
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=egress_link::MAX_LIMIT).contains(n))
            .ok_or_else(|| {
                format!(
                    "--delay-limit '{t}' must be a number of frames from 1 to {}",
                    egress_link::MAX_LIMIT
                )
            })?,
    };
    let wired = wired_delay.map(|delay| LinkSpec {
        delay,
        rate_bps: None,
        limit,
        channel: ChannelSpec::None,
        seed: a.seed,
    });
    let wireless = wireless.then(|| LinkSpec {
        delay: wireless_delay.unwrap_or(0),
        rate_bps: rate,
        limit,
        channel: ChannelSpec::every(error_every, 1),
        seed: a.seed,
    });
    Ok([wired, wireless])
}

/// The emulated links asked for, for the first line: ` (wired egress: delay 50ms, at most 1000
/// frames)`, or nothing.
fn links_text(links: &LinkAsks) -> String {
    let parts: Vec<String> = ["wired", "wireless"]
        .iter()
        .zip(links)
        .filter_map(|(name, spec)| {
            spec.as_ref().map(|l| {
                let rate = l.rate_bps.map_or(String::new(), |r| format!(", {r} bit/s"));
                format!(
                    "{name} egress: delay {}{rate}, errors {}, at most {} frames",
                    duration::format_duration(l.delay),
                    l.channel.label(),
                    l.limit
                )
            })
        })
        .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join("; "))
    }
}

pub fn base_station(a: BaseStationArgs) -> Result<(), String> {
    let kind = agent_kind(&a.agent)?;
    let links = link_asks(&a)?;
    let mut split = SplitSettings::default();
    if let Some(m) = &a.relay_memory {
        if !matches!(kind, AgentKind::Split { .. }) {
            return Err(format!(
                "--relay-memory bounds split relays; agent '{}' makes none",
                a.agent
            ));
        }
        split.relay_memory =
            snooplab_sim::size::parse_size(m).map_err(|e| format!("--relay-memory: {e}"))?;
    }
    if let Some(h) = &a.relay_host {
        if !matches!(kind, AgentKind::Split { .. }) {
            return Err(format!(
                "--relay-host sets split relays' TCP; agent '{}' makes none",
                a.agent
            ));
        }
        split.relay_host = relay_host(h).map_err(|e| format!("--relay-host: {e}"))?;
    }
    // refused before anything is opened: the MTU below only makes a relay's segments smaller
    make_agent(kind, split)?;
    if a.wired == a.wireless {
        return Err(format!(
            "--wired and --wireless are both '{}': the base station needs two interfaces",
            a.wired
        ));
    }
    for name in [&a.wired, &a.wireless] {
        if interface_index(name).is_none() {
            return Err(format!(
                "no interface named '{name}' in this network namespace (ip link lists them)"
            ));
        }
    }
    if !is_root() {
        return Err(
            "base-station needs root (raw packet sockets on both interfaces): run it \
                    as root (sudo snooplab base-station ...)"
                .into(),
        );
    }
    let open = |name: &str| {
        PacketSocket::open(name).map_err(|e| format!("cannot open interface '{name}': {e}"))
    };
    let (wired, wireless) = (open(&a.wired)?, open(&a.wireless)?);
    let mtu = |s: &PacketSocket| {
        s.mtu()
            .map_err(|e| format!("cannot read the MTU of '{}': {e}", s.name()))
    };
    split.mtu = mtu(&wired)?.min(mtu(&wireless)?);
    let agent = make_agent(kind, split)?;
    sys::catch_stop_signals().map_err(|e| format!("cannot catch the stop signals: {e}"))?;
    signals::catch_status_signal().map_err(|e| format!("cannot catch SIGUSR1: {e}"))?;
    let relays = match kind {
        AgentKind::Split { .. } => format!(" (relays: {} TCP)", split.relay_host.name()),
        _ => String::new(),
    };
    eprintln!(
        "base-station: {}{relays} between wired {} and wireless {}{} (pid {}); SIGUSR1 prints \
         the counters, Ctrl-C stops",
        a.agent,
        a.wired,
        a.wireless,
        links_text(&links),
        std::process::id()
    );
    let mut bridge = Bridge::new(wired, wireless, agent);
    for (side, spec) in [WIRED, WIRELESS].into_iter().zip(&links) {
        if let Some(spec) = spec {
            bridge.set_link(side, EgressLink::with(spec));
        }
    }
    if let Some(dir) = &a.pcap {
        let [w, m] = capture_files(dir)?;
        bridge
            .capture_into(w, m)
            .map_err(|e| format!("cannot write the captures' headers: {e}"))?;
    }
    let stop = sys::stop_requested;
    let mut between = |b: &Bridge<PacketSocket>| {
        if signals::status_asked() {
            eprintln!("{}", status_line(b, b.now()));
        }
    };
    let ran = bridge.run(&stop, &mut between);
    // the final counters whether it stopped on a signal or an error; the sockets close on return
    println!("{}", status_line(&bridge, bridge.now()));
    for line in connection_lines(bridge.agent()) {
        println!("{line}");
    }
    let captured = bridge.finish_captures();
    ran?;
    if let (Some([w, m]), Some(dir)) = (captured?, &a.pcap) {
        eprintln!(
            "base-station: {w} frames in {}, {m} in {}",
            dir.join("wired.pcap").display(),
            dir.join("wireless.pcap").display()
        );
    }
    Ok(())
}
