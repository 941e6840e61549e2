//! Paper 000's testbed as a network (section IV-A, Fig. 2): fixed host `fh` -- wired link `wired` (10
//! Mb/s Ethernet, or the 16-hop WAN path) -- base station `bs` -- cell `wireless` (2 Mb/s WaveLAN) --
//! mobile host `mh`, and one flow from `fh` to `mh` (or from `mh` to `fh`, [`Direction::Up`], paper 004's
//! Fig. 1). Names, addresses and ports are those of the
//! single-path simulator this replaced, so traces and captures read as before.

use super::{Cell, Flow, InputQueue, Link, Network, Node, NodeKind, Station};
use crate::scenario::{Direction, Scenario};

/// The fixed host's address (10.0.0.1) and the first flow's source port.
pub(crate) const FH_ADDR: u32 = 0x0a00_0001;
/// The mobile host's address (10.0.1.2) and the first flow's destination port.
pub const MH_ADDR: u32 = 0x0a00_0102;
/// The base station's address (10.0.0.254); no TCP runs to or from it.
pub(crate) const BS_ADDR: u32 = 0x0a00_00fe;
/// Source port of flow `i` is `SRC_PORT + i`.
pub const SRC_PORT: u16 = 20000;
/// Destination port of flow `i` is `DST_PORT + i`.
pub const DST_PORT: u16 = 5001;

impl Network {
    /// Paper 000's testbed with `sc`'s settings ([`Scenario::network`] runs it unless the scenario
    /// describes a network of its own).
    pub fn paper000(sc: &Scenario) -> Network {
        Network {
            nodes: vec![
                Node {
                    name: "fh".into(),
                    kind: NodeKind::Host,
                    addr: FH_ADDR,
                },
                Node {
                    name: "bs".into(),
                    kind: NodeKind::BaseStation {
                        agent: sc.protocol.agent(),
                        input: InputQueue::default(),
                    },
                    addr: BS_ADDR,
                },
                Node {
                    name: "mh".into(),
                    kind: NodeKind::Host,
                    addr: MH_ADDR,
                },
            ],
            links: vec![Link {
                name: "wired".into(),
                ends: [0, 1],
                params: sc.wired.clone(),
            }],
            cells: vec![Cell {
                name: "wireless".into(),
                base_station: 1,
                stations: vec![Station {
                    node: 2,
                    down: sc.channel(true),
                    up: sc.channel(false),
                }],
                params: sc.wavelan.clone(),
                access: sc.access.clone(),
            }],
            flows: vec![Flow {
                name: "flow0".into(),
                from: if sc.direction == Direction::Up { 2 } else { 0 },
                to: if sc.direction == Direction::Up { 0 } else { 2 },
                protocol: sc.protocol,
                host_preset: sc.host_preset,
                host: sc.host,
                buffer: sc.buffer,
                mss: sc.mss,
                transfer: sc.transfer,
                start: 0,
                src_port: SRC_PORT,
                dst_port: DST_PORT,
                workload: crate::workload::FlowWorkload::Bulk,
            }],
            handoffs: vec![],
            crashes: vec![],
            seed: sc.seed,
            max_time: sc.max_time,
        }
    }
}
