//! The armed timers of a run with few of them (a cell and a handful of nodes: every paper's
//! runs): one entry per armed timer in a list sorted by key, each timer knowing its place, so
//! that the earliest is the first entry and re-arming moves an entry past its neighbours.
//!
//! Why: with a few timers the heap (`timers.rs`) costs more than it saves. A cell's timer is
//! re-armed a little later at nearly every CSMA step: in the heap it sank past the root's four
//! children each time (`sift_down` 6.8% of a paper-001 run), here it usually stays put after
//! one comparison, or moves past one neighbour. A flat array scanned for its least key at each
//! event cost more still (the scan, about 100 instructions an event with six timers, ran at
//! nearly every event). Keys are unique (`time << 64 | order`), so every structure gives the
//! same earliest timer.

/// The most timers kept this way; a run with more (200 flows through one base station) keeps
/// them in the heap, whose cost grows with the logarithm of their number, not with it.
pub(super) const LIST_MAX: usize = 16;

/// `pos` of a timer that is not armed.
const NONE: u32 = u32::MAX;

#[derive(Clone, Copy)]
struct Armed {
    /// The key of the queue's order (`time << 64 | order`).
    key: u128,
    slot: u32,
}

/// Timers numbered `0..slots`, each armed at a key or not.
#[derive(Clone)]
pub(super) struct TimerList {
    /// The armed timers, earliest first.
    list: Vec<Armed>,
    /// Each timer's index in `list`, or [`NONE`].
    pos: Vec<u32>,
}

impl TimerList {
    pub(super) fn new(slots: usize) -> TimerList {
        TimerList {
            list: Vec::with_capacity(slots),
            pos: vec![NONE; slots],
        }
    }

    /// The earliest key, and its timer.
    #[inline]
    pub(super) fn first(&self) -> Option<(u128, usize)> {
        self.list.first().map(|a| (a.key, a.slot as usize))
    }

    /// Arms timer `slot` at `key`, in place of the key it had.
    #[inline]
    pub(super) fn set(&mut self, slot: usize, key: u128) {
        let armed = Armed {
            key,
            slot: slot as u32,
        };
        let i = match self.pos[slot] {
            NONE => {
                self.list.push(armed);
                self.list.len() - 1
            }
            i => i as usize,
        };
        self.place(i, armed);
    }

    /// Disarms timer `slot` (nothing if it is not armed).
    pub(super) fn remove(&mut self, slot: usize) {
        let i = self.pos[slot];
        if i == NONE {
            return;
        }
        self.pos[slot] = NONE;
        self.list.remove(i as usize);
        for (k, a) in self.list.iter().enumerate().skip(i as usize) {
            self.pos[a.slot as usize] = k as u32;
        }
    }

    /// Puts `a` at its place in key order, starting from index `i` (whose entry it replaces),
    /// moving the entries it passes by one.
    #[inline]
    fn place(&mut self, mut i: usize, a: Armed) {
        while i > 0 && self.list[i - 1].key > a.key {
            let b = self.list[i - 1];
            self.list[i] = b;
            self.pos[b.slot as usize] = i as u32;
            i -= 1;
        }
        while i + 1 < self.list.len() && self.list[i + 1].key < a.key {
            let b = self.list[i + 1];
            self.list[i] = b;
            self.pos[b.slot as usize] = i as u32;
            i += 1;
        }
        self.list[i] = a;
        self.pos[a.slot as usize] = i as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_one_entry_per_timer_in_key_order() {
        // the heap's test, on the list: arm, re-arm earlier and later, disarm, in a
        // pseudo-random mix; the first entry is always the least key among the armed timers
        let slots = LIST_MAX;
        let mut t = TimerList::new(slots);
        let mut model: Vec<Option<u128>> = vec![None; slots];
        let mut x = 7u64;
        for step in 0..20000u128 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let slot = (x >> 40) as usize % slots;
            if (x >> 20).is_multiple_of(5) {
                t.remove(slot);
                model[slot] = None;
            } else {
                let key = u128::from((x >> 50) % 64) << 64 | step;
                t.set(slot, key);
                model[slot] = Some(key);
            }
            let want = (0..slots).filter_map(|s| model[s].map(|k| (k, s))).min();
            assert_eq!(t.first(), want);
            assert_eq!(t.list.len(), model.iter().flatten().count());
            assert!(t.list.windows(2).all(|w| w[0].key < w[1].key));
        }
    }
}
