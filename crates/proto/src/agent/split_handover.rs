//! A split base station's part in a split handoff (paper 002 section 8's I-TCP baseline): at a
//! mobile host's handoff the old base station hands over the relays of that host's connections,
//! and the new one takes them in beside the relays it holds already; every other connection's
//! relay stays where it is and keeps running.
//!
//! Paper 002 section 2: "During a handoff, the I-TCP connections must be moved from the base
//! station currently forwarding data to another one. This is done by transferring the state
//! associated with the two connections to the new base station", and "the state maintained at a
//! base station in I-TCP consists mainly of a set of socket buffers ... the latency of handoff is
//! proportional to the size of these socket buffers". A mobile host's connections are the ones
//! whose wireless-side end is its address (the relay table's key, `split.rs`).
//!
//! Our readings where the sources leave it open:
//! - One message per mobile host: its relays travel together, in one [`HandedOver`], and reach
//!   the new base station after one transfer time for all the bytes they hold
//!   (`Scheme::state_transfer_time`): the handoff is the mobile host's and its time grows with
//!   "these socket buffers" together. A mobile host with no relay here moves an empty state, the
//!   265 ms I-TCP measured for empty socket buffers (with one connection, what the I-TCP
//!   baseline always moved).
//! - With the relays go what the base station remembers of the host's other connections: those
//!   closed (a late segment of one gets the same answer there) and those forwarded end to end at
//!   the memory bound (still forwarded there, not reset as unknown).
//! - A segment of a handed-over connection that still reaches the old base station (one in flight
//!   before the home agent moved the tunnel) passes untouched, as a router would pass it: the
//!   connection lives on at the new base station, and a reset would abort it.
//! - At the new base station the memory bound ([`SplitConfig::max_memory`]) limits the relays
//!   made there at a SYN; a relay taken over at the bound is kept all the same and counted
//!   (`relays_over_bound`): its bytes are acknowledged to their sender already, so refusing it
//!   would lose them, where a new connection beyond the bound can still go end to end. The table
//!   is then over its bound by the relays taken over, until enough of its relays close; every SYN
//!   meanwhile goes end to end.
//!
//! [`SplitConfig::max_memory`]: super::SplitConfig::max_memory

use super::snoop::BuildPacket;
use super::split::{relays_stats, Key, SplitAgent};
use super::split_relay::SplitRelay;
use super::{Counters, Handover, Port, Relay, RelayReport, SegmentView};
use crate::time::Time;

/// One mobile host's split connections, taken out of a base station at its handoff and on their
/// way to the new one.
#[derive(Clone, Debug)]
pub struct HandedOver<P> {
    mh: u32,
    relays: Vec<(Key, SplitRelay<P>)>,
    /// Connections whose relay had closed: when, and what the closed relay answers.
    closed: Vec<(Key, Time, (Port, bool))>,
    /// Connections forwarded end to end, and when last seen.
    unsplit: Vec<(Key, Time, ())>,
}

impl<P> HandedOver<P> {
    /// The mobile host whose connections these are.
    pub fn mobile(&self) -> u32 {
        self.mh
    }

    /// Relays in it.
    pub fn relays(&self) -> usize {
        self.relays.len()
    }

    /// What its relays counted, under the split agent's names (a run that ends while they
    /// travel counts them at the base station they are going to).
    pub fn counters(&self) -> Counters {
        relays_stats(self.relays.iter().map(|(_, r)| r)).named()
    }

    /// The bytes its relays hold, both ways: what the state transfer's time grows with.
    pub fn held_bytes(&self) -> u64 {
        self.relays.iter().map(|(_, r)| r.held()).sum()
    }
}

/// The relays on their way report as those held do (a run may end while they travel).
impl<P> Relay for HandedOver<P> {
    fn reports(&self) -> Vec<RelayReport> {
        self.relays.iter().map(|(_, r)| r.report()).collect()
    }
}

/// Whether connection `key` is mobile host `mh`'s: its wireless-side end.
fn of_mobile(key: &Key, mh: u32) -> bool {
    key.1.addr == mh
}

impl<P: SegmentView + BuildPacket + Clone + 'static> Handover<P> for SplitAgent<P> {
    /// Always a state, empty when `mh` has no connection here: whether `mh`'s state is at this
    /// base station at all is the handoff layer's to know (`handoff/base_station.rs`).
    fn hand_over(&mut self, now: Time, mh: u32) -> Option<HandedOver<P>> {
        let keys: Vec<Key> = self
            .relays
            .keys()
            .filter(|k| of_mobile(k, mh))
            .copied()
            .collect();
        let relays: Vec<(Key, SplitRelay<P>)> = keys
            .into_iter()
            .filter_map(|k| self.relays.remove(&k).map(|r| (k, r)))
            .collect();
        let closed = self.closed.take_where(|k| of_mobile(k, mh));
        let unsplit = self.unsplit.take_where(|k| of_mobile(k, mh));
        let gone = relays.iter().map(|(k, _)| k);
        for k in gone
            .chain(closed.iter().map(|(k, ..)| k))
            .chain(unsplit.iter().map(|(k, ..)| k))
        {
            self.handed_over.insert(*k, now, ());
        }
        self.moved.0 += relays.len() as u64;
        Some(HandedOver {
            mh,
            relays,
            closed,
            unsplit,
        })
    }

    fn take_over(&mut self, _now: Time, state: HandedOver<P>) {
        for (k, mut r) in state.relays {
            self.handed_over.remove(&k);
            if self.relays.contains_key(&k) {
                // a relay made here for the same connection while its state was on its way (a
                // SYN sent again): the one taken over holds the connection's bytes and goes on;
                // this one's report is kept
                self.remove(&k);
            }
            if self.relays.len() as u64 >= self.cfg.max_relays() {
                self.moved.2 += 1;
            }
            r.index = self.placed;
            self.placed += 1;
            self.relays.insert(k, r);
            self.moved.1 += 1;
        }
        self.most = self.most.max(self.relays.len() as u64);
        for (k, at, v) in state.closed {
            self.handed_over.remove(&k);
            self.closed.insert(k, at, v);
        }
        for (k, at, ()) in state.unsplit {
            self.handed_over.remove(&k);
            self.unsplit.insert(k, at, ());
        }
    }
}
