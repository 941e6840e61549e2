//! The bridge's rules on scripted frames, through an in-memory device (no root needed).

use std::collections::VecDeque;
use std::io;
use std::os::fd::RawFd;

use snooplab_proto::segment::{Endpoint, Flags};
use snooplab_proto::{wire, Segment, Seq};

use super::agent_choice::agent_named;
use super::bridge::{Bridge, WIRED, WIRELESS};
use super::device::FrameDevice;
use super::ethernet::ETHERTYPE_IPV4;

#[derive(Default)]
struct Mem {
    inbox: VecDeque<Vec<u8>>,
    sent: Vec<Vec<u8>>,
}

impl FrameDevice for Mem {
    fn name(&self) -> &str {
        "mem"
    }
    fn raw_fd(&self) -> Option<RawFd> {
        None
    }
    fn recv(&mut self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        Ok(self.inbox.pop_front().map(|f| {
            let n = f.len().min(buf.len());
            buf[..n].copy_from_slice(&f[..n]);
            f.len()
        }))
    }
    fn send(&mut self, frame: &[u8]) -> io::Result<()> {
        self.sent.push(frame.to_vec());
        Ok(())
    }
}

const FH: u32 = 0x0a09_0001;
const MH: u32 = 0x0a09_0002;
/// The fixed host's and the mobile host's MAC addresses.
const FH_MAC: [u8; 6] = [2, 0, 0, 0, 0, 1];
const MH_MAC: [u8; 6] = [2, 0, 0, 0, 0, 2];

fn bridge(agent: &str) -> Bridge<Mem> {
    let agent = agent_named(agent).expect("a known agent");
    Bridge::new(Mem::default(), Mem::default(), agent)
}

fn frame(dst: [u8; 6], src: [u8; 6], ethertype: u16, payload: &[u8]) -> Vec<u8> {
    [&dst[..], &src[..], &ethertype.to_be_bytes(), payload].concat()
}

/// A TCP segment of the connection fh:40000 -> mh:5001 (or back), framed.
fn tcp(down: bool, seq: u32, ack: u32, len: u32) -> Vec<u8> {
    tcp_flags(down, seq, ack, len, Flags::ACK)
}

/// [`tcp`] with `flags`.
fn tcp_flags(down: bool, seq: u32, ack: u32, len: u32, flags: Flags) -> Vec<u8> {
    let (a, b) = (
        Endpoint {
            addr: FH,
            port: 40000,
        },
        Endpoint {
            addr: MH,
            port: 5001,
        },
    );
    let (src, dst, macs) = if down {
        (a, b, (MH_MAC, FH_MAC))
    } else {
        (b, a, (FH_MAC, MH_MAC))
    };
    let seg = Segment {
        src,
        dst,
        seq: Seq(seq),
        ack: Seq(ack),
        flags,
        window: 32768,
        len,
        ..Segment::default()
    };
    let payload: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
    frame(
        macs.0,
        macs.1,
        ETHERTYPE_IPV4,
        &wire::encode(&seg, Some(&payload)),
    )
}

fn arrive(b: &mut Bridge<Mem>, side: usize, f: Vec<u8>) {
    b.device_mut(side).inbox.push_back(f);
    b.read_side(side).expect("an in-memory device never fails");
}

fn sent(b: &Bridge<Mem>, side: usize) -> &[Vec<u8>] {
    &b.device(side).sent
}

#[test]
fn arp_and_ipv6_pass_unchanged_both_ways_and_the_agent_never_sees_them() {
    let mut b = bridge("snoop");
    let arp = frame([0xff; 6], FH_MAC, 0x0806, &[7; 28]);
    let v6 = frame(FH_MAC, MH_MAC, 0x86dd, &[6; 60]);
    arrive(&mut b, WIRED, arp.clone());
    arrive(&mut b, WIRELESS, v6.clone());
    assert_eq!(sent(&b, WIRELESS), [arp]);
    assert_eq!(sent(&b, WIRED), [v6]);
    assert_eq!(b.agent().counters().get("forwarded"), 0);
    assert_eq!(b.counters[WIRED].passed_in, 1);
    assert_eq!(b.counters[WIRELESS].passed_out, 1);
}

