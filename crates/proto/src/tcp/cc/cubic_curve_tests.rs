//! Tests of `cubic.rs`.
use super::*;

use crate::time::MS;

const MSS: u32 = 1000;

fn cubic() -> Cubic {
    let mut c = Cubic::new();
    c.on_mss(MSS, MSS);
    c
}

/// An ACK for `segs` segments at `now` with an RTT sample: `cubictcp_acked`, then
/// `cubictcp_cong_avoid`.
fn ack(c: &mut Cubic, w: &mut Window, now: Time, segs: u32, rtt: Option<Time>) {
    if let Some(r) = rtt {
        c.acked(w, now, Seq(0), Seq(0), r);
    }
    c.cong_avoid(w, now, segs);
}

fn window(cwnd_segs: u32, ssthresh_segs: u32) -> Window {
    Window {
        cwnd: cwnd_segs * MSS,
        ssthresh: ssthresh_segs * MSS,
    }
}

#[test]
fn constants_are_linuxs() {
    assert_eq!(CUBE_RTT_SCALE, 410);
    assert_eq!(CUBE_FACTOR, (1u64 << 40) / 410);
    assert_eq!(FRIENDLY_SCALE, 15);
}

#[test]
fn cube_root_is_the_floor() {
    for a in [
        0u64,
        1,
        7,
        8,
        26,
        27,
        28,
        999,
        1000,
        1001,
        u64::from(u32::MAX),
    ] {
        let r = cube_root(a);
        assert!(r * r * r <= a && (r + 1).pow(3) > a, "{a}: {r}");
    }
}

/// RFC 9438 section 4.2 with W_max = 100 and beta = 717/1024: the window after the loss is 70,
/// K = cbrt(30 / 0.4) = 4.217 s; the curve passes 70 at the epoch, W_max at K, and rises as
/// fast past K as it fell before it.
#[test]
fn window_function_is_the_cubic_through_w_max() {
    let mut c = cubic();
    let mut w = window(100, 1000);
    c.on_congestion_event(&mut w);
    assert_eq!(w.cwnd, 70 * MSS, "717/1024 of 100, rounded down");
    assert_eq!(c.w_max(), 100);
    // the first ACK in congestion avoidance starts the epoch
    ack(&mut c, &mut w, 10 * SEC, 1, Some(100 * MS));
    let k_s = c.k() as f64 / 1024.0;
    // Linux's C is 410/1024 = 0.40039, not 0.4: K is 2 ms short of the RFC's
    let linux_k = ((100.0 - 70.0) / (410.0 / 1024.0f64)).cbrt();
    assert!(
        (k_s - linux_k).abs() <= 1.0 / 1024.0,
        "K = {k_s} s, {linux_k} s"
    );
    let rfc_k = ((100.0 - 70.0) / 0.4f64).cbrt();
    assert!((k_s - rfc_k).abs() < 0.005, "K = {k_s} s, RFC {rfc_k} s");
    // K in whole 1/1024 s, rounded down, leaves the curve a fraction of a segment above 70
    assert_eq!(
        c.window_at(0),
        71,
        "the epoch's window, C (t - K)^3 = -29.98 rounded"
    );
    let k = c.k() * SEC / 1024;
    assert_eq!(c.window_at(k), 100, "W_max at K");
    let before = 100 - c.window_at(k - SEC);
    let after = c.window_at(k + SEC) - 100;
    assert_eq!(before, after, "odd symmetric about K");
    assert_eq!(after, 0, "C * 1^3 = 0.4: under a segment a second from K");
    assert_eq!(
        c.window_at(k + 3 * SEC),
        100 + 10,
        "C * 27 = 10.8, rounded down"
    );
    assert!(c.window_at(k / 2) > 70 + (100 - 70) / 2, "concave before K");
}

/// Runs `rtts` round trips of `rtt` from `start`, each ACKing the window one segment at a
/// time, evenly spread; returns the window (segments) at the end of each.
fn rounds(c: &mut Cubic, w: &mut Window, start: Time, rtt: Time, rtts: u32) -> Vec<u32> {
    let mut now = start;
    (0..rtts)
        .map(|_| {
            let n = w.cwnd / MSS;
            for i in 0..n {
                ack(c, w, now + rtt * u64::from(i) / u64::from(n), 1, Some(rtt));
            }
            now += rtt;
            w.cwnd / MSS
        })
        .collect()
}

