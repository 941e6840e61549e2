//! The text tables of a run's result (issue 48: one printer for both clocks). `snooplab run`
//! prints them alone; `snooplab live` prints them and then what only a live run has
//! (`live_text.rs`).

use snooplab_sim::metrics::RelayCounters;
use snooplab_sim::{Direction, RunResult, Scenario};

/// A run's result as text, whichever clock ran it (`snooplab run`, and `snooplab live` before its
/// own lines, `live_text.rs`): one flow's details, or a row per flow and per cell for any other
/// number of flows (none: a live run whose `--exec` commands carried the traffic).
pub fn print_result(r: &RunResult, sc: &Scenario) {
    if r.flows.len() != 1 {
        print_network_table(r);
        return;
    }
    println!(
        "{} {} {}, mss {} B, {} B transfer, errors {}, seed {}, host {}",
        r.flow().protocol,
        r.setup.env,
        buffer_label(r),
        r.flow().mss,
        r.flow().transfer_bytes,
        errors_label(sc),
        r.setup.seed,
        r.flow().host
    );
    println!("  direction           {}", direction_label(r, sc));
    println!(
        "  throughput          {:8.3} Mb/s",
        r.flow().throughput_mbps
    );
    println!(
        "  wireless goodput    {:>8} %",
        pct_or_na(r.flow().wireless_goodput_pct)
    );
    println!("  wired goodput       {:8.2} %", r.flow().wired_goodput_pct);
    println!("  duration            {:8.3} s", r.flow().duration_s);
    println!(
        "  timeouts            {:8}   ({:.2} s waiting for the retransmission timer)",
        r.flow().timeouts,
        r.flow().timeout_stall_s
    );
    let c = &r.flow().timeout_causes;
    println!(
        "    causes: {} retransmission lost, {} multiple losses in a window, {} window too small \
         for 3 dupacks, {} other, {} handshake",
        c.retransmission_lost, c.multiple_losses, c.small_window, c.other, c.handshake
    );
    println!("  fast retransmits    {:8}", r.flow().fast_retransmits);
    println!(
        "  sender retransmits  {:8} segments",
        r.flow().sender_retransmitted_segments
    );
    println!(
        "  local retransmits   {:8}",
        r.agent_total("local_retransmissions")
    );
    if let Some(relay) = &r.flow().relay {
        print_relay(relay);
    }
    println!(
        "  persist probes      {:8}   ({} zero-window ACKs, {} window updates by reads)",
        r.flow().persist_timeouts,
        r.flow().zero_window_acks,
        r.flow().window_updates
    );
    println!(
        "  header prediction   {:8} ACKs ({} at the fast-retransmit threshold), {} data",
        r.flow().predicted_acks,
        r.flow().predicted_acks_in_recovery,
        r.flow().predicted_data
    );
    println!(
        "  corrupted frames    {:8} down, {} up{}",
        r.flat().frames_corrupted_down,
        r.flat().frames_corrupted_up,
        carried_label(sc)
    );
    print_handoffs(r);
    println!("  events              {:8}", r.events);
    println!("  invariants          {}", r.invariants.summary());
    for m in &r.invariants.messages {
        println!("    {m}");
    }
}

/// Who sends to whom: paper 000's testbed by `--direction`, a network's one flow by its ends.
fn direction_label(r: &RunResult, sc: &Scenario) -> String {
    let ends = r
        .flows
        .first()
        .map_or_else(String::new, |f| format!("{} -> {}", f.from, f.to));
    if sc.topology.is_some() {
        return ends;
    }
    match sc.direction {
        Direction::Down => format!("down ({ends}: the fixed host sends to the mobile host)"),
        Direction::Up => format!("up ({ends}: the mobile host sends to the fixed host)"),
    }
}

/// What the two directions of the wireless link carried, where the testbed says (paper 000's: the
/// data one way, the ACKs the other); a network's cells may carry both each way.
fn carried_label(sc: &Scenario) -> &'static str {
    if sc.topology.is_some() {
        return " (down: base stations to mobile hosts; up: back)";
    }
    match sc.direction {
        Direction::Down => " (down: base station to mobile host, the data; up: the ACKs)",
        Direction::Up => " (down: base station to mobile host, the ACKs; up: the data)",
    }
}

/// A goodput in percent, or `n/a` when no data frame crossed a wireless link (a wired path: the
/// ratio has no denominator, and 0 would read as every byte wasted).
fn pct_or_na(pct: Option<f64>) -> String {
    pct.map_or_else(|| "n/a".into(), |p| format!("{p:.2}"))
}

/// A number with `digits` decimals, or `n/a` for a mean over nothing.
fn num_or_na(v: f64, defined: bool, digits: usize) -> String {
    if defined {
        format!("{v:.digits$}")
    } else {
        "n/a".into()
    }
}

