//! `snooplab plot`: the plots of a traced run, from its trace directory.

use snooplab_sim::trace::TraceLog;
use snooplab_sim::RunResult;

use crate::cli::PlotArgs;
use crate::plot::trace_plots::{plot_trace, View};
use crate::settings::parse_seconds;

/// The title of a run's plots: what ran, where, with which errors.
pub fn run_title(r: &RunResult) -> String {
    title_of(
        &r.flow().protocol,
        &r.setup.env,
        r.flow().buffer_bytes.into(),
        r.setup.error_every_bytes,
        r.setup.burst.into(),
        r.setup.seed,
    )
}

fn title_of(protocol: &str, env: &str, buffer: u64, every: u64, burst: u64, seed: u64) -> String {
    use snooplab_papers::units::format_bytes;
    use snooplab_sim::size::format_size;
    let errors = if every == 0 {
        "no errors".to_string()
    } else if burst > 1 {
        format!("1 error / {}, bursts of {burst}", format_bytes(every))
    } else {
        format!("1 error / {}", format_bytes(every))
    };
    format!(
        "{protocol}, {}-{}, {errors}, seed {seed}",
        env.to_uppercase(),
        format_size(buffer)
    )
}

/// The largest run.json read for a title: the result of a run with many flows or handoffs is a few
/// megabytes at most; a FIFO or a device in its place is passed over as a missing file is.
const MAX_RUN_JSON_BYTES: u64 = 16 << 20;

/// The title from a trace directory's run.json, if it is there and readable.
fn title_from_dir(dir: &std::path::Path) -> Option<String> {
    let text = snooplab_sim::textfile::read_text_file(
        &dir.join("run.json"),
        "run result",
        MAX_RUN_JSON_BYTES,
    )
    .ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    Some(title_of(
        v.get("protocol")?.as_str()?,
        v.get("env")?.as_str()?,
        v.get("buffer_bytes")?.as_u64()?,
        v.get("error_every_bytes")?.as_u64()?,
        v.get("burst")?.as_u64()?,
        v.get("seed")?.as_u64()?,
    ))
}

fn seconds(flag: &str, v: &Option<String>) -> Result<Option<u64>, String> {
    v.as_deref()
        .map(|s| parse_seconds(s, &format!("--{flag}")))
        .transpose()
        .map_err(String::from)
}

pub fn plot(a: PlotArgs) -> Result<(), String> {
    // the flags first: a mistyped window is reported before a large trace is read
    let (from, to) = (seconds("from", &a.from)?, seconds("to", &a.to)?);
    let trace = TraceLog::read_csv(&a.trace_dir)?;
    let title = title_from_dir(&a.trace_dir).unwrap_or_else(|| a.trace_dir.display().to_string());
    let mut view = View::whole(&trace, title);
    // the run's time as the trace has it: from 0 to its last segment or ACK
    let end = view.to;
    if let Some(f) = from {
        view.from = f;
    }
    if let Some(t) = to {
        view.to = t;
    }
    if view.to <= view.from {
        return Err(format!(
            "the time window is empty: --from {} s is not before --to {} s",
            view.from as f64 / 1e9,
            view.to as f64 / 1e9
        ));
    }
    // a window that starts where the run has ended would be drawn as an empty chart
    if view.from >= end {
        return Err(format!(
            "the time window --from {} s --to {} s lies outside the run: its trace ends at {:.3} s",
            view.from as f64 / 1e9,
            view.to as f64 / 1e9,
            end as f64 / 1e9
        ));
    }
    let out = a.out.as_deref().unwrap_or(&a.trace_dir);
    crate::files::create_dir(out)?;
    let figs = plot_trace(out, &view)?;
    for f in figs {
        println!("{}\n{}", f.png.display(), f.svg.display());
    }
    Ok(())
}
