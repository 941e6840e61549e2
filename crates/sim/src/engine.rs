//! The event queue (docs/architecture.md#rules): a 4-ary min-heap keyed on (time, insertion
//! order), events as small inline values, and beside it the nodes' and cells' timers, one entry
//! at most per timer (`timers.rs`: a sorted list when there are few, `timer_list.rs`, a heap
//! otherwise), drawing their order from the same count: what comes next is the least key of
//! the two.
//!
//! Why not `std::collections::BinaryHeap`: popping it was 11-12% of a run's instructions
//! (docs/speed.md), much of it for the stale entries of re-armed timers, which are gone now
//! (`timers.rs`). The one-off events left are few; here their key is one `u128` (time above,
//! order below: one comparison) and a node has four children. The order of insertion makes
//! every key distinct, so any correct heap pops the same sequence.

use snooplab_proto::Time;

mod timer_list;
mod timers;

use timers::Timers;

/// Children per heap node.
const ARITY: usize = 4;

#[derive(Clone)]
struct Entry<E> {
    /// `time << 64 | order`: earlier first, then first inserted.
    key: u128,
    event: E,
}

#[derive(Clone)]
pub struct EventQueue<E> {
    heap: Vec<Entry<E>>,
    next_order: u64,
    /// The armed timers ([`EventQueue::with_timers`]).
    timers: Timers,
    /// Each timer's deadline as last asked for (before it is held to the present).
    armed: Vec<Option<Time>>,
    /// A timer that fired and is not armed, but still the heap's root: most timers are armed
    /// again while their event is handled (a medium after each frame), and then its entry moves
    /// once instead of being taken out and put back. Taken out before the next pop otherwise.
    fired: Option<usize>,
}

/// What comes next out of a queue with timers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next<E> {
    Event(E),
    /// Timer number `slot` fired (and is disarmed).
    Timer(usize),
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue::with_timers(0)
    }
}

impl<E> EventQueue<E> {
    /// A queue with timers numbered `0..slots` ([`EventQueue::arm`], [`EventQueue::pop_next`]).
    pub(crate) fn with_timers(slots: usize) -> Self {
        EventQueue {
            heap: Vec::with_capacity(256),
            next_order: 0,
            timers: Timers::new(slots),
            armed: vec![None; slots],
            fired: None,
        }
    }

    /// The key of an entry made now for `time`: after every entry made before at that time.
    #[inline]
    fn key(&mut self, time: Time) -> u128 {
        let key = u128::from(time) << 64 | u128::from(self.next_order);
        self.next_order += 1;
        key
    }

    /// Timer `slot` wants to fire at `want` (`None`: not at all). The deadline it already has
    /// keeps its place in the order; another one takes a new place, as a pushed event would, at
    /// `want` but not before `now`.
    #[inline(always)]
    pub(crate) fn arm(&mut self, slot: usize, want: Option<Time>, now: Time) {
        // most re-arms after a packet ask for the deadline the timer has: that test is
        // inlined where the loop re-arms, the move of the entry is a call
        if want != self.armed[slot] {
            self.rearm(slot, want, now);
        }
    }

    /// [`EventQueue::arm`] with a deadline other than the timer's.
    #[inline(never)]
    fn rearm(&mut self, slot: usize, want: Option<Time>, now: Time) {
        self.armed[slot] = want;
        if self.fired == Some(slot) {
            self.fired = None; // its entry is this timer's again
        }
        match want {
            Some(t) => {
                let key = self.key(t.max(now));
                self.timers.set(slot, key);
            }
            None => self.timers.remove(slot),
        }
    }

    /// The next event or timer, in (time, order) over both.
    #[inline(always)]
    pub fn pop_next(&mut self) -> Option<(Time, Next<E>)> {
        if let Some(slot) = self.fired.take() {
            self.timers.remove(slot);
        }
        let event = self.heap.first().map(|e| e.key);
        match (event, self.timers.first()) {
            (Some(e), Some((t, slot))) if t < e => Some(self.fire(t, slot)),
            (None, Some((t, slot))) => Some(self.fire(t, slot)),
            _ => self.pop().map(|(t, e)| (t, Next::Event(e))),
        }
    }

    /// Timer `slot`, first at `key`, fires: disarmed (its entry stays until the next pop, see
    /// `fired`).
    fn fire(&mut self, key: u128, slot: usize) -> (Time, Next<E>) {
        self.fired = Some(slot);
        self.armed[slot] = None;
        ((key >> 64) as Time, Next::Timer(slot))
    }

