//! Bit-error models of the wireless link, one instance per direction (paper 000 section IV-A and
//! IV-E; DESIGN section 2).

use crate::rng::Rng;

/// What decides whether a frame is corrupted.
#[derive(Clone, Debug, PartialEq)]
pub enum ErrorSpec {
    /// No errors.
    None,
    /// Bit errors with exponentially distributed gaps of mean `mean_bytes` bytes between them
    /// (BER = 1 / (8 * mean)); a frame is corrupted if an error falls inside its bytes, headers
    /// included. Each error event destroys `burst` consecutive frames (1 = the plain model; Table V uses
    /// 2, 4, 6).
    Exponential { mean_bytes: u64, burst: u32 },
}

impl ErrorSpec {
    /// The model `--error-every` and `--burst` name: mean bytes between bit errors (0 = none) and
    /// frames destroyed per error event. Check them first with [`check_error_settings`].
    pub fn every(error_every: u64, burst: u32) -> ErrorSpec {
        if error_every == 0 {
            ErrorSpec::None
        } else {
            ErrorSpec::Exponential {
                mean_bytes: error_every,
                burst,
            }
        }
    }
}

/// Whether `--error-every` and `--burst` are usable; the message names the setting and the range.
pub fn check_error_settings(error_every: u64, burst: u32) -> Result<(), String> {
    if error_every != 0 && error_every < 512 {
        return Err(format!(
            "error-every {error_every} is too small: use 0 (no errors) or at least 512 bytes"
        ));
    }
    if burst == 0 || burst > 1000 {
        return Err(format!(
            "burst {burst} is out of range: use 1 to 1000 frames per error event"
        ));
    }
    Ok(())
}

/// The running state of one direction's error process.
#[derive(Clone, Debug)]
pub struct ErrorProcess {
    spec: ErrorSpec,
    rng: Rng,
    /// Bytes still to go before the next bit error.
    until_error: u64,
    /// Frames still to be destroyed by the current burst.
    burst_left: u32,
    pub frames: u64,
    pub corrupted: u64,
}

impl ErrorProcess {
    pub fn new(spec: ErrorSpec, mut rng: Rng) -> ErrorProcess {
        let until_error = match &spec {
            ErrorSpec::None => u64::MAX,
            ErrorSpec::Exponential { mean_bytes, .. } => draw_gap(&mut rng, *mean_bytes),
        };
        ErrorProcess {
            spec,
            rng,
            until_error,
            burst_left: 0,
            frames: 0,
            corrupted: 0,
        }
    }

    /// Passes a frame of `bytes` bytes through the channel; true if it is corrupted.
    pub fn corrupts(&mut self, bytes: u32) -> bool {
        self.frames += 1;
        let ErrorSpec::Exponential { mean_bytes, burst } = self.spec else {
            return false;
        };
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
        let corrupted = if hit {
            self.burst_left = burst.saturating_sub(1);
            true
        } else if self.burst_left > 0 {
            self.burst_left -= 1;
            true
        } else {
            false
        };
        self.corrupted += u64::from(corrupted);
        corrupted
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
        let mut p = ErrorProcess::new(
            ErrorSpec::Exponential {
                mean_bytes: 65536,
                burst: 1,
            },
            Rng::new(3, Stream::ErrorsDown),
        );
        let n = 400_000;
        let lost = (0..n).filter(|_| p.corrupts(1440)).count();
        let rate = lost as f64 / n as f64;
        assert!((rate - 0.02173).abs() < 0.0015, "rate {rate}");
    }

    #[test]
    fn small_frames_are_rarely_hit() {
        let mut p = ErrorProcess::new(
            ErrorSpec::Exponential {
                mean_bytes: 65536,
                burst: 1,
            },
            Rng::new(3, Stream::ErrorsUp),
        );
        let n = 400_000;
        let rate = (0..n).filter(|_| p.corrupts(40)).count() as f64 / n as f64;
        assert!((rate - 0.00061).abs() < 0.0002, "rate {rate}");
    }

    #[test]
    fn bursts_destroy_consecutive_frames() {
        let mut p = ErrorProcess::new(
            ErrorSpec::Exponential {
                mean_bytes: 65536,
                burst: 4,
            },
            Rng::new(5, Stream::ErrorsDown),
        );
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

    #[test]
    fn none_never_corrupts() {
        let mut p = ErrorProcess::new(ErrorSpec::None, Rng::new(1, Stream::ErrorsDown));
        assert!((0..10_000).all(|_| !p.corrupts(1500)));
    }
}
