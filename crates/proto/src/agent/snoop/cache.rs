//! The snoop cache (paper 002 section 6): unacknowledged segments from the fixed host, in sequence
//! order, with what snoop needs to know about each.

use std::collections::VecDeque;

use crate::seq::Seq;
use crate::time::Time;

#[derive(Clone, Debug)]
pub struct Entry<P> {
    pub seq: Seq,
    pub len: u32,
    pub packet: P,
    /// Local retransmissions of this segment since the sender last sent it.
    pub local_rexmits: u32,
    /// The fixed host retransmitted this segment: duplicate ACKs for it belong to the sender.
    pub sender_rexmit: bool,
    /// Number of data packets forwarded to the mobile host before this one was last sent.
    pub sent_index: u64,
    /// When it was last sent to the mobile host (forwarded or retransmitted).
    pub last_tx: Time,
    /// Copies sent (forwarded or retransmitted) that have not left the base station's transmit
    /// queue yet. Read only where the host reports departures.
    pub waiting: u32,
    /// SMART information says the mobile host has it.
    pub received: bool,
}

impl<P> Entry<P> {
    pub fn end(&self) -> Seq {
        self.seq + self.len
    }

    /// A copy still waits in the base station's transmit queue, as far as the host's reports of
    /// departures tell (`known`: it reports them).
    pub fn queued(&self, known: bool) -> bool {
        known && self.waiting > 0
    }

    /// One more copy goes to the base station's transmit queue.
    pub fn sent(&mut self, now: Time) {
        self.last_tx = now;
        self.waiting = self.waiting.saturating_add(1);
    }
}

#[derive(Clone, Debug)]
pub struct Cache<P> {
    entries: VecDeque<Entry<P>>,
    bytes: u64,
}

impl<P> Default for Cache<P> {
    fn default() -> Self {
        Cache {
            entries: VecDeque::new(),
            bytes: 0,
        }
    }
}

impl<P> Cache<P> {
    pub fn len(&self) -> usize {
        self.entries.len()
    }
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
    pub fn iter(&self) -> impl Iterator<Item = &Entry<P>> {
        self.entries.iter()
    }
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut Entry<P>> {
        self.entries.iter_mut()
    }

    /// The entry starting at `seq`.
    pub fn find_mut(&mut self, seq: Seq) -> Option<&mut Entry<P>> {
        self.entries.iter_mut().find(|e| e.seq == seq)
    }

    /// The first entry, if it starts at `seq`: the segment a duplicate ACK for `seq` asks for.
    pub fn head_at(&mut self, seq: Seq) -> Option<&mut Entry<P>> {
        self.entries.front_mut().filter(|e| e.seq == seq)
    }

    pub fn front_mut(&mut self) -> Option<&mut Entry<P>> {
        self.entries.front_mut()
    }

    /// Inserts in sequence order, after any entry with the same start. Searches from the back:
    /// almost every segment is the newest.
    pub fn insert(&mut self, e: Entry<P>) {
        let pos = self
            .entries
            .iter()
            .rposition(|x| !e.seq.lt(x.seq))
            .map_or(0, |i| i + 1);
        self.bytes += u64::from(e.len);
        self.entries.insert(pos, e);
    }

    /// Frees the segment starting at `seq`.
    pub fn remove(&mut self, seq: Seq) -> Option<Entry<P>> {
        let i = self.entries.iter().position(|e| e.seq == seq)?;
        let e = self.entries.remove(i)?;
        self.bytes -= u64::from(e.len);
        Some(e)
    }

    /// Frees the oldest segment (a buffering base station's cache when full, paper 002 section 5).
    pub fn pop_front(&mut self) -> Option<Entry<P>> {
        let e = self.entries.pop_front()?;
        self.bytes -= u64::from(e.len);
        Some(e)
    }

    /// Frees every segment the mobile host has acknowledged; returns how many.
    pub fn clean(&mut self, ack: Seq) -> usize {
        let mut n = 0;
        while self.entries.front().is_some_and(|e| e.end().le(ack)) {
            if let Some(e) = self.entries.pop_front() {
                self.bytes -= u64::from(e.len);
                n += 1;
            }
        }
        n
    }
}
