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

#[path = "common/script.rs"]
mod script;
use script::{engine_step, Script};
use snooplab_sim::{Env, Protocol, Scenario, Simulation};

const SEGMENTS: u32 = 20;
const MSS: u32 = 1000;
/// How long a fake host takes to answer.
const TURNAROUND: Time = 10 * US;

fn pattern(i: usize) -> u8 {
    (i.wrapping_mul(31) ^ (i >> 8)) as u8
}

/// A real IPv4/TCP packet from a fake host.
fn tcp_packet(
    (from, to): (Endpoint, Endpoint),
    (seq, ack): (Seq, Seq),
    flags: Flags,
    payload: &[u8],
    ip_id: u16,
) -> SimPacket {
    let seg = Segment {
        src: from,
        dst: to,
        seq,
        ack,
        flags,
        window: 32768,
        len: payload.len() as u32,
        ip_id,
        ..Segment::default()
    };
    let bytes = wire::encode(&seg, (!payload.is_empty()).then_some(payload));
    SimPacket::from_wire(bytes).expect("a well-formed packet")
}

/// The fake mobile host's receiver (both drivers): it answers a SYN, takes in-order data and
/// acknowledges every data packet, with a duplicate ACK for anything out of order.
struct FakeReceiver {
    received: Vec<u8>,
    rcv_nxt: Seq,
}

impl FakeReceiver {
    fn new() -> FakeReceiver {
        FakeReceiver {
            received: Vec::new(),
            rcv_nxt: Seq(0),
        }
    }

    /// What it answers `seg` with: sequence number, ACK and flags.
    fn answer(&mut self, seg: &Segment, payload: &[u8]) -> Option<(Seq, Seq, Flags)> {
        if seg.flags.contains(Flags::SYN) {
            self.rcv_nxt = seg.seq + 1;
            return Some((Seq(5000), self.rcv_nxt, Flags::SYN | Flags::ACK));
        }
        if seg.len == 0 {
            return None;
        }
        if seg.seq == self.rcv_nxt {
            self.received.extend_from_slice(payload);
            self.rcv_nxt += seg.len;
        }
        Some((Seq(5001), self.rcv_nxt, Flags::ACK))
    }
}

/// A packet a fake host's network gave it, parsed; `None` if it is not intact TCP (a corrupted
/// frame, or a handoff message or tunnelled packet, which do not parse as TCP).
fn parse_intact(packet: &SimPacket) -> Option<(Segment, Vec<u8>)> {
    let bytes = packet.wire_bytes();
    let parsed = wire::parse(&bytes).ok().filter(|p| p.checksums_ok)?;
    Some((parsed.seg, bytes[parsed.payload_offset..].to_vec()))
}

