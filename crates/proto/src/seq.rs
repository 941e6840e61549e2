//! TCP sequence-number arithmetic modulo 2^32 (RFC 793 section 3.3, BSD's `SEQ_LT` and friends).

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// A 32-bit TCP sequence number; comparisons are modulo 2^32 as in BSD's `SEQ_LT(a, b)`
/// (`(int)((a) - (b)) < 0`), so they are only meaningful for numbers less than 2^31 apart.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Seq(pub u32);

impl Seq {
    /// `self - other` as a signed distance (BSD's `(int)(a - b)`).
    pub fn diff(self, other: Seq) -> i32 {
        self.0.wrapping_sub(other.0) as i32
    }
    pub fn lt(self, other: Seq) -> bool {
        self.diff(other) < 0
    }
    pub fn le(self, other: Seq) -> bool {
        self.diff(other) <= 0
    }
    pub fn gt(self, other: Seq) -> bool {
        self.diff(other) > 0
    }
    pub fn ge(self, other: Seq) -> bool {
        self.diff(other) >= 0
    }
    /// The later of two sequence numbers.
    pub fn max(self, other: Seq) -> Seq {
        if self.ge(other) {
            self
        } else {
            other
        }
    }
    /// The earlier of two sequence numbers.
    pub fn min(self, other: Seq) -> Seq {
        if self.le(other) {
            self
        } else {
            other
        }
    }
    /// Bytes from `earlier` up to `self`; zero when `self` is not after `earlier`.
    pub fn since(self, earlier: Seq) -> u32 {
        let d = self.diff(earlier);
        if d > 0 {
            d as u32
        } else {
            0
        }
    }
}

impl Add<u32> for Seq {
    type Output = Seq;
    fn add(self, rhs: u32) -> Seq {
        Seq(self.0.wrapping_add(rhs))
    }
}

impl AddAssign<u32> for Seq {
    fn add_assign(&mut self, rhs: u32) {
        self.0 = self.0.wrapping_add(rhs);
    }
}

impl Sub<u32> for Seq {
    type Output = Seq;
    fn sub(self, rhs: u32) -> Seq {
        Seq(self.0.wrapping_sub(rhs))
    }
}

impl fmt::Debug for Seq {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl fmt::Display for Seq {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn wraps_around() {
        let a = Seq(u32::MAX - 10);
        let b = a + 20;
        assert_eq!(b.0, 9);
        assert!(a.lt(b));
        assert!(b.gt(a));
        assert_eq!(b.since(a), 20);
        assert_eq!(a.since(b), 0);
    }

    proptest! {
        #[test]
        fn order_is_consistent(base in any::<u32>(), d in 1u32..(1 << 31)) {
            let a = Seq(base);
            let b = a + d;
            prop_assert!(a.lt(b) && a.le(b) && b.gt(a) && b.ge(a));
            prop_assert!(!(b.lt(a)) && !(a.gt(b)));
            prop_assert_eq!(b.since(a), d);
            prop_assert_eq!(b - d, a);
            prop_assert_eq!(a.max(b), b);
            prop_assert_eq!(a.min(b), a);
        }

        #[test]
        fn equal_is_neither_less_nor_greater(base in any::<u32>()) {
            let a = Seq(base);
            prop_assert!(a.le(a) && a.ge(a) && !a.lt(a) && !a.gt(a));
            prop_assert_eq!(a.diff(a), 0);
        }
    }
}
