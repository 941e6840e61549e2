//! Mixed flows without root (docs/live.md, "Mixed networks"): one end of paper 000's flow is the
//! engine's modelled TCP, the other a host outside the engine, played by a small in-process TCP
//! on virtual time. The modelled sender puts the transfer's real bytes on the wire
//! (`transfer_bytes.rs`), through snoop and a lossy channel; the modelled receiver checks every
//! real byte it gets.

use std::collections::VecDeque;

use snooplab_proto::time::US;
use snooplab_proto::{wire, Endpoint, Flags, Segment, Seq, Time};
use snooplab_sim::engine::EventQueue;
use snooplab_sim::network::{Network, NodeId};
use snooplab_sim::packet::SimPacket;
use snooplab_sim::run::{Driver, Step};

#[path = "common/script.rs"]
mod script;
use script::{one_host_step, Script};
use snooplab_sim::transfer_bytes;
use snooplab_sim::{Env, Protocol, Scenario, Simulation};

/// How long the outside host takes to answer.
const TURNAROUND: Time = 20 * US;
const TRANSFER: u64 = 200_000;
const MSS: u32 = 1400;

/// One TCP end outside the engine, as simple as the test allows: a receiver that acknowledges
/// every segment cumulatively and keeps what arrives in order, or a sender that sends its
/// whole transfer once its SYN is answered and resends from the first unacknowledged byte on
/// three duplicate ACKs.
struct Outside {
    node: NodeId,
    me: Endpoint,
    peer: Endpoint,
    /// Packets it will send, and what came in.
    out: Script<SimPacket>,
    inbox: VecDeque<(Time, NodeId, SimPacket)>,
    rcv_nxt: Seq,
    received: Vec<u8>,
    /// As a sender: the transfer's bytes (one byte spoiled, when asked), the first data
    /// sequence number, duplicate ACKs seen.
    data: Option<Vec<u8>>,
    first: Seq,
    dupacks: u32,
    last_ack: Seq,
    fin_sent: bool,
    corrupted: u32,
}

impl Outside {
    fn new(node: NodeId, me: Endpoint, peer: Endpoint) -> Outside {
        Outside {
            node,
            me,
            peer,
            out: Script::default(),
            inbox: VecDeque::new(),
            rcv_nxt: Seq(0),
            received: Vec::new(),
            data: None,
            first: Seq(7001),
            dupacks: 0,
            last_ack: Seq(0),
            fin_sent: false,
            corrupted: 0,
        }
    }

    fn send(&mut self, at: Time, seq: Seq, flags: Flags, payload: &[u8]) {
        let seg = Segment {
            src: self.me,
            dst: self.peer,
            seq,
            ack: self.rcv_nxt,
            flags: flags | Flags::ACK,
            window: 65535,
            len: payload.len() as u32,
            mss: flags.contains(Flags::SYN).then_some(MSS as u16),
            ..Segment::default()
        };
        let bytes = wire::encode(&seg, (!payload.is_empty()).then_some(payload));
        let p = SimPacket::from_wire(bytes).expect("a well-formed packet");
        self.out.at(at, p);
    }

    /// An active open: a SYN (no ACK) with the MSS option.
    fn open(&mut self, at: Time) {
        let seg = Segment {
            src: self.me,
            dst: self.peer,
            seq: self.first - 1,
            flags: Flags::SYN,
            window: 65535,
            mss: Some(MSS as u16),
            ..Segment::default()
        };
        let p = SimPacket::from_wire(wire::encode(&seg, None)).expect("a SYN");
        self.out.at(at, p);
    }

    /// Sends the data from `from` on (16 segments at most: the receiver's window).
    fn send_data(&mut self, at: Time, from: Seq) {
        let Some(data) = self.data.clone() else {
            return;
        };
        let mut seq = from;
        for _ in 0..16 {
            let off = seq.since(self.first) as usize;
            if off >= data.len() {
                break;
            }
            let end = (off + MSS as usize).min(data.len());
            self.send(at, seq, Flags::PSH, &data[off..end]);
            seq += (end - off) as u32;
        }
    }

