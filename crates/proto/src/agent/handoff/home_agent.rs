//! The home agent (paper 002 section 4, Fig. 3): it intercepts packets for a mobile host's home
//! address and encapsulates each to the mobile host's multicast group, whose members are the base
//! stations near it. Multicast delivery is modelled as one encapsulated copy per member, each sent
//! by unicast routing to that base station; the members change with `Join` and `Prune` messages,
//! which stand in for IGMP and multicast routing. Every other packet is routed on.

use std::collections::{BTreeMap, VecDeque};

use super::{Mobility, MobilityPacket, Tunnel};
use crate::agent::{agent_counters, Agent, Counters, Port, Transmit};
use crate::time::Time;

agent_counters! {
    /// What the home agent counted.
    pub struct HomeAgentStats {
        /// Packets routed on, and encapsulated copies sent to the group's members.
        pub forwarded,
        /// Packets for a mobile host whose group had no member.
        pub dropped,
    }
}

#[derive(Clone, Debug)]
pub struct HomeAgent<P> {
    addr: u32,
    /// Mobile host (home address) -> the base stations of its group, in the order they joined.
    groups: BTreeMap<u32, Vec<u32>>,
    out: VecDeque<Transmit<P>>,
    stats: HomeAgentStats,
}

impl<P: MobilityPacket> HomeAgent<P> {
    /// A home agent at `addr` serving `groups`: each mobile host's home address and the base
    /// stations in its group at the start.
    pub fn new(addr: u32, groups: impl IntoIterator<Item = (u32, Vec<u32>)>) -> HomeAgent<P> {
        HomeAgent {
            addr,
            groups: groups.into_iter().collect(),
            out: VecDeque::new(),
            stats: HomeAgentStats::default(),
        }
    }

    /// The members of `mh`'s group.
    pub fn members(&self, mh: u32) -> &[u32] {
        group(&self.groups, mh)
    }
}

/// The members of `mh`'s group in `groups` (read apart from the agent where the agent queues
/// packets while it walks them).
fn group(groups: &BTreeMap<u32, Vec<u32>>, mh: u32) -> &[u32] {
    groups.get(&mh).map_or(&[], |g| g.as_slice())
}

impl<P: MobilityPacket + 'static> Agent<P> for HomeAgent<P> {
    fn on_packet(&mut self, _now: Time, from: Port, packet: P) {
        if let Some(msg) = packet.mobility() {
            match *msg {
                Mobility::Join { mh, bs } => {
                    let g = self.groups.entry(mh).or_default();
                    if !g.contains(&bs) {
                        g.push(bs);
                    }
                    return;
                }
                Mobility::Prune { mh, bs } => {
                    if let Some(g) = self.groups.get_mut(&mh) {
                        g.retain(|&b| b != bs);
                    }
                    return;
                }
                Mobility::Register { mh, bs } => {
                    self.groups.insert(mh, vec![bs]);
                    return;
                }
                _ => {}
            }
        }
        let home = packet
            .segment()
            .map(|s| s.dst.addr)
            .filter(|a| packet.tunnel().is_none() && self.groups.contains_key(a));
        let Some(mh) = home else {
            self.stats.forwarded += 1;
            self.out
                .push_back(Transmit::forward(from.opposite(), packet));
            return;
        };
        let members = group(&self.groups, mh);
        let Some((&last, others)) = members.split_last() else {
            self.stats.dropped += 1;
            return;
        };
        // a copy for each member but the last, and the packet itself for the last
        let tunnel = |dst| Tunnel {
            src: self.addr,
            dst,
        };
        for &bs in others {
            let copy = packet.clone().encapsulate(tunnel(bs));
            self.out.push_back(Transmit::forward(Port::Wireless, copy));
        }
        let own = packet.encapsulate(tunnel(last));
        self.out.push_back(Transmit::forward(Port::Wireless, own));
        self.stats.forwarded += members.len() as u64;
    }

    fn on_timeout(&mut self, _now: Time) {}

    fn poll_transmit(&mut self, _now: Time) -> Option<Transmit<P>> {
        self.out.pop_front()
    }

    fn poll_timeout(&self) -> Option<Time> {
        None
    }

    fn counters(&self) -> Counters {
        self.stats.named()
    }
}
