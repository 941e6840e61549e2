//! Scripted packet-level tests of Linux's timer details (`clock.rs`, `linux_rtt.rs`,
//! `linux_delack.rs`, the initial window): each drives one endpoint with segments and timeouts
//! and fails if its rule is taken out.

use super::tests::{ack_to_sender, data_to_sink, drain, MSS};
use super::*;
use crate::segment::Segment;
use crate::test_support::{FH, MH};
use crate::time::{MS, SEC};

/// BSD/OS 2.1 with the given details set.
fn host(details: &[(&str, &str)]) -> HostProfile {
    let mut h = HostPreset::Bsdos21.profile();
    for (k, v) in details {
        h.set(k, v).expect("a valid detail");
    }
    h
}

/// Linux's timers on HZ = 1000 jiffies, an initial window of 10.
fn linux() -> HostProfile {
    host(&[
        ("timer-clock", "jiffies"),
        ("rtt-estimator", "linux"),
        ("delayed-ack", "linux"),
        ("initial-window", "10"),
    ])
}

fn sender(h: HostProfile, buffer: u32) -> Tcp {
    let mut cfg = TcpConfig::bulk_sender(MSS, buffer, 10_000_000);
    cfg.iss = 1000;
    cfg.host = h;
    Tcp::connect(cfg, FH, MH, 0)
}

fn sink(h: HostProfile, buffer: u32) -> Tcp {
    let mut cfg = TcpConfig::sink(MSS, buffer);
    cfg.iss = 5000;
    cfg.host = h;
    Tcp::listen(cfg, MH, FH)
}

fn segs(t: &mut Tcp) -> Vec<Segment> {
    drain(t).into_iter().map(|(s, _)| s).collect()
}

/// The sender's handshake with a peer `rtt` away: its SYN at 0, the SYN-ACK back at `rtt`.
/// Returns the sender and what it sent then (the ACK and its initial window).
fn sender_after_handshake(h: HostProfile, rtt: Time) -> (Tcp, Tcp, Vec<Segment>) {
    let mut s = sender(h, 64 * 1024);
    let mut r = sink(h, 64 * 1024);
    let syn = segs(&mut s);
    r.on_segment(rtt / 2, &syn[0]);
    let synack = segs(&mut r);
    s.on_segment(rtt, &synack[0]);
    let sent = segs(&mut s);
    (s, r, sent)
}

/// A sink whose peer is `rtt` away, established by the first data segment at `rtt`: its quick
/// ACK goes out. `buffer` is its receive buffer; `instant`: the application reads at once.
fn sink_after_handshake(h: HostProfile, buffer: u32, rtt: Time) -> Tcp {
    let mut s = sender(h, buffer);
    let mut r = sink(h, buffer);
    let syn = segs(&mut s);
    r.on_segment(0, &syn[0]);
    segs(&mut r);
    r.on_segment(rtt, &data_to_sink(&r, 0, MSS));
    assert_eq!(r.state(), State::Established);
    r
}

fn instant(mut h: HostProfile) -> HostProfile {
    h.reader = ReaderModel::Instant;
    h
}

// --- the fine clock ---

#[test]
fn jiffies_clock_fires_the_rto_at_its_wheel_bucket_not_a_slow_tick() {
    // SYN-ACK after 0 ms: srtt ~0, rttvar 200 ms, RTO 200 jiffies
    let (mut s, _r, sent) = sender_after_handshake(linux(), 0);
    assert!(!sent.is_empty());
    assert_eq!(s.linux_rtt().map(|l| l.rto()), Some(200 * MS));
    // the data went out at 0: expires = jiffy 200, on wheel level 1 (8-jiffy buckets): 208
    assert_eq!(s.rexmt_deadline(), Some(208 * MS));
    s.on_timeout(207 * MS);
    assert!(segs(&mut s).is_empty(), "not early");
    s.on_timeout(208 * MS);
    let out = segs(&mut s);
    assert_eq!(out.len(), 1, "one segment after the timeout");
    assert_eq!(s.stats().timeouts, 1);
    // BSD's clock: the 200 ms RTO counts one 500 ms slow tick
    let (s, _r, _) = sender_after_handshake(host(&[("rtt-estimator", "linux")]), 0);
    assert_eq!(s.rexmt_deadline(), Some(500 * MS));
}

