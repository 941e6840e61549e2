//! A host outside the engine (`stack = "kernel"`): a real Linux host in a network namespace, or a
//! test's stand-in. The engine runs none of its protocols: what the network delivers to it waits
//! in `to_host` until the loop hands it to the driver ([`crate::run::Driver::send`]), and what the
//! driver read from it waits in `from_host` until the node's kick sends it into the network,
//! routed like any other node's packet. Both queues are bounded ([`QUEUE_LIMIT`]); the loop empties
//! them after every event, so they hold at most what one event delivers.
//!
//! A mobile host outside the engine that hands off (paper 002) has the engine's mobility layer
//! below its kernel's TCP (`mobility.rs`, the same layer a modelled host has): the loop gives it
//! what the host hears before the host gets it (the IP ids of the last packets, beacons,
//! confirmations), its requests to the base stations leave ahead of the kernel's packets, and the
//! handoff messages addressed to the host stop at the layer: a kernel has no handler for them
//! (paper 002 section 6 puts this layer in the mobile host's IP, under TCP).

use std::collections::VecDeque;

use snooplab_proto::agent::{Origin, Priority};
use snooplab_proto::Time;

use super::{MobileLayer, Outgoing};
use crate::packet::SimPacket;

/// Packets each queue of an external host holds; more are dropped and counted. One event
/// delivers at most one packet per station of a cell (a beacon), and one read one packet.
pub(crate) const QUEUE_LIMIT: usize = 1024;

#[derive(Clone, Debug, Default)]
pub struct ExternalHost {
    /// Delivered by the network, for the driver to hand to the host.
    to_host: VecDeque<SimPacket>,
    /// Read from the host, to enter the network at this node.
    from_host: VecDeque<SimPacket>,
    /// Packets that found a queue full.
    pub drops: u64,
    /// The mobility layer of a mobile host that hands off.
    pub mobile: Option<MobileLayer>,
}

impl ExternalHost {
    /// An outside host with `mobile` as its mobility layer (none for a host that does not hand
    /// off).
    pub(crate) fn with_mobility(mobile: Option<MobileLayer>) -> ExternalHost {
        ExternalHost {
            mobile,
            ..ExternalHost::default()
        }
    }

    /// The network delivers `packet` (corrupted frames too: the host's kernel drops them on the
    /// checksum). A handoff message is the mobility layer's, never the kernel's: the loop gave
    /// it to the layer already if it arrived intact, and a corrupted one the layer drops on its
    /// UDP checksum.
    pub fn on_packet(&mut self, packet: SimPacket) {
        if packet.mobility().is_some() {
            return;
        }
        push_bounded(&mut self.to_host, packet, &mut self.drops);
    }

    /// The host sent `packet`: it enters the network at the node's next kick.
    pub fn sent(&mut self, packet: SimPacket) {
        push_bounded(&mut self.from_host, packet, &mut self.drops);
    }

    /// The next packet for the host.
    pub(crate) fn take_delivered(&mut self) -> Option<SimPacket> {
        self.to_host.pop_front()
    }

    /// The mobility layer's requests first (as a modelled mobile host's go ahead of its TCP's
    /// segments), then what the host sent.
    pub fn poll_transmit(&mut self) -> Option<Outgoing> {
        if let Some(out) = self.mobile.as_mut().and_then(MobileLayer::poll_request) {
            return Some(out);
        }
        self.from_host.pop_front().map(|packet| Outgoing {
            packet,
            priority: Priority::Normal,
            origin: Origin::Forwarded,
            flow: None,
        })
    }

    /// The mobility layer's timer (a handoff on the timer, a request repeated); the host's own
    /// timers are its kernel's.
    pub fn on_timeout(&mut self, now: Time) {
        if let Some(m) = &mut self.mobile {
            m.on_timeout(now);
        }
    }

    pub fn poll_timeout(&self) -> Option<Time> {
        self.mobile.as_ref()?.poll_timeout()
    }
}

fn push_bounded(q: &mut VecDeque<SimPacket>, p: SimPacket, drops: &mut u64) {
    if q.len() < QUEUE_LIMIT {
        q.push_back(p);
    } else {
        *drops += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use snooplab_proto::agent::handoff::{
        MobileConfig, MobileHandoff, Mobility, MobilityPacket, Trigger,
    };
    use snooplab_proto::time::SEC;

    const MH: u32 = 0x0a00_0005;
    const BS1: u32 = 0x0a00_0003;
    const BS2: u32 = 0x0a00_0004;

    fn mobile_host() -> ExternalHost {
        let cfg = MobileConfig::paper002(MH, vec![BS1, BS2], Trigger::Every(SEC));
        ExternalHost::with_mobility(MobileHandoff::new(cfg).map(MobileLayer::from))
    }

    #[test]
    fn the_layers_requests_go_ahead_of_the_hosts_packets_and_its_messages_stop_at_it() {
        let mut x = mobile_host();
        assert_eq!(
            x.poll_timeout(),
            Some(SEC),
            "the handoff timer is the node's"
        );
        let kernel = SimPacket::new(crate::packet::test_segment(), None);
        x.sent(kernel.clone());
        x.on_timeout(SEC);
        // Forward to the new primary, Buffer to the old one, then the kernel's packet
        let first = x
            .poll_transmit()
            .map(|o| (o.packet.route_dst(), o.packet.mobility().cloned()));
        assert!(
            matches!(first, Some((BS2, Some(Mobility::Forward { mh: MH, .. })))),
            "{first:?}"
        );
        let second = x.poll_transmit().map(|o| o.packet.route_dst());
        assert_eq!(second, Some(BS1));
        assert_eq!(x.poll_transmit().map(|o| o.packet), Some(kernel.clone()));
        assert!(x.poll_transmit().is_none());
        // a handoff message (intact or corrupted) is never handed to the kernel; its packets are
        let mut msg = SimPacket::control(BS2, MH, Mobility::Buffer { mh: MH });
        x.on_packet(msg.clone());
        msg.corrupted = true;
        x.on_packet(msg);
        x.on_packet(kernel.clone());
        assert_eq!(x.take_delivered(), Some(kernel));
        assert!(x.take_delivered().is_none());
        assert_eq!(x.drops, 0);
    }
}
