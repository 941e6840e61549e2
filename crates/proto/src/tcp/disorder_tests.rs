//! Scripted tests of Linux's window before a recovery (`disorder.rs`): a RACK sender whose
//! window is full sends one new segment for each segment a duplicate ACK newly SACKs.

use super::rack_tlp_tests::{ack, sent};
use super::recovery::{EarlyTimer, Phase};
use super::tests::{ack_to_sender, drain, established_hosts};
use super::*;
use crate::time::MS;

/// A SACK sender with RFC 6675, RACK-TLP and Linux's RTO, its initial window of ten sent at
/// once at time 0 and its first segment acknowledged: cwnd-limited, the nine older segments
/// first. Returns it and the first outstanding segment's number.
fn initial_window_out() -> (Tcp, crate::seq::Seq) {
    let host = HostProfile {
        sack_recovery: SackRecovery::Rfc6675Prr,
        rack_tlp: true,
        rtt_estimator: RttEstimator::Linux {
            rto_min: TCP_RTO_MIN,
        },
        timer_clock: TimerClock::Jiffies { hz: 1000 },
        initial_window: 10,
        ..HostProfile::default()
    };
    let (mut s, _r) = established_hosts(64 * 1024, 10_000_000, RecoveryPolicy::SACK, host);
    assert_eq!(
        drain(&mut s).iter().filter(|(seg, _)| seg.len > 0).count(),
        10
    );
    // the first segment ACKed 100 ms after it left: min_rtt 100 ms, so RACK's reordering
    // window (min_rtt / 4) holds the other nine, sent with it, for 25 ms
    let first = s.snd_una() + s.maxseg();
    s.on_segment(100 * MS, &ack_to_sender(&s, first, 64000));
    drain(&mut s);
    (s, first)
}

/// `tcp_packets_in_flight()` takes a SACKed segment out of the flight outside recovery: each
/// duplicate ACK that SACKs one more segment above the hole lets one new segment out
/// (`tcp_write_xmit()` after `tcp_ack()`), with no loss marked and no recovery begun (RACK
/// marks nothing: the SACKed segments left with the missing one); a duplicate that SACKs
/// nothing new lets nothing out. Fails without `disorder.rs` (nothing goes out).
#[test]
fn each_newly_sacked_segment_lets_a_new_one_out_before_recovery() {
    let (mut s, base) = initial_window_out();
    let cwnd = s.cwnd();
    let out = s.snd_max().since(base);
    assert_eq!(out, cwnd, "the initial window fills cwnd");
    let first_new = out / s.maxseg();
    let t = 110 * MS;
    s.on_segment(t, &ack(&s, base, 0, &[(1, 2)]));
    assert_eq!(
        sent(&mut s, base),
        vec![first_new],
        "one new segment for one SACKed"
    );
    assert_eq!(s.sel.rfc().phase, Phase::Open, "no recovery");
    s.on_segment(t + MS, &ack(&s, base, 0, &[(1, 3)]));
    assert_eq!(sent(&mut s, base), vec![first_new + 1]);
    s.on_segment(t + 2 * MS, &ack(&s, base, 0, &[(1, 3)]));
    assert_eq!(
        sent(&mut s, base),
        Vec::<u32>::new(),
        "nothing newly SACKed"
    );
    assert_eq!(s.sel.rfc().phase, Phase::Open);
    assert_eq!(s.stats().limited_transmits, 2);
    assert_eq!(s.cwnd(), cwnd, "the window itself is unchanged");
}

/// No tail loss probe in Linux's `Disorder` (`tcp_schedule_loss_probe()` asks for `TCP_CA_Open`
/// or `CWR`; SACKed data outstanding is `Disorder`, `tcp_try_keep_open()`): the new segment a
/// duplicate ACK lets out leaves the reordering timer RACK armed for the hole in place.
#[test]
fn new_data_before_recovery_schedules_no_probe() {
    let (mut s, base) = initial_window_out();
    s.on_segment(110 * MS, &ack(&s, base, 0, &[(1, 2)]));
    assert_eq!(sent(&mut s, base).len(), 1);
    assert!(
        matches!(s.sel.early_timer, Some((_, EarlyTimer::Reo))),
        "RACK's timer, not TLP's: {:?}",
        s.sel.early_timer
    );
}
