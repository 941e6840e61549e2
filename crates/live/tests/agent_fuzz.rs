//! Fuzzing the live packet path without a kernel: arbitrary and mutated bytes, as a TUN device could
//! deliver them, through the parser and into every agent, with timers firing in between. Nothing
//! may panic, the cache stays within its limits, and whatever the agent sends is a packet it was
//! given or one it built with correct checksums.

use proptest::prelude::*;
use snooplab_live::live_protocols;
use snooplab_live::packet::LivePacket;
use snooplab_proto::agent::{
    Agent, Port, SegmentView, SnoopAgent, SnoopConfig, SplitAgent, SplitConfig,
};
use snooplab_proto::segment::{Endpoint, Flags, SackBlocks, Segment};
use snooplab_proto::tcp::RecoveryPolicy;
use snooplab_proto::time::MS;
use snooplab_proto::{wire, Seq};

const FH: Endpoint = Endpoint {
    addr: 0x0a00_0001,
    port: 40000,
};
const MH: Endpoint = Endpoint {
    addr: 0x0a00_0102,
    port: 5001,
};

/// One input: a plausible segment of one of three connections, then byte damage.
#[derive(Clone, Debug)]
struct Input {
    from_mh: bool,
    conn: u16,
    flags: u8,
    seq_step: u32,
    ack_step: u32,
    len: u32,
    damage: Vec<(usize, u8)>,
    cut: Option<usize>,
    advance_ms: u64,
    /// SACK blocks on a packet from the mobile host: (first segment, segments), in steps.
    sack: Vec<(u32, u32)>,
}

fn input() -> impl Strategy<Value = Input> {
    (
        any::<bool>(),
        0u16..3,
        prop_oneof![
            Just(0x10u8),
            Just(0x10),
            Just(0x10),
            Just(0x02),
            Just(0x11),
            any::<u8>()
        ],
        0u32..12,
        0u32..12,
        prop_oneof![Just(0u32), Just(1400), 0u32..1500],
        proptest::collection::vec((0usize..1600, any::<u8>()), 0..3),
        proptest::option::weighted(0.1, 0usize..1600),
        0u64..300,
        proptest::collection::vec((0u32..12, 1u32..4), 0..4),
    )
        .prop_map(
            |(from_mh, conn, flags, seq_step, ack_step, len, damage, cut, advance_ms, sack)| {
                Input {
                    from_mh,
                    conn,
                    flags,
                    seq_step,
                    ack_step,
                    len,
                    damage,
                    cut,
                    advance_ms,
                    sack,
                }
            },
        )
}

/// SACK blocks from (first segment, segments) steps: what the SACK-reading snoops rewrite.
fn sack_blocks(steps: &[(u32, u32)]) -> SackBlocks {
    let mut b = SackBlocks::default();
    for &(from, n) in steps {
        b.push(Seq(1000 + from * 1400), Seq(1000 + (from + n) * 1400));
    }
    b
}

fn bytes_of(i: &Input) -> Vec<u8> {
    let (mut src, mut dst) = (FH, MH);
    src.port += i.conn;
    if i.from_mh {
        std::mem::swap(&mut src, &mut dst);
    }
    let seg = Segment {
        src,
        dst,
        seq: Seq(1000 + i.seq_step * 1400),
        ack: Seq(1000 + i.ack_step * 1400),
        flags: Flags(i.flags),
        window: 32768,
        len: if i.from_mh { 0 } else { i.len },
        sack: if i.from_mh {
            sack_blocks(&i.sack)
        } else {
            SackBlocks::default()
        },
        ..Segment::default()
    };
    let mut b = wire::encode(&seg, None);
    for (at, x) in &i.damage {
        let n = b.len();
        b[at % n] ^= x;
    }
    if let Some(c) = i.cut {
        b.truncate(c);
    }
    b
}

