//! The clock seam (run/driver.rs) without root: two hosts outside the engine, played by a
//! deterministic in-process driver on virtual time, exchange real IPv4/TCP packets through paper
//! 000's base station running snoop. The payload arrives bit for bit, a corrupted frame reaches
//! the receiving host with a broken checksum, and snoop repairs it locally.

use std::collections::VecDeque;
use std::sync::Arc;

use snooplab_proto::time::{MS, US};
use snooplab_proto::{wire, Endpoint, Flags, Segment, Seq, Time};
use snooplab_sim::channel::{ChannelSpec, ChannelTrace, Marks};
use snooplab_sim::engine::EventQueue;
use snooplab_sim::network::NodeId;
use snooplab_sim::packet::SimPacket;
use snooplab_sim::run::{Driver, Step};
use snooplab_sim::{Env, Protocol, Scenario, Simulation};

const SEGMENTS: u32 = 20;
const MSS: u32 = 1000;
/// How long a fake host takes to answer.
const TURNAROUND: Time = 10 * US;

fn pattern(i: usize) -> u8 {
    (i.wrapping_mul(31) ^ (i >> 8)) as u8
}

/// Two fake hosts: `fh` sends `SEGMENTS` segments once its SYN is answered and never resends;
/// `mh` takes in-order data and acknowledges every packet (a duplicate ACK for anything else).
struct FakeHosts {
    fh: (NodeId, Endpoint),
    mh: (NodeId, Endpoint),
    /// Packets the hosts will send: time, node, packet (in time order).
    script: VecDeque<(Time, NodeId, SimPacket)>,
    inbox: VecDeque<(Time, NodeId, SimPacket)>,
    received: Vec<u8>,
    rcv_nxt: Seq,
    /// Packets that reached a host with a bad checksum (its kernel would drop them).
    corrupted_at_mh: u32,
    delivered: u32,
}

impl FakeHosts {
    fn packet(
        &self,
        from: Endpoint,
        to: Endpoint,
        seq: Seq,
        ack: Seq,
        flags: Flags,
        payload: &[u8],
    ) -> SimPacket {
        let seg = Segment {
            src: from,
            dst: to,
            seq,
            ack,
            flags,
            window: 32768,
            len: payload.len() as u32,
            ..Segment::default()
        };
        let bytes = wire::encode(&seg, (!payload.is_empty()).then_some(payload));
        SimPacket::from_wire(bytes).expect("a well-formed packet")
    }

    fn at(&mut self, t: Time, node: NodeId, p: SimPacket) {
        let i = self.script.partition_point(|x| x.0 <= t);
        self.script.insert(i, (t, node, p));
    }

    fn mh_gets(&mut self, now: Time, seg: &Segment, payload: &[u8]) {
        let (mh, fh) = (self.mh.1, self.fh.1);
        if seg.flags.contains(Flags::SYN) {
            self.rcv_nxt = seg.seq + 1;
            let p = self.packet(
                mh,
                fh,
                Seq(5000),
                self.rcv_nxt,
                Flags::SYN | Flags::ACK,
                &[],
            );
            self.at(now + TURNAROUND, self.mh.0, p);
            return;
        }
        if seg.len == 0 {
            return;
        }
        if seg.seq == self.rcv_nxt {
            self.received.extend_from_slice(payload);
            self.rcv_nxt += seg.len;
        }
        let p = self.packet(mh, fh, Seq(5001), self.rcv_nxt, Flags::ACK, &[]);
        self.at(now + TURNAROUND, self.mh.0, p);
    }

    fn fh_gets(&mut self, now: Time, seg: &Segment) {
        if !seg.flags.contains(Flags::SYN) {
            return;
        }
        let (fh, mh) = (self.fh.1, self.mh.1);
        let ack = seg.seq + 1;
        let p = self.packet(fh, mh, Seq(101), ack, Flags::ACK, &[]);
        self.at(now + TURNAROUND, self.fh.0, p);
        for k in 0..SEGMENTS {
            let from = (k * MSS) as usize;
            let payload: Vec<u8> = (from..from + MSS as usize).map(pattern).collect();
            let p = self.packet(
                fh,
                mh,
                Seq(101 + k * MSS),
                ack,
                Flags::ACK | Flags::PSH,
                &payload,
            );
            self.at(now + TURNAROUND, self.fh.0, p);
        }
    }
}

impl Driver for FakeHosts {
    const EXTERNAL: bool = true;

    fn next<E>(&mut self, queue: &mut EventQueue<E>) -> Step<E> {
        let event = queue.next_time();
        match self.script.front().map(|x| x.0) {
            Some(t) if event.is_none_or(|e| t < e) => {
                while self.script.front().is_some_and(|x| x.0 == t) {
                    let (t, n, p) = self.script.pop_front().expect("checked");
                    self.inbox.push_back((t, n, p));
                }
                Step::Input(t)
            }
            _ => match queue.pop_next() {
                Some((t, e)) => Step::Event(t, e),
                None => Step::End,
            },
        }
    }