#[test]
fn jiffies_clock_fires_the_delayed_ack_one_jiffy_after_its_40_ms() {
    // a 3000-byte window allows 3000 / 2000 = 1 quick ACK: the first data's
    let mut r = sink_after_handshake(instant(linux()), 3000, 0);
    assert_eq!(segs(&mut r).len(), 1);
    r.on_segment(10 * MS + MS / 2, &data_to_sink(&r, MSS, 10));
    assert!(segs(&mut r).is_empty(), "delayed");
    // armed in jiffy 10 for 40 jiffies: level 0 fires on jiffy 51
    assert_eq!(r.delack_deadline(), Some(51 * MS));
    // on BSD's clock the same 40 ms wait ends on the next 200 ms fast tick
    let mut b = sink_after_handshake(instant(host(&[("delayed-ack", "linux")])), 3000, 0);
    segs(&mut b);
    b.on_segment(10 * MS + MS / 2, &data_to_sink(&b, MSS, 10));
    assert_eq!(b.delack_deadline(), Some(200 * MS));
}

#[test]
fn jiffies_clock_runs_the_bsd_timers_as_one_shot_timers_on_the_wheel() {
    // BSD's estimator: a 1-tick handshake sample gives t_rxtcur 3 ticks, 1.5 s, armed at 0 for
    // 1500 jiffies: level 2 (64-jiffy buckets), 1536 ms instead of the third slow tick, 1.5 s
    let h = host(&[("timer-clock", "jiffies")]);
    let (s, _r, _) = sender_after_handshake(h, 0);
    assert_eq!(s.rtt().rxtcur, 3);
    assert_eq!(s.rexmt_deadline(), Some(1536 * MS));
    // BSD's delayed ACK: TF_DELACK as a 200 ms timer from the segment (the first data, at 0),
    // not the next fast tick
    let mut r = sink_after_handshake(h, 3000, 0);
    assert!(segs(&mut r).is_empty());
    assert_eq!(r.delack_deadline(), Some(208 * MS), "jiffy 200 on level 1");
}

// --- RFC 6298 as Linux computes it ---

#[test]
fn syn_is_resent_after_one_second_and_a_handshake_without_sample_falls_back_to_3_s() {
    let h = linux();
    let mut s = sender(h, 64 * 1024);
    let mut r = sink(h, 64 * 1024);
    segs(&mut s); // the SYN is lost
                  // TCP_TIMEOUT_INIT: 1000 jiffies from 0 is on level 2 (64-jiffy buckets): 1024 ms
    assert_eq!(s.rexmt_deadline(), Some(1024 * MS));
    s.on_timeout(1024 * MS);
    let syn = segs(&mut s);
    assert!(syn[0].is_syn());
    r.on_segment(1030 * MS, &syn[0]);
    let synack = segs(&mut r);
    s.on_segment(1040 * MS, &synack[0]);
    // Karn: the resent SYN gave no sample, so tcp_init_metrics() sets the RTO to 3 s
    assert_eq!(s.linux_rtt().map(|l| l.srtt_us), Some(0));
    assert_eq!(s.linux_rtt().map(|l| l.rto()), Some(3 * SEC));
    // and one resent SYN keeps the initial window of 10 (tcp_init_transfer: more than one)
    assert_eq!(segs(&mut s).iter().filter(|x| x.len > 0).count(), 10);
}

#[test]
fn rto_is_srtt_plus_at_least_the_200_ms_minimum_on_a_lan() {
    // a 50 ms handshake: mdev = 2 x 50 = 100 ms, raised to TCP_RTO_MIN: RTO 250 ms, not 150
    let (mut s, _r, sent) = sender_after_handshake(linux(), 50 * MS);
    assert_eq!(s.linux_rtt().map(|l| l.rto()), Some(250 * MS));
    // 2 ms round trips for a while: mdev falls towards 0, rttvar is held at 200 ms by
    // mdev_max's restart at tcp_rto_min() each round trip; srtt decays from 50 ms towards 2 ms
    let mut now = 50 * MS;
    let mut next = sent.last().map(|x| x.seq + x.len).expect("data");
    for _ in 0..40 {
        now += 2 * MS;
        s.on_segment(now, &ack_to_sender(&s, next, 65535));
        let out = segs(&mut s);
        next = out.last().map_or(next, |x| x.seq + x.len);
    }
    let l = s.linux_rtt().expect("linux");
    assert_eq!(l.rttvar_us, 200_000);
    let srtt = l.srtt().expect("sampled");
    assert!(srtt < 5 * MS, "srtt {srtt}");
    assert_eq!(l.rto(), (srtt + 200 * MS).div_ceil(MS) * MS);
}

