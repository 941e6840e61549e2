//! Scripted packet-level tests of Linux's SACK compression (`linux_sack_compress.rs`,
//! `__tcp_ack_snd_check()`): a Linux sink with SACK, its quick ACKs used up, is sent segments
//! past a hole; each test fails if its rule is taken out.

use super::tests::{data_to_sink, drain, MSS};
use super::*;
use crate::segment::Segment;
use crate::test_support::{FH, MH};
use crate::time::{MS, US};

/// Linux's delayed ACK and RTT estimator on HZ 1000, SACK on, and the given compression.
fn linux_sack(compress: &str) -> HostProfile {
    let mut h = HostPreset::Bsdos21.profile();
    for (k, v) in [
        ("timer-clock", "jiffies"),
        ("rtt-estimator", "linux"),
        ("delayed-ack", "linux"),
        ("sack", "on"),
        ("reader", "instant"),
        ("sack-compress", compress),
    ] {
        h.set(k, v).expect("a valid detail");
    }
    h
}

fn segs(t: &mut Tcp) -> Vec<Segment> {
    drain(t).into_iter().map(|(s, _)| s).collect()
}

/// A sink whose handshake took `rtt` (its srtt), then in-order full segments 1 ms apart until
/// its quick ACKs are used up. Returns it, the time and the next offset.
fn sink_out_of_quick_acks(h: HostProfile, buffer: u32, rtt: Time) -> (Tcp, Time, u32) {
    let mut scfg = TcpConfig::bulk_sender(MSS, buffer, 10_000_000);
    scfg.iss = 1000;
    scfg.host = h;
    let mut s = Tcp::connect(scfg, FH, MH, 0);
    let mut cfg = TcpConfig::sink(MSS, buffer);
    cfg.iss = 5000;
    cfg.host = h;
    let mut r = Tcp::listen(cfg, MH, FH);
    r.on_segment(0, &segs(&mut s)[0]);
    segs(&mut r);
    let (mut now, mut off) = (rtt, 0);
    for _ in 0..40 {
        if let Some(t) = r.delack_deadline().filter(|t| *t <= now) {
            r.on_timeout(t);
        }
        r.on_segment(now, &data_to_sink(&r, off, MSS));
        off += MSS;
        now += MS;
    }
    if let Some(t) = r.delack_deadline() {
        r.on_timeout(t);
        now = now.max(t);
    }
    segs(&mut r);
    assert_eq!(r.state(), State::Established);
    (r, now, off)
}

/// Sends `hole + i * MSS` for each `i` of `range`, `gap` apart after `now`: the ACKs each caused.
fn arrivals(
    r: &mut Tcp,
    now: &mut Time,
    hole: u32,
    range: std::ops::RangeInclusive<u32>,
    gap: Time,
) -> Vec<usize> {
    range
        .map(|i| {
            *now += gap;
            arrive(r, *now, hole + i * MSS).len()
        })
        .collect()
}

/// Sends `[off, off + MSS)` at `now`; returns the ACKs it caused.
fn arrive(r: &mut Tcp, now: Time, off: u32) -> Vec<Segment> {
    r.on_segment(now, &data_to_sink(r, off, MSS));
    segs(r)
}

#[test]
fn three_duplicates_go_at_once_the_fourth_waits_for_the_timer() {
    // srtt 100 ms: min(1 ms, 5 ms) + 100 us of slack
    let (mut r, mut now, hole) = sink_out_of_quick_acks(linux_sack("linux"), 65535, 100 * MS);
    let sent = arrivals(&mut r, &mut now, hole, 1..=3, 10 * US);
    assert_eq!(sent, [1, 1, 1], "three duplicates at once");
    now += 10 * US;
    let held_at = now;
    assert!(
        arrive(&mut r, now, hole + 4 * MSS).is_empty(),
        "the fourth is held"
    );
    now += 10 * US;
    assert!(
        arrive(&mut r, now, hole + 5 * MSS).is_empty(),
        "the fifth too"
    );
    let kick = held_at + MS + 100 * US;
    assert_eq!(r.delack_deadline(), Some(kick));
    r.on_timeout(kick - 1);
    assert!(segs(&mut r).is_empty(), "not before the timer");
    r.on_timeout(kick);
    let out = segs(&mut r);
    assert_eq!(out.len(), 1, "one ACK for the held ones");
    let first = out[0].sack.iter().next().expect("a SACK block");
    assert_eq!(
        first.1,
        r.irs() + 1 + hole + 6 * MSS,
        "it reports the newest data"
    );
    // the count for this rcv_nxt stays at three: the next duplicate is held again
    now = kick + 10 * US;
    assert!(arrive(&mut r, now, hole + 6 * MSS).is_empty());
}

#[test]
fn the_delay_is_a_twentieth_of_the_rtt_below_20_ms() {
    // srtt 10 ms: 500 us + 100 us of slack
    let (mut r, mut now, hole) = sink_out_of_quick_acks(linux_sack("linux"), 65535, 10 * MS);
    arrivals(&mut r, &mut now, hole, 1..=3, 10 * US);
    now += 10 * US;
    assert!(arrive(&mut r, now, hole + 4 * MSS).is_empty());
    assert_eq!(r.delack_deadline(), Some(now + 500 * US + 100 * US));
}

