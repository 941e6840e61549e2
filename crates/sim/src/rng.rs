//! Random streams (docs/architecture.md#rules): one independent PCG stream per component, derived from the run's
//! seed, and distributions sampled with portable code so results are identical on every machine.

use rand_core::RngCore;
use rand_pcg::Pcg64;

/// The components that draw random numbers; each gets its own stream.
#[derive(Clone, Copy, Debug)]
pub enum Stream {
    ErrorsDown = 1,
    ErrorsUp = 2,
    FixedHostClock = 3,
    MobileHostClock = 4,
    InitialSequence = 5,
    BaseStationClock = 6,
    /// A cell's CSMA/CA backoffs (`medium/csma.rs`), one stream per cell. Turn taking draws nothing.
    MediumBackoff = 7,
    /// `snooplab channel-trace`'s Gilbert-Elliott process (not drawn in runs): its state process.
    ChannelTrace = 8,
    /// The state process (the good and bad periods) of the channel whose frames' errors draw from
    /// `ErrorsDown` or `ErrorsUp`, in [`ChannelStreams`]: a stream of its own, so the periods do
    /// not depend on how many frames the channel judged.
    StatesDown = 9,
    StatesUp = 10,
    /// The frames' errors of `channel-trace`'s process, apart from its states (`ChannelTrace`).
    ChannelTraceErrors = 11,
    /// When each sender of paper 001's preset opens its connection (`crates/papers/src/paper001/testbed.rs`).
    FlowStart = 17,
    /// When each base station of a handoff sends its first beacon (`network/handoff.rs`).
    BeaconPhase = 18,
    /// A Web workload's pages (`workload/`), one stream per page (`Rng::indexed` by the page's number).
    Workload = 19,
    /// The initial sequence numbers of a workload flow's connections (`nodes/browser.rs`), one
    /// stream per flow: each connection draws its client's, then its server's.
    AppSequence = 20,
}

/// The streams of one direction's channel, the one place their rule is written: its frames' errors
/// from the direction's error stream (what every channel model draws), and a Gilbert-Elliott
/// channel's state process, its initial state and its periods' lengths, from the direction's state
/// stream, with the same index. Two channels of one seed then have the same periods whatever frames
/// they judge: a run's channel and the live engine's, whose senders' timing differs, stay in the
/// same state at every time (Gilbert-Elliott's state is a process in time, not in frames,
/// `channel/gilbert_elliott.rs`); only the frames' errors within a state may part.
///
/// Named streams rather than a flag in the index: the index already numbers the cell and station
/// (`run/build.rs`), and a stream kind says what it draws. Of each pair the draws that never needed
/// the other keep the stream they always had: a run's frames' errors (every exponential channel
/// of a run draws what it drew before) and `channel-trace`'s states (a time trace, which draws no
/// error, is the same file for a seed as before: `examples/fading.trace`).
#[derive(Clone, Copy, Debug)]
pub struct ChannelStreams {
    seed: u64,
    errors: Stream,
    states: Stream,
    index: u64,
}

impl ChannelStreams {
    /// The `index`-th downlink channel of a run of `seed` (towards a mobile host).
    pub fn down(seed: u64, index: u64) -> ChannelStreams {
        ChannelStreams {
            seed,
            errors: Stream::ErrorsDown,
            states: Stream::StatesDown,
            index,
        }
    }

    /// The `index`-th uplink channel of a run of `seed` (from a mobile host).
    pub fn up(seed: u64, index: u64) -> ChannelStreams {
        ChannelStreams {
            seed,
            errors: Stream::ErrorsUp,
            states: Stream::StatesUp,
            index,
        }
    }

    /// `snooplab channel-trace`'s process of `seed`.
    pub fn trace(seed: u64) -> ChannelStreams {
        ChannelStreams {
            seed,
            errors: Stream::ChannelTraceErrors,
            states: Stream::ChannelTrace,
            index: 0,
        }
    }

    /// The frames' errors.
    pub fn errors(&self) -> Rng {
        Rng::indexed(self.seed, self.errors, self.index)
    }

    /// The state process.
    pub fn states(&self) -> Rng {
        Rng::indexed(self.seed, self.states, self.index)
    }
}

/// SplitMix64 finaliser: spreads a seed over 64 bits.
fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A named, portable random stream.
#[derive(Clone, Debug)]
pub struct Rng(Pcg64);

impl Rng {
    pub fn new(seed: u64, stream: Stream) -> Rng {
        Rng::indexed(seed, stream, 0)
    }

    /// The stream of the `index`-th component of a kind (the second mobile host's clock, the third
    /// station's channel); index 0 is [`Rng::new`]'s stream, so the paper-000 testbed draws what it
    /// always drew.
    pub fn indexed(seed: u64, stream: Stream, index: u64) -> Rng {
        let id = stream as u64 | index << 8;
        let state = (u128::from(splitmix64(seed ^ id.wrapping_mul(0xA076_1D64_78BD_642F))) << 64)
            | u128::from(splitmix64(seed.wrapping_add(id)));
        Rng(Pcg64::new(state, u128::from(splitmix64(id)) | 1))
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in [0, 1) with 53 bits.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform integer in [0, n).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        // Lemire's multiply-shift; the tiny bias is irrelevant here and the result is portable.
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// Exponentially distributed with the given mean.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        let u = 1.0 - self.unit(); // (0, 1]
        -portable_ln(u) * mean
    }
}

