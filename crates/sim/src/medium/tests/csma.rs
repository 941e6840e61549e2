//! Scripted tests of the CSMA/CA access model (`csma.rs`).

use super::*;

/// One frame as the medium reported it: (end, from, to, collided, corrupted).
type Done = (Time, StationId, StationId, bool, bool);

pub(super) fn medium(mobiles: usize, c: CsmaParams, seed: u64) -> Medium {
    Medium::new(
        WavelanParams::default(),
        AccessModel::Csma(c),
        clean(mobiles),
        Rng::new(seed, Stream::MediumBackoff),
    )
}

/// Drives the medium as the simulator's loop does until nothing is left to do before `until`.
fn run_until(m: &mut Medium, until: Time, out: &mut Vec<Done>) {
    while let Some(t) = m.poll_timeout().filter(|&t| t <= until) {
        m.on_timeout(t);
        while let Some(tx) = m.poll_done() {
            out.push((t, tx.from, tx.to, tx.collided, tx.frame.corrupted));
        }
        m.start(t);
    }
}

fn enqueue_at(m: &mut Medium, now: Time, from: StationId, to: StationId, len: u32) {
    assert!(m.enqueue(from, to, frame(len), Priority::Normal));
    m.start(now);
}

const IFS: Time = 16 * US;
const SLOT: Time = 6 * US;

/// The CSMA per-frame overhead with the default parameters: 1084 - 16 - 7.5 * 6 us.
const OVERHEAD: Time = 1023 * US;

#[test]
fn the_overhead_under_csma_is_the_calibrated_one_less_the_modelled_waits() {
    let c = CsmaParams::default();
    assert_eq!(c.mean_post_tx_backoff(), 45 * US);
    assert_eq!(c.frame_overhead(1084 * US), OVERHEAD);
    let m = medium(1, c, 1);
    assert_eq!(m.airtime(1440), OVERHEAD + 5760 * US);
    assert_eq!(AccessModel::Csma(CsmaParams::default()).name(), "csma");
    let bad = CsmaParams {
        cw_min: 0,
        ..CsmaParams::default()
    };
    assert!(AccessModel::Csma(bad)
        .validate(&WavelanParams::default())
        .is_err());
}

/// The loop skips [`Medium::start`] when [`Medium::can_skip_start`] says so; that must not
/// change anything against starting the medium at every event, as the loop once did: three
/// stations queue frames at random times (most of them behind a head frame, which skips the
/// step too), other nodes' events (starts with nothing queued) fall in between, and the frames
/// that leave the air are the same, at the same times; with and without hosts that load their
/// frames and a sense delay.
#[test]
fn skipping_a_step_with_no_new_head_frame_changes_nothing() {
    let kinds = [
        CsmaParams::default(),
        CsmaParams {
            load_ns_per_byte: 1023,
            sense_delay: 4 * US,
            ..CsmaParams::default()
        },
    ];
    for (seed, c) in (1..=20).flat_map(|s| kinds.iter().map(move |c| (s, c))) {
        let mut draw = Rng::new(seed, Stream::ErrorsUp);
        let mut arrivals: Vec<(Time, StationId)> = (0..300)
            .map(|_| (draw.below(400 * MS), draw.below(4) as StationId))
            .collect();
        arrivals.sort_unstable();
        let mut noise: Vec<Time> = (0..600).map(|_| draw.below(400 * MS)).collect();
        noise.sort_unstable();
        let drive = |skip: bool| {
            let mut m = medium(3, c.clone(), seed);
            let (mut a, mut n, mut out) = (0, 0, vec![]);
            let start = |m: &mut Medium, t: Time| {
                if !skip || !m.can_skip_start() {
                    m.start(t);
                }
            };
            loop {
                let next = [
                    m.poll_timeout(),
                    arrivals.get(a).map(|x| x.0),
                    noise.get(n).copied(),
                ]
                .into_iter()
                .flatten()
                .min();
                let Some(t) = next else { break };
                if m.poll_timeout() == Some(t) {
                    m.on_timeout(t);
                    while let Some(tx) = m.poll_done() {
                        out.push((t, tx.from, tx.to, tx.collided, tx.frame.corrupted));
                    }
                    start(&mut m, t);
                } else if arrivals.get(a).is_some_and(|x| x.0 == t) {
                    let from = arrivals[a].1;
                    let to = if from == BASE_STATION {
                        1
                    } else {
                        BASE_STATION
                    };
                    m.enqueue(from, to, frame(1400), Priority::Normal);
                    start(&mut m, t);
                    a += 1;
                } else {
                    start(&mut m, t);
                    n += 1;
                }
            }
            out
        };
        let (every, skipping) = (drive(false), drive(true));
        assert!(every.len() > 200, "seed {seed}: {} frames", every.len());
        assert!(
            every.iter().any(|d| d.3),
            "seed {seed}: no collision to compare"
        );
        assert_eq!(every, skipping, "seed {seed}");
    }
}

