//! Departures from the transmit queue through the handoff layer (`base_station.rs`,
//! `QueueReader::on_departure`): what the inner agent sent reaches it, the layer's own ring
//! segments' departures do not, and a packet the layer withholds is reported at once.

use std::cell::RefCell;
use std::rc::Rc;

use super::*;
use crate::agent::{AgentProbe, Counters, Departure, QueueReader, Router};

/// The departures an agent was told of: (segment number, how).
type Seen = Rc<RefCell<Vec<(u32, Departure)>>>;

/// A router that records the departures it is told of.
#[derive(Clone)]
struct Recorder {
    router: Router<P>,
    seen: Seen,
}

impl Agent<P> for Recorder {
    fn on_packet(&mut self, now: Time, from: Port, packet: P) {
        self.router.on_packet(now, from, packet);
    }
    fn on_timeout(&mut self, now: Time) {
        self.router.on_timeout(now);
    }
    fn poll_transmit(&mut self, now: Time) -> Option<Transmit<P>> {
        self.router.poll_transmit(now)
    }
    fn poll_timeout(&self) -> Option<Time> {
        self.router.poll_timeout()
    }
    fn counters(&self) -> Counters {
        self.router.counters()
    }
    fn probe(&self) -> AgentProbe {
        AgentProbe::default()
    }
    fn queue_reader(&mut self) -> Option<&mut dyn QueueReader<P>> {
        Some(self)
    }
}

impl QueueReader<P> for Recorder {
    fn on_departure(&mut self, _now: Time, packet: &P, how: Departure) -> bool {
        if let Some(s) = packet.segment().filter(|s| s.len > 0) {
            self.seen.borrow_mut().push(((s.seq.0 - 1) / 1000 + 1, how));
        }
        true
    }
}

fn recorded(primary: bool) -> (HandoffAgent<P>, Seen) {
    let seen = Rc::new(RefCell::new(Vec::new()));
    let inner = Recorder {
        router: Router::default(),
        seen: Rc::clone(&seen),
    };
    (handoff_bs(BS2, primary, Box::new(inner)), seen)
}

/// Tells `bs` that each packet of `out` went on the air.
fn departed(bs: &mut HandoffAgent<P>, out: &[Transmit<P>]) {
    for t in out {
        bs.on_departure(2 * MS, &t.packet, Departure::OnAir);
    }
}

#[test]
fn what_the_inner_agent_forwarded_reaches_it_when_it_leaves_the_queue() {
    let (mut bs, seen) = recorded(true);
    for i in 1..=3 {
        bs.on_packet(0, Port::Wired, tunnelled(i, BS2));
    }
    let out = drain(&mut bs);
    assert_eq!(data_sent(&out), vec![1, 2, 3]);
    departed(&mut bs, &out);
    assert_eq!(
        *seen.borrow(),
        vec![
            (1, Departure::OnAir),
            (2, Departure::OnAir),
            (3, Departure::OnAir)
        ]
    );
}

#[test]
fn the_rings_segments_depart_unseen_by_the_inner_agent_but_a_later_copy_does_not() {
    let (mut bs, seen) = recorded(false);
    for i in 1..=4 {
        bs.on_packet(0, Port::Wired, tunnelled(i, BS2));
    }
    bs.on_packet(MS, Port::Wireless, forward_request(&[2]));
    let out = drain(&mut bs);
    assert_eq!(data_sent(&out), vec![3, 4], "the ring's rest");
    departed(&mut bs, &out);
    assert!(seen.borrow().is_empty(), "{:?}", seen.borrow());
    // the same segment again, now from the inner agent (the fixed host resent it): its departure
    // is the agent's
    bs.on_packet(3 * MS, Port::Wired, tunnelled(3, BS2));
    let again = drain(&mut bs);
    assert_eq!(data_sent(&again), vec![3]);
    departed(&mut bs, &again);
    assert_eq!(*seen.borrow(), vec![(3, Departure::OnAir)]);
}

#[test]
fn a_packet_withheld_for_a_host_this_base_station_buffers_for_is_reported_at_once() {
    let (mut bs, seen) = recorded(false);
    bs.on_packet(0, Port::Wired, tunnelled(1, BS2)); // joins as buffering
                                                     // a packet the agent forwards to the mobile host while this base station only buffers
    bs.on_packet(MS, Port::Wired, data(7));
    assert!(data_sent(&drain(&mut bs)).is_empty(), "withheld");
    assert_eq!(bs.handoff_stats().withheld, 1);
    assert_eq!(*seen.borrow(), vec![(7, Departure::Withheld)]);
}