/// Natural logarithm from IEEE basic operations only, so every platform gets the same bits
/// (the platform `ln` may differ in the last place). Accurate to about 1e-16 relative.
pub(crate) fn portable_ln(x: f64) -> f64 {
    if x.is_nan() || x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::NEG_INFINITY;
    }
    if x.is_infinite() {
        return x;
    }
    // Decompose x = m * 2^e with m in [1, 2), handling subnormals by scaling.
    let (mut m, mut e) = {
        let mut v = x;
        let mut adj = 0i64;
        if v < f64::MIN_POSITIVE {
            v *= (1u64 << 54) as f64;
            adj = -54;
        }
        let bits = v.to_bits();
        let exp = ((bits >> 52) & 0x7ff) as i64 - 1023;
        let mant = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
        (mant, exp + adj)
    };
    if m > std::f64::consts::SQRT_2 {
        m *= 0.5;
        e += 1;
    }
    // ln(m) = 2 atanh(z), z = (m - 1) / (m + 1), |z| <= 0.172
    let z = (m - 1.0) / (m + 1.0);
    let z2 = z * z;
    let mut term = z;
    let mut sum = 0.0;
    let mut k = 1.0;
    for _ in 0..14 {
        sum += term / k;
        term *= z2;
        k += 2.0;
    }
    2.0 * sum + (e as f64) * std::f64::consts::LN_2
}

/// `e^x` from IEEE basic operations only (like [`portable_ln`]), so sampled sizes and times are the
/// same bits everywhere. Cody and Waite's reduction `x = n ln 2 + r`, `|r| <= ln 2 / 2`, then the
/// Taylor series of `e^r` (17 terms: the next is below 1e-20) scaled by `2^n`.
pub(crate) fn portable_exp(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    if x > 709.782_712_893_384 {
        return f64::INFINITY;
    }
    if x < -745.133_219_101_941_2 {
        return 0.0;
    }
    // fdlibm's split of ln 2: the high part has 32 bits, so n * LN2_HI is exact.
    const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
    const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
    let n = (x * std::f64::consts::LOG2_E).round();
    let r = (x - n * LN2_HI) - n * LN2_LO;
    let mut term = 1.0;
    let mut sum = 1.0;
    for k in 1..=17 {
        term *= r / f64::from(k);
        sum += term;
    }
    let mut e = n as i32;
    let mut v = sum;
    while e > 1023 {
        v *= f64::from_bits(0x7fe0_0000_0000_0000); // 2^1023
        e -= 1023;
    }
    while e < -1022 {
        v *= f64::from_bits(0x0010_0000_0000_0000); // 2^-1022
        e += 1022;
    }
    v * f64::from_bits(((e + 1023) as u64) << 52)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::{prop_assert, proptest};

    #[test]
    fn streams_are_independent_and_reproducible() {
        let mut a = Rng::new(7, Stream::ErrorsDown);
        let mut b = Rng::new(7, Stream::ErrorsUp);
        let mut a2 = Rng::new(7, Stream::ErrorsDown);
        let xa: Vec<u64> = (0..4).map(|_| a.next_u64()).collect();
        let xb: Vec<u64> = (0..4).map(|_| b.next_u64()).collect();
        let xa2: Vec<u64> = (0..4).map(|_| a2.next_u64()).collect();
        assert_eq!(xa, xa2);
        assert_ne!(xa, xb);
    }

    #[test]
    fn indexed_streams_differ_and_index_zero_is_the_plain_stream() {
        let first = |mut r: Rng| r.next_u64();
        assert_eq!(
            first(Rng::indexed(7, Stream::ErrorsDown, 0)),
            first(Rng::new(7, Stream::ErrorsDown))
        );
        let xs: Vec<u64> = (0..4)
            .map(|i| first(Rng::indexed(7, Stream::ErrorsDown, i)))
            .collect();
        let mut d = xs.clone();
        d.sort();
        d.dedup();
        assert_eq!(d.len(), 4);
    }

    #[test]
    fn a_channels_states_draw_apart_from_its_errors() {
        let first = |mut r: Rng| r.next_u64();
        let down = ChannelStreams::down(7, 3);
        // a run's errors and a trace's states keep the streams they always drew
        assert_eq!(
            first(down.errors()),
            first(Rng::indexed(7, Stream::ErrorsDown, 3))
        );
        assert_eq!(
            first(ChannelStreams::trace(7).states()),
            first(Rng::new(7, Stream::ChannelTrace))
        );
        let all = [down, ChannelStreams::up(7, 3), ChannelStreams::trace(7)];
        let mut xs: Vec<u64> = all
            .iter()
            .flat_map(|c| [first(c.errors()), first(c.states())])
            .collect();
        xs.sort();
        xs.dedup();
        assert_eq!(xs.len(), 6);
    }

    #[test]
    fn exponential_mean_is_close() {
        let mut r = Rng::new(1, Stream::ErrorsDown);
        let n = 200_000;
        let mean: f64 = (0..n).map(|_| r.exponential(65536.0)).sum::<f64>() / n as f64;
        assert!((mean / 65536.0 - 1.0).abs() < 0.01, "mean {mean}");
    }

    proptest! {
        #[test]
        fn portable_ln_matches_libm(x in 1e-300f64..1e300) {
            let a = portable_ln(x);
            let b = x.ln();
            prop_assert!((a - b).abs() <= 1e-14 * b.abs().max(1.0), "{} vs {}", a, b);
        }

        #[test]
        fn portable_exp_matches_libm(x in -700.0f64..700.0) {
            let a = portable_exp(x);
            let b = x.exp();
            prop_assert!((a - b).abs() <= 2e-15 * b, "{} vs {}", a, b);
        }

        #[test]
        fn portable_ln_on_unit_interval(x in 1e-12f64..=1.0) {
            let a = portable_ln(x);
            prop_assert!((a - x.ln()).abs() <= 1e-14 * x.ln().abs().max(1.0));
        }
    }
}
