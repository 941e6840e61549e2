//! `snooplab bench`: simulator speed on one core, the figure the README reports.

use std::time::Instant;

use snooplab_sim::capture::Capture;
use snooplab_sim::{Env, Observer, Protocol, RunResult, Scenario, Simulation};

use crate::cli::BenchArgs;
use snooplab_proto::tcp::HostPreset;

/// What the timed runs record besides their result.
#[derive(Clone, Copy, Debug, Default)]
pub struct Recording {
    trace: bool,
    pcap: bool,
}

impl Recording {
    fn parse(s: &str) -> Result<Recording, String> {
        let mut r = Recording::default();
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match part {
                "none" => {}
                "trace" => r.trace = true,
                "pcap" => r.pcap = true,
                other => {
                    return Err(format!(
                        "unknown --with '{other}' (known: none, trace, pcap, trace,pcap)"
                    ))
                }
            }
        }
        Ok(r)
    }

    fn label(self) -> &'static str {
        match (self.trace, self.pcap) {
            (false, false) => "no trace, no capture",
            (true, false) => "with trace (in memory)",
            (false, true) => "with pcap capture (encoded, written to a sink)",
            (true, true) => "with trace and pcap capture",
        }
    }

    fn run(self, sc: &Scenario) -> Result<RunResult, String> {
        if !self.trace && !self.pcap {
            return Ok(Simulation::new(sc).run());
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
        Ok(Simulation::observed(sc, o).run_observed().0)
    }
}

/// The most timed runs `bench --runs` takes (documented in `--help`): a run takes a few
/// milliseconds, so this is minutes, where `--runs 100000000` would run for days.
pub const MAX_RUNS: u32 = 100_000;

/// Checks the settings without running anything: what to record, and the host.
pub fn plan(a: &BenchArgs) -> Result<(Recording, HostPreset), String> {
    if a.runs == 0 || a.runs > MAX_RUNS {
        return Err(format!(
            "runs {} is out of range: use 1 to {MAX_RUNS}",
            a.runs
        ));
    }
    Ok((Recording::parse(&a.with)?, HostPreset::parse(&a.host)?))
}

pub fn bench(a: BenchArgs) -> Result<(), String> {
    let (rec, host) = plan(&a)?;
    let scenario = |seed| {
        let mut sc = Scenario::paper000(Protocol::E2e, Env::Lan, 32768, seed);
        sc.set_host(host);
        sc
    };
    let mut walls = Vec::with_capacity(a.runs as usize);
    let mut events = 0u64;
    // one warm-up run
    let _ = rec.run(&scenario(0))?;
    let progress = crate::progress::Progress::new("bench", u64::from(a.runs))?;
    for seed in 1..=u64::from(a.runs) {
        let sc = scenario(seed);
        let t = Instant::now();
        let r = rec.run(&sc)?;
        walls.push(t.elapsed().as_secs_f64());
        events += r.events;
        progress.inc();
    }
    progress.finish();
    let total: f64 = walls.iter().sum();
    let mean_ms = 1e3 * total / walls.len() as f64;
    let mut sorted = walls.clone();
    sorted.sort_by(f64::total_cmp);
    let median_ms = 1e3 * sorted[sorted.len() / 2];
    let eps = events as f64 / total;
    let events_per_run = events as f64 / walls.len() as f64;
    if a.json {
        println!(
            "{}",
            serde_json::json!({
                "scenario": "e2e lan 32k mss 1400 8M error-every 64k",
                "host": host.name(),
                "runs": a.runs,
                "recording": rec.label(),
                "mean_ms": mean_ms,
                "median_ms": median_ms,
                "events_per_run": events_per_run,
                "events_per_second": eps,
            })
        );
    } else {
        println!(
            "E2E LAN-32k, 8 MB, 1 error / 64 KB, {} hosts, {} runs on one thread, {}:",
            host.name(),
            a.runs,
            rec.label()
        );
        println!("  wall time per run   {mean_ms:.1} ms mean, {median_ms:.1} ms median");
        println!("  events per run      {events_per_run:.0}");
        println!("  events per second   {:.2} million", eps / 1e6);
    }
    Ok(())
}
