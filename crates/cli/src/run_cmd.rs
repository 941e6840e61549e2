//! `snooplab run` and `snooplab protocols`.

use std::path::Path;

use snooplab_proto::tcp::{HostPreset, HostProfile};
use snooplab_sim::capture::Capture;
use snooplab_sim::network::file::write_scenario;
use snooplab_sim::trace::TraceLog;
use snooplab_sim::{Observer, Protocol, RunResult, Scenario, Simulation};

use snooplab_lab::settings::RunSettings;
use snooplab_live::live_protocols;

use crate::cli::RunArgs;
use crate::files::{create_dir, write_file};
use crate::plot::trace_plots::{plot_trace, View};
use crate::plot_cmd::run_title;
use crate::run_progress::{run_line, Ticker};

/// How a run that printed its result ended: the exit code tells a script whether to trust it
/// without reading the result (`main`: 0, or 3 when incomplete).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every transfer completed and every run-time check held.
    Complete,
    /// A transfer did not complete (a sender gave up, a flow never started, the time cap) or a
    /// check failed; the result says which.
    Incomplete,
}

pub fn run(a: RunArgs) -> Result<Outcome, String> {
    let sc = scenario_from_args(&a)?;
    if a.print_scenario {
        // the network the flags built, in the scenario file's table form, instead of a run
        print!("{}", write_scenario(&sc)?);
        return Ok(Outcome::Complete);
    }
    let trace_dirs: Vec<&Path> = [a.trace.as_deref(), a.plot.as_deref()]
        .into_iter()
        .flatten()
        .collect();
    let (r, obs) = if trace_dirs.is_empty() && a.pcap.is_none() {
        (
            Simulation::new(&sc).with_progress(ticker(a.quiet)).run(),
            None,
        )
    } else {
        let mut o = Observer::default();
        if !trace_dirs.is_empty() {
            o = o.with_trace();
        }
        if let Some(dir) = &a.pcap {
            o = o.with_capture(open_capture(dir, &sc.network().capture_names())?);
        }
        let (r, o) = Simulation::observed(&sc, o)
            .with_progress(ticker(a.quiet))
            .run_observed();
        (r, Some(o))
    };
    // the result first: a capture, trace or plot that cannot be written must not lose it
    if a.json {
        let text = serde_json::to_string(&r).map_err(|e| format!("cannot encode result: {e}"))?;
        println!("{text}");
    } else {
        crate::result_text::print_result(&r, &sc);
    }
    if let Some(o) = obs {
        if let (Some(c), Some(dir)) = (o.capture, &a.pcap) {
            let counts = c
                .finish()
                .map_err(|e| format!("cannot write the captures in {}: {e}", dir.display()))?;
            let files: Vec<String> = counts
                .iter()
                .map(|(name, n)| format!("{name}.pcap ({n} packets)"))
                .collect();
            eprintln!("wrote {}: {}", dir.display(), files.join(", "));
        }
        if let Some(t) = &o.trace {
            for dir in &trace_dirs {
                write_trace(dir, t, &r)?;
            }
            if let Some(dir) = &a.plot {
                let figs = plot_trace(dir, &View::whole(t, run_title(&r)))?;
                let names: Vec<String> = figs
                    .iter()
                    .filter_map(|f| f.png.file_stem().map(|s| s.to_string_lossy().into_owned()))
                    .collect();
                eprintln!("wrote {}: {} (.png, .svg)", dir.display(), names.join(", "));
            }
        }
    }
    if r.invariants.ok() {
        Ok(Outcome::Complete)
    } else {
        eprintln!(
            "note: {} (the result says why); exit code 3",
            r.invariants.summary()
        );
        Ok(Outcome::Incomplete)
    }
}

/// A progress line on stderr for a run that takes a while (`run_progress.rs`), none with
/// `--quiet`; it is cleared when the run ends, before the results are printed.
fn ticker(quiet: bool) -> impl FnMut(snooplab_sim::run::RunProgress) + 'static {
    let mut t = Ticker::stderr(quiet);
    move |p| t.tick(|elapsed| run_line(&p, elapsed))
}

