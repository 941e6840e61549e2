//! The live mode's packet: the bytes read from a TUN device, shared (a snoop cache entry and a
//! queued transmission hold the same bytes, never a copy), and the header view the agents read.

use std::rc::Rc;

use snooplab_proto::agent::{BuildPacket, SegmentView};
use snooplab_proto::wire;
use snooplab_proto::Segment;
use snooplab_sim::medium::Frame;

#[derive(Clone, Debug)]
pub struct LivePacket {
    bytes: Rc<Vec<u8>>,
    /// `None` for IPv4 that is not TCP (ICMP, UDP, fragments): agents pass it through untouched.
    seg: Option<Segment>,
    /// The emulated channel corrupted this copy on its way (set by the WaveLAN model).
    corrupted: bool,
}

/// Why a packet read from a TUN device was dropped instead of forwarded (the engine's rule).
pub use snooplab_sim::raw::Reject;

impl LivePacket {
    /// Reads a packet as it came out of a TUN device.
    pub fn classify(bytes: Vec<u8>) -> Result<LivePacket, Reject> {
        let seg = snooplab_sim::raw::classify(&bytes)?;
        Ok(LivePacket {
            bytes: Rc::new(bytes),
            seg,
            corrupted: false,
        })
    }

    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The bytes the receiver gets: these, or for a corrupted frame a copy with the TCP checksum
    /// broken so that the receiving kernel drops it as the papers' receivers did.
    pub fn wire_bytes(&self) -> std::borrow::Cow<'_, [u8]> {
        if self.corrupted && self.seg.is_some() {
            let mut copy = self.bytes.to_vec();
            wire::break_tcp_checksum(&mut copy);
            std::borrow::Cow::Owned(copy)
        } else {
            std::borrow::Cow::Borrowed(&self.bytes)
        }
    }

    /// How many holders share these bytes (the agent's cache, queues): for tests of the no-copy rule.
    #[cfg(test)]
    pub(crate) fn holders(&self) -> usize {
        Rc::strong_count(&self.bytes)
    }
}

impl SegmentView for LivePacket {
    fn segment(&self) -> Option<&Segment> {
        self.seg.as_ref()
    }

    fn payload(&self) -> Option<&[u8]> {
        self.seg.and_then(|_| wire::payload(&self.bytes))
    }
}

impl BuildPacket for LivePacket {
    /// A whole packet with real headers and correct checksums: an ACK snoop makes up (paper 002
    /// section 3.1.1 case 2b), or `like` with a changed header (the ELN marker sets its bit on an
    /// ACK). The payload is `like`'s when `like` is the same bytes of the same connection, zeros
    /// otherwise. Writing only the headers, as before, left an ACK that carries data (marked by the
    /// ELN agent) with a total length past its end and without its data: a packet no receiver
    /// takes (found by fuzzing, fuzz/fuzz_targets/agent_eln.rs).
    fn build(seg: &Segment, like: &Self) -> Self {
        LivePacket {
            bytes: Rc::new(wire::rebuild(seg, &like.bytes, like.seg.as_ref())),
            seg: Some(*seg),
            corrupted: false,
        }
    }

    /// A whole packet carrying `payload` (a split relay's segment), real headers and checksums.
    fn build_with_payload(seg: &Segment, _like: &Self, payload: &[u8]) -> Self {
        LivePacket {
            bytes: Rc::new(wire::encode(seg, Some(payload))),
            seg: Some(*seg),
            corrupted: false,
        }
    }
}

impl Frame for LivePacket {
    fn ip_len(&self) -> u32 {
        self.bytes.len() as u32
    }
    fn set_corrupted(&mut self, corrupted: bool) {
        self.corrupted = corrupted;
    }
}

/// A data segment from the fixed host to the mobile host, for the crate's unit tests.
#[cfg(test)]
pub(crate) fn test_segment(len: u32) -> Segment {
    use snooplab_proto::segment::{Endpoint, Flags};
    Segment {
        src: Endpoint {
            addr: 0x0a00_0001,
            port: 40000,
        },
        dst: Endpoint {
            addr: 0x0a00_0102,
            port: 5001,
        },
        seq: snooplab_proto::Seq(1000),
        ack: snooplab_proto::Seq(1),
        flags: Flags::ACK,
        window: 32768,
        len,
        ..Segment::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn data_segment(len: u32) -> Segment {
        test_segment(len)
    }

    /// Found by fuzzing (fuzz/fuzz_targets/agent_eln.rs): the ELN agent marks an ACK that carries
    /// 1400 bytes; the rebuilt packet was its headers alone.
    #[test]
    fn a_rebuilt_packet_keeps_its_payload_and_parses() {
        use snooplab_proto::Flags;
        let mut seg = data_segment(1400);
        seg.flags = Flags::ACK;
        let payload: Vec<u8> = (0..1400u32).map(|i| (i % 251) as u8).collect();
        let like = LivePacket::classify(wire::encode(&seg, Some(&payload))).unwrap();
        let marked = Segment { eln: true, ..seg };
        let built = LivePacket::build(&marked, &like);
        let p = wire::parse(built.bytes()).expect("the rebuilt packet parses");
        assert!(p.checksums_ok);
        assert_eq!(p.seg, marked);
        assert_eq!(&built.bytes()[p.payload_offset..], &payload[..]);
        // an ACK made up from another packet of the connection carries no data of that packet
        let ack = Segment {
            len: 0,
            seq: seg.seq + 1400,
            ..marked
        };
        let made = LivePacket::build(&ack, &like);
        assert_eq!(made.bytes(), &wire::encode_headers(&ack)[..]);
    }

    #[test]
    fn corruption_breaks_a_copy_only() {
        let mut p = LivePacket::classify(wire::encode(&data_segment(10), None)).unwrap();
        let cached = p.clone();
        assert_eq!(p.holders(), 2);
        p.set_corrupted(true);
        assert!(!wire::parse(&p.wire_bytes()).unwrap().checksums_ok);
        assert!(wire::parse(cached.bytes()).unwrap().checksums_ok);
    }

    proptest! {
        #[test]
        fn classify_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = LivePacket::classify(bytes);
        }

        #[test]
        fn classify_never_panics_on_mutated_packets(
            len in 0u32..200,
            flips in proptest::collection::vec((0usize..300, any::<u8>()), 1..6),
            cut in 0usize..300,
        ) {
            let mut b = wire::encode(&data_segment(len), None);
            for (at, x) in flips {
                let n = b.len();
                b[at % n] ^= x;
            }
            b.truncate(cut.max(1));
            if let Ok(p) = LivePacket::classify(b) {
                // whatever was accepted as TCP has headers inside the bytes
                if let Some(s) = p.segment() {
                    prop_assert!(s.len as usize <= p.len());
                }
            }
        }
    }
}

#[cfg(test)]
mod size_tests {
    use super::*;
    use snooplab_proto::agent::snoop::Entry;

    /// The memory bound the README states: a cached segment is its bytes (shared, allocated once at
    /// read: the packet length plus the `Rc` and `Vec` headers, 40 bytes) and one cache entry.
    #[test]
    fn a_cached_segment_costs_its_bytes_and_a_small_entry() {
        let entry = std::mem::size_of::<Entry<LivePacket>>();
        eprintln!("cache entry: {entry} bytes");
        assert!(entry <= 160, "{entry}");
    }
}