    fn gets(&mut self, now: Time, seg: &Segment, payload: &[u8]) {
        let at = now + TURNAROUND;
        if seg.is_syn() {
            self.rcv_nxt = seg.seq + 1;
            if !seg.has_ack() {
                return self.send(at, Seq(9000), Flags::SYN, &[]); // our SYN-ACK
            }
            self.last_ack = seg.ack;
            self.send(at, self.first, Flags::NONE, &[]);
            return self.send_data(at, self.first);
        }
        if self.data.is_some() {
            // a sender: new ACKs move the window, three duplicates resend
            let end = self.first + self.data.as_ref().map_or(0, |d| d.len() as u32);
            if seg.ack.gt(self.last_ack) {
                let window_end = self.last_ack + 16 * MSS;
                self.last_ack = seg.ack;
                self.dupacks = 0;
                if seg.ack == end && !self.fin_sent {
                    self.fin_sent = true;
                    return self.send(at, end, Flags::FIN, &[]);
                }
                return self.send_data(at, window_end.max(seg.ack));
            }
            if seg.is_fin() {
                self.rcv_nxt = seg.seq + 1;
                return self.send(at, end + 1, Flags::NONE, &[]);
            }
            self.dupacks += 1;
            if self.dupacks == 3 {
                let one = self.last_ack;
                let off = one.since(self.first) as usize;
                let data = self.data.clone().unwrap_or_default();
                let stop = (off + MSS as usize).min(data.len());
                self.send(at, one, Flags::PSH, &data[off..stop]);
            }
            return;
        }
        // a receiver
        if seg.seq == self.rcv_nxt && seg.len > 0 {
            self.received.extend_from_slice(payload);
            self.rcv_nxt += seg.len;
        }
        if seg.is_fin() && seg.seq + seg.len == self.rcv_nxt {
            self.rcv_nxt += 1;
            return self.send(at, Seq(9001), Flags::FIN, &[]);
        }
        if seg.len > 0 || seg.is_fin() {
            self.send(at, Seq(9001), Flags::NONE, &[]);
        }
    }
}

impl Driver for Outside {
    const EXTERNAL: bool = true;

    fn next<E>(&mut self, queue: &mut EventQueue<E>) -> Step<E> {
        one_host_step(&mut self.out, self.node, &mut self.inbox, queue)
    }

    fn recv(&mut self) -> Option<(Time, NodeId, SimPacket)> {
        self.inbox.pop_front()
    }

    fn send(&mut self, node: NodeId, now: Time, packet: &SimPacket) {
        assert_eq!(node, self.node, "only the outside host is handed packets");
        let bytes = packet.wire_bytes();
        let parsed = wire::parse(&bytes).expect("the network hands out whole packets");
        if !parsed.checksums_ok {
            self.corrupted += 1; // its kernel drops it
            return;
        }
        let payload = bytes[parsed.payload_offset..].to_vec();
        self.gets(now, &parsed.seg, &payload);
    }

    fn flows_finished(&mut self) -> bool {
        true
    }
}

fn network() -> (Network, NodeId, NodeId) {
    let mut sc = Scenario::paper000(Protocol::LlTcpAware, Env::Lan, 32768, 3);
    sc.transfer = TRANSFER;
    sc.mss = MSS;
    sc.error_every = 32 * 1024;
    let net = sc.network();
    let fh = net.node_id("fh").expect("paper 000 has fh");
    let mh = net.node_id("mh").expect("paper 000 has mh");
    (net, fh, mh)
}

#[test]
fn a_modelled_sender_puts_the_transfers_real_bytes_on_the_wire() {
    let (net, _, mh) = network();
    let (src, dst) = net.endpoints(0);
    let mut host = Outside::new(mh, dst, src);
    let r = Simulation::with_external_hosts(&net, "lan", &[mh]).run_with(&mut host);

    let mut want = vec![0; TRANSFER as usize];
    transfer_bytes::fill(transfer_bytes::seed_of(net.seed, 0), 0, &mut want);
    assert_eq!(host.received.len(), want.len(), "every byte arrived");
    assert!(host.received == want, "the transfer's bytes, bit for bit");
    assert!(
        host.corrupted > 0,
        "the channel corrupted frames on the way"
    );
    let f = &r.flows[0];
    assert!(
        r.agents[0].counters.get("local_retransmissions") > 0,
        "snoop repaired them from its cache of real packets"
    );
    assert!(
        f.wireless_data_frames > 0,
        "the engine counts the flow's frames"
    );
    assert!(
        f.invariants.messages.is_empty(),
        "a receiver outside the engine is not judged here: {:?}",
        f.invariants.messages
    );
}

#[test]
fn a_modelled_receiver_checks_every_real_byte() {
    let run = |spoil: Option<usize>| {
        let (net, fh, _) = network();
        let (src, dst) = net.endpoints(0);
        let mut host = Outside::new(fh, src, dst);
        let mut data = vec![0; TRANSFER as usize];
        transfer_bytes::fill(transfer_bytes::seed_of(net.seed, 0), 0, &mut data);
        if let Some(i) = spoil {
            data[i] ^= 0x40;
        }
        host.data = Some(data);
        host.open(0);
        Simulation::with_external_hosts(&net, "lan", &[fh]).run_with(&mut host)
    };
    let good = run(None);
    let f = &good.flows[0];
    assert!(f.invariants.complete, "{:?}", f.invariants.messages);
    assert_eq!(f.invariants.payload_mismatches, 0);
    assert!(f.throughput_mbps > 0.0);
    let bad = run(Some(70_001));
    let f = &bad.flows[0];
    assert!(
        f.invariants.payload_mismatches >= 1,
        "a spoiled byte is found: {:?}",
        f.invariants
    );
}
