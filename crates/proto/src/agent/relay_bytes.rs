//! The bytes a split relay carries (paper 000 section III-C: the base station "terminates" the
//! fixed host's connection and relays its data over a second connection to the mobile host).
//!
//! The relay's two TCPs ([`crate::tcp::Tcp`]) count bytes; they carry none. Between kernel hosts
//! (the live mode) the relay must carry the fixed host's real bytes, as a relay process does
//! (I-TCP, a PEPsal-style proxy): every data segment the wired side receives, in order or ahead of
//! a hole, is stored here by its offset in the transfer, and every segment the wireless side sends,
//! first or again, takes its bytes from here by the same offset. The two connections number the
//! same byte stream from their own initial sequence numbers, so byte `k` of the transfer is
//! `irs + 1 + k` on the wired side and `iss + 1 + k` on the wireless side (RFC 793 section 3.3).
//!
//! Bytes are released once the mobile host has acknowledged them: its TCP never sends them again.
//! What the store can hold is bounded: from the first unacknowledged byte, the relay buffer (what
//! the wired side has read and the wireless side not yet had acknowledged) plus the wired
//! receive window (what the fixed host may send ahead of that); anything further is not stored
//! (the fixed host sends it again once the window covers it). It allocates that once, when the
//! first real byte arrives: a modelled run, whose packets carry no bytes, never allocates.

use std::collections::VecDeque;

use crate::seq::Seq;

/// A bounded store of a byte stream's bytes by offset, from the first byte not yet released.
#[derive(Clone, Debug, Default)]
pub struct RelayBytes {
    /// Offset of the first byte held: everything before it was released.
    base: u64,
    /// The bytes from `base` on; a byte outside `have` is a placeholder.
    bytes: VecDeque<u8>,
    /// The offsets that hold real bytes: sorted, disjoint, not touching, half-open, within
    /// `base .. base + bytes.len()`.
    have: Vec<(u64, u64)>,
    /// The most bytes from `base` on it stores.
    capacity: u64,
    /// Bytes were stored at least once (the packets carry real bytes).
    used: bool,
    /// The most bytes it spanned at once (from `base` to the end of the last stored range).
    max_span: u64,
}

impl RelayBytes {
    /// A store for at most `capacity` bytes from the first unreleased one; allocates nothing yet.
    pub fn new(capacity: u64) -> RelayBytes {
        RelayBytes {
            capacity,
            ..RelayBytes::default()
        }
    }

    /// The offset of sequence number `seq` in a stream whose byte 0 is numbered `start`, taken as
    /// the one nearest the first unreleased byte (sequence numbers wrap at 2^32; offsets do not).
    /// Negative for a sequence number before the stream's start.
    pub fn position(&self, start: Seq, seq: Seq) -> i64 {
        let rel = seq.0.wrapping_sub(start.0).wrapping_sub(self.base as u32) as i32;
        self.base as i64 + i64::from(rel)
    }

    /// Stores `data` as the bytes at offset `at` on: the part before the first unreleased byte
    /// (already acknowledged by the mobile host) and past the capacity is left out. Bytes stored
    /// again overwrite the same bytes (a retransmission carries the same data). Returns how many
    /// bytes it stored.
    pub fn store(&mut self, at: i64, data: &[u8]) -> u64 {
        let base = self.base as i64;
        let end = at.saturating_add(data.len() as i64);
        let from = at.max(base);
        let to = end.min(base.saturating_add(self.capacity as i64));
        if to <= from {
            return 0;
        }
        if !self.used {
            // one allocation of the bound, once the first real byte comes
            self.used = true;
            self.bytes.reserve_exact(self.capacity as usize);
        }
        let (lo, hi) = ((from - base) as usize, (to - base) as usize);
        if self.bytes.len() < hi {
            self.bytes.resize(hi, 0);
        }
        let src = &data[(from - at) as usize..(to - at) as usize];
        for (slot, b) in self.bytes.range_mut(lo..hi).zip(src) {
            *slot = *b;
        }
        self.insert_range(from as u64, to as u64);
        self.max_span = self.max_span.max(self.bytes.len() as u64);
        (to - from) as u64
    }

    /// The `len` bytes at offset `at`, if every one of them is held.
    pub fn read(&self, at: i64, len: usize) -> Option<Vec<u8>> {
        let from = u64::try_from(at).ok()?;
        let to = from.checked_add(len as u64)?;
        if len == 0 {
            return Some(Vec::new());
        }
        if !self.have.iter().any(|&(s, e)| s <= from && to <= e) {
            return None;
        }
        let (lo, hi) = ((from - self.base) as usize, (to - self.base) as usize);
        Some(self.bytes.range(lo..hi).copied().collect())
    }

    /// Forgets every byte before offset `upto` (the mobile host acknowledged them).
    pub fn release(&mut self, upto: u64) {
        if upto <= self.base {
            return;
        }
        let n = (upto - self.base).min(self.bytes.len() as u64) as usize;
        self.bytes.drain(..n);
        self.base = upto;
        if self.bytes.is_empty() {
            // nothing spans the released point: what is held starts afresh there
            self.have.clear();
        }
        self.have.retain_mut(|r| {
            r.0 = r.0.max(upto);
            r.0 < r.1
        });
    }

