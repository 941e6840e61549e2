//! A host outside the engine (`stack = "kernel"`): a real Linux host in a network namespace, or a
//! test's stand-in. The engine runs none of its protocols: what the network delivers to it waits
//! in `to_host` until the loop hands it to the driver ([`crate::run::Driver::send`]), and what the
//! driver read from it waits in `from_host` until the node's kick sends it into the network,
//! routed like any other node's packet. Both queues are bounded ([`QUEUE_LIMIT`]); the loop empties
//! them after every event, so they hold at most what one event delivers.

use std::collections::VecDeque;

use snooplab_proto::agent::{Origin, Priority};

use super::Outgoing;
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
}

impl ExternalHost {
    /// The network delivers `packet` (corrupted frames too: the host's kernel drops them on the
    /// checksum).
    pub fn on_packet(&mut self, packet: SimPacket) {
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

    pub fn poll_transmit(&mut self) -> Option<Outgoing> {
        self.from_host.pop_front().map(|packet| Outgoing {
            packet,
            priority: Priority::Normal,
            origin: Origin::Forwarded,
            flow: None,
        })
    }
}

fn push_bounded(q: &mut VecDeque<SimPacket>, p: SimPacket, drops: &mut u64) {
    if q.len() < QUEUE_LIMIT {
        q.push_back(p);
    } else {
        *drops += 1;
    }
}
