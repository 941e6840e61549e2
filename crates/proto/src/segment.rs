//! The parsed header view of a TCP/IPv4 segment that every protocol object reads (DESIGN section 1).
//!
//! The simulator builds these directly; the live mode parses them from real packets. Payload bytes are
//! not part of the view: protocol logic only needs their length.

use crate::seq::Seq;

/// TCP header flags (RFC 793), stored as in the header's flag byte.
#[derive(Clone, Copy, PartialEq, Eq, Default, Debug)]
pub struct Flags(pub u8);

impl Flags {
    pub const FIN: Flags = Flags(0x01);
    pub const SYN: Flags = Flags(0x02);
    pub const RST: Flags = Flags(0x04);
    pub const PSH: Flags = Flags(0x08);
    pub const ACK: Flags = Flags(0x10);
    pub const NONE: Flags = Flags(0);

    pub fn contains(self, other: Flags) -> bool {
        self.0 & other.0 == other.0
    }
    pub fn intersects(self, other: Flags) -> bool {
        self.0 & other.0 != 0
    }
    pub fn remove(&mut self, other: Flags) {
        self.0 &= !other.0;
    }
}

impl std::ops::BitOr for Flags {
    type Output = Flags;
    fn bitor(self, rhs: Flags) -> Flags {
        Flags(self.0 | rhs.0)
    }
}

impl std::ops::BitOrAssign for Flags {
    fn bitor_assign(&mut self, rhs: Flags) {
        self.0 |= rhs.0;
    }
}

/// Up to three RFC 2018 SACK blocks, most recent first.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct SackBlocks {
    blocks: [(Seq, Seq); 3],
    n: u8,
}

impl SackBlocks {
    pub const MAX: usize = 3;

    /// Appends a block `[start, end)`; ignored when full or empty.
    pub fn push(&mut self, start: Seq, end: Seq) {
        if (self.n as usize) < Self::MAX && start.lt(end) {
            self.blocks[self.n as usize] = (start, end);
            self.n += 1;
        }
    }
    pub fn len(&self) -> usize {
        self.n as usize
    }
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }
    pub fn iter(&self) -> impl Iterator<Item = (Seq, Seq)> + '_ {
        self.blocks[..self.n as usize].iter().copied()
    }
}

/// One end of a connection: IPv4 address and TCP port.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, PartialOrd, Ord)]
pub struct Endpoint {
    pub addr: u32,
    pub port: u16,
}

/// Size of the IPv4 and TCP headers without options, as in the papers' 40-byte overhead.
pub const TCPIP_HEADER_BYTES: u32 = 40;

/// A TCP/IPv4 segment header as protocol logic sees it.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Segment {
    pub src: Endpoint,
    pub dst: Endpoint,
    pub seq: Seq,
    pub ack: Seq,
    pub flags: Flags,
    /// Advertised receive window (unscaled, as in 4.4BSD without RFC 1323).
    pub window: u16,
    /// Payload length in bytes.
    pub len: u32,
    /// IPv4 identification field.
    pub ip_id: u16,
    /// The MSS option, present on SYNs.
    pub mss: Option<u16>,
    /// Explicit loss notification: the segment this ACK asks for was lost on the wireless hop, not to
    /// congestion (paper 000 section III-A; carried in a reserved header bit, paper 004 section 3.3).
    pub eln: bool,
    /// SMART (paper 000 section II): the sequence number of the data segment whose arrival caused this
    /// ACK, carried besides the cumulative acknowledgment.
    pub smart: Option<Seq>,
    /// RFC 2018 selective acknowledgments.
    pub sack: SackBlocks,
}

impl Segment {
    pub fn is_syn(&self) -> bool {
        self.flags.contains(Flags::SYN)
    }
    pub fn is_fin(&self) -> bool {
        self.flags.contains(Flags::FIN)
    }
    pub fn has_ack(&self) -> bool {
        self.flags.contains(Flags::ACK)
    }
    /// Sequence space the segment occupies: payload plus one for SYN and one for FIN.
    pub fn seq_len(&self) -> u32 {
        self.len + u32::from(self.is_syn()) + u32::from(self.is_fin())
    }
    /// Bytes of TCP options carried: MSS 4, SMART 8 (kind, length, 4-byte sequence, padded).
    pub fn option_bytes(&self) -> u32 {
        let mut n = 0;
        if self.mss.is_some() {
            n += 4;
        }
        if self.smart.is_some() {
            n += 8;
        }
        if !self.sack.is_empty() {
            // kind, length and 8 bytes a block, padded with NOPs to a multiple of 4
            n += (2 + 8 * self.sack.len() as u32).div_ceil(4) * 4;
        }
        n
    }
    /// Size of the IP datagram: headers, options and payload.
    pub fn ip_len(&self) -> u32 {
        TCPIP_HEADER_BYTES + self.option_bytes() + self.len
    }
}
