//! The text tables of a run's result (issue 48: one printer for both clocks). `snooplab run`
//! prints them alone; `snooplab live` prints them and then what only a live run has
//! (`live_text.rs`).

use std::fmt::Write as _;

use snooplab_sim::metrics::RelayCounters;
use snooplab_sim::{Direction, RunResult, Scenario};

/// One line into the text (a `String`, which cannot fail to take it).
macro_rules! line {
    ($out:expr, $($arg:tt)*) => {{
        let _ = writeln!($out, $($arg)*);
    }};
}

/// Which of a flow's keys its run filled (docs/outputs.md, *clocks*): a simulated run fills every
/// one; in a live run a kernel end leaves the keys the engine's TCP counts at that end unfilled
/// (the JSON's 0), and a kernel sender's `timeouts`, `fast_retransmits` and `wired_goodput_pct`
/// are its host's counters, filled only where that host sends no other flow. The text writes `-`
/// for a key not filled, so that a 0 is always a count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Filled {
    /// The engine's TCP ran the sender: `timeout_causes`, `timeout_stall_s`,
    /// `persist_timeouts`, `predicted_acks`, `predicted_acks_in_recovery`.
    pub sender_tcp: bool,
    /// The engine's TCP ran the receiver: `zero_window_acks`, `window_updates`,
    /// `predicted_data`, and a `null` `wireless_goodput_pct` is `n/a` (no wireless frame), not
    /// unfilled.
    pub receiver_tcp: bool,
    /// `timeouts`, `fast_retransmits`, `wired_goodput_pct`: the engine's sender's, or a kernel
    /// sender's host's.
    pub sender_counts: bool,
}

impl Filled {
    /// Every key: a simulated run, or a live flow between modelled ends.
    pub const ALL: Filled = Filled {
        sender_tcp: true,
        receiver_tcp: true,
        sender_counts: true,
    };
}

/// A run's result as text, whichever clock ran it (`snooplab run`, and `snooplab live` before its
/// own lines, `live_text.rs`), every key filled.
pub fn print_result(r: &RunResult, sc: &Scenario) {
    print!("{}", result_text(r, sc, &[]));
}

