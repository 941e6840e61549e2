//! The event queue (docs/architecture.md#rules): a binary heap keyed on (time, insertion order), events as
//! small inline values, stale timers skipped by generation number.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use snooplab_proto::Time;

struct Entry<E> {
    time: Time,
    order: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.order == other.order
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    fn cmp(&self, other: &Self) -> Ordering {
        // reversed: the heap pops the earliest, then the first inserted
        (other.time, other.order).cmp(&(self.time, self.order))
    }
}

pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    next_order: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue {
            heap: BinaryHeap::with_capacity(256),
            next_order: 0,
        }
    }
}

impl<E> EventQueue<E> {
    #[inline]
    pub fn push(&mut self, time: Time, event: E) {
        self.heap.push(Entry {
            time,
            order: self.next_order,
            event,
        });
        self.next_order += 1;
    }

    #[inline(always)]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        self.heap.pop().map(|e| (e.time, e.event))
    }

    /// When the earliest event is due.
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| e.time)
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

/// A node's timer: the deadline it asked for and the generation that makes older entries stale.
#[derive(Clone, Copy, Debug, Default)]
pub struct TimerSlot {
    pub armed: Option<Time>,
    pub generation: u32,
}

impl TimerSlot {
    /// Records the node's wanted deadline; returns `Some((time, generation))` when a new queue entry
    /// is needed.
    pub fn update(&mut self, want: Option<Time>) -> Option<(Time, u32)> {
        if want == self.armed {
            return None;
        }
        self.armed = want;
        self.generation = self.generation.wrapping_add(1);
        want.map(|t| (t, self.generation))
    }

    /// True if an entry of `generation` is the live one (not re-armed or cancelled since).
    pub fn is_live(&self, generation: u32) -> bool {
        generation == self.generation && self.armed.is_some()
    }

    /// True if a popped entry of `generation` is the live one; disarms it.
    pub fn fire(&mut self, generation: u32) -> bool {
        if generation == self.generation && self.armed.is_some() {
            self.armed = None;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_then_insertion_order() {
        let mut q = EventQueue::default();
        q.push(5, 'a');
        q.push(3, 'b');
        q.push(5, 'c');
        q.push(3, 'd');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['b', 'd', 'a', 'c']);
    }

    #[test]
    fn stale_timers_are_skipped() {
        let mut slot = TimerSlot::default();
        let (_, g1) = slot.update(Some(10)).unwrap();
        assert!(
            slot.update(Some(10)).is_none(),
            "same deadline: no new entry"
        );
        let (_, g2) = slot.update(Some(20)).unwrap();
        assert!(!slot.fire(g1));
        assert!(slot.fire(g2));
        assert!(!slot.fire(g2));
    }
}