/// Each mobile host that handed off (paper 002): how often, how many confirmed, and the latency
/// (decision to confirmation, and to the first packet from the new cell), a kernel mobile host's
/// in a live run too.
fn print_handoffs(r: &RunResult) {
    for h in &r.handoffs {
        let first_packets = h
            .events
            .iter()
            .filter(|e| e.first_packet_ms.is_some())
            .count();
        println!(
            "  handoffs            {:8}   ({}: {} confirmed, latency mean {} ms, max {} ms; to the \
             first packet from the new cell {} ms)",
            h.handoffs,
            h.mobile,
            h.confirmed,
            num_or_na(h.latency_ms_mean, h.confirmed > 0, 1),
            num_or_na(h.latency_ms_max, h.confirmed > 0, 1),
            num_or_na(h.first_packet_ms_mean, first_packets > 0, 1)
        );
    }
}

/// A split run's second sender, the base station's TCP to the mobile host. The lines above it are
/// the fixed host's sender, which the base station acknowledges over the wired path and which
/// therefore rarely times out: the wireless losses are the relay's to repair.
fn print_relay(relay: &RelayCounters) {
    println!(
        "  relay sender (split: the base station's TCP to the mobile host; the sender lines above \
         are the fixed host's)"
    );
    let c = &relay.timeout_causes;
    println!(
        "    timeouts          {:8}   (causes: {} retransmission lost, {} multiple losses in a \
         window, {} window too small for 3 dupacks, {} other, {} handshake)",
        relay.timeouts,
        c.retransmission_lost,
        c.multiple_losses,
        c.small_window,
        c.other,
        c.handshake
    );
    println!("    fast retransmits  {:8}", relay.fast_retransmits);
    println!(
        "    retransmits       {:8} segments{}",
        relay.retransmitted_segments,
        if relay.gave_up {
            " (gave up after 12 retransmissions of one segment)"
        } else {
            ""
        }
    );
    println!("    duplicate ACKs    {:8}", relay.dupacks);
}

/// The socket buffer the hosts used, and the one asked for when 4.4BSD's `tcp_mss()` rounded it up
/// to whole segments (`--buffer 32k` with 1400-byte segments holds 24 segments: 33600 bytes).
fn buffer_label(r: &RunResult) -> String {
    if r.flow().effective_buffer_bytes == r.flow().buffer_bytes {
        format!("buffer {} B", r.flow().buffer_bytes)
    } else {
        format!(
            "buffer {} B ({} B requested, rounded up to whole segments as 4.4BSD does)",
            r.flow().effective_buffer_bytes,
            r.flow().buffer_bytes
        )
    }
}

/// The channels of paper 000's testbed: `1/64k` in both directions, or each direction's.
fn errors_label(sc: &Scenario) -> String {
    let (down, up) = (sc.channel(true).label(), sc.channel(false).label());
    if down == up {
        format!("{down} each way")
    } else {
        format!("{down} down, {up} up")
    }
}

/// A run of several flows: one row per flow, the aggregate, one row per cell.
fn print_network_table(r: &RunResult) {
    println!(
        "{} flows, seed {}: {} of {} complete, aggregate {:.3} Mb/s, fairness {:.3}",
        r.aggregate.flows,
        r.setup.seed,
        r.aggregate.complete_flows,
        r.aggregate.flows,
        r.aggregate.throughput_mbps,
        r.aggregate.fairness
    );
    println!(
        "  {:<10} {:<14} {:<18} {:>8} {:>9} {:>9} {:>8} {:>6} {:>6} {:>8}  invariants",
        "flow", "path", "protocol", "Mb/s", "wl good%", "wd good%", "dur s", "TOs", "fast", "rexmt"
    );
    for f in &r.flows {
        println!(
            "  {:<10} {:<14} {:<18} {:>8.3} {:>9} {:>9.2} {:>8.3} {:>6} {:>6} {:>8}  {}",
            f.flow,
            format!("{}>{}", f.from, f.to),
            f.protocol,
            f.throughput_mbps,
            pct_or_na(f.wireless_goodput_pct),
            f.wired_goodput_pct,
            f.duration_s,
            f.timeouts,
            f.fast_retransmits,
            f.sender_retransmitted_segments,
            f.invariants.summary()
        );
    }
    println!(
        "  {:<10} {:<8} {:>8} {:>10} {:>10} {:>10} {:>7} {:>6} {:>8}",
        "cell",
        "access",
        "frames",
        "collisions",
        "bad down",
        "bad up",
        "busy %",
        "drops",
        "gave up"
    );
    for c in &r.cells {
        println!(
            "  {:<10} {:<8} {:>8} {:>10} {:>10} {:>10} {:>7.1} {:>6} {:>8}",
            c.cell,
            c.access,
            c.frames,
            c.collisions,
            c.frames_corrupted_down,
            c.frames_corrupted_up,
            c.utilisation_pct,
            c.queue_drops,
            c.access_drops
        );
    }
    println!(
        "  local retransmits {}, duplicate ACKs suppressed {}, events {}",
        r.agent_total("local_retransmissions"),
        r.agent_total("dupacks_suppressed"),
        r.events
    );
    if r.agent_total("relays") + r.agent_total("unsplit") > 0 {
        // a split base station's relays, one per connection (proto/src/agent/split.rs)
        println!(
            "  split relays {} (at most {} at once), connections not split {}",
            r.agent_total("relays"),
            r.agent_total("relays_most"),
            r.agent_total("unsplit")
        );
    }
    print_handoffs(r);
    println!("  invariants          {}", r.invariants.summary());
    for m in &r.invariants.messages {
        println!("    {m}");
    }
}