/// Two fake hosts: `fh` sends `SEGMENTS` segments once its SYN is answered and never resends;
/// `mh` takes in-order data and acknowledges every packet (a duplicate ACK for anything else).
struct FakeHosts {
    fh: (NodeId, Endpoint),
    mh: (NodeId, Endpoint),
    /// Packets the hosts will send: time, node, packet.
    script: Script<(NodeId, SimPacket)>,
    inbox: VecDeque<(Time, NodeId, SimPacket)>,
    rx: FakeReceiver,
    /// Packets that reached a host with a bad checksum (its kernel would drop them).
    corrupted_at_mh: u32,
    delivered: u32,
    /// The hosts the last event delivered to, and how often the engine then asked for their
    /// answers: after deliveries to `fh` alone (off a wire) and after any to `mh` (off a cell).
    sent_to: Vec<NodeId>,
    asked_after_wire: u32,
    asked_after_cell: u32,
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
        tcp_packet((from, to), (seq, ack), flags, payload, 0)
    }

    fn at(&mut self, t: Time, node: NodeId, p: SimPacket) {
        self.script.at(t, (node, p));
    }

    fn mh_gets(&mut self, now: Time, seg: &Segment, payload: &[u8]) {
        if let Some((seq, ack, flags)) = self.rx.answer(seg, payload) {
            let p = self.packet(self.mh.1, self.fh.1, seq, ack, flags, &[]);
            self.at(now + TURNAROUND, self.mh.0, p);
        }
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
        self.sent_to.clear();
        match self.script.due(queue.next_time()) {
            Some((t, sent)) => {
                self.inbox.extend(sent.into_iter().map(|(n, p)| (t, n, p)));
                Step::Input(t)
            }
            None => engine_step(queue),
        }
    }

    fn recv(&mut self) -> Option<(Time, NodeId, SimPacket)> {
        self.inbox.pop_front()
    }

    fn send(&mut self, node: NodeId, now: Time, packet: &SimPacket) {
        self.delivered += 1;
        self.sent_to.push(node);
        // every event here delivers one packet (a frame's end, a link's arrival), and each is
        // handed out after the event that delivered it, a corrupted frame too: not held until
        // the next delivery
        assert_eq!(self.sent_to.len(), 1, "one packet per event, at its event");
        let Some((seg, payload)) = parse_intact(packet) else {
            // the network hands out whole packets: this one's checksum is broken
            assert!(wire::parse(&packet.wire_bytes()).is_ok(), "a whole packet");
            self.corrupted_at_mh += u32::from(node == self.mh.0);
            return;
        };
        if node == self.mh.0 {
            self.mh_gets(now, &seg, &payload);
        } else if node == self.fh.0 {
            self.fh_gets(now, &seg);
        }
    }

    fn answer(&mut self) -> Option<(NodeId, SimPacket)> {
        if self.sent_to.contains(&self.mh.0) {
            self.asked_after_cell += 1;
        } else if !self.sent_to.is_empty() {
            self.asked_after_wire += 1;
        }
        None // these hosts answer later, through `recv`
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
        script: Script::default(),
        inbox: VecDeque::new(),
        rx: FakeReceiver::new(),
        corrupted_at_mh: 0,
        delivered: 0,
        sent_to: Vec::new(),
        asked_after_wire: 0,
        asked_after_cell: 0,
    };
    let syn = hosts.packet(hosts.fh.1, hosts.mh.1, Seq(100), Seq(0), Flags::SYN, &[]);
    hosts.at(MS, fh, syn);
    let sim = Simulation::with_external_hosts(&net, "lan", &[fh, mh]);
    let r = sim.run_with(&mut hosts);

    let want: Vec<u8> = (0..(SEGMENTS * MSS) as usize).map(pattern).collect();
    assert_eq!(hosts.rx.received.len(), want.len(), "every byte arrived");
    assert!(hosts.rx.received == want, "bit for bit");
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
    // a cell's next pick waits for the host a frame reached; nothing waits on a wire, so what a
    // host sends after a wired delivery is read at its time (`take_answers`)
    assert!(hosts.asked_after_cell > 0, "answers asked off the cell");
    assert_eq!(hosts.asked_after_wire, 0, "answers asked off the wire");
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

/// Paper 002's handoff testbed (examples/paper002-handoff.toml) with a handoff every second and
/// no bit errors.
fn handoff_network() -> snooplab_sim::network::Network {
    let text = include_str!("../../../examples/paper002-handoff.toml")
        .replace("every-s = 5", "every-s = 1");
    let sc = Scenario::from_toml(&text).unwrap_or_else(|e| panic!("{e}"));
    let mut net = sc.network();
    for cell in &mut net.cells {
        for st in &mut cell.stations {
            st.down = ChannelSpec::None;
            st.up = ChannelSpec::None;
        }
    }
    // beacons and the handoff timer never stop: the run ends at this cap
    net.max_time = 5_500 * MS;
    net
}

/// What a fake host does next: send a packet, or (the fixed host) look at its retransmission
/// timer.
enum Act {
    Send(NodeId, SimPacket),
    FhTimer,
}

/// Two fake hosts across paper 002's handoff network: `fh` sends `ROAM_SEGMENTS` segments paced
/// one per `ROAM_GAP` (so the transfer spans several handoffs), each packet with an IP id of its
/// own as a kernel gives it, and resends the first unacknowledged segment on a duplicate ACK or
/// when its timer finds no progress; `mh` takes in-order data and acknowledges every packet.
struct RoamingHosts {
    fh: (NodeId, Endpoint),
    mh: (NodeId, Endpoint),
    script: Script<Act>,
    inbox: VecDeque<(Time, NodeId, SimPacket)>,
    rx: FakeReceiver,
    /// The fixed host's first segment's sequence number and its highest ACK.
    iss: Seq,
    acked: Seq,
    acked_at_last_timer: Seq,
    next_ip_id: u16,
    /// What reached the mobile host that was not an intact TCP packet of the flow.
    strange_at_mh: u32,
    data_at_mh: u32,
}

const ROAM_SEGMENTS: u32 = 150;
const ROAM_MSS: u32 = 1000;
const ROAM_GAP: Time = 20 * MS;

