//! The middlebox's status line: what crossed each interface and the agent's own counters, by the
//! names the simulator's results give them.

use snooplab_proto::time::as_secs_f64;
use snooplab_proto::Time;

use super::bridge::{Bridge, WIRED, WIRELESS};
use super::device::FrameDevice;

/// One line: elapsed time, each side's frames, and every counter of the agent.
pub fn status_line<D: FrameDevice>(bridge: &Bridge<D>, elapsed: Time) -> String {
    let side = |i: usize| {
        let c = &bridge.counters[i];
        format!(
            "{} in {} (tcp {}, passed {}) out {} (agent {}, passed {}){}",
            bridge.device(i).name(),
            c.frames_in,
            c.tcp_in,
            c.passed_in,
            c.passed_out + c.agent_out,
            c.agent_out,
            c.passed_out,
            problems(c)
        )
    };
    let agent: Vec<String> = bridge
        .agent()
        .counters()
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    let held = bridge.agent().probe();
    format!(
        "base-station: {:.1} s; wired {}; wireless {}; agent {} (holds {} segments, {} bytes)",
        as_secs_f64(elapsed),
        side(WIRED),
        side(WIRELESS),
        agent.join(" "),
        held.held_segments,
        held.held_bytes
    )
}

fn problems(c: &super::bridge::SideCounters) -> String {
    let mut p = Vec::new();
    if c.oversize > 0 {
        p.push(format!("oversize dropped {}", c.oversize));
    }
    if c.no_header > 0 {
        p.push(format!("no header {}", c.no_header));
    }
    if c.write_errors > 0 {
        p.push(format!("write errors {}", c.write_errors));
    }
    if p.is_empty() {
        String::new()
    } else {
        format!(" [{}]", p.join(", "))
    }
}
