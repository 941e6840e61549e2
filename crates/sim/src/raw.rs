//! A real packet in the engine: the bytes a kernel host wrote into its TUN device, carried by a
//! [`SimPacket`] to wherever the network takes it (docs/live.md). The header view is parsed once,
//! when the packet enters; the bytes are shared, never copied (an agent's cache and a link's queue
//! hold the same bytes), and leave the network as they came, except that a frame the channel
//! corrupted leaves with its TCP checksum broken, so that the receiving kernel drops it as the
//! papers' receivers did.
//!
//! The bytes ride in the packet's [`Extra`](crate::packet::Extra), which only rare packets have:
//! a modelled run never allocates one, and its packets stay as small as before.

use std::borrow::Cow;
use std::sync::Arc;

use snooplab_proto::wire::{self, WireError};
use snooplab_proto::{Endpoint, Segment};

use crate::packet::{Extra, PacketFields, Raw, SimPacket};

/// Why a packet a host sent was dropped instead of entering the network.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reject {
    /// The version nibble is not 4 (IPv6 is off in the namespaces; anything else is garbage).
    NotIpv4,
    /// Shorter than its headers say, or header lengths that do not fit, or a bad IPv4 header
    /// checksum, or a TCP option running past the header.
    Malformed,
}

impl SimPacket {
    /// A packet as a host wrote it: IPv4/TCP with its header view, other IPv4 with only its
    /// addresses (for routing), anything else rejected. Never panics, whatever the bytes. The
    /// bytes are copied once, into the packet's shared buffer (a `Vec` too: an `Arc<[u8]>` keeps
    /// its counts before the bytes, so it never takes over a `Vec`'s buffer), so a caller reading
    /// into a buffer of its own passes a slice of it.
    pub fn from_wire(bytes: impl AsRef<[u8]>) -> Result<SimPacket, Reject> {
        let bytes = bytes.as_ref();
        let (seg, tcp) = match classify(bytes)? {
            Some(seg) => (seg, true),
            None => (addresses_only(bytes), false),
        };
        Ok(SimPacket::with_raw_copy(seg, bytes, tcp))
    }

    /// A real packet holding a copy of `bytes`, in a spare buffer of their length
    /// (`raw_pool.rs`: the live engine keeps each packet's buffer once it has written the packet
    /// into a host's device, [`SimPacket::recycle_real`]) and a spare box, whose extra box it
    /// takes too. A live run's packets then cost the allocator nothing, against three
    /// allocations each.
    fn with_raw_copy(seg: Segment, bytes: &[u8], tcp: bool) -> SimPacket {
        let raw = Some(Raw {
            bytes: crate::raw_pool::copy_of(bytes),
            tcp,
        });
        let Some(mut fields) = SimPacket::spare_fields(|f| f.extra.is_some()) else {
            let extra = Extra {
                raw,
                ..Extra::default()
            };
            return SimPacket::with_extra(seg, None, Some(Box::new(extra)));
        };
        let mut extra = fields.extra.take().unwrap_or_default();
        extra.mobility = None;
        extra.tunnel = None;
        extra.raw = raw;
        *fields = PacketFields {
            seg,
            corrupted: false,
            payload_tag: None,
            extra: Some(extra),
        };
        SimPacket::from_box(fields)
    }

    /// The packet has been written into a host's device: its bytes' buffer is kept for a packet
    /// of its length to come (unless an agent's cache still holds it), and its box and extra
    /// box for the next packet made ([`SimPacket::recycle`]).
    pub(crate) fn recycle_real(mut self) {
        if let Some(raw) = self.extra.as_mut().and_then(|e| e.raw.take()) {
            crate::raw_pool::keep(raw.bytes);
        }
        self.recycle();
    }

    fn with_raw(seg: Segment, bytes: Arc<[u8]>, tcp: bool) -> SimPacket {
        let extra = Extra {
            raw: Some(Raw { bytes, tcp }),
            ..Extra::default()
        };
        SimPacket::with_extra(seg, None, Some(Box::new(extra)))
    }

    /// A modelled end's segment as a real packet, for a peer that is a real host: `seg`'s
    /// headers and, for data, the transfer's bytes from `offset` (seed `seed`,
    /// [`crate::transfer_bytes`]). Options the wire codec writes (MSS, SACK blocks, SMART, the
    /// queue report) go out as the model sends them; a kernel skips the kinds it does not know.
    #[cold]
    pub(crate) fn modelled_real(seg: &Segment, seed: u64, offset: u64) -> SimPacket {
        let mut payload = vec![0; seg.len as usize];
        crate::transfer_bytes::fill(seed, offset, &mut payload);
        let bytes = wire::encode(seg, Some(&payload));
        SimPacket::with_raw(*seg, bytes.into(), true)
    }

    /// The TCP payload of a real TCP packet.
    pub(crate) fn real_payload(&self) -> Option<&[u8]> {
        let r = self.raw().filter(|r| r.tcp)?;
        let h = wire::parse_headers(&r.bytes).ok()?;
        r.bytes
            .get(h.payload_offset..h.total_len.min(r.bytes.len()))
    }

