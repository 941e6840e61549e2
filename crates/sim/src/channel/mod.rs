//! Channel (loss) models of the wireless link, behind one seam (docs/model.md): a [`Channel`] is
//! given each frame with the time it starts on the air and says whether bit errors corrupt it. Every
//! station of a cell has its own channel in each direction, each drawing from its own random streams
//! (`rng::ChannelStreams`: the frames' errors, and a Gilbert-Elliott channel's state apart).
//!
//! The models, one file each: `exponential.rs` (bit errors with exponential gaps, and bursts),
//! `gilbert_elliott.rs` (a two-state channel whose state runs on the clock) and `replay.rs` (recorded
//! error marks, per frame or per period of time); `fit/` fits a two-state model to a trace.

mod exponential;
pub mod fit;
pub mod generate;
mod gilbert_elliott;
mod replay;

pub(crate) use exponential::ExponentialErrors;
pub use gilbert_elliott::{GilbertElliott, GilbertElliottParams, STATE_TIME_RANGE};
pub use replay::{
    ChannelTrace, Marks, Replay, MAX_TRACE_BYTES, MAX_TRACE_FRAMES, MAX_TRACE_PERIODS,
};

use std::sync::Arc;

use snooplab_proto::Time;

use crate::rng::ChannelStreams;

/// Which loss model a channel runs, with its parameters: what scenario files name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChannelSpec {
    /// No errors.
    None,
    /// Bit errors with exponentially distributed gaps of mean `mean_bytes` bytes between them
    /// (BER = 1 / (8 * mean)); a frame is corrupted if an error falls inside its bytes, headers
    /// included. Each error event destroys `burst` consecutive frames (1 = the plain model; Table V
    /// uses 2, 4, 6).
    Exponential { mean_bytes: u64, burst: u32 },
    /// Two states, good and bad, each with its own bit-error rate and mean sojourn time.
    GilbertElliott(GilbertElliottParams),
    /// Recorded error marks, replayed.
    Trace(Arc<ChannelTrace>),
}

impl ChannelSpec {
    /// The model `--error-every` and `--burst` name: mean bytes between bit errors (0 = none) and
    /// frames destroyed per error event. Check them first with [`check_error_settings`].
    pub fn every(error_every: u64, burst: u32) -> ChannelSpec {
        if error_every == 0 {
            ChannelSpec::None
        } else {
            ChannelSpec::Exponential {
                mean_bytes: error_every,
                burst,
            }
        }
    }

    /// Checks the parameters; the message names the setting and the range.
    pub fn validate(&self) -> Result<(), String> {
        match *self {
            ChannelSpec::None => Ok(()),
            ChannelSpec::Exponential { mean_bytes, burst } => {
                check_error_settings(mean_bytes, burst)
            }
            ChannelSpec::GilbertElliott(p) => p.validate(),
            ChannelSpec::Trace(_) => Ok(()),
        }
    }

    /// A short description for reports: `none`, `1/64k`, `1/64k burst 4`, `ge 1/1M-1/2k 1s-50ms`,
    /// `trace FILE`.
    pub fn label(&self) -> String {
        match self {
            ChannelSpec::None => "none".into(),
            ChannelSpec::Exponential { mean_bytes, burst } => {
                let every = crate::size::format_size(*mean_bytes);
                if *burst > 1 {
                    format!("1/{every} burst {burst}")
                } else {
                    format!("1/{every}")
                }
            }
            ChannelSpec::GilbertElliott(p) => {
                let every = |e: u64| {
                    if e == 0 {
                        "0".to_string()
                    } else {
                        format!("1/{}", crate::size::format_size(e))
                    }
                };
                format!(
                    "ge {}-{} {}-{}",
                    every(p.good_every),
                    every(p.bad_every),
                    snooplab_proto::duration::format_duration(p.good_time),
                    snooplab_proto::duration::format_duration(p.bad_time)
                )
            }
            ChannelSpec::Trace(t) => format!("trace {}", t.source),
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

#[derive(Clone, Debug)]
enum Model {
    None,
    Exponential(ExponentialErrors),
    GilbertElliott(GilbertElliott),
    Replay(Replay),
}

/// One direction of one station's channel: the loss model's running state and its counters.
#[derive(Clone, Debug)]
pub struct Channel {
    model: Model,
    /// Frames passed through.
    pub frames: u64,
    /// Frames the model corrupted.
    pub corrupted: u64,
}

impl Channel {
    /// A channel running `spec`, drawing from `streams` (the model draws nothing for
    /// [`ChannelSpec::None`] or a trace; the exponential model only the frames' errors).
    pub fn new(spec: &ChannelSpec, streams: ChannelStreams) -> Channel {
        let model = match spec {
            ChannelSpec::None => Model::None,
            ChannelSpec::Exponential { mean_bytes, burst } => Model::Exponential(
                ExponentialErrors::new(*mean_bytes, *burst, streams.errors()),
            ),
            ChannelSpec::GilbertElliott(p) => {
                Model::GilbertElliott(GilbertElliott::new(*p, &streams))
            }
            ChannelSpec::Trace(t) => Model::Replay(Replay::new(Arc::clone(t))),
        };
        Channel {
            model,
            frames: 0,
            corrupted: 0,
        }
    }

    /// A frame of `bytes` bytes goes on the air at `now`; true if the channel corrupts it.
    /// Inlined with the common cases (no model, or an exponential error that falls beyond the
    /// frame with no burst running: most frames), the others a call.
    #[inline]
    pub fn corrupts(&mut self, now: Time, bytes: u32) -> bool {
        self.frames += 1;
        let spared = match &mut self.model {
            Model::None => true,
            Model::Exponential(e) => e.spares(bytes),
            _ => false,
        };
        if spared {
            return false;
        }
        let hit = self.model_corrupts(now, bytes);
        self.corrupted += u64::from(hit);
        hit
    }

    /// [`Channel::corrupts`] by the model, past the inlined cases.
    #[inline(never)]
    fn model_corrupts(&mut self, now: Time, bytes: u32) -> bool {
        match &mut self.model {
            Model::None => false,
            Model::Exponential(e) => e.corrupts(bytes),
            Model::GilbertElliott(g) => g.corrupts(now, bytes),
            Model::Replay(r) => r.corrupts(now),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn none_never_corrupts() {
        let mut c = Channel::new(&ChannelSpec::None, ChannelStreams::down(1, 0));
        assert!((0..10_000).all(|i| !c.corrupts(i, 1500)));
        assert_eq!((c.frames, c.corrupted), (10_000, 0));
    }

    #[test]
    fn counters_follow_the_model() {
        let spec = ChannelSpec::every(16384, 1);
        let mut c = Channel::new(&spec, ChannelStreams::down(2, 0));
        let hits = (0..10_000).filter(|&i| c.corrupts(i, 1440)).count() as u64;
        assert_eq!(c.corrupted, hits);
        assert!(hits > 0);
        assert_eq!(spec.label(), "1/16k");
        assert_eq!(ChannelSpec::every(65536, 4).label(), "1/64k burst 4");
        assert!(ChannelSpec::every(100, 1).validate().is_err());
    }
}
