//! Scripted packet-level tests of CUBIC in the TCP (`cc/cubic.rs`, `cc/hystart.rs`): a sender
//! whose host runs CUBIC is fed ACKs over a scripted path, and its window is held to Linux's
//! rules (net/ipv4/tcp_cubic.c, tcp_input.c, tcp_output.c).

use std::collections::VecDeque;

use super::tests::{ack_to_sender, drain, established_hosts, MSS};
use super::*;
use crate::seq::Seq;
use crate::test_support::{FH, MH};
use crate::time::{MS, SEC};

fn cubic_host() -> HostProfile {
    HostProfile {
        congestion_control: CongestionControl::Cubic,
        ..HostProfile::default()
    }
}

/// A CUBIC sender after the handshake, its first segment not yet drained.
fn cubic_sender(policy: RecoveryPolicy) -> Tcp {
    established_hosts(64 * 1024, 100_000_000, policy, cubic_host()).0
}

/// A CUBIC relay sender (its application writes when the test says) after the handshake.
fn cubic_relay() -> Tcp {
    let mut scfg = TcpConfig::relay(MSS, 64 * 1024, 64 * 1024);
    scfg.iss = 1000;
    scfg.host = cubic_host();
    let mut rcfg = TcpConfig::sink(MSS, 64 * 1024);
    rcfg.iss = 5000;
    let mut s = Tcp::connect(scfg, FH, MH, 0);
    let mut r = Tcp::listen(rcfg, MH, FH);
    for (seg, _) in drain(&mut s) {
        r.on_segment(0, &seg);
    }
    for (seg, _) in drain(&mut r) {
        s.on_segment(0, &seg);
    }
    drain(&mut s);
    assert_eq!(s.state(), State::Established);
    s
}

fn cubic(s: &Tcp) -> &Cubic {
    match s.congestion().controller() {
        Controller::Cubic(c) => c,
        other => panic!("not CUBIC: {other:?}"),
    }
}

const WND: u16 = 65535;

/// A one-way path to a receiver that ACKs every segment: a segment's ACK comes back `rtt` after
/// it left, but no sooner than `gap` after the previous ACK (a bottleneck serving one segment per
/// `gap`, whose queue adds to the RTT once the window exceeds its bandwidth-delay product).
struct Path {
    rtt: Time,
    gap: Time,
    acks: VecDeque<(Time, Seq)>,
    last: Time,
    /// The window the receiver advertises.
    wnd: u16,
}

impl Path {
    fn new(rtt: Time, gap: Time) -> Path {
        Path {
            rtt,
            gap,
            acks: VecDeque::new(),
            last: 0,
            wnd: WND,
        }
    }

    fn take(&mut self, now: Time, s: &mut Tcp) {
        for (seg, _) in drain(s) {
            if seg.len > 0 {
                let at = (now + self.rtt).max(self.last + self.gap);
                self.last = at;
                self.acks.push_back((at, seg.seq + seg.len));
            }
        }
    }

    /// Runs until `stop` holds after an ACK, or `limit`; returns the time.
    fn run(&mut self, s: &mut Tcp, limit: Time, stop: impl Fn(&Tcp) -> bool) -> Time {
        self.take(0, s);
        while let Some((at, ack)) = self.acks.pop_front() {
            if at > limit {
                return at;
            }
            s.on_segment(at, &ack_to_sender(s, ack, self.wnd));
            self.take(at, s);
            if stop(s) {
                return at;
            }
        }
        limit
    }
}

/// HyStart's ACK train (`hystart_update`, `HYSTART_ACK_TRAIN`): ACKs 1 ms apart on a 20 ms path
/// form a train; once a round's train is longer than half the least RTT (plus the 1 ms
/// cushion) with cwnd at least 16 segments, slow start ends with ssthresh = cwnd, before any
/// loss and well below the receiver's window.
#[test]
fn hystart_ack_train_ends_slow_start() {
    let mut s = cubic_sender(RecoveryPolicy::RENO);
    let mut path = Path::new(20 * MS, MS);
    path.run(&mut s, 2 * SEC, |s| s.ssthresh() < INFINITE_SSTHRESH);
    assert_eq!(cubic(&s).hystart_exit(), Some(HyStartExit::AckTrain));
    assert_eq!(s.ssthresh(), s.cwnd(), "ssthresh := cwnd at the exit");
    let segs = s.cwnd() / MSS;
    assert!((16..=32).contains(&segs), "exit at {segs} segments");
}

