//! Exponential bit errors (paper 000 section IV-A, burst errors section IV-E; docs/model.md): the
//! gap in bytes between bit errors is exponentially distributed with a mean of `mean_bytes`; a frame is
//! corrupted if an error falls inside its bytes, headers included; each error event destroys `burst`
//! consecutive frames.

use crate::rng::Rng;

/// The running state of one direction's exponential error process.
#[derive(Clone, Debug)]
pub(crate) struct ExponentialErrors {
    mean_bytes: u64,
    burst: u32,
    rng: Rng,
    /// Bytes still to go before the next bit error.
    until_error: u64,
    /// Frames still to be destroyed by the current burst.
    burst_left: u32,
}

impl ExponentialErrors {
    pub fn new(mean_bytes: u64, burst: u32, mut rng: Rng) -> ExponentialErrors {
        let until_error = draw_gap(&mut rng, mean_bytes);
        ExponentialErrors {
            mean_bytes,
            burst,
            rng,
            until_error,
            burst_left: 0,
        }
    }

    /// Passes a frame of `bytes` bytes if no error falls inside it and no burst is running (true):
    /// what [`ExponentialErrors::corrupts`] does for it, without a draw. False: nothing changed,
    /// and `corrupts` decides.
    #[inline]
    pub(crate) fn spares(&mut self, bytes: u32) -> bool {
        let bytes = u64::from(bytes);
        if self.until_error > bytes && self.burst_left == 0 {
            self.until_error -= bytes;
            return true;
        }
        false
    }

    /// Passes a frame of `bytes` bytes; true if it is corrupted. The errors advance with the bytes
    /// sent, not with time: an idle channel keeps its next error where it was.
    pub fn corrupts(&mut self, bytes: u32) -> bool {
        let (mean_bytes, burst) = (self.mean_bytes, self.burst);
        let bytes = u64::from(bytes);
        let mut hit = false;
        if self.until_error <= bytes {
            hit = true;
            // Several errors may fall inside one frame; skip past all of them.
            let mut consumed = self.until_error;
            loop {
                let gap = draw_gap(&mut self.rng, mean_bytes);
                if consumed + gap > bytes {
                    self.until_error = consumed + gap - bytes;
                    break;
                }
                consumed += gap;
            }
        } else {
            self.until_error -= bytes;
        }
        if hit {
            self.burst_left = burst.saturating_sub(1);
            true
        } else if self.burst_left > 0 {
            self.burst_left -= 1;
            true
        } else {
            false
        }
    }
}

/// An exponential gap in whole bytes, at least one.
fn draw_gap(rng: &mut Rng, mean_bytes: u64) -> u64 {
    let g = rng.exponential(mean_bytes as f64).ceil();
    if g < 1.0 {
        1
    } else if g > 1e18 {
        1_000_000_000_000_000_000
    } else {
        g as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Stream;

    #[test]
    fn loss_rate_matches_exponential_model() {
        // 1440-byte frames, one error every 65536 bytes: P(loss) = 1 - exp(-1440/65536) = 2.17%.
        let mut p = ExponentialErrors::new(65536, 1, Rng::new(3, Stream::ErrorsDown));
        let n = 400_000;
        let lost = (0..n).filter(|_| p.corrupts(1440)).count();
        let rate = lost as f64 / n as f64;
        assert!((rate - 0.02173).abs() < 0.0015, "rate {rate}");
    }

    #[test]
    fn small_frames_are_rarely_hit() {
        let mut p = ExponentialErrors::new(65536, 1, Rng::new(3, Stream::ErrorsUp));
        let n = 400_000;
        let rate = (0..n).filter(|_| p.corrupts(40)).count() as f64 / n as f64;
        assert!((rate - 0.00061).abs() < 0.0002, "rate {rate}");
    }

    #[test]
    fn bursts_destroy_consecutive_frames() {
        let mut p = ExponentialErrors::new(65536, 4, Rng::new(5, Stream::ErrorsDown));
        let flags: Vec<bool> = (0..200_000).map(|_| p.corrupts(1440)).collect();
        // every run of corrupted frames is at least 4 long (runs may merge)
        let mut run = 0;
        let mut runs = vec![];
        for f in flags.iter().chain(std::iter::once(&false)) {
            if *f {
                run += 1;
            } else if run > 0 {
                runs.push(run);
                run = 0;
            }
        }
        assert!(!runs.is_empty());
        assert!(runs.iter().all(|r| *r >= 4), "{runs:?}");
    }
}
