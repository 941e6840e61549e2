//! The simulator's packet: a header view plus what the channel and the checks need.

use snooplab_proto::agent::handoff::TUNNEL_HEADER_BYTES;
use snooplab_proto::agent::handoff::{Mobility, MobilityPacket, Tunnel, CONTROL_PORT};
use snooplab_proto::agent::{BuildPacket, SegmentView};
use std::num::NonZeroU64;

use snooplab_proto::tcp::{Tcp, TxKind};
use snooplab_proto::{Endpoint, Segment};

/// The packet moves by pointer: on its way from one TCP to the next it is handed on about ten
/// times (host, loop, a link's or a medium's queue, the air, the receiver), and moving its
/// fields (over 100 bytes) each time cost more than allocating them once.
#[derive(PartialEq, Eq)]
pub struct SimPacket(Box<PacketFields>);

/// A copy is a new box; a copy into a packet kept for the purpose ([`Clone::clone_from`]: snoop's
/// ACK template, a spare of its cache, the oldest packet of a handoff ring) writes the fields
/// into that packet's box, and the allocator is not asked.
impl Clone for SimPacket {
    #[inline]
    fn clone(&self) -> SimPacket {
        SimPacket(self.0.clone())
    }

    #[inline]
    fn clone_from(&mut self, source: &SimPacket) {
        // `Box::clone_from` writes into the box it has
        self.0.clone_from(&source.0);
    }
}

/// The most boxes a thread keeps for packets to come ([`SimPacket::recycle`]). The live
/// engine reads up to 64 packets from each host's device in one wake-up and writes as many back
/// (snooplab-live's `tun_driver.rs`): 64 boxes left half of its packets to the allocator. A box
/// the live engine recycles gives its bytes to `raw_pool.rs` (as many buffers again, bounded
/// there); one recycled elsewhere keeps them until it is used again.
const SPARE_BOXES: usize = 256;
/// How many of the most recent spare boxes a maker looks through for one that fits
/// ([`SimPacket::spare_fields`]): a real packet looks for one with an extra box, which every
/// box the live engine recycles has (its bytes' buffers are kept by length apart, `raw_pool.rs`).
const SPARE_LOOK: usize = 16;

thread_local! {
    // the boxes themselves are what is kept: a `Vec<PacketFields>` would copy the fields again
    #[allow(clippy::vec_box)]
    static SPARE: std::cell::RefCell<Vec<Box<PacketFields>>> =
        const { std::cell::RefCell::new(Vec::new()) };
    /// Empty boxes of an outer header, for the next packet encapsulated on this thread (at most
    /// [`SPARE_BOXES`]; `MobilityPacket::decapsulate`).
    #[allow(clippy::vec_box)]
    static SPARE_EXTRAS: std::cell::RefCell<Vec<Box<Extra>>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// What a [`SimPacket`] carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PacketFields {
    pub seg: Segment,
    /// Bit errors hit this packet on the wireless link: its checksum no longer matches.
    pub corrupted: bool,
    /// A digest of the payload the fixed host put in, checked at the mobile host (the simulated
    /// bytes). `None` for packets a split base station builds from its relayed byte stream.
    pub payload_tag: Option<NonZeroU64>,
    /// What only the handoff's packets carry (paper 002), boxed so that the fields of every
    /// other run's packets stay small: a new packet and a copy (snoop's cache) write them all.
    pub extra: Option<Box<Extra>>,
}

/// A handoff message, an encapsulated packet's outer header, or a real packet's bytes.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Extra {
    /// A handoff protocol message: then `seg` holds only its addresses and ports, and the packet is
    /// a UDP datagram, not TCP.
    pub mobility: Option<Mobility>,
    /// The outer header of a packet the home agent encapsulated to a base station.
    pub tunnel: Option<Tunnel>,
    /// The bytes of a real packet, from a kernel host (`raw.rs`).
    pub raw: Option<Raw>,
}

/// A real packet's bytes (what a packet from a kernel host carries in its [`Extra`]; made and read
/// in `raw.rs`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Raw {
    pub bytes: std::sync::Arc<[u8]>,
    /// An IPv4/TCP packet, which agents read; other IPv4 (ICMP, UDP, fragments) passes untouched.
    pub tcp: bool,
}

impl std::ops::Deref for SimPacket {
    type Target = PacketFields;
    #[inline(always)]
    fn deref(&self) -> &PacketFields {
        &self.0
    }
}

impl std::ops::DerefMut for SimPacket {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut PacketFields {
        &mut self.0
    }
}

