//! How well a fitted length distribution matches the observed lengths: the observed and expected
//! counts in bins, Pearson's chi-square over them, and a Kolmogorov-Smirnov distance.
//!
//! The bins are merged until each expects at least [`MIN_EXPECTED`] samples, the usual condition
//! for the chi-square approximation to hold (Cochran 1954, "Some methods for strengthening the
//! common chi-square tests", Biometrics 10(4)); the degrees of freedom are the bins less one, less
//! the one parameter fitted (the mean).

use serde::Serialize;

/// The fewest samples a bin must expect before the chi-square statistic is trusted (Cochran 1954).
pub(crate) const MIN_EXPECTED: f64 = 5.0;

/// The p-value below which a fit is said not to hold: 1%, so a true model is refused once in a
/// hundred traces.
pub(crate) const SIGNIFICANCE: f64 = 0.01;

/// One bin of a length distribution: `[low, high]` (`high` none: and longer).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Bin {
    pub low: f64,
    pub high: Option<f64>,
    pub observed: u64,
    pub expected: f64,
}

/// Pearson's chi-square over the merged bins.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ChiSquare {
    pub statistic: f64,
    pub df: u32,
    pub p_value: f64,
}

/// The quality of one fitted length distribution.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Goodness {
    /// Observed against expected counts, bins merged as the chi-square needs them.
    pub bins: Vec<Bin>,
    /// None when fewer than three bins remain (no degree of freedom left).
    pub chi_square: Option<ChiSquare>,
    /// The largest gap between the observed and the fitted cumulative distributions.
    pub ks_distance: f64,
    /// Whether the fitted distribution holds: the chi-square's p-value is at least
    /// [`SIGNIFICANCE`] (none: too few samples to say).
    pub fits: Option<bool>,
}

/// Bins `[edges[i], edges[i+1])` (the last open), their observed counts from `count_in` and their
/// expected counts from the fitted distribution's `survival` (P(X >= x)), merged left to right
/// until each expects [`MIN_EXPECTED`], then tested. `n` is the number of samples and `ks` the
/// Kolmogorov-Smirnov distance, computed by the caller on the samples.
pub(crate) fn judge(
    edges: &[f64],
    n: u64,
    count_in: impl Fn(f64, Option<f64>) -> u64,
    survival: impl Fn(f64) -> f64,
    ks: f64,
) -> Goodness {
    let mut raw: Vec<Bin> = Vec::with_capacity(edges.len());
    for (i, &low) in edges.iter().enumerate() {
        let high = edges.get(i + 1).copied();
        let p = survival(low) - high.map_or(0.0, &survival);
        raw.push(Bin {
            low,
            high,
            observed: count_in(low, high),
            expected: n as f64 * p.max(0.0),
        });
    }
    let bins = merge(raw);
    let chi_square = (bins.len() >= 3).then(|| {
        let statistic: f64 = bins
            .iter()
            .map(|b| {
                let d = b.observed as f64 - b.expected;
                if b.expected > 0.0 {
                    d * d / b.expected
                } else {
                    f64::INFINITY
                }
            })
            .sum();
        // one parameter was fitted from the same samples
        let df = bins.len() as u32 - 2;
        ChiSquare {
            statistic,
            df,
            p_value: chi_square_p(statistic, df),
        }
    });
    let fits = chi_square.as_ref().map(|c| c.p_value >= SIGNIFICANCE);
    Goodness {
        bins,
        chi_square,
        ks_distance: ks,
        fits,
    }
}

/// Merges neighbouring bins left to right until each expects at least [`MIN_EXPECTED`]; what is
/// left over at the end joins the last full bin.
fn merge(raw: Vec<Bin>) -> Vec<Bin> {
    let mut out: Vec<Bin> = Vec::new();
    let mut open: Option<Bin> = None;
    for b in raw {
        let cur = match open.take() {
            None => b,
            Some(mut o) => {
                o.high = b.high;
                o.observed += b.observed;
                o.expected += b.expected;
                o
            }
        };
        if cur.expected >= MIN_EXPECTED {
            out.push(cur);
        } else {
            open = Some(cur);
        }
    }
    if let Some(rest) = open {
        match out.last_mut() {
            Some(last) => {
                last.high = rest.high;
                last.observed += rest.observed;
                last.expected += rest.expected;
            }
            None => out.push(rest),
        }
    }
    out
}

/// The p-value of a chi-square statistic `x` with `df` degrees of freedom: the regularized upper
/// incomplete gamma function Q(df/2, x/2).
pub(crate) fn chi_square_p(x: f64, df: u32) -> f64 {
    if !x.is_finite() {
        return 0.0;
    }
    gamma_q(f64::from(df) / 2.0, x / 2.0)
}

