//! The parsed header view of a TCP/IPv4 segment that every protocol object reads (docs/architecture.md).
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

/// The most bytes of options a TCP header holds (data offset 15 words).
pub const MAX_TCP_OPTION_BYTES: u32 = 40;

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
    /// The header's 16-bit window field: the receive window, shifted right by the sender's window
    /// scale once both ends negotiated one (RFC 7323 section 2; never on a SYN), else as it is.
    pub window: u16,
    /// Payload length in bytes.
    pub len: u32,
    /// IPv4 identification field.
    pub ip_id: u16,
    /// The MSS option, present on SYNs.
    pub mss: Option<u16>,
    /// The RFC 7323 window scale option (SYNs only): the shift count the sender applies to the
    /// windows it advertises.
    pub wscale: Option<u8>,
    /// The RFC 7323 timestamps option.
    pub ts: Option<Timestamps>,
    /// Explicit loss notification: the segment this ACK asks for was lost on the wireless hop, not to
    /// congestion (paper 000 section III-A; carried in a reserved header bit, paper 004 section 3.3).
    pub eln: bool,
    /// SMART (paper 000 section II): the sequence number of the data segment whose arrival caused this
    /// ACK, carried besides the cumulative acknowledgment.
    pub smart: Option<Seq>,
    /// RFC 2018 selective acknowledgments.
    pub sack: SackBlocks,
    /// The sending host's output queue, piggybacked on its data (paper 004 section 3.3): what an ELN
    /// base station reads to tell a congestion loss at the mobile host from a wireless one.
    pub queue: Option<QueueReport>,
}

/// The RFC 7323 timestamps option (section 3): the sender's timestamp clock and the echo of the
/// peer's (`TS.Recent`, zero when the segment carries no ACK).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Timestamps {
    /// TSval.
    pub val: u32,
    /// TSecr.
    pub ecr: u32,
}

/// Bytes of the MSS option (kind, length, 2 bytes).
pub const MSS_OPTION_BYTES: u32 = 4;
/// Bytes the timestamps option takes as Linux lays it out (`tcp_options_write`, net/ipv4/tcp_output.c):
/// two NOPs, then kind 8, length 10 and the two 32-bit clocks (`TCPOLEN_TSTAMP_ALIGNED`, 12).
pub const TIMESTAMPS_OPTION_BYTES: u32 = 12;
/// Bytes the window scale option takes as Linux lays it out: a NOP, then kind 3, length 3 and the
/// shift (`TCPOLEN_WSCALE_ALIGNED`, 4).
pub const WSCALE_OPTION_BYTES: u32 = 4;

/// An interface queue's instantaneous length and its maximum, in packets, as a mobile host
/// piggybacks it on each packet it sends (paper 004 section 3.3: "Piggybacked on each packet from the
/// MH is its instantaneous output queue length"). The wire carries a byte each, so a queue longer
/// than 255 packets is scaled down with its maximum ([`QueueReport::new`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct QueueReport {
    pub len: u8,
    pub max: u8,
}

impl QueueReport {
    /// The report of a queue holding `len` of at most `max` packets, scaled to fit a byte each.
    pub fn new(len: usize, max: usize) -> QueueReport {
        let max = max.max(1);
        let len = len.min(max);
        if max <= 255 {
            return QueueReport {
                len: len as u8,
                max: max as u8,
            };
        }
        QueueReport {
            len: (len * 255).div_ceil(max).min(255) as u8,
            max: 255,
        }
    }

    /// Whether the queue is above `threshold` (a fraction) of its maximum.
    pub fn above(&self, threshold: f64) -> bool {
        f64::from(self.len) > threshold * f64::from(self.max)
    }
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
    /// Bytes of TCP options carried: MSS 4, window scale 4 and timestamps 12 (each padded with NOPs
    /// to whole words as Linux's `tcp_options_write` does), SMART 8 (kind, length, 4-byte sequence,
    /// padded), a queue report 8 (kind, length, experiment id, two bytes, padded), and the SACK
    /// blocks that fit.
    #[inline]
    pub fn option_bytes(&self) -> u32 {
        let fixed = self.fixed_option_bytes();
        if self.sack.is_empty() {
            // most segments: no blocks, so nothing to fit beside the other options
            return fixed;
        }
        let n = self.sack_blocks_carried();
        if n == 0 {
            return fixed;
        }
        // kind, length and 8 bytes a block, padded with NOPs to a multiple of 4
        fixed + (2 + 8 * n as u32).div_ceil(4) * 4
    }

    #[inline]
    fn fixed_option_bytes(&self) -> u32 {
        MSS_OPTION_BYTES * u32::from(self.mss.is_some())
            + WSCALE_OPTION_BYTES * u32::from(self.wscale.is_some())
            + TIMESTAMPS_OPTION_BYTES * u32::from(self.ts.is_some())
            + 8 * u32::from(self.smart.is_some())
            + 8 * u32::from(self.queue.is_some())
    }

    /// How many of the SACK blocks fit in the 40 bytes of TCP options beside the others (RFC 2018
    /// section 3: fewer blocks when other options are present); the first ones are carried.
    pub fn sack_blocks_carried(&self) -> usize {
        let room = MAX_TCP_OPTION_BYTES.saturating_sub(self.fixed_option_bytes());
        let fit = (room.saturating_sub(2) / 8) as usize;
        self.sack.len().min(fit)
    }
    /// Size of the IP datagram: headers, options and payload. Inlined across crates: the
    /// simulator's links and media ask for it several times for every frame they carry.
    #[inline]
    pub fn ip_len(&self) -> u32 {
        TCPIP_HEADER_BYTES + self.option_bytes() + self.len
    }
}