#[test]
fn a_falling_sample_grows_mdev_by_an_eighth_of_the_quarter_gain() {
    // no minimum RTO, so the estimator's own arithmetic shows
    let h = host(&[("timer-clock", "jiffies"), ("rtt-estimator", "linux:0ms")]);
    let (mut s, _r, sent) = sender_after_handshake(h, 100 * MS);
    // srtt 100 ms, mdev 200 ms: RTO 300 ms
    assert_eq!(s.linux_rtt().map(|l| l.rto()), Some(300 * MS));
    let next = sent.last().map(|x| x.seq + x.len).expect("data");
    s.on_segment(120 * MS, &ack_to_sender(&s, next, 65535));
    // sample 20 ms: srtt 90 ms; |error| 80 ms - mdev/4 = 30 ms, times 1/8: mdev 203.75 ms,
    // RTO ceil(293.75 ms) = 294 ms (with the 1/4 gain of a rising sample it would be 320 ms)
    let l = s.linux_rtt().expect("linux");
    assert_eq!(l.mdev_us, 203_750);
    assert_eq!(l.rto(), 294 * MS);
}

#[test]
fn rttvar_decays_by_a_quarter_of_its_excess_once_per_round_trip() {
    let h = host(&[("timer-clock", "jiffies"), ("rtt-estimator", "linux:0ms")]);
    let (mut s, _r, sent) = sender_after_handshake(h, 100 * MS);
    // srtt 100 ms, mdev = mdev_max = rttvar = 200 ms, rtt_seq = the SYN's end
    let iw_end = sent.last().map(|x| x.seq + x.len).expect("data");
    s.on_segment(200 * MS, &ack_to_sender(&s, iw_end, 65535));
    // sample 100 ms: mdev 200 - 50 = 150 ms; rttvar = mdev_max: nothing to decay; a new round
    // begins at the end of the initial window, mdev_max restarts at 0 (the minimum RTO)
    assert_eq!(
        s.linux_rtt().map(|l| (l.mdev_us, l.rttvar_us)),
        Some((150_000, 200_000))
    );
    let round2 = segs(&mut s);
    assert!(round2.len() >= 2);
    let first = round2[0].seq + round2[0].len;
    s.on_segment(300 * MS, &ack_to_sender(&s, first, 65535));
    // past rtt_seq: mdev 150 - 37.5 = 112.5 ms is this round's mdev_max, and rttvar falls by a
    // quarter of its excess: 200 - (200 - 112.5) / 4 = 178.125 ms
    assert_eq!(
        s.linux_rtt().map(|l| (l.mdev_us, l.rttvar_us)),
        Some((112_500, 178_125))
    );
    segs(&mut s);
    // the next segment of the same round (below the new rtt_seq): no decay
    let second = round2[1].seq + round2[1].len;
    s.on_segment(310 * MS, &ack_to_sender(&s, second, 65535));
    // sample 110 ms: mdev 112.5 + (10 - 28.125) = 94.375 ms; rttvar stays
    assert_eq!(
        s.linux_rtt().map(|l| (l.mdev_us, l.rttvar_us)),
        Some((94_375, 178_125))
    );
}

#[test]
fn an_ack_covering_a_retransmission_gives_no_sample_and_keeps_the_backoff() {
    // RTO 300 ms after a 100 ms handshake; ten segments out at 100 ms
    let (mut s, _r, sent) = sender_after_handshake(linux(), 100 * MS);
    assert_eq!(s.linux_rtt().map(|l| l.rto()), Some(300 * MS));
    let at = s.rexmt_deadline().expect("armed");
    s.on_timeout(at);
    assert_eq!(segs(&mut s).len(), 1, "the first segment again");
    // one ACK for all ten: the first was retransmitted (FLAG_RETRANS_DATA_ACKED), so no sample
    // from the other nine either, and the RTO stays doubled
    let end = sent.last().map(|x| x.seq + x.len).expect("data");
    s.on_segment(at + 50 * MS, &ack_to_sender(&s, end, 65535));
    let l = s.linux_rtt().expect("linux");
    assert_eq!(l.srtt(), Some(100 * MS));
    assert_eq!(l.rto(), 600 * MS);
}

#[test]
fn each_timeout_doubles_the_rto() {
    let (mut s, _r, _) = sender_after_handshake(linux(), 0);
    let mut at = s.rexmt_deadline().expect("armed");
    let mut gaps = vec![];
    for _ in 0..3 {
        s.on_timeout(at);
        segs(&mut s);
        let next = s.rexmt_deadline().expect("re-armed");
        gaps.push(s.linux_rtt().map(|l| l.rto()));
        assert!(next - at >= s.linux_rtt().map_or(0, |l| l.rto()));
        at = next;
    }
    assert_eq!(
        gaps,
        vec![Some(400 * MS), Some(800 * MS), Some(1600 * MS)],
        "200 ms doubled each time"
    );
}

