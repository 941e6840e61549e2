//! The simulator's packet: a header view plus what the channel and the checks need.

use snooplab_proto::agent::{BuildPacket, SegmentView};
use snooplab_proto::Segment;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimPacket {
    pub seg: Segment,
    /// Bit errors hit this packet on the wireless link: its checksum no longer matches.
    pub corrupted: bool,
    /// A digest of the payload the fixed host put in, checked at the mobile host (the simulated
    /// bytes). `None` for packets a split base station builds from its relayed byte stream.
    pub payload_tag: Option<u64>,
}

impl SimPacket {
    pub fn new(seg: Segment, payload_tag: Option<u64>) -> SimPacket {
        SimPacket {
            seg,
            corrupted: false,
            payload_tag,
        }
    }

    /// Bytes on the wire at the IP layer.
    pub fn ip_len(&self) -> u32 {
        self.seg.ip_len()
    }
}

impl BuildPacket for SimPacket {
    fn build(seg: &Segment, _like: &Self) -> Self {
        SimPacket::new(*seg, None)
    }
}

impl SegmentView for SimPacket {
    fn segment(&self) -> Option<&Segment> {
        Some(&self.seg)
    }
}

/// The digest of `len` payload bytes starting `offset` bytes into the transfer: every byte of the
/// transfer has a fixed value, so the digest of a range is a function of the range.
pub fn payload_tag(offset: u64, len: u32) -> u64 {
    if len == 0 {
        return 0;
    }
    let mut z = offset.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ u64::from(len).rotate_left(32);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z ^ (z >> 31)
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
    }
}
