//! `snooplab live --exec HOST=COMMAND` in the CLI (docs/live.md, "Your own programs: --exec"):
//! the preset's checks, each command's output after the run, and the exit status of the run.

use snooplab_live::exec::ExecReport;
use snooplab_live::network_report::NetworkResult;
use snooplab_live::network_run::NetworkConfig;
use snooplab_live::LiveConfig;

use crate::cli::LiveArgs;

/// The paper-000 preset with `--exec`: the flags' one configuration (one protocol, one run, as
/// the commands run once) as a network whose hosts are `fh` and `mh`.
pub fn live_preset_exec(a: &LiveArgs, configs: &[LiveConfig]) -> Result<(), String> {
    let [c] = configs else {
        return Err(format!(
            "--exec runs the commands once: give one --protocol and --runs 1 ({} runs planned)",
            configs.len()
        ));
    };
    snooplab_live::run::validate(c)?;
    let cfg = NetworkConfig {
        scenario: snooplab_live::run::preset_scenario(c),
        profile: c.profile,
        cc: c.cc,
        rto_min_ms: c.rto_min_ms,
        max_time: c.max_time,
        exec: crate::live_scenario::exec_specs(a)?,
    };
    crate::live_scenario::run_config(a, cfg, c.protocol.name())
}

/// Each command's status and its output, every line prefixed with `[HOST] `: on stdout, or on
/// stderr when stdout carries the JSON (`to_stderr`), which keeps it one parseable document.
pub fn print_exec(reports: &[ExecReport], to_stderr: bool) {
    let mut text = String::new();
    for r in reports {
        text.push_str(&format!("[{}] $ {}\n", r.host, r.command));
        for (out, truncated, what) in [
            (&r.stdout, r.stdout_truncated, "stdout"),
            (&r.stderr, r.stderr_truncated, "stderr"),
        ] {
            for line in String::from_utf8_lossy(out).lines() {
                text.push_str(&format!("[{}] {line}\n", r.host));
            }
            if truncated {
                text.push_str(&format!(
                    "[{}] ({what} truncated: kept the first {} bytes)\n",
                    r.host,
                    snooplab_live::exec::OUTPUT_LIMIT
                ));
            }
        }
        text.push_str(&format!("[{}] {}\n", r.host, r.status_text()));
    }
    if to_stderr {
        eprint!("{text}");
    } else {
        print!("{text}");
    }
}

/// The engine's packet counts per kernel host.
pub fn print_traffic(r: &NetworkResult) {
    for (name, t) in &r.live.traffic {
        println!(
            "  host {name}: sent {} packets ({} payload bytes), handed {} ({} payload bytes, {} \
             corrupted)",
            t.packets_in, t.payload_in, t.packets_out, t.payload_out, t.corrupted_out
        );
    }
}

/// The run's error when its last command did not exit with status 0.
pub fn exec_failure(reports: &[ExecReport]) -> Option<String> {
    let last = reports.last()?;
    if last.success() {
        return None;
    }
    Some(format!(
        "the last --exec command (on {}: {}) failed: {}",
        last.host,
        last.command,
        last.status_text()
    ))
}
