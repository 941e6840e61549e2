//! `snooplab bench`: simulator speed on one core, the figure the README reports.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use snooplab_sim::capture::Capture;
use snooplab_sim::{Env, Observer, Protocol, RunResult, Scenario, Simulation};

use crate::cli::BenchArgs;
use crate::run_progress::{sim_progress, Ticker};
use snooplab_proto::tcp::HostPreset;
use snooplab_sim::run::RunProgress;

/// What the timed runs record besides their result.
#[derive(Clone, Copy, Debug, Default)]
pub struct Recording {
    trace: bool,
    pcap: bool,
}

impl Recording {
    /// `--with`: `none`, or `trace` and `pcap`, each at most once (through the one list reader,
    /// `settings::split_distinct`): `trace,trace` is a mistake, not a second trace.
    fn parse(s: &str) -> Result<Recording, String> {
        #[derive(PartialEq, Eq, Hash)]
        enum What {
            None,
            Trace,
            Pcap,
        }
        let items = crate::settings::split_distinct(s, "--with", "each is recorded once", |p| {
            Ok(match p {
                "none" => What::None,
                "trace" => What::Trace,
                "pcap" => What::Pcap,
                other => {
                    return Err(snooplab_lab::Error::Invalid(format!(
                        "unknown --with '{other}' (known: none, trace, pcap, trace,pcap)"
                    )))
                }
            })
        })?;
        if items.len() > 1 && items.contains(&What::None) {
            return Err(format!(
                "--with '{s}' names none beside what to record: use none alone"
            ));
        }
        Ok(Recording {
            trace: items.contains(&What::Trace),
            pcap: items.contains(&What::Pcap),
        })
    }

    fn label(self) -> &'static str {
        match (self.trace, self.pcap) {
            (false, false) => "no trace, no capture",
            (true, false) => "with trace (in memory)",
            (false, true) => "with pcap capture (encoded, written to a sink)",
            (true, true) => "with trace and pcap capture",
        }
    }

    /// Runs `sc`, telling `progress` how it goes (the progress line, `run_progress.rs`).
    fn run(
        self,
        sc: &Scenario,
        progress: impl FnMut(RunProgress) + 'static,
    ) -> Result<RunResult, String> {
        if !self.trace && !self.pcap {
            return Ok(Simulation::new(sc).with_progress(progress).run());
        }
        let mut o = Observer::default();
        if self.trace {
            o = o.with_trace();
        }
        if self.pcap {
            let sinks: Vec<(String, snooplab_sim::capture::Sink)> = sc
                .network()
                .capture_names()
                .into_iter()
                .map(|n| {
                    let sink: snooplab_sim::capture::Sink = Box::new(std::io::sink());
                    (n, sink)
                })
                .collect();
            let c = Capture::new(sinks).map_err(|e| e.to_string())?;
            o = o.with_capture(c);
        }
        Ok(Simulation::observed(sc, o)
            .with_progress(progress)
            .run_observed()
            .0)
    }
}

/// The most timed runs `bench --runs` takes (documented in `--help`): a run takes a few
/// milliseconds, so this is minutes, where `--runs 100000000` would run for days.
pub const MAX_RUNS: u32 = 100_000;

/// What `bench` runs: the scenario (its seed set per run), what to record, and its label.
pub struct Plan {
    scenario: Scenario,
    recording: Recording,
    label: String,
}

/// Checks the settings without running anything: the scenario, what to record, the host.
pub fn plan(a: &BenchArgs) -> Result<Plan, String> {
    if a.runs == 0 || a.runs > MAX_RUNS {
        return Err(format!(
            "runs {} is out of range: use 1 to {MAX_RUNS}",
            a.runs
        ));
    }
    let recording = Recording::parse(&a.with)?;
    let mut sc = Scenario::paper000(Protocol::E2e, Env::Lan, 32768, 1);
    if let Some(path) = &a.scenario {
        snooplab_lab::scenario::apply_file(path, &mut sc)?;
    }
    if let Some(p) = &a.protocol {
        sc.protocol = Protocol::parse(p)?;
    }
    if let Some(h) = &a.host {
        sc.set_host(HostPreset::parse(h)?);
    }
    sc.validate()?;
    let net = sc.network();
    net.validate()?;
    let label = match &a.scenario {
        Some(path) => format!(
            "{} ({}, {}, {} hosts)",
            path.display(),
            sc.protocol.name(),
            crate::message::count(net.flows.len() as u64, "flow"),
            sc.host_label()
        ),
        None => format!(
            "E2E LAN-32k, 8 MB, 1 error / 64 KB as {}, {} hosts",
            sc.protocol.name(),
            sc.host_label()
        ),
    };
    Ok(Plan {
        scenario: sc,
        recording,
        label,
    })
}

