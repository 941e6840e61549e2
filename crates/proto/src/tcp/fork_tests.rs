//! The rules a simulated run forks on (`sim/src/run/sharing/fork.rs`), each checked on twin senders fed
//! the same segments and timeouts: [`SharingHook::writes_alike`] (a bulk sender of `app_bytes` and its twin
//! that writes fewer bytes send the same segments and ask for the same timeouts for as long as the
//! rule holds before each input), and [`Tcp::would_have_acted`] (a sender without Early
//! Retransmit or EFR's threshold and its twin with it act alike until the first says the rule
//! would have acted).

use proptest::prelude::*;

use super::*;
use crate::segment::Segment;
use crate::test_support::{FH, MH};
use crate::time::MS;

const MSS: u32 = 1000;

/// What arrives where, and when: (time, order, to the sink?, segment).
type InFlight = Vec<(Time, u64, bool, Segment)>;

/// A bulk sender of `app` bytes with `policy`.
fn sender(app: u64, buffer: u32, policy: RecoveryPolicy) -> Tcp {
    let mut cfg = TcpConfig::bulk_sender(MSS, buffer, app);
    cfg.iss = 1000;
    cfg.policy = policy;
    Tcp::connect(cfg, FH, MH, 0)
}

/// The sink's buffer, and the wire: `delay` each way, dropping the data segments `lost` picks.
/// `sink_host`: the sink's host, and a twin of the sink on the path that tests today's details
/// beside it (`bsd_paths_twins`); `None`, the default host alone.
struct Wire<'a> {
    buffer: u32,
    delay: Time,
    lost: &'a [bool],
    sink_host: Option<HostProfile>,
}

/// Runs sender `s` and its `twin` over `wire` until the transfer ends, `parts_next` says the next
/// input may part them (checked before each), or `parted` says the last one may have (checked
/// after each); fails if the two ever act apart before that. Returns the first sender.
fn twins(
    mut s: Tcp,
    mut twin: Tcp,
    wire: &Wire,
    parts_next: impl Fn(&Tcp) -> bool,
    parted: impl Fn(&Tcp) -> bool,
) -> Tcp {
    let Wire {
        buffer,
        delay,
        lost,
        sink_host,
    } = *wire;
    let mut rcfg = TcpConfig::sink(MSS, buffer);
    rcfg.iss = 5000;
    if let Some(h) = sink_host {
        rcfg.host = h;
    }
    let mut r = Tcp::listen(rcfg, MH, FH);
    let mut r_twin = sink_host.map(|_| {
        let mut t = r.clone();
        t.today = true;
        t
    });
    let mut in_flight: InFlight = vec![];
    let mut order = 0;
    let mut data_sent = 0;
    let mut now = 0;
    for _ in 0..20_000 {
        // what each sender sends now: the same, or the rule is wrong
        loop {
            let (a, b) = (s.poll_transmit(), twin.poll_transmit());
            assert_eq!(a, b, "the twins sent apart at {now}");
            let Some((seg, _)) = a else { break };
            let drop = seg.len > 0 && lost.get(data_sent).copied().unwrap_or(false);
            data_sent += usize::from(seg.len > 0);
            if !drop {
                order += 1;
                in_flight.push((now + delay, order, true, seg));
            }
        }
        assert_eq!(
            s.poll_timeout(),
            twin.poll_timeout(),
            "timers apart at {now}"
        );
        while let Some(out) = r.poll_transmit() {
            if let Some(t) = &mut r_twin {
                assert_eq!(
                    t.poll_transmit(),
                    Some(out),
                    "the sinks sent apart at {now}"
                );
            }
            order += 1;
            in_flight.push((now + delay, order, false, out.0));
        }
        if let Some(t) = &r_twin {
            assert!(!t.has_output(), "the sinks sent apart at {now}");
            assert_eq!(
                t.poll_timeout(),
                r.poll_timeout(),
                "sink timers apart at {now}"
            );
        }
        if s.is_finished() && r.is_finished() || parts_next(&s) {
            break;
        }
        // the next input: a segment's arrival or a timeout, whichever is first
        let next_seg = in_flight.iter().map(|w| (w.0, w.1)).min();
        let timers = [s.poll_timeout(), r.poll_timeout()];
        let next_timer = timers.iter().flatten().min().copied();
        match (next_seg, next_timer) {
            (Some((t, o)), timer) if timer.is_none_or(|tt| t <= tt) => {
                now = t;
                let i = in_flight.iter().position(|w| w.1 == o).unwrap_or(0);
                let (_, _, to_sink, seg) = in_flight.swap_remove(i);
                if to_sink {
                    r.on_segment(now, &seg);
                    if let Some(t) = &mut r_twin {
                        t.on_segment(now, &seg);
                    }
                } else {
                    s.on_segment(now, &seg);
                    twin.on_segment(now, &seg);
                }
            }
            (_, Some(t)) => {
                now = t;
                if s.poll_timeout() == Some(t) {
                    s.on_timeout(now);
                    twin.on_timeout(now);
                }
                if r.poll_timeout() == Some(t) {
                    r.on_timeout(now);
                    if let Some(tw) = &mut r_twin {
                        tw.on_timeout(now);
                    }
                }
            }
            _ => break,
        }
        if parted(&s) {
            break;
        }
    }
    s
}

