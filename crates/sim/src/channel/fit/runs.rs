//! The lengths of a trace's runs: consecutive lost frames and consecutive received ones, or bad
//! periods and the good gaps between them, as sorted (length, count) pairs.
//!
//! The first and the last run of a frame trace are cut by the trace's ends (their true lengths are
//! unknown: censored) and are left out, as is a bad period that starts at time 0.

use std::collections::BTreeMap;

use snooplab_proto::Time;

/// Lengths and how often each occurs, shortest first. Memory grows with the number of distinct
/// lengths, at most about the square root of twice the trace's length.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Lengths(pub BTreeMap<u64, u64>);

impl Lengths {
    fn add(&mut self, len: u64) {
        *self.0.entry(len).or_insert(0) += 1;
    }

    /// How many runs.
    pub fn count(&self) -> u64 {
        self.0.values().sum()
    }

    /// Their total length.
    pub fn total(&self) -> u128 {
        self.0
            .iter()
            .map(|(&l, &c)| u128::from(l) * u128::from(c))
            .sum()
    }

    /// Their mean length (0 without runs).
    pub fn mean(&self) -> f64 {
        let n = self.count();
        if n == 0 {
            0.0
        } else {
            self.total() as f64 / n as f64
        }
    }

    /// The longest.
    pub fn max(&self) -> u64 {
        self.0.keys().next_back().copied().unwrap_or(0)
    }

    /// How many runs are at least `low` and below `high` (none: no bound).
    pub(crate) fn count_in(&self, low: u64, high: Option<u64>) -> u64 {
        match high {
            Some(h) if h <= low => 0,
            Some(h) => self.0.range(low..h).map(|(_, &c)| c).sum(),
            None => self.0.range(low..).map(|(_, &c)| c).sum(),
        }
    }
}

/// The complete runs of a frame trace: (loss runs, success runs), in frames.
pub(crate) fn frame_runs(lost: &[bool]) -> (Lengths, Lengths) {
    let (mut losses, mut successes) = (Lengths::default(), Lengths::default());
    let mut runs = lost.chunk_by(|a, b| a == b).peekable();
    // the first run started before the trace did
    runs.next();
    while let Some(run) = runs.next() {
        if runs.peek().is_none() {
            break; // the last run goes on after the trace
        }
        if run[0] {
            losses.add(run.len() as u64);
        } else {
            successes.add(run.len() as u64);
        }
    }
    (losses, successes)
}

/// The periods of a time trace: (bad periods, the good gaps between them), in ns. A bad period
/// starting at 0 is left out (it began before the trace).
pub(crate) fn time_runs(bad: &[(Time, Time)]) -> (Lengths, Lengths) {
    let (mut bads, mut goods) = (Lengths::default(), Lengths::default());
    for (i, &(s, e)) in bad.iter().enumerate() {
        if s > 0 {
            bads.add(e - s);
        }
        if let Some(&(next, _)) = bad.get(i + 1) {
            goods.add(next - e);
        }
    }
    (bads, goods)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn marks(s: &str) -> Vec<bool> {
        s.chars().map(|c| c == '1').collect()
    }

    #[test]
    fn the_ends_are_left_out() {
        let (l, s) = frame_runs(&marks("110001001111000"));
        // runs: 11 | 000 | 1 | 00 | 1111 | 000: the first and last are cut
        assert_eq!(l.0, BTreeMap::from([(1, 1), (4, 1)]));
        assert_eq!(s.0, BTreeMap::from([(3, 1), (2, 1)]));
        assert_eq!(frame_runs(&marks("0000")), Default::default());
        assert_eq!(frame_runs(&[]), Default::default());
        assert_eq!(l.count_in(2, Some(5)), 1);
        assert_eq!(l.count_in(1, None), 2);
        assert_eq!(l.count_in(5, Some(5)), 0);
    }

    #[test]
    fn periods_and_their_gaps() {
        let (b, g) = time_runs(&[(0, 10), (15, 20), (40, 43)]);
        assert_eq!(b.0, BTreeMap::from([(5, 1), (3, 1)]));
        assert_eq!(g.0, BTreeMap::from([(5, 1), (20, 1)]));
    }

    proptest! {
        /// The runs kept and the two cut ones add up to the trace; and the kept ones alternate
        /// in kind, so their counts differ by at most one.
        #[test]
        fn runs_account_for_every_frame(lost in proptest::collection::vec(any::<bool>(), 0..400)) {
            let (l, s) = frame_runs(&lost);
            let all: Vec<usize> = lost.chunk_by(|a, b| a == b).map(<[bool]>::len).collect();
            let cut: usize = if all.len() >= 2 { all[0] + all[all.len() - 1] } else { all.iter().sum() };
            prop_assert_eq!(l.total() + s.total() + cut as u128, lost.len() as u128);
            prop_assert!(l.count().abs_diff(s.count()) <= 1);
            prop_assert_eq!(l.count() + s.count(), all.len().saturating_sub(2) as u64);
        }
    }
}
