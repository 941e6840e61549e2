//! Scripted packet-level tests of RACK-TLP (RFC 8985; `recovery/rack.rs`, `recovery/tlp.rs`)
//! on an RFC 6675 sender with Linux's estimator: one test per rule, each failing when its rule
//! is removed. Segments of 1000 bytes; the receiver's ACKs are scripted, SACK blocks given as
//! segment indices from the first outstanding one.

use super::recovery::EarlyTimer;
use super::tests::{ack_to_sender, drain, established_hosts, MSS};
use super::*;
use crate::segment::Timestamps;
use crate::seq::Seq;
use crate::test_support::{FH, MH};
use crate::time::{MS, SEC};

/// A SACK sender with RFC 6675, RACK-TLP and Linux's RTO on a 1000 Hz clock, `segs` segments
/// outstanding, all sent at 20 ms (the setup's ACKs came 1 ms after each send), an application
/// of `app_bytes` bytes. Returns it and the first outstanding segment's sequence number.
pub(super) fn sender(segs: u32) -> (Tcp, Seq) {
    sender_on(segs, false)
}

/// [`sender`], with RFC 7323 timestamps if `timestamps` (its segments then `maxseg()` bytes,
/// 1000 less the option).
fn sender_on(segs: u32, timestamps: bool) -> (Tcp, Seq) {
    sender_clocked(segs, timestamps, 1000)
}

/// The host of [`sender_on`], its timers on a `hz` clock.
fn rack_host(timestamps: bool, hz: u32) -> HostProfile {
    HostProfile {
        sack_recovery: SackRecovery::Rfc6675Prr,
        rack_tlp: true,
        rtt_estimator: RttEstimator::Linux {
            rto_min: TCP_RTO_MIN,
        },
        timer_clock: TimerClock::Jiffies { hz },
        timestamps,
        ..HostProfile::default()
    }
}

/// [`sender_on`] on a `hz` clock.
fn sender_clocked(segs: u32, timestamps: bool, hz: u32) -> (Tcp, Seq) {
    let host = rack_host(timestamps, hz);
    let (mut s, _r) = established_hosts(64 * 1024, 10_000_000, RecoveryPolicy::SACK, host);
    drain(&mut s);
    // one segment at a time, each ACKed 1 ms after it left: min_rtt and srtt 1 ms
    let mut t = 10 * MS;
    let mss = s.maxseg();
    while s.snd_max().since(s.snd_una()) < segs * mss {
        let next = s.snd_una() + mss;
        s.on_segment(t, &ack_to_sender(&s, next, 64000));
        drain(&mut s);
        t += MS;
    }
    let base = s.snd_una();
    (s, base)
}

/// [`sender`] whose first segment is ACKed with a window that ends at `snd_max`: nothing new
/// may be sent.
fn window_limited(segs: u32) -> (Tcp, Seq) {
    let (mut s, base) = sender(segs);
    let out = s.snd_max().since(base + MSS);
    let t = sent_at(&s, base, out / MSS) + MS / 2;
    s.on_segment(t, &ack_to_sender(&s, base + MSS, out as u16));
    assert!(drain(&mut s).iter().all(|(seg, _)| seg.len == 0));
    (s, base)
}

/// An ACK for segment index `ack` with SACK blocks `[from, to)` of indices.
pub(super) fn ack(s: &Tcp, base: Seq, ack: u32, blocks: &[(u32, u32)]) -> Segment {
    let mss = s.maxseg();
    let mut a = ack_to_sender(s, base + ack * mss, s.snd_wnd() as u16);
    for &(from, to) in blocks {
        a.sack.push(base + from * mss, base + to * mss);
    }
    a
}

/// [`ack`] echoing the TS value `ecr`.
fn stamped(s: &Tcp, base: Seq, ack_at: u32, blocks: &[(u32, u32)], ecr: u32) -> Segment {
    let mut a = ack(s, base, ack_at, blocks);
    a.ts = Some(Timestamps {
        val: s.rfc7323().ts_recent().wrapping_add(1),
        ecr,
    });
    a
}

