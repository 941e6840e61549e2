//! Mean and 95% confidence interval over seeds (Student's t), the sample standard deviation, and a
//! count as a percentage of another: the one copy of each every crate uses.

use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Summary {
    pub n: usize,
    pub mean: f64,
    /// Half-width of the 95% confidence interval of the mean; `None` (`null`, printed `n/a`) for
    /// fewer than two values, which give no interval: `± 0.000` would claim a certainty one seed
    /// does not have.
    pub ci95: Option<f64>,
    pub min: f64,
    pub max: f64,
}

impl Summary {
    /// The interval's half-width with `digits` decimals, or `n/a`.
    pub fn ci_text(&self, digits: usize) -> String {
        self.ci95
            .map_or_else(|| "n/a".to_string(), |c| format!("{c:.digits$}"))
    }

    /// `mean ± half-width` with `digits` decimals (`1.234 ± n/a` for one value).
    pub fn mean_ci(&self, digits: usize) -> String {
        format!("{:.digits$} ± {}", self.mean, self.ci_text(digits))
    }
}

/// Two-sided 97.5% quantiles of Student's t for 1..=30 degrees of freedom.
const T975: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
    2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
    2.052, 2.048, 2.045, 2.042,
];

/// The two-sided 95% quantile of Student's t with `df` degrees of freedom (0 for none).
pub fn t_quantile(df: usize) -> f64 {
    match df {
        0 => 0.0,
        1..=30 => T975[df - 1],
        31..=60 => 2.000,
        61..=120 => 1.980,
        _ => 1.960,
    }
}

/// Whether two samples' means differ by no more than their run-to-run noise: the difference
/// inside its 95% interval, `t * sqrt(se_a^2 + se_b^2)` with each standard error from its
/// sample's interval and the smaller sample's degrees of freedom (Welch's interval, its degrees
/// of freedom taken low, so it is the wider). `false` when either has fewer than two values.
pub fn means_within_noise(a: &Summary, b: &Summary) -> bool {
    let se = |s: &Summary| s.ci95.map(|c| c / t_quantile(s.n - 1));
    let (Some(sa), Some(sb)) = (se(a), se(b)) else {
        return false;
    };
    let df = a.n.min(b.n) - 1;
    (a.mean - b.mean).abs() <= t_quantile(df) * (sa * sa + sb * sb).sqrt()
}

/// `part` as a percentage of `whole`: `100 * part / whole` in `f64`, 0 when `whole` is 0 (a run that
/// sent nothing has no goodput to speak of, and the results must not hold a NaN).
pub fn pct(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

/// The sample standard deviation of `xs` (Bessel's correction: the sum of squared deviations from
/// the mean over `n - 1`), 0 for fewer than two values. The same variance as [`summarize`]'s
/// interval; paper 002's Table 1 reports it as the spread over seeds.
pub fn std_dev(xs: &[f64]) -> f64 {
    if xs.len() < 2 {
        return 0.0;
    }
    let m = xs.iter().sum::<f64>() / xs.len() as f64;
    (xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (xs.len() - 1) as f64).sqrt()
}

pub fn summarize(values: &[f64]) -> Summary {
    let n = values.len();
    if n == 0 {
        return Summary {
            n,
            mean: 0.0,
            ci95: None,
            min: 0.0,
            max: 0.0,
        };
    }
    let mean = values.iter().sum::<f64>() / n as f64;
    let var = if n > 1 {
        values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n - 1) as f64
    } else {
        0.0
    };
    let ci95 = (n > 1).then(|| t_quantile(n - 1) * (var / n as f64).sqrt());
    Summary {
        n,
        mean,
        ci95,
        min: values.iter().copied().fold(f64::INFINITY, f64::min),
        max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        let s = summarize(&[1.0, 2.0, 3.0, 4.0]);
        assert_eq!(s.mean, 2.5);
        // sd = 1.291, se = 0.6455, t(3) = 3.182
        assert!(s.ci95.is_some_and(|c| (c - 3.182 * 0.645_497).abs() < 1e-4));
        assert_eq!((s.min, s.max), (1.0, 4.0));
        assert_eq!(summarize(&[5.0]).ci95, None);
        assert_eq!(summarize(&[5.0]).mean_ci(3), "5.000 ± n/a");
        assert_eq!(summarize(&[1.0, 3.0]).mean_ci(1), "2.0 ± 12.7");
    }

    #[test]
    fn means_apart_by_more_than_their_noise_are_told_apart() {
        // 10 values each, sd 1: se 0.316 each, the difference's half-width 2.262 * 0.447 = 1.01
        let around = |m: f64| summarize(&[m - 1.0, m + 1.0].repeat(5));
        assert!(means_within_noise(&around(3.0), &around(2.0)));
        assert!(!means_within_noise(&around(3.0), &around(1.9)));
        // no spread: any difference is outside
        assert!(!means_within_noise(
            &summarize(&[1.0; 4]),
            &summarize(&[1.1; 4])
        ));
        assert!(means_within_noise(
            &summarize(&[1.0; 4]),
            &summarize(&[1.0; 4])
        ));
        assert!(!means_within_noise(&summarize(&[1.0]), &summarize(&[1.0])));
    }

    #[test]
    fn pct_and_std_dev() {
        assert_eq!(pct(1, 4), 25.0);
        assert_eq!(pct(3, 0), 0.0);
        assert_eq!(pct(0, 7), 0.0);
        // Sample, not population: [1, 2, 3, 4] has variance 5/3 (population: 5/4).
        assert!((std_dev(&[1.0, 2.0, 3.0, 4.0]) - (5.0f64 / 3.0).sqrt()).abs() < 1e-12);
        assert_eq!(std_dev(&[2.0, 2.0]), 0.0);
        assert_eq!(std_dev(&[5.0]), 0.0);
        assert_eq!(std_dev(&[]), 0.0);
    }
}
