//! The lines only a live run has, printed after the run's own tables (`result_text.rs`, the
//! printer `snooplab run` uses): the hosts' settings, each flow's stacks and digest check, the
//! traffic of `--exec` commands, and the warnings; and the `--exec` commands' output and status.

use snooplab_live::exec::ExecReport;
use snooplab_live::network_report::NetworkResult;
use snooplab_sim::Scenario;

use crate::result_text::{result_text, Filled};

/// A live run's result as text: `run`'s tables of the same result, `-` where a kernel end left a
/// key unfilled, then the live lines.
pub fn print_live_result(r: &NetworkResult, sc: &Scenario) {
    print!("{}", result_text(&r.run, sc, &filled(r)));
    print_live(r);
}

/// Which keys each flow's ends filled: a kernel end leaves the engine's TCP counters of that end
/// unfilled, and a kernel sender's own counts are its host's only where it sends that flow alone
/// (`snooplab_live::network_report::LiveFlow::sender_host_counts`).
fn filled(r: &NetworkResult) -> Vec<Filled> {
    r.live
        .flows
        .iter()
        .map(|f| {
            let model_sender = f.sender != "kernel";
            Filled {
                sender_tcp: model_sender,
                receiver_tcp: f.receiver != "kernel",
                sender_counts: model_sender || f.sender_host_counts,
            }
        })
        .collect()
}

fn print_live(r: &NetworkResult) {
    let l = &r.live;
    let opt =
        |v: Option<u32>, unit: &str| v.map_or_else(|| "kernel's".into(), |v| format!("{v}{unit}"));
    let mut head = format!(
        "live: linux profile {}, cc {}, rto min {}, initcwnd {}",
        l.linux_profile,
        l.cc,
        opt(l.rto_min_ms, " ms"),
        opt(l.initcwnd, "")
    );
    if let Some(cap) = l.capacity_mbps.filter(|c| *c > 0.0) {
        head.push_str(&format!(
            ", capacity {cap:.3} Mb/s ({:.1}% used)",
            100.0 * r.run.flow().throughput_mbps / cap
        ));
    }
    println!("{head}");
    if r.exec.is_empty() {
        print_flows(r);
    } else {
        println!("  flows: none started by snooplab (--exec carried the traffic)");
        print_traffic(r);
    }
    for w in &l.warnings {
        println!("warning: {w}");
    }
}

/// Each flow's ends (a namespace's Linux TCP or the engine's model), what its receiver read, its
/// kernel sender's retransmission timeout at the end, and its digest check, which ends the row;
/// then each kernel host's checksum errors (the corrupted frames its kernel dropped).
fn print_flows(r: &NetworkResult) {
    println!(
        "  {:<10} {:<14} {:>10} {:>10}  digest",
        "flow", "stacks", "received B", "rto ms"
    );
    for l in &r.live.flows {
        let rto = match l.sender {
            "kernel" => format!("{:.1}", l.sender_rto_ms),
            _ => "-".into(),
        };
        println!(
            "  {:<10} {:<14} {:>10} {:>10}  {}",
            l.flow,
            format!("{}>{}", l.sender, l.receiver),
            l.received_bytes,
            rto,
            if l.integrity_ok { "ok" } else { "BAD" }
        );
    }
    let csum: Vec<String> = r
        .live
        .hosts
        .iter()
        .map(|(name, c)| format!("{name} {}", c.in_csum_errors))
        .collect();
    if !csum.is_empty() {
        println!(
            "  checksum errors (corrupted frames a kernel dropped): {}",
            csum.join(", ")
        );
    }
    if !r.live.host_input.hosts.is_empty() {
        println!("  host input: {}", r.live.host_input.summary());
    }
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
