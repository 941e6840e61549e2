//! The frames the middlebox reads and writes in batches: read from the receive ring
//! (`ring.rs`) a batch at a time, and written with one system call for many (`sendmmsg(2)`,
//! `af_packet.rs`) instead of one each: a busy line costs the loop a call per batch, not per
//! frame. [`Slots`] are the fixed-size places a batch is read into; [`Outgoing`] queues the
//! frames for one interface, back to back, until the loop writes them all.

/// The most frames one batch reads, and the most queued frames one call writes.
pub const BATCH: usize = 64;
/// The largest frame read: an MTU of 9000 (jumbo frames) and its header, with room to spare.
/// A larger read is a GRO or LRO super-frame (see `SideCounters::oversize`).
pub const MAX_FRAME: usize = 16384;

/// [`BATCH`] places of [`MAX_FRAME`] bytes each, and the frames read into them: each one's place,
/// the bytes of it held, and its real length (more than those held: a frame cut). A place may be left out (a frame
/// the socket read but the bridge does not take, such as one the host sent).
pub struct Slots {
    data: Vec<u8>,
    lens: Vec<(usize, usize, usize)>,
}

impl Default for Slots {
    /// [`BATCH`] places.
    fn default() -> Self {
        Slots {
            data: vec![0; BATCH * MAX_FRAME],
            lens: Vec::with_capacity(BATCH),
        }
    }
}

impl Slots {
    /// No place at all (nothing allocated): what stands in for the bridge's slots while it
    /// reads them.
    pub fn none() -> Slots {
        Slots {
            data: Vec::new(),
            lens: Vec::new(),
        }
    }

    /// Forgets the frames read.
    pub fn clear(&mut self) {
        self.lens.clear();
    }

    /// How many frames were read.
    pub fn len(&self) -> usize {
        self.lens.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lens.is_empty()
    }

    /// Frame `i`'s real length (more than [`Slots::frame`] holds for a frame cut).
    pub fn real_len(&self, i: usize) -> usize {
        self.lens[i].2
    }

    /// Frame `i`, as much of it as was read.
    pub fn frame(&self, i: usize) -> &[u8] {
        let (place, held, _) = self.lens[i];
        let start = place * MAX_FRAME;
        &self.data[start..start + held]
    }

    /// The place after the last frame's: its index and bytes, if there is one left.
    pub fn next_place(&mut self) -> Option<(usize, &mut [u8])> {
        let i = self.lens.last().map_or(0, |l| l.0 + 1);
        let place = self.data.get_mut(i * MAX_FRAME..(i + 1) * MAX_FRAME)?;
        Some((i, place))
    }

    /// Place `place` (after the last frame's) now holds the first `held` bytes of a frame of
    /// real length `len`.
    pub fn filled(&mut self, place: usize, held: usize, len: usize) {
        let exists = (place + 1) * MAX_FRAME <= self.data.len();
        if exists && self.lens.last().is_none_or(|l| l.0 < place) {
            self.lens.push((place, held.min(MAX_FRAME), len));
        }
    }
}

/// Where a queued frame came from, for the counters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Passed unchanged from the other side.
    Passed,
    /// Sent by the agent.
    Agent,
}

/// The frames queued for one interface, back to back in one buffer.
#[derive(Default)]
pub struct Outgoing {
    data: Vec<u8>,
    /// Each frame's (start, length, origin).
    frames: Vec<(usize, usize, Origin)>,
}

impl Outgoing {
    /// Queues a frame made of `header` then `body` (either may be empty).
    pub fn push(&mut self, header: &[u8], body: &[u8], origin: Origin) {
        let start = self.data.len();
        self.data.extend_from_slice(header);
        self.data.extend_from_slice(body);
        self.frames.push((start, header.len() + body.len(), origin));
    }

    pub fn len(&self) -> usize {
        self.frames.len()
    }

    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }

    /// Frame `i`.
    pub fn frame(&self, i: usize) -> &[u8] {
        let (start, len, _) = self.frames[i];
        &self.data[start..start + len]
    }

    pub fn origin(&self, i: usize) -> Origin {
        self.frames[i].2
    }

    /// Forgets every frame (the buffer's room is kept).
    pub fn clear(&mut self) {
        self.data.clear();
        self.frames.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_queue_back_to_back_with_their_origin() {
        let mut q = Outgoing::default();
        q.push(&[1, 2], &[3], Origin::Agent);
        q.push(&[], &[9; 5], Origin::Passed);
        assert_eq!(
            (q.len(), q.frame(0), q.frame(1)),
            (2, &[1, 2, 3][..], &[9; 5][..])
        );
        assert_eq!(q.origin(0), Origin::Agent);
        q.clear();
        assert!(q.is_empty());
    }

    #[test]
    fn a_frame_cut_shows_its_place_and_its_real_length() {
        let mut s = Slots::default();
        let (place, bytes) = s.next_place().expect("room");
        bytes[..3].copy_from_slice(&[7, 7, 7]);
        s.filled(place, 3, 3);
        s.filled(2, MAX_FRAME, MAX_FRAME + 10); // place 1 left out
        assert_eq!(s.frame(0), &[7, 7, 7]);
        assert_eq!(
            (s.real_len(1), s.frame(1).len()),
            (MAX_FRAME + 10, MAX_FRAME)
        );
        assert_eq!(s.next_place().map(|p| p.0), Some(3));
        s.filled(BATCH - 1, 1, 1);
        assert!(s.next_place().is_none());
    }
}
