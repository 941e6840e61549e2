//! Scripted tests of Linux's SACK emulation for a connection without SACK (`reno_sacks.rs`, host
//! detail `reno-sack-emulation`): each fails if its rule is removed.

use super::small_window_tests::dup;
use super::tests::{ack_to_sender, drain, established_hosts, MSS};
use super::*;
use crate::time::{MS, SEC};

/// The live `paper` profile's twin, with the detail as given.
fn linux_paper(emulation: bool) -> HostProfile {
    HostProfile {
        reno_sack_emulation: emulation,
        ..HostPreset::LinuxPaper.profile()
    }
}

/// A sender on `host` with `policy` whose peer advertises `peer_segs` segments, ACKed one segment
/// at a time until `segs` segments are outstanding (all sent, cwnd full or the peer's window
/// full); plenty of data is left to send.
fn sender(host: HostProfile, policy: RecoveryPolicy, segs: u32, peer_segs: u32) -> Tcp {
    let (mut s, _r) = established_hosts(64 * 1024, 10_000_000, policy, host);
    drain(&mut s);
    let mut t = 10 * MS;
    while s.snd_max().since(s.snd_una()) < segs * MSS {
        let ack = s.snd_una() + MSS;
        s.on_segment(t, &ack_to_sender(&s, ack, (peer_segs * MSS) as u16));
        drain(&mut s);
        t += MS;
        assert!(t < SEC, "the window never reached {segs} segments");
    }
    assert_eq!(s.snd_max().since(s.snd_una()), segs * MSS);
    s
}

/// On each duplicate below the threshold exactly one new segment goes out, cwnd unchanged; the
/// third duplicate is still the threshold (`tp->reordering` 3). A window of two segments so
/// reaches fast retransmit, where the BSD host (and the detail off) sends nothing.
#[test]
fn each_duplicate_below_the_threshold_sends_one_new_segment() {
    let mut s = sender(linux_paper(true), RecoveryPolicy::RENO, 2, 64);
    assert_eq!(s.cwnd(), 2 * MSS, "cwnd-limited: two segments");
    let (cwnd, una, max) = (s.cwnd(), s.snd_una(), s.snd_max());
    for i in 0..2u32 {
        s.on_segment(SEC, &dup(&s));
        let out = drain(&mut s);
        assert_eq!(out.len(), 1, "duplicate {} sends one segment", i + 1);
        assert_eq!((out[0].0.seq, out[0].1), (max + i * MSS, TxKind::New));
        assert_eq!(s.cwnd(), cwnd, "the duplicate changes no window");
    }
    assert_eq!(s.stats().limited_transmits, 2);
    s.on_segment(SEC, &dup(&s));
    let out = drain(&mut s);
    assert_eq!(
        out.len(),
        1,
        "the third duplicate: the retransmission alone"
    );
    assert_eq!((out[0].0.seq, out[0].1), (una, TxKind::FastRetransmit));
    assert_eq!(s.stats().fast_retransmits, 1);

    for host in [linux_paper(false), HostPreset::Bsdos21.profile()] {
        let mut r = sender(host, RecoveryPolicy::RENO, 2, 64);
        for _ in 0..2 {
            r.on_segment(SEC, &dup(&r));
            assert!(drain(&mut r).is_empty(), "nothing on a duplicate");
        }
        assert_eq!(r.stats().limited_transmits, 0);
    }
}

/// The new segment must fit the peer's window from `snd_una` (`tcp_snd_wnd_test()`): a duplicate
/// does not open it.
#[test]
fn the_peers_window_bounds_what_a_duplicate_lets_out() {
    let mut s = sender(linux_paper(true), RecoveryPolicy::RENO, 3, 3);
    assert!(s.cwnd() >= 3 * MSS);
    for _ in 0..2 {
        s.on_segment(SEC, &dup(&s));
        assert!(drain(&mut s).is_empty());
    }
    assert_eq!(s.stats().limited_transmits, 0);
}

/// `tcp_limit_reno_sacked()`: the hole never counts as delivered, so with one segment out a
/// duplicate frees nothing (the count is at most `packets_out - 1`).
#[test]
fn the_hole_itself_never_leaves_the_flight() {
    let (mut s, _r) = established_hosts(
        64 * 1024,
        10_000_000,
        RecoveryPolicy::RENO,
        linux_paper(true),
    );
    assert_eq!(drain(&mut s).len(), 1, "an initial window of one segment");
    for _ in 0..2 {
        s.on_segment(10 * MS, &dup(&s));
        assert!(drain(&mut s).is_empty(), "the one segment out is the hole");
    }
}