    /// The real bytes this packet carries, if it is a real packet.
    pub fn raw(&self) -> Option<&Raw> {
        self.extra.as_ref().and_then(|e| e.raw.as_ref())
    }

    /// The bytes a host receives: a real packet's own, or for a corrupted TCP frame a copy with
    /// its checksum broken; a modelled packet's headers (it has no payload bytes).
    pub fn wire_bytes(&self) -> Cow<'_, [u8]> {
        match self.raw() {
            Some(r) if self.corrupted && r.tcp => {
                let mut copy = r.bytes.to_vec();
                wire::break_tcp_checksum(&mut copy);
                Cow::Owned(copy)
            }
            Some(r) => Cow::Borrowed(&r.bytes),
            None => Cow::Owned(wire::encode_headers(&self.seg)),
        }
    }

    /// The TCP payload of a real TCP packet; `None` for a modelled one.
    pub(crate) fn raw_payload(&self) -> Option<&[u8]> {
        self.raw()
            .filter(|r| r.tcp)
            .and_then(|r| wire::payload(&r.bytes))
    }

    /// A real packet for `seg` carrying `payload` ([`wire::encode`]: real headers, correct
    /// checksums), what a split relay sends the mobile host.
    #[cold]
    pub(crate) fn encoded(seg: &Segment, payload: &[u8]) -> SimPacket {
        SimPacket::with_raw(*seg, wire::encode(seg, Some(payload)).into(), true)
    }

    /// A packet built for `seg` from the real packet `like` ([`wire::rebuild`]).
    #[cold]
    pub(crate) fn rebuilt(seg: &Segment, like: &Raw) -> SimPacket {
        let like_seg = wire::parse_headers(&like.bytes).ok().map(|h| h.seg);
        let bytes = wire::rebuild(seg, &like.bytes, like_seg.as_ref());
        SimPacket::with_raw(*seg, bytes.into(), true)
    }
}

/// What a host wrote: an IPv4/TCP packet's header view, `None` for other IPv4 (ICMP, UDP,
/// fragments), or why it is dropped. Never panics, whatever the bytes.
pub fn classify(bytes: &[u8]) -> Result<Option<Segment>, Reject> {
    match wire::parse_headers(bytes) {
        Ok(h) if wire::ip_header_checksum_ok(bytes, h.ip_header_len) => Ok(Some(h.seg)),
        Ok(_) => Err(Reject::Malformed),
        Err(WireError::NotIpv4) => Err(Reject::NotIpv4),
        Err(WireError::NotTcp(_)) | Err(WireError::Fragment) => {
            // parse_headers checked the lengths before it looked at the protocol
            let ihl = usize::from(bytes.first().map_or(0, |b| b & 0x0f)) * 4;
            if wire::ip_header_checksum_ok(bytes, ihl) {
                Ok(None)
            } else {
                Err(Reject::Malformed)
            }
        }
        Err(WireError::Truncated | WireError::BadHeaderLength | WireError::BadOption) => {
            Err(Reject::Malformed)
        }
    }
}

