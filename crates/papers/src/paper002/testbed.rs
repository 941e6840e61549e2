//! Paper 002's testbed as a network (Balakrishnan, Seshan and Katz 1995, sections 6-7, Fig.
//! 6): the fixed host `fh` sends to the mobile host `mh` through its home agent `ha`, which tunnels
//! each packet to the base stations `bs1` and `bs2` (10 Mb/s Ethernet between them all); each base
//! station has a 2 Mb/s WaveLAN cell (`cell1`, `cell2`), the two cells on one radio channel, and
//! `mh` is a station of both. Paper 002's
//! own settings: 1460-byte segments, 64 KB windows, 10 MB transfers, Reno senders with the BSD/OS
//! host profile (BSD/OS 2.0 had the TCP of our `bsdos-2.1` profile as far as the sources tell),
//! and snoop as section 6 sets it (`snoop-002`: first duplicate ACK, 40 ms minimum timeout).
//!
//! Our copy of the paper has no figures, so Fig. 6 itself is not known: the home agent as a router
//! between the fixed host and the base stations is our reading of sections 4 and 6.

use snooplab_proto::agent::handoff::{Scheme, Trigger};
use snooplab_proto::agent::SnoopConfig;
use snooplab_proto::tcp::HostPreset;
use snooplab_proto::Time;

use snooplab_sim::channel::ChannelSpec;
use snooplab_sim::medium::WavelanParams;
use snooplab_sim::network::{
    Cell, Flow, HandoffSpec, InputQueue, Link, Network, Node, NodeKind, OldPrimaryQueue, Station,
};
use snooplab_sim::protocol::{AgentKind, Protocol};
use snooplab_sim::scenario::Env;

/// "the maximum TCP segment size was 1460 bytes" (section 7).
pub const MSS: u32 = 1460;
/// "The maximum possible window size for the connection was 64 KBytes" (section 7).
pub const WINDOW: u32 = 64 * 1024;
/// "Each run involved a 10 MByte transfer" (section 7).
pub const TRANSFER: u64 = 10 * 1024 * 1024;
/// The hosts' TCP.
pub const HOST: HostPreset = HostPreset::Bsdos21;
/// The base stations' snoop as section 6 sets it: duplicate-ACK suppression, local retransmission
/// on the first duplicate ACK, none on a partial new ACK, 40 ms minimum timeout
/// ([`SnoopConfig::paper002`]; a scenario file names it `snoop-002`).
pub const SNOOP: AgentKind = AgentKind::Snoop(SnoopConfig::paper002());

/// One run of paper 002's experiments.
#[derive(Clone, Debug, PartialEq)]
pub struct Paper002 {
    /// What the base stations run: snoop with paper 002's settings (`snoop-002`), a router
    /// ("unmodified TCP"), or a split connection for the split baseline.
    pub agent: AgentKind,
    /// Mean bytes between bit errors on the wireless links, both directions (0: none).
    pub error_every: u64,
    /// Handoffs between the two base stations at this interval; `None`: never.
    pub handoff_every: Option<Time>,
    /// Base stations beacon once per second (section 6); off for the beacon-free peak.
    pub beacons: bool,
    pub transfer: u64,
    /// Socket buffers of both ends (the largest window).
    pub window: u32,
    /// Paper 002's multicast handoff, or a baseline.
    pub scheme: Scheme,
    /// When the fixed host opens the connection (handoffs before it are idle ones).
    pub start: Time,
    /// `bs1` crashes at the first time and comes back after the second.
    pub crash: Option<(Time, Time)>,
    /// The two cells share one radio channel (the default): the 1995 WaveLAN had one ("the
    /// maximum raw aggregate bandwidth of the Wavelan is about 2 Mbits/s", section 6) and the
    /// mobile host one card, which hears either base station but never two frames at once.
    /// `false` gives each cell a medium of its own, with the mobile host receiving on both at
    /// once: a check of ours, not a testbed the paper could have had.
    pub shared_channel: bool,
    /// What the old primary does with its queued frames for the mobile host when told to buffer
    /// (a reading, `readings.rs`).
    pub old_primary_queue: OldPrimaryQueue,
    pub seed: u64,
    pub max_time: Time,
}

