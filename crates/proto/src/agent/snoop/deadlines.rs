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
            if (x >> 10).is_multiple_of(3) {
                d.remove(&e);
                model.remove(&e);
            } else {
                d.insert(e);
                model.insert(e);
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
}
