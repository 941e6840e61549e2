//! The bytes of a live transfer and the digest both ends compute over them.
//!
//! The sender's bytes are a function of the seed and the offset (so a segment delivered at the wrong
//! place changes the digest); the digest is order-sensitive and independent of how the stream is cut
//! into reads and writes.

/// Fills `buf` with the transfer's bytes starting at `offset` (one function with the engine's
/// modelled senders, which put the same bytes on the wire).
pub use snooplab_sim::transfer_bytes::fill;
use snooplab_sim::transfer_bytes::mix;

/// An order-sensitive 64-bit digest of a byte stream, fed in pieces of any size.
#[derive(Clone, Debug)]
pub struct StreamDigest {
    state: u64,
    tail: [u8; 8],
    tail_len: usize,
    bytes: u64,
}

impl Default for StreamDigest {
    fn default() -> Self {
        StreamDigest {
            state: 0x6A09_E667_F3BC_C908,
            tail: [0; 8],
            tail_len: 0,
            bytes: 0,
        }
    }
}

impl StreamDigest {
    fn absorb(&mut self, word: u64) {
        self.state = (self.state ^ word)
            .wrapping_mul(0x0000_0100_0000_01B3)
            .rotate_left(29)
            .wrapping_add(0x9E37_79B9_7F4A_7C15);
    }

    pub fn update(&mut self, mut data: &[u8]) {
        self.bytes += data.len() as u64;
        if self.tail_len > 0 {
            let take = (8 - self.tail_len).min(data.len());
            self.tail[self.tail_len..self.tail_len + take].copy_from_slice(&data[..take]);
            self.tail_len += take;
            data = &data[take..];
            if self.tail_len < 8 {
                return;
            }
            self.absorb(u64::from_le_bytes(self.tail));
            self.tail_len = 0;
        }
        let mut words = data.chunks_exact(8);
        for w in &mut words {
            let mut b = [0u8; 8];
            b.copy_from_slice(w);
            self.absorb(u64::from_le_bytes(b));
        }
        let rest = words.remainder();
        self.tail[..rest.len()].copy_from_slice(rest);
        self.tail_len = rest.len();
    }

    /// Bytes fed so far.
    pub fn len(&self) -> u64 {
        self.bytes
    }

    pub fn is_empty(&self) -> bool {
        self.bytes == 0
    }

    pub fn finish(&self) -> u64 {
        let mut d = self.clone();
        let mut last = [0u8; 8];
        last[..d.tail_len].copy_from_slice(&d.tail[..d.tail_len]);
        d.absorb(u64::from_le_bytes(last));
        d.absorb(d.bytes);
        mix(d.state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn transfer(seed: u64, len: usize) -> Vec<u8> {
        let mut v = vec![0; len];
        fill(seed, 0, &mut v);
        v
    }

    proptest! {
        #[test]
        fn digest_does_not_depend_on_how_the_stream_is_cut(
            len in 0usize..5000,
            cuts in proptest::collection::vec(1usize..700, 1..20),
        ) {
            let data = transfer(7, len);
            let mut whole = StreamDigest::default();
            whole.update(&data);
            let mut pieces = StreamDigest::default();
            let mut at = 0;
            for c in cuts.iter().cycle() {
                if at >= data.len() { break; }
                let end = (at + c).min(data.len());
                pieces.update(&data[at..end]);
                at = end;
            }
            prop_assert_eq!(whole.finish(), pieces.finish());
            prop_assert_eq!(pieces.len(), len as u64);
        }

        #[test]
        fn any_changed_byte_changes_the_digest(len in 1usize..3000, at in 0usize..3000, x in 1u8..) {
            let data = transfer(3, len);
            let mut bad = data.clone();
            bad[at % len] ^= x;
            let d = |b: &[u8]| { let mut h = StreamDigest::default(); h.update(b); h.finish() };
            prop_assert_ne!(d(&data), d(&bad));
        }

        #[test]
        fn fill_at_an_offset_continues_the_stream(start in 0u64..100, len in 0usize..100) {
            let all = transfer(11, (start as usize) * 8 + len);
            let mut part = vec![0; len];
            fill(11, start * 8, &mut part);
            prop_assert_eq!(&all[(start as usize) * 8..], &part[..]);
        }
    }

    #[test]
    fn a_segment_moved_by_its_length_changes_the_digest() {
        let data = transfer(1, 4 * 1400);
        let mut swapped = data.clone();
        swapped[..1400].copy_from_slice(&data[1400..2800]);
        swapped[1400..2800].copy_from_slice(&data[..1400]);
        let d = |b: &[u8]| {
            let mut h = StreamDigest::default();
            h.update(b);
            h.finish()
        };
        assert_ne!(d(&data), d(&swapped));
    }
}
