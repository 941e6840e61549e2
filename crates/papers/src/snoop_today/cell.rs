//! The `flows` part's network: paper 000's testbed with `n` mobile hosts in the base station's
//! cell, each downloading its own transfer from the fixed host at the same time (issue 51: "1 to
//! 20 flows in a cell"). One flow is paper 000's testbed unchanged.

use snooplab_sim::network::paper000::{DST_PORT, MH_ADDR, SRC_PORT};
use snooplab_sim::network::{Flow, Network, Node, NodeKind, Station};
use snooplab_sim::scenario::Scenario;

/// `sc`'s testbed with `n` mobile hosts: `mh` (paper 000's) and `mh2`..`mhn` at the next
/// addresses, each a station of the one cell with `sc`'s channels (each station's own errors), and
/// flow `i` from the fixed host to mobile host `i` with `sc`'s TCP, buffer and transfer, on ports
/// `SRC_PORT + i` / `DST_PORT + i`. Every flow starts at 0: a reading of "at the same time";
/// the model's turns-based medium has no collisions for simultaneous SYNs to suffer.
pub fn cell_of(sc: &Scenario, n: usize) -> Network {
    let mut net = Network::paper000(sc);
    let (Some(first_flow), Some(cell)) = (net.flows.first().cloned(), net.cells.first_mut()) else {
        return net;
    };
    let Some(first_station) = cell.stations.first().cloned() else {
        return net;
    };
    for i in 1..n {
        let node = net.nodes.len();
        net.nodes.push(Node {
            name: format!("mh{}", i + 1),
            kind: NodeKind::Host,
            addr: MH_ADDR + i as u32,
        });
        cell.stations.push(Station {
            node,
            ..first_station.clone()
        });
        net.flows.push(Flow {
            name: format!("flow{i}"),
            to: node,
            src_port: SRC_PORT + i as u16,
            dst_port: DST_PORT + i as u16,
            ..first_flow.clone()
        });
    }
    net
}

#[cfg(test)]
mod tests {
    use super::*;
    use snooplab_sim::protocol::Protocol;
    use snooplab_sim::Env;

    #[test]
    fn every_mobile_host_is_a_station_with_its_own_download() {
        let sc = Scenario::paper000(Protocol::LlTcpAware, Env::Lan, 65536, 1);
        assert_eq!(cell_of(&sc, 1), Network::paper000(&sc));
        let net = cell_of(&sc, 5);
        assert_eq!(net.cells.len(), 1);
        assert_eq!(net.cells[0].stations.len(), 5);
        assert_eq!(net.flows.len(), 5);
        for (i, f) in net.flows.iter().enumerate() {
            assert_eq!(f.from, 0, "every flow from the fixed host");
            assert_eq!(net.nodes[f.to].addr, MH_ADDR + i as u32);
            assert!(net.is_mobile(f.to));
            assert_eq!((f.transfer, f.buffer, f.start), (sc.transfer, 65536, 0));
        }
        assert_eq!(net.validate(), Ok(()));
    }
}