/// HyStart's delay rule (`HYSTART_DELAY`): ACKs 3 ms apart form no train; once a round starts
/// with more than the path's 20 segments out, the queue raises the least RTT of the round's
/// first eight samples more than 7.5 ms (60 ms / 8, within 4..16 ms) above the least RTT, and
/// slow start ends there. A round's first samples are for segments sent early in the round
/// before, so the round that starts with 32 segments out (12 queued) is seen one round later:
/// at 64 segments and the eight samples.
#[test]
fn hystart_delay_increase_ends_slow_start() {
    let mut s = cubic_sender(RecoveryPolicy::RENO);
    let mut path = Path::new(60 * MS, 3 * MS);
    path.run(&mut s, 10 * SEC, |s| s.ssthresh() < INFINITE_SSTHRESH);
    assert_eq!(cubic(&s).hystart_exit(), Some(HyStartExit::Delay));
    assert_eq!(s.ssthresh(), s.cwnd());
    let segs = s.cwnd() / MSS;
    assert!((64..=73).contains(&segs), "exit at {segs} segments");
}

/// Brings a CUBIC sender to `segs` segments outstanding in slow start (ACKs 10 ms after sending,
/// far apart: no HyStart exit).
fn cubic_with_window(segs: u32) -> Tcp {
    let mut s = cubic_sender(RecoveryPolicy::RENO);
    let mut path = Path::new(10 * MS, 0);
    path.run(&mut s, 100 * SEC, |s| {
        s.snd_max().since(s.snd_una()) >= segs * MSS
    });
    assert_eq!(s.ssthresh(), INFINITE_SSTHRESH, "still in slow start");
    s
}

/// Linux's slow start counts segments, not ACKs (`tcp_slow_start`: cwnd += acked packets): one
/// ACK for two segments opens the window by two; BSD's by one.
#[test]
fn slow_start_counts_the_segments_acked() {
    let mut s = cubic_with_window(8);
    let cwnd = s.cwnd();
    let una = s.snd_una();
    s.on_segment(10 * SEC, &ack_to_sender(&s, una + 2 * MSS, WND));
    assert_eq!(s.cwnd(), cwnd + 2 * MSS);
}

/// A loss by three duplicates: ssthresh is 717/1024 of cwnd (`cubictcp_recalc_ssthresh`), not
/// BSD's half of min(snd_wnd, cwnd); W_max is the window; the full ACK leaves cwnd at ssthresh.
#[test]
fn fast_retransmit_takes_beta_of_the_window() {
    let mut s = cubic_with_window(40);
    let cwnd = s.cwnd() / MSS;
    let una = s.snd_una();
    for _ in 0..3 {
        s.on_segment(10 * SEC, &ack_to_sender(&s, una, WND));
    }
    let out = drain(&mut s);
    assert_eq!(out[0].1, TxKind::FastRetransmit);
    let ssthresh = (u64::from(cwnd) * 717 / 1024) as u32 * MSS;
    assert_eq!(s.ssthresh(), ssthresh);
    assert_eq!(
        s.cwnd(),
        ssthresh + 3 * MSS,
        "fast recovery's inflation on top"
    );
    assert_eq!(cubic(&s).w_max(), cwnd);
    let max = s.snd_max();
    s.on_segment(10 * SEC + 10 * MS, &ack_to_sender(&s, max, WND));
    assert!(
        s.cwnd() <= ssthresh + MSS,
        "deflated to ssthresh, then the curve"
    );
}

