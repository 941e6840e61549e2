//! Scripted test of a split handoff with several mobile hosts (`Scheme::SplitTransfer`,
//! `split_handover.rs`): two split base stations under the handoff layer, three connections from
//! the fixed host to three mobile hosts, and one host's handoff.

use std::collections::{BTreeMap, VecDeque};

use super::{Mobility, P};
use crate::agent::handoff::{HandoffAgent, HandoffConfig, MobilityPacket, Scheme};
use crate::agent::split::{SplitAgent, SplitConfig};
use crate::agent::{Agent, BuildPacket, Handover, Port, SegmentView};
use crate::segment::{Endpoint, Segment};
use crate::tcp::{RecoveryPolicy, Tcp, TcpConfig};
use crate::test_support::{mobile_host, wired_host};
use crate::time::{Time, MS};

const MSS: u32 = 1000;
/// Each way between a host and a base station, so that packets are in flight at a handoff.
const DELAY: Time = 5 * MS;
const BYTES: u64 = 1_000_000;

fn fixed(port: u16) -> Endpoint {
    wired_host(port)
}

fn mobile(k: u32) -> Endpoint {
    mobile_host(k, 5001)
}

fn tcp_packet(seg: &Segment) -> P {
    P::build(seg, &P::control(0, 0, Mobility::Leave { mh: 0 }))
}

/// The mobile host a segment belongs to: its wireless-side end.
fn mobile_of(port: Port, seg: &Segment) -> u32 {
    match port {
        Port::Wired => seg.dst.addr,
        Port::Wireless => seg.src.addr,
    }
}

/// Base stations 0 and 1 (each a split agent under the handoff layer) and the hosts of the
/// connections through them; every packet takes [`DELAY`] between a host and a base station.
struct Cells {
    bss: Vec<HandoffAgent<P>>,
    /// Each host's TCP and the side it is on.
    hosts: Vec<(Port, Tcp)>,
    /// The base station each mobile host's packets go through now, both ways (the home agent's
    /// tunnel and the mobile host's primary).
    via: BTreeMap<u32, usize>,
    /// Packets on their way: when they arrive, at which base station (`None`: at a host), the
    /// port, the packet.
    flight: VecDeque<(Time, Option<usize>, Port, P)>,
    now: Time,
    /// TCP segments each base station sent: (base station, port, segment, when).
    sent: Vec<(usize, Port, Segment, Time)>,
    /// Packets of each mobile host that reached each base station: (base station, mobile host).
    arrived: Vec<(usize, u32, Time)>,
}

impl Cells {
    /// Base station 0 forwards for `on_0`, base station 1 for `on_1`.
    fn new(on_0: &[u32], on_1: &[u32]) -> Cells {
        let bs = |addr: u32, primary: &[u32]| {
            let cfg = HandoffConfig {
                addr,
                home_agent: super::HA,
                ring: 0,
                beacon_interval: None,
                beacon_phase: 0,
                scheme: Scheme::SplitTransfer,
            };
            let split = SplitAgent::new(SplitConfig::paper000(MSS, RecoveryPolicy::RENO));
            HandoffAgent::new(cfg, Box::new(split), primary, &[])
        };
        let via = on_0
            .iter()
            .map(|&m| (m, 0))
            .chain(on_1.iter().map(|&m| (m, 1)))
            .collect();
        Cells {
            bss: vec![bs(super::BS1, on_0), bs(super::BS2, on_1)],
            hosts: vec![],
            via,
            flight: VecDeque::new(),
            now: 0,
            sent: vec![],
            arrived: vec![],
        }
    }

    /// A transfer of [`BYTES`] from the fixed host's `port` to mobile host `to`.
    fn connect(&mut self, port: u16, to: Endpoint) {
        let cfg = TcpConfig::bulk_sender(MSS, 32768, BYTES);
        let fh = Tcp::connect(cfg, fixed(port), to, self.now);
        self.hosts.push((Port::Wired, fh));
        let mh = Tcp::listen(TcpConfig::sink(MSS, 32768), to, fixed(port));
        self.hosts.push((Port::Wireless, mh));
    }