// --- Linux's delayed ACK ---

/// Feeds in-order segments of `len` bytes, one every `gap`, from `*off`, running the delayed-ACK
/// timer when it is due first; returns how many were ACKed at once.
fn feed(r: &mut Tcp, now: &mut Time, off: &mut u32, n: u32, len: u32, gap: Time) -> usize {
    let mut acked = 0;
    for _ in 0..n {
        *now += gap;
        if let Some(t) = r.delack_deadline().filter(|t| *t <= *now) {
            r.on_timeout(t);
            segs(r);
        }
        r.on_segment(*now, &data_to_sink(r, *off, len));
        *off += len;
        acked += usize::from(!segs(r).is_empty());
    }
    acked
}

#[test]
fn quick_acks_at_the_start_are_rcv_wnd_over_two_mss_at_most_16() {
    for (buffer, quick) in [(8000, 4), (65535, 16)] {
        let mut r = sink_after_handshake(instant(linux()), buffer, 0);
        assert_eq!(segs(&mut r).len(), 1, "the first segment's quick ACK");
        // small segments 100 ms apart: the rest wait for the timer
        let (mut now, mut off) = (0, MSS);
        let acked = feed(&mut r, &mut now, &mut off, 30, 10, 100 * MS);
        assert_eq!(acked, quick - 1, "buffer {buffer}");
    }
}

#[test]
fn every_second_full_segment_is_acked_at_once() {
    let mut r = sink_after_handshake(instant(linux()), 3000, 0);
    segs(&mut r);
    let (mut now, mut off) = (0, MSS);
    for _ in 0..5 {
        now += MS;
        r.on_segment(now, &data_to_sink(&r, off, MSS));
        off += MSS;
        assert!(segs(&mut r).is_empty(), "the first of two waits");
        assert!(r.delack_deadline().is_some());
        now += MS;
        r.on_segment(now, &data_to_sink(&r, off, MSS));
        off += MSS;
        assert_eq!(segs(&mut r).len(), 1, "the second is ACKed at once");
        assert_eq!(r.delack_deadline(), None);
    }
    // more than one full segment, not two: a full one and 10 bytes (BSD's window update would
    // wait for two segments' worth)
    now += MS;
    r.on_segment(now, &data_to_sink(&r, off, MSS));
    assert!(segs(&mut r).is_empty());
    now += MS;
    r.on_segment(now, &data_to_sink(&r, off + MSS, 10));
    assert_eq!(segs(&mut r).len(), 1, "rcv_nxt - rcv_wup > rcv_mss");
}

/// A 10-byte segment at `at` that the sink delays; runs its timer and returns when it fired.
fn delayed_then_fired(r: &mut Tcp, off: &mut u32, at: Time) -> Time {
    r.on_segment(at, &data_to_sink(r, *off, 10));
    *off += 10;
    assert!(segs(r).is_empty());
    let due = r.delack_deadline().expect("delayed");
    r.on_timeout(due);
    assert_eq!(segs(r).len(), 1);
    due
}

#[test]
fn the_ato_doubles_when_the_timer_fires_follows_the_arrival_gap_and_is_bounded() {
    // a 400 ms handshake: the sink's srtt 400 ms, its RTO 1.2 s
    let mut r = sink_after_handshake(instant(linux()), 3000, 400 * MS);
    segs(&mut r);
    let mut off = MSS;
    // a gap of 100 ms, above ato: ato stays 40 ms; jiffy 540 on level 0 -> 541
    assert_eq!(delayed_then_fired(&mut r, &mut off, 500 * MS), 541 * MS);
    // the timer fired: ato 80 ms; a 200 ms gap keeps it: 780 on level 1 -> 784
    assert_eq!(delayed_then_fired(&mut r, &mut off, 700 * MS), 784 * MS);
    // fired again: ato 160 ms; a 100 ms gap: ato = 160 / 2 + 100 = 180 ms, the timer at 980
    r.on_segment(800 * MS, &data_to_sink(&r, off, 10));
    assert_eq!(r.delack_deadline(), Some(984 * MS), "980 on level 1");
    // 10 ms later (at most TCP_ATO_MIN / 2): ato = 180 / 2 + 20 = 110 ms, so 920 comes first
    r.on_segment(810 * MS, &data_to_sink(&r, off + 10, 10));
    off += 20;
    assert!(segs(&mut r).is_empty());
    assert_eq!(r.delack_deadline(), Some(928 * MS), "920 on level 1");
    r.on_timeout(928 * MS);
    assert_eq!(segs(&mut r).len(), 1);
    // ato 220 ms; a 290 ms gap keeps it; bounded by srtt (400 ms), then by TCP_DELACK_MAX:
    // 200 ms, 1300 -> 1304
    assert_eq!(delayed_then_fired(&mut r, &mut off, 1100 * MS), 1304 * MS);
}