/// A timeout (`tcp_enter_loss`): ssthresh 717/1024 of cwnd, cwnd one segment, W_max forgotten;
/// a second timeout with no ACK between keeps that ssthresh (BSD takes half of one segment: 2).
#[test]
fn timeout_takes_beta_once_and_one_segment() {
    let mut s = cubic_with_window(40);
    let cwnd = s.cwnd() / MSS;
    let rexmt = s.rexmt_at.unwrap_or(0);
    s.on_timeout(rexmt);
    let ssthresh = (u64::from(cwnd) * 717 / 1024) as u32 * MSS;
    assert_eq!(s.cwnd(), MSS);
    assert_eq!(s.ssthresh(), ssthresh);
    assert_eq!(cubic(&s).w_max(), 0, "bictcp_reset");
    drain(&mut s);
    let rexmt = s.rexmt_at.unwrap_or(0);
    s.on_timeout(rexmt);
    assert_eq!(s.ssthresh(), ssthresh, "repeated timeout: ssthresh kept");
    assert_eq!(s.cwnd(), MSS);
    // an ACK that advances snd_una ends that: the next timeout takes beta of cwnd (2 segments
    // after the ACK's slow start), at least 2
    drain(&mut s);
    let una = s.snd_una();
    s.on_segment(rexmt + SEC, &ack_to_sender(&s, una + MSS, WND));
    assert_eq!(s.cwnd(), 2 * MSS);
    drain(&mut s);
    let rexmt = s.rexmt_at.unwrap_or(0);
    s.on_timeout(rexmt);
    assert_eq!(s.ssthresh(), 2 * MSS, "a new loss episode");
}

/// A timeout in fast recovery (`TCP_CA_Recovery`, its full ACK not yet come) keeps the
/// recovery's ssthresh (`tcp_enter_loss`: "Reduce ssthresh if it has not yet been made inside
/// this window").
#[test]
fn timeout_in_fast_recovery_keeps_its_ssthresh() {
    let mut s = cubic_with_window(40);
    let cwnd = s.cwnd() / MSS;
    let una = s.snd_una();
    for _ in 0..3 {
        s.on_segment(10 * SEC, &ack_to_sender(&s, una, WND));
    }
    drain(&mut s);
    let ssthresh = (u64::from(cwnd) * 717 / 1024) as u32 * MSS;
    assert_eq!(s.ssthresh(), ssthresh);
    let rexmt = s.rexmt_at.unwrap_or(0);
    s.on_timeout(rexmt);
    assert_eq!(s.cwnd(), MSS);
    assert_eq!(
        s.ssthresh(),
        ssthresh,
        "not 717/1024 of the inflated window"
    );
}

/// Sending again after an idle time longer than the RTO (`tcp_cwnd_restart`): ssthresh at least
/// 3/4 of the window, the window halved once per RTO beyond the first, down to the initial
/// window at most (BSD: one segment at once).
#[test]
fn idle_restart_halves_the_window_per_rto() {
    let mut s = cubic_relay();
    let mut path = Path::new(10 * MS, 5 * MS);
    s.write(0, 40 * u64::from(MSS));
    let end = path.run(&mut s, 100 * SEC, |s| s.snd_una() == s.snd_max());
    let cwnd = s.cwnd() / MSS;
    let ssthresh = s.ssthresh();
    assert!(cwnd >= 16, "{cwnd}");
    let rto = u64::from(s.rtt.rxtcur) * s.cfg.timers.slow_tick;
    assert!(
        end < 3 * rto,
        "the last send was less than half an RTO before {end}"
    );
    // idle 3.5 RTOs and a little more since the last send: three halvings
    let now = end + 7 * rto / 2;
    s.write(now, 10 * u64::from(MSS));
    assert_eq!(s.cwnd(), (cwnd >> 3) * MSS);
    assert_eq!(
        s.ssthresh(),
        ssthresh.max(((cwnd >> 1) + (cwnd >> 2)) * MSS)
    );
}

/// The window grows only while the sender is cwnd-limited (`tcp_is_cwnd_limited`; in slow
/// start, while cwnd is below twice the flight): a sender held to 10 segments by the receiver's
/// window stops opening cwnd once it is twice that.
#[test]
fn no_growth_while_the_receivers_window_limits() {
    let mut s = cubic_with_window(20);
    let mut t = 10 * SEC;
    let mut ack_one = |s: &mut Tcp| {
        let una = s.snd_una() + MSS;
        s.on_segment(t, &ack_to_sender(s, una, (10 * MSS) as u16));
        drain(s);
        t += 10 * MS;
    };
    for _ in 0..20 {
        ack_one(&mut s);
    }
    let cwnd = s.cwnd();
    assert_eq!(
        s.snd_max().since(s.snd_una()),
        10 * MSS,
        "the receiver's window"
    );
    for _ in 0..20 {
        ack_one(&mut s);
    }
    assert_eq!(s.cwnd(), cwnd, "grew while not cwnd-limited");
}

