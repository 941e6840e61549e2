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
pub const QUEUE_LIMIT: usize = 1024;

#[derive(Debug, Default)]
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
    pub fn with_mobility(mobile: Option<MobileLayer>) -> ExternalHost {
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
    pub fn take_delivered(&mut self) -> Option<SimPacket> {
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
}

impl ExternalHost {
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