#[test]
fn a_frame_on_an_idle_medium_goes_at_once() {
    let mut m = medium(1, CsmaParams::default(), 1);
    let mut out = vec![];
    enqueue_at(&mut m, 10 * MS, 1, BASE_STATION, 1400);
    run_until(&mut m, Time::MAX, &mut out);
    assert_eq!(
        out,
        vec![(10 * MS + OVERHEAD + 5760 * US, 1, 0, false, false)]
    );
}

#[test]
fn two_stations_whose_backoffs_end_in_the_same_slot_collide() {
    // windows of one slot: every backoff is 0, so the two deferring stations meet
    let c = CsmaParams {
        cw_min: 1,
        cw_max: 1,
        post_tx_window: 1,
        ..CsmaParams::default()
    };
    let overhead = 1068 * US; // nothing comes off for the post-transmission wait
    let mut m = medium(2, c, 1);
    let mut out = vec![];
    enqueue_at(&mut m, 0, BASE_STATION, 1, 1400);
    let end = overhead + 5760 * US;
    run_until(&mut m, MS, &mut out);
    // both get a frame while the base station's is on the air: both defer
    enqueue_at(&mut m, MS, 1, BASE_STATION, 0);
    enqueue_at(&mut m, MS, 2, BASE_STATION, 1400);
    run_until(&mut m, Time::MAX, &mut out);
    let start = end + IFS;
    assert_eq!(
        out,
        vec![
            (end, 0, 1, false, false),
            // both sent whole, both destroyed, each ends after its own airtime
            (start + overhead + 160 * US, 1, 0, true, true),
            (start + overhead + 5760 * US, 2, 0, true, true),
        ]
    );
    assert_eq!(m.collisions, 2);
    assert_eq!(m.stations.iter().map(|s| s.frames).sum::<u64>(), 3);
    // the overlap counts once
    assert_eq!(m.busy_time, 2 * (overhead + 5760 * US));
}

#[test]
fn equal_backoff_draws_collide_with_the_default_windows() {
    let mut m = medium(2, CsmaParams::default(), 1);
    m.fix_backoff(1, 5);
    m.fix_backoff(2, 5);
    let mut out = vec![];
    enqueue_at(&mut m, 0, BASE_STATION, 1, 1400);
    enqueue_at(&mut m, MS, 1, BASE_STATION, 1400);
    enqueue_at(&mut m, MS, 2, BASE_STATION, 1400);
    run_until(&mut m, Time::MAX, &mut out);
    let end = OVERHEAD + 5760 * US;
    let second = end + IFS + 5 * SLOT + OVERHEAD + 5760 * US;
    assert_eq!(
        out,
        vec![
            (end, 0, 1, false, false),
            (second, 1, 0, true, true),
            (second, 2, 0, true, true)
        ]
    );
    assert_eq!(m.collisions, 2);
}

#[test]
fn carrier_sense_defers_until_the_end_plus_ifs_plus_a_backoff() {
    for seed in 1..=40 {
        let mut m = medium(2, CsmaParams::default(), seed);
        let mut out = vec![];
        enqueue_at(&mut m, 0, 1, BASE_STATION, 1400);
        run_until(&mut m, MS, &mut out);
        assert!(m.is_busy());
        enqueue_at(&mut m, MS, 2, BASE_STATION, 1400);
        run_until(&mut m, Time::MAX, &mut out);
        let end = OVERHEAD + 5760 * US;
        assert_eq!(out[0], (end, 1, 0, false, false));
        assert_eq!((out[1].1, out[1].3), (2, false));
        let start = out[1].0 - (OVERHEAD + 5760 * US);
        let waited = start - end - IFS;
        assert!(start >= end + IFS, "seed {seed}: sent before the IFS ended");
        assert_eq!(waited % SLOT, 0, "seed {seed}: not on a slot boundary");
        assert!(waited / SLOT < 32, "seed {seed}: backoff beyond the window");
    }
}