fn agents() -> Vec<Box<dyn Agent<LivePacket>>> {
    let mut v: Vec<Box<dyn Agent<LivePacket>>> = live_protocols()
        .iter()
        .filter_map(|p| snooplab_sim::agents::forwarding_agent(p.agent()))
        .collect();
    // and one with tiny limits, so that they bind
    v.push(Box::new(SnoopAgent::new(SnoopConfig {
        max_cached_total: 4,
        max_cached_per_connection: 3,
        max_connections: 2,
        ..SnoopConfig::paper000(true, true)
    })));
    v
}

/// Plays `inputs` into `agent` as the live path would (its timer first when due, then the
/// packet if it parses), checking everything it sends: bytes it was given, or a packet it built
/// with correct checksums for which `built_ok` holds. `after` checks the agent after each input.
fn play<A: Agent<LivePacket> + ?Sized>(
    agent: &mut A,
    inputs: &[Input],
    built_ok: impl Fn(&LivePacket) -> bool,
    mut after: impl FnMut(&A) -> Result<(), TestCaseError>,
) -> Result<(), TestCaseError> {
    let mut given: Vec<Vec<u8>> = Vec::new();
    let mut now = 0;
    for i in inputs {
        now += i.advance_ms * MS;
        if agent.poll_timeout().is_some_and(|t| t <= now) {
            agent.on_timeout(now);
        }
        let Ok(p) = LivePacket::classify(bytes_of(i)) else {
            continue;
        };
        given.push(p.bytes().to_vec());
        let port = if i.from_mh {
            Port::Wireless
        } else {
            Port::Wired
        };
        agent.on_packet(now, port, p);
        while let Some(tx) = agent.poll_transmit(now) {
            let out = tx.packet.bytes();
            let built =
                wire::parse(out).map(|x| x.checksums_ok).unwrap_or(false) && built_ok(&tx.packet);
            prop_assert!(
                given.iter().any(|g| g == out) || built,
                "the agent sent bytes it was not given and did not build"
            );
        }
        after(agent)?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn any_packet_sequence_through_any_agent(inputs in proptest::collection::vec(input(), 1..80)) {
        for mut agent in agents() {
            // what an agent builds itself is an ACK (snoop's, ELN's marks): no payload
            let ack = |p: &LivePacket| p.segment().is_some_and(|s| s.len == 0);
            play(agent.as_mut(), &inputs, ack, |a| {
                let probe = a.probe();
                prop_assert!(probe.held_segments <= 8192);
                prop_assert!(probe.connections <= 1024);
                Ok(())
            })?;
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic_the_parser_or_an_agent(
        packets in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..120), 1..40)
    ) {
        for mut agent in agents() {
            for (k, b) in packets.iter().enumerate() {
                let mut b = b.clone();
                if let Some(first) = b.first_mut() {
                    *first = 0x45; // mostly IPv4 with a plain header, to get past the first check
                }
                if let Ok(p) = LivePacket::classify(b) {
                    let port = if k % 2 == 0 { Port::Wired } else { Port::Wireless };
                    agent.on_packet(k as u64 * MS, port, p);
                    while agent.poll_transmit(k as u64 * MS).is_some() {}
                }
                agent.on_timeout(k as u64 * 300 * MS);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// The split relay (paper 000 section III-C) on real packets, whatever they are: it never
    /// panics, whatever it builds parses with correct checksums, and the bytes it stores stay
    /// within its bound (relay buffer + wired window + a segment).
    #[test]
    fn any_packet_sequence_through_the_split_relay(
        inputs in proptest::collection::vec(input(), 1..80)
    ) {
        let cfg = SplitConfig::paper000(1400, RecoveryPolicy::RENO);
        let bound = 2 * u64::from(cfg.relay_bytes) + 1400;
        let mut agent: SplitAgent<LivePacket> = SplitAgent::new(cfg);
        // the relay builds data segments too, with the bytes it relays
        play(&mut agent, &inputs, |_| true, |a| {
            prop_assert!(a.relay_bytes().held() <= bound);
            Ok(())
        })?;
    }
}

#[test]
fn the_tiny_limits_bind_in_a_plain_sequence() {
    let mut a = agents().pop().unwrap_or_else(|| unreachable!());
    for conn in 0..3u16 {
        let syn = Input {
            from_mh: false,
            conn,
            flags: 0x02,
            seq_step: 0,
            ack_step: 0,
            len: 0,
            damage: vec![],
            cut: None,
            advance_ms: 0,
            sack: vec![],
        };
        if let Ok(p) = LivePacket::classify(bytes_of(&syn)) {
            a.on_packet(0, Port::Wired, p);
        }
        for k in 1..6 {
            let d = Input {
                flags: 0x10,
                seq_step: k,
                len: 1400,
                ..syn.clone()
            };
            if let Ok(p) = LivePacket::classify(bytes_of(&d)) {
                a.on_packet(MS, Port::Wired, p);
            }
        }
    }
    let probe = a.probe();
    assert_eq!(probe.connections, 2);
    assert!(probe.held_segments <= 4);
}

/// snoop-sack rewrites the ACKs it forwards (agent/snoop/sack.rs): on the live path the rewritten
/// ACK is whole new bytes, its SACK option gone, the TCP header and the IPv4 total length shorter
/// by it, both checksums correct, and everything else as the mobile host sent it.
#[test]
fn snoop_sacks_rewritten_ack_is_a_valid_shorter_packet() {
    let mut a = SnoopAgent::<LivePacket>::new(SnoopConfig::sack_hiding());
    let packet = |from_mh: bool, seq_step: u32, ack_step: u32, flags: u8, sack: Vec<(u32, u32)>| {
        let i = Input {
            from_mh,
            conn: 0,
            flags,
            seq_step,
            ack_step,
            len: if from_mh { 0 } else { 1400 },
            damage: vec![],
            cut: None,
            advance_ms: 0,
            sack,
        };
        LivePacket::classify(bytes_of(&i)).unwrap_or_else(|e| panic!("{e:?}"))
    };
    let syn = Input {
        from_mh: false,
        conn: 0,
        flags: 0x02,
        seq_step: 0,
        ack_step: 0,
        len: 0,
        damage: vec![],
        cut: None,
        advance_ms: 0,
        sack: vec![],
    };
    let syn = LivePacket::classify(bytes_of(&syn)).unwrap_or_else(|e| panic!("{e:?}"));
    a.on_packet(0, Port::Wired, syn);
    // segments 1 to 6 (in steps of 1400 bytes) sent; the mobile host acknowledges 1
    for k in 1..=6 {
        a.on_packet(MS, Port::Wired, packet(false, k, 0, 0x10, vec![]));
    }
    a.on_packet(10 * MS, Port::Wireless, packet(true, 0, 2, 0x10, vec![]));
    while a.poll_transmit(10 * MS).is_some() {}
    // 3 lost, 4 arrived: the new ACK for 2 with the block [4, 5)
    let given = packet(true, 0, 3, 0x10, vec![(4, 1)]);
    let given_len = given.bytes().len();
    a.on_packet(12 * MS, Port::Wireless, given);
    let sent: Vec<_> = std::iter::from_fn(|| a.poll_transmit(12 * MS)).collect();
    let ack = sent
        .iter()
        .find(|t| t.port == Port::Wired)
        .unwrap_or_else(|| panic!("no ACK forwarded: {sent:?}"));
    let p = wire::parse(ack.packet.bytes()).unwrap_or_else(|e| panic!("{e:?}"));
    assert!(p.checksums_ok);
    assert!(p.seg.sack.is_empty(), "the block is hidden");
    assert_eq!(
        ack.packet.bytes().len(),
        given_len - 12,
        "2 NOPs, kind, length, one block"
    );
    assert_eq!(p.seg.ack, Seq(1000 + 3 * 1400));
    assert!(
        sent.iter().any(|t| t.port == Port::Wireless),
        "snoop resends the hole itself"
    );
}
