//! Scripted tests of the ELN marker (paper 004 section 3.3): holes, marking, cleaning, the queue
//! rule.

use super::*;
use crate::segment::Endpoint;
use crate::segment::{Flags, QueueReport};
use crate::test_support::{Pkt, FH, MH};

const MSS: u32 = 1000;
const ISS: u32 = 500;

use crate::test_support::segment as seg;

/// Data segment `i` (0-based) from the mobile host.
fn data(i: u32) -> Pkt {
    Pkt(Some(seg(MH, FH, ISS + 1 + i * MSS, 1, Flags::ACK, MSS)))
}

/// The same, with the mobile host's output queue piggybacked.
fn data_with_queue(i: u32, len: usize, max: usize) -> Pkt {
    let mut p = data(i);
    if let Some(s) = p.0.as_mut() {
        s.queue = Some(QueueReport::new(len, max));
    }
    p
}

/// The fixed host's ACK for the first `n` segments.
fn ack(n: u32) -> Pkt {
    Pkt(Some(seg(FH, MH, 1, ISS + 1 + n * MSS, Flags::ACK, 0)))
}

fn syn() -> Pkt {
    Pkt(Some(seg(MH, FH, ISS, 0, Flags::SYN, 0)))
}

fn agent() -> ElnAgent<Pkt> {
    ElnAgent::new(ElnConfig::paper004())
}

/// Sends `p` through and returns what came out, with its port.
fn through(a: &mut ElnAgent<Pkt>, from: Port, p: Pkt) -> Vec<(Port, Segment)> {
    a.on_packet(0, from, p);
    std::iter::from_fn(|| a.poll_transmit(0))
        .filter_map(|t| t.packet.0.map(|s| (t.port, s)))
        .collect()
}

fn marked(a: &mut ElnAgent<Pkt>, n: u32) -> bool {
    let out = through(a, Port::Wired, ack(n));
    assert_eq!(out.len(), 1, "every ACK is forwarded");
    assert_eq!(out[0].0, Port::Wireless);
    out[0].1.eln
}

#[test]
fn data_passes_untouched_and_an_ack_for_a_hole_is_marked() {
    let mut a = agent();
    through(&mut a, Port::Wireless, syn());
    for i in [0, 1, 3, 4] {
        let out = through(&mut a, Port::Wireless, data(i));
        assert_eq!(out, vec![(Port::Wired, data(i).0.unwrap_or_default())]);
    }
    assert_eq!(a.stats().holes, 1);
    assert!(!marked(&mut a, 1), "segment 1 arrived: no mark");
    assert!(
        marked(&mut a, 2),
        "the receiver asks for segment 2, a wireless hole"
    );
    assert!(marked(&mut a, 2), "each duplicate for it is marked");
    assert_eq!(a.stats().eln_marked_acks, 2);
    // the mobile host resends segment 2: the hole is filled, the new ACK is not marked
    through(&mut a, Port::Wireless, data(2));
    assert!(!marked(&mut a, 5));
    assert_eq!(a.stats().forwarded, 1 + 5 + 4);
}

#[test]
fn a_new_ack_is_marked_when_the_next_segment_is_a_hole() {
    let mut a = agent();
    through(&mut a, Port::Wireless, syn());
    for i in [0, 1, 2, 4, 6] {
        through(&mut a, Port::Wireless, data(i));
    }
    assert!(!marked(&mut a, 1));
    assert!(
        marked(&mut a, 3),
        "a new ACK (1 -> 3) that asks for the lost segment 3 is marked"
    );
    through(&mut a, Port::Wireless, data(3));
    assert!(
        marked(&mut a, 5),
        "cleaned to 5, segment 5 is the next hole"
    );
    through(&mut a, Port::Wireless, data(5));
    assert!(!marked(&mut a, 7));
}

#[test]
fn the_first_lost_segment_is_a_hole_because_the_syn_starts_the_blocks() {
    let mut a = agent();
    through(&mut a, Port::Wireless, syn());
    through(&mut a, Port::Wireless, data(1));
    assert!(marked(&mut a, 0), "segment 0 never arrived");
}

#[test]
fn no_blocks_no_mark() {
    let mut a = agent();
    assert!(!marked(&mut a, 3), "a connection never seen");
    through(&mut a, Port::Wireless, data(0));
    assert!(!marked(&mut a, 1), "everything seen is acknowledged");
    assert!(!marked(&mut a, 1));
}

#[test]
fn a_gap_while_the_mobile_hosts_queue_is_above_75_percent_is_not_a_wireless_hole() {
    let mut a = agent();
    through(&mut a, Port::Wireless, syn());
    through(&mut a, Port::Wireless, data_with_queue(0, 10, 50));
    through(&mut a, Port::Wireless, data_with_queue(2, 38, 50)); // 76% full: congestion
    assert_eq!(a.stats().holes, 0);
    assert_eq!(a.stats().congestion_gaps, 1);
    assert!(
        !marked(&mut a, 1),
        "the loss may be congestion: Reno handles it"
    );
    // at exactly 75% the gap is a wireless hole
    through(&mut a, Port::Wireless, data_with_queue(4, 3, 4));
    assert_eq!(a.stats().holes, 1);
    assert!(marked(&mut a, 3));
}

#[test]
fn a_gap_while_the_base_stations_input_queue_is_above_75_percent_is_not_a_wireless_hole() {
    let mut a = agent();
    through(&mut a, Port::Wireless, syn());
    through(&mut a, Port::Wireless, data(0));
    QueueReader::<Pkt>::on_input_queue(&mut a, 40, 50);
    through(&mut a, Port::Wireless, data(2));
    assert_eq!(a.stats().congestion_gaps, 1);
    assert!(!marked(&mut a, 1));
    QueueReader::<Pkt>::on_input_queue(&mut a, 37, 50);
    through(&mut a, Port::Wireless, data(4));
    assert_eq!(a.stats().holes, 1);
    assert!(marked(&mut a, 3));
}

#[test]
fn connections_are_kept_apart() {
    let mut a = agent();
    let other = Endpoint {
        port: MH.port + 1,
        ..MH
    };
    through(&mut a, Port::Wireless, syn());
    through(&mut a, Port::Wireless, data(0));
    through(&mut a, Port::Wireless, data(2));
    let mut p = seg(other, FH, ISS + 1, 1, Flags::ACK, MSS);
    through(&mut a, Port::Wireless, Pkt(Some(p)));
    p = seg(FH, other, 1, ISS + 1 + MSS, Flags::ACK, 0);
    let out = through(&mut a, Port::Wired, Pkt(Some(p)));
    assert!(!out[0].1.eln, "the other connection has no hole");
    assert!(marked(&mut a, 1));
}

#[test]
fn data_towards_the_mobile_host_is_not_tracked() {
    let mut a = agent();
    for i in [0, 2] {
        let p = Pkt(Some(seg(FH, MH, ISS + 1 + i * MSS, 1, Flags::ACK, MSS)));
        through(&mut a, Port::Wired, p);
    }
    assert_eq!(a.stats().holes, 0);
    let back = Pkt(Some(seg(MH, FH, 1, ISS + 1 + MSS, Flags::ACK, 0)));
    let out = through(&mut a, Port::Wireless, back);
    assert!(!out[0].1.eln);
}