impl std::fmt::Debug for SimPacket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl SimPacket {
    pub fn new(seg: Segment, payload_tag: Option<NonZeroU64>) -> SimPacket {
        SimPacket::with_extra(seg, payload_tag, None)
    }

    /// A packet with what only handoffs, tunnels and real packets carry.
    pub(crate) fn with_extra(
        seg: Segment,
        payload_tag: Option<NonZeroU64>,
        extra: Option<Box<Extra>>,
    ) -> SimPacket {
        let fields = PacketFields {
            seg,
            corrupted: false,
            payload_tag,
            extra,
        };
        match SPARE.with_borrow_mut(Vec::pop) {
            Some(mut b) => {
                *b = fields;
                SimPacket(b)
            }
            None => SimPacket(Box::new(fields)),
        }
    }

    /// A packet of the next segment `tcp` sends, if it has one, carrying its payload's digest
    /// when `digest` (a bulk sender's data): the segment is written from the TCP's queue
    /// straight into a spare box ([`Tcp::poll_transmit_into`]), not handed through the host and
    /// [`SimPacket::new`] by value (issue 50).
    #[inline]
    pub(crate) fn from_tcp(tcp: &mut Tcp, digest: bool) -> Option<(SimPacket, TxKind)> {
        if !tcp.has_output() {
            return None;
        }
        let mut b = match SPARE.with_borrow_mut(Vec::pop) {
            Some(b) => b,
            None => Box::new(PacketFields {
                seg: Segment::default(),
                corrupted: false,
                payload_tag: None,
                extra: None,
            }),
        };
        let kind = tcp.poll_transmit_into(&mut b.seg)?;
        let seg = &b.seg;
        b.payload_tag = (digest && seg.len > 0)
            .then(|| payload_tag(u64::from(seg.seq.since(tcp.iss() + 1)), seg.len));
        b.corrupted = false;
        b.extra = None;
        Some((SimPacket(b), kind))
    }

    /// A spare box ([`SimPacket::recycle`]) with its old fields still in it, for a maker that
    /// reuses what they hold (`raw.rs`: a real packet's extra box): the most recently
    /// recycled of the last [`SPARE_LOOK`] that `fits` takes, else the most recent one.
    pub(crate) fn spare_fields(fits: impl Fn(&PacketFields) -> bool) -> Option<Box<PacketFields>> {
        SPARE.with_borrow_mut(|s| {
            let last = s.len().checked_sub(1)?;
            let at = s.iter().rev().take(SPARE_LOOK).position(|b| fits(b));
            Some(s.swap_remove(at.map_or(last, |i| last - i)))
        })
    }

    /// A packet of fields already boxed ([`SimPacket::spare_fields`], filled anew).
    pub(crate) fn from_box(fields: Box<PacketFields>) -> SimPacket {
        SimPacket(fields)
    }

    /// The packet has reached the end of its way (a TCP endpoint took it, or a real host's device
    /// did): its box is kept for the next packet made on this thread, which saves the allocator a
    /// round trip per packet.
    ///
    /// The fields stay as they were until the box is used again, a live run's real bytes too:
    /// at most [`SPARE_BOXES`] packets' worth (clearing them here cost bench 0.45%).
    pub(crate) fn recycle(self) {
        SPARE.with_borrow_mut(|s| {
            if s.len() < SPARE_BOXES {
                s.push(self.0);
            }
        });
    }

    /// The handoff message this packet carries.
    pub fn mobility(&self) -> Option<&Mobility> {
        self.extra.as_ref().and_then(|e| e.mobility.as_ref())
    }

    /// Whether this is a mobile host's request that a base station buffer for it (paper 002's
    /// `Buffer`), the one handoff message the loop hands to roaming as it leaves the air.
    #[inline]
    pub(crate) fn asks_to_buffer(&self) -> bool {
        matches!(self.mobility(), Some(Mobility::Buffer { .. }))
    }

    /// The outer header, if the home agent encapsulated this packet.
    pub fn tunnel(&self) -> Option<Tunnel> {
        self.extra.as_ref().and_then(|e| e.tunnel)
    }

    /// Bytes on the wire at the IP layer, the outer header of a tunnel included. Inlined down
    /// to a packet without extras (every packet of most runs): a link and a medium ask for it
    /// for every frame, and the call cost as much as the sum.
    #[inline]
    pub fn ip_len(&self) -> u32 {
        match &self.extra {
            None => self.seg.ip_len(),
            Some(e) => Self::extra_ip_len(&self.seg, e),
        }
    }

