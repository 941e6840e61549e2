//! The armed timers of a run's nodes and cells: a 4-ary min-heap with at most one entry per
//! timer, each timer knowing its place, so that re-arming moves the entry instead of adding one.
//!
//! Why: a timer re-armed by pushing a new entry with a generation number (the scheme before)
//! left its old entry in the event queue until its time came; the queue grew with them (a
//! paper-001 cell's averaged 25 entries, most of them stale) and every pop paid for the depth
//! and for skipping them. Here a timer that is not armed is not in the heap at all, and the heap
//! holds one entry per armed timer.

/// Children per heap node: the event heap's.
use super::ARITY;

use super::timer_list::{TimerList, LIST_MAX};

/// A run's timers: in a sorted list when they are few (`timer_list.rs`), in the heap below
/// otherwise.
/// Either gives the same earliest timer: only the cost differs.
#[derive(Clone)]
pub(super) enum Timers {
    List(TimerList),
    Heap(TimerHeap),
}

impl Timers {
    pub(super) fn new(slots: usize) -> Timers {
        if slots <= LIST_MAX {
            Timers::List(TimerList::new(slots))
        } else {
            Timers::Heap(TimerHeap::new(slots))
        }
    }

    /// The earliest key, and its timer.
    #[inline]
    pub(super) fn first(&self) -> Option<(u128, usize)> {
        match self {
            Timers::List(t) => t.first(),
            Timers::Heap(t) => t.first(),
        }
    }

    /// Arms timer `slot` at `key`, in place of the key it had.
    #[inline]
    pub(super) fn set(&mut self, slot: usize, key: u128) {
        match self {
            Timers::List(t) => t.set(slot, key),
            Timers::Heap(t) => t.set(slot, key),
        }
    }

    /// Disarms timer `slot` (nothing if it is not armed).
    #[inline]
    pub(super) fn remove(&mut self, slot: usize) {
        match self {
            Timers::List(t) => t.remove(slot),
            Timers::Heap(t) => t.remove(slot),
        }
    }
}

/// `pos` of a timer that is not armed.
const NONE: u32 = u32::MAX;

#[derive(Clone, Copy)]
struct Armed {
    /// The key of the queue's order (`time << 64 | order`).
    key: u128,
    slot: u32,
}

/// Timers numbered `0..slots`, each armed at a key or not.
#[derive(Clone, Default)]
pub(super) struct TimerHeap {
    heap: Vec<Armed>,
    /// Each timer's index in `heap`, or [`NONE`].
    pos: Vec<u32>,
}

impl TimerHeap {
    pub(super) fn new(slots: usize) -> TimerHeap {
        TimerHeap {
            heap: Vec::with_capacity(slots),
            pos: vec![NONE; slots],
        }
    }

    /// The earliest key, and its timer.
    #[inline]
    pub(super) fn first(&self) -> Option<(u128, usize)> {
        self.heap.first().map(|a| (a.key, a.slot as usize))
    }

    /// Arms timer `slot` at `key`, in place of the key it had.
    pub(super) fn set(&mut self, slot: usize, key: u128) {
        let i = self.pos[slot];
        if i == NONE {
            let i = self.heap.len();
            self.heap.push(Armed {
                key,
                slot: slot as u32,
            });
            self.pos[slot] = i as u32;
            self.sift_up(i);
            return;
        }
        let i = i as usize;
        let old = self.heap[i].key;
        self.heap[i].key = key;
        if key < old {
            self.sift_up(i);
        } else {
            self.sift_down(i);
        }
    }

    /// Disarms timer `slot` (nothing if it is not armed).
    pub(super) fn remove(&mut self, slot: usize) {
        let i = self.pos[slot];
        if i == NONE {
            return;
        }
        self.pos[slot] = NONE;
        let i = i as usize;
        let last = self.heap.len() - 1;
        if i == last {
            self.heap.pop();
            return;
        }
        let moved = self.heap[last];
        self.heap.pop();
        let old = self.heap[i].key;
        self.heap[i] = moved;
        self.pos[moved.slot as usize] = i as u32;
        if moved.key < old {
            self.sift_up(i);
        } else {
            self.sift_down(i);
        }
    }

    fn sift_up(&mut self, mut i: usize) {
        let a = self.heap[i];
        while i > 0 {
            let parent = (i - 1) / ARITY;
            let p = self.heap[parent];
            if p.key <= a.key {
                break;
            }
            self.heap[i] = p;
            self.pos[p.slot as usize] = i as u32;
            i = parent;
        }
        self.heap[i] = a;
        self.pos[a.slot as usize] = i as u32;
    }

    fn sift_down(&mut self, mut i: usize) {
        let a = self.heap[i];
        while let Some(c) = super::earliest_child(&self.heap, i, |e| e.key) {
            let child = self.heap[c];
            if child.key >= a.key {
                break;
            }
            self.heap[i] = child;
            self.pos[child.slot as usize] = i as u32;
            i = c;
        }
        self.heap[i] = a;
        self.pos[a.slot as usize] = i as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_one_entry_per_timer_in_key_order() {
        // arm, re-arm earlier and later, disarm, in a pseudo-random mix; the first entry is
        // always the least key among the armed timers
        let slots = 37;
        let mut h = TimerHeap::new(slots);
        let mut model: Vec<Option<u128>> = vec![None; slots];
        let mut x = 99u64;
        for step in 0..5000u128 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let slot = (x >> 40) as usize % slots;
            if (x >> 20).is_multiple_of(5) {
                h.remove(slot);
                model[slot] = None;
            } else {
                let key = u128::from((x >> 50) % 64) << 64 | step;
                h.set(slot, key);
                model[slot] = Some(key);
            }
            let want = (0..slots).filter_map(|s| model[s].map(|k| (k, s))).min();
            assert_eq!(h.first(), want);
            assert_eq!(h.heap.len(), model.iter().flatten().count());
        }
    }
}
