//! What the fuzz targets share: packets made from the fuzzer's bytes, the driver that feeds a
//! base-station agent a sequence of packets and time steps, and the checks on what comes out.
//!
//! The targets decode their input by hand with [`arbitrary::Unstructured`]: a packet is either raw
//! bytes (anything at all, as a TUN device may hand the live base station) or a segment built from
//! a few fields and encoded with correct checksums, so that the fuzzer reaches the agents' logic
//! beyond the checksum test without having to find checksums itself.

use std::collections::HashSet;

pub mod split_table;

use split_table::ByteSource;

use libfuzzer_sys::arbitrary::Unstructured;
use snooplab_proto::agent::{Agent, Port, SegmentView, Transmit};
use snooplab_proto::segment::MAX_TCP_OPTION_BYTES;
use snooplab_proto::time::{MS, SEC, US};
use snooplab_proto::{wire, Endpoint, Flags, QueueReport, SackBlocks, Segment, Seq, Time};

/// Most operations one input drives: keeps an execution short whatever the input.
pub const MAX_OPS: usize = 400;

/// Most packets an agent may hand out after one operation before the driver calls it unbounded.
pub const MAX_OUTPUT_PER_OP: usize = 20_000;

/// The fixed hosts and mobile hosts of the connections the structured packets belong to: three
/// connections, two through one pair of hosts, so that agents see several connections and one
/// host with two.
pub const CONNECTIONS: [(Endpoint, Endpoint); 3] = [
    (
        Endpoint {
            addr: 0x0a00_0001,
            port: 20000,
        },
        Endpoint {
            addr: 0x0a00_0102,
            port: 5001,
        },
    ),
    (
        Endpoint {
            addr: 0x0a00_0001,
            port: 20001,
        },
        Endpoint {
            addr: 0x0a00_0102,
            port: 5002,
        },
    ),
    (
        Endpoint {
            addr: 0x0a00_0002,
            port: 30000,
        },
        Endpoint {
            addr: 0x0a00_0103,
            port: 5001,
        },
    ),
];

/// Initial sequence numbers of the fixed host's and the mobile host's side of each connection:
/// structured segments number their bytes from these, so that consecutive segments line up.
const BASES: [u32; 2] = [1, 0xfff0_0000];

fn byte(u: &mut Unstructured) -> u8 {
    u.arbitrary().unwrap_or(0)
}

fn u16_of(u: &mut Unstructured) -> u16 {
    u.arbitrary().unwrap_or(0)
}

/// A sequence number near `base`: mostly a small offset (what real flows do), sometimes anywhere.
pub fn seq_near<B: ByteSource + ?Sized>(u: &mut B, base: u32) -> Seq {
    match u.byte() % 8 {
        0 => Seq(u.u32()),
        1 => Seq(base.wrapping_sub(u32::from(u.u16()))),
        _ => Seq(base.wrapping_add(u32::from(u.u16()))),
    }
}

/// A segment of one of [`CONNECTIONS`], in either direction, with fields from the input.
pub fn structured_segment(u: &mut Unstructured) -> Segment {
    let c = usize::from(byte(u)) % CONNECTIONS.len();
    let up = byte(u) & 1 == 1;
    let (fixed, mobile) = CONNECTIONS[c];
    let (src, dst, own, peer) = if up {
        (mobile, fixed, BASES[1], BASES[0])
    } else {
        (fixed, mobile, BASES[0], BASES[1])
    };
    let flags = Flags(byte(u));
    let len = match byte(u) % 4 {
        0 => 0,
        1 => 1460,
        2 => u32::from(u16_of(u) % 1461),
        _ => u32::from(u16_of(u) % 4000),
    };
    let mut seg = Segment {
        src,
        dst,
        seq: seq_near(u, own),
        ack: seq_near(u, peer),
        flags,
        window: u16_of(u),
        len,
        ip_id: u16_of(u),
        ..Segment::default()
    };
    let opts = byte(u);
    if opts & 1 != 0 {
        seg.mss = Some(u16_of(u));
    }
    seg.eln = opts & 2 != 0;
    if opts & 4 != 0 {
        seg.smart = Some(seq_near(u, own));
    }
    if opts & 8 != 0 {
        seg.queue = Some(QueueReport {
            len: byte(u),
            max: byte(u),
        });
    }
    let mut sack = SackBlocks::default();
    for _ in 0..(opts >> 4) % 4 {
        let a = seq_near(u, peer);
        let n = u32::from(u16_of(u)).max(1);
        sack.push(a, Seq(a.0.wrapping_add(n)));
    }
    seg.sack = sack;
    seg
}