/// The data segments sent since the last call, as indices from `base`.
pub(super) fn sent(s: &mut Tcp, base: Seq) -> Vec<u32> {
    let mss = s.maxseg();
    drain(s)
        .iter()
        .filter(|(seg, _)| seg.len > 0)
        .map(|(seg, _)| seg.seq.since(base) / mss)
        .collect()
}

/// [`sent`], only the segments below index `below` (resends): new data a duplicate ACK lets
/// out before recovery (`disorder.rs`) left aside.
pub(super) fn resent(s: &mut Tcp, base: Seq, below: u32) -> Vec<u32> {
    sent(s, base).into_iter().filter(|&i| i < below).collect()
}

/// When the segment at index `i` was last sent.
pub(super) fn sent_at(s: &Tcp, base: Seq, i: u32) -> Time {
    let seq = base + i * s.maxseg();
    s.sel
        .log
        .iter()
        .find(|x| x.seq == seq)
        .map(|x| x.last_tx)
        .unwrap_or_default()
}

/// A retransmission that is lost again: once a segment sent after it is SACKed and RACK.rtt
/// has passed (reo_wnd 0 in recovery), RACK marks it lost and NextSeg's rule (1) resends it,
/// long before the RTO (RFC 8985 section 6.2 step 5; `tcp_rack_detect_loss()`).
#[test]
fn a_lost_retransmission_is_resent_without_a_timeout() {
    let (mut s, base) = sender(10);
    let mut t = SEC;
    let mut first = Vec::new();
    for k in 2..=4 {
        s.on_segment(t, &ack(&s, base, 0, &[(1, k)]));
        first.extend(sent(&mut s, base));
    }
    assert_eq!(first.iter().filter(|&&i| i < 10).count(), 1, "{first:?}");
    assert_eq!(first.last(), Some(&0), "fast retransmit of 0: {first:?}");
    let rexmt_deadline = s.rexmt_deadline().unwrap_or_default();
    // the rest arrives; PRR sends new data after the resend of 0
    let mut after = Vec::new();
    for k in 5..=10 {
        t += MS;
        s.on_segment(t, &ack(&s, base, 0, &[(1, k)]));
        after.extend(sent(&mut s, base));
    }
    let new = *after
        .iter()
        .find(|&&i| i >= 10)
        .expect("new data in recovery");
    assert!(sent_at(&s, base, new) > sent_at(&s, base, 0));
    // the resend of 0 is lost; the new segment is SACKed 5 ms after it left
    t = sent_at(&s, base, new) + 5 * MS;
    let mut resent = Vec::new();
    for _ in 0..3 {
        s.on_segment(t, &ack(&s, base, 0, &[(1, new + 1)]));
        resent.extend(sent(&mut s, base));
        t += MS;
    }
    assert!(resent.contains(&0), "0 resent again: {resent:?}");
    assert!(t < rexmt_deadline);
    assert_eq!(s.stats().timeouts, 0);
}

/// reo_wnd (RFC 8985 section 6.2 step 4, `tcp_rack_reo_wnd()`): min_rtt / 4 in the open state
/// with fewer than DupThresh segments SACKed, so a hole just below a SACK is not yet lost and
/// the reordering timer waits; 0 once DupThresh segments are SACKed.
#[test]
fn reo_wnd_is_a_quarter_min_rtt_in_open_state_and_zero_at_dupthresh() {
    let (mut s, base) = sender(10);
    let min_rtt = s.sel.rack.min_rtt.unwrap_or_default();
    assert!(min_rtt > 0);
    // segments 0 and 1 left together; 1 is SACKed
    assert_eq!(sent_at(&s, base, 0), sent_at(&s, base, 1));
    let t = sent_at(&s, base, 1) + 2 * MS;
    s.on_segment(t, &ack(&s, base, 0, &[(1, 2)]));
    assert_eq!(s.rack_reo_wnd(), min_rtt / 4);
    assert!(
        resent(&mut s, base, 10).is_empty(),
        "0 not lost within reo_wnd"
    );
    assert!(!s.rack_has_lost());
    assert!(matches!(s.sel.early_timer, Some((_, EarlyTimer::Reo))));
    // three SACKed: the window closes, 0 is lost at once (and recovery starts)
    s.on_segment(t, &ack(&s, base, 0, &[(1, 4)]));
    assert_eq!(s.rack_reo_wnd(), 0);
    assert_eq!(resent(&mut s, base, 10), vec![0]);
}