impl RoamingHosts {
    fn packet(
        &mut self,
        from: Endpoint,
        to: Endpoint,
        seq: Seq,
        ack: Seq,
        flags: Flags,
    ) -> SimPacket {
        let payload: Vec<u8> = if flags.contains(Flags::PSH) {
            let from = seq.since(self.iss) as usize;
            (from..from + ROAM_MSS as usize).map(pattern).collect()
        } else {
            Vec::new()
        };
        self.next_ip_id = self.next_ip_id.wrapping_add(1);
        tcp_packet((from, to), (seq, ack), flags, &payload, self.next_ip_id)
    }

    fn at(&mut self, t: Time, act: Act) {
        self.script.at(t, act);
    }

    fn end(&self) -> Seq {
        self.iss + ROAM_SEGMENTS * ROAM_MSS
    }

    fn fh_sends_segment(&mut self, at: Time, seq: Seq) {
        let (fh, mh) = (self.fh.1, self.mh.1);
        let p = self.packet(fh, mh, seq, Seq(5001), Flags::ACK | Flags::PSH);
        self.at(at, Act::Send(self.fh.0, p));
    }

    fn fh_gets(&mut self, now: Time, seg: &Segment) {
        if seg.flags.contains(Flags::SYN) {
            let (fh, mh) = (self.fh.1, self.mh.1);
            let p = self.packet(fh, mh, self.iss, seg.seq + 1, Flags::ACK);
            self.at(now + TURNAROUND, Act::Send(self.fh.0, p));
            for k in 0..ROAM_SEGMENTS {
                let t = now + TURNAROUND + Time::from(k) * ROAM_GAP;
                self.fh_sends_segment(t, self.iss + k * ROAM_MSS);
            }
            self.at(now + 200 * MS, Act::FhTimer);
            return;
        }
        if seg.ack.gt(self.acked) {
            self.acked = seg.ack;
        } else if seg.ack == self.acked && self.acked.lt(self.end()) {
            // a duplicate ACK: the segment it asks for again
            self.fh_sends_segment(now + TURNAROUND, self.acked);
        }
    }

    fn fh_timer(&mut self, now: Time) {
        if !self.acked.lt(self.end()) {
            return;
        }
        if self.acked == self.acked_at_last_timer {
            self.fh_sends_segment(now, self.acked);
        }
        self.acked_at_last_timer = self.acked;
        self.at(now + 200 * MS, Act::FhTimer);
    }

    fn mh_gets(&mut self, now: Time, seg: &Segment, payload: &[u8]) {
        self.data_at_mh += u32::from(seg.len > 0 && !seg.flags.contains(Flags::SYN));
        if let Some((seq, ack, flags)) = self.rx.answer(seg, payload) {
            let p = self.packet(self.mh.1, self.fh.1, seq, ack, flags);
            self.at(now + TURNAROUND, Act::Send(self.mh.0, p));
        }
    }
}

impl Driver for RoamingHosts {
    const EXTERNAL: bool = true;

    fn next<E>(&mut self, queue: &mut EventQueue<E>) -> Step<E> {
        while let Some((t, acts)) = self.script.due(queue.next_time()) {
            for act in acts {
                match act {
                    Act::Send(n, p) => self.inbox.push_back((t, n, p)),
                    Act::FhTimer => self.fh_timer(t),
                }
            }
            if !self.inbox.is_empty() {
                return Step::Input(t);
            }
        }
        engine_step(queue)
    }

    fn recv(&mut self) -> Option<(Time, NodeId, SimPacket)> {
        self.inbox.pop_front()
    }

    fn send(&mut self, node: NodeId, now: Time, packet: &SimPacket) {
        let Some((seg, payload)) = parse_intact(packet) else {
            self.strange_at_mh += u32::from(node == self.mh.0);
            return;
        };
        if node == self.mh.0 {
            self.mh_gets(now, &seg, &payload);
        } else if node == self.fh.0 {
            self.fh_gets(now, &seg);
        }
    }

    fn flows_finished(&mut self) -> bool {
        false
    }
}

