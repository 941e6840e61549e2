//! Scripted tests of the handoff protocol: the circular buffer and its synchronisation with the
//! reported IP ids, the base station's roles, snoop's mirrored cache and its synchronisation on the
//! first ACK, the home agent's tunnels, and the mobile host's decisions.

use super::messages::Request;
use super::*;
use crate::agent::snoop::{SnoopAgent, SnoopConfig};
use crate::agent::{Agent, BuildPacket, Origin, Port, Priority, SegmentView, Transmit};
use crate::segment::{Flags, Segment};
use crate::test_support::{segment, FH, MH};
use crate::time::{MS, SEC};

mod departures;
mod hard;
mod split;

const BS1: u32 = 0x0a00_0201;
const BS2: u32 = 0x0a00_0202;
const HA: u32 = 0x0a00_0003;

/// A packet: a TCP segment, or a control message between two addresses; maybe inside a tunnel.
#[derive(Clone, Debug, PartialEq)]
struct P {
    seg: Segment,
    msg: Option<Mobility>,
    tunnel: Option<Tunnel>,
}

impl SegmentView for P {
    fn segment(&self) -> Option<&Segment> {
        self.msg.is_none().then_some(&self.seg)
    }
}

impl BuildPacket for P {
    fn build(seg: &Segment, _like: &Self) -> Self {
        P {
            seg: *seg,
            msg: None,
            tunnel: None,
        }
    }
}

impl MobilityPacket for P {
    fn mobility(&self) -> Option<&Mobility> {
        self.msg.as_ref()
    }
    fn tunnel(&self) -> Option<Tunnel> {
        self.tunnel
    }
    fn encapsulate(self, tunnel: Tunnel) -> Self {
        P {
            tunnel: Some(tunnel),
            ..self
        }
    }
    fn decapsulate(self) -> Self {
        P {
            tunnel: None,
            ..self
        }
    }
    fn control(src: u32, dst: u32, msg: Mobility) -> Self {
        let mut seg = Segment::default();
        seg.src.addr = src;
        seg.dst.addr = dst;
        P {
            seg,
            msg: Some(msg),
            tunnel: None,
        }
    }
}

/// The fixed host's `i`-th 1000-byte segment (from 1), with IP id `i`.
fn data(i: u32) -> P {
    let mut seg = segment(FH, MH, 1 + (i - 1) * 1000, 1, Flags::ACK, 1000);
    seg.ip_id = i as u16;
    P::build(&seg, &P::control(0, 0, Mobility::Buffer { mh: 0 }))
}

fn tunnelled(i: u32, bs: u32) -> P {
    data(i).encapsulate(Tunnel { src: HA, dst: bs })
}

fn ack(n: u32) -> P {
    let seg = segment(MH, FH, 1, 1 + n * 1000, Flags::ACK, 0);
    P::build(&seg, &data(1))
}

fn forward_request(ids: &[u16]) -> P {
    let mut last_ids = [0; 3];
    last_ids[..ids.len()].copy_from_slice(ids);
    P::control(
        MH.addr,
        BS2,
        Mobility::Forward {
            mh: MH.addr,
            last_ids,
            count: ids.len() as u8,
        },
    )
}

fn drain<A: Agent<P>>(a: &mut A) -> Vec<Transmit<P>> {
    std::iter::from_fn(|| a.poll_transmit(0)).collect()
}

/// Segment numbers of the TCP data among `out`.
fn data_sent(out: &[Transmit<P>]) -> Vec<u32> {
    out.iter()
        .filter_map(|t| t.packet.segment())
        .filter(|s| s.len > 0)
        .map(|s| (s.seq.0 - 1) / 1000 + 1)
        .collect()
}

#[test]
fn ring_keeps_the_last_packets_and_syncs_after_the_newest_reported_id() {
    let mut r = Ring::new(12);
    for i in 1..=20u16 {
        r.push(i, &i);
    }
    assert_eq!(r.len(), 12, "the oldest 8 are gone");
    // the mobile host got up to 15: 9..15 are freed, 16..20 sent
    let s = r.sync(&[13, 14, 15]);
    assert!(s.found);
    assert_eq!(s.freed, 7);
    assert_eq!(s.send, vec![16, 17, 18, 19, 20]);
    // ids older than the buffer: not found, everything is sent
    let s = r.sync(&[1, 2, 3]);
    assert!(!s.found);
    assert_eq!(s.send, vec![16, 17, 18, 19, 20]);
    // only one of the three found (the others were lost on the way): still a match
    let s = r.sync(&[99, 17, 98]);
    assert!(s.found);
    assert_eq!(s.send, vec![18, 19, 20]);
}

#[test]
fn a_ring_of_zero_keeps_nothing() {
    let mut r = Ring::new(0);
    r.push(1, &1);
    assert!(r.is_empty());
    assert!(r.sync(&[1]).send.is_empty());
}

