//! An outside host's immediate answer and the medium's next pick (issue 50, `run/outside_hosts.rs`,
//! `take_answers`): a receiver outside the engine that answers each data frame at once, as a
//! Linux host does in the TUN write's own call, has its ACK queued at its cell before the cell
//! picks its next frame, so the ACK goes on the air right after the frame it answers, as a
//! modelled host's does. Handed out only after the event (the live driver before the fix: read
//! once nothing is due), the base station's next data frame goes first and the ACK on the air
//! after a data frame answers an older one.

use std::collections::VecDeque;

use snooplab_proto::{wire, Endpoint, Flags, Segment, Seq, Time};
use snooplab_sim::engine::EventQueue;
use snooplab_sim::medium::AccessModel;
use snooplab_sim::network::NodeId;
use snooplab_sim::packet::SimPacket;
use snooplab_sim::run::{Driver, Step};
use snooplab_sim::{Env, Observe, Protocol, Scenario, Simulation};

#[path = "common/script.rs"]
mod script;
use script::{one_host_step, Script};

const TRANSFER: u64 = 200_000;
const MSS: u32 = 1400;

/// A receiver outside the engine at the mobile host: acknowledges every intact data segment at
/// once, cumulatively. Each ACK carries the low bits of the sequence number it answers as its IP
/// id, so the capture tells which frame an ACK answers.
struct Receiver {
    node: NodeId,
    me: Endpoint,
    peer: Endpoint,
    rcv_nxt: Seq,
    /// Payload bytes taken in order.
    got: u64,
    /// Answer through [`Driver::answer`] (at once), or else through [`Driver::recv`] at the
    /// same time but after the event.
    at_once: bool,
    answers: VecDeque<(NodeId, SimPacket)>,
    /// Times the engine asked for an immediate answer.
    asked: usize,
    later: Script<SimPacket>,
    inbox: VecDeque<(Time, NodeId, SimPacket)>,
}

impl Receiver {
    fn ack(&mut self, now: Time, answered: &Segment, flags: Flags) {
        let seg = Segment {
            src: self.me,
            dst: self.peer,
            seq: Seq(9001) - u32::from(flags.contains(Flags::SYN)),
            ack: self.rcv_nxt,
            flags: flags | Flags::ACK,
            window: 65535,
            ip_id: answered.seq.0 as u16,
            mss: flags.contains(Flags::SYN).then_some(MSS as u16),
            ..Segment::default()
        };
        let p = SimPacket::from_wire(wire::encode(&seg, None)).expect("a well-formed ACK");
        if self.at_once {
            self.answers.push_back((self.node, p));
        } else {
            self.later.at(now, p);
        }
    }
}

impl Driver for Receiver {
    const EXTERNAL: bool = true;

    fn next<E>(&mut self, queue: &mut EventQueue<E>) -> Step<E> {
        one_host_step(&mut self.later, self.node, &mut self.inbox, queue)
    }

    fn recv(&mut self) -> Option<(Time, NodeId, SimPacket)> {
        self.inbox.pop_front()
    }

    fn send(&mut self, _: NodeId, now: Time, packet: &SimPacket) {
        let bytes = packet.wire_bytes();
        let Some(seg) = wire::parse(&bytes)
            .ok()
            .filter(|p| p.checksums_ok)
            .map(|p| p.seg)
        else {
            return; // a corrupted frame: its kernel drops it
        };
        if seg.is_syn() {
            self.rcv_nxt = seg.seq + 1;
            return self.ack(now, &seg, Flags::SYN);
        }
        if seg.seq == self.rcv_nxt {
            self.got += u64::from(seg.len);
            self.rcv_nxt += seg.len + u32::from(seg.is_fin());
        }
        if seg.len > 0 || seg.is_fin() {
            let fin = if seg.is_fin() {
                Flags::FIN
            } else {
                Flags::NONE
            };
            self.ack(now, &seg, fin);
        }
    }