/// A segment holding only the IPv4 addresses of a packet that is not TCP (checked to be at least
/// an IPv4 header long).
fn addresses_only(bytes: &[u8]) -> Segment {
    let addr = |at: usize| {
        bytes
            .get(at..at + 4)
            .map_or(0, |b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    };
    Segment {
        src: Endpoint {
            addr: addr(12),
            port: 0,
        },
        dst: Endpoint {
            addr: addr(16),
            port: 0,
        },
        ..Segment::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use snooplab_proto::agent::{BuildPacket, SegmentView};

    fn data(len: u32) -> Segment {
        Segment {
            len,
            ..crate::packet::test_segment()
        }
    }

    #[test]
    fn a_real_packet_keeps_its_bytes_and_reads_as_its_headers() {
        let payload: Vec<u8> = (0..100u32).map(|i| (i * 7) as u8).collect();
        let bytes = wire::encode(&data(100), Some(&payload));
        let p = SimPacket::from_wire(bytes.clone()).unwrap();
        assert_eq!(p.segment().map(|s| s.len), Some(100));
        assert_eq!(p.ip_len() as usize, bytes.len());
        assert_eq!(&*p.wire_bytes(), &bytes[..]);
        let mut bad = p.clone();
        bad.corrupted = true;
        assert!(!wire::parse(&bad.wire_bytes()).unwrap().checksums_ok);
        assert!(wire::parse(&p.wire_bytes()).unwrap().checksums_ok);
        // an ACK an agent makes from it is a real packet too, with correct checksums
        let ack = Segment { len: 0, ..data(0) };
        let made = SimPacket::build(&ack, &p);
        assert!(wire::parse(&made.wire_bytes()).unwrap().checksums_ok);
        assert_eq!(made.raw().map(|r| r.bytes.len()), Some(40));
    }

    /// A packet read after one was written reuses its bytes' buffer only when nobody else
    /// holds it: a copy an agent cached keeps its own bytes.
    #[test]
    fn a_recycled_packets_bytes_are_reused_only_when_nobody_shares_them() {
        let one = wire::encode(&data(100), Some(&[1; 100]));
        let two = wire::encode(&data(100), Some(&[2; 100]));
        let three = wire::encode(&data(100), Some(&[3; 100]));
        let short = wire::encode(&data(10), Some(&[4; 10]));
        let first = SimPacket::from_wire(&one).unwrap();
        let buffer = first.raw().map(|r| r.bytes.as_ptr());
        first.recycle_real();
        let second = SimPacket::from_wire(&two).unwrap();
        assert_eq!(second.raw().map(|r| r.bytes.as_ptr()), buffer, "reused");
        assert_eq!(&*second.wire_bytes(), &two[..]);
        assert!(!second.corrupted && second.payload_tag.is_none());
        let cached = second.clone();
        second.recycle_real();
        let third = SimPacket::from_wire(&three).unwrap();
        assert_eq!(&*third.wire_bytes(), &three[..]);
        assert_eq!(
            &*cached.wire_bytes(),
            &two[..],
            "the cached copy keeps its bytes"
        );
        assert_ne!(third.raw().map(|r| r.bytes.as_ptr()), buffer);
        // a packet of another length gets its own bytes
        third.recycle_real();
        let fourth = SimPacket::from_wire(&short).unwrap();
        assert_eq!(&*fourth.wire_bytes(), &short[..]);
        assert_eq!(fourth.segment().map(|s| s.len), Some(10));
    }

    /// `snoop-sack` forwards an ACK without some of its SACK blocks (proto agent/snoop/sack.rs):
    /// on the live engine's path the packet is rebuilt, shorter by the option, with correct
    /// checksums and the timestamps the mobile host wrote.
    #[test]
    fn an_ack_rebuilt_without_its_sack_blocks_is_a_valid_shorter_packet() {
        use snooplab_proto::segment::{SackBlocks, Timestamps};
        use snooplab_proto::Seq;
        let mut blocks = SackBlocks::default();
        blocks.push(Seq(3000), Seq(4000));
        blocks.push(Seq(6000), Seq(7000));
        let ack = Segment {
            ts: Some(Timestamps { val: 7, ecr: 9 }),
            sack: blocks,
            ..data(0)
        };
        let p = SimPacket::from_wire(wire::encode(&ack, None)).unwrap();
        let fewer = Segment {
            sack: SackBlocks::default(),
            ..ack
        };
        let made = SimPacket::build(&fewer, &p);
        let back = wire::parse(&made.wire_bytes()).unwrap();
        assert!(back.checksums_ok);
        assert_eq!(back.seg, fewer);
        assert_eq!(made.wire_bytes().len(), p.wire_bytes().len() - 20);
    }

    #[test]
    fn a_real_packets_payload_is_read_and_a_packet_is_built_with_given_bytes() {
        let payload: Vec<u8> = (0..100u32).map(|i| (i * 13) as u8).collect();
        let p = SimPacket::from_wire(wire::encode(&data(100), Some(&payload))).unwrap();
        assert_eq!(p.payload(), Some(&payload[..]));
        // a split relay's segment with the bytes it stored: real, checksums correct
        let seg = Segment {
            seq: snooplab_proto::Seq(5000),
            ..data(60)
        };
        let made = SimPacket::build_with_payload(&seg, &p, &payload[..60]);
        let bytes = made.wire_bytes();
        let parsed = wire::parse(&bytes).unwrap();
        assert!(parsed.checksums_ok);
        assert_eq!(parsed.seg, seg);
        assert_eq!(made.payload(), Some(&payload[..60]));
        // modelled packets have no bytes, and build without any
        let modelled = SimPacket::new(data(100), None);
        assert_eq!(modelled.payload(), None);
        let built = SimPacket::build_with_payload(&seg, &modelled, &payload[..60]);
        assert!(built.raw().is_none() && built.extra.is_none());
    }

    #[test]
    fn other_ipv4_passes_with_its_addresses_and_garbage_is_rejected() {
        let tcp = wire::encode(&data(10), None);
        let mut udp = tcp.clone();
        udp[9] = 17;
        udp[10] = 0;
        udp[11] = 0;
        let c = wire::checksum(&udp[..20], 0);
        udp[10..12].copy_from_slice(&c.to_be_bytes());
        let p = SimPacket::from_wire(udp).unwrap();
        assert!(p.segment().is_none());
        assert_eq!(p.route_dst(), data(10).dst.addr);
        let mut v6 = tcp.clone();
        v6[0] = 0x60;
        assert_eq!(SimPacket::from_wire(v6), Err(Reject::NotIpv4));
        assert_eq!(SimPacket::from_wire(&tcp[..30]), Err(Reject::Malformed));
        assert_eq!(SimPacket::from_wire(Vec::new()), Err(Reject::Malformed));
    }

    #[test]
    fn a_modelled_packet_stays_as_small_as_before() {
        // a header view, a flag, a tag and one pointer, as before real packets came (104 bytes
        // on x86-64; the raw bytes are behind `extra`)
        let size = std::mem::size_of::<SimPacket>();
        assert!(size <= 104, "{size}");
    }
}