/// Linux's Reno (`congestion-control = linux-reno`) on the same TCP: a fast retransmit halves
/// cwnd (`tcp_reno_ssthresh`), where BSD halves `min(snd_wnd, cwnd)`.
#[test]
fn linux_reno_halves_the_window_on_a_loss() {
    let host = HostProfile {
        congestion_control: CongestionControl::LinuxReno,
        ..HostProfile::default()
    };
    let mut s = established_hosts(64 * 1024, 100_000_000, RecoveryPolicy::RENO, host).0;
    assert!(matches!(
        s.congestion().controller(),
        Controller::LinuxReno(_)
    ));
    // a receiver's window of 20 segments: slow start stops at twice the flight
    let mut path = Path::new(10 * MS, 0);
    path.wnd = (20 * MSS) as u16;
    path.run(&mut s, SEC, |_| false);
    let cwnd = s.cwnd() / MSS;
    assert_eq!(cwnd, 40, "cwnd-limited: twice the flight");
    let una = s.snd_una();
    for _ in 0..3 {
        s.on_segment(10 * SEC, &ack_to_sender(&s, una, path.wnd));
    }
    assert_eq!(s.stats().fast_retransmits, 1);
    assert_eq!(
        s.ssthresh(),
        20 * MSS,
        "half of cwnd; BSD: half of the 20-segment snd_wnd"
    );
}

/// What an ACK delivers (`linux.rs`): the ACK that ends a SACK recovery counts towards a Linux
/// window's growth only the packets it newly delivers (`tcp_ack`'s `tcp_newly_delivered`, handed
/// to `cong_avoid`), not every segment between `snd_una` and the ACK: those SACKed during the
/// recovery were counted as delivered when SACKed (`tcp_sacktag_one`), while
/// `tcp_cwnd_reduction` ran instead of `cong_avoid`, and `tcp_clean_rtx_queue` does not count
/// them again. Twenty segments out, the first lost, all others and all sent during the recovery
/// SACKed: the full ACK delivers one packet, so Linux Reno's halved window of 10 segments grows
/// after 10 delivered (`tcp_cong_avoid_ai`'s `snd_cwnd_cnt`), not at the next ACK, as crediting
/// the ACK with the 29 segments it covers would.
#[test]
fn full_ack_after_sack_recovery_counts_what_it_delivers() {
    let host = HostProfile {
        congestion_control: CongestionControl::LinuxReno,
        sack_recovery: SackRecovery::Rfc6675Prr,
        ..HostProfile::default()
    };
    let (mut s, _r) = established_hosts(64 * 1024, 10_000_000, RecoveryPolicy::SACK, host);
    drain(&mut s);
    let mut t = 10 * MS;
    let mut ack = |s: &mut Tcp, ack: Seq, sacked: Option<(Seq, Seq)>| {
        let mut a = ack_to_sender(s, ack, WND);
        if let Some((from, to)) = sacked {
            a.sack.push(from, to);
        }
        s.on_segment(t, &a);
        drain(s);
        t += MS;
    };
    while s.snd_max().since(s.snd_una()) < 20 * MSS {
        let next = s.snd_una() + MSS;
        ack(&mut s, next, None);
    }
    assert_eq!(s.cwnd(), 20 * MSS, "slow start to 20 segments out");
    let base = s.snd_una();
    // segment 0 lost; 1..19 arrive, each ACK a duplicate SACKing [1, k); then one SACKing all
    // else sent so far, new data sent in the recovery included
    for k in 2..=20 {
        ack(&mut s, base, Some((base + MSS, base + k * MSS)));
    }
    assert_eq!(s.ssthresh(), 10 * MSS, "tcp_reno_ssthresh: half of cwnd");
    let top = s.snd_max();
    ack(&mut s, base, Some((base + MSS, top)));
    // the retransmission of 0 arrives: the ACK covers all up to `top`, delivering one packet
    ack(&mut s, top, None);
    assert_eq!(s.cwnd(), 10 * MSS, "tcp_end_cwnd_reduction: ssthresh");
    for n in 2..=10 {
        let next = s.snd_una() + MSS;
        ack(&mut s, next, None);
        let grown = if n == 10 { MSS } else { 0 };
        assert_eq!(s.cwnd(), 10 * MSS + grown, "{n} packets delivered since");
    }
}
