//! The connections a split base station remembers without a relay (`split.rs`): those whose relay
//! closed, and those it forwards end to end. Each is kept with the time it was last seen, at most
//! [`Remembered::cap`] of them, the oldest forgotten first, and all forgotten once they have been
//! quiet for the idle limit.
//!
//! Indexed by time as well as by connection, so that forgetting costs O(log n) per connection
//! however many are remembered: the base station looks at them at every SYN, and a flood of SYNs
//! at the memory bound fills the forwarded ones to the cap (65,536), where a scan per SYN would
//! cost the base station a scan of all of them for each.

use std::collections::{BTreeMap, BTreeSet};

use crate::time::Time;

#[derive(Clone, Debug)]
pub(super) struct Remembered<K: Ord + Copy, V> {
    by_key: BTreeMap<K, (Time, V)>,
    /// The same entries by (last seen, connection): the first is the oldest.
    by_time: BTreeSet<(Time, K)>,
    cap: usize,
}

impl<K: Ord + Copy, V> Remembered<K, V> {
    pub(super) fn new(cap: usize) -> Remembered<K, V> {
        Remembered {
            by_key: BTreeMap::new(),
            by_time: BTreeSet::new(),
            cap,
        }
    }

    /// Remembers `key` as seen at `at`, with `value`; at the cap the oldest (the first
    /// connection among the oldest) is forgotten first.
    pub(super) fn insert(&mut self, key: K, at: Time, value: V) {
        if let Some((t, _)) = self.by_key.get(&key) {
            self.by_time.remove(&(*t, key));
        } else if self.by_key.len() >= self.cap {
            if let Some((_, oldest)) = self.by_time.pop_first() {
                self.by_key.remove(&oldest);
            }
        }
        self.by_key.insert(key, (at, value));
        self.by_time.insert((at, key));
    }

    /// What `key` was remembered with, and when it was last seen.
    pub(super) fn get(&self, key: &K) -> Option<&(Time, V)> {
        self.by_key.get(key)
    }

    /// Marks `key` seen at `at`; whether it was remembered.
    pub(super) fn touch(&mut self, key: &K, at: Time) -> bool {
        let Some((t, _)) = self.by_key.get_mut(key) else {
            return false;
        };
        self.by_time.remove(&(*t, *key));
        *t = at;
        self.by_time.insert((at, *key));
        true
    }

    pub(super) fn remove(&mut self, key: &K) {
        if let Some((t, _)) = self.by_key.remove(key) {
            self.by_time.remove(&(t, *key));
        }
    }

    /// Takes out every connection `pick` chooses, with when each was last seen and its value (a
    /// mobile host's connections at a split handoff, `split_handover.rs`), in the order of the keys.
    pub(super) fn take_where(&mut self, pick: impl Fn(&K) -> bool) -> Vec<(K, Time, V)> {
        let keys: Vec<K> = self.by_key.keys().filter(|k| pick(k)).copied().collect();
        let mut out = Vec::with_capacity(keys.len());
        for key in keys {
            if let Some((t, v)) = self.by_key.remove(&key) {
                self.by_time.remove(&(t, key));
                out.push((key, t, v));
            }
        }
        out
    }

    /// Forgets every connection not seen for `idle` by `now`.
    pub(super) fn forget_quiet(&mut self, now: Time, idle: Time) {
        while let Some(&(t, key)) = self.by_time.first() {
            if now.saturating_sub(t) < idle {
                return;
            }
            self.by_time.pop_first();
            self.by_key.remove(&key);
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.by_key.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_goes_first_at_the_cap_and_the_quiet_ones_after_the_limit() {
        let mut r = Remembered::new(3);
        r.insert(5u32, 10, 'a');
        r.insert(1, 20, 'b');
        r.insert(9, 10, 'c');
        assert!(r.touch(&5, 30));
        // the oldest is 9 (seen at 10; 5 was seen again at 30)
        r.insert(7, 40, 'd');
        assert!(r.get(&9).is_none());
        assert_eq!(r.len(), 3);
        // seen again: no other is forgotten
        r.insert(7, 41, 'e');
        assert_eq!(r.get(&7), Some(&(41, 'e')));
        assert_eq!(r.len(), 3);
        // 1 (seen at 20) and 5 (30) have been quiet for 20 by 50, 7 (41) not
        r.forget_quiet(50, 20);
        assert!(r.get(&1).is_none() && r.get(&5).is_none());
        assert_eq!(r.get(&7), Some(&(41, 'e')));
        r.insert(8, 45, 'f');
        assert_eq!(r.take_where(|k| *k == 7), vec![(7, 41, 'e')]);
        assert_eq!(r.len(), 1);
        // what was taken out is no longer in the time index either
        r.forget_quiet(100, 20);
        assert_eq!(r.len(), 0);
        r.insert(7, 50, 'g');
        r.remove(&7);
        assert_eq!(r.len(), 0);
        assert!(!r.touch(&7, 60));
    }
}
