//! Scripted tests of the CSMA rule's foreseen outcomes (`csma/foresight.rs`).

use super::csma::medium;
use super::*;

/// Foreseen outcomes (`csma/foresight.rs`) change nothing but the instants the medium wakes up
/// for: four stations, bursts of frames at random times (contention, failed backoffs, frames
/// dropped after too many attempts, collisions), a host that loads its frames, a sense delay,
/// and queues emptied at random (a crashed base station): the frames that leave the air, the
/// frames dropped and every counter are the same, at the same times, with and without.
#[test]
fn foreseeing_the_outcome_of_a_wait_on_a_busy_medium_changes_nothing() {
    let kinds = [
        CsmaParams::default(),
        CsmaParams {
            load_ns_per_byte: 1023,
            ..CsmaParams::default()
        },
        CsmaParams {
            load_ns_per_byte: 1023,
            sense_delay: 4 * US,
            max_attempts: 3,
            ..CsmaParams::default()
        },
    ];
    let (mut woke, mut foreseen, mut dropped) = (0, 0, 0);
    for (k, c) in kinds.iter().enumerate() {
        for seed in 1..=12 {
            let mut draw = Rng::new(seed, Stream::ErrorsUp);
            // (time, station, frames; 0 frames: the station's queue is emptied)
            let mut arrivals: Vec<(Time, StationId, u64)> = (0..200)
                .map(|_| {
                    let burst = draw.below(6);
                    (draw.below(2000 * MS), draw.below(4) as StationId, burst)
                })
                .collect();
            arrivals.sort_unstable();
            let drive = |foresee: bool| {
                let mut m = medium(3, c.clone(), seed);
                if !foresee {
                    m.wake_for_every_wait();
                }
                let (mut a, mut out, mut gave_up, mut wakes) = (0, vec![], vec![], 0);
                loop {
                    let next = [m.poll_timeout(), arrivals.get(a).map(|x| x.0)]
                        .into_iter()
                        .flatten()
                        .min();
                    let Some(t) = next else { break };
                    if m.poll_timeout() == Some(t) {
                        wakes += 1;
                        m.on_timeout(t);
                    } else {
                        let (_, from, n) = arrivals[a];
                        let to = if from == BASE_STATION {
                            1
                        } else {
                            BASE_STATION
                        };
                        if n == 0 {
                            m.clear_queue(from);
                        }
                        for _ in 0..n {
                            m.enqueue(from, to, frame(1400), Priority::Normal);
                        }
                        a += 1;
                    }
                    while let Some(tx) = m.poll_done() {
                        out.push((t, tx.from, tx.to, tx.collided, tx.frame.corrupted));
                    }
                    while let Some((s, _)) = m.poll_given_up() {
                        gave_up.push((t, s));
                    }
                    m.start(t);
                }
                let counters = (m.stations.clone(), m.collisions, m.busy_time);
                (out, gave_up, counters, wakes)
            };
            let (every, ahead) = (drive(false), drive(true));
            assert!(
                every.0.len() > 200,
                "kind {k} seed {seed}: {} frames",
                every.0.len()
            );
            assert_eq!(every.0, ahead.0, "kind {k} seed {seed}: frames");
            assert_eq!(every.1, ahead.1, "kind {k} seed {seed}: frames dropped");
            assert_eq!(every.2, ahead.2, "kind {k} seed {seed}: counters");
            woke += every.3;
            foreseen += ahead.3;
            dropped += every.1.len();
        }
    }
    // the comparison met failed attempts that dropped frames, and the medium woke up less
    assert!(dropped > 0, "no frame was dropped after too many attempts");
    assert!(
        foreseen < woke,
        "woke up {foreseen} times with foresight, {woke} without"
    );
}
