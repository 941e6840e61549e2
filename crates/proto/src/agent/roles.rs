//! The roles an agent may take besides the four sans-IO calls, each a narrow trait the agent opts
//! into through its accessor on [`Agent`](super::Agent) (`queue_reader`, `mirror`, `relay`,
//! `handover`), which returns `None` by default: a host asks only for the role it serves, and an
//! agent that takes none implements none.

use super::split_handover::HandedOver;
use super::{Departure, RelayReport};
use crate::time::Time;

/// Reads the base station's queues: the input queue's length (loss classifiers: the ELN marker,
/// the NACK generator, paper 004 section 3.3) and the departures from its wireless transmit queue
/// (snoop, [`super::snoop::SnoopConfig::queue_aware`]).
pub trait QueueReader<P> {
    /// The base station's input queue holds `len` of at most `max` packets: told before each
    /// packet from it is handed over.
    fn on_input_queue(&mut self, _len: usize, _max: usize) {}
    /// A packet this agent sent to its wireless port left the base station's own transmit queue at
    /// `now`: on the air (its frame ended) or dropped. A host that reports departures reports
    /// every one; an agent that has never been told takes each packet to go on the air when it is
    /// forwarded (the live mode, which hands packets to the kernel at once). Returns whether the
    /// agent read it (its timers may have moved, so the host asks `poll_timeout` again).
    fn on_departure(&mut self, _now: Time, _packet: &P, _how: Departure) -> bool {
        false
    }
}

/// Keeps a copy of packets for a mobile host this base station buffers for but does not forward
/// to (paper 002 section 5): a caching agent mirrors them; nothing is sent.
pub trait Mirror<P> {
    fn mirror(&mut self, now: Time, packet: P);
}

/// Runs TCP senders of its own, one per connection it splits (a split connection's far half).
pub trait Relay {
    /// Each relay's sender's counters, the newest first: those held, then those removed.
    fn reports(&self) -> Vec<RelayReport>;
}

/// Moves a mobile host's connection state between base stations at its handoff
/// ([`super::handoff::Scheme::SplitTransfer`]): a split base station's relays of that host's
/// connections (`split_handover.rs`), and the handoff layer above it, which knows where each
/// mobile host's state is (`handoff/base_station.rs`).
pub trait Handover<P: super::SegmentView> {
    /// Mobile host `mh`'s connection state, taken out of this base station at `now`; `None` when
    /// it is not here.
    fn hand_over(&mut self, now: Time, mh: u32) -> Option<HandedOver<P>>;
    /// ... and put into the new one when it arrives.
    fn take_over(&mut self, now: Time, state: HandedOver<P>);
}
