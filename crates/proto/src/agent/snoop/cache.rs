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
    /// Packets of entries freed, kept for the next copies ([`Cache::copy_of`]); at most
    /// [`SPARE_PACKETS`]. Not cached segments: nothing reads them but the next copy.
    spare: Vec<P>,
}

/// The most freed packets a cache keeps for its next copies: an ACK frees one or two segments
/// (a delayed ACK covers two) and the next data segments take them again.
const SPARE_PACKETS: usize = 8;

impl<P> Default for Cache<P> {
    fn default() -> Self {
        Cache {
            entries: VecDeque::new(),
            bytes: 0,
            spare: Vec::new(),
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

    /// Whether an entry starts at `seq`. The entries are in sequence order ([`Cache::insert`]),
    /// so the search goes from the back and stops at the first entry that starts before `seq`:
    /// a new segment, the usual question, is answered by the newest entry alone.
    pub fn holds(&self, seq: Seq) -> bool {
        for e in self.entries.iter().rev() {
            if e.seq == seq {
                return true;
            }
            if e.seq.lt(seq) {
                return false;
            }
        }
        false
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
        self.bytes += u64::from(e.len);
        if self.entries.back().is_none_or(|x| !e.seq.lt(x.seq)) {
            // the newest: appended (`VecDeque::insert` at the end costs several times more)
            self.entries.push_back(e);
            return;
        }
        let pos = self
            .entries
            .iter()
            .rposition(|x| !e.seq.lt(x.seq))
            .map_or(0, |i| i + 1);
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
    pub fn evict_oldest(&mut self) {
        if let Some(e) = self.entries.pop_front() {
            self.bytes -= u64::from(e.len);
            self.keep_spare(e.packet);
        }
    }

    /// Frees every segment the mobile host has acknowledged; returns how many.
    pub fn clean(&mut self, ack: Seq) -> usize {
        let mut n = 0;
        while self.entries.front().is_some_and(|e| e.end().le(ack)) {
            if let Some(e) = self.entries.pop_front() {
                self.bytes -= u64::from(e.len);
                self.keep_spare(e.packet);
                n += 1;
            }
        }
        n
    }

    /// A freed entry's packet, kept for a later copy while there is room.
    fn keep_spare(&mut self, packet: P) {
        if self.spare.len() < SPARE_PACKETS {
            self.spare.push(packet);
        }
    }
}

impl<P: Clone> Cache<P> {
    /// A copy of `packet` to cache: written into a freed entry's packet where one is kept
    /// ([`Clone::clone_from`]: a packet that lives in a box keeps its box), a new copy otherwise.
    pub fn copy_of(&mut self, packet: &P) -> P {
        match self.spare.pop() {
            Some(mut p) => {
                p.clone_from(packet);
                p
            }
            None => packet.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A packet that tells a new copy from one written into a packet kept for it.
    #[derive(Debug, PartialEq, Eq)]
    struct Counted {
        seq: u32,
        fresh_copy: bool,
    }

    impl Clone for Counted {
        fn clone(&self) -> Counted {
            Counted {
                seq: self.seq,
                fresh_copy: true,
            }
        }
        fn clone_from(&mut self, source: &Counted) {
            self.seq = source.seq;
            self.fresh_copy = false;
        }
    }

    fn entry<P>(seq: u32, len: u32, packet: P) -> Entry<P> {
        Entry {
            seq: Seq(seq),
            len,
            packet,
            local_rexmits: 0,
            sender_rexmit: false,
            sent_index: 0,
            last_tx: 0,
            waiting: 0,
            received: false,
        }
    }

    #[test]
    fn a_copy_after_a_clean_is_written_into_a_freed_packet() {
        let mut c = Cache::default();
        let first = Counted {
            seq: 1,
            fresh_copy: false,
        };
        let copy = c.copy_of(&first);
        assert!(copy.fresh_copy, "nothing freed yet: a new copy");
        c.insert(entry(1, 100, copy));
        assert_eq!(c.clean(Seq(101)), 1);
        let copy = c.copy_of(&Counted {
            seq: 101,
            fresh_copy: false,
        });
        assert_eq!(copy.seq, 101);
        assert!(!copy.fresh_copy, "the freed packet took the copy");
        // the spares are bounded, however many are freed at once
        for i in 0..100 {
            c.insert(entry(1000 + 10 * i, 10, copy.clone()));
        }
        assert_eq!(c.clean(Seq(5000)), 100);
        assert_eq!(c.spare.len(), SPARE_PACKETS);
        assert_eq!((c.len(), c.bytes()), (0, 0));
    }

    proptest! {
        /// The entries stay in sequence order whatever the order the segments came in, and
        /// `holds`, which stops at the first older entry, answers as a search of every entry
        /// does (sequence numbers near the wrap too).
        #[test]
        fn holds_answers_as_a_full_search(
            base in prop_oneof![Just(0u32), Just(u32::MAX - 5000), any::<u32>()],
            starts in proptest::collection::vec(0u32..60, 0..40),
            freed in 0u32..30,
            asked in 0u32..70,
        ) {
            let mut c = Cache::default();
            for s in &starts {
                c.insert(entry(base.wrapping_add(s * 100), 100, ()));
            }
            // in sequence order, appended or not
            let seqs: Vec<Seq> = c.iter().map(|e| e.seq).collect();
            prop_assert!(seqs.windows(2).all(|w| !w[1].lt(w[0])));
            prop_assert_eq!(c.bytes(), 100 * starts.len() as u64);
            c.clean(Seq(base.wrapping_add(freed * 100)));
            if freed % 3 == 0 {
                c.evict_oldest();
            }
            let seq = Seq(base.wrapping_add(asked * 100));
            prop_assert_eq!(c.holds(seq), c.iter().any(|e| e.seq == seq));
        }
    }
}
