//! `snooplab channel fit TRACE`: a two-state Gilbert-Elliott model fitted to a channel trace
//! (`crates/sim/src/channel/fit/`), printed with the quality of the fit and the `--down` string
//! that runs it (docs/channels.md, "Fitting a trace").

use std::fmt::Write as _;

use clap::{Args, Subcommand};
use snooplab_sim::channel::fit::{self, Bin, Fit, Frames, State};
use snooplab_sim::channel::ChannelTrace;

use crate::channel_cmd::{time, FRAME_GAP_RANGE};
use crate::settings::parse_u32;

#[derive(Subcommand, Debug)]
pub enum ChannelCommand {
    /// Fit a two-state (Gilbert-Elliott) model to a channel trace: each state's mean, how well
    /// its run lengths match, and the `--down` model string (docs/channels.md).
    #[command(after_help = "Examples:\n  \
        snooplab channel-trace from-ping ping.log --out measured.trace\n  \
        snooplab channel fit measured.trace --frame-gap 10ms --frame-bytes 1428\n  \
        snooplab channel fit fading.trace --json\n  \
        snooplab run --down \"$(snooplab channel fit measured.trace --model-only)\"")]
    Fit(FitArgs),
}

#[derive(Args, Debug)]
pub struct FitArgs {
    /// A channel trace (`frames` or `time`, docs/channels.md), at most 16 MiB.
    pub trace: std::path::PathBuf,
    /// Bytes of each frame of a per-frame trace, for the model's per-frame loss.
    #[arg(long, value_name = "BYTES", default_value = "1440")]
    pub frame_bytes: String,
    /// Time from one frame of the trace to the next, on which the model's state runs (a `ping
    /// -i 0.01` log: 10ms; the default, 1440 bytes at 2 Mb/s, is channel-trace's).
    #[arg(long, value_name = "TIME", default_value = "6ms")]
    pub frame_gap: String,
    /// Print the fit as one JSON object.
    #[arg(long, conflicts_with = "model_only")]
    pub json: bool,
    /// Print only the model string (for `--down "$(...)"`).
    #[arg(long)]
    pub model_only: bool,
}

/// Largest frame: an IPv4 packet's total length is 16 bits (RFC 791, section 3.1).
const MAX_FRAME_BYTES: u32 = 65_535;

pub fn channel(c: &ChannelCommand) -> Result<(), String> {
    match c {
        ChannelCommand::Fit(a) => channel_fit(a),
    }
}

fn channel_fit(a: &FitArgs) -> Result<(), String> {
    let bytes = parse_u32(&a.frame_bytes, "frame-bytes")?;
    if bytes == 0 || bytes > MAX_FRAME_BYTES {
        return Err(format!(
            "frame-bytes {bytes} must be between 1 and {MAX_FRAME_BYTES}"
        ));
    }
    let gap = time(&a.frame_gap, "frame-gap", FRAME_GAP_RANGE)?;
    // the reader bounds the input: a regular file of at most 16 MiB (MAX_TRACE_BYTES)
    let trace = ChannelTrace::read(&a.trace)?;
    let f = fit::fit(&trace, Frames { bytes, gap })?;
    let out = if a.json {
        serde_json::to_string_pretty(&f).map_err(|e| format!("cannot write the fit: {e}"))? + "\n"
    } else if a.model_only {
        format!("{}\n", f.model)
    } else {
        text(&f)
    };
    use std::io::Write;
    if let Err(e) = std::io::stdout().lock().write_all(out.as_bytes()) {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            return Err(format!("cannot write the fit: {e}"));
        }
    }
    Ok(())
}

/// A length in the state's unit, for the tables.
fn length(v: f64, unit: &str) -> String {
    if unit == "s" {
        format!("{:.3}ms", v * 1e3)
    } else {
        format!("{v}")
    }
}