#[test]
fn udp_and_icmp_pass_unchanged_with_their_padding() {
    let mut b = bridge("snoop");
    for proto in [17u8, 1] {
        let mut ip = vec![0u8; 28];
        ip[0] = 0x45;
        ip[2..4].copy_from_slice(&28u16.to_be_bytes());
        ip[8] = 64;
        ip[9] = proto;
        ip[12..16].copy_from_slice(&FH.to_be_bytes());
        ip[16..20].copy_from_slice(&MH.to_be_bytes());
        let mut f = frame(MH_MAC, FH_MAC, ETHERTYPE_IPV4, &ip);
        f.resize(60, 0); // Ethernet's minimum, padded
        arrive(&mut b, WIRED, f.clone());
        assert_eq!(sent(&b, WIRELESS).last(), Some(&f));
    }
    assert_eq!(b.agent().counters().get("forwarded"), 0);
}

#[test]
fn tcp_goes_through_the_agent_and_leaves_with_its_own_header() {
    let mut b = bridge("snoop");
    let data = tcp(true, 1000, 1, 100);
    arrive(&mut b, WIRED, data.clone());
    let ack = tcp(false, 1, 1100, 0);
    arrive(&mut b, WIRELESS, ack.clone());
    assert_eq!(sent(&b, WIRELESS), [data]);
    assert_eq!(sent(&b, WIRED), [ack]);
    assert_eq!(b.agent().counters().get("forwarded"), 2);
    assert_eq!(b.counters[WIRED].tcp_in, 1);
    assert_eq!(b.counters[WIRELESS].agent_out, 1);
}

/// Paper 000 section 2.1: a duplicate ACK from the mobile host for data in snoop's cache makes
/// snoop resend it from the cache; the resent frame is the data's own frame, header and all.
#[test]
fn a_local_retransmission_leaves_with_the_data_frames_header() {
    let mut b = bridge("snoop");
    let first = tcp(true, 1000, 1, 100);
    let lost = tcp(true, 1100, 1, 100);
    let third = tcp(true, 1200, 1, 100);
    for f in [&first, &lost, &third] {
        arrive(&mut b, WIRED, f.clone());
    }
    arrive(&mut b, WIRELESS, tcp(false, 1, 1100, 0));
    for _ in 0..3 {
        arrive(&mut b, WIRELESS, tcp(false, 1, 1100, 0));
        let now = b.now();
        b.serve_timer(now);
    }
    assert!(b.agent().counters().get("local_retransmissions") >= 1);
    let resent: Vec<&Vec<u8>> = sent(&b, WIRELESS).iter().skip(3).collect();
    assert_eq!(resent.first(), Some(&&lost));
    // a duplicate it answered was kept from the fixed host
    assert!(b.agent().counters().get("dupacks_suppressed") >= 1);
    assert!(sent(&b, WIRED).len() < 4);
}

#[test]
fn a_frame_larger_than_the_bridge_reads_is_dropped_and_counted() {
    let mut b = bridge("snoop");
    let big = frame(MH_MAC, FH_MAC, ETHERTYPE_IPV4, &vec![0x45; 20000]);
    arrive(&mut b, WIRED, big);
    assert_eq!(b.counters[WIRED].oversize, 1);
    assert!(sent(&b, WIRELESS).is_empty());
}

