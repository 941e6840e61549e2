//! A split base station's relay table driven by a stream of bytes (issue 52 item 1,
//! `proto/src/agent/split.rs`): hundreds of connections opened, closed, reset, left idle and
//! flooded with SYNs from both sides, under a memory bound of 0 to 8 relays or the default 64 MiB,
//! with the live mode's packets (real payload bytes, which the relays store). The bytes come from
//! libFuzzer (`fuzz_targets/split_table.rs`, one short table per input) or from a seeded PCG
//! (`examples/split_table_drive.rs`, one table for millions of operations). Asserts no panic,
//! every packet the base station builds a valid IPv4/TCP packet, and after every operation:
//!
//! - the relays held never more than the bound allows ([`SplitConfig::max_relays`]), nor the
//!   most at once (`relays_most`); their bytes (counted by the TCPs, and the payload bytes stored)
//!   within one [`store_bound`] each and so within `max_memory`;
//! - a connection left unsplit was a SYN that found the table full: it makes no relay, is
//!   counted (`unsplit`), and passes on end to end as it came;
//! - after the idle limit without a packet, a SYN finds the table empty: every relay was removed
//!   (a closed, reset or idle one alike).

use snooplab_proto::agent::split::{store_bound, SplitStats};
use snooplab_proto::agent::{Agent, Port, SegmentView, SplitAgent, SplitConfig};
use snooplab_proto::tcp::RecoveryPolicy;
use snooplab_proto::time::SEC;
use snooplab_proto::{wire, Endpoint, Flags, Segment, Seq, Time};

use libfuzzer_sys::arbitrary::Unstructured;

use crate::{assert_valid_bytes, seq_near, time_step, LivePacket, Seen};

/// Where the operations come from: the fuzzer's input, or a seeded generator.
pub trait ByteSource {
    /// The next byte; 0 once the source is used up.
    fn byte(&mut self) -> u8;
    /// Up to `n` bytes as they come (raw packets).
    fn bytes(&mut self, n: usize) -> Vec<u8>;
    /// Whether the source is used up.
    fn done(&self) -> bool;
    fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.byte(), self.byte()])
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
    }
}

/// The fuzzer's input, read as the other targets read it.
impl ByteSource for Unstructured<'_> {
    fn byte(&mut self) -> u8 {
        self.arbitrary().unwrap_or(0)
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        let n = n.min(self.len());
        Unstructured::bytes(self, n)
            .map(<[u8]>::to_vec)
            .unwrap_or_default()
    }
    fn done(&self) -> bool {
        self.is_empty()
    }
    fn u16(&mut self) -> u16 {
        self.arbitrary().unwrap_or(0)
    }
    fn u32(&mut self) -> u32 {
        self.arbitrary().unwrap_or(0)
    }
}

/// Most SYNs one flood operation sends.
const FLOOD: u16 = 32;
/// Connections the operations name: more than the most relays a bound of 8 allows, more than a
/// default bound's 245, so that both a full table and a table of many relays are reached.
const CONNECTIONS: u16 = 512;
/// Initial sequence numbers of the wired and the wireless side's host.
const BASES: [u32; 2] = [1, 0xfff0_0000];

/// Connection `c`'s ends: (the wired side's host, the wireless side's host).
fn ends(c: u16) -> (Endpoint, Endpoint) {
    let c = c % CONNECTIONS;
    (
        Endpoint {
            addr: 0x0a00_0001,
            port: 20000 + c,
        },
        Endpoint {
            addr: 0x0a00_0102 + u32::from(c % 4),
            port: 8080,
        },
    )
}

/// A segment of connection `c` sent from `side`'s host, numbered from its initial sequence number.
fn segment(c: u16, side: Port, flags: Flags) -> Segment {
    let (fixed, mobile) = ends(c);
    let (src, dst) = match side {
        Port::Wired => (fixed, mobile),
        Port::Wireless => (mobile, fixed),
    };
    Segment {
        src,
        dst,
        seq: Seq(BASES[usize::from(side == Port::Wireless)]),
        flags,
        window: 65535,
        mss: flags.contains(Flags::SYN).then_some(1460),
        ..Segment::default()
    }
}