    /// [`SimPacket::ip_len`] of a handoff message, a tunnelled or a real packet.
    #[inline(never)]
    fn extra_ip_len(seg: &Segment, e: &Extra) -> u32 {
        let inner = match (&e.mobility, &e.raw) {
            (Some(m), _) => m.ip_len(),
            (None, Some(r)) => r.bytes.len() as u32,
            (None, None) => seg.ip_len(),
        };
        inner + e.tunnel.map_or(0, |_| TUNNEL_HEADER_BYTES)
    }

    /// The address the packet is routed to: the tunnel's end, or its own destination.
    pub(crate) fn route_dst(&self) -> u32 {
        self.tunnel().map_or(self.seg.dst.addr, |t| t.dst)
    }

    /// A TCP segment, not a handoff message (nor a real packet of another protocol).
    pub fn is_tcp(&self) -> bool {
        self.extra
            .as_ref()
            .is_none_or(|e| e.mobility.is_none() && e.raw.as_ref().is_none_or(|r| r.tcp))
    }
}

impl MobilityPacket for SimPacket {
    fn mobility(&self) -> Option<&Mobility> {
        SimPacket::mobility(self)
    }

    fn tunnel(&self) -> Option<Tunnel> {
        SimPacket::tunnel(self)
    }

    fn encapsulate(mut self, tunnel: Tunnel) -> Self {
        let e = self
            .extra
            .get_or_insert_with(|| SPARE_EXTRAS.with_borrow_mut(Vec::pop).unwrap_or_default());
        e.tunnel = Some(tunnel);
        self
    }

    /// The outer header's box, when nothing else is in it, is kept for the next encapsulated
    /// packet (paper 002's home agent encapsulates every data packet once for each base station
    /// of the group, and each of those decapsulates it).
    fn decapsulate(mut self) -> Self {
        if let Some(mut e) = self.extra.take() {
            e.tunnel = None;
            if e.mobility.is_some() || e.raw.is_some() {
                self.extra = Some(e);
            } else {
                SPARE_EXTRAS.with_borrow_mut(|s| {
                    if s.len() < SPARE_BOXES {
                        s.push(e);
                    }
                });
            }
        }
        self
    }

    fn control(src: u32, dst: u32, msg: Mobility) -> Self {
        let seg = Segment {
            src: Endpoint {
                addr: src,
                port: CONTROL_PORT,
            },
            dst: Endpoint {
                addr: dst,
                port: CONTROL_PORT,
            },
            ..Segment::default()
        };
        let extra = Extra {
            mobility: Some(msg),
            ..Extra::default()
        };
        SimPacket::with_extra(seg, None, Some(Box::new(extra)))
    }
}

impl BuildPacket for SimPacket {
    fn build(seg: &Segment, like: &Self) -> Self {
        match like.raw() {
            None => SimPacket::new(*seg, None),
            Some(r) => SimPacket::rebuilt(seg, r),
        }
    }

    /// A real packet with these bytes when `like` is real (the live mode); a modelled packet,
    /// which carries no bytes, otherwise.
    fn build_with_payload(seg: &Segment, like: &Self, payload: &[u8]) -> Self {
        match like.raw() {
            None => SimPacket::new(*seg, None),
            Some(_) => SimPacket::encoded(seg, payload),
        }
    }
}

impl SegmentView for SimPacket {
    fn segment(&self) -> Option<&Segment> {
        self.is_tcp().then_some(&self.seg)
    }

    fn payload(&self) -> Option<&[u8]> {
        self.extra.as_ref()?;
        self.raw_payload()
    }
}

/// The digest of `len` payload bytes starting `offset` bytes into the transfer: every byte of the
/// transfer has a fixed value, so the digest of a range is a function of the range. 63 bits of it
/// with the lowest set, so that it is never 0 and `Option` of it takes no more room (each new
/// packet and each copy writes the fields).
pub fn payload_tag(offset: u64, len: u32) -> NonZeroU64 {
    let mut z = offset.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ u64::from(len).rotate_left(32);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    NonZeroU64::MIN | (z ^ (z >> 31))
}