impl Paper002 {
    pub fn new(snoop: bool, error_every: u64, handoff_every: Option<Time>, seed: u64) -> Paper002 {
        Paper002 {
            agent: if snoop { SNOOP } else { AgentKind::Router },
            error_every,
            handoff_every,
            beacons: true,
            transfer: TRANSFER,
            window: WINDOW,
            scheme: Scheme::Multicast,
            start: 0,
            crash: None,
            shared_channel: true,
            old_primary_queue: OldPrimaryQueue::Drains,
            seed,
            max_time: 3600 * snooplab_proto::time::SEC,
        }
    }
}

impl Paper002 {
    /// Paper 002's testbed as these settings describe it.
    pub fn network(&self) -> Network {
        let p = self;
        let agent = p.agent;
        let node = |name: &str, kind: NodeKind, addr: u32| Node {
            name: name.into(),
            kind,
            addr,
        };
        let bs = |agent| NodeKind::BaseStation {
            agent,
            input: InputQueue::default(),
        };
        let nodes = vec![
            node("fh", NodeKind::Host, 0x0a00_0001),
            node("ha", bs(AgentKind::Router), 0x0a00_0003),
            node("bs1", bs(agent), 0x0a00_00fe),
            node("bs2", bs(agent), 0x0a00_00fd),
            node("mh", NodeKind::Host, 0x0a00_0102),
        ];
        let ethernet = Env::Lan.wired();
        let link = |name: &str, a, b| Link {
            name: name.into(),
            ends: [a, b],
            params: ethernet.clone(),
        };
        let channel = ChannelSpec::every(p.error_every, 1);
        let cell = |name: &str, base_station| Cell {
            name: name.into(),
            base_station,
            stations: vec![Station {
                node: 4,
                down: channel.clone(),
                up: channel.clone(),
            }],
            params: WavelanParams::default(),
            access: Default::default(),
        };
        let trigger = p.handoff_every.map_or(Trigger::Never, Trigger::Every);
        let mut handoff = HandoffSpec::paper002(4, 1, vec![2, 3], trigger);
        handoff.scheme = p.scheme;
        handoff.shared_channel = p.shared_channel;
        // the old primary's rule is read only when the mobile host asks a base station to
        // buffer, at a handoff or after a base station restarts: a testbed with neither is one
        // network under either reading, and its runs are one run (`families` makes a job that
        // repeats another's network once)
        if p.handoff_every.is_some() || p.crash.is_some() {
            handoff.old_primary_queue = p.old_primary_queue;
        }
        if !p.beacons {
            handoff.beacon_interval = None;
        }
        Network {
            nodes,
            links: vec![
                link("fh-ha", 0, 1),
                link("ha-bs1", 1, 2),
                link("ha-bs2", 1, 3),
            ],
            cells: vec![cell("cell1", 2), cell("cell2", 3)],
            flows: vec![Flow {
                name: "flow0".into(),
                from: 0,
                to: 4,
                protocol: Protocol::E2e,
                host_preset: HOST,
                host: HOST.profile(),
                buffer: p.window,
                mss: MSS,
                transfer: p.transfer,
                start: p.start,
                src_port: snooplab_sim::network::paper000::SRC_PORT,
                dst_port: snooplab_sim::network::paper000::DST_PORT,
                workload: snooplab_sim::workload::FlowWorkload::Bulk,
            }],
            handoffs: vec![handoff],
            crashes: p
                .crash
                .map(|(at, down_for)| snooplab_sim::network::Crash {
                    node: 2,
                    at,
                    down_for,
                })
                .into_iter()
                .collect(),
            seed: p.seed,
            max_time: p.max_time,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use snooplab_sim::protocol::NODE_AGENTS;

    /// A scenario file's `agent = "snoop-002"` (examples/paper002-handoff.toml) is the snoop this
    /// testbed runs, not another reading of section 6.
    #[test]
    fn snoop_002_in_a_scenario_file_is_the_testbeds_snoop() {
        let named = NODE_AGENTS
            .iter()
            .find(|(name, _)| *name == "snoop-002")
            .map(|(_, kind)| *kind);
        assert_eq!(named, Some(SNOOP));
        assert_eq!(Paper002::new(true, 0, None, 1).agent, SNOOP);
        assert_eq!(Paper002::new(false, 0, None, 1).agent, AgentKind::Router);
    }
}
