//! Paper 004's two statements of section 3.4, checked on the measured ratios.

use super::report::Point;
use crate::claim::Claim;

/// "Roughly a factor of 2" holds for a ratio in this range (our reading of "roughly": 2 +- 20%).
pub const ABOUT_TWO: (f64, f64) = (1.6, 2.4);
/// "Not as pronounced" at low error rates: ELN within 10% of Reno.
pub const CLOSE: f64 = 0.10;

fn ratio_text(p: &Point) -> String {
    format!(
        "{} KB {}",
        p.kbytes_between_errors,
        p.eln_over_reno.mean_ci(2)
    )
}

/// Section 3.4's two statements, checked on the measured ratios.
pub fn claims(points: &[Point]) -> Vec<Claim> {
    let high: Vec<&Point> = points
        .iter()
        .filter(|p| p.kbytes_between_errors <= 32)
        .collect();
    let low: Vec<&Point> = points
        .iter()
        .filter(|p| p.kbytes_between_errors >= 256)
        .collect();
    let in_range = |p: &&Point| (ABOUT_TWO.0..=ABOUT_TWO.1).contains(&p.eln_over_reno.mean);
    let close = |p: &&Point| (p.eln_over_reno.mean - 1.0).abs() <= CLOSE;
    vec![
        Claim {
            id: "eln_doubles_at_high_error_rates",
            paper:
                "at medium to high error rates (one error every 8-32 KB) the improvement due to \
                    ELN is roughly a factor of 2 (section 3.4)",
            measured: format!(
                "Reno+ELN / Reno: {} (holds if each is within {:.1}-{:.1})",
                high.iter()
                    .map(|p| ratio_text(p))
                    .collect::<Vec<_>>()
                    .join(", "),
                ABOUT_TWO.0,
                ABOUT_TWO.1
            ),
            holds: (!high.is_empty()).then(|| high.iter().all(in_range)),
        },
        Claim {
            id: "eln_close_to_reno_at_low_error_rates",
            paper: "at lower error rates TCP Reno performs quite well and the benefits of ELN are \
                    not as pronounced (section 3.4)",
            measured: format!(
                "Reno+ELN / Reno: {} (holds if each is within {:.0}% of 1)",
                low.iter()
                    .map(|p| ratio_text(p))
                    .collect::<Vec<_>>()
                    .join(", "),
                100.0 * CLOSE
            ),
            holds: (!low.is_empty()).then(|| low.iter().all(close)),
        },
    ]
}