    fn delivered(&self, to: Endpoint) -> u64 {
        self.hosts
            .iter()
            .find(|(side, t)| *side == Port::Wireless && t.local() == to)
            .map_or(0, |(_, t)| t.stats().bytes_delivered)
    }

    /// Puts on the way what the hosts and base station `k` (all of them: `None`) send now.
    fn emit(&mut self, only: Option<usize>) {
        let at = self.now + DELAY;
        for (side, t) in &mut self.hosts {
            while let Some((seg, _)) = t.poll_transmit() {
                // it reaches the base station on the port of the host's side
                let bs = self.via[&mobile_of(*side, &seg)];
                self.flight
                    .push_back((at, Some(bs), *side, tcp_packet(&seg)));
            }
        }
        for k in 0..self.bss.len() {
            if only.is_some_and(|o| o != k) {
                continue;
            }
            while let Some(t) = self.bss[k].poll_transmit(self.now) {
                let Some(seg) = t.packet.segment().copied() else {
                    continue; // a control message
                };
                self.sent.push((k, t.port, seg, self.now));
                // after a hard handoff the mobile host hears its primary only
                if t.port == Port::Wireless && self.via.get(&seg.dst.addr) != Some(&k) {
                    continue;
                }
                self.flight.push_back((at, None, t.port, t.packet));
            }
        }
    }

    /// The next arrival or timer.
    fn next_event(&self) -> Option<Time> {
        let arrival = self.flight.front().map(|f| f.0);
        let hosts = self.hosts.iter().filter_map(|(_, t)| t.poll_timeout());
        let bss = self.bss.iter().filter_map(|b| b.poll_timeout());
        arrival.into_iter().chain(hosts).chain(bss).min()
    }

    /// Runs event by event until `until`.
    fn run(&mut self, until: Time) {
        loop {
            self.emit(None);
            match self.next_event() {
                Some(t) if t <= until => self.now = t.max(self.now),
                _ => {
                    self.now = until;
                    return;
                }
            }
            let now = self.now;
            while self.flight.front().is_some_and(|f| f.0 <= now) {
                let Some((_, to, port, p)) = self.flight.pop_front() else {
                    break;
                };
                let Some(seg) = p.segment().copied() else {
                    continue;
                };
                match to {
                    Some(k) => {
                        self.arrived.push((k, mobile_of(port, &seg), now));
                        self.bss[k].on_packet(now, port, p);
                    }
                    None => {
                        let host = self
                            .hosts
                            .iter_mut()
                            .find(|(side, t)| *side == port && t.local() == seg.dst);
                        if let Some((_, t)) = host {
                            t.on_segment(now, &seg);
                        }
                    }
                }
            }
            for (_, t) in &mut self.hosts {
                if t.poll_timeout().is_some_and(|d| d <= now) {
                    t.on_timeout(now);
                }
            }
            for b in &mut self.bss {
                if b.poll_timeout().is_some_and(|d| d <= now) {
                    b.on_timeout(now);
                }
            }
        }
    }
}

