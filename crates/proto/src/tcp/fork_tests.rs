//! [`Tcp::writes_alike`], the rule a simulated run forks on: a bulk sender of `app_bytes` and its
//! twin that writes fewer bytes, fed the same segments and timeouts, send the same segments and
//! ask for the same timeouts for as long as the rule holds before each input.

use proptest::prelude::*;

use super::*;
use crate::segment::Segment;
use crate::test_support::{FH, MH};
use crate::time::MS;

const MSS: u32 = 1000;

/// What arrives where, and when: (time, order, to the sink?, segment).
type InFlight = Vec<(Time, u64, bool, Segment)>;

/// Runs a bulk sender of `large` bytes and its twin of `small` over a wire of `delay` each way
/// that drops the data segments `lost` picks, until the rule stops holding or the transfer ends;
/// fails if the two ever act apart while it holds. Returns the bytes acknowledged when the rule
/// stopped holding.
fn twins(large: u64, small: u64, buffer: u32, delay: Time, lost: &[bool]) -> u64 {
    let sender = |app| {
        let mut cfg = TcpConfig::bulk_sender(MSS, buffer, app);
        cfg.iss = 1000;
        Tcp::connect(cfg, FH, MH, 0)
    };
    let (mut s, mut twin) = (sender(large), sender(small));
    let mut rcfg = TcpConfig::sink(MSS, buffer);
    rcfg.iss = 5000;
    let mut r = Tcp::listen(rcfg, MH, FH);
    let mut wire: InFlight = vec![];
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
                wire.push((now + delay, order, true, seg));
            }
        }
        assert_eq!(
            s.poll_timeout(),
            twin.poll_timeout(),
            "timers apart at {now}"
        );
        while let Some((seg, _)) = r.poll_transmit() {
            order += 1;
            wire.push((now + delay, order, false, seg));
        }
        if s.is_finished() && r.is_finished() {
            break;
        }
        // the next input: a segment's arrival or a timeout, whichever is first
        let next_seg = wire.iter().map(|w| (w.0, w.1)).min();
        let timers = [s.poll_timeout(), r.poll_timeout()];
        let next_timer = timers.iter().flatten().min().copied();
        if !s.writes_alike(small) {
            return u64::from(s.snd_una().since(s.iss() + 1));
        }
        match (next_seg, next_timer) {
            (Some((t, o)), timer) if timer.is_none_or(|tt| t <= tt) => {
                now = t;
                let i = wire.iter().position(|w| w.1 == o).unwrap_or(0);
                let (_, _, to_sink, seg) = wire.swap_remove(i);
                if to_sink {
                    r.on_segment(now, &seg);
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
                }
            }
            _ => break,
        }
    }
    u64::from(s.snd_una().since(s.iss() + 1))
}

#[test]
fn the_twins_act_alike_until_the_last_send_buffer_of_the_smaller() {
    // a clean wire: the rule holds until a buffer and a segment short of the smaller transfer
    let acked = twins(200_000, 100_000, 8000, 2 * MS, &[]);
    assert!(
        (100_000 - 2 * 8000 - 2 * u64::from(MSS)..100_000).contains(&acked),
        "{acked}"
    );
}

#[test]
fn a_twin_of_the_same_transfer_is_alike_to_the_end() {
    assert!(twins(50_000, 50_000, 8000, MS, &[false, true, false, false, true]) >= 50_000);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn twins_act_alike_while_the_rule_holds(
        small in 1u64..60_000,
        more in 1u64..40_000,
        buffer in prop::sample::select(vec![2000u32, 4096, 8000, 16384]),
        delay in 1u64..20,
        lost in prop::collection::vec(prop::bool::weighted(0.08), 0..120),
    ) {
        twins(small + more, small, buffer, delay * MS, &lost);
    }
}
