//! Fixtures shared by the scripted tests: the two hosts' addresses and a minimal packet type.

use crate::agent::{BuildPacket, SegmentView};
use crate::segment::{Endpoint, Flags, Segment};
use crate::seq::Seq;

/// The fixed host (the data sender).
pub const FH: Endpoint = Endpoint {
    addr: 0x0a00_0001,
    port: 20000,
};
/// The mobile host (the data receiver).
pub const MH: Endpoint = Endpoint {
    addr: 0x0a00_0102,
    port: 5001,
};

/// The fixed host on `port`, of tests with many connections.
pub fn wired_host(port: u16) -> Endpoint {
    Endpoint { port, ..FH }
}

/// Mobile host `k` on `port`, of tests with many connections (mobile host 2 is [`MH`]'s address).
pub fn mobile_host(k: u32, port: u16) -> Endpoint {
    Endpoint {
        addr: 0x0a00_0100 + k,
        port,
    }
}

/// A packet that is only its header view; `None` stands for a packet that is not TCP/IPv4.
#[derive(Clone, Debug, PartialEq)]
pub struct Pkt(pub Option<Segment>);

impl SegmentView for Pkt {
    fn segment(&self) -> Option<&Segment> {
        self.0.as_ref()
    }
}

impl BuildPacket for Pkt {
    fn build(seg: &Segment, _like: &Self) -> Self {
        Pkt(Some(*seg))
    }
}

/// A segment between two hosts with a 32768-byte window and no options.
pub fn segment(
    src: Endpoint,
    dst: Endpoint,
    seq: u32,
    ack: u32,
    flags: Flags,
    len: u32,
) -> Segment {
    Segment {
        src,
        dst,
        seq: Seq(seq),
        ack: Seq(ack),
        flags,
        window: 32768,
        len,
        ..Segment::default()
    }
}

/// A packet with its header view and, like a real one, maybe its payload's bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct BytePkt {
    pub seg: Segment,
    pub data: Option<Vec<u8>>,
}

impl SegmentView for BytePkt {
    fn segment(&self) -> Option<&Segment> {
        Some(&self.seg)
    }
    fn payload(&self) -> Option<&[u8]> {
        self.data.as_deref()
    }
}

impl BuildPacket for BytePkt {
    fn build(seg: &Segment, _like: &Self) -> Self {
        BytePkt {
            seg: *seg,
            data: None,
        }
    }
    fn build_with_payload(seg: &Segment, _like: &Self, payload: &[u8]) -> Self {
        BytePkt {
            seg: *seg,
            data: Some(payload.to_vec()),
        }
    }
}