fn bin_label(b: &Bin, unit: &str) -> String {
    let low = length(b.low, unit);
    match b.high {
        None => format!("{low} or more"),
        // frame lengths are whole: [4, 5) is 4
        Some(h) if unit != "s" && h - b.low <= 1.0 => low,
        Some(h) if unit != "s" => format!("{low}-{}", length(h - 1.0, unit)),
        Some(h) => format!("{low} to {}", length(h, unit)),
    }
}

fn state_table(out: &mut String, name: &str, s: &State) {
    let _ = writeln!(out, "\n{name}: {} seen", s.runs);
    let _ = writeln!(out, "  {:<22} {:>9} {:>11}", "length", "observed", "fitted");
    for b in &s.lengths.bins {
        let _ = writeln!(
            out,
            "  {:<22} {:>9} {:>11.1}",
            bin_label(b, s.unit),
            b.observed,
            b.expected
        );
    }
    let verdict = match (&s.lengths.chi_square, s.lengths.fits) {
        (Some(c), Some(fits)) => format!(
            "chi-square {:.2} with {} df, p = {:.3}: {}",
            c.statistic,
            c.df,
            c.p_value,
            if fits {
                "the fitted distribution holds"
            } else {
                "the lengths are NOT what the model gives (p < 0.01)"
            }
        ),
        _ => "too few runs for a chi-square test".into(),
    };
    let _ = writeln!(
        out,
        "  {verdict}; Kolmogorov-Smirnov distance {:.3}",
        s.lengths.ks_distance
    );
}

fn text(f: &Fit) -> String {
    let mut out = String::new();
    let what = if f.form == "frames" {
        format!(
            "{} frames of {} bytes, one every {}",
            f.samples,
            f.frames.bytes,
            snooplab_proto::duration::format_duration(f.frames.gap)
        )
    } else {
        format!("{} bad periods", f.samples)
    };
    let _ = writeln!(out, "channel fit: {} ({what})", f.source);
    let _ = writeln!(out, "method: {}", f.method);
    let unit = if f.form == "frames" { "frames" } else { "time" };
    let _ = writeln!(
        out,
        "\n  {:<6} {:>7} {:>14} {:>14} {:>12} {:>14}",
        "state", "runs", "mean run", "model's mean", "frame loss", "leave/frame"
    );
    for (name, s) in [("good", &f.good), ("bad", &f.bad)] {
        let _ = writeln!(
            out,
            "  {name:<6} {:>7} {:>14} {:>14} {:>12.6} {:>14}",
            s.runs,
            show(s.mean_run, s.unit),
            show(s.model_mean_run, s.unit),
            s.loss,
            s.leave_per_frame.map_or("-".into(), |q| format!("{q:.6}"))
        );
    }
    if let Some(p) = &f.params {
        let _ = writeln!(
            out,
            "\n  mean good period {:.6} s, mean bad period {:.6} s",
            p.good_time_s, p.bad_time_s
        );
    }
    let _ = writeln!(
        out,
        "\nloss: the trace {:.4}% ({unit}), the fitted model {:.4}% of {}-byte frames",
        f.trace_loss * 100.0,
        f.model_loss * 100.0,
        f.frames.bytes
    );
    let (good, bad) = if f.form == "frames" {
        (
            "good runs (received frames in a row), in frames",
            "bad runs (lost frames in a row), in frames",
        )
    } else {
        ("good periods (between bad ones)", "bad periods")
    };
    state_table(&mut out, good, &f.good);
    state_table(&mut out, bad, &f.bad);
    for n in &f.notes {
        let _ = writeln!(out, "\nnote: {n}");
    }
    let _ = writeln!(out, "\n--down {}", f.model);
    out
}

/// A mean in its unit: frames to three decimals, seconds to the microsecond.
fn show(v: f64, unit: &str) -> String {
    if unit == "s" {
        format!("{v:.6} s")
    } else {
        format!("{v:.3}")
    }
}