#[test]
fn a_frame_just_after_the_medium_goes_idle_waits_the_ifs() {
    let mut m = medium(2, CsmaParams::default(), 1);
    let mut out = vec![];
    enqueue_at(&mut m, 0, 1, BASE_STATION, 1400);
    let end = OVERHEAD + 5760 * US;
    run_until(&mut m, end, &mut out);
    enqueue_at(&mut m, end + 5 * US, 2, BASE_STATION, 0);
    run_until(&mut m, Time::MAX, &mut out);
    assert_eq!(
        out[1],
        (end + IFS + OVERHEAD + 160 * US, 2, 0, false, false)
    );
}

#[test]
fn a_busy_medium_at_the_end_of_a_backoff_doubles_the_window() {
    let mut m = medium(2, CsmaParams::default(), 1);
    // (the window is read at the instant the backoff ends: the medium wakes up for it)
    m.wake_for_every_wait();
    m.fix_backoff(1, 3);
    m.fix_backoff(2, 4);
    let mut out = vec![];
    enqueue_at(&mut m, 0, BASE_STATION, 1, 1400);
    enqueue_at(&mut m, MS, 1, BASE_STATION, 1400);
    enqueue_at(&mut m, MS, 2, BASE_STATION, 1400);
    assert_eq!(m.contention(2), Some((32, 1)));
    let air = OVERHEAD + 5760 * US;
    let first = air;
    // station 1's backoff ends a slot before station 2's: station 2 hears it and fails
    run_until(&mut m, first + IFS + 4 * SLOT, &mut out);
    assert_eq!(m.contention(2), Some((64, 2)));
    run_until(&mut m, Time::MAX, &mut out);
    let second = first + IFS + 3 * SLOT + air;
    assert_eq!(
        out,
        vec![
            (first, 0, 1, false, false),
            (second, 1, 0, false, false),
            (second + IFS + 4 * SLOT + air, 2, 0, false, false)
        ]
    );
    assert_eq!(m.collisions, 0);
}

#[test]
fn the_window_doubles_up_to_its_maximum_and_the_frame_is_dropped_after_max_attempts() {
    for (hog_frames, dropped) in [(15, false), (16, true)] {
        let mut m = medium(1, CsmaParams::default(), 1);
        // (the windows are read at the instants the backoffs end: the medium wakes up for them)
        m.wake_for_every_wait();
        // the base station sends back to back, station 1's backoff always ends a slot later
        m.fix_backoff(BASE_STATION, 0);
        m.fix_backoff(1, 1);
        let mut out = vec![];
        for _ in 0..hog_frames {
            m.enqueue(BASE_STATION, 1, frame(1400), Priority::Normal);
        }
        m.start(0);
        enqueue_at(&mut m, MS, 1, BASE_STATION, 0);
        let air = OVERHEAD + 5760 * US;
        let mut windows = vec![];
        for k in 1..hog_frames {
            // the base station's (k+1)-th frame is on the air when station 1's backoff ends
            run_until(&mut m, k * air + (k - 1) * IFS + IFS + SLOT, &mut out);
            windows.push(m.contention(1).unwrap());
        }
        run_until(&mut m, Time::MAX, &mut out);
        assert_eq!(
            windows[..5],
            [(64, 2), (128, 3), (256, 4), (256, 5), (256, 6)]
        );
        assert_eq!(m.stations[0].frames, hog_frames);
        assert_eq!(m.stations[1].gave_up, u64::from(dropped));
        assert_eq!(m.stations[1].frames, u64::from(!dropped));
        assert_eq!(out.len() as u64, hog_frames + u64::from(!dropped));
        assert_eq!(m.collisions, 0);
    }
}

#[test]
fn local_retransmissions_still_go_first_at_the_base_station() {
    let mut m = medium(1, CsmaParams::default(), 1);
    m.enqueue(BASE_STATION, 1, frame(1400), Priority::Normal);
    m.enqueue(BASE_STATION, 1, frame(100), Priority::High);
    m.start(0);
    let mut lens = vec![];
    while let Some(t) = m.poll_timeout() {
        m.on_timeout(t);
        while let Some(tx) = m.poll_done() {
            lens.push(tx.frame.seg.len);
        }
        m.start(t);
    }
    assert_eq!(lens, vec![100, 1400]);
}

