//! `snooplab kernel-check measure`: the kernel's side of the kernel check
//! (`snooplab_papers::kernel_check`). Each point of the grid runs live with kernel hosts under the
//! `modern` profile (the kernel's defaults, its congestion control set per point) and every run's
//! summary, with one run's cwnd trace, goes into the data file, which is rewritten after each
//! point so that an interrupted measurement keeps what it finished (docs/kernel-check.md).

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use snooplab_live::link_config::LinkConfig;
use snooplab_live::profile::{CongestionControl, LinuxProfile};
use snooplab_live::run::LiveConfig;
use snooplab_papers::kernel_check::data::{
    thin, TraceSample, DATA_FILE, MAX_LATENESS_MS, MAX_TRACE_SAMPLES,
};
use snooplab_papers::kernel_check::grid::{self, Errors, SETTINGS};
use snooplab_papers::kernel_check::{KernelData, KernelRun, Point, PointRuns};
use snooplab_sim::medium::WavelanParams;

use crate::settings::{parse_max_time, parse_seed, parse_u32};

/// The most runs one point takes: each is real time (about 15 s for 2 MB at one error per 16 KB).
const MAX_RUNS_PER_POINT: u32 = 100;

#[derive(Subcommand, Debug)]
pub enum KernelCheckCommand {
    /// Run the grid's points live with kernel hosts and write the kernel's side to the data file
    /// (needs root, /dev/net/tun and `ip netns`).
    #[command(after_help = "Examples:\n  \
        sudo snooplab kernel-check measure                     # the headline points, 5 runs each\n  \
        sudo snooplab kernel-check measure --points all --runs 5\n  \
        sudo snooplab kernel-check measure --points lan-16k-snoop-cubic,lan-16k-e2e-cubic --runs 10\n\n\
        Points are ENV-ERRORS-AGENT-CC: lan|wan|long, 16k|64k|256k|1m|ge, e2e|snoop|snoop-sack,\n\
        cubic|reno (ge: a Gilbert-Elliott channel of bursts; long: 100 ms one way; the long path\n\
        and snoop-sack with CUBIC at 16k and 64k only; docs/kernel-check.md).\n\
        Each finished point replaces that point in --out; the others are kept. With --add\n\
        its runs join the point's instead (more seeds: --add --seed 6 --runs 5).")]
    Measure(MeasureArgs),
}

#[derive(Args, Debug)]
pub struct MeasureArgs {
    /// Which points: `headline` (the LAN, CUBIC, one error per 16 KB and 64 KB, no agent and
    /// snoop), `all` (50 points) or a comma-separated list of ids.
    #[arg(long, default_value = "headline")]
    pub points: String,
    /// Live runs per point, seeds from --seed on.
    #[arg(long, default_value = "5")]
    pub runs: String,
    /// The first run's seed (the error pattern and the bytes).
    #[arg(long, default_value = "1")]
    pub seed: String,
    /// The data file to update.
    #[arg(long, default_value = DATA_FILE)]
    pub out: PathBuf,
    /// Give up on a run after this much real time.
    #[arg(long, default_value = "300s")]
    pub max_time: String,
    /// Add the runs to each point's runs in --out instead of replacing the point: a seed the
    /// point has is measured again and replaced, the others are kept. Refused where --out holds
    /// runs of another kernel or transfer.
    #[arg(long)]
    pub add: bool,
}

pub fn kernel_check(c: &KernelCheckCommand) -> Result<(), String> {
    match c {
        KernelCheckCommand::Measure(a) => measure(a),
    }
}