    /// Offset of the first byte held (every byte before it was released).
    pub fn base(&self) -> u64 {
        self.base
    }

    /// Bytes it spans now, from the first unreleased byte to the end of the last stored one.
    pub fn held(&self) -> u64 {
        self.bytes.len() as u64
    }

    /// The most bytes it ever spanned.
    pub fn max_held(&self) -> u64 {
        self.max_span
    }

    /// The most bytes it stores.
    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    /// Bytes of memory it has allocated for the bytes (0 until the first real byte).
    pub fn allocated(&self) -> usize {
        self.bytes.capacity()
    }

    /// Whether real bytes were ever stored: the packets carry them, and what the relay sends
    /// must carry them too.
    pub fn in_use(&self) -> bool {
        self.used
    }

    /// Adds `s .. e` to the ranges held, merging what it overlaps or touches.
    fn insert_range(&mut self, s: u64, e: u64) {
        let (mut s, mut e) = (s, e);
        let mut i = 0;
        while i < self.have.len() {
            let (a, b) = self.have[i];
            if b < s {
                i += 1;
                continue;
            }
            if e < a {
                break;
            }
            s = s.min(a);
            e = e.max(b);
            self.have.remove(i);
        }
        self.have.insert(i, (s, e));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(from: u8, n: usize) -> Vec<u8> {
        (0..n).map(|i| from.wrapping_add(i as u8)).collect()
    }

    #[test]
    fn bytes_out_of_order_are_read_back_once_the_hole_is_filled() {
        let mut s = RelayBytes::new(1000);
        assert_eq!(s.allocated(), 0, "nothing allocated before a real byte");
        assert_eq!(s.store(100, &bytes(100, 50)), 50);
        assert_eq!(s.read(100, 50), Some(bytes(100, 50)));
        assert_eq!(s.read(0, 10), None, "a hole is not read");
        assert_eq!(s.read(90, 20), None, "a range across a hole is not read");
        assert_eq!(s.store(0, &bytes(0, 100)), 100);
        assert_eq!(s.read(0, 150), Some(bytes(0, 150)));
        assert_eq!(s.have, vec![(0, 150)]);
        // a retransmission stores the same bytes again
        assert_eq!(s.store(40, &bytes(40, 30)), 30);
        assert_eq!(s.read(0, 150), Some(bytes(0, 150)));
    }

    #[test]
    fn release_forgets_acknowledged_bytes_and_keeps_the_rest() {
        let mut s = RelayBytes::new(1000);
        s.store(0, &bytes(0, 200));
        s.store(300, &bytes(44, 100));
        s.release(150);
        assert_eq!(s.base(), 150);
        assert_eq!(s.read(100, 10), None, "released");
        assert_eq!(s.read(150, 50), Some(bytes(150, 50)));
        assert_eq!(s.read(300, 100), Some(bytes(44, 100)));
        assert_eq!(s.held(), 250);
        // old bytes (a duplicate of acknowledged data) are not stored again
        assert_eq!(s.store(100, &bytes(100, 60)), 10);
        s.release(400);
        assert_eq!(s.held(), 0);
        assert!(s.have.is_empty());
        // releasing past everything held, then storing there
        s.release(1000);
        assert_eq!(s.store(1000, &bytes(7, 10)), 10);
        assert_eq!(s.read(1000, 10), Some(bytes(7, 10)));
    }

    #[test]
    fn the_store_never_holds_more_than_its_capacity_and_allocates_it_once() {
        let cap = 4096;
        let mut s = RelayBytes::new(cap);
        // a window's worth past the capacity: only what fits is stored
        assert_eq!(s.store(0, &bytes(0, 3000)), 3000);
        let alloc = s.allocated();
        assert!(alloc >= cap as usize && alloc < 2 * cap as usize, "{alloc}");
        assert_eq!(s.store(3000, &bytes(0, 3000)), 1096);
        assert_eq!(s.store(5000, &bytes(0, 100)), 0);
        assert_eq!(s.held(), cap);
        // the stream goes on for a hundred times the capacity, released as it goes
        let mut at = 4096u64;
        s.release(at);
        for _ in 0..400 {
            s.store(at as i64, &bytes(at as u8, 1000));
            assert!(s.held() <= cap);
            at += 1000;
            s.release(at - 500);
        }
        assert_eq!(s.max_held(), cap);
        assert_eq!(s.allocated(), alloc, "never reallocated");
    }

    #[test]
    fn positions_follow_the_stream_across_sequence_wrap() {
        let mut s = RelayBytes::new(1 << 20);
        let start = Seq(u32::MAX - 10);
        assert_eq!(s.position(start, Seq(u32::MAX - 10)), 0);
        assert_eq!(s.position(start, Seq(5)), 16);
        assert_eq!(s.position(start, start + 0) - 1, -1);
        // 5 GB into the stream the offsets keep counting past 2^32
        s.release(5 << 30);
        let seq = start + ((5u64 << 30) as u32) + 7;
        assert_eq!(s.position(start, seq), (5 << 30) + 7);
    }
}