#[test]
fn backoff_spreads_the_transmissions_of_two_saturated_stations() {
    let n = 1000; // a full queue each
    let (mut collided, mut frames, mut dropped) = (0, 0, 0);
    for seed in 1..=5 {
        let mut m = medium(2, CsmaParams::default(), seed);
        for _ in 0..n {
            m.enqueue(1, BASE_STATION, frame(1400), Priority::Normal);
            m.enqueue(2, BASE_STATION, frame(1400), Priority::Normal);
        }
        let mut out = vec![];
        m.start(0);
        run_until(&mut m, Time::MAX, &mut out);
        assert_eq!(
            out.len() as u64,
            m.stations.iter().map(|s| s.frames).sum::<u64>()
        );
        let gave_up: u64 = m.stations.iter().map(|s| s.gave_up).sum();
        assert_eq!(out.len() as u64 + gave_up, 2 * n);
        assert_eq!(
            m.collisions,
            out.iter().filter(|d| d.3).count() as u64,
            "collided frames are the ones counted"
        );
        // both get the medium: neither sends more than 60% of the frames
        for s in [1, 2] {
            let share = m.stations[s].frames as f64 / out.len() as f64;
            assert!((0.4..=0.6).contains(&share), "seed {seed}: share {share}");
        }
        collided += m.collisions;
        frames += out.len() as u64;
        dropped += gave_up;
    }
    let rate = collided as f64 / frames as f64;
    let drop_rate = dropped as f64 / (2 * 5 * n) as f64;
    eprintln!(
        "two saturated stations: {collided} of {frames} frames collided ({rate:.4}), \
         {dropped} dropped ({drop_rate:.4})"
    );
    // a round collides only if the deferring station's backoff ends in the slot the sender's
    // post-transmission wait ends: 1 in 32 rounds at the first window, fewer later
    assert!(collided > 0);
    assert!(rate < 0.05, "{rate}");
    // the sender waits 0-15 slots, the deferring station 0-31, then 0-63 ... 0-255: the station
    // that just sent usually wins again, and the other gives a frame up after 15 busy
    // attempts now and then (4-5% of the frames; a two-state Markov chain of the rule gives
    // the same)
    assert!(dropped > 0);
    assert!(drop_rate < 0.10, "{drop_rate}");
}

#[test]
fn one_sender_back_to_back_takes_the_calibrated_time_per_frame() {
    let n: u64 = 20_000;
    let per_frame = |model: AccessModel| {
        let mut m: Medium = Medium::new(
            WavelanParams {
                queue_packets: n as usize,
                ..WavelanParams::default()
            },
            model,
            clean(1),
            Rng::new(3, Stream::MediumBackoff),
        );
        for _ in 0..n {
            m.enqueue(BASE_STATION, 1, frame(1400), Priority::Normal);
        }
        let done = run(&mut m, 0);
        assert_eq!(done.len() as u64, n);
        done.last().unwrap().0 as f64 / n as f64
    };
    let turns = per_frame(AccessModel::Turns);
    let csma = per_frame(AccessModel::Csma(CsmaParams::default()));
    assert_eq!(turns, (1084 * US + 5760 * US) as f64);
    let diff = (csma / turns - 1.0).abs();
    eprintln!("per frame: turns {turns} ns, csma {csma} ns ({diff:.5})");
    assert!(diff < 0.01, "turns {turns} ns, csma {csma} ns");
}

#[test]
fn the_same_seed_gives_the_same_frames() {
    let frames = |seed| {
        let mut m = medium(3, CsmaParams::default(), seed);
        for k in 0..200 {
            m.enqueue(
                k % 4,
                (k + 1) % 4,
                frame(40 + (k as u32 * 97) % 1400),
                Priority::Normal,
            );
        }
        let mut out = vec![];
        m.start(0);
        run_until(&mut m, Time::MAX, &mut out);
        out
    };
    assert_eq!(frames(7), frames(7));
    assert_ne!(frames(7), frames(8));
}