/// A shared in-memory capture file.
#[derive(Clone, Default)]
struct Shared(Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Shared {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("not poisoned").extend_from_slice(b);
        Ok(b.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn an_outside_mobile_host_hands_off_with_the_engines_mobility_layer() {
    use snooplab_sim::capture::{read_packets, Capture};
    use snooplab_sim::Observer;

    let net = handoff_network();
    let fh = net.node_id("fh").expect("the file has fh");
    let mh = net.node_id("mh").expect("the file has mh");
    let ends = |n: NodeId, port| Endpoint {
        addr: net.nodes[n].addr,
        port,
    };
    let mut hosts = RoamingHosts {
        fh: (fh, ends(fh, 40000)),
        mh: (mh, ends(mh, 5001)),
        script: Script::default(),
        inbox: VecDeque::new(),
        rx: FakeReceiver::new(),
        iss: Seq(101),
        acked: Seq(101),
        acked_at_last_timer: Seq(101),
        next_ip_id: 0,
        strange_at_mh: 0,
        data_at_mh: 0,
    };
    let syn = hosts.packet(hosts.fh.1, hosts.mh.1, Seq(100), Seq(0), Flags::SYN);
    hosts.at(MS, Act::Send(fh, syn));
    let names = net.capture_names();
    let files: Vec<Shared> = names.iter().map(|_| Shared::default()).collect();
    let sinks = names
        .iter()
        .zip(&files)
        .map(|(n, f)| {
            (
                n.clone(),
                Box::new(f.clone()) as snooplab_sim::capture::Sink,
            )
        })
        .collect();
    let obs = Observer::default().with_capture(Capture::new(sinks).expect("in memory"));
    let sim = Simulation::observed_with_external_hosts(&net, "lan", &[fh, mh], obs);
    let (r, obs) = sim.run_observed_with(&mut hosts);
    obs.capture.expect("a capture").finish().expect("in memory");

    let want: Vec<u8> = (0..(ROAM_SEGMENTS * ROAM_MSS) as usize)
        .map(pattern)
        .collect();
    assert_eq!(hosts.rx.received.len(), want.len(), "every byte arrived");
    assert!(hosts.rx.received == want, "bit for bit");
    assert_eq!(
        hosts.strange_at_mh, 0,
        "the host got only TCP: handoff messages stop at its mobility layer"
    );
    // the mobility layer is the engine's: its handoffs are in the results, as for a modelled host
    let h = &r.handoffs[0];
    assert_eq!(h.mobile, "mh");
    assert!(h.handoffs >= 4, "a handoff a second for 5.5 s: {h:?}");
    assert_eq!(h.confirmed, h.handoffs, "{h:?}");
    assert!(h.beacons >= 10, "{h:?}");
    // the Forward requests carried the real packets' IP ids, which the new primary found in
    // its buffer (section 6) for the handoffs during the transfer
    assert!(h.ids_found >= 2, "{h:?}");
    assert!(h.first_packet_ms_mean > 0.0, "{h:?}");

    let pcap = |name: &str| {
        let i = names.iter().position(|n| n == name).expect("a capture");
        read_packets(&files[i].0.lock().expect("not poisoned"))
    };
    let udp_4344 =
        |p: &Vec<u8>| p.len() >= 28 && p[9] == 17 && u16::from_be_bytes([p[22], p[23]]) == 4344;
    for cell in ["cell1", "cell2"] {
        let packets = pcap(cell);
        let control: Vec<_> = packets.iter().filter(|p| udp_4344(p)).collect();
        // beacons both ways of a handoff, requests from the mobile host, confirmations
        assert!(
            control.len() >= 8,
            "{cell}: {} control datagrams",
            control.len()
        );
        let from_mh = control
            .iter()
            .filter(|p| p[12..16] == net.nodes[mh].addr.to_be_bytes())
            .count();
        assert!(
            from_mh >= 2,
            "{cell}: the mobile host's requests went through it"
        );
        // the mobile host's ACKs left by whichever base station was primary: both cells
        // carried some
        let acks_up = packets
            .iter()
            .filter(|p| p[9] == 6 && p[12..16] == net.nodes[mh].addr.to_be_bytes())
            .count();
        assert!(acks_up > 0, "{cell}: no ACK of the mobile host");
    }
    // the home agent's tunnel carries the kernel's own bytes inside IP-in-IP (protocol 4)
    let tunnel = pcap("ha-bs1");
    let inner: Vec<_> = tunnel
        .iter()
        .filter(|p| p[9] == 4)
        .map(|p| &p[20..])
        .filter(|inner| inner.len() > 40)
        .collect();
    assert!(!inner.is_empty(), "no IP-in-IP on ha-bs1");
    for p in inner {
        let parsed = wire::parse(p).expect("an inner IPv4/TCP packet");
        assert!(
            parsed.checksums_ok,
            "the inner packet is the host's, intact"
        );
        let at = parsed.seg.seq.since(Seq(101)) as usize;
        let want: Vec<u8> = (at..at + parsed.seg.len as usize).map(pattern).collect();
        assert_eq!(&p[parsed.payload_offset..], &want[..]);
    }
}