/// [`sender`] whose ten segments are ACKed at once: a burst of `n` or more new segments
/// leaves at one instant; reordering was seen (`tp->reord_seen`, e.g. after snoop filled a
/// hole the sender never resent), so reo_wnd is min_rtt / 4 whatever is SACKed. Returns it
/// and the burst's first segment.
fn burst_with_reordering_seen(n: u32) -> (Tcp, Seq) {
    let (mut s, first) = sender(10);
    let t0 = sent_at(&s, first, 9) + MS;
    s.on_segment(t0, &ack(&s, first, 10, &[]));
    let base = first + 10 * s.maxseg();
    assert!(sent(&mut s, base).len() as u32 >= n);
    for k in 1..n {
        assert_eq!(sent_at(&s, base, k), t0);
    }
    s.sel.rack.reord = true;
    (s, base)
}

/// A RACK sender starts recovery only on RACK's mark (Linux's `tcp_time_to_recover()` asks
/// `tp->lost_out`, and counts duplicates only `if (!tcp_is_rack(sk) && ...)`): three duplicate
/// ACKs SACKing segments sent with the hole do not resend it within RACK.rtt + reo_wnd; the
/// reordering timer does.
#[test]
fn with_reordering_seen_three_dupacks_wait_for_racks_window() {
    let (mut s, base) = burst_with_reordering_seen(4);
    let n = s.snd_max().since(base) / s.maxseg();
    let t = sent_at(&s, base, 0) + 2 * MS;
    for k in 2..=4 {
        s.on_segment(t, &ack(&s, base, 0, &[(1, k)]));
    }
    assert!(s.rack_reo_wnd() > 0);
    assert!(
        resent(&mut s, base, n).is_empty(),
        "0 waits for RACK's window"
    );
    assert_eq!(s.stats().fast_retransmits, 0);
    let Some((at, EarlyTimer::Reo)) = s.sel.early_timer else {
        panic!("no reordering timer: {:?}", s.sel.early_timer);
    };
    assert!(at >= sent_at(&s, base, 0) + s.sel.rack.rtt + s.rack_reo_wnd());
    s.on_timeout(at);
    assert_eq!(resent(&mut s, base, n), vec![0]);
    assert_eq!(s.stats().fast_retransmits, 1);
}

/// In recovery a RACK sender resends only what RACK marked (Linux calls
/// `tcp_update_scoreboard()`, the SACK count against `tp->reordering`, only
/// `if (!tcp_is_rack(sk) && do_lost)`): a second hole with three segments SACKed above it,
/// all sent with it, is not RFC 6675's IsLost for NextSeg while RACK's window is open.
#[test]
fn in_recovery_three_sacked_above_a_hole_do_not_mark_it_before_rack() {
    let (mut s, base) = burst_with_reordering_seen(8);
    let n = s.snd_max().since(base) / s.maxseg();
    let t = sent_at(&s, base, 0) + 2 * MS;
    s.on_segment(t, &ack(&s, base, 0, &[(1, 2)]));
    let Some((at, EarlyTimer::Reo)) = s.sel.early_timer else {
        panic!("no reordering timer: {:?}", s.sel.early_timer);
    };
    s.on_timeout(at);
    assert_eq!(resent(&mut s, base, n), vec![0], "recovery: 0 resent");
    // 2, 3 and 4 missing, 5-7 SACKed: the same instant, so RACK still waits
    s.on_segment(at, &ack(&s, base, 0, &[(5, 8), (1, 2)]));
    let resent = sent(&mut s, base);
    assert!(
        resent.iter().all(|&i| !(2..=4).contains(&i)),
        "2-4 wait for RACK's window: {resent:?}"
    );
}

