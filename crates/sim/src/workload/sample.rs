//! The workload's distributions, sampled with portable code (docs/architecture.md#rules): only
//! IEEE basic operations, `sqrt`, [`portable_ln`] and [`portable_exp`], so a seed gives the same
//! bits on every machine. Which distribution a model uses, with its source, is `model.rs`.

use super::cdf::Cdf;
use crate::rng::{portable_exp, portable_ln, Rng};
use std::sync::Arc;

/// A distribution of a positive quantity (bytes, seconds or a count).
#[derive(Clone, Debug, PartialEq)]
pub enum Dist {
    /// Always this value.
    Constant(f64),
    /// `e^(mu + sigma Z)`, `Z` standard normal.
    LogNormal { mu: f64, sigma: f64 },
    /// Pareto (type I): `P(X > x) = (k / x)^alpha` for `x >= k`.
    Pareto { alpha: f64, k: f64 },
    /// A lognormal body with a Pareto tail: a lognormal draw below `cut` is kept, and one at or
    /// above it is replaced by a Pareto draw with `k = cut`, so the tail carries the lognormal's
    /// own mass above `cut` (`1 - Phi((ln cut - mu) / sigma)`) and the two parts meet at `cut`.
    /// This is how SURGE's hybrid file-size model is commonly built (J-Sim's
    /// `drcl.util.random.LognormalParetoDistribution` switches on the same normal draw).
    LogNormalParetoTail {
        mu: f64,
        sigma: f64,
        alpha: f64,
        cut: f64,
    },
    /// An empirical CDF (`cdf.rs`: values non-decreasing, probabilities increasing, the last
    /// 1; read at run time, `mah_tables.rs`), drawn as Bruce Mah's CDF class draws it, in GloMoSim 2.02's reading
    /// (`application/http_distribution.c`, `DoubleDistFindIndex` and the two `Interpolate`
    /// functions, used by `http_client.pc` and `http_server.pc`): a uniform `u` below the first
    /// probability gives the first value; otherwise `u` is placed between the two points whose
    /// probabilities bracket it and the value interpolated linearly between theirs. `whole`
    /// rounds that up to a whole number (GloMoSim's `IntegralInterpolate`, used for counts and
    /// byte lengths); otherwise it stays continuous (`ContinuousInterpolate`, the think time).
    Empirical { cdf: Arc<Cdf>, whole: bool },
}

impl Dist {
    /// One draw. Each variant consumes a fixed pattern of draws from `rng` (the normal's polar
    /// method rejects about 21% of its pairs), all from the page's own stream.
    pub fn sample(&self, rng: &mut Rng) -> f64 {
        match *self {
            Dist::Constant(v) => v,
            Dist::LogNormal { mu, sigma } => portable_exp(mu + sigma * standard_normal(rng)),
            Dist::Pareto { alpha, k } => pareto(rng, alpha, k),
            Dist::LogNormalParetoTail {
                mu,
                sigma,
                alpha,
                cut,
            } => {
                let z = standard_normal(rng);
                if z < (portable_ln(cut) - mu) / sigma {
                    portable_exp(mu + sigma * z)
                } else {
                    pareto(rng, alpha, cut)
                }
            }
            Dist::Empirical { ref cdf, whole } => empirical(cdf.points(), whole, rng.unit()),
        }
    }
}

/// The value of an empirical CDF at the uniform `u` (see [`Dist::Empirical`]). An empty table
/// gives 0 (the caller's clamp then raises it to 1); a [`Cdf`] is never empty.
pub fn empirical(points: &[(f64, f64)], whole: bool, u: f64) -> f64 {
    let (Some(&(first_v, first_p)), Some(&(last_v, _))) = (points.first(), points.last()) else {
        return 0.0;
    };
    if u < first_p {
        return first_v;
    }
    // The first point whose probability exceeds u; u sits between it and the one before.
    let above = points.partition_point(|&(_, p)| p <= u);
    if above >= points.len() {
        return last_v;
    }
    let (v1, p1) = points[above - 1];
    let (v2, p2) = points[above];
    let v = v1 + (v2 - v1) / (p2 - p1) * (u - p1);
    if whole {
        v.ceil()
    } else {
        v
    }
}

/// Marsaglia's polar method: no sine or cosine, whose last bits differ between platforms.
pub fn standard_normal(rng: &mut Rng) -> f64 {
    loop {
        let u = 2.0 * rng.unit() - 1.0;
        let v = 2.0 * rng.unit() - 1.0;
        let s = u * u + v * v;
        if s > 0.0 && s < 1.0 {
            return u * (-2.0 * portable_ln(s) / s).sqrt();
        }
    }
}

/// Inversion: `k U^(-1/alpha)` with `U` in (0, 1].
fn pareto(rng: &mut Rng, alpha: f64, k: f64) -> f64 {
    let u = 1.0 - rng.unit();
    k * portable_exp(-portable_ln(u) / alpha)
}