fn measure(a: &MeasureArgs) -> Result<(), String> {
    let points = grid::select(&a.points)?;
    let runs = parse_u32(&a.runs, "runs")?;
    if runs == 0 || runs > MAX_RUNS_PER_POINT {
        return Err(format!(
            "runs {runs}: use 1 to {MAX_RUNS_PER_POINT} per point (each run is real time)"
        ));
    }
    let seed = parse_seed(&a.seed)?;
    let max_time = parse_max_time(&a.max_time)?;
    let configs: Vec<Vec<LiveConfig>> = points
        .iter()
        .map(|p| {
            (0..runs)
                .map(|r| config(p, seed + u64::from(r), max_time))
                .collect()
        })
        .collect::<Result<_, _>>()?;
    for c in configs.iter().flatten() {
        snooplab_live::run::validate(c)?;
    }
    let mut data = existing(&a.out)?;
    let kernel = read_trimmed("/proc/sys/kernel/osrelease");
    let adding = a.add && !data.points.is_empty();
    if a.add {
        let cannot = data.cannot_add(&kernel, SETTINGS.buffer, SETTINGS.transfer, SETTINGS.mss);
        if let Some(why) = cannot {
            return Err(format!(
                "--add: cannot add to {}: {why}; measure into another --out",
                a.out.display()
            ));
        }
    }
    if let Some(why) = snooplab_live::testbed::unavailable_reason() {
        return Err(why);
    }
    snooplab_live::sys::catch_stop_signals()
        .map_err(|e| format!("cannot catch the stop signals: {e}"))?;
    if !adding {
        data.kernel = kernel.clone();
    }
    data.machine = format!(
        "{}, {} CPUs",
        std::env::consts::ARCH,
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    if adding {
        // the file's first measurement keeps its date; each added one is named with its own
        data.command = format!(
            "{}; then at {} on kernel {kernel}: {command}",
            data.command,
            utc_now()
        );
    } else {
        data.date = utc_now();
        data.command = command;
    }
    data.profile = "modern (the kernel's defaults: SACK, DSACK, timestamps, window scaling, \
                    RACK-TLP, F-RTO, ECN only when the peer asks (tcp_ecn 2); rto_min and initcwnd the kernel's)"
        .into();
    data.buffer_bytes = SETTINGS.buffer;
    data.transfer_bytes = SETTINGS.transfer;
    data.mss = SETTINGS.mss;
    for (i, (p, point_configs)) in points.iter().zip(&configs).enumerate() {
        let mut point = PointRuns {
            id: p.id(),
            ..PointRuns::default()
        };
        for (r, cfg) in (0u32..).zip(point_configs) {
            let s = cfg.seed;
            let result = run_on_time(cfg, &p.id())?;
            let flow = result.run.flow();
            if !flow.invariants.complete {
                return Err(format!(
                    "{} seed {s}: the transfer did not complete intact; nothing of this point \
                     is written",
                    p.id()
                ));
            }
            let run = KernelRun {
                seed: s,
                throughput_mbps: flow.throughput_mbps,
                retransmitted: flow.sender_retransmitted_segments,
                timeouts: flow.timeouts,
                duration_s: flow.duration_s,
                max_lateness_ms: result.live.lateness.max_ms,
            };
            eprintln!(
                "kernel-check: point {}/{} {} run {}/{runs}: {:.3} Mb/s, {} retransmitted, {} \
                 timeouts",
                i + 1,
                points.len(),
                point.id,
                r + 1,
                run.throughput_mbps,
                run.retransmitted,
                run.timeouts
            );
            if r == 0 {
                let samples = result
                    .live
                    .flows
                    .first()
                    .map(|f| f.sender_samples.as_slice())
                    .unwrap_or_default();
                let trace: Vec<TraceSample> = samples
                    .iter()
                    .map(|s| TraceSample {
                        t_s: s.t_s,
                        cwnd_bytes: s.cwnd_bytes,
                        ssthresh_bytes: s.ssthresh_bytes,
                        retransmitted: s.retransmitted,
                    })
                    .collect();
                point.trace = thin(&trace, MAX_TRACE_SAMPLES);
            }
            point.runs.push(run);
        }
        let these = means(&point);
        let id = point.id.clone();
        if a.add {
            data.add(point);
        } else {
            data.put(point);
        }
        match data.point(&id).filter(|_| a.add) {
            // the point's means as written: its new runs joined the ones the file had
            Some(all) => eprintln!(
                "kernel-check: {id} mean of these {runs} runs {these}; of its {} runs now {}",
                all.runs.len(),
                means(all)
            ),
            None => eprintln!("kernel-check: {id} mean {these}"),
        }
        write(&a.out, &data)?;
    }
    eprintln!("kernel-check: wrote {}", a.out.display());
    Ok(())
}

/// A point's mean throughput, retransmitted segments and timeouts, as the progress shows them.
fn means(p: &PointRuns) -> String {
    format!(
        "{:.3} Mb/s, {:.1} retransmitted, {:.1} timeouts",
        p.mean_throughput(),
        p.mean_retransmitted(),
        p.mean_timeouts()
    )
}

/// Tries of one run before the measurement gives up on a machine too busy to emulate the path.
const TRIES: u32 = 3;

/// One live run whose emulator kept time: a run that fell more than [`MAX_LATENESS_MS`] behind is
/// reported and run again with the same seed, up to [`TRIES`] times.
fn run_on_time(
    cfg: &LiveConfig,
    id: &str,
) -> Result<snooplab_live::network_report::NetworkResult, String> {
    let s = cfg.seed;
    for attempt in 1..=TRIES {
        let result =
            snooplab_live::run::run(cfg, &mut |_| {}).map_err(|e| format!("{id} seed {s}: {e}"))?;
        let late = result.live.lateness.max_ms;
        if late <= MAX_LATENESS_MS {
            return Ok(result);
        }
        eprintln!(
            "kernel-check: {id} seed {s}: the emulator ran {late:.0} ms late (over \
             {MAX_LATENESS_MS:.0} ms: the machine, not the path, was measured); try {attempt} \
             of {TRIES}"
        );
    }
    Err(format!(
        "{id} seed {s}: the emulator ran over {MAX_LATENESS_MS:.0} ms late in {TRIES} tries: \
         stop what else runs on this machine and measure again"
    ))
}

/// The live run of point `p` with seed `seed`: paper 000's testbed as `snooplab live` builds it
/// from its flags (`--env`, `--error-every`), kernel hosts under the `modern` profile with the
/// point's congestion control.
fn config(p: &Point, seed: u64, max_time: u64) -> Result<LiveConfig, String> {
    let profile = LinuxProfile::Modern;
    // the exponential errors as `--error-every` gives them, the bursty channel as `--down`/`--up`
    let (error_every, bursts) = match p.errors {
        Errors::Every(b) => (b, None),
        e => (0, Some(e.channel())),
    };
    Ok(LiveConfig {
        protocol: p.protocol,
        env_name: p.path.name().to_string(),
        link: Some(LinkConfig {
            wired: p.path.wired(),
            wavelan: WavelanParams::default(),
            error_every,
            burst: 1,
            down: bursts.clone(),
            up: bursts,
            seed,
        }),
        profile,
        cc: CongestionControl::parse(p.cc)?,
        rto_min_ms: profile.default_rto_min_ms(),
        buffer: SETTINGS.buffer,
        mss: SETTINGS.mss,
        transfer: SETTINGS.transfer,
        seed,
        max_time,
        pcap: None,
        // every host's input in the engine's write call, as the data file's runs were measured
        // (docs/kernel-check.md, "The hosts' input")
        host_input: snooplab_live::host_input::HostInput::Inline,
    })
}

/// The data file as it is, or an empty one where there is none yet.
fn existing(path: &Path) -> Result<KernelData, String> {
    match std::fs::read_to_string(path) {
        Ok(text) => KernelData::parse(&text).map_err(|e| format!("{}: {e}", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(KernelData::default()),
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
}

fn write(path: &Path, data: &KernelData) -> Result<(), String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let text = serde_json::to_string_pretty(data).map_err(|e| e.to_string())?;
    std::fs::write(path, text + "\n").map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn read_trimmed(path: &str) -> String {
    std::fs::read_to_string(path)
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "unknown".into())
}

/// Now in UTC as RFC 3339 (`2026-12-06T05:30:00Z`), from the system clock.
fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    rfc3339(secs)
}

/// Seconds since 1970 as an RFC 3339 UTC time, by Howard Hinnant's `civil_from_days`.
fn rfc3339(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_rfc3339_utc() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_796_535_045), "2026-12-06T05:30:45Z");
    }

    #[test]
    fn a_point_runs_the_modern_profile_with_its_congestion_control() {
        let p = grid::select("wan-64k-snoop-reno").unwrap_or_default();
        let cfg = config(&p[0], 3, 1).map_err(|e| e.to_string());
        let cfg = cfg.as_ref().ok();
        assert_eq!(cfg.map(|c| c.cc), Some(CongestionControl::Reno));
        assert_eq!(cfg.map(|c| c.profile), Some(LinuxProfile::Modern));
        assert_eq!(cfg.map(|c| c.env_name.as_str()), Some("wan"));
        assert_eq!(
            cfg.and_then(|c| c.link.as_ref()).map(|l| l.error_every),
            Some(64 << 10)
        );
        assert_eq!(cfg.map(|c| c.protocol.name()), Some("ll-tcp-aware"));
        let ge = grid::select("lan-ge-e2e-cubic").unwrap_or_default();
        let link = config(&ge[0], 1, 1).ok().and_then(|c| c.link);
        let channels = link.map(|l| l.channels());
        let want = Errors::GilbertElliott.channel();
        assert_eq!(channels, Some((want.clone(), want)));
    }
}
