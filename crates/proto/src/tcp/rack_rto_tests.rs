//! Scripted packet-level tests of a RACK sender's retransmission timeout as Linux 6.x runs it
//! (`recovery/rfc6675.rs`'s `rfc6675_on_rto`, `recovery/scoreboard.rs`'s marks and SetPipe,
//! `timers.rs`'s re-arming): one test per rule, each failing when its rule is removed. The
//! sender and the scripted ACKs are `rack_tlp_tests.rs`'s.

use super::rack_tlp_tests::{ack, sender, sent, sent_at};
use super::recovery::EarlyTimer;
use super::*;
use crate::time::MS;

/// Runs the sender's timers until its next retransmission timeout (a loss probe may come
/// first); returns when it fired.
fn until_timeout(s: &mut Tcp) -> Time {
    let before = s.stats().timeouts;
    loop {
        let Some(t) = s.poll_timeout() else {
            panic!("no timer runs");
        };
        s.on_timeout(t);
        if s.stats().timeouts > before {
            return t;
        }
    }
}

/// The head is resent first at every timeout (`tcp_retransmit_timer()` resends
/// `tcp_rtx_queue_head()`; `tcp_timeout_mark_lost()` marks it whatever was resent since):
/// after the first timeout resent 0, RACK marked 1..8 lost by the late SACK of 9 (0's resend
/// went after 9, so not 0), and the second timeout resends 0, not 1.
#[test]
fn every_timeout_resends_the_head_first() {
    let (mut s, base) = sender(10);
    let t1 = until_timeout(&mut s);
    assert_eq!(
        sent(&mut s, base).last(),
        Some(&0),
        "the first timeout resends 0"
    );
    s.on_segment(t1 + 2 * MS, &ack(&s, base, 0, &[(9, 10)]));
    assert!(
        sent(&mut s, base).is_empty(),
        "cwnd 1: 0's resend is in flight"
    );
    until_timeout(&mut s);
    assert_eq!(sent(&mut s, base), vec![0], "the head, not 1");
}

/// A resend lost again is not in flight (`tcp_mark_skb_lost()` clears
/// `TCPCB_SACKED_RETRANS`, so `tcp_packets_in_flight()` no longer counts it): after the
/// timeout, 1 and 2 are resent by cwnd 2; 2 arrives, so RACK marks 1's resend lost, and the
/// pipe holds nothing: 1 again and 3 go out.
#[test]
fn a_resend_lost_again_leaves_the_pipe() {
    let (mut s, base) = sender(10);
    let t1 = until_timeout(&mut s);
    sent(&mut s, base);
    s.on_segment(t1 + 2 * MS, &ack(&s, base, 1, &[]));
    assert_eq!(sent(&mut s, base), vec![1, 2], "slow start: cwnd 2");
    s.on_segment(t1 + 4 * MS, &ack(&s, base, 1, &[(2, 3)]));
    assert_eq!(sent(&mut s, base), vec![1, 3]);
}

/// "Don't mark recently sent ones lost yet" (`tcp_timeout_mark_lost()`): at the timeout a
/// segment sent less than RACK.rtt ago stays in flight, unmarked and not resent, and
/// `tcp_enter_loss()` sets cwnd = `tcp_packets_in_flight()` + 1. Here 0 is resent at 20 ms
/// (recovery); 4, sent at 16 ms, is SACKed at 170 ms (RACK.rtt 154 ms), letting new data 10
/// out; the timeout at 224 ms marks 5..9 (sent at 16-18 ms) and the head, not 10.
#[test]
fn a_timeout_leaves_recently_sent_segments_in_flight() {
    let (mut s, base) = sender(10);
    let mss = s.maxseg();
    s.on_segment(20 * MS, &ack(&s, base, 0, &[(1, 4)]));
    assert_eq!(sent(&mut s, base), vec![0]);
    s.on_segment(170 * MS, &ack(&s, base, 0, &[(1, 5)]));
    assert_eq!(sent(&mut s, base), vec![10]);
    until_timeout(&mut s);
    assert_eq!(sent(&mut s, base), vec![0], "the head alone");
    let lost = |i: u32| s.sel.log.iter().any(|x| x.seq == base + i * mss && x.lost);
    assert!((5..10).all(lost), "sent long ago: marked");
    assert!(!lost(10), "sent within RACK.rtt: in flight");
    assert_eq!(s.cwnd(), 2 * mss, "10 in flight, plus one");
}

/// After RACK's reordering timer the RTO keeps its deadline from the head's last send
/// (`tcp_rack_reo_timeout()` ends in `tcp_rearm_rto()`, which with `ICSK_TIME_REO_TIMEOUT`
/// pending takes `tcp_rto_delta_us()`), not a whole RTO from the timer: 0 is resent at 20 ms;
/// 4 waits for reo_wnd (reordering seen) and the timer marks it; the RTO stays near 20 ms +
/// RTO.
#[test]
fn after_the_reordering_timer_the_rto_keeps_its_deadline() {
    let (mut s, base) = sender(10);
    s.sel.rack.reord = true;
    s.on_segment(20 * MS, &ack(&s, base, 0, &[(1, 4)]));
    assert_eq!(sent(&mut s, base).first(), Some(&0));
    let deadline = s.rexmt_deadline().unwrap_or_default();
    s.on_segment(30 * MS, &ack(&s, base, 0, &[(1, 4), (5, 6)]));
    assert!(matches!(s.sel.early_timer, Some((_, EarlyTimer::Reo))));
    let Some((fired, _)) = s.sel.early_timer else {
        return;
    };
    s.on_timeout(fired);
    assert!(s
        .sel
        .log
        .iter()
        .any(|x| x.seq == base + 4 * s.maxseg() && x.rexmits > 0));
    let rto = s.linux_rtt.as_ref().map_or(0, |l| l.rto());
    let after = s.rexmt_deadline().unwrap_or_default();
    assert!(after < fired + rto, "not a whole RTO from the timer");
    assert!(
        after >= deadline && after <= deadline + 2 * MS,
        "{after} vs {deadline}"
    );
}

/// A probe timer that finds a probe still out sends nothing and keeps the RTO at its deadline
/// from the head's last send (`tcp_send_loss_probe()`: "At most one outstanding TLP", `goto
/// rearm_timer`, with `ICSK_TIME_LOSS_PROBE` still pending); only a probe sent restarts it
/// from now. The probe sends 10; 0 is ACKed below it, a probe is due again and none goes out.
#[test]
fn a_probe_not_sent_keeps_the_rto_deadline_from_the_head() {
    let (mut s, base) = sender(10);
    let Some((probe, EarlyTimer::Probe)) = s.sel.early_timer else {
        panic!("a probe is scheduled");
    };
    s.on_timeout(probe);
    assert_eq!(sent(&mut s, base), vec![10], "the probe: new data");
    s.on_segment(probe + MS, &ack(&s, base, 1, &[]));
    sent(&mut s, base);
    let Some((again, EarlyTimer::Probe)) = s.sel.early_timer else {
        panic!("a probe is scheduled again");
    };
    s.on_timeout(again);
    assert!(sent(&mut s, base).is_empty(), "one probe per episode");
    let rto = s.linux_rtt.as_ref().map_or(0, |l| l.rto());
    let head_deadline = sent_at(&s, base, 1) + rto;
    let after = s.rexmt_deadline().unwrap_or_default();
    assert!(after < again + rto, "not a whole RTO from the timer");
    // the timer wheel rounds up: by 8 jiffies at this distance (LVL_CLK_SHIFT)
    assert!(after >= head_deadline && after <= head_deadline + 8 * MS);
}
