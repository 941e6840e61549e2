//! Paper 001's testbed as a network (Tamura, Tobe and Tokuda 1998, section 4.1, Fig. 1): `n` mobile
//! hosts `mh1`..`mhn` (2 to 4 in the paper; 1 for its loss-rate statement) in one 2 Mb/s WaveLAN
//! cell `wavelan` of the access point `ap`, which bridges them to the correspondent host `ch` on a
//! 10BASE-T Ethernet `ethernet`. Every mobile host sends one bulk transfer to `ch` at once, all with
//! FreeBSD 2.2.1's TCP. Every constant is derived below from the paper or from a documented source,
//! or says that it had to be chosen (`docs/paper001.md`, "The testbed").

use snooplab_proto::tcp::HostPreset;
use snooplab_proto::time::{MS, US};
use snooplab_proto::Time;

use snooplab_sim::channel::ChannelSpec;
use snooplab_sim::link::{tx_time, WiredParams};
use snooplab_sim::medium::{AccessModel, CsmaParams, WavelanParams};
use snooplab_sim::network::{Cell, Flow, InputQueue, Link, Network, Node, NodeKind, Station};
use snooplab_sim::protocol::Protocol;
use snooplab_sim::rng::{Rng, Stream};
use snooplab_sim::scenario::Env;

/// "All the experiments noted in this paper use 1440-byte segment size" (section 4.1).
pub const MSS: u32 = 1440;

/// The socket buffers. Section 4.1 sets "the maximum window size for a connection" to 35
/// segments (50400 bytes), but Fig. 12 (three senders on 10BASE-T, no losses) shows `snd_cur`
/// "mostly 17280 bytes": 12 segments, FreeBSD 2.2's default receive buffer (`tcp_recvspace` = 16
/// KB) rounded up to whole segments by `tcp_mss()`. The correspondent host's advertised window, not
/// the senders' 35 segments, bounded every window; both ends here get 16 KB (17280 B once
/// rounded), which bounds the senders exactly as the receiver did.
pub const BUFFER: u32 = 16 * 1024;

/// "The segment loss rate in transferring data between a single MH and CH with no other network
/// traffic is maintained at approximately 3.0e-4" (section 4.1).
pub const SEGMENT_LOSS_ALONE: f64 = 3.0e-4;

/// "The round-trip delay between Hosts MH1-MH4 and Host CH measured with ping program is about
/// 6ms" (section 4.1).
pub const PING_RTT: Time = 6 * MS;

/// IP bytes of a default `ping`: 56 data bytes, an 8-byte ICMP header and a 20-byte IP header.
pub const PING_BYTES: u32 = 84;

/// The on-air part of a WaveLAN frame besides its IP bytes: the 82586's 2-byte preamble (8 us),
/// the modem's 16-bit network ID (8 us) and the Ethernet header and checksum (14 + 4 bytes, 72 us)
/// at 2 Mb/s (research note `wavelan-mac.md`, Q4: the Linux and FreeBSD drivers' configuration; the
/// modem's own training sequence is not documented and is left out).
pub const WAVELAN_FRAMING: Time = 88 * US;

/// The cycle paper 000's calibration measured (`docs/model.md`, "Calibration"): two 1400-byte
/// segments (1440 IP bytes each) and one 40-byte ACK, each paying the calibrated per-frame overhead.
const CALIBRATION_CYCLE_BYTES: u32 = 2 * 1440 + 40;

/// The hosts' turnaround, ns per IP byte ([`CsmaParams::load_ns_per_byte`]). Paper 000's calibration
/// charges every frame 1084 us besides its bits; of that, [`WAVELAN_FRAMING`] is on the air, and the
/// rest is time the medium sits idle between one station's frames, which the model gives to the
/// host copying the next frame onto its card: `(3 * 1084 - 3 * 88) us / 2920 bytes` = 1.023 us per
/// byte (about 1 MB/s, the speed of programmed I/O over ISA or PC-Card). One station sending the
/// calibration cycle back to back then takes exactly the calibrated time. Chosen: that the whole
/// gap scales with the frame's size (copying dominates; a fixed interrupt latency is folded in).
pub fn load_ns_per_byte(cell: &WavelanParams) -> u64 {
    let off_air = 3 * cell.frame_overhead.saturating_sub(WAVELAN_FRAMING);
    off_air / u64::from(CALIBRATION_CYCLE_BYTES)
}

/// The CSMA/CA of the cell: the WaveLAN MAC's documented constants ([`CsmaParams::default`]) and
/// the hosts' turnaround.
pub fn csma(cell: &WavelanParams) -> CsmaParams {
    CsmaParams {
        load_ns_per_byte: load_ns_per_byte(cell),
        framing: WAVELAN_FRAMING,
        ..CsmaParams::default()
    }
}

/// Light-load round trip of a `ping` through the preset with a one-way wired delay `delay`: the
/// request and the reply each copied onto a card, sent over the air, and carried by the Ethernet.
pub fn ping_rtt(cell: &WavelanParams, wired: &WiredParams, delay: Time) -> Time {
    let c = csma(cell);
    let air = c.turnaround(PING_BYTES) + c.framing + tx_time(PING_BYTES, cell.rate_bps);
    let eth = tx_time(PING_BYTES + wired.framing_bytes, wired.rate_bps);
    2 * (air + eth + delay)
}