fn side(b: &mut dyn ByteSource) -> Port {
    if b.byte() & 1 == 0 {
        Port::Wired
    } else {
        Port::Wireless
    }
}

/// One segment of a connection: a handshake's, data, a FIN or a reset, numbered near the
/// connection's initial sequence numbers.
fn connection_segment(b: &mut dyn ByteSource) -> (Port, Segment) {
    let c = b.u16();
    let from = side(b);
    let flags = match b.byte() % 8 {
        0 => Flags::SYN,
        1 => Flags(Flags::SYN.0 | Flags::ACK.0),
        2 | 3 => Flags::ACK,
        4 => Flags(Flags::FIN.0 | Flags::ACK.0),
        5 => Flags::RST,
        6 => Flags(Flags::RST.0 | Flags::ACK.0),
        _ => Flags(b.byte()),
    };
    let mut seg = segment(c, from, flags);
    let (own, peer) = match from {
        Port::Wired => (BASES[0], BASES[1]),
        Port::Wireless => (BASES[1], BASES[0]),
    };
    seg.seq = seq_near(b, own);
    seg.ack = seq_near(b, peer);
    seg.window = b.u16();
    if !flags.contains(Flags::SYN) && !flags.contains(Flags::RST) {
        seg.len = u32::from(b.u16() % 3000);
    }
    (from, seg)
}

fn live(seg: &Segment) -> Option<LivePacket> {
    LivePacket::classify(wire::encode(seg, None)).ok()
}

/// Paper 000's split relay (`SplitConfig::paper000`) with what a selector byte's low three bits
/// choose: bit 0 Reno or SMART towards the mobile hosts, bits 1-2 the MSS (1400, 536, 64 or 1460
/// bytes). The split targets read their other settings from the byte's higher bits.
pub fn relay_settings(sel: u8) -> SplitConfig {
    let policy = if sel & 1 == 0 {
        RecoveryPolicy::RENO
    } else {
        RecoveryPolicy::SMART
    };
    let mss = [1400, 536, 64, 1460][usize::from(sel >> 1) % 4];
    SplitConfig::paper000(mss, policy)
}

/// The settings an input's first bytes choose: Reno or SMART towards the mobile hosts, the MSS,
/// a 64 KB or 4 KB relay buffer, an idle limit of RFC 5382's 2 h 4 min or 1 s to 1 min, and a
/// memory bound of the default or 0 to 8 relays.
pub fn config(b: &mut dyn ByteSource) -> SplitConfig {
    let sel = b.byte();
    let mut cfg = relay_settings(sel);
    if sel & 0x08 != 0 {
        cfg.relay_bytes = 4096;
    }
    if sel & 0x10 != 0 {
        cfg.idle = Time::from(1 + b.byte() % 60) * SEC;
    }
    if sel & 0x20 == 0 {
        cfg.max_memory = u64::from(b.byte() % 9) * store_bound(&cfg);
    }
    cfg
}

/// One relay table under test, its clock, and what the checks need to remember.
pub struct Table {
    pub agent: SplitAgent<LivePacket>,
    cfg: SplitConfig,
    now: Time,
    /// When the last packet reached the base station.
    last_packet: Time,
    /// The agent's counters after the last operation.
    stats: SplitStats,
    /// The packets handed to the base station (what it sends unchanged is one of them).
    seen: Seen,
    /// Packets handed over since `seen` was last emptied: it is kept to the recent ones, as a
    /// table driven for millions of operations would otherwise grow it without end.
    seen_count: usize,
    /// Operations done.
    pub ops: u64,
}

impl Table {
    pub fn new(cfg: SplitConfig) -> Table {
        let agent = SplitAgent::new(cfg.clone());
        Table {
            stats: agent.stats(),
            agent,
            cfg,
            now: 0,
            last_packet: 0,
            seen: Seen::default(),
            seen_count: 0,
            ops: 0,
        }
    }