/// Bytes of a packet from the input: a structured segment encoded with correct checksums (maybe
/// with one byte changed afterwards), or raw bytes.
pub fn packet_bytes(u: &mut Unstructured) -> Vec<u8> {
    match byte(u) % 8 {
        0 => {
            let n = usize::from(u16_of(u) % 1600);
            let n = n.min(u.len());
            u.bytes(n).map(<[u8]>::to_vec).unwrap_or_default()
        }
        1 => {
            let seg = structured_segment(u);
            let mut b = wire::encode(&seg, None);
            if !b.is_empty() {
                let at = usize::from(u16_of(u)) % b.len();
                b[at] ^= byte(u) | 1;
            }
            b
        }
        _ => wire::encode(&structured_segment(u), None),
    }
}

/// A time step: nanoseconds to about 18 hours, so that every timer of every agent can fire and
/// the clock never comes near overflowing (a run of [`MAX_OPS`] steps stays below 2^63 ns).
pub fn time_step<B: ByteSource + ?Sized>(u: &mut B) -> Time {
    let n = u64::from(u.u16());
    match u.byte() % 5 {
        0 => n,
        1 => n * US,
        2 => n * MS,
        3 => n * SEC,
        _ => 0,
    }
}

/// Whether an outgoing TCP/IPv4 packet's bytes are a valid packet carrying `seg`: they parse,
/// both checksums hold, and the header read back is the one the agent meant to send.
pub fn assert_valid_bytes(bytes: &[u8], seg: &Segment, what: &str) {
    let p = match wire::parse(bytes) {
        Ok(p) => p,
        Err(e) => panic!("{what}: an emitted packet does not parse ({e}): {seg:?}"),
    };
    assert!(
        p.checksums_ok,
        "{what}: an emitted packet has a bad checksum: {seg:?}"
    );
    assert_eq!(
        &p.seg, seg,
        "{what}: an emitted packet's bytes say another header"
    );
}

/// Whether a segment an agent or a TCP built is one that goes on the wire as it is: its options
/// fit the TCP header, its datagram fits IPv4's 16-bit length, and encoding it and parsing the
/// bytes gives the same header back.
pub fn assert_valid_segment(seg: &Segment, what: &str) {
    assert!(
        seg.option_bytes() <= MAX_TCP_OPTION_BYTES,
        "{what}: options do not fit the TCP header: {seg:?}"
    );
    assert!(
        seg.ip_len() <= u32::from(u16::MAX),
        "{what}: a datagram longer than IPv4 allows: {seg:?}"
    );
    assert_eq!(
        seg.sack_blocks_carried(),
        seg.sack.len(),
        "{what}: SACK blocks that do not fit: {seg:?}"
    );
    assert_valid_bytes(&wire::encode(seg, None), seg, what);
}

/// What the driver asks of the agent under test besides its [`Agent`] methods.
pub struct Drive<'a, P> {
    /// Makes the next packet from the input; `None` when these bytes make no packet (the live
    /// mode drops it before any agent sees it).
    pub packet: &'a mut dyn FnMut(&mut Unstructured) -> Option<P>,
    /// Checks one packet the agent sends.
    pub check: &'a mut dyn FnMut(&Transmit<P>),
    /// Checks the agent's state after each operation (memory bounds).
    pub after: &'a mut dyn FnMut(&dyn Agent<P>),
    /// Whatever else the agent is told (a handoff's state moving out and in); nothing by default.
    pub extra: Option<&'a mut Extra<'a, P>>,
}

/// An operation of its own a target adds to [`drive_agent`]'s: the agent, the input, the time.
pub type Extra<'a, P> = dyn FnMut(&mut dyn Agent<P>, &mut Unstructured, Time) + 'a;