/// Regularized upper incomplete gamma Q(a, x) for a > 0: its power series below x = a + 1, its
/// continued fraction (modified Lentz) above, the split and the method of Press et al.,
/// "Numerical Recipes", 3rd ed., section 6.2.
fn gamma_q(a: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    let front = (-x + a * x.ln() - ln_gamma(a)).exp();
    if x < a + 1.0 {
        let (mut ap, mut del) = (a, 1.0 / a);
        let mut sum = del;
        for _ in 0..10_000 {
            ap += 1.0;
            del *= x / ap;
            sum += del;
            if del.abs() < sum.abs() * 1e-15 {
                break;
            }
        }
        (1.0 - sum * front).clamp(0.0, 1.0)
    } else {
        const TINY: f64 = 1e-300;
        let mut b = x + 1.0 - a;
        let mut c = 1.0 / TINY;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..10_000 {
            let an = -f64::from(i) * (f64::from(i) - a);
            b += 2.0;
            d = an * d + b;
            if d.abs() < TINY {
                d = TINY;
            }
            c = b + an / c;
            if c.abs() < TINY {
                c = TINY;
            }
            d = 1.0 / d;
            let del = d * c;
            h *= del;
            if (del - 1.0).abs() < 1e-15 {
                break;
            }
        }
        (front * h).clamp(0.0, 1.0)
    }
}

/// ln Γ(x) for x >= 0.5: Lanczos's approximation with g = 7 and nine coefficients (Lanczos 1964,
/// "A precision approximation of the gamma function", SIAM J. Numer. Anal. B 1), about 15 digits.
fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    let x = x - 1.0;
    let mut s = C[0];
    for (i, c) in C.iter().enumerate().skip(1) {
        s += c / (x + i as f64);
    }
    let t = x + G + 0.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + s.ln()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn ln_gamma_at_known_points() {
        // Γ(1) = Γ(2) = 1, Γ(5) = 24, Γ(1/2) = √π
        assert!(ln_gamma(1.0).abs() < 1e-13);
        assert!(ln_gamma(2.0).abs() < 1e-13);
        assert!((ln_gamma(5.0) - 24f64.ln()).abs() < 1e-12);
        assert!((ln_gamma(0.5) - std::f64::consts::PI.sqrt().ln()).abs() < 1e-13);
    }

    #[test]
    fn chi_square_p_at_table_values() {
        // the 5% and 1% points of chi-square with 1, 2 and 10 degrees of freedom
        for (x, df, p) in [
            (3.841_459, 1, 0.05),
            (6.634_897, 1, 0.01),
            (5.991_465, 2, 0.05),
            (18.307_04, 10, 0.05),
            (23.209_25, 10, 0.01),
        ] {
            let got = chi_square_p(x, df);
            assert!((got - p).abs() < 1e-6, "chi2({x}, {df}) = {got}, want {p}");
        }
        assert_eq!(chi_square_p(0.0, 3), 1.0);
        assert_eq!(chi_square_p(f64::INFINITY, 3), 0.0);
    }

    proptest! {
        /// With two degrees of freedom the p-value is exp(-x/2) exactly; and it falls as x grows.
        #[test]
        fn p_value_with_two_df_is_exponential(x in 0.0f64..200.0, dx in 0.001f64..10.0) {
            let p = chi_square_p(x, 2);
            prop_assert!((p - (-x / 2.0).exp()).abs() < 1e-12, "{} vs {}", p, (-x / 2.0).exp());
            for df in 1..40 {
                let (a, b) = (chi_square_p(x, df), chi_square_p(x + dx, df));
                prop_assert!((0.0..=1.0).contains(&a));
                prop_assert!(b <= a + 1e-12, "df {} x {}: {} then {}", df, x, a, b);
            }
        }

        /// Merged bins keep every sample and every expected count, and each (but a lone one)
        /// expects at least MIN_EXPECTED.
        #[test]
        fn merging_keeps_the_totals(expected in proptest::collection::vec(0.0f64..20.0, 1..30)) {
            let raw: Vec<Bin> = expected
                .iter()
                .enumerate()
                .map(|(i, &e)| Bin { low: i as f64, high: Some(i as f64 + 1.0), observed: i as u64, expected: e })
                .collect();
            let total_o: u64 = raw.iter().map(|b| b.observed).sum();
            let total_e: f64 = raw.iter().map(|b| b.expected).sum();
            let bins = merge(raw);
            prop_assert_eq!(bins.iter().map(|b| b.observed).sum::<u64>(), total_o);
            prop_assert!((bins.iter().map(|b| b.expected).sum::<f64>() - total_e).abs() < 1e-9);
            if bins.len() > 1 {
                prop_assert!(bins.iter().all(|b| b.expected >= MIN_EXPECTED));
            }
            prop_assert!(bins.windows(2).all(|w| w[0].high == Some(w[1].low)));
        }
    }
}