    /// One operation read from `b`: a SYN flood, a connection's segment, a time step, a jump
    /// past the idle limit or to the next timer, or raw bytes.
    pub fn step(&mut self, b: &mut dyn ByteSource) {
        self.ops += 1;
        match b.byte() % 8 {
            0 => {
                // a SYN flood: consecutive connections opened from one side
                let (from, first) = (side(b), b.u16());
                let n = 1 + b.u16() % FLOOD;
                for c in first..first.saturating_add(n) {
                    if let Some(p) = live(&segment(c, from, Flags::SYN)) {
                        self.deliver(from, p);
                    }
                }
            }
            1..=3 => {
                let (from, seg) = connection_segment(b);
                if let Some(p) = live(&seg) {
                    self.deliver(from, p);
                }
            }
            4 => {
                self.now += time_step(b);
                self.fire_due();
            }
            5 => {
                self.now += self.cfg.idle + Time::from(b.u16());
                self.fire_due();
            }
            6 => {
                if let Some(t) = self.agent.poll_timeout() {
                    self.now = self.now.max(t);
                    self.fire_due();
                }
            }
            _ => {
                // anything at all: the fuzz crate's packets of three connections, or raw bytes
                let from = side(b);
                let n = usize::from(b.u16() % 1600);
                if let Ok(p) = LivePacket::classify(b.bytes(n)) {
                    self.deliver(from, p);
                }
            }
        }
    }

    /// Hands `p` to the base station from `from`, drains and checks its output.
    fn deliver(&mut self, from: Port, p: LivePacket) {
        let Some(seg) = p.segment().copied() else {
            return;
        };
        let fresh_syn = seg.is_syn() && !seg.has_ack();
        let quiet = self.now.saturating_sub(self.last_packet) >= self.cfg.idle;
        let before = self.stats;
        if self.seen_count >= 4096 {
            self.seen = Seen::default();
            self.seen_count = 0;
        }
        self.seen.add(p.bytes());
        self.seen_count += 1;
        let given = p.bytes().to_vec();
        self.agent.on_packet(self.now, from, p);
        self.last_packet = self.now;
        let passed_on = self.drain().contains(&given);
        self.check_bounds();
        let after = self.stats;
        if fresh_syn && quiet && after.relays == before.relays + 1 {
            assert_eq!(
                self.agent.relay_count(),
                1,
                "relays left after the idle limit"
            );
        }
        if after.unsplit > before.unsplit {
            assert!(fresh_syn, "a connection left unsplit without its SYN");
            assert_eq!(
                after.relays, before.relays,
                "an unsplit connection with a relay"
            );
            assert!(passed_on, "an unsplit SYN not passed on as it came");
        }
    }

    /// Takes everything the base station sends, checks what it built, returns what it sent.
    fn drain(&mut self) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        while let Some(t) = self.agent.poll_transmit(self.now) {
            let b = t.packet.bytes().to_vec();
            if !self.seen.contains(&b) {
                match t.packet.segment() {
                    Some(seg) => assert_valid_bytes(&b, seg, "split_table"),
                    None => panic!("split_table: sent a non-TCP packet it was never given"),
                }
            }
            out.push(b);
            assert!(out.len() <= 100_000, "unbounded output after one event");
        }
        out
    }

    fn fire_due(&mut self) {
        for _ in 0..64 {
            match self.agent.poll_timeout() {
                Some(t) if t <= self.now => {
                    self.agent.on_timeout(self.now);
                    self.drain();
                }
                _ => return self.check_bounds(),
            }
        }
        panic!("the relays' timers stay due at {} ns", self.now);
    }

    fn check_bounds(&mut self) {
        let max = self.cfg.max_relays();
        let n = self.agent.relay_count() as u64;
        self.stats = self.agent.stats();
        assert!(n <= max, "{n} relays, at most {max}");
        let most = self.stats.relays_most;
        assert!(most <= max, "{most} relays at once, at most {max}");
        let bound = n * store_bound(&self.cfg);
        let held = self.agent.probe().held_bytes;
        assert!(
            held <= bound,
            "the relays hold {held} bytes, {n} of them at most {bound}"
        );
        assert!(bound <= self.cfg.max_memory);
        let stored = self.agent.stored_bytes();
        assert!(
            stored <= bound,
            "the relays store {stored} bytes, at most {bound}"
        );
    }
}