/// Twin bulk senders of `large` and `small` bytes; the bytes acknowledged where they may part.
fn transfer_twins(large: u64, small: u64, buffer: u32, delay: Time, lost: &[bool]) -> u64 {
    let reno = RecoveryPolicy::RENO;
    let (s, twin) = (sender(large, buffer, reno), sender(small, buffer, reno));
    let wire = Wire {
        buffer,
        delay,
        lost,
        sink_host: None,
    };
    let s = twins(s, twin, &wire, |s| !s.writes_alike(small), |_| false);
    u64::from(s.snd_una().since(s.iss() + 1))
}

/// Twin senders without and with `addition`; whether the first says the rule would have acted.
fn addition_twins(
    addition: Addition,
    app: u64,
    buffer: u32,
    delay: Time,
    lost: &[bool],
    limited_transmit: bool,
) -> bool {
    let base = RecoveryPolicy {
        limited_transmit,
        ..RecoveryPolicy::RENO
    };
    let (s, twin) = (
        sender(app, buffer, base),
        sender(app, buffer, addition.to(base)),
    );
    let wire = Wire {
        buffer,
        delay,
        lost,
        sink_host: None,
    };
    let acted = |s: &Tcp| s.would_have_acted(addition);
    let s = twins(s, twin, &wire, |_| false, acted);
    s.would_have_acted(addition)
}

#[test]
fn the_twins_act_alike_until_the_last_send_buffer_of_the_smaller() {
    // a clean wire: the rule holds until a buffer and a segment short of the smaller transfer
    let acked = transfer_twins(200_000, 100_000, 8000, 2 * MS, &[]);
    assert!(
        (100_000 - 2 * 8000 - 2 * u64::from(MSS)..100_000).contains(&acked),
        "{acked}"
    );
}

#[test]
fn a_twin_of_the_same_transfer_is_alike_to_the_end() {
    assert!(transfer_twins(50_000, 50_000, 8000, MS, &[false, true, false, false, true]) >= 50_000);
}

#[test]
fn a_tail_loss_is_where_early_retransmit_acts() {
    // 20 segments, the third from the end lost: two duplicate ACKs with three segments
    // outstanding and nothing new to send, RFC 5827's case
    let mut lost = vec![false; 20];
    lost[17] = true;
    let er = Addition::EarlyRetransmit;
    assert!(addition_twins(er, 20_000, 16384, 5 * MS, &lost, false));
    // the same loss early in the transfer leaves the rule idle
    let mut early = vec![false; 20];
    early[3] = true;
    assert!(!addition_twins(er, 20_000, 16384, 5 * MS, &early, false));
}