/// The emulation takes Limited Transmit's place: with protocol `lt` on the Linux host a duplicate
/// lets one segment out, not Limited Transmit's and the emulation's each.
#[test]
fn with_limited_transmit_a_duplicate_still_sends_one() {
    let mut s = sender(linux_paper(true), RecoveryPolicy::LIMITED_TRANSMIT, 4, 64);
    let max = s.snd_max();
    s.on_segment(SEC, &dup(&s));
    let out = drain(&mut s);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].0.seq, max);
}

/// In fast recovery: the segments the duplicates let out before the threshold stay in the flight,
/// so the third duplicate sends the retransmission alone (PRR's `sndcnt` of 1 with the flight at
/// ssthresh), the fourth nothing, the fifth one new segment (one per duplicate once the flight is
/// below the halved window). Without the emulation the fourth sends two new segments at once.
#[test]
fn in_recovery_the_duplicates_clock_out_one_segment_each() {
    let mut s = sender(linux_paper(true), RecoveryPolicy::RENO, 4, 64);
    assert_eq!(s.cwnd(), 4 * MSS);
    for _ in 0..2 {
        s.on_segment(SEC, &dup(&s));
        assert_eq!(drain(&mut s).len(), 1);
    }
    s.on_segment(SEC, &dup(&s));
    let out = drain(&mut s);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].1, TxKind::FastRetransmit);
    s.on_segment(SEC, &dup(&s));
    assert!(
        drain(&mut s).is_empty(),
        "the fourth: the flight is at the window"
    );
    let max = s.snd_max();
    s.on_segment(SEC, &dup(&s));
    let out = drain(&mut s);
    assert_eq!(out.len(), 1, "the fifth: one new segment");
    assert_eq!((out[0].0.seq, out[0].1), (max, TxKind::New));

    let mut r = sender(linux_paper(false), RecoveryPolicy::RENO, 4, 64);
    for _ in 0..3 {
        r.on_segment(SEC, &dup(&r));
    }
    assert_eq!(drain(&mut r).len(), 1, "the retransmission");
    r.on_segment(SEC, &dup(&r));
    assert_eq!(
        drain(&mut r).len(),
        2,
        "without it: ssthresh + 4 segments over 4 out"
    );
}

/// After a timeout (go-back-N: `snd_nxt` below `snd_max`) a duplicate sends nothing by this
/// rule: what would go out is not new data.
#[test]
fn nothing_after_a_timeout() {
    let mut s = sender(linux_paper(true), RecoveryPolicy::RENO, 4, 64);
    let rto = s.poll_timeout().expect("the retransmission timer runs");
    s.on_timeout(rto);
    let out = drain(&mut s);
    assert_eq!(out.len(), 1, "the timeout resends one segment");
    assert!(s.snd_nxt().lt(s.snd_max()));
    s.on_segment(rto + MS, &dup(&s));
    assert!(drain(&mut s).is_empty());
}

/// The count holds until an ACK advances `snd_una`: data the application writes after the
/// duplicates goes out by it too (`tcp_packets_in_flight()` is what `tcp_write_xmit()` reads at
/// every send), where with the detail off cwnd is full and it waits.
#[test]
fn what_the_application_writes_after_a_duplicate_goes_out_by_it() {
    for emulation in [true, false] {
        let mut cfg = TcpConfig::relay(MSS, 64 * 1024, 64 * 1024);
        cfg.iss = 1000;
        cfg.host = linux_paper(emulation);
        let mut rcfg = TcpConfig::sink(MSS, 64 * 1024);
        rcfg.iss = 5000;
        rcfg.host = cfg.host;
        let mut s = Tcp::connect(cfg, crate::test_support::FH, crate::test_support::MH, 0);
        let mut r = Tcp::listen(rcfg, crate::test_support::MH, crate::test_support::FH);
        let syn = drain(&mut s);
        r.on_segment(0, &syn[0].0);
        let synack = drain(&mut r);
        s.on_segment(0, &synack[0].0);
        drain(&mut s);
        // one segment, ACKed: cwnd 2; then two more, which fill it
        assert_eq!(s.write(MS, u64::from(MSS)), u64::from(MSS));
        assert_eq!(drain(&mut s).len(), 1);
        s.on_segment(2 * MS, &ack_to_sender(&s, s.snd_max(), 64000));
        drain(&mut s);
        assert_eq!(s.cwnd(), 2 * MSS);
        s.write(3 * MS, u64::from(2 * MSS));
        assert_eq!(drain(&mut s).len(), 2);
        s.on_segment(4 * MS, &dup(&s));
        assert!(drain(&mut s).is_empty(), "nothing waits to be sent");
        let max = s.snd_max();
        s.write(5 * MS, u64::from(MSS));
        let out = drain(&mut s);
        if emulation {
            assert_eq!(out.len(), 1, "the duplicate's room is still there");
            assert_eq!((out[0].0.seq, out[0].1), (max, TxKind::New));
        } else {
            assert!(out.is_empty(), "cwnd is full");
        }
    }
}
