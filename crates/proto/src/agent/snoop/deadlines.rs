//! Snoop's connections filed under their next deadline, in (time, connection) order: a sorted
//! list while they are few, a B-tree beyond. `poll_timeout` reads the first entry and
//! `on_timeout` the ones due; each packet files its connection again (its deadlines moved).
//!
//! Why two: the B-tree keeps a base station with 200 connections cheap (a walk over every
//! connection per call was 82% of such a run, docs/speed.md), but with one or two connections
//! (every paper's runs) its remove and insert per packet were 6.5% of a paper-002 run
//! (callgrind), where a list of one entry moves nothing. Both give the same order.

use std::collections::BTreeSet;

use super::ConnKey;
use crate::time::Time;

/// The most entries kept as a list; with more the index becomes a B-tree (and stays one).
const LIST_MAX: usize = 16;

type Filed = (Time, ConnKey);

#[derive(Clone, Debug)]
pub(super) enum Deadlines {
    /// Sorted, earliest first.
    List(Vec<Filed>),
    Tree(BTreeSet<Filed>),
}

impl Default for Deadlines {
    fn default() -> Self {
        Deadlines::List(Vec::new())
    }
}

impl Deadlines {
    /// The earliest entry.
    pub(super) fn first(&self) -> Option<&Filed> {
        match self {
            Deadlines::List(l) => l.first(),
            Deadlines::Tree(t) => t.first(),
        }
    }

    /// Files `e`.
    pub(super) fn insert(&mut self, e: Filed) {
        match self {
            Deadlines::List(l) if l.len() < LIST_MAX => {
                if let Err(i) = l.binary_search(&e) {
                    l.insert(i, e);
                }
            }
            Deadlines::List(l) => {
                let mut t: BTreeSet<Filed> = l.drain(..).collect();
                t.insert(e);
                *self = Deadlines::Tree(t);
            }
            Deadlines::Tree(t) => {
                t.insert(e);
            }
        }
    }

    /// Takes `e` out (nothing if it is not filed).
    pub(super) fn remove(&mut self, e: &Filed) {
        match self {
            Deadlines::List(l) => {
                if let Ok(i) = l.binary_search(e) {
                    l.remove(i);
                }
            }
            Deadlines::Tree(t) => {
                t.remove(e);
            }
        }
    }

    /// Files `new` in place of `old`: what `remove(old)` then `insert(new)` do. A connection's
    /// deadline moves with every packet and seldom past another's: in a list, where its place
    /// stays the same, the entry is overwritten there, and nothing is moved.
    pub(super) fn replace(&mut self, old: &Filed, new: Filed) {
        if let Deadlines::List(l) = self {
            if let Ok(i) = l.binary_search(old) {
                let after_previous = i == 0 || l[i - 1] < new;
                let before_next = l.get(i + 1).is_none_or(|next| new < *next);
                if after_previous && before_next {
                    l[i] = new;
                    return;
                }
            }
        }
        self.remove(old);
        self.insert(new);
    }

    /// Adds to `out` the connections due by `now`, in time order.
    pub(super) fn due(&self, now: Time, out: &mut Vec<ConnKey>) {
        let due = |&&(t, _): &&Filed| t <= now;
        match self {
            Deadlines::List(l) => out.extend(l.iter().take_while(due).map(|&(_, k)| k)),
            Deadlines::Tree(t) => out.extend(t.iter().take_while(due).map(|&(_, k)| k)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::segment::Endpoint;

    #[test]
    fn the_list_and_the_tree_file_alike() {
        // inserts and removes in a pseudo-random mix, past the list's size and back: the first
        // entry and the entries due are those of a B-tree fed the same
        let key = |i: u32| ConnKey {
            fixed: Endpoint {
                addr: i % 7,
                port: 80,
            },
            mobile: Endpoint {
                addr: 100 + i,
                port: (i % 3) as u16,
            },
        };
        let mut d = Deadlines::default();
        let mut model: BTreeSet<Filed> = BTreeSet::new();
        let mut x = 17u64;
        for step in 0..4000u32 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let e = ((x >> 40) % 50, key(((x >> 20) % 40) as u32));
            match (x >> 10) % 4 {
                0 => {
                    d.remove(&e);
                    model.remove(&e);
                }
                1 => {
                    // a filed entry (when there is one) moved to `e`'s time
                    let old = model.iter().nth((x >> 50) as usize % model.len().max(1));
                    let old = old.copied().unwrap_or(e);
                    let new = (e.0, old.1);
                    d.replace(&old, new);
                    model.remove(&old);
                    model.insert(new);
                }
                _ => {
                    d.insert(e);
                    model.insert(e);
                }
            }
            assert_eq!(d.first(), model.first(), "step {step}");
            let now = (x >> 30) % 50;
            let (mut got, want): (Vec<ConnKey>, Vec<ConnKey>) = (
                vec![],
                model
                    .iter()
                    .take_while(|e| e.0 <= now)
                    .map(|e| e.1)
                    .collect(),
            );
            d.due(now, &mut got);
            assert_eq!(got, want, "step {step}");
        }
        assert!(matches!(d, Deadlines::Tree(_)), "grew past the list");
    }

    #[test]
    fn a_list_moves_an_entry_as_a_remove_and_an_insert_would() {
        // three connections whose deadlines move, past each other or not: the list stays one
        let key = |i: u64| ConnKey {
            fixed: Endpoint { addr: 1, port: 80 },
            mobile: Endpoint {
                addr: 100 + i as u32,
                port: 5001,
            },
        };
        let mut d = Deadlines::default();
        let mut model: BTreeSet<Filed> = BTreeSet::new();
        let mut filed: Vec<Filed> = (0..3).map(|i| (10 * i, key(i))).collect();
        for &e in &filed {
            d.insert(e);
            model.insert(e);
        }
        let mut x = 5u64;
        for step in 0..2000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let c = (x >> 33) as usize % 3;
            let old = filed[c];
            // mostly a small step later, sometimes a jump either way, sometimes a tie
            let new = match (x >> 20) % 4 {
                0 => ((x >> 40) % 60, old.1),
                1 => (filed[(c + 1) % 3].0, old.1),
                _ => (old.0 + (x >> 50) % 3, old.1),
            };
            d.replace(&old, new);
            model.remove(&old);
            model.insert(new);
            filed[c] = new;
            let Deadlines::List(l) = &d else {
                panic!("three entries stay a list");
            };
            assert_eq!(l, &model.iter().copied().collect::<Vec<_>>(), "step {step}");
        }
    }
}
