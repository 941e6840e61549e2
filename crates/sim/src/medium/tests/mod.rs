//! Scripted tests of the shared medium.

use super::*;
use crate::channel::{Channel, ChannelSpec};
use crate::rng::{ChannelStreams, Rng, Stream};
use snooplab_proto::time::{MS, US};
use snooplab_proto::{Flags, Segment};

fn frame(len: u32) -> SimPacket {
    let seg = Segment {
        flags: Flags::ACK,
        len,
        ..crate::packet::test_segment()
    };
    SimPacket::new(seg, None)
}

fn clean(n: usize) -> Vec<(Channel, Channel)> {
    (0..n)
        .map(|_| {
            let c = Channel::new(&ChannelSpec::None, ChannelStreams::down(1, 0));
            (c.clone(), c)
        })
        .collect()
}

fn backoff() -> Rng {
    Rng::new(1, Stream::MediumBackoff)
}

fn turns(mobiles: usize) -> Medium {
    Medium::new(
        WavelanParams::default(),
        AccessModel::Turns,
        clean(mobiles),
        backoff(),
    )
}

/// Runs the medium until nothing is left; returns (end time, from, to) of each frame.
fn run(m: &mut Medium, mut now: Time) -> Vec<(Time, StationId, StationId)> {
    let mut out = vec![];
    m.start(now);
    while let Some(t) = m.poll_timeout() {
        now = t;
        m.on_timeout(now);
        while let Some(tx) = m.poll_done() {
            out.push((now, tx.from, tx.to));
        }
        m.start(now);
    }
    out
}

#[test]
fn a_frame_takes_its_overhead_plus_its_bits() {
    let mut m = turns(1);
    m.enqueue(BASE_STATION, 1, frame(1400), Priority::Normal);
    let done = run(&mut m, 10 * MS);
    // 1084 us + 1440 bytes at 2 Mb/s (5760 us)
    assert_eq!(done, vec![(10 * MS + 1084 * US + 5760 * US, 0, 1)]);
    assert_eq!(m.busy_time, 1084 * US + 5760 * US);
}

#[test]
fn base_station_and_mobile_take_turns() {
    let mut m = turns(1);
    for _ in 0..2 {
        m.enqueue(BASE_STATION, 1, frame(1400), Priority::Normal);
        m.enqueue(1, BASE_STATION, frame(0), Priority::Normal);
    }
    let order: Vec<StationId> = run(&mut m, 0).iter().map(|d| d.1).collect();
    assert_eq!(
        order,
        vec![0, 1, 0, 1],
        "the base station first, then alternately"
    );
}

#[test]
fn every_station_with_frames_gets_a_turn_round_robin() {
    let mut m = turns(3);
    for s in [3, 1, 2, 0, 1, 1] {
        let to = if s == 0 { 2 } else { BASE_STATION };
        m.enqueue(s, to, frame(100), Priority::Normal);
    }
    let order: Vec<StationId> = run(&mut m, 0).iter().map(|d| d.1).collect();
    assert_eq!(order, vec![0, 1, 2, 3, 1, 1]);
}

#[test]
fn local_retransmissions_go_first_at_the_base_station() {
    let mut m = turns(1);
    m.enqueue(BASE_STATION, 1, frame(1400), Priority::Normal);
    m.enqueue(BASE_STATION, 1, frame(100), Priority::High);
    let lens: Vec<u32> = {
        m.start(0);
        let mut v = vec![];
        while let Some(t) = m.poll_timeout() {
            m.on_timeout(t);
            while let Some(tx) = m.poll_done() {
                v.push(tx.frame.seg.len);
            }
            m.start(t);
        }
        v
    };
    assert_eq!(lens, vec![100, 1400]);
}

#[test]
fn a_full_queue_drops() {
    let mut m = Medium::new(
        WavelanParams {
            queue_packets: 2,
            ..WavelanParams::default()
        },
        AccessModel::Turns,
        clean(1),
        backoff(),
    );
    let kept = (0..3)
        .filter(|_| m.enqueue(1, BASE_STATION, frame(10), Priority::Normal))
        .count();
    assert_eq!(kept, 2);
    assert_eq!(m.stations[1].drops, 1);
}

#[test]
fn each_direction_of_each_station_has_its_own_channel() {
    let chans = vec![
        (
            Channel::new(&ChannelSpec::every(512, 1000), ChannelStreams::down(1, 0)),
            Channel::new(&ChannelSpec::None, ChannelStreams::up(1, 0)),
        ),
        (
            Channel::new(&ChannelSpec::None, ChannelStreams::down(2, 0)),
            Channel::new(&ChannelSpec::None, ChannelStreams::up(2, 0)),
        ),
    ];
    let mut m: Medium = Medium::new(
        WavelanParams::default(),
        AccessModel::Turns,
        chans,
        backoff(),
    );
    m.enqueue(BASE_STATION, 1, frame(1400), Priority::Normal);
    m.enqueue(BASE_STATION, 2, frame(1400), Priority::Normal);
    m.enqueue(1, BASE_STATION, frame(1400), Priority::Normal);
    m.start(0);
    let mut seen = vec![];
    while let Some(t) = m.poll_timeout() {
        m.on_timeout(t);
        while let Some(tx) = m.poll_done() {
            seen.push((tx.from, tx.to, tx.frame.corrupted));
        }
        m.start(t);
    }
    seen.sort();
    // a burst of 1000 frames every 512 bytes on the way down to station 1 only
    assert_eq!(seen, vec![(0, 1, true), (0, 2, false), (1, 0, false)]);
    assert_eq!(m.channel(0, 1).corrupted, 1);
}

/// The CSMA/CA access model (`csma.rs`).
mod csma;
mod foresight;
mod full_duplex;

#[test]
fn dropping_a_stations_frames_for_one_mobile_host_keeps_the_others_in_order() {
    // paper 002's old primary under `OldPrimaryQueue::Dropped`: the frames for the mobile host that
    // asked it to buffer leave both queues; the frames for its other station go on, in order
    let mut m = turns(2);
    for (to, len, prio) in [
        (1, 100, Priority::Normal),
        (2, 200, Priority::Normal),
        (1, 300, Priority::High),
        (1, 400, Priority::Normal),
        (2, 500, Priority::Normal),
    ] {
        assert!(m.enqueue(BASE_STATION, to, frame(len), prio));
    }
    let gone: Vec<u32> = m
        .drop_queued_for(BASE_STATION, 1)
        .iter()
        .map(|f| f.seg.len)
        .collect();
    assert_eq!(gone, vec![300, 100, 400]);
    assert_eq!(m.stations[BASE_STATION].drops, 3);
    assert_eq!(m.queued(), vec![2, 0, 0]);
    let left: Vec<_> = run(&mut m, 0)
        .iter()
        .map(|&(_, from, to)| (from, to))
        .collect();
    assert_eq!(left, vec![(BASE_STATION, 2), (BASE_STATION, 2)]);
    assert!(m.drop_queued_for(BASE_STATION, 1).is_empty());
    assert!(m.drop_queued_for(7, 1).is_empty());
}
