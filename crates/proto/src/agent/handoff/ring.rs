//! A buffering base station's circular buffer (paper 002 section 6): the last packets the home agent
//! sent to the mobile host, and the synchronisation on handoff with the IP ids the mobile host
//! reports.

use std::collections::VecDeque;

/// The last `capacity` packets, with their IP ids, oldest first.
#[derive(Clone, Debug)]
pub struct Ring<P> {
    capacity: usize,
    items: VecDeque<(u16, P)>,
}

/// What [`Ring::sync`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Synced<P> {
    /// The packets after the last reported id (all of them if no id was found), oldest first.
    pub send: Vec<P>,
    /// Whether one of the ids was in the buffer.
    pub found: bool,
    /// Packets freed as already delivered.
    pub freed: usize,
}

impl<P: Clone> Ring<P> {
    /// "we store at most 12 packets" (section 6); 0 keeps nothing (a hard handoff).
    pub fn new(capacity: usize) -> Ring<P> {
        Ring {
            capacity,
            items: VecDeque::with_capacity(capacity),
        }
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Keeps a copy of `packet`, forgetting the oldest when full: the copy is written over the
    /// oldest ([`Clone::clone_from`]), so a full ring asks the allocator for nothing.
    pub fn push(&mut self, ip_id: u16, packet: &P) {
        if self.capacity == 0 {
            return;
        }
        if self.items.len() == self.capacity {
            if let Some(mut oldest) = self.items.pop_front() {
                oldest.0 = ip_id;
                oldest.1.clone_from(packet);
                self.items.push_back(oldest);
                return;
            }
        }
        self.items.push_back((ip_id, packet.clone()));
    }

    /// Section 6: "The base station searches for these IDs in its circular buffer and frees all
    /// packets that arrived before them. The remaining TCP packets in the circular buffer are
    /// transmitted to the mobile host. If the IP IDs are not found, the entire circular buffer is
    /// sent." The reported packets themselves reached the mobile host, so they are freed too; the
    /// newest match counts (an id repeats only after 65536 packets).
    pub fn sync(&mut self, reported: &[u16]) -> Synced<P> {
        let hit = self.items.iter().rposition(|(id, _)| reported.contains(id));
        let freed = hit.map_or(0, |i| i + 1);
        self.items.drain(..freed);
        Synced {
            send: self.items.iter().map(|(_, p)| p.clone()).collect(),
            found: hit.is_some(),
            freed,
        }
    }

    /// Forgets everything (a crash).
    pub fn clear(&mut self) {
        self.items.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A packet that tells a new copy from one written into a kept packet.
    #[derive(Debug, PartialEq)]
    struct Counted(u16, bool);

    impl Clone for Counted {
        fn clone(&self) -> Counted {
            Counted(self.0, true)
        }
        fn clone_from(&mut self, source: &Counted) {
            *self = Counted(source.0, false);
        }
    }

    #[test]
    fn a_full_ring_writes_the_new_copy_over_the_oldest() {
        let mut r = Ring::new(2);
        for i in 1..=3u16 {
            r.push(i, &Counted(i, false));
        }
        let held: Vec<_> = r.items.iter().collect();
        assert_eq!(held, [&(2, Counted(2, true)), &(3, Counted(3, false))]);
    }
}