/// The Ethernet between the access point and the correspondent host: paper 000's 10 Mb/s LAN
/// ("10BASE-T", section 4.1), with the one-way delay that makes the preset's ping round trip
/// [`PING_RTT`]: 2.39 ms, which stands for the access point's bridging and both hosts' stacks
/// (derived, as paper 000's WAN delay was derived from its 135 ms).
pub fn ethernet(cell: &WavelanParams) -> WiredParams {
    let mut w = Env::Lan.wired();
    let without = ping_rtt(cell, &w, 0);
    w.delay = PING_RTT.saturating_sub(without) / 2;
    w
}

/// Mean bytes between bit errors on the channel, both directions: the loss a single host sees
/// alone. With one sender the model's stations never collide (its own next frame is still being
/// copied when the access point's ACK goes, `docs/paper001.md`), so the paper's 3.0e-4 is the
/// channel's: a 1480-byte frame is lost with `1 - exp(-1480 / N)` = 3.0e-4, N = 4.93 MB.
pub fn error_every() -> u64 {
    let frame = f64::from(MSS + 40);
    (frame / -(1.0 - SEGMENT_LOSS_ALONE).ln()).round() as u64
}

/// When the transfers start: each sender opens its connection at a time drawn uniformly within
/// the first 10 ms (its own stream per flow). Chosen: the paper started its senders together
/// ("continue to transmit data ... to provide a sharing link environment"), not in the same
/// microsecond; identical start times would make the first SYNs collide on every seed.
pub const START_SPREAD: Time = 10 * MS;

/// The preset's settings: hosts, protocol, transfer and seed; everything else is the paper's.
#[derive(Clone, Debug, PartialEq)]
pub struct Paper001 {
    /// Mobile senders (the paper: 2 to 4).
    pub hosts: usize,
    pub protocol: Protocol,
    /// Bytes each sender transfers.
    pub transfer: u64,
    pub seed: u64,
    /// Mean bytes between bit errors on the channel, both directions ([`error_every`]).
    pub error_every: u64,
    /// The cell's CSMA/CA: [`csma`], the ISA card's 82586 (the default of the MAC reading,
    /// `readings.rs`), or another reading's constants (`Mac::csma`).
    pub csma: CsmaParams,
}

impl Paper001 {
    pub fn new(hosts: usize, protocol: Protocol, transfer: u64, seed: u64) -> Paper001 {
        Paper001 {
            hosts,
            protocol,
            transfer,
            seed,
            error_every: error_every(),
            csma: csma(&WavelanParams::default()),
        }
    }
}

/// The host profile of every host: "FreeBSD 2.2.1-Release ... is installed in all hosts".
pub const HOST: HostPreset = HostPreset::Freebsd22;

impl Paper001 {
    /// Paper 001's testbed with `self.hosts` mobile senders.
    pub fn network(&self) -> Network {
        let p = self;
        let cell = WavelanParams::default();
        let mut nodes = vec![
            Node {
                name: "ch".into(),
                kind: NodeKind::Host,
                addr: 0x0a00_0001,
            },
            Node {
                name: "ap".into(),
                kind: NodeKind::BaseStation {
                    agent: p.protocol.agent(),
                    input: InputQueue::default(),
                },
                addr: 0x0a00_00fe,
            },
        ];
        let channel = ChannelSpec::every(p.error_every, 1);
        let mut stations = Vec::with_capacity(p.hosts);
        let mut flows = Vec::with_capacity(p.hosts);
        for i in 0..p.hosts {
            let node = nodes.len();
            nodes.push(Node {
                name: format!("mh{}", i + 1),
                kind: NodeKind::Host,
                addr: 0x0a00_0102 + i as u32,
            });
            stations.push(Station {
                node,
                down: channel.clone(),
                up: channel.clone(),
            });
            let mut start = Rng::indexed(p.seed, Stream::FlowStart, i as u64);
            flows.push(Flow {
                name: format!("flow{i}"),
                from: node,
                to: 0,
                protocol: p.protocol,
                host_preset: HOST,
                host: HOST.profile(),
                buffer: BUFFER,
                mss: MSS,
                transfer: p.transfer,
                start: start.below(START_SPREAD),
                src_port: snooplab_sim::network::paper000::SRC_PORT + i as u16,
                dst_port: snooplab_sim::network::paper000::DST_PORT + i as u16,
                workload: snooplab_sim::workload::FlowWorkload::Bulk,
            });
        }
        Network {
            links: vec![Link {
                name: "ethernet".into(),
                ends: [0, 1],
                params: ethernet(&cell),
            }],
            cells: vec![Cell {
                name: "wavelan".into(),
                base_station: 1,
                stations,
                access: AccessModel::Csma(p.csma.clone()),
                params: cell,
            }],
            nodes,
            flows,
            handoffs: vec![],
            crashes: vec![],
            seed: p.seed,
            max_time: 3600 * snooplab_proto::time::SEC,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_constants() {
        let cell = WavelanParams::default();
        // (3 * 1084 - 3 * 88) / 2920 us per byte
        assert_eq!(load_ns_per_byte(&cell), 1023);
        let eth = ethernet(&cell);
        assert_eq!(
            ping_rtt(&cell, &eth, eth.delay) / US,
            6000,
            "6 ms, to the microsecond"
        );
        assert_eq!(eth.delay / US, 2392);
        let n = error_every();
        assert_eq!(n, 4_932_593);
        let p = 1.0 - (-1480.0 / n as f64).exp();
        assert!((p - 3.0e-4).abs() < 1e-9);
    }

    #[test]
    fn preset_is_a_valid_network() {
        for hosts in 1..=4 {
            let net = (Paper001::new(hosts, Protocol::Efr, 1 << 20, 7)).network();
            assert_eq!(net.validate(), Ok(()));
            assert_eq!(net.flows.len(), hosts);
            assert!(net.flows.iter().all(|f| f.start < START_SPREAD));
        }
    }
}