/// One capture file per link and cell, `<name>.pcap`, in `dir`.
pub fn open_capture(dir: &Path, names: &[String]) -> Result<Capture, String> {
    create_dir(dir)?;
    Capture::create_files(dir, names)
}

/// The trace tables and the run's result (`run.json`, which `snooplab plot` reads for titles).
pub fn write_trace(dir: &Path, t: &TraceLog, r: &RunResult) -> Result<(), String> {
    create_dir(dir)?;
    t.write_csv(dir)
        .map_err(|e| format!("cannot write the trace in {}: {e}", dir.display()))?;
    let json = serde_json::to_string_pretty(r).map_err(|e| format!("cannot encode result: {e}"))?;
    write_file(&dir.join("run.json"), json)?;
    eprintln!(
        "wrote {}: {} segments, {} ACKs, {} window changes",
        dir.display(),
        t.segments.len(),
        t.acks.len(),
        t.windows.len()
    );
    Ok(())
}

pub fn protocols() {
    for p in Protocol::ALL {
        // which protocols `snooplab live` runs between two kernel hosts, from the simulator's list
        let live = if p.runs_between_kernels() {
            " [live]"
        } else {
            ""
        };
        println!("{:<20} {}{live}", p.name(), p.description());
    }
    let live: Vec<&str> = live_protocols().iter().map(|p| p.name()).collect();
    println!(
        "\nLive mode (`snooplab live --protocol`, real Linux TCP through the base-station agent): \
         {}, marked [live] above (plain, its old name for e2e, is an alias: the base station only \
         routes). ll-smart-tcp-aware runs as ll-tcp-aware there, since Linux ACKs carry no SMART \
         information; split and split-smart relay the kernels' bytes through the base \
         station's own two TCPs (split-smart's SMART sender gets no SMART information from a \
         Linux receiver either). The others change a host's TCP (the end-to-end variants, efr; \
         ll-smart needs SMART information on the ACKs, bs-eln and bs-nack a mobile sender that \
         reads ELN marks or piggybacks its queue): they run live in a scenario file (`snooplab \
         live --scenario`) whose host at that end is modelled (`stack = \"model\"`: the \
         engine's TCP, any host profile, on the real clock), the other end a Linux kernel. See \
         docs/live.md.",
        live.join(", ")
    );
    println!(
        "\nDirection: the link-layer agents (ll, ll-tcp-aware/snoop, ll-smart, ll-smart-tcp-aware) \
         serve data that enters the base station from the wired side and leaves into its cell, one \
         cache per connection, for any number of connections; data a mobile host sends passes \
         through untouched. bs-eln and bs-nack serve the other way: data a mobile host sends \
         (`snooplab run --direction up`; docs/paper004.md), and a transit link's far base station \
         (examples/transit-eln.toml). A split base station relays one flow, towards its mobile \
         host."
    );
}

/// The host profiles, each with its details (`--host`, `--host-detail`, docs/host-profiles.md).
pub fn hosts() {
    for h in HostPreset::ALL {
        println!("{:<12} {}", h.name(), h.description());
        let p = h.profile();
        let details: Vec<String> = HostProfile::KEYS
            .iter()
            .filter_map(|k| p.get(k).map(|v| format!("{k}={v}")))
            .collect();
        println!("{:<12} {}", "", details.join(" "));
    }
}

/// Defaults, then the scenario file, then the flags.
pub fn scenario_from_args(a: &RunArgs) -> Result<Scenario, String> {
    Ok(run_settings(a).scenario()?)
}

/// The flags that define the scenario.
fn run_settings(a: &RunArgs) -> RunSettings {
    RunSettings {
        scenario: a.scenario.clone(),
        protocol: a.protocol.clone(),
        env: a.env.clone(),
        buffer: a.buffer.clone(),
        mss: a.mss.clone(),
        transfer: a.transfer.clone(),
        direction: a.direction.clone(),
        error_every: a.error_every.clone(),
        error_every_down: a.error_every_down.clone(),
        error_every_up: a.error_every_up.clone(),
        burst: a.burst.clone(),
        down: a.down.clone(),
        up: a.up.clone(),
        seed: a.seed.clone(),
        max_time: a.max_time.clone(),
        host: a.host.clone(),
        host_detail: a.host_detail.clone(),
    }
}