/// Feeds `agent` packets from both ports, time steps and timer expiries, input-queue levels and
/// mirrored packets, as the input says; drains and checks its output after each. Asserts that the
/// agent's timers move on: it never asks to be woken again and again at the same instant.
pub fn drive_agent<P: SegmentView>(
    agent: &mut dyn Agent<P>,
    u: &mut Unstructured,
    mut d: Drive<'_, P>,
) {
    let mut now: Time = 0;
    for _ in 0..MAX_OPS {
        if u.is_empty() {
            break;
        }
        match byte(u) % 11 {
            0..=3 => {
                let port = if byte(u) & 1 == 0 {
                    Port::Wired
                } else {
                    Port::Wireless
                };
                if let Some(p) = (d.packet)(u) {
                    agent.on_packet(now, port, p);
                }
            }
            4 | 5 => {
                now += time_step(u);
                fire_due(agent, now);
            }
            6 => {
                if let Some(t) = agent.poll_timeout() {
                    now = now.max(t);
                    fire_due(agent, now);
                }
            }
            7 => {
                let max = usize::from(u16_of(u));
                let len = usize::from(u16_of(u));
                if let Some(q) = agent.queue_reader() {
                    q.on_input_queue(len, max);
                }
            }
            8 | 9 => {
                if let Some(p) = (d.packet)(u) {
                    if let Some(m) = agent.mirror() {
                        m.mirror(now, p);
                    }
                }
            }
            _ => {
                if let Some(f) = d.extra.as_mut() {
                    f(agent, u, now);
                }
            }
        }
        let mut n = 0;
        while let Some(t) = agent.poll_transmit(now) {
            (d.check)(&t);
            n += 1;
            assert!(n <= MAX_OUTPUT_PER_OP, "unbounded output after one event");
        }
        (d.after)(agent);
    }
}

/// Runs the agent's timers while they are due at `now`.
fn fire_due<P: SegmentView>(agent: &mut dyn Agent<P>, now: Time) {
    for _ in 0..64 {
        match agent.poll_timeout() {
            Some(t) if t <= now => agent.on_timeout(now),
            _ => return,
        }
    }
    panic!("the agent's timer stays due at {now} ns after 64 expiries");
}

/// The bytes of every packet handed to an agent: a packet it sends with exactly these bytes is
/// passed on (forwarded or resent from its cache), the rest it built itself.
#[derive(Default)]
pub struct Seen(HashSet<Vec<u8>>);

impl Seen {
    pub fn add(&mut self, b: &[u8]) {
        if !self.0.contains(b) {
            self.0.insert(b.to_vec());
        }
    }
    pub fn contains(&self, b: &[u8]) -> bool {
        self.0.contains(b)
    }
}

/// Drives an agent of the live mode's packet type, [`LivePacket`]: each packet is the input's bytes
/// as a TUN device would hand them over, through the live mode's own classification (packets it
/// rejects never reach the agent). Asserts that every packet the agent sends is either one it was
/// given, byte for byte, or a valid IPv4/TCP packet with correct checksums whose bytes carry the
/// header the agent meant; `bounds` checks what the agent holds after each operation.
pub fn drive_live_agent(
    agent: &mut dyn Agent<LivePacket>,
    u: &mut Unstructured,
    what: &str,
    bounds: &mut dyn FnMut(&dyn Agent<LivePacket>),
) {
    let seen = std::cell::RefCell::new(Seen::default());
    drive_agent(
        agent,
        u,
        Drive {
            packet: &mut |u| {
                let p = LivePacket::classify(packet_bytes(u)).ok()?;
                seen.borrow_mut().add(p.bytes());
                Some(p)
            },
            check: &mut |t| {
                if seen.borrow().contains(t.packet.bytes()) {
                    return;
                }
                match t.packet.segment() {
                    Some(seg) => assert_valid_bytes(t.packet.bytes(), seg, what),
                    None => panic!("{what}: sent a non-TCP packet it was never given"),
                }
            },
            after: bounds,
            extra: None,
        },
    );
}

pub use snooplab_live::packet::LivePacket;

/// A simulator packet of a TCP segment read from the input's bytes (headers only: the simulator
/// carries no payload bytes); `None` for bytes that are not TCP/IPv4.
pub fn sim_packet(u: &mut Unstructured) -> Option<SimPacket> {
    let h = wire::parse_headers(&packet_bytes(u)).ok()?;
    Some(SimPacket::new(h.seg, None))
}

/// Checks a simulator packet an agent sends: a TCP segment it was not given must be one that goes
/// on the wire as it is ([`assert_valid_segment`]); a handoff message must encode to its size.
pub fn check_sim_packet(p: &SimPacket, given: &[Segment], what: &str) {
    if let Some(m) = p.mobility() {
        assert_eq!(
            m.encode().len() as u32,
            m.payload_bytes(),
            "{what}: a handoff message of another size than it says"
        );
        return;
    }
    if !given.contains(&p.seg) {
        assert_valid_segment(&p.seg, what);
    }
}

pub use snooplab_sim::packet::SimPacket;