/// The progress callback of bench run `run` of `runs` (0: the warm-up run): `bench: run 3 of 20,
/// 812.3 of 3600 s simulated, 3.0 of 8.0 MB delivered, 2.4 M events, 12 s elapsed` once the
/// bench has taken 2 s. A check every 65,536 events, the line at most four times a second: the
/// timed runs do not feel it.
fn bench_ticks(
    ticker: &Rc<RefCell<Ticker>>,
    run: u64,
    runs: u32,
) -> impl FnMut(RunProgress) + 'static {
    let ticker = Rc::clone(ticker);
    move |p| {
        ticker.borrow_mut().tick(|e: Duration| {
            let which = if run == 0 {
                "warm-up run".to_string()
            } else {
                format!("run {run} of {runs}")
            };
            format!(
                "bench: {which}, {}, {:.0} s elapsed",
                sim_progress(&p),
                e.as_secs_f64()
            )
        })
    }
}

pub fn bench(a: BenchArgs) -> Result<(), String> {
    let plan = plan(&a)?;
    if a.hot_paths {
        let paths = crate::bench_hot::hot_paths();
        if a.json {
            let text = serde_json::to_string_pretty(&serde_json::json!({ "hot_paths": paths }))
                .map_err(|e| format!("cannot encode the results: {e}"))?;
            println!("{text}");
        } else {
            crate::bench_hot::print(&paths);
        }
        return Ok(());
    }
    let rec = plan.recording;
    let scenario = |seed| {
        let mut sc = plan.scenario.clone();
        sc.seed = seed;
        sc
    };
    let mut walls = Vec::with_capacity(a.runs as usize);
    let (mut events, mut frames) = (0u64, 0u64);
    // one line for the whole bench, told by each run as it goes and between runs
    let ticker = Rc::new(RefCell::new(Ticker::stderr(a.quiet)));
    // one warm-up run
    let _ = rec.run(&scenario(0), bench_ticks(&ticker, 0, a.runs))?;
    for seed in 1..=u64::from(a.runs) {
        let sc = scenario(seed);
        let tick = bench_ticks(&ticker, seed, a.runs);
        let t = Instant::now();
        let r = rec.run(&sc, tick)?;
        walls.push(t.elapsed().as_secs_f64());
        events += r.events;
        frames += r.cells.iter().map(|c| c.frames).sum::<u64>();
        ticker.borrow_mut().tick(|e| {
            format!(
                "bench: {seed} of {} runs done, {:.0} s elapsed",
                a.runs,
                e.as_secs_f64()
            )
        });
    }
    // the line goes before the figures
    drop(ticker);
    let total: f64 = walls.iter().sum();
    let mean_ms = 1e3 * total / walls.len() as f64;
    let mut sorted = walls.clone();
    sorted.sort_by(f64::total_cmp);
    let median_ms = 1e3 * sorted[sorted.len() / 2];
    let (min_ms, max_ms) = (1e3 * sorted[0], 1e3 * sorted[sorted.len() - 1]);
    let eps = events as f64 / total;
    let events_per_run = events as f64 / walls.len() as f64;
    let events_per_frame = (frames > 0).then(|| events as f64 / frames as f64);
    let ns_per_event = 1e9 * total / events.max(1) as f64;
    if a.json {
        println!(
            "{}",
            serde_json::json!({
                "scenario": plan.label,
                "protocol": plan.scenario.protocol.name(),
                "host": plan.scenario.host_label(),
                "runs": a.runs,
                "recording": rec.label(),
                "mean_ms": mean_ms,
                "median_ms": median_ms,
                "min_ms": min_ms,
                "max_ms": max_ms,
                "events_per_run": events_per_run,
                "frames_per_run": frames as f64 / walls.len() as f64,
                "events_per_frame": events_per_frame,
                "events_per_second": eps,
                "ns_per_event": ns_per_event,
            })
        );
    } else {
        println!(
            "{}, {} on one thread, {}:",
            plan.label,
            crate::message::count(a.runs as u64, "run"),
            rec.label()
        );
        println!(
            "  wall time per run   {mean_ms:.1} ms mean, {median_ms:.1} ms median \
             ({min_ms:.1}-{max_ms:.1})"
        );
        println!("  events per run      {events_per_run:.0}");
        match events_per_frame {
            Some(e) => println!("  events per frame    {e:.2}"),
            None => println!("  events per frame    n/a (no wireless frame)"),
        }
        println!(
            "  events per second   {:.2} million ({ns_per_event:.0} ns per event)",
            eps / 1e6
        );
    }
    Ok(())
}