#[test]
fn a_window_of_four_segments_is_where_efr_acts() {
    // a window of four segments: EFR's threshold is 2 on the first duplicate, Reno's 3
    let mut lost = vec![false; 40];
    lost[20] = true;
    assert!(addition_twins(
        Addition::Efr,
        40_000,
        4000,
        5 * MS,
        &lost,
        false
    ));
    // with sixteen, both are 3: the loss leaves the rule idle
    assert!(!addition_twins(
        Addition::Efr,
        40_000,
        16000,
        5 * MS,
        &lost,
        false
    ));
}

#[test]
fn a_policy_adds_a_point_only_where_that_is_all_it_changes() {
    let reno = RecoveryPolicy::RENO;
    assert_eq!(
        Addition::between(reno, RecoveryPolicy::EARLY_RETRANSMIT),
        Some(Addition::EarlyRetransmit)
    );
    assert_eq!(
        Addition::between(reno, RecoveryPolicy::EFR),
        Some(Addition::Efr)
    );
    assert_eq!(
        Addition::between(
            RecoveryPolicy::LIMITED_TRANSMIT,
            RecoveryPolicy::EARLY_RETRANSMIT_LT
        ),
        Some(Addition::EarlyRetransmit)
    );
    assert_eq!(
        Addition::between(reno, RecoveryPolicy::EARLY_RETRANSMIT_LT),
        None
    );
    assert_eq!(Addition::between(reno, reno), None);
    assert_eq!(
        Addition::between(RecoveryPolicy::EFR, RecoveryPolicy::EFR),
        None
    );
}

/// Twin senders on a BSD host with `policy`, the second sent down the path that tests today's
/// details (`Tcp::today` set by hand): each such test is false for a BSD host, so the two act
/// alike to the end (`input.rs`, `Tcp::on_segment_as`).
fn bsd_paths_twins(
    preset: HostPreset,
    policy: RecoveryPolicy,
    app: u64,
    buffer: u32,
    delay: Time,
    lost: &[bool],
) {
    let mut cfg = TcpConfig::bulk_sender(MSS, buffer, app);
    cfg.iss = 1000;
    cfg.policy = policy;
    cfg.host = preset.profile();
    let s = Tcp::connect(cfg, FH, MH, 0);
    assert!(!s.today);
    let mut twin = s.clone();
    twin.today = true;
    let wire = Wire {
        buffer,
        delay,
        lost,
        sink_host: Some(preset.profile()),
    };
    let s = twins(s, twin, &wire, |_| false, |_| false);
    assert!(s.is_finished() || s.snd_una() != s.iss());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn a_bsd_host_acts_alike_on_both_paths(
        preset in prop::sample::select(HostPreset::BSD.to_vec()),
        policy in prop::sample::select(vec![
            RecoveryPolicy::RENO,
            RecoveryPolicy::NEWRENO,
            RecoveryPolicy::SACK,
            RecoveryPolicy::SMART,
            RecoveryPolicy::ELN,
            RecoveryPolicy::LIMITED_TRANSMIT,
        ]),
        app in 1u64..80_000,
        buffer in prop::sample::select(vec![2000u32, 4096, 8000, 16384]),
        delay in 1u64..20,
        lost in prop::collection::vec(prop::bool::weighted(0.1), 0..120),
    ) {
        bsd_paths_twins(preset, policy, app, buffer, delay * MS, &lost);
    }

    #[test]
    fn twins_act_alike_while_the_rule_holds(
        small in 1u64..60_000,
        more in 1u64..40_000,
        buffer in prop::sample::select(vec![2000u32, 4096, 8000, 16384]),
        delay in 1u64..20,
        lost in prop::collection::vec(prop::bool::weighted(0.08), 0..120),
    ) {
        transfer_twins(small + more, small, buffer, delay * MS, &lost);
    }

    #[test]
    fn twins_with_a_point_added_act_alike_until_its_rule_would_act(
        addition in prop::sample::select(Addition::ALL.to_vec()),
        app in 1u64..80_000,
        buffer in prop::sample::select(vec![2000u32, 4096, 8000, 16384]),
        delay in 1u64..20,
        lost in prop::collection::vec(prop::bool::weighted(0.1), 0..120),
        limited_transmit: bool,
    ) {
        addition_twins(addition, app, buffer, delay * MS, &lost, limited_transmit);
    }
}