fn handoff_bs(addr: u32, primary: bool, inner: Box<dyn Agent<P>>) -> HandoffAgent<P> {
    let cfg = HandoffConfig {
        beacon_interval: None,
        ..HandoffConfig::paper002(addr, HA, 0)
    };
    let mh = [MH.addr];
    if primary {
        HandoffAgent::new(cfg, inner, &mh, &[])
    } else {
        HandoffAgent::new(cfg, inner, &[], &mh)
    }
}

#[test]
fn a_buffering_base_station_sends_nothing_then_forwards_what_follows_the_reported_ids() {
    let mut bs = handoff_bs(BS2, false, Box::new(crate::agent::Router::default()));
    for i in 1..=8 {
        bs.on_packet(0, Port::Wired, tunnelled(i, BS2));
    }
    assert!(
        drain(&mut bs).is_empty(),
        "a buffering base station is silent"
    );
    bs.on_packet(MS, Port::Wireless, forward_request(&[3, 4, 5]));
    let out = drain(&mut bs);
    assert_eq!(data_sent(&out), vec![6, 7, 8]);
    assert!(
        out.iter().all(|t| t.packet.tunnel.is_none()),
        "decapsulated"
    );
    assert!(out.iter().any(|t| t.packet.msg
        == Some(Mobility::Confirm {
            mh: MH.addr,
            request: Request::Forward
        })));
    assert!(bs.is_primary(MH.addr));
    // as primary it forwards the stream
    bs.on_packet(2 * MS, Port::Wired, tunnelled(9, BS2));
    assert_eq!(data_sent(&drain(&mut bs)), vec![9]);
    let st = bs.handoff_stats();
    assert_eq!((st.became_primary, st.ids_found, st.ring_sent), (1, 1, 3));
}

#[test]
fn ids_not_found_send_the_whole_buffer() {
    let mut bs = handoff_bs(BS2, false, Box::new(crate::agent::Router::default()));
    for i in 1..=4 {
        bs.on_packet(0, Port::Wired, tunnelled(i, BS2));
    }
    bs.on_packet(MS, Port::Wireless, forward_request(&[70, 71, 72]));
    assert_eq!(data_sent(&drain(&mut bs)), vec![1, 2, 3, 4]);
    assert_eq!(bs.handoff_stats().ids_found, 0);
}

#[test]
fn the_old_primary_turns_to_buffering_and_withholds_its_agents_packets() {
    let snoop: SnoopAgent<P> = SnoopAgent::new(SnoopConfig::paper002());
    let mut bs = handoff_bs(BS1, true, Box::new(snoop));
    for i in 1..=3 {
        bs.on_packet(0, Port::Wired, tunnelled(i, BS1));
    }
    assert_eq!(data_sent(&drain(&mut bs)), vec![1, 2, 3]);
    bs.on_packet(MS, Port::Wireless, ack(1));
    drain(&mut bs);
    bs.on_packet(
        2 * MS,
        Port::Wireless,
        P::control(MH.addr, BS1, Mobility::Buffer { mh: MH.addr }),
    );
    // a duplicate ACK still in flight reaches it: snoop would resend 2, but it no longer forwards
    bs.on_packet(3 * MS, Port::Wireless, ack(1));
    bs.on_packet(4 * MS, Port::Wired, tunnelled(4, BS1));
    let out = drain(&mut bs);
    assert!(data_sent(&out).is_empty(), "sent {:?}", data_sent(&out));
    assert!(bs.handoff_stats().withheld >= 1);
}

#[test]
fn a_mirrored_snoop_cache_frees_fifo_and_the_first_ack_after_handoff_synchronises_it() {
    let cfg = SnoopConfig {
        high_water: 4,
        ..SnoopConfig::paper002()
    };
    let snoop: SnoopAgent<P> = SnoopAgent::new(cfg);
    let mut bs = handoff_bs(BS2, false, Box::new(snoop));
    for i in 1..=6 {
        bs.on_packet(0, Port::Wired, tunnelled(i, BS2));
    }
    // no ACKs: the 4 newest stay
    assert_eq!(bs.probe().held_segments, 4);
    bs.on_packet(MS, Port::Wireless, forward_request(&[4]));
    assert_eq!(data_sent(&drain(&mut bs)), vec![5, 6]);
    // the first ACK says the mobile host has 1..4: segments 3 and 4 leave the cache
    bs.on_packet(2 * MS, Port::Wireless, ack(4));
    assert_eq!(bs.probe().held_segments, 2);
    let out = drain(&mut bs);
    assert!(out.iter().any(|t| t.port == Port::Wired), "the ACK goes on");
    // a duplicate ACK for 5 (paper 002: the first one) resends it from the mirrored cache
    bs.on_packet(3 * MS, Port::Wireless, ack(4));
    let out = drain(&mut bs);
    let resent: Vec<_> = out
        .iter()
        .filter(|t| t.origin == Origin::LocalRetransmission)
        .collect();
    assert_eq!(resent.len(), 1);
    assert_eq!(data_sent(&out), vec![5]);
    assert_eq!(resent[0].priority, Priority::High);
}

