//! The middlebox's status line: what crossed each interface and the agent's own counters, by the
//! names the simulator's results give them.

use std::net::Ipv4Addr;

use snooplab_proto::agent::{Agent, RelayReport};
use snooplab_proto::segment::Endpoint;
use snooplab_proto::time::as_secs_f64;
use snooplab_proto::Time;
use snooplab_sim::packet::SimPacket;

use super::bridge::{Bridge, WIRED, WIRELESS};
use super::device::FrameDevice;
use super::egress_link::EgressLink;

/// One line: elapsed time, each side's frames, and every counter of the agent.
pub fn status_line<D: FrameDevice>(bridge: &Bridge<D>, elapsed: Time) -> String {
    let side = |i: usize| {
        let c = &bridge.counters[i];
        format!(
            "{} in {} (tcp {}, passed {}) out {} (agent {}, passed {}){}{}",
            bridge.device(i).name(),
            c.frames_in,
            c.tcp_in,
            c.passed_in,
            c.passed_out + c.agent_out,
            c.agent_out,
            c.passed_out,
            bridge.link(i).map_or(String::new(), link_part),
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

/// A split base station's result per connection, one line each (the newest first: those relayed
/// now, then those closed, as many as the agent remembers): the connection as its opener
/// numbered it, and what the relay's sender towards the other host did. Nothing for an agent
/// that relays no connection.
pub fn connection_lines(agent: &dyn Agent<SimPacket>) -> Vec<String> {
    let Some(relay) = agent.relay() else {
        return Vec::new();
    };
    relay.reports().iter().map(connection_line).collect()
}

fn connection_line(r: &RelayReport) -> String {
    let end = |e: &Endpoint| format!("{}:{}", Ipv4Addr::from(e.addr), e.port);
    let s = &r.sender;
    let gave_up = r.gave_up.map_or(String::new(), |(at, held)| {
        format!(" gave_up_at={:.3}s held_bytes={held}", as_secs_f64(at))
    });
    format!(
        "base-station: relay {} -> {}: data_bytes_sent={} data_segments_sent={} \
         retransmitted_segments={} timeouts={} fast_retransmits={}{gave_up}",
        end(&r.endpoints.0),
        end(&r.endpoints.1),
        s.data_bytes_sent,
        s.data_segs_sent,
        s.rexmt_segs,
        s.timeouts,
        s.fast_retransmits
    )
}

/// An emulated egress link's part of its side: what it holds now, held at most, and dropped.
fn link_part(l: &EgressLink) -> String {
    let c = &l.counters;
    format!(
        " link holds {} (at most {}, queue drops {}, channel drops {})",
        l.holding(),
        c.max_held,
        c.queue_drops,
        c.channel_drops
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