/// A `Write` whose bytes the test can read after the bridge wrote them.
#[derive(Clone, Default)]
struct Shared(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Shared {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        self.0
            .lock()
            .map_err(|_| io::Error::other("poisoned"))?
            .extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn each_sides_capture_holds_every_frame_it_carried_in_both_directions() {
    let mut b = bridge("snoop");
    let (w, m) = (Shared::default(), Shared::default());
    b.capture_into(Box::new(w.clone()), Box::new(m.clone()))
        .expect("in memory");
    let data = tcp(true, 1000, 1, 100);
    let ack = tcp(false, 1, 1100, 0);
    let arp = frame([0xff; 6], FH_MAC, 0x0806, &[7; 28]);
    arrive(&mut b, WIRED, data.clone());
    arrive(&mut b, WIRELESS, ack.clone());
    arrive(&mut b, WIRED, arp.clone());
    assert_eq!(b.finish_captures(), Ok(Some([3, 3])));
    let read = |s: &Shared| snooplab_sim::capture::read_packets(&s.0.lock().unwrap());
    let all = vec![data, ack, arp];
    assert_eq!(read(&w), all);
    assert_eq!(read(&m), all);
    let header = w.0.lock().unwrap()[20..24].to_vec();
    assert_eq!(header, 1u32.to_le_bytes(), "LINKTYPE_ETHERNET");
}

/// A packet the parser rejects (here an IPv4 header checksum broken) is not the bridge's to
/// judge: it passes unchanged, past the agent, as any frame that is not IPv4/TCP.
#[test]
fn an_ipv4_packet_the_parser_rejects_passes_unchanged_past_the_agent() {
    let mut b = bridge("snoop");
    let mut bad = tcp(true, 1000, 1, 100);
    bad[14 + 10] ^= 0xff; // the IPv4 header checksum
    arrive(&mut b, WIRED, bad.clone());
    assert_eq!(sent(&b, WIRELESS), [bad]);
    assert_eq!(b.counters[WIRED].passed_in, 1);
    assert_eq!(b.agent().counters().get("forwarded"), 0);
}

/// A split relay terminates the connection at its SYN (paper 000 section III-C, one relay per
/// connection): it answers the fixed host's SYN itself, from the mobile host's address, and opens
/// its own connection to the mobile host. Neither packet has a frame of its own to copy a header
/// from: the answer takes the SYN's header with its MAC addresses swapped, the relay's SYN the
/// SYN's own.
#[test]
fn a_split_relay_answers_a_syn_and_opens_its_own_with_the_learned_headers() {
    let mut b = bridge("split");
    let syn = tcp_flags(true, 1000, 0, 0, Flags::SYN);
    arrive(&mut b, WIRED, syn.clone());
    assert_eq!(b.agent().counters().get("relays"), 1);
    let parse = |f: &[u8]| wire::parse_headers(&f[14..]).expect("a TCP packet").seg;
    let [answer] = sent(&b, WIRED) else {
        panic!("one answer to the fixed host: {:?}", sent(&b, WIRED));
    };
    assert_eq!(&answer[..12], &[FH_MAC, MH_MAC].concat()[..]);
    let a = parse(answer);
    assert!(a.flags.contains(Flags::SYN | Flags::ACK), "{a:?}");
    assert_eq!((a.src.addr, a.dst.addr, a.ack), (MH, FH, Seq(1001)));
    let [open] = sent(&b, WIRELESS) else {
        panic!("one SYN to the mobile host: {:?}", sent(&b, WIRELESS));
    };
    assert_eq!(&open[..14], &syn[..14]);
    let o = parse(open);
    assert!(
        o.flags.contains(Flags::SYN) && !o.flags.contains(Flags::ACK),
        "{o:?}"
    );
    assert_eq!((o.src.addr, o.dst.addr), (FH, MH));
    assert_eq!(b.counters[WIRED].agent_out, 1);
}

/// `--wired-delay`: a frame for the wired side (the mobile host's ACK, passed or the agent's)
/// waits in the side's emulated link its delay, then leaves unchanged; the other side is not
/// delayed.
#[test]
fn a_delayed_side_writes_a_frame_only_once_its_delay_is_over() {
    use super::egress_link::{EgressLink, DEFAULT_LIMIT};
    use snooplab_proto::time::MS;
    let mut b = bridge("snoop");
    b.set_link(WIRED, EgressLink::new(50 * MS, DEFAULT_LIMIT));
    let data = tcp(true, 1000, 1, 100);
    arrive(&mut b, WIRED, data.clone());
    assert_eq!(
        sent(&b, WIRELESS),
        [data],
        "the wireless side is not delayed"
    );
    let before = b.now();
    let ack = tcp(false, 1, 1100, 0);
    let arp = frame([0xff; 6], MH_MAC, 0x0806, &[7; 28]);
    arrive(&mut b, WIRELESS, ack.clone());
    arrive(&mut b, WIRELESS, arp.clone());
    let after = b.now();
    b.serve_links(before + 50 * MS - 1);
    assert!(sent(&b, WIRED).is_empty(), "held for the delay");
    assert_eq!(b.link(WIRED).map(|l| l.holding()), Some(2));
    b.serve_links(after + 50 * MS + 2);
    assert_eq!(
        sent(&b, WIRED),
        [ack, arp],
        "then written, in order, unchanged"
    );
    assert_eq!(b.counters[WIRED].agent_out, 1);
    assert_eq!(b.counters[WIRED].passed_out, 1);
}

/// netem's `limit`: past the frames a delayed side may hold, a frame is dropped and counted.
#[test]
fn a_delayed_side_holding_its_limit_drops_the_next_frame() {
    use super::egress_link::EgressLink;
    use snooplab_proto::time::MS;
    let mut b = bridge("e2e");
    b.set_link(WIRELESS, EgressLink::new(10 * MS, 2));
    for seq in [1000, 1100, 1200] {
        arrive(&mut b, WIRED, tcp(true, seq, 1, 100));
    }
    let link = b.link(WIRELESS).expect("the link");
    assert_eq!((link.holding(), link.counters.queue_drops), (2, 1));
    b.serve_links(b.now() + 10 * MS + 3);
    assert_eq!(sent(&b, WIRELESS).len(), 2);
}