#[test]
fn a_delayed_ack_keeps_its_earlier_timer_and_goes_out_if_due_within_a_quarter_ato() {
    let mut r = sink_after_handshake(instant(linux()), 3000, 0);
    segs(&mut r);
    r.on_segment(10 * MS + MS / 2, &data_to_sink(&r, MSS, 10));
    assert_eq!(r.delack_deadline(), Some(51 * MS), "due at jiffy 50");
    // 20 ms later: ato = 40 / 2 + 20 = 40; jiffy 70 would be later, the timer keeps 50
    r.on_segment(30 * MS + MS / 2, &data_to_sink(&r, MSS + 10, 10));
    assert!(segs(&mut r).is_empty());
    assert_eq!(r.delack_deadline(), Some(51 * MS));
    // 10 ms later the timer is due within ato / 4 (10 jiffies): the ACK goes out now
    r.on_segment(40 * MS + MS / 2, &data_to_sink(&r, MSS + 20, 10));
    assert_eq!(segs(&mut r).len(), 1);
    assert_eq!(r.delack_deadline(), None);
}

#[test]
fn out_of_order_data_is_acked_at_once_and_a_duplicate_restarts_quick_acks() {
    // 8000 / 2000 = 4 quick ACKs: the first data's and three more
    let mut r = sink_after_handshake(instant(linux()), 8000, 0);
    segs(&mut r);
    let (mut now, mut off) = (0, MSS);
    assert_eq!(feed(&mut r, &mut now, &mut off, 3, 10, MS), 3);
    assert_eq!(
        feed(&mut r, &mut now, &mut off, 1, 10, MS),
        0,
        "delayed now"
    );
    // out of order: at once
    now += MS;
    r.on_segment(now, &data_to_sink(&r, off + 10, 10));
    assert_eq!(segs(&mut r).len(), 1, "out-of-order data is ACKed at once");
    // the hole fills: at once (ICSK_ACK_NOW)
    now += MS;
    r.on_segment(now, &data_to_sink(&r, off, 10));
    off += 20;
    assert_eq!(segs(&mut r).len(), 1, "the hole fill is ACKed at once");
    assert_eq!(
        feed(&mut r, &mut now, &mut off, 1, 10, MS),
        0,
        "delayed again"
    );
    // a duplicate: ACKed at once, and tcp_enter_quickack_mode() gives 4 quick ACKs again, one
    // used by the duplicate's own ACK
    now += 100 * MS;
    r.on_segment(now, &data_to_sink(&r, 0, MSS));
    assert_eq!(segs(&mut r).len(), 1, "a duplicate is ACKed at once");
    assert_eq!(
        feed(&mut r, &mut now, &mut off, 4, 10, MS),
        3,
        "quick again"
    );
}

// --- the initial window ---

#[test]
fn initial_window_10_sends_ten_segments_and_one_after_two_lost_syns() {
    let (_s, _r, sent) = sender_after_handshake(linux(), 10 * MS);
    assert_eq!(sent.iter().filter(|x| x.len > 0).count(), 10);
    let (_s, _r, sent) = sender_after_handshake(HostPreset::Bsdos21.profile(), 10 * MS);
    assert_eq!(sent.iter().filter(|x| x.len > 0).count(), 1, "BSD's one");
    // two SYNs lost: cwnd 1 (RFC 5681 3.1, tcp_init_transfer)
    let h = linux();
    let mut s = sender(h, 64 * 1024);
    let mut r = sink(h, 64 * 1024);
    segs(&mut s);
    for _ in 0..2 {
        let t = s.rexmt_deadline().expect("armed");
        s.on_timeout(t);
        segs(&mut s);
    }
    let t = s.rexmt_deadline().expect("armed");
    s.on_timeout(t);
    let syn = segs(&mut s);
    r.on_segment(t, &syn[0]);
    let synack = segs(&mut r);
    s.on_segment(t + MS, &synack[0]);
    assert_eq!(s.cwnd(), MSS);
    assert_eq!(segs(&mut s).iter().filter(|x| x.len > 0).count(), 1);
}
