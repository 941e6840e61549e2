//! A base station: its agent (a router, the link-layer family, a split connection) between the wired
//! side and its cell. The agent decides what to send; where it goes is the route to its destination.

use snooplab_proto::agent::{Agent, Port};
use snooplab_proto::Time;

use super::{Outgoing, Side};
use crate::packet::SimPacket;

pub struct BaseStationNode {
    pub agent: Box<dyn Agent<SimPacket>>,
    /// Frames from the cell that the channel corrupted: its link layer drops them.
    pub dropped_corrupted: u64,
}

impl BaseStationNode {
    pub fn new(agent: Box<dyn Agent<SimPacket>>) -> BaseStationNode {
        BaseStationNode {
            agent,
            dropped_corrupted: 0,
        }
    }

    pub fn on_packet(&mut self, now: Time, side: Side, packet: SimPacket) {
        if packet.corrupted {
            self.dropped_corrupted += 1;
            return;
        }
        let port = match side {
            Side::Wired => Port::Wired,
            Side::Cell => Port::Wireless,
        };
        self.agent.on_packet(now, port, packet);
    }

    pub fn on_timeout(&mut self, now: Time) {
        self.agent.on_timeout(now);
    }

    pub fn poll_transmit(&mut self, now: Time) -> Option<Outgoing> {
        self.agent.poll_transmit(now).map(|tx| Outgoing {
            packet: tx.packet,
            priority: tx.priority,
            origin: tx.origin,
            flow: None,
        })
    }

    pub fn poll_timeout(&self) -> Option<Time> {
        self.agent.poll_timeout()
    }
}