/// Base station 0 splits two mobile hosts' connections, base station 1 a third one's. At mobile
/// host 1's handoff from 0 to 1 only its relay moves: mobile host 2's connection keeps flowing
/// through base station 0, mobile host 3's through 1, while base station 1 holds what comes for
/// mobile host 1's connection until its relay arrives, then passes it through the relay in the
/// order it came.
#[test]
fn a_split_handoff_moves_only_its_mobile_hosts_relay_and_holds_its_packets_until_it_arrives() {
    let (mh1, mh2, mh3) = (mobile(2), mobile(3), mobile(4));
    let mut c = Cells::new(&[mh1.addr, mh2.addr], &[mh3.addr]);
    c.connect(20001, mh1);
    c.connect(20002, mh2);
    c.connect(20003, mh3);
    c.run(600 * MS);
    let before = [mh1, mh2, mh3].map(|m| c.delivered(m));
    assert!(before.iter().all(|&d| d > 0 && d < BYTES), "{before:?}");

    // mobile host 1 hands off to base station 1: a hard handoff's requests, and its state moves
    let now = c.now;
    let forward = Mobility::Forward {
        mh: mh1.addr,
        last_ids: [0; 3],
        count: 0,
    };
    c.bss[1].on_packet(
        now,
        Port::Wireless,
        P::control(mh1.addr, super::BS2, forward),
    );
    let leave = Mobility::Leave { mh: mh1.addr };
    c.bss[0].on_packet(now, Port::Wireless, P::control(mh1.addr, super::BS1, leave));
    let state = c.bss[0]
        .hand_over(now, mh1.addr)
        .expect("its state is here");
    assert_eq!((state.mobile(), state.relays()), (mh1.addr, 1));
    assert!(
        state.held_bytes() > 0,
        "the relay holds bytes in both halves"
    );
    assert!(c.bss[0].hand_over(now, mh1.addr).is_none(), "moved already");
    assert!(
        c.bss[1].hand_over(now, mh1.addr).is_none(),
        "not arrived yet"
    );
    c.via.insert(mh1.addr, 1);

    // the state is on its way for 300 ms
    let (start, sent_before) = (c.now, c.sent.len());
    // (what was on its way to mobile host 1 arrives first)
    c.run(now + 2 * DELAY);
    let landed = c.delivered(mh1);
    c.run(now + 300 * MS);
    let during = [mh1, mh2, mh3].map(|m| c.delivered(m));
    assert_eq!(during[0], landed, "mobile host 1's connection stands still");
    assert!(
        during[1] > before[1],
        "mobile host 2's goes on through base station 0"
    );
    assert!(
        during[2] > before[2],
        "mobile host 3's goes on through base station 1"
    );
    let from_1: Vec<_> = c.sent[sent_before..]
        .iter()
        .filter(|(k, ..)| *k == 1)
        .collect();
    assert!(
        from_1
            .iter()
            .all(|(_, port, seg, _)| mobile_of(port.opposite(), seg) != mh1.addr),
        "base station 1 sent nothing of mobile host 1's connection"
    );
    let held: Vec<_> = c
        .arrived
        .iter()
        .filter(|&&(k, m, t)| k == 1 && m == mh1.addr && t >= start)
        .collect();
    assert!(
        held.len() > 5,
        "packets of mobile host 1 came: {}",
        held.len()
    );

    c.bss[1].take_over(c.now, state);
    c.emit(Some(1));
    // the held data went through the relay in order: its ACKs to the fixed host climb, never
    // repeating (a segment out of order would have drawn a duplicate ACK at once)
    let acks: Vec<(u32, u16)> = c
        .sent
        .iter()
        .filter(|(k, port, seg, t)| {
            *k == 1 && *port == Port::Wired && seg.dst == fixed(20001) && *t == c.now
        })
        .map(|(.., seg, _)| (seg.ack.0, seg.window))
        .collect();
    assert!(!acks.is_empty(), "the held data is acknowledged");
    assert!(
        acks.windows(2).all(|w| w[1] != w[0] && w[1].0 >= w[0].0),
        "{acks:?}"
    );
    c.run(now + 10_000 * MS);
    for m in [mh1, mh2, mh3] {
        assert_eq!(c.delivered(m), BYTES, "{m:?}");
    }
    let count = |k: usize, name: &str| c.bss[k].counters().get(name);
    assert_eq!(count(0, "relays_handed_over"), 1);
    assert_eq!(count(1, "relays_taken_over"), 1);
    assert_eq!(count(1, "relays_over_bound"), 0);
    assert_eq!(c.bss[1].handoff_stats().withheld, 0, "nothing dropped");
    // each relay's report is at the base station that holds it
    let reports = |k: usize| {
        let r = c.bss[k].relay().map(|r| r.reports()).unwrap_or_default();
        r.iter().map(|r| r.endpoints.1).collect::<Vec<_>>()
    };
    assert_eq!(reports(0), vec![mh2]);
    let mut at_1 = reports(1);
    at_1.sort();
    assert_eq!(at_1, vec![mh1, mh3]);
}
