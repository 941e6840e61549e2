//! A plain router: forwards every packet to the other port, in order, at normal priority.

use std::collections::VecDeque;

use super::{Agent, Counters, Port, SegmentView, Transmit};
use crate::time::Time;

#[derive(Clone, Debug)]
pub struct Router<P> {
    out: VecDeque<Transmit<P>>,
    /// Packets passed on.
    forwarded: u64,
}

impl<P> Default for Router<P> {
    fn default() -> Self {
        Router {
            out: VecDeque::new(),
            forwarded: 0,
        }
    }
}

impl<P: SegmentView + Clone + 'static> Agent<P> for Router<P> {
    fn on_packet(&mut self, _now: Time, from: Port, packet: P) {
        self.forwarded += 1;
        self.out
            .push_back(Transmit::forward(from.opposite(), packet));
    }
    fn on_timeout(&mut self, _now: Time) {}
    fn poll_transmit(&mut self, _now: Time) -> Option<Transmit<P>> {
        self.out.pop_front()
    }
    fn poll_timeout(&self) -> Option<Time> {
        None
    }
    fn counters(&self) -> Counters {
        Counters(vec![("forwarded", self.forwarded)])
    }
}