/// SetPipe for a RACK sender counts a resent segment once, as Linux's
/// `tcp_packets_in_flight()` does (`TCPCB_LOST` stays on it, `TCPCB_SACKED_RETRANS` is added):
/// not twice as a segment in flight and a retransmission.
#[test]
fn a_resent_segment_counts_once_in_the_pipe() {
    let (mut s, base) = sender(10);
    let t = sent_at(&s, base, 3) + 2 * MS;
    s.on_segment(t, &ack(&s, base, 0, &[(1, 4)]));
    let sent_now = sent(&mut s, base);
    assert_eq!(sent_now.first(), Some(&0), "0 resent: {sent_now:?}");
    let mss = s.maxseg();
    let outstanding = s.snd_max().since(base) / mss;
    let pipe = s.sel.set_pipe(s.snd_una(), mss, s.is_lost_thresh());
    assert_eq!(
        pipe,
        (outstanding - 3) * mss,
        "three SACKed, 0 counted once"
    );
}

/// The reordering timer (`tcp_rack_reo_timeout()`): the hole RACK waited on is marked lost
/// when it fires, TCP_TIMEOUT_MIN later than RACK.rtt + reo_wnd, recovery starts and the
/// segment is resent.
#[test]
fn the_reordering_timer_marks_the_hole_lost_and_resends_it() {
    let (mut s, base) = sender(10);
    let t = sent_at(&s, base, 1) + 2 * MS;
    s.on_segment(t, &ack(&s, base, 0, &[(1, 2)]));
    assert!(resent(&mut s, base, 10).is_empty());
    let Some((at, EarlyTimer::Reo)) = s.sel.early_timer else {
        panic!("no reordering timer: {:?}", s.sel.early_timer);
    };
    let due = sent_at(&s, base, 0) + s.sel.rack.rtt + s.rack_reo_wnd();
    assert!(at >= due + 2 * MS, "TCP_TIMEOUT_MIN after the deadline");
    assert!(at < s.rexmt_deadline().unwrap_or(Time::MAX));
    assert_eq!(s.poll_timeout(), Some(at));
    s.on_timeout(at);
    assert_eq!(sent(&mut s, base), vec![0]);
    assert_eq!(s.stats().fast_retransmits, 1);
    assert_eq!(s.stats().timeouts, 0);
}

/// The reordering timer's recovery in Linux's order (`prr = linux`, `recovery/prr.rs`):
/// `tcp_rack_reo_timeout()` calls `tcp_cwnd_reduction(sk, 1, ...)` before
/// `tcp_xmit_retransmit_queue()`. A burst's head waits on RACK's window while the rest but its
/// last segment is SACKed: the timer enters with pipe 1 (the last segment), below ssthresh, and
/// its one segment delivered lets the retransmission out alone. Resent first, the head would be
/// in the pipe and `prr_out` already, and the bound would let a new segment out beside it.
#[test]
fn the_reordering_timer_sizes_linux_prr_before_the_resend() {
    let (mut s, base) = burst_with_reordering_seen(6);
    s.cfg.host.prr = PrrReading::Linux;
    let n = s.snd_max().since(base) / s.maxseg();
    let t = sent_at(&s, base, 0) + 2 * MS;
    // the peer's window ends at the burst's end: the SACKed segments let no new data out
    // (`tcp_snd_wnd_test()`, `disorder.rs`)
    let closed = ack_to_sender(&s, base, (n * s.maxseg()) as u16);
    s.on_segment(t, &closed);
    let mut dup = ack(&s, base, 0, &[(1, n - 1)]);
    dup.window = closed.window;
    s.on_segment(t, &dup);
    assert!(sent(&mut s, base).is_empty());
    let Some((at, EarlyTimer::Reo)) = s.sel.early_timer else {
        panic!("no reordering timer: {:?}", s.sel.early_timer);
    };
    s.on_timeout(at);
    assert!(s.ssthresh() >= 3 * s.maxseg(), "pipe 1 is below ssthresh");
    assert_eq!(sent(&mut s, base), vec![0], "burst of {n}");
    assert_eq!(s.cwnd(), 2 * s.maxseg(), "pipe 1 + sndcnt 1");
}

