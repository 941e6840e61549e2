//! The simulator's packet: a header view plus what the channel and the checks need.

use snooplab_proto::agent::handoff::TUNNEL_HEADER_BYTES;
use snooplab_proto::agent::handoff::{Mobility, MobilityPacket, Tunnel, CONTROL_PORT};
use snooplab_proto::agent::{BuildPacket, SegmentView};
use snooplab_proto::{Endpoint, Segment};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimPacket {
    pub seg: Segment,
    /// Bit errors hit this packet on the wireless link: its checksum no longer matches.
    pub corrupted: bool,
    /// A digest of the payload the fixed host put in, checked at the mobile host (the simulated
    /// bytes). `None` for packets a split base station builds from its relayed byte stream.
    pub payload_tag: Option<u64>,
    /// A handoff protocol message (paper 002): then `seg` holds only its addresses and ports, and
    /// the packet is a UDP datagram, not TCP.
    pub mobility: Option<Mobility>,
    /// The outer header of a packet the home agent encapsulated to a base station.
    pub tunnel: Option<Tunnel>,
}

impl SimPacket {
    pub fn new(seg: Segment, payload_tag: Option<u64>) -> SimPacket {
        SimPacket {
            seg,
            corrupted: false,
            payload_tag,
            mobility: None,
            tunnel: None,
        }
    }

    /// Bytes on the wire at the IP layer, the outer header of a tunnel included.
    pub fn ip_len(&self) -> u32 {
        let inner = match &self.mobility {
            Some(m) => m.ip_len(),
            None => self.seg.ip_len(),
        };
        inner + self.tunnel.map_or(0, |_| TUNNEL_HEADER_BYTES)
    }

    /// The address the packet is routed to: the tunnel's end, or its own destination.
    pub fn route_dst(&self) -> u32 {
        self.tunnel.map_or(self.seg.dst.addr, |t| t.dst)
    }

    /// A TCP segment, not a handoff message.
    pub fn is_tcp(&self) -> bool {
        self.mobility.is_none()
    }
}

impl MobilityPacket for SimPacket {
    fn mobility(&self) -> Option<&Mobility> {
        self.mobility.as_ref()
    }

    fn tunnel(&self) -> Option<Tunnel> {
        self.tunnel
    }

    fn encapsulate(&self, tunnel: Tunnel) -> Self {
        SimPacket {
            tunnel: Some(tunnel),
            ..*self
        }
    }

    fn decapsulate(self) -> Self {
        SimPacket {
            tunnel: None,
            ..self
        }
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
        SimPacket {
            mobility: Some(msg),
            ..SimPacket::new(seg, None)
        }
    }
}

impl BuildPacket for SimPacket {
    fn build(seg: &Segment, _like: &Self) -> Self {
        SimPacket::new(*seg, None)
    }
}

impl SegmentView for SimPacket {
    fn segment(&self) -> Option<&Segment> {
        self.is_tcp().then_some(&self.seg)
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
