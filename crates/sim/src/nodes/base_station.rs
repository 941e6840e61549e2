//! A base station: its agent (a router, the link-layer family, a split connection, the ELN marker)
//! between the wired side and its cell, behind its IP input queue. The agent decides what to send;
//! where it goes is the route to its destination.

use std::collections::VecDeque;

use snooplab_proto::agent::{Agent, Departure, Port};
use snooplab_proto::time::earliest;
use snooplab_proto::Time;

use super::{Outgoing, Side};
use crate::network::InputQueue;
use crate::packet::SimPacket;

#[derive(Clone)]
pub struct BaseStationNode {
    pub agent: Box<dyn Agent<SimPacket>>,
    /// Frames from the cell that the channel corrupted: its link layer drops them.
    pub dropped_corrupted: u64,
    input: InputQueue,
    /// Packets waiting for the forwarding path, with the side they came from and the queue's
    /// length when they arrived.
    waiting: VecDeque<(Port, SimPacket, usize)>,
    /// When the packet at the head of `waiting` has been processed.
    busy_until: Option<Time>,
    /// Packets that found the input queue full.
    pub input_drops: u64,
    /// Crashed: receives nothing, sends nothing, until it restarts.
    down: bool,
    /// Packets that arrived while it was down.
    pub crash_drops: u64,
}

impl BaseStationNode {
    pub fn new(agent: Box<dyn Agent<SimPacket>>, input: InputQueue) -> BaseStationNode {
        BaseStationNode {
            agent,
            dropped_corrupted: 0,
            input,
            waiting: VecDeque::new(),
            busy_until: None,
            input_drops: 0,
            down: false,
            crash_drops: 0,
        }
    }

    /// Crashes: every packet waiting is lost and `fresh` replaces the agent and all it held; the
    /// node is down until [`BaseStationNode::restart`].
    pub fn crash(&mut self, fresh: Box<dyn Agent<SimPacket>>) {
        self.crash_drops += self.waiting.len() as u64;
        self.waiting.clear();
        self.busy_until = None;
        self.agent = fresh;
        self.down = true;
    }

    pub(crate) fn restart(&mut self) {
        self.down = false;
    }

    /// A packet arrives from `side`: lost if the station is down or the frame corrupted, else to
    /// the agent or its IP input queue. (Inlined into the node's dispatch, where the loop
    /// delivers: the call cost `bench` 0.8% of its instructions.)
    #[inline(always)]
    pub fn on_packet(&mut self, now: Time, side: Side, packet: SimPacket) {
        if self.down {
            self.crash_drops += 1;
            return;
        }
        if packet.corrupted {
            self.dropped_corrupted += 1;
            return;
        }
        let port = match side {
            Side::Wired => Port::Wired,
            Side::Cell => Port::Wireless,
        };
        if self.input.service == 0 {
            self.tell_input_queue(0);
            self.agent.on_packet(now, port, packet);
            return;
        }
        if self.waiting.len() >= self.input.max {
            self.input_drops += 1;
            return;
        }
        self.waiting.push_back((port, packet, self.waiting.len()));
        if self.busy_until.is_none() {
            self.busy_until = Some(now + self.input.service);
        }
    }

    pub fn on_timeout(&mut self, now: Time) {
        if self.down {
            return;
        }
        let serve = self.busy_until.is_some_and(|t| t <= now);
        if serve {
            if let Some((port, packet, queued)) = self.waiting.pop_front() {
                // the agent sees the queue as the packet found it on arrival (paper 004 section
                // 3.3: "When a new, out-of-sequence packet arrives at the BS, the snoop agent
                // checks the size of its input queue")
                self.tell_input_queue(queued);
                self.agent.on_packet(now, port, packet);
            }
            self.busy_until = (!self.waiting.is_empty()).then(|| now + self.input.service);
        }
        // the timer was the agent's unless the forwarding path was due; then only if it is too
        if !serve || self.agent.poll_timeout().is_some_and(|t| t <= now) {
            self.agent.on_timeout(now);
        }
    }

    /// Its agent, if it reads the input queue, learns that `len` packets wait there.
    fn tell_input_queue(&mut self, len: usize) {
        let max = self.input.max;
        if let Some(q) = self.agent.queue_reader() {
            q.on_input_queue(len, max);
        }
    }

    /// A packet it sent towards its wireless side left its transmit queue there: on the air (its
    /// frame ended) or dropped. Its agent learns what still waits ([`QueueReader::on_departure`]; snoop
    /// resends nothing that does). Not while it is down: a frame on the air when it crashed
    /// belongs to the agent it lost.
    /// Returns whether the agent read it (and may want its timer re-armed).
    pub(crate) fn on_departure(&mut self, now: Time, packet: &SimPacket, how: Departure) -> bool {
        !self.down
            && self
                .agent
                .queue_reader()
                .is_some_and(|q| q.on_departure(now, packet, how))
    }

    pub fn poll_transmit(&mut self, now: Time) -> Option<Outgoing> {
        if self.down {
            return None;
        }
        self.agent.poll_transmit(now).map(|tx| Outgoing {
            packet: tx.packet,
            priority: tx.priority,
            origin: tx.origin,
            flow: None,
        })
    }

    pub fn poll_timeout(&self) -> Option<Time> {
        if self.down {
            return None;
        }
        earliest(self.agent.poll_timeout(), self.busy_until)
    }
}
