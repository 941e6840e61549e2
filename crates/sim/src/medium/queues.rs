//! A station's transmit queues: local retransmissions (high priority) before queued traffic, as
//! every access model takes them.

use std::collections::VecDeque;

use super::{Frame, StationId};

/// A frame queued at a station, and where it goes.
#[derive(Clone, Debug)]
pub(super) struct Queued<P> {
    pub(super) to: StationId,
    /// The frame's IP bytes, found once as it is queued: a CSMA station reads them when it
    /// loads the frame and again when it sends it, and each read is a call into the packet.
    pub(super) len: u32,
    pub(super) frame: P,
}

/// A station's transmit queues: local retransmissions (high) go before queued traffic.
#[derive(Clone, Debug)]
pub(super) struct Queues<P> {
    pub(super) high: VecDeque<Queued<P>>,
    pub(super) normal: VecDeque<Queued<P>>,
}

impl<P> Default for Queues<P> {
    fn default() -> Self {
        Queues {
            high: VecDeque::new(),
            normal: VecDeque::new(),
        }
    }
}

impl<P> Queues<P> {
    pub(super) fn is_empty(&self) -> bool {
        self.high.is_empty() && self.normal.is_empty()
    }
    pub(super) fn len(&self) -> usize {
        self.high.len() + self.normal.len()
    }

    /// The next frame (high priority first), where it waits.
    pub(super) fn head_mut(&mut self) -> Option<&mut Queued<P>> {
        if self.high.is_empty() {
            self.normal.front_mut()
        } else {
            self.high.front_mut()
        }
    }

    /// The next frame (high priority first), moved once: `or_else` on the two pops moved it twice.
    pub(super) fn pop(&mut self) -> Option<Queued<P>> {
        if self.high.is_empty() {
            self.normal.pop_front()
        } else {
            self.high.pop_front()
        }
    }
}

impl<P: Frame> Queues<P> {
    /// IP bytes of the frame that goes next (0 if none).
    pub(super) fn head_len(&self) -> u32 {
        self.high
            .front()
            .or_else(|| self.normal.front())
            .map_or(0, |q| q.len)
    }
}
