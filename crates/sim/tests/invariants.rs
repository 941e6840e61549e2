//! The run-time checks catch a faulty base station (docs/architecture.md#rules).

use snooplab_proto::agent::{Agent, Counters, Origin, Port, Priority, Transmit};
use snooplab_proto::{Flags, Time};
use snooplab_sim::packet::SimPacket;
use snooplab_sim::{Env, Protocol, Scenario, Simulation};

/// Forwards like a router, except for what `fault` decides. (`Clone`, as every agent is: a run
/// is a value that can be copied.)
#[derive(Clone)]
struct Faulty<F: FnMut(Port, &SimPacket) -> Vec<Transmit<SimPacket>>> {
    fault: F,
    out: std::collections::VecDeque<Transmit<SimPacket>>,
}

impl<F: FnMut(Port, &SimPacket) -> Vec<Transmit<SimPacket>> + Clone + 'static> Agent<SimPacket>
    for Faulty<F>
{
    fn on_packet(&mut self, _now: Time, from: Port, p: SimPacket) {
        let out = (self.fault)(from, &p);
        self.out.extend(out);
    }
    fn on_timeout(&mut self, _now: Time) {}
    fn poll_transmit(&mut self, _now: Time) -> Option<Transmit<SimPacket>> {
        self.out.pop_front()
    }
    fn poll_timeout(&self) -> Option<Time> {
        None
    }
    fn counters(&self) -> Counters {
        Counters::default()
    }
}

fn forward(from: Port, p: &SimPacket) -> Transmit<SimPacket> {
    Transmit::forward(from.opposite(), p.clone())
}

fn scenario() -> Scenario {
    let mut sc = Scenario::paper000(Protocol::E2e, Env::Lan, 32768, 3);
    sc.transfer = 200_000;
    sc.error_every = 0;
    sc
}

#[test]
fn honest_router_passes_every_check() {
    let r = snooplab_sim::run(&scenario());
    assert!(r.invariants.ok(), "{}", r.invariants.summary());
    assert_eq!(r.invariants.summary(), "ok");
}

#[test]
fn dropping_a_segment_for_good_is_reported_incomplete() {
    // Every copy of the segment carrying byte offset 100000 is dropped.
    let agent = Faulty {
        fault: |from: Port, p: &SimPacket| {
            if from == Port::Wired && p.seg.len > 0 && covers(p, 100_000) {
                vec![]
            } else {
                vec![forward(from, p)]
            }
        },
        out: Default::default(),
    };
    let mut sc = scenario();
    sc.max_time = 2000 * snooplab_proto::time::SEC;
    let r = Simulation::with_agent(&sc, Box::new(agent)).run();
    assert!(!r.invariants.complete);
    assert!(!r.invariants.ok());
    assert!(r.invariants.summary().contains("incomplete"));
    assert!(
        r.invariants.messages.iter().any(|m| m.contains("gave up")),
        "{:?}",
        r.invariants.messages
    );
    assert_eq!(
        r.flow().throughput_mbps,
        0.0,
        "no throughput is claimed for an incomplete transfer"
    );
}

/// Does this data packet carry the byte at `offset` of the transfer? The first data byte follows the
/// SYN, so the fixed host's ISS is recovered from the first data packet the agent sees.
fn covers(p: &SimPacket, offset: u32) -> bool {
    thread_local! { static ISS: std::cell::Cell<Option<u32>> = const { std::cell::Cell::new(None) }; }
    let start = ISS.with(|c| {
        if c.get().is_none() {
            c.set(Some(p.seg.seq.0)); // the first data segment starts at offset 0
        }
        c.get().unwrap_or(0)
    });
    let off = p.seg.seq.0.wrapping_sub(start);
    off <= offset && offset < off + p.seg.len
}

#[test]
fn forging_an_ack_is_an_ack_semantics_violation() {
    // The base station acknowledges every data segment to the fixed host itself, before the mobile
    // host has it, and keeps the mobile host's own ACKs to itself.
    let agent = Faulty {
        fault: |from: Port, p: &SimPacket| {
            let s = p.seg;
            match from {
                Port::Wired if s.len > 0 => {
                    let mut ack = p.clone();
                    ack.seg.src = s.dst;
                    ack.seg.dst = s.src;
                    ack.seg.seq = s.ack;
                    ack.seg.ack = s.seq + s.len;
                    ack.seg.flags = Flags::ACK;
                    ack.seg.len = 0;
                    ack.payload_tag = None;
                    vec![
                        forward(from, p),
                        Transmit {
                            port: Port::Wired,
                            packet: ack,
                            priority: Priority::Normal,
                            origin: Origin::GeneratedAck,
                        },
                    ]
                }
                Port::Wireless if s.len == 0 && !s.is_syn() && !s.is_fin() => vec![],
                _ => vec![forward(from, p)],
            }
        },
        out: Default::default(),
    };
    let r = Simulation::with_agent(&scenario(), Box::new(agent)).run();
    assert!(r.invariants.ack_semantics_violations > 0);
    assert!(!r.invariants.ok());
    assert!(r.invariants.summary().contains("ACK-semantics"));
}

#[test]
fn altering_payload_is_caught() {
    let agent = Faulty {
        fault: |from: Port, p: &SimPacket| {
            let mut q = p.clone();
            if from == Port::Wired && q.seg.len > 0 {
                q.payload_tag = q
                    .payload_tag
                    .and_then(|t| std::num::NonZeroU64::new(t.get() ^ 2));
            }
            vec![forward(from, &q)]
        },
        out: Default::default(),
    };
    let r = Simulation::with_agent(&scenario(), Box::new(agent)).run();
    assert!(r.invariants.payload_mismatches > 0);
    assert!(!r.invariants.ok());
}