/// A header-only segment between two made-up hosts, for unit tests.
#[cfg(test)]
pub fn test_segment() -> Segment {
    use snooplab_proto::{Endpoint, Flags, Seq};
    Segment {
        src: Endpoint {
            addr: 0x0a00_0001,
            port: 20000,
        },
        dst: Endpoint {
            addr: 0x0a00_0102,
            port: 5001,
        },
        seq: Seq(1),
        ack: Seq(1),
        flags: Flags::ACK,
        window: 32768,
        len: 0,
        ip_id: 0,
        mss: None,
        eln: false,
        smart: None,
        sack: snooplab_proto::SackBlocks::default(),
        queue: None,
        wscale: None,
        ts: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_into_a_kept_packet_keeps_its_box() {
        let mut data = test_segment();
        data.len = 1460;
        let source = SimPacket::new(data, Some(payload_tag(0, 1460)));
        let mut kept = SimPacket::new(test_segment(), None);
        let before: *const PacketFields = &*kept.0;
        kept.clone_from(&source);
        assert!(kept == source, "the copy is the packet");
        assert!(
            std::ptr::eq(before, &*kept.0),
            "written into the box it had"
        );
        let fresh = source.clone();
        assert!(fresh == source && !std::ptr::eq(&*fresh.0, &*source.0));
    }

    /// `from_tcp` makes the packet `SimPacket::new` made of what `poll_transmit` returned, in a
    /// spare box whose old fields (a tunnel's extra here) are gone: every segment of a bulk
    /// transfer's two ends, the handshake and the data with its digest included.
    #[test]
    fn a_packet_from_the_tcp_queue_is_the_packet_of_the_segment() {
        use snooplab_proto::tcp::TcpConfig;
        let (a, b) = (
            Endpoint { addr: 1, port: 10 },
            Endpoint { addr: 2, port: 20 },
        );
        let mut ends = [
            (
                Tcp::connect(TcpConfig::bulk_sender(1000, 8192, 20_000), a, b, 0),
                true,
            ),
            (Tcp::listen(TcpConfig::sink(1000, 8192), b, a), false),
        ];
        let mut made = 0;
        for step in 0..20_000u64 {
            if ends.iter().all(|(t, _)| t.is_finished()) {
                break;
            }
            let now = step * 1_000_000;
            for i in 0..2 {
                // a spare box holding an extra, for the next packet made here
                SimPacket::new(test_segment(), None)
                    .encapsulate(Tunnel { src: 1, dst: 2 })
                    .recycle();
                let (tcp, sender) = &mut ends[i];
                let mut twin = tcp.clone();
                let Some((packet, kind)) = SimPacket::from_tcp(tcp, *sender) else {
                    assert!(twin.poll_transmit().is_none());
                    continue;
                };
                let (seg, twin_kind) = twin.poll_transmit().expect("the same queue");
                let data = *sender && seg.len > 0;
                let offset = u64::from(seg.seq.since(twin.iss() + 1));
                let want = SimPacket::new(seg, data.then(|| payload_tag(offset, seg.len)));
                assert!(
                    packet == want && kind == twin_kind,
                    "step {step}: {packet:?}"
                );
                made += 1;
                ends[1 - i].0.on_segment(now, &packet.seg);
            }
            for (tcp, _) in &mut ends {
                if tcp.poll_timeout().is_some_and(|t| t <= now) {
                    tcp.on_timeout(now);
                }
            }
        }
        assert!(made > 20, "the transfer ran: {made} packets");
        assert!(ends[0].0.is_finished(), "and ended");
    }

    #[test]
    fn a_decapsulated_packet_is_the_packet_and_its_header_box_serves_the_next() {
        let mut data = test_segment();
        data.len = 1460;
        let plain = SimPacket::new(data, Some(payload_tag(0, 1460)));
        let tunnel = Tunnel { src: 1, dst: 2 };
        let first = plain.clone().encapsulate(tunnel);
        assert_eq!(first.tunnel(), Some(tunnel));
        assert_eq!(first.ip_len(), plain.ip_len() + TUNNEL_HEADER_BYTES);
        let header: *const Extra = first.extra.as_deref().map_or(std::ptr::null(), |e| e);
        assert!(
            first.decapsulate() == plain,
            "the inner packet, no extras left"
        );
        let second = plain.clone().encapsulate(tunnel);
        let reused: *const Extra = second.extra.as_deref().map_or(std::ptr::null(), |e| e);
        assert!(
            std::ptr::eq(header, reused),
            "the header's box was kept for this one"
        );
        // a handoff message keeps what it carries
        let msg = SimPacket::control(1, 2, Mobility::Leave { mh: 2 });
        let back = msg.clone().encapsulate(tunnel).decapsulate();
        assert!(back == msg && back.mobility().is_some());
    }
}