/// The reordering timer's floor is `TCP_TIMEOUT_MIN_US`, 2 ms added before the rounding to
/// jiffies (`usecs_to_jiffies(timeout + TCP_TIMEOUT_MIN_US)`, Linux 6.6's commit 1c2709cfff1d),
/// not 2 jiffies after it: at `CONFIG_HZ` 250 a wait under 2 ms is armed one jiffy (4 ms) on,
/// where the old rule gave three (12 ms).
#[test]
fn the_reordering_timer_adds_2_ms_before_rounding_to_jiffies() {
    let (mut s, base) = sender_clocked(10, false, 250);
    assert_eq!(sent_at(&s, base, 0), sent_at(&s, base, 1));
    // an ACK on a jiffy's first instant SACKs segment 1: segment 0 waits reo_wnd (0.25 ms)
    let jiffy = 4 * MS;
    let t = (sent_at(&s, base, 1) / jiffy + 1) * jiffy;
    s.on_segment(t, &ack(&s, base, 0, &[(1, 2)]));
    assert!(resent(&mut s, base, 10).is_empty());
    let due = sent_at(&s, base, 0) + s.sel.rack.rtt + s.rack_reo_wnd();
    assert!(due > t && due < t + 2 * MS);
    let Some((at, EarlyTimer::Reo)) = s.sel.early_timer else {
        panic!("no reordering timer: {:?}", s.sel.early_timer);
    };
    // armed 1 jiffy on (ceil((wait + 2 ms) / 4 ms)), not 3 (ceil(wait / 4 ms) + 2)
    let clock = TimerClock::Jiffies { hz: 250 };
    assert_eq!(at, clock.wheel_after(t, 1));
    assert!(at < clock.wheel_after(t, 3));
}

/// min_rtt is Linux's `tcp_min_rtt()`, fed by every sample of the estimator
/// (`tcp_ack_update_rtt()` -> `tcp_update_rtt_min()`), the handshake's too: a SYN answered in
/// 4 ms sets reo_wnd to 1 ms though every data segment takes 10 ms.
#[test]
fn min_rtt_takes_the_handshakes_sample() {
    let mut scfg = TcpConfig::bulk_sender(MSS, 64 * 1024, 10_000_000);
    scfg.iss = 1000;
    scfg.policy = RecoveryPolicy::SACK;
    scfg.host = rack_host(false, 1000);
    let mut rcfg = TcpConfig::sink(MSS, 64 * 1024);
    rcfg.host = scfg.host;
    let mut s = Tcp::connect(scfg, FH, MH, 0);
    let mut r = Tcp::listen(rcfg, MH, FH);
    let syn = drain(&mut s);
    r.on_segment(2 * MS, &syn[0].0);
    let synack = drain(&mut r);
    s.on_segment(4 * MS, &synack[0].0);
    drain(&mut s);
    assert_eq!(s.sel.rack.min_rtt, Some(4 * MS), "the handshake's RTT");
    // data segments ACKed 10 ms after they left do not raise it
    let mut t = 4 * MS;
    for _ in 0..5 {
        t += 10 * MS;
        let next = s.snd_una() + s.maxseg();
        s.on_segment(t, &ack_to_sender(&s, next, 64000));
        drain(&mut s);
    }
    assert_eq!(s.sel.rack.min_rtt, Some(4 * MS));
    assert_eq!(s.rack_reo_wnd(), MS);
}

/// TLP with new data to send (RFC 8985 section 7.3): the probe is one new segment, beyond
/// cwnd, sent PTO after the last send, before the RTO.
#[test]
fn the_probe_sends_new_data_when_the_window_allows() {
    let (mut s, base) = sender(10);
    let Some((at, EarlyTimer::Probe)) = s.sel.early_timer else {
        panic!("no probe scheduled: {:?}", s.sel.early_timer);
    };
    assert!(at < s.rexmt_deadline().unwrap_or(Time::MAX));
    assert_eq!(s.poll_timeout(), Some(at));
    s.on_timeout(at);
    assert_eq!(sent(&mut s, base), vec![10], "one new segment");
    assert_eq!(s.stats().timeouts, 0);
}