/// The window follows RFC 9438's W_cubic(t) = C (t - K)^3 + W_max (section 4.2, C = 0.4,
/// K = cbrt(W_max (1 - beta) / C)) after a loss at W_max = 100 segments: within two
/// segments at every second of the epoch, concave up to W_max, convex past it.
#[test]
fn growth_follows_rfc_9438s_w_cubic() {
    let mut c = cubic();
    let mut w = window(100, 1000);
    c.on_congestion_event(&mut w);
    let rtt = 100 * MS;
    let per_rtt = rounds(&mut c, &mut w, SEC, rtt, 80);
    let k = (100.0 * (1.0 - 0.7) / 0.4f64).cbrt();
    for t in 1..=8usize {
        let rfc = 0.4 * (t as f64 - k).powi(3) + 100.0;
        let ours = f64::from(per_rtt[t * 10 - 1]);
        assert!(
            (ours - rfc).abs() <= 2.0,
            "t = {t} s: cwnd {ours}, W_cubic {rfc:.1}"
        );
    }
}

/// The Reno-friendly region (RFC 9438 section 4.3): where the curve is slower than Reno
/// would be (small W_max, short RTT), the window follows W_est = W_max beta + alpha t / RTT,
/// Linux's alpha 8/15: from 7 segments, about 60 after 100 round trips, where the curve
/// alone stays under W_max = 10.
#[test]
fn friendly_region_grows_as_reno_would() {
    let mut c = cubic();
    let mut w = window(10, 1000);
    c.on_congestion_event(&mut w);
    assert_eq!(w.cwnd, 7 * MSS);
    let per_rtt = rounds(&mut c, &mut w, SEC, 10 * MS, 100);
    let w_est = 7.0 + 8.0 / 15.0 * 100.0;
    let ours = f64::from(per_rtt[99]);
    assert!((ours - w_est).abs() <= 3.0, "cwnd {ours}, W_est {w_est:.1}");
    assert!(c.window_at(SEC) <= 10, "the curve alone");
}

/// `cubictcp_acked` discards RTT samples within 1 s of an epoch's start ("right after fast
/// recovery"): a lower one then does not become `delay_min`.
#[test]
fn samples_right_after_recovery_are_discarded() {
    let mut c = cubic();
    let mut w = window(100, 1000);
    ack(&mut c, &mut w, 0, 1, Some(100 * MS));
    c.on_congestion_event(&mut w);
    ack(&mut c, &mut w, SEC, 1, None);
    ack(&mut c, &mut w, SEC + 500 * MS, 1, Some(50 * MS));
    assert_eq!(c.min_rtt, Some(100 * MS));
    ack(&mut c, &mut w, 2 * SEC + MS, 1, Some(50 * MS));
    assert_eq!(c.min_rtt, Some(50 * MS));
}

/// Fast convergence (RFC 9438 section 4.7): a loss below the last W_max remembers less.
#[test]
fn fast_convergence_lowers_w_max() {
    let mut c = cubic();
    let mut w = window(100, 1000);
    c.on_congestion_event(&mut w);
    assert_eq!(c.w_max(), 100);
    let mut w = window(80, 70);
    c.on_congestion_event(&mut w);
    assert_eq!(c.w_max(), 80 * (1024 + 717) / 2048, "cwnd (1 + beta) / 2");
    assert_eq!(w.ssthresh, 80 * 717 / 1024 * MSS);
    let mut w = window(2, 70);
    c.on_congestion_event(&mut w);
    assert_eq!(w.ssthresh, 2 * MSS, "never below two segments");
}

/// Each ACK grows the window by at most one segment per two ACKed (Linux's cnt >= 2), and
/// below W_max the growth follows the curve: fast far below it, slow near it.
#[test]
fn growth_follows_the_curve_and_at_most_half_a_segment_per_ack() {
    let mut c = cubic();
    let mut w = window(100, 1000);
    c.on_congestion_event(&mut w);
    let mut now = SEC;
    let rtt = 100 * MS;
    let mut per_rtt = Vec::new();
    for _ in 0..60 {
        let start = w.cwnd / MSS;
        for _ in 0..start {
            let before = w.cwnd;
            ack(&mut c, &mut w, now, 1, Some(rtt));
            assert!(w.cwnd - before <= MSS);
        }
        let end = w.cwnd / MSS;
        assert!(end <= start + start.div_ceil(2) + 1, "1.5x per RTT at most");
        per_rtt.push(end - start);
        now += rtt;
    }
    assert!(
        per_rtt[0] > per_rtt[20],
        "fast far below W_max, slow near it"
    );
    let k_rtts = (c.k() * SEC / 1024 / rtt) as usize;
    assert!(per_rtt[k_rtts] <= 1, "flat at W_max: {per_rtt:?}");
    assert!(w.cwnd / MSS > 100, "past W_max after K: probing");
}