/// A crash empties the base station's queue while its host is still loading the head frame
/// onto the card (paper 001's turnaround): the station goes back to idle, and the medium asks
/// for no time at or before the present (which would make the loop fire again at the same
/// instant for ever).
#[test]
fn a_queue_emptied_while_its_frame_loads_leaves_no_timer_in_the_past() {
    let c = CsmaParams {
        load_ns_per_byte: 1023,
        ..CsmaParams::default()
    };
    let mut m = medium(1, c, 1);
    enqueue_at(&mut m, 0, BASE_STATION, 1, 1400);
    let loading = m.poll_timeout().expect("the frame is loading");
    assert!(loading > 0);
    assert_eq!(m.clear_queue(BASE_STATION), 1);
    let mut now = 0;
    for _ in 0..10 {
        m.start(now);
        match m.poll_timeout() {
            None => break,
            Some(t) => {
                assert!(
                    t > now,
                    "asks for {t} at {now} (the load ended at {loading})"
                );
                now = t;
                m.on_timeout(now);
            }
        }
    }
    // then the medium works as before: a new frame goes out
    let mut out = vec![];
    enqueue_at(&mut m, now, BASE_STATION, 1, 1400);
    run_until(&mut m, now + 100 * MS, &mut out);
    assert_eq!(out.len(), 1, "{out:?}");
}

/// The same while the base station defers to another station's frame or waits out its
/// backoff: emptied, it sends nothing, and time moves on.
#[test]
fn a_queue_emptied_while_its_station_waits_sends_nothing_and_time_moves_on() {
    for clear_after in [0, 500 * US, 1100 * US, 1200 * US] {
        let mut m = medium(1, CsmaParams::default(), 2);
        enqueue_at(&mut m, 0, 1, BASE_STATION, 1400);
        enqueue_at(&mut m, 0, BASE_STATION, 1, 1400);
        let mut out = vec![];
        run_until(&mut m, clear_after, &mut out);
        // a frame already on the air when the queue empties still ends
        let on_air = m.frames_on_air().count();
        m.clear_queue(BASE_STATION);
        m.start(clear_after);
        let (mut now, mut same) = (clear_after, 0);
        for _ in 0..1000 {
            let Some(t) = m.poll_timeout() else { break };
            same = if t <= now { same + 1 } else { 0 };
            assert!(same < 3, "stuck at {t} (cleared at {clear_after})");
            now = now.max(t);
            m.on_timeout(now);
            while let Some(tx) = m.poll_done() {
                out.push((now, tx.from, tx.to, tx.collided, tx.frame.corrupted));
            }
            m.start(now);
        }
        assert!(m.poll_timeout().is_none(), "cleared at {clear_after}");
        let from_bs = out.iter().filter(|d| d.1 == BASE_STATION).count();
        assert!(
            from_bs <= on_air.min(1),
            "cleared at {clear_after}, {on_air} on the air: {out:?}"
        );
    }
}

/// The channel-delay rule of the Daedalus group's ns-2 WaveLAN (`channel.cc`): a station whose
/// wait ends within the sense delay of another's start does not hear it, sends, and both
/// collide; one whose wait ends after the delay hears it and defers. With no delay (the
/// default) the second station, 2 us late, hears the first.
#[test]
fn a_station_that_starts_within_the_sense_delay_of_another_collides_with_it() {
    let frames = |sense_delay: Time, late: Time| {
        let c = CsmaParams {
            sense_delay,
            ..CsmaParams::default()
        };
        let mut m = medium(2, c, 1);
        let mut out = vec![];
        // an idle medium: each fresh frame goes at once, the second `late` after the first
        enqueue_at(&mut m, MS, 1, BASE_STATION, 1400);
        run_until(&mut m, MS + late, &mut out);
        enqueue_at(&mut m, MS + late, 2, BASE_STATION, 1400);
        run_until(&mut m, Time::MAX, &mut out);
        (out, m.collisions)
    };
    let end = MS + OVERHEAD + 5760 * US;
    // 2 us late, within ns-2's 4 us: both on the air, both destroyed
    let (out, collisions) = frames(4 * US, 2 * US);
    assert_eq!(collisions, 2, "{out:?}");
    assert_eq!(out[0], (end, 1, 0, true, true));
    assert_eq!(out[1], (end + 2 * US, 2, 0, true, true));
    // at exactly the delay it is not yet heard either; 1 ns after, it is
    assert_eq!(frames(4 * US, 4 * US).1, 2);
    let (out, collisions) = frames(4 * US, 4 * US + 1);
    assert_eq!(collisions, 0, "{out:?}");
    assert_eq!(out[0], (end, 1, 0, false, false));
    assert!(out[1].0 > end + IFS, "the second deferred: {out:?}");
    // with no delay the one 2 us late hears the first and defers
    let (out, collisions) = frames(0, 2 * US);
    assert_eq!(collisions, 0, "{out:?}");
    assert!(!out[1].3 && out[1].0 > end + IFS, "{out:?}");
}