/// TLP with nothing new to send: the probe is the last segment sent, again.
#[test]
fn the_probe_resends_the_last_segment_when_no_new_data() {
    let (mut s, base) = window_limited(10);
    let Some((at, EarlyTimer::Probe)) = s.sel.early_timer else {
        panic!("no probe scheduled: {:?}", s.sel.early_timer);
    };
    let last = s.snd_max().since(base) / MSS - 1;
    s.on_timeout(at);
    assert_eq!(sent(&mut s, base), vec![last], "the last segment again");
    assert_eq!(s.stats().timeouts, 0);
}

/// PTO (RFC 8985 section 7.2, `tcp_schedule_loss_probe()`): 2 x SRTT plus `TCP_RTO_MIN` with
/// one segment in flight (the peer's delayed ACK), plus 2 ms with more.
#[test]
fn pto_waits_for_a_delayed_ack_with_one_segment_in_flight() {
    let (mut s, _) = sender(1);
    let srtt = s.linux_rtt().and_then(|l| l.srtt()).unwrap_or_default();
    assert_eq!(s.sel.log.len(), 1);
    let sent1 = s.sel.log.back().map(|x| x.last_tx).unwrap_or_default();
    let Some((one, EarlyTimer::Probe)) = s.sel.early_timer else {
        panic!("no probe: {:?}", s.sel.early_timer);
    };
    assert!(
        one >= sent1 + 2 * srtt + TCP_RTO_MIN,
        "{one} {sent1} {srtt}"
    );
    // more in flight: 2 x SRTT + 2 ms
    let (s2, _) = sender(4);
    let sent4 = s2.sel.log.back().map(|x| x.last_tx).unwrap_or_default();
    let Some((more, EarlyTimer::Probe)) = s2.sel.early_timer else {
        panic!("no probe: {:?}", s2.sel.early_timer);
    };
    let srtt2 = s2.linux_rtt().and_then(|l| l.srtt()).unwrap_or_default();
    assert!(more >= sent4 + 2 * srtt2 + 2 * MS);
    assert!(more < sent4 + 2 * srtt2 + 100 * MS);
    drain(&mut s);
}

/// One probe per episode (`tlp_high_seq`): while a probe is unanswered, a probe timer set
/// again by a partial ACK sends nothing, and the RTO follows.
#[test]
fn one_probe_per_episode() {
    let (mut s, base) = window_limited(10);
    let Some((at, EarlyTimer::Probe)) = s.sel.early_timer else {
        panic!("no probe scheduled: {:?}", s.sel.early_timer);
    };
    s.on_timeout(at);
    assert_eq!(sent(&mut s, base).len(), 1, "the probe");
    assert!(s.sel.tlp.high_seq.is_some());
    // segment 1 is ACKed: the probe timer is set again, the episode goes on
    let t = at + MS;
    let out = s.snd_max().since(base + 2 * MSS);
    s.on_segment(t, &ack_to_sender(&s, base + 2 * MSS, out as u16));
    assert!(sent(&mut s, base).is_empty());
    let Some((again, EarlyTimer::Probe)) = s.sel.early_timer else {
        panic!("no probe timer: {:?}", s.sel.early_timer);
    };
    s.on_timeout(again);
    assert!(sent(&mut s, base).is_empty(), "no second probe");
    assert!(s.sel.early_timer.is_none());
    let rto = s.rexmt_deadline().unwrap_or_default();
    assert_eq!(s.poll_timeout(), Some(rto));
    s.on_timeout(rto);
    assert_eq!(s.stats().timeouts, 1);
}