/// Slow start below ssthresh: one segment per segment ACKed; leftovers go to the curve.
#[test]
fn slow_start_then_curve() {
    let mut c = cubic();
    let mut w = window(10, 12);
    ack(&mut c, &mut w, SEC, 1, None);
    assert_eq!(w.cwnd, 11 * MSS);
    ack(&mut c, &mut w, SEC, 3, None);
    assert_eq!(
        w.cwnd,
        12 * MSS,
        "capped at ssthresh, the rest to the curve"
    );
}

/// A timeout forgets W_max: the next epoch starts with K = 0 (RFC 9438 section 4.8).
#[test]
fn timeout_resets_to_one_segment_and_forgets_w_max() {
    let mut c = cubic();
    let mut w = window(100, 1000);
    c.on_rto(&mut w, Seq(0));
    assert_eq!(w.cwnd, MSS);
    assert_eq!(w.ssthresh, 70 * MSS);
    assert_eq!(c.w_max(), 0);
    let mut w = window(70, 70);
    ack(&mut c, &mut w, SEC, 1, None);
    assert_eq!(c.k(), 0);
}

/// Far from the epoch the curve saturates instead of overflowing.
#[test]
fn window_function_saturates() {
    let mut c = cubic();
    let mut w = window(100, 1000);
    c.on_congestion_event(&mut w);
    ack(&mut c, &mut w, 0, 1, None);
    assert_eq!(c.window_at(Time::MAX), u32::MAX);
    assert!(c.window_at(1000 * SEC) > 1_000_000);
}

/// Idle time is not counted in the curve's clock (`CA_EVENT_TX_START`): data sent with
/// nothing outstanding moves the epoch on by the time since data was last sent.
#[test]
fn idle_moves_the_epoch() {
    let mut c = cubic();
    let mut w = window(100, 1000);
    c.on_congestion_event(&mut w);
    let sent = |now: Time, at: u32, outstanding: bool| super::super::SentInfo {
        now,
        start: Seq(at),
        len: MSS,
        una: Seq(if outstanding { 0 } else { at }),
        snd_max: Seq(at),
        rto: 100 * SEC,
        timed: false,
    };
    c.on_data_sent(&mut w, &sent(0, 0, false));
    ack(&mut c, &mut w, SEC, 1, None);
    let mut idle = c.clone();
    c.on_data_sent(&mut w.clone(), &sent(SEC, MSS, true));
    idle.on_data_sent(&mut w.clone(), &sent(11 * SEC, MSS, false));
    assert_eq!(
        idle.epoch,
        Some(11 * SEC),
        "moved on by the 10 s since the last send"
    );
    assert_eq!(c.epoch, Some(SEC), "data outstanding: not idle");
    let (mut a, mut b) = (w, w);
    ack(&mut c, &mut a, 2 * SEC, 1, None);
    ack(&mut idle, &mut b, 12 * SEC, 1, None);
    assert_eq!(c.cnt, idle.cnt, "the same point of the curve");
}

/// The curve in 64 bits (`bictcp_update`'s arithmetic) gives the 128-bit window on both sides of
/// where each 64-bit product stops fitting: `t` at 2^54 ns, `offs` at 2^18 units.
#[test]
fn window_in_64_bits_as_in_128() {
    let wide = |c: &Cubic, t: Time| {
        let t = u64::try_from((u128::from(t) << HZ_SHIFT) / u128::from(SEC)).unwrap_or(u64::MAX);
        let offs = t.abs_diff(c.k).min(1 << 36);
        let delta = (u128::from(CUBE_RTT_SCALE) * u128::from(offs).pow(3)) >> (10 + 3 * HZ_SHIFT);
        let delta = u32::try_from(delta).unwrap_or(u32::MAX);
        if t < c.k {
            c.origin.saturating_sub(delta)
        } else {
            c.origin.saturating_add(delta)
        }
    };
    // 2^18 units of 2^-10 s are 256 s; t's 64-bit edge is 2^54 ns
    let unit_edge = (1u64 << 18) * SEC / 1024;
    for (k, origin) in [
        (0, 10),
        (4_000, 100),
        (1 << 18, 50_000),
        (1 << 20, u32::MAX - 5),
    ] {
        let mut c = cubic();
        c.k = k;
        c.origin = origin;
        let k_time = k * SEC / 1024;
        for t in [
            0,
            1,
            SEC,
            k_time,
            k_time + unit_edge - 1,
            k_time + unit_edge,
            k_time + unit_edge + SEC,
            k_time + 2 * unit_edge - SEC,
            k_time + 2 * unit_edge,
            k_time.saturating_sub(unit_edge),
            (1 << 54) - 1,
            1 << 54,
            (1 << 54) + 1,
            Time::MAX,
        ] {
            assert_eq!(c.window_at(t), wide(&c, t), "K {k}, t {t} ns");
        }
    }
}
