//! Spare buffers for real packets' bytes (`raw.rs`), kept by length on the live engine's thread.
//!
//! The engine copies each packet a kernel host wrote into a buffer of that packet's length, and
//! when it has written a packet into a host's device, that packet's buffer is free again. A bulk
//! transfer's packets have a few lengths (full data segments, ACKs with or without SACK blocks),
//! so the buffers are kept in one stack per length and a packet read takes one of its own length
//! at once, however the lengths came in: on a full-duplex hop (`--env off`) a host's data comes in
//! bursts of up to 64 segments and its ACKs in bursts of their own, and the last few spare packets
//! then all had the burst's length, so the other length's packets went to the allocator (a
//! profile of the 512 MB run put `malloc`, `free` and the search for a fitting box at about a
//! tenth of the engine thread's user time).
//!
//! Bounded: at most [`POOL_BUFFERS`] buffers in at most [`POOL_LENGTHS`] lengths; a buffer that
//! does not fit is freed, as before the pool.

use std::cell::RefCell;
use std::sync::Arc;

/// The most spare buffers a thread keeps: as many as spare packet boxes (`packet.rs`), so that
/// each box recycled after a write can lend its buffer too. Each is at most one packet long
/// (a TUN device's MTU), 256 x 1.5 kB at the usual MTU.
pub(crate) const POOL_BUFFERS: usize = 256;
/// The most lengths kept at once; a new length takes the place of one whose stack is empty.
pub(crate) const POOL_LENGTHS: usize = 8;

thread_local! {
    static POOL: RefCell<BytesPool> = const { RefCell::new(BytesPool::new()) };
}

/// Buffers nobody else holds, one stack per length.
#[derive(Debug, Default)]
pub(crate) struct BytesPool {
    stacks: Vec<(usize, Vec<Arc<[u8]>>)>,
    held: usize,
}

impl BytesPool {
    const fn new() -> BytesPool {
        BytesPool {
            stacks: Vec::new(),
            held: 0,
        }
    }

    /// Keeps `bytes` for a later packet of its length, if nobody else holds them (an agent's
    /// cache may: then they stay with it) and there is room.
    pub(crate) fn keep(&mut self, mut bytes: Arc<[u8]>) {
        if self.held >= POOL_BUFFERS || Arc::get_mut(&mut bytes).is_none() {
            return;
        }
        let len = bytes.len();
        let at = match self.stacks.iter().position(|(l, _)| *l == len) {
            Some(at) => at,
            None => match self.stacks.iter().position(|(_, s)| s.is_empty()) {
                Some(at) => {
                    self.stacks[at].0 = len;
                    at
                }
                None if self.stacks.len() < POOL_LENGTHS => {
                    self.stacks.push((len, Vec::new()));
                    self.stacks.len() - 1
                }
                None => return,
            },
        };
        self.stacks[at].1.push(bytes);
        self.held += 1;
    }

    /// A buffer holding a copy of `bytes`: a kept one of their length, else a new one.
    pub(crate) fn copy_of(&mut self, bytes: &[u8]) -> Arc<[u8]> {
        let kept = self
            .stacks
            .iter_mut()
            .find(|(l, _)| *l == bytes.len())
            .and_then(|(_, s)| s.pop());
        if let Some(mut buf) = kept {
            self.held -= 1;
            // always unique: `keep` took it so, and the pool lends it to no one
            if let Some(b) = Arc::get_mut(&mut buf) {
                b.copy_from_slice(bytes);
                return buf;
            }
        }
        Arc::from(bytes)
    }

    /// How many buffers are kept.
    #[cfg(test)]
    pub(crate) fn held(&self) -> usize {
        self.held
    }
}

/// [`BytesPool::keep`] on this thread's pool.
pub(crate) fn keep(bytes: Arc<[u8]>) {
    POOL.with_borrow_mut(|p| p.keep(bytes));
}

/// [`BytesPool::copy_of`] on this thread's pool.
pub(crate) fn copy_of(bytes: &[u8]) -> Arc<[u8]> {
    POOL.with_borrow_mut(|p| p.copy_of(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_buffer_is_lent_again_to_a_packet_of_its_length_however_deep() {
        let mut pool = BytesPool::new();
        let ack: Arc<[u8]> = Arc::from(&[0u8; 52][..]);
        let ack_at = ack.as_ptr();
        pool.keep(ack);
        // a burst of data packets recycled after the ACK
        for _ in 0..40 {
            pool.keep(Arc::from(&[0u8; 1500][..]));
        }
        assert_eq!(pool.held(), 41);
        let again = pool.copy_of(&[7u8; 52]);
        assert_eq!(again.as_ptr(), ack_at, "the ACK's buffer, under 40 others");
        assert_eq!(&again[..], &[7u8; 52][..]);
        assert_eq!(pool.held(), 40);
        // a length never kept gets a buffer of its own
        let other = pool.copy_of(&[1u8; 60]);
        assert_eq!(&other[..], &[1u8; 60][..]);
        assert_eq!(pool.held(), 40);
    }

    #[test]
    fn shared_buffers_are_not_kept_and_the_pool_is_bounded() {
        let mut pool = BytesPool::new();
        let shared: Arc<[u8]> = Arc::from(&[0u8; 100][..]);
        let cached = Arc::clone(&shared);
        pool.keep(shared);
        assert_eq!(pool.held(), 0, "an agent's cached copy still holds it");
        assert_eq!(&cached[..], &[0u8; 100][..]);
        for _ in 0..POOL_BUFFERS + 10 {
            pool.keep(Arc::from(&[0u8; 100][..]));
        }
        assert_eq!(pool.held(), POOL_BUFFERS);
        // lengths: at most POOL_LENGTHS stacks; a new length takes an emptied one's place
        let mut pool = BytesPool::new();
        for len in 1..=POOL_LENGTHS + 3 {
            pool.keep(Arc::from(vec![0u8; len]));
        }
        assert_eq!(pool.held(), POOL_LENGTHS);
        let _ = pool.copy_of(&[0u8; 1]);
        pool.keep(Arc::from(vec![0u8; 99]));
        assert_eq!(pool.held(), POOL_LENGTHS);
        assert_eq!(pool.stacks.len(), POOL_LENGTHS);
        let reused = pool.copy_of(&[5u8; 99]);
        assert_eq!(&reused[..], &[5u8; 99][..]);
    }
}