#[test]
fn the_home_agent_tunnels_to_each_member_and_follows_joins_and_prunes() {
    let mut ha: HomeAgent<P> = HomeAgent::new(HA, [(MH.addr, vec![BS1])]);
    ha.on_packet(0, Port::Wired, data(1));
    let out = drain(&mut ha);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].packet.tunnel, Some(Tunnel { src: HA, dst: BS1 }));
    ha.on_packet(
        0,
        Port::Wired,
        P::control(
            BS2,
            HA,
            Mobility::Join {
                mh: MH.addr,
                bs: BS2,
            },
        ),
    );
    ha.on_packet(0, Port::Wired, data(2));
    let dsts: Vec<_> = drain(&mut ha)
        .iter()
        .filter_map(|t| t.packet.tunnel.map(|t| t.dst))
        .collect();
    assert_eq!(dsts, vec![BS1, BS2]);
    ha.on_packet(
        0,
        Port::Wired,
        P::control(
            BS1,
            HA,
            Mobility::Prune {
                mh: MH.addr,
                bs: BS1,
            },
        ),
    );
    ha.on_packet(0, Port::Wired, data(3));
    assert_eq!(ha.members(MH.addr), &[BS2]);
    assert_eq!(drain(&mut ha).len(), 1);
    // the mobile host's ACKs are routed on untouched
    ha.on_packet(0, Port::Wireless, ack(3));
    let out = drain(&mut ha);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].packet.tunnel, None);
}

#[test]
fn a_new_member_joins_the_group_at_the_home_agent() {
    let cfg = HandoffConfig {
        beacon_interval: None,
        ..HandoffConfig::paper002(BS2, HA, 0)
    };
    let mut bs: HandoffAgent<P> =
        HandoffAgent::new(cfg, Box::new(crate::agent::Router::default()), &[], &[]);
    bs.on_packet(
        0,
        Port::Wireless,
        P::control(MH.addr, BS2, Mobility::Buffer { mh: MH.addr }),
    );
    let out = drain(&mut bs);
    assert!(out.iter().any(|t| t.port == Port::Wired
        && t.packet.msg
            == Some(Mobility::Join {
                mh: MH.addr,
                bs: BS2
            })
        && t.packet.seg.dst.addr == HA));
}

#[test]
fn beacons_go_once_per_interval() {
    let cfg = HandoffConfig::paper002(BS1, HA, 300 * MS);
    let mut bs: HandoffAgent<P> =
        HandoffAgent::new(cfg, Box::new(crate::agent::Router::default()), &[], &[]);
    assert_eq!(bs.poll_timeout(), Some(300 * MS));
    bs.on_timeout(300 * MS);
    assert_eq!(bs.poll_timeout(), Some(1300 * MS));
    let out = drain(&mut bs);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].packet.seg.dst.addr, BROADCAST);
    assert!(matches!(
        out[0].packet.msg,
        Some(Mobility::Beacon { bs: BS1, .. })
    ));
}

fn mobile(trigger: Trigger) -> MobileHandoff {
    MobileHandoff::new(MobileConfig::paper002(MH.addr, vec![BS1, BS2], trigger))
        .unwrap_or_else(|| panic!("two base stations"))
}

#[test]
fn timed_handoffs_alternate_and_report_the_last_three_ids() {
    let mut m = mobile(Trigger::Every(SEC));
    for id in 1..=5 {
        m.on_received(0, BS1, id);
    }
    assert_eq!(m.poll_timeout(), Some(SEC));
    m.on_timeout(SEC);
    assert_eq!(m.primary(), BS2);
    let sent: Vec<_> = std::iter::from_fn(|| m.poll_transmit()).collect();
    assert_eq!(
        sent[0],
        (
            BS2,
            Mobility::Forward {
                mh: MH.addr,
                last_ids: [3, 4, 5],
                count: 3
            }
        )
    );
    assert_eq!(sent[1], (BS1, Mobility::Buffer { mh: MH.addr }));
    m.on_message(
        SEC + 3 * MS,
        BS2,
        &Mobility::Confirm {
            mh: MH.addr,
            request: Request::Forward,
        },
        0.0,
    );
    m.on_received(SEC + 5 * MS, BS2, 6);
    let d = *m.decisions().next().unwrap();
    assert_eq!(
        (d.from, d.to, d.confirmed, d.first_packet),
        (BS1, BS2, Some(SEC + 3 * MS), Some(SEC + 5 * MS))
    );
    m.on_timeout(2 * SEC);
    assert_eq!(m.primary(), BS1, "and back");
}