/// `tcp_clean_rtx_queue()` advances RACK by a cumulatively ACKed resent segment only if
/// `!tcp_skb_spurious_retrans()`: an ACK echoing a TS value before the resend answers an
/// earlier copy (here the original, as snoop's cached copy carries it), and the segments sent
/// before the resend are not all marked lost at once. The same ACK echoing the resend's own TS
/// value advances RACK, and they are.
#[test]
fn a_cumulative_ack_for_an_earlier_copy_does_not_advance_rack() {
    for echo_resend in [false, true] {
        let (mut s, base) = sender_on(10, true);
        let original = s.ts_clock(sent_at(&s, base, 0));
        for k in 2..=4 {
            s.on_segment(SEC, &stamped(&s, base, 0, &[(1, k)], original));
        }
        assert_eq!(resent(&mut s, base, 10), vec![0], "fast retransmit of 0");
        let resend = s.ts_clock(sent_at(&s, base, 0));
        assert!(resend > original);
        let before = s.sel.rack.xmit_ts;
        // 0 arrives 50 ms after its resend: the ACK covers 0-3, 4-9 are not SACKed
        let ecr = if echo_resend { resend } else { original };
        s.on_segment(SEC + 50 * MS, &stamped(&s, base, 4, &[], ecr));
        let out = sent(&mut s, base);
        let resent_old = out.iter().any(|i| (4..10).contains(i));
        if echo_resend {
            assert_eq!(s.sel.rack.xmit_ts, Some(SEC), "RACK at the resend");
            assert!(resent_old, "4-9 sent before it: lost ({out:?})");
        } else {
            assert_eq!(s.sel.rack.xmit_ts, before, "RACK not advanced");
            assert!(!s.rack_has_lost() && !resent_old, "{out:?}");
        }
    }
}

/// `tcp_sacktag_one()` calls `tcp_rack_advance()` for a newly SACKed resent segment with no
/// test of the TSecr (only the RTT against min_rtt): a SACK for segment 1's resend advances
/// RACK to it though the ACK echoes an earlier TS value.
#[test]
fn a_sack_for_a_resent_segment_advances_rack_whatever_its_echo() {
    let (mut s, base) = sender_on(10, true);
    let original = s.ts_clock(sent_at(&s, base, 0));
    // 0 and 1 lost: three SACKed above 1 start recovery and make both lost; PRR resends 1
    // as the SACKs go on
    let mut out = Vec::new();
    for k in 3..=8 {
        s.on_segment(SEC, &stamped(&s, base, 0, &[(2, k)], original));
        out.extend(sent(&mut s, base));
    }
    assert!(out.starts_with(&[0, 1]), "0 and 1 resent: {out:?}");
    assert_eq!(sent_at(&s, base, 1), SEC);
    assert!(s.sel.rack.xmit_ts < Some(SEC), "RACK at an original");
    // 1's resend arrives (0's does not): SACKed, echoing the original's TS value
    s.on_segment(SEC + 50 * MS, &stamped(&s, base, 0, &[(1, 8)], original));
    assert_eq!(s.sel.rack.xmit_ts, Some(SEC), "RACK at 1's resend");
}

/// `tcp_rack_advance()`'s ambiguity rule: a newly SACKed segment that was resent
/// (`TCPCB_RETRANS`) whose RTT from its last send is below `tcp_min_rtt()` may be the
/// original's delivery, so RACK does not advance by it; at min_rtt or above it does, and every
/// segment sent before the resend then waits only RACK.rtt (lan-16k-snoop-sack-cubic seed 4
/// at 7.73 s: the SACK came 3.449 ms after the resend, min_rtt the handshake's 3.405 ms, and 32
/// segments were marked lost; the kernel, whose handshake took 3.514 ms, does the same when a
/// sample passes its min_rtt).
#[test]
fn a_sack_of_a_resend_sooner_than_min_rtt_does_not_advance_rack() {
    let min_rtt_of = |s: &Tcp| s.sel.rack.min_rtt.unwrap_or_default();
    for at_min_rtt in [false, true] {
        let (mut s, base) = sender(10);
        let mut out = Vec::new();
        for k in 3..=8 {
            s.on_segment(SEC, &ack(&s, base, 0, &[(2, k)]));
            out.extend(sent(&mut s, base));
        }
        assert!(out.starts_with(&[0, 1]), "0 and 1 resent: {out:?}");
        let (resent, min_rtt) = (sent_at(&s, base, 1), min_rtt_of(&s));
        assert!(min_rtt > 0 && s.sel.rack.xmit_ts < Some(resent));
        let rtt = if at_min_rtt { min_rtt } else { min_rtt - 1 };
        s.on_segment(resent + rtt, &ack(&s, base, 0, &[(1, 8)]));
        if at_min_rtt {
            assert_eq!(s.sel.rack.xmit_ts, Some(resent), "RACK at 1's resend");
            assert_eq!(s.sel.rack.rtt, min_rtt);
        } else {
            assert!(s.sel.rack.xmit_ts < Some(resent), "RACK not advanced");
        }
    }
}