    fn answer(&mut self) -> Option<(NodeId, SimPacket)> {
        self.asked += 1;
        self.answers.pop_front()
    }

    fn flows_finished(&mut self) -> bool {
        true
    }
}

/// The cell's frames in the order they went on the air: (data, sequence number or IP id, intact).
#[derive(Default)]
struct Air {
    links: usize,
    frames: Vec<(bool, u16, bool)>,
}

impl Observe for Air {
    const ACTIVE: bool = true;
    const SEGMENT_HOOKS: bool = false;

    fn begin(&mut self, net: &snooplab_sim::network::Network) {
        self.links = net.links.len();
    }

    fn on_link(&mut self, _at: Time, capture: usize, pkt: &SimPacket) {
        if capture >= self.links && pkt.is_tcp() {
            let data = pkt.seg.len > 0;
            let tag = if data {
                pkt.seg.seq.0 as u16
            } else {
                pkt.seg.ip_id
            };
            self.frames.push((data, tag, !pkt.corrupted));
        }
    }
}

/// Of the ACKs on the air right after an intact data frame: how many, and how many of them
/// answer an older frame.
fn acks_after_data(at_once: bool) -> (usize, usize) {
    let (pairs, _) = acks_after_data_on(at_once, AccessModel::Turns);
    pairs
}

/// [`acks_after_data`] on a cell of `access`, and how often the engine asked for an answer.
fn acks_after_data_on(at_once: bool, access: AccessModel) -> ((usize, usize), usize) {
    let mut sc = Scenario::paper000(Protocol::LlTcpAware, Env::Lan, 32768, 1);
    sc.access = access;
    sc.transfer = TRANSFER;
    sc.mss = MSS;
    sc.error_every = 32 * 1024;
    let net = sc.network();
    let mh = net.node_id("mh").expect("paper 000 has mh");
    let (src, dst) = net.endpoints(0);
    let mut host = Receiver {
        node: mh,
        me: dst,
        peer: src,
        rcv_nxt: Seq(0),
        got: 0,
        at_once,
        answers: VecDeque::new(),
        asked: 0,
        later: Script::default(),
        inbox: VecDeque::new(),
    };
    let sim = Simulation::observed_with_external_hosts(&net, "lan", &[mh], Air::default());
    let (r, air) = sim.run_observed_with(&mut host);
    assert_eq!(host.got, TRANSFER, "the whole transfer arrived");
    assert!(r.agents[0].counters.get("local_retransmissions") > 0);
    let pairs = air
        .frames
        .windows(2)
        .filter(|w| w[0].0 && w[0].2 && !w[1].0);
    let (mut after, mut older) = (0, 0);
    for w in pairs {
        after += 1;
        older += usize::from(w[1].1 != w[0].1);
    }
    ((after, older), host.asked)
}

#[test]
fn an_immediate_answer_goes_on_the_air_before_the_next_data_frame() {
    let (after, older) = acks_after_data(true);
    assert!(after > 50, "ACKs after data frames: {after}");
    assert_eq!(older, 0, "{older} of {after} ACKs answer an older frame");
}

#[test]
fn an_answer_taken_after_the_pick_waits_behind_the_next_data_frame() {
    // what the live driver did before: the base station's queued frame goes first
    let (after, older) = acks_after_data(false);
    assert!(
        older * 4 > after,
        "{older} of {after} ACKs answer an older frame"
    );
}

#[test]
fn a_full_duplex_cell_picks_nothing_so_it_never_waits_for_an_answer() {
    // turn taking asks after every frame the host was handed
    let (_, asked) = acks_after_data_on(false, AccessModel::Turns);
    assert!(asked > 100, "asked {asked} times");
    // no turns: the host's packets enter when read, the engine never asks (the live mode's
    // `--env off`, whose kernels then send as over a wire); the transfer still completes
    let ((after, _), asked) = acks_after_data_on(false, AccessModel::FullDuplex);
    assert_eq!(asked, 0);
    assert!(after > 0);
}
