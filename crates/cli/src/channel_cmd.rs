//! `snooplab channel-trace`: writes a channel trace (docs/channels.md) from a Gilbert-Elliott process
//! or from a measured loss process (a `ping` log), for `--down trace:FILE` and `snooplab live`.

use clap::{Args, Subcommand};
use snooplab_proto::duration::{self, Bare, Range, DAY};
use snooplab_sim::channel::{
    generate, ChannelSpec, ChannelTrace, GilbertElliottParams, MAX_TRACE_FRAMES, MAX_TRACE_PERIODS,
    STATE_TIME_RANGE,
};
use snooplab_sim::size::parse_size;

use crate::settings::{parse_seed, parse_u32};

#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
    snooplab channel-trace gilbert-elliott --good-every 0 --bad-every 1k --good-time 1s \\\n      \
    --bad-time 50ms --frames 20000 --out fading.trace\n  \
    snooplab channel-trace gilbert-elliott --good-time 1s --bad-time 50ms --duration 120s \\\n      \
    --out periods.trace                 # bad periods in time: every frame in them is lost\n  \
    ping -c 2000 -i 0.01 -s 1400 HOST > ping.log && snooplab channel-trace from-ping ping.log\n  \
    snooplab run --down trace:fading.trace --up none")]
pub struct ChannelTraceArgs {
    #[command(subcommand)]
    pub source: TraceSource,
    /// Write the trace here instead of standard output.
    #[arg(long, global = true, value_name = "FILE")]
    pub out: Option<std::path::PathBuf>,
}

#[derive(Subcommand, Debug)]
pub enum TraceSource {
    /// Sample a two-state Gilbert-Elliott channel: per-frame marks (--frames), or the bad periods
    /// of its state over time (--duration).
    GilbertElliott(GeArgs),
    /// Convert a `ping` log: every missing reply is a lost frame, in order.
    FromPing {
        /// The output of `ping` (iputils or BSD).
        log: std::path::PathBuf,
    },
}

#[derive(Args, Debug)]
pub struct GeArgs {
    /// Mean bytes between bit errors in the good state; 0 = none.
    #[arg(long, value_name = "SIZE", default_value = "0")]
    pub good_every: String,
    /// Mean bytes between bit errors in the bad state; 0 = none.
    #[arg(long, value_name = "SIZE", default_value = "1k")]
    pub bad_every: String,
    /// Mean time in the good state (1s, 200ms, 500us; a bare number is milliseconds), 1 us to 1 d.
    #[arg(long, value_name = "TIME")]
    pub good_time: String,
    /// Mean time in the bad state.
    #[arg(long, value_name = "TIME")]
    pub bad_time: String,
    /// Per-frame marks for this many frames (at most about 15 million: what a 16 MiB trace file holds).
    #[arg(long, value_name = "N", conflicts_with = "duration")]
    pub frames: Option<String>,
    /// Bytes of each frame, for the per-frame error draw.
    #[arg(long, value_name = "BYTES", default_value = "1440")]
    pub frame_bytes: String,
    /// Time from one frame to the next, on which the state runs (1440 bytes at 2 Mb/s: about 6 ms).
    #[arg(long, value_name = "TIME", default_value = "6ms")]
    pub frame_gap: String,
    /// Replay the marks again from the start when they run out.
    #[arg(long)]
    pub repeat: bool,
    /// Bad periods over this long instead of per-frame marks (1s, 120s, 1d; a bare number is
    /// milliseconds), at most a day.
    #[arg(long, value_name = "TIME")]
    pub duration: Option<String>,
    /// Random seed.
    #[arg(long, default_value = "1")]
    pub seed: String,
}

/// A time flag: the duration grammar, a bare number being milliseconds as in a channel table's
/// `good-time` (the two are one model's keys).
pub(crate) fn time(text: &str, what: &str, range: Range) -> Result<u64, String> {
    duration::parse_in(text, Bare::Millis, range, what)
}

/// Most frames a generated trace covers: what a trace file can hold, so that every trace written
/// is one `trace:FILE` reads back.
const MAX_FRAMES: u64 = MAX_TRACE_FRAMES;
/// How long a generated trace of bad periods may cover: at least 1 ns, at most a day, as long as
/// a state may last ([`STATE_TIME_RANGE`]): a longer trace would hold at most one period more.
const DURATION_RANGE: Range = Range::new(1, DAY);
/// The time from one frame to the next: at least 1 ns (the state must advance between frames),
/// at most a day (as a state).
pub(crate) const FRAME_GAP_RANGE: Range = Range::new(1, DAY);
/// Largest `ping` log read: 256 MiB (a few million replies).
const MAX_PING_LOG_BYTES: u64 = 256 << 20;

pub fn channel_trace(a: &ChannelTraceArgs) -> Result<(), String> {
    let (trace, comment) = match &a.source {
        TraceSource::GilbertElliott(g) => {
            let p = GilbertElliottParams {
                good_every: parse_size(&g.good_every).map_err(|e| format!("good-every: {e}"))?,
                bad_every: parse_size(&g.bad_every).map_err(|e| format!("bad-every: {e}"))?,
                good_time: time(&g.good_time, "good-time", STATE_TIME_RANGE)?,
                bad_time: time(&g.bad_time, "bad-time", STATE_TIME_RANGE)?,
            };
            p.validate()?;
            let seed = parse_seed(&g.seed)?;
            let spec = ChannelSpec::GilbertElliott(p).label();
            match (&g.frames, &g.duration) {
                (_, Some(d)) => {
                    let d = time(d, "duration", DURATION_RANGE)?;
                    let comment = format!(
                        "snooplab channel-trace: {spec}, bad periods over {}, seed {seed}",
                        g.duration.as_deref().unwrap_or("")
                    );
                    (
                        generate::gilbert_elliott_times(p, seed, d, MAX_TRACE_PERIODS)?,
                        comment,
                    )
                }
                (frames, None) => {
                    let n = match frames {
                        Some(f) => parse_size(f).map_err(|e| format!("frames: {e}"))?,
                        None => 10_000,
                    };
                    if n == 0 || n > MAX_FRAMES {
                        return Err(format!("frames {n} must be between 1 and {MAX_FRAMES}"));
                    }
                    let bytes = parse_u32(&g.frame_bytes, "frame-bytes")?;
                    let gap = time(&g.frame_gap, "frame-gap", FRAME_GAP_RANGE)?;
                    let comment = format!(
                        "snooplab channel-trace: {spec}, {n} frames of {bytes} bytes every {}, \
                         seed {seed}",
                        g.frame_gap
                    );
                    (
                        generate::gilbert_elliott_frames(p, seed, n, bytes, gap, g.repeat),
                        comment,
                    )
                }
            }
        }
        TraceSource::FromPing { log } => {
            let shown = log.display().to_string();
            let text = snooplab_sim::textfile::read_text_file(log, "ping log", MAX_PING_LOG_BYTES)?;
            let t = generate::from_ping_log(&text, &shown)?;
            (
                t,
                format!("snooplab channel-trace: from the ping log {shown}"),
            )
        }
    };
    let text = trace.to_text(&format!("{comment}\n{}", trace.summary()));
    match &a.out {
        Some(path) => std::fs::write(path, text)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?,
        None => {
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            if let Err(e) = out.write_all(text.as_bytes()) {
                if e.kind() != std::io::ErrorKind::BrokenPipe {
                    return Err(format!("cannot write the trace: {e}"));
                }
            }
        }
    }
    // round trip: what was written is what `trace:FILE` will read
    debug_assert!(ChannelTrace::parse(&trace.to_text(""), "x").is_ok());
    Ok(())
}