#[test]
fn an_unconfirmed_request_is_sent_again() {
    let mut m = mobile(Trigger::Every(SEC));
    m.on_timeout(SEC);
    while m.poll_transmit().is_some() {}
    m.on_message(
        SEC + MS,
        BS1,
        &Mobility::Confirm {
            mh: MH.addr,
            request: Request::Buffer,
        },
        0.0,
    );
    // the forward request was lost: it goes again after the retry time, the confirmed one does not
    assert_eq!(m.poll_timeout(), Some(SEC + 100 * MS));
    m.on_timeout(SEC + 100 * MS);
    let again: Vec<_> = std::iter::from_fn(|| m.poll_transmit()).collect();
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].0, BS2);
    assert_eq!(m.resent_requests, 1);
}

#[test]
fn signal_handoffs_need_the_hysteresis_margin() {
    let mut m = mobile(Trigger::Signal { hysteresis_db: 6.0 });
    let beacon = |bs| Mobility::Beacon {
        bs,
        sent: 0,
        seq: 0,
    };
    m.on_message(0, BS1, &beacon(BS1), -60.0);
    m.on_message(MS, BS2, &beacon(BS2), -57.0);
    assert_eq!(m.primary(), BS1, "3 dB better is within the hysteresis");
    m.on_message(2 * MS, BS2, &beacon(BS2), -53.0);
    assert_eq!(m.primary(), BS2);
    assert_eq!(m.decisions().count(), 1);
}

#[test]
fn every_message_encodes_to_its_size() {
    let msgs = [
        Mobility::Beacon {
            bs: BS1,
            sent: 7,
            seq: 1,
        },
        Mobility::Forward {
            mh: MH.addr,
            last_ids: [1, 2, 3],
            count: 3,
        },
        Mobility::Buffer { mh: MH.addr },
        Mobility::Leave { mh: MH.addr },
        Mobility::Confirm {
            mh: MH.addr,
            request: Request::Forward,
        },
        Mobility::Join {
            mh: MH.addr,
            bs: BS2,
        },
        Mobility::Prune {
            mh: MH.addr,
            bs: BS2,
        },
    ];
    for m in msgs {
        assert_eq!(m.encode().len() as u32, m.payload_bytes(), "{m:?}");
        assert_eq!(m.ip_len(), 28 + m.payload_bytes());
    }
    let f = msgs[1].encode();
    assert_eq!(&f[..2], &[2, 3]);
    assert_eq!(&f[6..], &[0, 1, 0, 2, 0, 3]);
}

#[test]
fn a_restarted_base_station_is_asked_again_for_its_role() {
    let mut m = mobile(Trigger::Never);
    m.on_received(0, BS1, 41);
    let beacon = |seq| Mobility::Beacon {
        bs: BS1,
        sent: 0,
        seq,
    };
    m.on_message(SEC, BS1, &beacon(4), 0.0);
    m.on_message(2 * SEC, BS1, &beacon(5), 0.0);
    assert!(
        m.poll_transmit().is_none(),
        "nothing to ask a base station that did not restart"
    );
    // the count went back: BS1, the primary, lost its state
    m.on_message(3 * SEC, BS1, &beacon(0), 0.0);
    assert_eq!(
        m.poll_transmit(),
        Some((
            BS1,
            Mobility::Forward {
                mh: MH.addr,
                last_ids: [41, 0, 0],
                count: 1
            }
        ))
    );
    assert_eq!(m.restarts_seen, 1);
    assert_eq!(m.decisions().count(), 0, "not a handoff");
}

#[test]
fn a_mobile_host_keeps_a_bounded_log_of_its_handoffs_and_totals_of_all() {
    // a handoff every millisecond, each confirmed 2 ms later... by the time the next one is made
    let mut m = mobile(Trigger::Every(MS));
    let n = DECISIONS_KEPT as u64 + 500;
    for k in 1..=n {
        m.on_timeout(k * MS);
        let to = m.primary();
        while m.poll_transmit().is_some() {}
        m.on_message(
            k * MS + MS / 2,
            to,
            &Mobility::Confirm {
                mh: MH.addr,
                request: Request::Forward,
            },
            0.0,
        );
    }
    assert_eq!(m.decisions().count(), DECISIONS_KEPT, "records are bounded");
    let t = m.decision_totals();
    assert_eq!((t.made, t.confirmed), (n, n), "totals count every handoff");
    assert!((t.latency_ms_sum / n as f64 - 0.5).abs() < 1e-9);
    assert_eq!(t.latency_ms_max, 0.5);
    let last = m.latest_decision().unwrap();
    assert_eq!((last.at, last.confirmed), (n * MS, Some(n * MS + MS / 2)));
}