#[test]
fn the_44th_held_ack_sends_the_next_at_once() {
    let (mut r, mut now, hole) =
        sink_out_of_quick_acks(linux_sack("linux"), 64 * 1024 * 16, 100 * MS);
    // 1 us apart, faster than the timer
    let sent = arrivals(&mut r, &mut now, hole, 1..=3 + 44 + 1, US);
    let sent_at: Vec<usize> = (1..)
        .zip(sent)
        .filter(|(_, n)| *n > 0)
        .map(|(i, _)| i)
        .collect();
    // three at once, 44 held, the next one sent (tcp_comp_sack_nr)
    assert_eq!(sent_at, vec![1, 2, 3, 48]);
}

#[test]
fn in_order_data_sends_at_once_and_restarts_the_count() {
    // a hole of two segments
    let (mut r, mut now, hole) = sink_out_of_quick_acks(linux_sack("linux"), 65535, 100 * MS);
    arrivals(&mut r, &mut now, hole, 2..=5, 10 * US);
    assert!(
        r.delack_deadline().is_some(),
        "the fourth duplicate is held"
    );
    // the first missing segment: rcv_nxt moves one segment, the queue is not empty
    now += 10 * US;
    assert_eq!(
        arrive(&mut r, now, hole).len(),
        1,
        "in-order data is ACKed at once"
    );
    // rcv_nxt moved: the count restarts, that ACK its first (dup_ack_counter 1), two more at once
    let sent = arrivals(&mut r, &mut now, hole, 6..=9, 10 * US);
    assert_eq!(sent, [1, 1, 0, 0], "two more at once, then held again");
    // the segment that fills the hole: at once (ICSK_ACK_NOW)
    now += 10 * US;
    let out = arrive(&mut r, now, hole + MSS);
    assert_eq!(out.len(), 1, "the hole fill is ACKed at once");
    assert_eq!(out[0].ack, r.irs() + 1 + hole + 10 * MSS);
}

#[test]
fn duplicates_use_up_quick_acks_before_any_is_held() {
    // 8000 / 2000 = 4 quick ACKs after a duplicate segment (tcp_enter_quickack_mode); its own
    // ACK uses one, the out-of-order ACKs the other three (inet_csk_schedule_ack in
    // tcp_data_queue_ofo), then three duplicates at once, then held
    let (mut r, mut now, hole) = sink_out_of_quick_acks(linux_sack("linux"), 8000, 100 * MS);
    now += 10 * US;
    assert_eq!(arrive(&mut r, now, 0).len(), 1, "the duplicate's ACK");
    let sent = arrivals(&mut r, &mut now, hole, 1..=7, 10 * US);
    assert_eq!(sent, [1, 1, 1, 1, 1, 1, 0]);
}

#[test]
fn off_acks_every_out_of_order_segment_at_once() {
    let (mut r, mut now, hole) = sink_out_of_quick_acks(linux_sack("off"), 65535, 100 * MS);
    let sent = arrivals(&mut r, &mut now, hole, 1..=10, 10 * US);
    assert_eq!(sent, [1; 10]);
}

#[test]
fn the_detail_reads_off_or_linux_and_the_sack_presets_have_it() {
    let mut h = HostProfile::default();
    assert!(h.set("sack-compress", "linux").is_ok());
    assert_eq!(h.get("sack-compress").as_deref(), Some("linux"));
    assert!(h.set("sack-compress", "on").is_err());
    for (p, want) in [
        (HostPreset::Linux, "linux"),
        (HostPreset::LinuxReno, "linux"),
        (HostPreset::LinuxPaperSack, "linux"),
        (HostPreset::LinuxPaper, "off"),
        (HostPreset::Bsdos21, "off"),
        (HostPreset::Freebsd22, "off"),
        (HostPreset::Bsd44Lite, "off"),
    ] {
        assert_eq!(
            p.profile().get("sack-compress").as_deref(),
            Some(want),
            "{p:?}"
        );
    }
}

#[test]
fn an_ack_sent_starts_the_held_count_again() {
    let (mut r, mut now, hole) =
        sink_out_of_quick_acks(linux_sack("linux"), 64 * 1024 * 16, 100 * MS);
    // 63 segments past the hole: within the unscaled 64 KB window
    arrivals(&mut r, &mut now, hole, 1..=3 + 30, US);
    // 30 held: the timer's ACK (tcp_event_ack_sent() clears compressed_ack)
    let kick = r.delack_deadline().expect("the compression timer");
    r.on_timeout(kick);
    assert_eq!(segs(&mut r).len(), 1);
    now = kick;
    // so 30 more are held, where a count kept would send the 15th at once
    let sent = arrivals(&mut r, &mut now, hole, 34..=63, US);
    assert_eq!(sent, [0; 30]);
}
