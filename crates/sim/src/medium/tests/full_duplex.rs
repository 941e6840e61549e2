//! The full-duplex access model (`full_duplex.rs`): every station sends at once, one frame after
//! another from each.

use super::*;

fn duplex(mobiles: usize) -> Medium {
    Medium::new(
        WavelanParams::default(),
        AccessModel::FullDuplex,
        clean(mobiles),
        backoff(),
    )
}

#[test]
fn every_station_sends_at_once_and_its_own_frames_one_after_another() {
    let mut m = duplex(2);
    let air = m.airtime(1440);
    for _ in 0..2 {
        m.enqueue(BASE_STATION, 1, frame(1400), Priority::Normal);
        m.enqueue(1, BASE_STATION, frame(1400), Priority::Normal);
    }
    m.enqueue(2, BASE_STATION, frame(1400), Priority::Normal);
    let done = run(&mut m, 0);
    // each station's first frame ends one airtime in, together (in station order); the base
    // station's and station 1's second ones one airtime later
    assert_eq!(
        done,
        vec![
            (air, 0, 1),
            (air, 1, 0),
            (air, 2, 0),
            (2 * air, 0, 1),
            (2 * air, 1, 0)
        ]
    );
    // under turn taking the same five frames take five airtimes
    let mut t = turns(2);
    for (from, to) in [(0, 1), (1, 0), (0, 1), (1, 0), (2, 0)] {
        t.enqueue(from, to, frame(1400), Priority::Normal);
    }
    assert_eq!(run(&mut t, 0).last().map(|d| d.0), Some(5 * air));
}

#[test]
fn busy_time_counts_overlapping_frames_once() {
    let mut m = duplex(1);
    let (long, short) = (m.airtime(1440), m.airtime(40));
    m.enqueue(BASE_STATION, 1, frame(1400), Priority::Normal);
    m.enqueue(1, BASE_STATION, frame(0), Priority::Normal);
    let done = run(&mut m, 0);
    assert_eq!(done, vec![(short, 1, 0), (long, 0, 1)]);
    assert_eq!(m.busy_time, long);
    assert!(!m.is_busy());
}

#[test]
fn only_turn_taking_and_csma_picks_wait_for_an_answer() {
    assert!(!duplex(1).waits_for_answers());
    assert!(turns(1).waits_for_answers());
    assert_eq!(AccessModel::FullDuplex.name(), "full-duplex");
    // the access model says so before a medium is built (the live mode steers a host's input by
    // it), and every medium agrees with its model
    for access in [
        AccessModel::Turns,
        AccessModel::Csma(CsmaParams::default()),
        AccessModel::FullDuplex,
    ] {
        let m: Medium = Medium::new(
            WavelanParams::default(),
            access.clone(),
            clean(1),
            backoff(),
        );
        assert_eq!(
            m.waits_for_answers(),
            access.waits_for_answers(),
            "{access:?}"
        );
    }
}

#[test]
fn a_frame_queued_while_its_station_sends_waits_for_that_frame() {
    let mut m = duplex(1);
    let air = m.airtime(1440);
    m.enqueue(BASE_STATION, 1, frame(1400), Priority::Normal);
    m.start(0);
    assert!(m.is_busy());
    // queued mid-frame: the transmitter is taken, nothing more starts
    m.enqueue(BASE_STATION, 1, frame(1400), Priority::Normal);
    m.start(air / 2);
    assert_eq!(m.frames_on_air().count(), 1);
    assert_eq!(m.poll_timeout(), Some(air));
    m.on_timeout(air);
    assert!(m.poll_done().is_some());
    // the transmitter is free: the waiting frame goes at once
    m.start(air);
    assert_eq!(m.poll_timeout(), Some(2 * air));
}