/// A run's result as text: one flow's details, or a row per flow and per cell for any other
/// number of flows (none: a live run whose `--exec` commands carried the traffic). `filled[i]`
/// says which keys flow `i` has (a flow beyond it has every one); `-` stands for a key not filled.
pub fn result_text(r: &RunResult, sc: &Scenario, filled: &[Filled]) -> String {
    let mut out = String::new();
    let fill = |i: usize| filled.get(i).copied().unwrap_or(Filled::ALL);
    if r.flows.len() != 1 {
        network_table(&mut out, r, &fill);
        return out;
    }
    let k = fill(0);
    let dash = |on: bool, text: String| if on { text } else { "-".to_string() };
    line!(
        out,
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
    line!(out, "  direction           {}", direction_label(r, sc));
    line!(
        out,
        "  throughput          {:8.3} Mb/s",
        r.flow().throughput_mbps
    );
    line!(
        out,
        "  wireless goodput    {:>8} %",
        goodput(r.flow().wireless_goodput_pct, k.receiver_tcp)
    );
    line!(
        out,
        "  wired goodput       {:>8} %",
        dash(
            k.sender_counts,
            format!("{:.2}", r.flow().wired_goodput_pct)
        )
    );
    line!(out, "  duration            {:8.3} s", r.flow().duration_s);
    line!(
        out,
        "  timeouts            {:>8}   ({} s waiting for the retransmission timer)",
        dash(k.sender_counts, r.flow().timeouts.to_string()),
        dash(k.sender_tcp, format!("{:.2}", r.flow().timeout_stall_s))
    );
    let c = &r.flow().timeout_causes;
    let n = |v: u64| dash(k.sender_tcp, v.to_string());
    line!(
        out,
        "    causes: {} retransmission lost, {} multiple losses in a window, {} window too small \
         for 3 dupacks, {} other, {} handshake",
        n(c.retransmission_lost),
        n(c.multiple_losses),
        n(c.small_window),
        n(c.other),
        n(c.handshake)
    );
    line!(
        out,
        "  fast retransmits    {:>8}",
        dash(k.sender_counts, r.flow().fast_retransmits.to_string())
    );
    line!(
        out,
        "  sender retransmits  {:8} segments",
        r.flow().sender_retransmitted_segments
    );
    line!(
        out,
        "  local retransmits   {:8}",
        r.agent_total("local_retransmissions")
    );
    if let Some(relay) = &r.flow().relay {
        relay_lines(&mut out, relay);
    }
    let rx = |v: u64| dash(k.receiver_tcp, v.to_string());
    line!(
        out,
        "  persist probes      {:>8}   ({} zero-window ACKs, {} window updates by reads)",
        n(r.flow().persist_timeouts),
        rx(r.flow().zero_window_acks),
        rx(r.flow().window_updates)
    );
    line!(
        out,
        "  header prediction   {:>8} ACKs ({} at the fast-retransmit threshold), {} data",
        n(r.flow().predicted_acks),
        n(r.flow().predicted_acks_in_recovery),
        rx(r.flow().predicted_data)
    );
    line!(
        out,
        "  corrupted frames    {:8} down, {} up{}",
        r.flat().frames_corrupted_down,
        r.flat().frames_corrupted_up,
        carried_label(sc)
    );
    pages_lines(&mut out, r);
    handoff_lines(&mut out, r);
    line!(out, "  events              {:8}", r.events);
    line!(out, "  invariants          {}", r.invariants.summary());
    for m in &r.invariants.messages {
        line!(out, "    {m}");
    }
    out
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

/// A wireless goodput in percent, or `n/a` when no data frame crossed a wireless link (a wired
/// path: the ratio has no denominator, and 0 would read as every byte wasted); `-` for a kernel
/// receiver whose host did not count it (`counted`: the engine's TCP received the flow).
fn goodput(pct: Option<f64>, counted: bool) -> String {
    match pct {
        Some(p) => format!("{p:.2}"),
        None if counted => "n/a".into(),
        None => "-".into(),
    }
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
/// One line per workload flow (issue 53): its pages and their latency.
fn pages_lines(out: &mut String, r: &RunResult) {
    for f in &r.flows {
        if let Some(p) = &f.pages {
            line!(out, "  pages {:<13} {}", f.flow, p.summary());
        }
    }
}

fn handoff_lines(out: &mut String, r: &RunResult) {
    for h in &r.handoffs {
        let first_packets = h
            .events
            .iter()
            .filter(|e| e.first_packet_ms.is_some())
            .count();
        line!(
            out,
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
fn relay_lines(out: &mut String, relay: &RelayCounters) {
    line!(
        out,
        "  relay sender (split: the base station's TCP to the mobile host; the sender lines above \
         are the fixed host's)"
    );
    let c = &relay.timeout_causes;
    line!(
        out,
        "    timeouts          {:8}   (causes: {} retransmission lost, {} multiple losses in a \
         window, {} window too small for 3 dupacks, {} other, {} handshake)",
        relay.timeouts,
        c.retransmission_lost,
        c.multiple_losses,
        c.small_window,
        c.other,
        c.handshake
    );
    line!(out, "    fast retransmits  {:8}", relay.fast_retransmits);
    line!(
        out,
        "    retransmits       {:8} segments{}",
        relay.retransmitted_segments,
        if relay.gave_up {
            " (gave up after 12 retransmissions of one segment)"
        } else {
            ""
        }
    );
    line!(out, "    duplicate ACKs    {:8}", relay.dupacks);
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

/// A run of several flows: one row per flow (`fill(i)`: which of flow `i`'s keys were filled),
/// the aggregate, one row per cell.
fn network_table(out: &mut String, r: &RunResult, fill: &dyn Fn(usize) -> Filled) {
    line!(
        out,
        "{} flows, seed {}: {} of {} complete, aggregate {:.3} Mb/s, fairness {:.3}",
        r.aggregate.flows,
        r.setup.seed,
        r.aggregate.complete_flows,
        r.aggregate.flows,
        r.aggregate.throughput_mbps,
        r.aggregate.fairness
    );
    line!(
        out,
        "  {:<10} {:<14} {:<18} {:>8} {:>9} {:>9} {:>8} {:>6} {:>6} {:>8}  invariants",
        "flow",
        "path",
        "protocol",
        "Mb/s",
        "wl good%",
        "wd good%",
        "dur s",
        "TOs",
        "fast",
        "rexmt"
    );
    for (i, f) in r.flows.iter().enumerate() {
        let k = fill(i);
        let counts = |text: String| if k.sender_counts { text } else { "-".into() };
        line!(
            out,
            "  {:<10} {:<14} {:<18} {:>8.3} {:>9} {:>9} {:>8.3} {:>6} {:>6} {:>8}  {}",
            f.flow,
            format!("{}>{}", f.from, f.to),
            f.protocol,
            f.throughput_mbps,
            goodput(f.wireless_goodput_pct, k.receiver_tcp),
            counts(format!("{:.2}", f.wired_goodput_pct)),
            f.duration_s,
            counts(f.timeouts.to_string()),
            counts(f.fast_retransmits.to_string()),
            f.sender_retransmitted_segments,
            f.invariants.summary()
        );
    }
    line!(
        out,
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
        line!(
            out,
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
    line!(
        out,
        "  local retransmits {}, duplicate ACKs suppressed {}, events {}",
        r.agent_total("local_retransmissions"),
        r.agent_total("dupacks_suppressed"),
        r.events
    );
    if r.agent_total("relays") + r.agent_total("unsplit") > 0 {
        // a split base station's relays, one per connection (proto/src/agent/split.rs)
        line!(
            out,
            "  split relays {} (at most {} at once), connections not split {}, bytes relayed {} \
             on and {} back",
            r.agent_total("relays"),
            r.agent_total("relays_most"),
            r.agent_total("unsplit"),
            r.agent_total("relayed_bytes"),
            r.agent_total("answered_bytes")
        );
        let moved = r.agent_total("relays_handed_over");
        if moved > 0 {
            // split handoffs move each mobile host's relays (proto/src/agent/split_handover.rs)
            line!(
                out,
                "  split relays handed over at handoffs {moved} (taken over {}, {} of them \
                 beyond the memory bound)",
                r.agent_total("relays_taken_over"),
                r.agent_total("relays_over_bound")
            );
        }
    }
    pages_lines(out, r);
    handoff_lines(out, r);
    line!(out, "  invariants          {}", r.invariants.summary());
    for m in &r.invariants.messages {
        line!(out, "    {m}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOTHING: Filled = Filled {
        sender_tcp: false,
        receiver_tcp: false,
        sender_counts: false,
    };

    fn line_of<'a>(text: &'a str, start: &str) -> &'a str {
        text.lines()
            .find(|l| l.trim_start().starts_with(start))
            .unwrap_or_else(|| panic!("no line '{start}' in\n{text}"))
    }

    #[test]
    fn a_key_a_kernel_end_did_not_fill_is_a_dash_not_a_zero() {
        let mut sc = snooplab_sim::scenario::default_scenario();
        sc.transfer = 16 * 1024;
        let r = snooplab_sim::run(&sc);
        let all = result_text(&r, &sc, &[]);
        assert_eq!(all, result_text(&r, &sc, &[Filled::ALL]));
        assert_eq!(
            line_of(&all, "fast retransmits"),
            "  fast retransmits           0"
        );
        assert!(line_of(&all, "wireless goodput").ends_with(" %"));
        let none = result_text(&r, &sc, &[NOTHING]);
        assert_eq!(
            line_of(&none, "fast retransmits"),
            "  fast retransmits           -"
        );
        assert_eq!(
            line_of(&none, "timeouts"),
            "  timeouts                   -   (- s waiting for the retransmission timer)"
        );
        assert_eq!(
            line_of(&none, "causes:"),
            "    causes: - retransmission lost, - multiple losses in a window, - window too \
             small for 3 dupacks, - other, - handshake"
        );
        assert_eq!(
            line_of(&none, "wired goodput"),
            "  wired goodput              - %"
        );
        assert_eq!(
            line_of(&none, "persist probes"),
            "  persist probes             -   (- zero-window ACKs, - window updates by reads)"
        );
        assert_eq!(
            line_of(&none, "header prediction"),
            "  header prediction          - ACKs (- at the fast-retransmit threshold), - data"
        );
        // a kernel sender whose host sends this flow alone: its host's counts are printed
        let host_counts = Filled {
            sender_counts: true,
            ..NOTHING
        };
        let text = result_text(&r, &sc, &[host_counts]);
        assert_eq!(
            line_of(&text, "fast retransmits"),
            "  fast retransmits           0"
        );
        assert!(line_of(&text, "timeouts").contains("(- s waiting"));
    }

    #[test]
    fn a_wireless_goodput_not_counted_is_a_dash_and_one_without_frames_n_a() {
        assert_eq!(goodput(Some(97.5), false), "97.50");
        assert_eq!(goodput(None, true), "n/a");
        assert_eq!(goodput(None, false), "-");
    }

    #[test]
    fn a_network_rows_kernel_sender_without_its_hosts_counts_prints_dashes() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../examples/cell-3-senders.toml"
        ))
        .unwrap_or_else(|e| panic!("{e}"));
        let mut sc = Scenario::from_toml(&text).unwrap_or_else(|e| panic!("{e}"));
        sc.transfer = 16 * 1024;
        let mut r = snooplab_sim::run(&sc);
        assert!(r.flows.len() > 1);
        // as a live run reports a kernel receiver its host did not count
        r.flows[1].wireless_goodput_pct = None;
        let text = result_text(&r, &sc, &[Filled::ALL, NOTHING]);
        let row = |name: &str| -> Vec<String> {
            line_of(&text, &format!("{name} "))
                .split_whitespace()
                .map(str::to_string)
                .collect()
        };
        // flow, path, protocol, Mb/s, wl good%, wd good%, dur s, TOs, fast, rexmt, invariants
        let (first, second) = (row(&r.flows[0].flow), row(&r.flows[1].flow));
        assert_ne!(first[5], "-");
        assert_ne!(first[7], "-");
        assert_eq!(
            [&second[4], &second[5], &second[7], &second[8]],
            ["-", "-", "-", "-"],
            "{text}"
        );
        assert_ne!(
            second[9], "-",
            "a kernel sender's retransmissions are its TCP_INFO's"
        );
    }
}
