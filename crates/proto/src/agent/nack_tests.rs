//! Scripted tests of the NACK generator (paper 002 section 3.2): when NACKs go out and what they
//! say.

use super::*;
use crate::segment::Flags;
use crate::test_support::{Pkt, FH, MH};

const MSS: u32 = 1000;
const ISS: u32 = 500;

use crate::test_support::segment as seg;

fn at(i: u32) -> Seq {
    Seq(ISS + 1 + i * MSS)
}

fn data(i: u32) -> Pkt {
    Pkt(Some(seg(MH, FH, at(i).0, 1, Flags::ACK, MSS)))
}

fn ack(n: u32) -> Pkt {
    Pkt(Some(seg(FH, MH, 1, at(n).0, Flags::ACK, 0)))
}

fn agent() -> NackAgent<Pkt> {
    NackAgent::new(NackConfig::paper002())
}

/// What the agent sends after `p` arrives on `from`: (port, segment, generated?).
fn through(a: &mut NackAgent<Pkt>, now: Time, from: Port, p: Pkt) -> Vec<(Port, Segment, bool)> {
    a.on_packet(now, from, p);
    drain(a, now)
}

fn drain(a: &mut NackAgent<Pkt>, now: Time) -> Vec<(Port, Segment, bool)> {
    std::iter::from_fn(|| a.poll_transmit(now))
        .filter_map(|t| {
            let generated = t.origin == Origin::GeneratedAck;
            t.packet.0.map(|s| (t.port, s, generated))
        })
        .collect()
}

fn nacks(out: &[(Port, Segment, bool)]) -> Vec<Segment> {
    out.iter().filter(|o| o.2).map(|o| o.1).collect()
}

#[test]
fn nacks_start_once_the_threshold_of_packets_is_above_a_hole() {
    let mut a = agent();
    through(&mut a, 0, Port::Wireless, data(0));
    through(&mut a, 0, Port::Wired, ack(1));
    assert!(nacks(&through(&mut a, 0, Port::Wireless, data(2))).is_empty());
    assert!(nacks(&through(&mut a, 0, Port::Wireless, data(3))).is_empty());
    let out = through(&mut a, 0, Port::Wireless, data(4));
    assert_eq!(out.len(), 2, "the data goes on, and a NACK comes back");
    let n = nacks(&out);
    assert_eq!(n.len(), 1, "3 packets above the hole: the threshold");
    assert_eq!(n[0].src, FH);
    assert_eq!(n[0].dst, MH);
    assert_eq!(n[0].ack, at(1), "the fixed host's last ACK, repeated");
    assert_eq!(n[0].len, 0);
    assert_eq!(n[0].sack.iter().collect::<Vec<_>>(), vec![(at(2), at(5))]);
    assert_eq!(
        nacks(&through(&mut a, 0, Port::Wireless, data(5))).len(),
        1,
        "every packet while the hole stays"
    );
    assert_eq!(a.stats().nacks, 2);
    // the mobile host resends segment 1: no more holes, no more NACKs
    assert!(nacks(&through(&mut a, 0, Port::Wireless, data(1))).is_empty());
    assert!(nacks(&through(&mut a, 0, Port::Wireless, data(6))).is_empty());
}

#[test]
fn the_block_with_the_newest_packet_goes_first() {
    let mut a = agent();
    through(&mut a, 0, Port::Wireless, data(0));
    through(&mut a, 0, Port::Wired, ack(1));
    for i in [2, 3, 4, 6, 7] {
        through(&mut a, 0, Port::Wireless, data(i));
    }
    let n = nacks(&through(&mut a, 0, Port::Wireless, data(3)));
    assert_eq!(
        n[0].sack.iter().collect::<Vec<_>>(),
        vec![(at(2), at(5)), (at(6), at(8))],
        "a repeat of segment 3 puts its block first"
    );
    let n = nacks(&through(&mut a, 0, Port::Wireless, data(8)));
    assert_eq!(
        n[0].sack.iter().collect::<Vec<_>>(),
        vec![(at(6), at(9)), (at(2), at(5))]
    );
}

#[test]
fn an_idle_mobile_host_with_holes_gets_a_nack_per_period_a_few_times() {
    let mut a = agent();
    through(&mut a, 0, Port::Wireless, data(0));
    through(&mut a, 0, Port::Wired, ack(1));
    through(&mut a, 0, Port::Wireless, data(2));
    let due = a.poll_timeout();
    assert_eq!(due, Some(200 * MS), "200 ms with nothing new");
    a.on_timeout(200 * MS);
    let n = nacks(&drain(&mut a, 200 * MS));
    assert_eq!(n.len(), 1, "below the threshold, but idle: a NACK");
    assert_eq!(n[0].sack.iter().collect::<Vec<_>>(), vec![(at(2), at(3))]);
    for k in 2..=3 {
        a.on_timeout(k * 200 * MS);
        assert_eq!(nacks(&drain(&mut a, k * 200 * MS)).len(), 1);
    }
    assert_eq!(a.poll_timeout(), None, "three in a row, then it waits");
}

#[test]
fn no_nack_without_an_ack_to_repeat_or_while_the_queue_is_full() {
    let mut a = agent();
    for i in [0, 2, 3, 4, 5] {
        assert!(nacks(&through(&mut a, 0, Port::Wireless, data(i))).is_empty());
    }
    let mut b = agent();
    through(&mut b, 0, Port::Wireless, data(0));
    through(&mut b, 0, Port::Wired, ack(1));
    QueueReader::<Pkt>::on_input_queue(&mut b, 45, 50);
    through(&mut b, 0, Port::Wireless, data(2));
    QueueReader::<Pkt>::on_input_queue(&mut b, 0, 50);
    for i in 3..6 {
        assert!(nacks(&through(&mut b, 0, Port::Wireless, data(i))).is_empty());
    }
    assert_eq!(b.stats().congestion_gaps, 1);
    assert_eq!(b.stats().holes, 0);
}