    fn recv(&mut self) -> Option<(Time, NodeId, SimPacket)> {
        self.inbox.pop_front()
    }

    fn send(&mut self, node: NodeId, now: Time, packet: &SimPacket) {
        let bytes = packet.wire_bytes();
        let parsed = wire::parse(&bytes).expect("the network hands out whole packets");
        self.delivered += 1;
        if !parsed.checksums_ok {
            self.corrupted_at_mh += u32::from(node == self.mh.0);
            return;
        }
        let payload = bytes[parsed.payload_offset..].to_vec();
        if node == self.mh.0 {
            self.mh_gets(now, &parsed.seg, &payload);
        } else if node == self.fh.0 {
            self.fh_gets(now, &parsed.seg);
        }
    }

    fn flows_finished(&mut self) -> bool {
        false
    }
}

#[test]
fn outside_hosts_exchange_real_packets_through_snoop_bit_for_bit() {
    let sc = Scenario::paper000(Protocol::LlTcpAware, Env::Lan, 32768, 1);
    let mut net = sc.network();
    // the 6th frame towards the mobile host (SYN-ACK's way is the other one: the SYN is frame 1,
    // then the handshake's ACK and data) is corrupted, nothing else
    let lost: Vec<bool> = (0..200).map(|i| i == 5).collect();
    let trace = ChannelSpec::Trace(Arc::new(ChannelTrace {
        source: "test".into(),
        marks: Marks::Frames {
            lost,
            repeat: false,
        },
    }));
    net.cells[0].stations[0].down = trace;
    net.cells[0].stations[0].up = ChannelSpec::None;
    let fh = net.node_id("fh").expect("paper 000 has fh");
    let mh = net.node_id("mh").expect("paper 000 has mh");
    let ends = |n: NodeId, port| Endpoint {
        addr: net.nodes[n].addr,
        port,
    };
    let mut hosts = FakeHosts {
        fh: (fh, ends(fh, 40000)),
        mh: (mh, ends(mh, 5001)),
        script: VecDeque::new(),
        inbox: VecDeque::new(),
        received: Vec::new(),
        rcv_nxt: Seq(0),
        corrupted_at_mh: 0,
        delivered: 0,
    };
    let syn = hosts.packet(hosts.fh.1, hosts.mh.1, Seq(100), Seq(0), Flags::SYN, &[]);
    hosts.at(MS, fh, syn);
    let sim = Simulation::with_external_hosts(&net, "lan", &[fh, mh]);
    let r = sim.run_with(&mut hosts);

    let want: Vec<u8> = (0..(SEGMENTS * MSS) as usize).map(pattern).collect();
    assert_eq!(hosts.received.len(), want.len(), "every byte arrived");
    assert!(hosts.received == want, "bit for bit");
    assert_eq!(
        hosts.corrupted_at_mh, 1,
        "the corrupted frame reached the host, checksum broken"
    );
    let counters = &r.agents[0].counters;
    assert!(
        counters.get("local_retransmissions") >= 1,
        "snoop resent the lost segment: {counters:?}"
    );
    assert_eq!(r.cells[0].frames_corrupted_down, 1);
    assert!(r.events > 0);
}

#[test]
fn the_simulator_and_a_driver_without_hosts_give_the_same_run() {
    // the seam adds nothing on simulated time: the default run and the same run through a
    // driver's loop are one run
    let sc = Scenario::paper000(Protocol::LlTcpAware, Env::Lan, 32768, 65536);
    let a = Simulation::new(&sc).run();
    let b = Simulation::new(&sc).run_with(&mut snooplab_sim::run::SimulatedTime);
    assert_eq!(format!("{a:?}"), format!("{b:?}"));
}

#[test]
fn a_scenario_file_names_each_hosts_stack() {
    use snooplab_sim::network::file::Stack;
    let text = |stack: &str| {
        format!(
            "[[node]]\nname = \"fh\"\n{stack}\n[[node]]\nname = \"bs\"\nkind = \"base-station\"\n\
             [[node]]\nname = \"mh\"\nstack = \"model\"\n[[link]]\nbetween = [\"fh\", \"bs\"]\n\
             [[cell]]\nbase-station = \"bs\"\nstations = [\"mh\"]\n[[flow]]\nfrom = \"fh\"\nto = \"mh\"\n"
        )
    };
    let sc = Scenario::from_toml(&text("stack = \"kernel\"")).unwrap_or_else(|e| panic!("{e}"));
    let stacks = sc.topology.as_ref().map(|t| t.stacks());
    assert_eq!(
        stacks,
        Some(vec![Some(Stack::Kernel), None, Some(Stack::Model)])
    );
    let e = Scenario::from_toml(&text("stack = \"linux\"")).unwrap_err();
    assert!(
        e.contains("node 'fh'") && e.contains("unknown stack 'linux'"),
        "{e}"
    );
}
