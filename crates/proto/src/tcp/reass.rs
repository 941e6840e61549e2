//! The receiver's reassembly queue (`tcp_reass`): out-of-order data kept as disjoint sequence ranges.

use crate::seq::Seq;

/// Disjoint, sorted, non-adjacent byte ranges `[start, end)` held above `rcv_nxt`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reassembly {
    ranges: Vec<(Seq, Seq)>,
    bytes: u32,
}

impl Reassembly {
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Bytes held out of order.
    pub fn bytes(&self) -> u32 {
        self.bytes
    }

    /// The held ranges, lowest first.
    pub fn ranges(&self) -> &[(Seq, Seq)] {
        &self.ranges
    }

    /// Adds `[start, end)`, merging with what is held. Returns the number of bytes that were new.
    ///
    /// In place: the ranges are sorted, disjoint and not adjacent, so those the new one overlaps or
    /// touches are a run `[i, k)`; the run becomes one range (before, every insert built a new
    /// vector, an allocation per out-of-order segment).
    pub fn insert(&mut self, start: Seq, end: Seq) -> u32 {
        if !start.lt(end) {
            return 0;
        }
        // the first range that does not end before `start`
        let i = self.ranges.partition_point(|&(_, re)| re.lt(start));
        let (mut s, mut e) = (start, end);
        let mut covered = 0u32;
        let mut k = i;
        while let Some(&(rs, re)) = self.ranges.get(k) {
            if e.lt(rs) {
                break;
            }
            // overlapping or adjacent: absorb
            covered += re.min(end).since(rs.max(start));
            s = s.min(rs);
            e = e.max(re);
            k += 1;
        }
        if k == i {
            self.ranges.insert(i, (s, e));
        } else {
            self.ranges[i] = (s, e);
            self.ranges.drain(i + 1..k);
        }
        let new = end.since(start) - covered;
        self.bytes += new;
        new
    }

    /// Removes and returns the end of the range starting at or below `rcv_nxt`, if any: the data that
    /// is now in order. Ranges wholly below `rcv_nxt` are discarded.
    pub fn take_in_order(&mut self, rcv_nxt: Seq) -> Option<Seq> {
        let mut advanced = None;
        while let Some(&(s, e)) = self.ranges.first() {
            if s.le(rcv_nxt) {
                self.ranges.remove(0);
                self.bytes -= e.since(s);
                if e.gt(rcv_nxt) {
                    advanced = Some(e);
                    break;
                }
            } else {
                break;
            }
        }
        advanced
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn merges_and_delivers() {
        let mut r = Reassembly::default();
        assert_eq!(r.insert(Seq(200), Seq(300)), 100);
        assert_eq!(r.insert(Seq(400), Seq(500)), 100);
        assert_eq!(r.insert(Seq(250), Seq(450)), 100);
        assert_eq!(r.ranges(), &[(Seq(200), Seq(500))]);
        assert_eq!(r.take_in_order(Seq(100)), None);
        assert_eq!(r.take_in_order(Seq(200)), Some(Seq(500)));
        assert!(r.is_empty());
        assert_eq!(r.bytes(), 0);
    }

    /// The insert before it worked in place: rebuilds the ranges into a new vector.
    fn reference_insert(ranges: &[(Seq, Seq)], start: Seq, end: Seq) -> (Vec<(Seq, Seq)>, u32) {
        if !start.lt(end) {
            return (ranges.to_vec(), 0);
        }
        let (mut s, mut e) = (start, end);
        let mut covered = 0u32;
        let mut out = Vec::new();
        let mut placed = false;
        for &(rs, re) in ranges {
            if re.lt(s) {
                out.push((rs, re));
            } else if e.lt(rs) {
                if !placed {
                    out.push((s, e));
                    placed = true;
                }
                out.push((rs, re));
            } else {
                covered += re.min(end).since(rs.max(start));
                s = s.min(rs);
                e = e.max(re);
            }
        }
        if !placed {
            out.push((s, e));
        }
        (out, end.since(start) - covered)
    }

    proptest! {
        #[test]
        fn bytes_match_union(segs in proptest::collection::vec((0u32..2000, 1u32..300), 0..40)) {
            let base = u32::MAX - 1000; // exercise wrap-around
            let mut r = Reassembly::default();
            let mut set = std::collections::BTreeSet::new();
            for (off, len) in segs {
                let new = r.insert(Seq(base) + off, Seq(base) + off + len);
                let before = set.len();
                for b in off..off + len { set.insert(b); }
                prop_assert_eq!(new as usize, set.len() - before);
            }
            prop_assert_eq!(r.bytes() as usize, set.len());
            // ranges sorted, disjoint, not adjacent
            for w in r.ranges().windows(2) {
                prop_assert!(w[0].1.lt(w[1].0));
            }
        }

        #[test]
        fn insert_in_place_matches_rebuilding(
            segs in proptest::collection::vec((0u32..3000, 0u32..400), 0..60),
            delivered in proptest::collection::vec(0u32..3000, 0..8),
        ) {
            let base = u32::MAX - 1500; // exercise wrap-around
            let mut r = Reassembly::default();
            for (n, (off, len)) in segs.into_iter().enumerate() {
                let (s, e) = (Seq(base) + off, Seq(base) + off + len);
                let (want, want_new) = reference_insert(r.ranges(), s, e);
                prop_assert_eq!(r.insert(s, e), want_new);
                prop_assert_eq!(r.ranges(), &want[..]);
                if let Some(&d) = delivered.get(n % 16) {
                    let _ = r.take_in_order(Seq(base) + d);
                }
            }
            // ranges sorted, disjoint, not adjacent
            for w in r.ranges().windows(2) {
                prop_assert!(w[0].1.lt(w[1].0));
            }
        }
    }
}