/// An ACK for segment index `ack` SACKing `[from, to)`, whose window ends at `snd_max`: it
/// lets no new segment out.
fn ack_no_room(s: &Tcp, base: Seq, ack_at: u32, blocks: &[(u32, u32)]) -> Segment {
    let mut a = ack(s, base, ack_at, blocks);
    a.window = s.snd_max().since(a.ack) as u16;
    a
}

/// An ACK that moves `snd_una` and SACKs a later segment leaves RACK.rtt the RTT of the
/// segment it cumulatively ACKed: Linux's `tcp_ack()` runs `tcp_sacktag_write_queue()` before
/// `tcp_clean_rtx_queue()`, each calling `tcp_rack_advance()`, which sets `rack.rtt_us` every
/// time. The hole between them, sent after the cumulatively ACKed segment, is then not yet
/// lost however much later the SACKed one left.
#[test]
fn racks_rtt_is_the_cumulatively_acked_segments_when_an_ack_also_sacks() {
    let (mut s, base) = sender(10);
    let (first_sent, hole_sent) = (sent_at(&s, base, 0), sent_at(&s, base, 1));
    assert!(first_sent <= hole_sent);
    // a segment that left well after the hole, more than reo_wnd (min_rtt / 4) later
    let min_rtt = s.sel.rack.min_rtt.unwrap_or_default();
    let m = (2..10)
        .find(|&i| sent_at(&s, base, i) > hole_sent + min_rtt)
        .expect("a segment sent after the hole");
    let t = sent_at(&s, base, m) + 2 * MS;
    // 0 delivered cumulatively, m SACKed, 1..m missing
    s.on_segment(t, &ack_no_room(&s, base, 1, &[(m, m + 1)]));
    assert_eq!(s.sel.rack.rtt, t - first_sent);
    assert_eq!(s.rack_reo_wnd(), min_rtt / 4);
    assert!(sent(&mut s, base).is_empty(), "1 not yet lost");
    assert!(!s.rack_has_lost());
}

/// The reordering timer an ACK armed stays when the ACK lets nothing new out: Linux's
/// `tcp_identify_packet_loss()` clears `FLAG_SET_XMIT_TIMER` when `tcp_rack_mark_lost()` armed
/// it, so `tcp_ack()` does not call `tcp_set_xmit_timer()`, which would set TLP's probe over it
/// (new data sent does, `tcp_write_xmit()` -> `tcp_schedule_loss_probe()`).
#[test]
fn the_reordering_timer_an_ack_arms_is_not_replaced_by_the_probe() {
    let (mut s, base) = sender(10);
    // a hole sent together with the segment SACKed above it, after the one ACKed below it
    let h = (1..9)
        .find(|&i| sent_at(&s, base, i) == sent_at(&s, base, i + 1))
        .expect("two segments sent together");
    let t = sent_at(&s, base, h + 1) + 2 * MS;
    s.on_segment(t, &ack_no_room(&s, base, h, &[(h + 1, h + 2)]));
    assert!(sent(&mut s, base).is_empty(), "{h} waits for reo_wnd");
    let Some((at, EarlyTimer::Reo)) = s.sel.early_timer else {
        panic!("no reordering timer: {:?}", s.sel.early_timer);
    };
    s.on_timeout(at);
    assert_eq!(
        sent(&mut s, base).first(),
        Some(&h),
        "{h} resent by the timer"
    );
}