    /// When the next event or timer is due, without taking it (a real-clock driver waits until
    /// then, `run/driver.rs`).
    pub fn next_time(&mut self) -> Option<Time> {
        if let Some(slot) = self.fired.take() {
            self.timers.remove(slot);
        }
        let event = self.heap.first().map(|e| e.key);
        let key = match (event, self.timers.first().map(|(k, _)| k)) {
            (Some(e), Some(t)) => e.min(t),
            (e, t) => e.or(t)?,
        };
        Some((key >> 64) as Time)
    }

    /// Pushes a one-off event.
    #[inline]
    pub fn push(&mut self, time: Time, event: E) {
        let key = self.key(time);
        let mut i = self.heap.len();
        self.heap.push(Entry { key, event });
        while i > 0 {
            let parent = (i - 1) / ARITY;
            if self.heap[parent].key <= key {
                break;
            }
            self.heap.swap(i, parent);
            i = parent;
        }
    }

    /// The next event, timers aside (a queue without timers).
    #[inline(always)]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        if self.heap.is_empty() {
            return None;
        }
        // the last entry takes the root's place and sinks while a child is earlier
        let top = self.heap.swap_remove(0);
        let mut i = 0;
        while let Some(c) = earliest_child(&self.heap, i, |e| e.key) {
            if self.heap[c].key >= self.heap[i].key {
                break;
            }
            self.heap.swap(i, c);
            i = c;
        }
        Some(((top.key >> 64) as Time, top.event))
    }

    /// When the earliest event is due (timers aside: a queue without timers).
    #[cfg(test)]
    pub(crate) fn peek_time(&self) -> Option<Time> {
        self.heap.first().map(|e| (e.key >> 64) as Time)
    }

    /// Events waiting, timers aside.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

/// The child of entry `i` with the least key in a 4-ary heap (`key` reads an entry's), or `None`
/// if `i` has no child: the step both heaps (events here, timers in `timers.rs`) sink an entry by.
#[inline(always)]
fn earliest_child<T>(heap: &[T], i: usize, key: impl Fn(&T) -> u128) -> Option<usize> {
    let first = i * ARITY + 1;
    let children = heap.get(first..(first + ARITY).min(heap.len()))?;
    let (mut c, mut least) = (0, key(children.first()?));
    for (k, e) in children.iter().enumerate().skip(1) {
        let x = key(e);
        if x < least {
            (c, least) = (k, x);
        }
    }
    Some(first + c)
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
    fn pops_what_a_sorted_list_gives() {
        // pushes and pops interleaved, many equal times: the heap gives (time, insertion) order
        let mut q = EventQueue::default();
        let mut model: Vec<(Time, usize)> = vec![];
        let mut x = 12345u64;
        for (n, round) in (0..2000u64).enumerate() {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let t = (x >> 33) % 50 + round / 4;
            q.push(t, n);
            model.push((t, n));
            if x.is_multiple_of(3) {
                model.sort_unstable();
                let want = model.remove(0);
                assert_eq!(q.pop(), Some(want));
            }
        }
        model.sort_unstable();
        for want in model {
            assert_eq!(q.peek_time(), Some(want.0));
            assert_eq!(q.pop(), Some(want));
        }
        assert!(q.is_empty());
    }

    #[test]
    fn timers_and_events_share_one_order() {
        let mut q = EventQueue::with_timers(3);
        q.push(5, 'a');
        q.arm(0, Some(5), 0); // after 'a' at the same time
        q.arm(1, Some(3), 0);
        q.push(3, 'b'); // after timer 1
        q.arm(2, Some(9), 0);
        q.arm(2, None, 0); // disarmed: never comes out
        q.arm(1, Some(3), 0); // the same deadline keeps its place
        q.arm(0, Some(2), 4); // re-armed: now, not in the past
        let got: Vec<_> = std::iter::from_fn(|| q.pop_next()).collect();
        assert_eq!(
            got,
            vec![
                (3, Next::Timer(1)),
                (3, Next::Event('b')),
                (4, Next::Timer(0)),
                (5, Next::Event('a')),
            ]
        );
        // a timer that fired is disarmed: arming it at the same deadline again counts
        q.arm(0, Some(4), 4);
        assert_eq!(q.pop_next(), Some((4, Next::Timer(0))));
    }
}
