//! A Linux controller's window in packets from the TCP's bytes (`linux.rs`: the window is a whole
//! number of segments of `maxseg`). Linux counts `snd_cwnd` in packets and never divides; here
//! every ACK turns the window, the flight and what was delivered into segments, three divisions
//! by the segment size, which is only known at run time. A `div` by a variable costs tens of
//! cycles (issue 50, docs/speed.md), so the quotient is taken by an exact reciprocal instead, as
//! the kernel divides by run-time constants (include/linux/reciprocal_div.h, `reciprocal_divide`):
//! with `M = ceil(2^64 / d)`, `floor(n / d) = floor(M * n / 2^64)` for every 32-bit `n` and
//! divisor `d` >= 2 (Lemire, Kaser and Kurz, "Faster remainder by direct computation", 2019,
//! Theorem 1, with N = 32 and F = 64). The same quotient as the division, for every input.

/// The segment size and its reciprocal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packets {
    mss: u32,
    /// `ceil(2^64 / mss)`; 0 for a segment size of 1 (2^64 does not fit: the quotient is `n`).
    reciprocal: u64,
}

impl Default for Packets {
    fn default() -> Packets {
        Packets::of(1)
    }
}

impl Packets {
    /// Segments of `mss` bytes (at least 1).
    pub fn of(mss: u32) -> Packets {
        let mss = mss.max(1);
        let reciprocal = if mss == 1 {
            0
        } else {
            // ceil(2^64 / d) = floor((2^64 - 1) / d) + 1 for every d >= 2, a power of two or not
            u64::MAX / u64::from(mss) + 1
        };
        Packets { mss, reciprocal }
    }

    pub fn mss(self) -> u32 {
        self.mss
    }

    /// `bytes / mss`, rounded down.
    #[inline]
    pub fn floor(self, bytes: u32) -> u32 {
        if self.reciprocal == 0 {
            return bytes;
        }
        ((u128::from(self.reciprocal) * u128::from(bytes)) >> 64) as u32
    }

    /// `bytes / mss`, rounded up (an `skb`'s packets: a short last segment counts as one).
    #[inline]
    pub fn ceil(self, bytes: u32) -> u32 {
        let q = self.floor(bytes);
        q + u32::from(bytes != q * self.mss)
    }

    /// `segments` of `mss` bytes, at most `u32::MAX`.
    pub fn bytes(self, segments: u32) -> u32 {
        segments.saturating_mul(self.mss)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reciprocal's quotients are the division's: at every segment size from 1 to 70,000
    /// and the sizes a TCP meets, over the edges of each multiple and the ends of `u32`.
    #[test]
    fn quotients_are_the_divisions() {
        let sizes = (1..=70_000u32).chain([
            1_000_000,
            (1 << 31) - 1,
            1 << 31,
            (1 << 31) + 1,
            u32::MAX - 1,
            u32::MAX,
        ]);
        for d in sizes {
            let p = Packets::of(d);
            let mut ns = vec![
                0,
                1,
                2,
                d - 1,
                d,
                d.saturating_add(1),
                u32::MAX,
                u32::MAX - 1,
            ];
            for k in [2u32, 3, 7, 44, 1000, 65_535, 1 << 20] {
                let m = d.saturating_mul(k);
                ns.extend([m.saturating_sub(1), m, m.saturating_add(1)]);
            }
            ns.extend([u32::MAX / d * d, (u32::MAX / d * d).saturating_sub(1)]);
            for n in ns {
                assert_eq!(p.floor(n), n / d, "{n} / {d}");
                assert_eq!(p.ceil(n), n.div_ceil(d), "ceil({n} / {d})");
            }
        }
    }

    /// A segment size of 0 is taken as 1, as the division's `max(1)` had it.
    #[test]
    fn zero_is_one() {
        assert_eq!(Packets::of(0).floor(1460), 1460);
        assert_eq!(Packets::of(0).ceil(7), 7);
    }
}
