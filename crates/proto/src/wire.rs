//! IPv4/TCP on the wire: a [`Segment`] encoded as real header bytes with correct checksums, and real
//! bytes parsed back into a [`Segment`]. The simulator's packet captures and the live base station
//! both use it.
//!
//! What the papers' extensions look like on the wire:
//! - SACK: the RFC 2018 option (kind 5), after two NOPs, up to three blocks.
//! - SMART (paper 000 section II): an experimental option, kind 253 (RFC 4727), in the RFC 6994
//!   shared layout: kind, length 8, the 16-bit experiment id [`SMART_EXID`] (not registered with
//!   IANA), and the 32-bit sequence number of the segment that caused the ACK.
//! - The mobile host's queue report (paper 004 section 3.3): the same experimental kind 253 with
//!   experiment id [`QUEUE_EXID`], length 6 (the queue's length and maximum in packets, a byte
//!   each), after two NOPs. Wireshark shows it as an experimental option with ExID 0x514c.
//! - RFC 7323's timestamps and window scale: in Linux's layout (`tcp_options_write`,
//!   net/ipv4/tcp_output.c): after the MSS, two NOPs and the timestamps, then a NOP and the window
//!   scale, then the SACK blocks.
//! - ELN: a reserved bit of the TCP header ([`ELN_BIT`] in byte 12), as paper 004 section 3.3 did
//!   ("we use one of the unreserved bits").

use crate::segment::{Endpoint, Flags, QueueReport, SackBlocks, Segment, Timestamps};
use crate::seq::Seq;

/// Bit of TCP header byte 12 (data offset, then reserved bits) that carries the ELN mark.
pub const ELN_BIT: u8 = 0x08;
/// TCP option kind of the SMART information: the first experimental kind of RFC 4727.
pub const SMART_OPTION_KIND: u8 = 253;
/// Experiment id of the SMART option (RFC 6994 layout; our own, unregistered: "SM").
pub const SMART_EXID: u16 = 0x534d;
/// Experiment id of the queue report (RFC 6994 layout; our own, unregistered: "QL").
pub const QUEUE_EXID: u16 = 0x514c;
/// IPv4 header without options.
pub const IPV4_HEADER_BYTES: usize = 20;
/// TCP header without options.
pub const TCP_HEADER_BYTES: usize = 20;
/// Time to live of the packets we build.
pub const DEFAULT_TTL: u8 = 64;

const OPT_EOL: u8 = 0;
const OPT_NOP: u8 = 1;
const OPT_MSS: u8 = 2;
const OPT_WSCALE: u8 = 3;
const OPT_SACK: u8 = 5;
const OPT_TIMESTAMPS: u8 = 8;

/// Why bytes are not a TCP/IPv4 segment we can read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WireError {
    /// Fewer bytes than the headers claim.
    Truncated,
    /// Not an IPv4 packet (the version nibble).
    NotIpv4,
    /// IPv4, but not TCP (the protocol number given).
    NotTcp(u8),
    /// A fragment: only whole datagrams are read.
    Fragment,
    /// A header length field below the minimum or past the packet.
    BadHeaderLength,
    /// A TCP option whose length is below 2 or runs past the header.
    BadOption,
}

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WireError::Truncated => write!(f, "truncated packet"),
            WireError::NotIpv4 => write!(f, "not IPv4"),
            WireError::NotTcp(p) => write!(f, "IPv4 protocol {p}, not TCP"),
            WireError::Fragment => write!(f, "IPv4 fragment"),
            WireError::BadHeaderLength => write!(f, "bad header length"),
            WireError::BadOption => write!(f, "malformed TCP option"),
        }
    }
}

impl std::error::Error for WireError {}

/// A parsed packet: the header view, where the payload starts, and whether both checksums hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parsed {
    pub seg: Segment,
    /// Offset of the TCP payload in the packet.
    pub payload_offset: usize,
    /// The IPv4 header checksum and the TCP checksum are both correct.
    pub checksums_ok: bool,
}

/// The headers of a packet, read without looking at the checksums ([`parse_headers`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Headers {
    pub seg: Segment,
    /// Length of the IPv4 header, options included.
    pub ip_header_len: usize,
    /// Offset of the TCP payload in the packet.
    pub payload_offset: usize,
    /// The IPv4 total length: bytes past it are link padding.
    pub total_len: usize,
}

/// Bytes of IPv4 and TCP headers, options included, that [`encode`] writes for `seg`.
pub fn header_bytes(seg: &Segment) -> usize {
    IPV4_HEADER_BYTES + TCP_HEADER_BYTES + seg.option_bytes() as usize
}

/// The whole IPv4 datagram of `seg` with correct checksums. The payload is `payload` when given
/// (it must be `seg.len` bytes long, else it is cut or padded with zeros), zeros otherwise.
pub fn encode(seg: &Segment, payload: Option<&[u8]>) -> Vec<u8> {
    let Some(p) = payload else {
        let mut out = encode_headers(seg);
        out.resize(out.len() + seg.len as usize, 0);
        return out;
    };
    let hdr = header_bytes(seg);
    let total = hdr + seg.len as usize;
    let mut out = Vec::with_capacity(total);
    write_ipv4(&mut out, seg, total);
    write_tcp(&mut out, seg);
    let n = p.len().min(seg.len as usize);
    out.extend_from_slice(&p[..n]);
    out.resize(total, 0);
    fill_checksums(&mut out, total);
    out
}

/// Only the IPv4 and TCP headers of `seg`, with checksums that are correct for a payload of
/// `seg.len` zero bytes (zeros add nothing to the Internet checksum): what a capture with zeroed
/// payloads needs, without summing the zeros.
pub fn encode_headers(seg: &Segment) -> Vec<u8> {
    let hdr = header_bytes(seg);
    let mut out = Vec::with_capacity(hdr);
    write_ipv4(&mut out, seg, hdr + seg.len as usize);
    write_tcp(&mut out, seg);
    fill_checksums(&mut out, hdr + seg.len as usize);
    out
}

/// A UDP datagram in IPv4 (for the handoff protocol's messages, paper 002), with both checksums.
pub fn encode_udp(src: Endpoint, dst: Endpoint, ip_id: u16, payload: &[u8]) -> Vec<u8> {
    let total = IPV4_HEADER_BYTES + 8 + payload.len();
    let mut out = Vec::with_capacity(total);
    write_ip_header(&mut out, src.addr, dst.addr, 17, ip_id, total);
    let udp_len = (8 + payload.len()) as u16;
    out.extend_from_slice(&src.port.to_be_bytes());
    out.extend_from_slice(&dst.port.to_be_bytes());
    out.extend_from_slice(&udp_len.to_be_bytes());
    out.extend_from_slice(&[0, 0]);
    out.extend_from_slice(payload);
    let ip_sum = checksum(&out[..IPV4_HEADER_BYTES], 0);
    out[10..12].copy_from_slice(&ip_sum.to_be_bytes());
    // the UDP checksum covers a pseudo-header: addresses, protocol, UDP length
    let mut pseudo = Vec::with_capacity(12);
    pseudo.extend_from_slice(&src.addr.to_be_bytes());
    pseudo.extend_from_slice(&dst.addr.to_be_bytes());
    pseudo.extend_from_slice(&[0, 17]);
    pseudo.extend_from_slice(&udp_len.to_be_bytes());
    let partial = !checksum(&pseudo, 0);
    let sum = match checksum(&out[IPV4_HEADER_BYTES..], u32::from(partial)) {
        0 => 0xffff, // a computed zero is sent as all ones (RFC 768)
        s => s,
    };
    out[IPV4_HEADER_BYTES + 6..IPV4_HEADER_BYTES + 8].copy_from_slice(&sum.to_be_bytes());
    out
}

/// `inner` (an IPv4 packet `inner_total` bytes long, of which `inner` may hold only the headers)
/// inside an outer IPv4 header from `src` to `dst`: IP-in-IP, RFC 2003, as a home agent tunnels.
pub fn encapsulate_ipip(src: u32, dst: u32, inner: &[u8], inner_total: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(IPV4_HEADER_BYTES + inner.len());
    let id = inner
        .get(4..6)
        .map_or(0, |b| u16::from_be_bytes([b[0], b[1]]));
    write_ip_header(&mut out, src, dst, 4, id, IPV4_HEADER_BYTES + inner_total);
    let ip_sum = checksum(&out[..IPV4_HEADER_BYTES], 0);
    out[10..12].copy_from_slice(&ip_sum.to_be_bytes());
    out.extend_from_slice(inner);
    out
}

fn write_ip_header(out: &mut Vec<u8>, src: u32, dst: u32, proto: u8, ip_id: u16, total: usize) {
    out.push(0x45);
    out.push(0);
    out.extend_from_slice(&(total.min(usize::from(u16::MAX)) as u16).to_be_bytes());
    out.extend_from_slice(&ip_id.to_be_bytes());
    out.extend_from_slice(&0x4000u16.to_be_bytes());
    out.push(DEFAULT_TTL);
    out.push(proto);
    out.extend_from_slice(&[0, 0]);
    out.extend_from_slice(&src.to_be_bytes());
    out.extend_from_slice(&dst.to_be_bytes());
}

/// Writes both checksums into `packet`, whose IPv4 datagram is `total` bytes long; bytes of it past
/// the end of `packet` count as zeros.
fn fill_checksums(packet: &mut [u8], total: usize) {
    let ip_sum = checksum(&packet[..IPV4_HEADER_BYTES], 0);
    packet[10..12].copy_from_slice(&ip_sum.to_be_bytes());
    let tcp_len = total - IPV4_HEADER_BYTES;
    let tcp_sum = tcp_checksum(packet, IPV4_HEADER_BYTES, tcp_len);
    packet[IPV4_HEADER_BYTES + 16..IPV4_HEADER_BYTES + 18].copy_from_slice(&tcp_sum.to_be_bytes());
}

/// Breaks the TCP checksum of an encoded packet, as bit errors on the link would: the receiver's
/// checksum test fails and it drops the segment.
pub fn break_tcp_checksum(packet: &mut [u8]) {
    let at = tcp_offset(packet) + 16;
    if packet.len() >= at + 2 {
        packet[at] ^= 0x5a;
        packet[at + 1] ^= 0xa5;
    }
}

fn tcp_offset(packet: &[u8]) -> usize {
    packet
        .first()
        .map_or(IPV4_HEADER_BYTES, |b| usize::from(b & 0x0f) * 4)
}

/// IPv4 header of a TCP segment (version 4, 5 words, don't fragment), checksum left to fill.
fn write_ipv4(out: &mut Vec<u8>, seg: &Segment, total: usize) {
    write_ip_header(out, seg.src.addr, seg.dst.addr, 6, seg.ip_id, total);
}

fn write_tcp(out: &mut Vec<u8>, seg: &Segment) {
    let words = (TCP_HEADER_BYTES + seg.option_bytes() as usize) / 4;
    out.extend_from_slice(&seg.src.port.to_be_bytes());
    out.extend_from_slice(&seg.dst.port.to_be_bytes());
    out.extend_from_slice(&seg.seq.0.to_be_bytes());
    out.extend_from_slice(&seg.ack.0.to_be_bytes());
    out.push(((words as u8) << 4) | if seg.eln { ELN_BIT } else { 0 });
    out.push(seg.flags.0);
    out.extend_from_slice(&seg.window.to_be_bytes());
    out.extend_from_slice(&[0, 0]); // checksum, filled in later
    out.extend_from_slice(&[0, 0]); // urgent pointer
    if let Some(mss) = seg.mss {
        out.extend_from_slice(&[OPT_MSS, 4]);
        out.extend_from_slice(&mss.to_be_bytes());
    }
    if let Some(ts) = seg.ts {
        out.extend_from_slice(&[OPT_NOP, OPT_NOP, OPT_TIMESTAMPS, 10]);
        out.extend_from_slice(&ts.val.to_be_bytes());
        out.extend_from_slice(&ts.ecr.to_be_bytes());
    }
    if let Some(shift) = seg.wscale {
        out.extend_from_slice(&[OPT_NOP, OPT_WSCALE, 3, shift]);
    }
    let blocks = seg.sack_blocks_carried();
    if blocks > 0 {
        let len = 2 + 8 * blocks;
        for _ in 0..(len.div_ceil(4) * 4 - len) {
            out.push(OPT_NOP);
        }
        out.extend_from_slice(&[OPT_SACK, len as u8]);
        for (a, b) in seg.sack.iter().take(blocks) {
            out.extend_from_slice(&a.0.to_be_bytes());
            out.extend_from_slice(&b.0.to_be_bytes());
        }
    }
    if let Some(s) = seg.smart {
        out.extend_from_slice(&[SMART_OPTION_KIND, 8]);
        out.extend_from_slice(&SMART_EXID.to_be_bytes());
        out.extend_from_slice(&s.0.to_be_bytes());
    }
    if let Some(q) = seg.queue {
        out.extend_from_slice(&[OPT_NOP, OPT_NOP, SMART_OPTION_KIND, 6]);
        out.extend_from_slice(&QUEUE_EXID.to_be_bytes());
        out.extend_from_slice(&[q.len, q.max]);
    }
}

/// The Internet checksum (RFC 1071) of `data`, starting from the partial sum `initial`.
pub fn checksum(data: &[u8], initial: u32) -> u16 {
    let mut sum = u64::from(initial);
    let mut chunks = data.chunks_exact(2);
    for c in &mut chunks {
        sum += u64::from(u16::from_be_bytes([c[0], c[1]]));
    }
    if let [last] = chunks.remainder() {
        sum += u64::from(u16::from_be_bytes([*last, 0]));
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// The TCP checksum of the `tcp_len`-byte segment starting at `tcp_at`, over the pseudo-header
/// (addresses, protocol, TCP length) and the TCP header and payload, its checksum field counted as
/// it stands: zero for a correct segment, the value to write when the field is zero. Bytes past the
/// end of `packet` count as zeros.
fn tcp_checksum(packet: &[u8], tcp_at: usize, tcp_len: usize) -> u16 {
    let tcp = &packet[tcp_at..];
    let mut pseudo = 0u32;
    for w in packet[12..20].chunks_exact(2) {
        pseudo += u32::from(u16::from_be_bytes([w[0], w[1]]));
    }
    pseudo += 6 + tcp_len as u32;
    checksum(tcp, pseudo)
}

// A field of a header whose length the caller has checked (0 past the end, never a panic),
// with one bounds check, inlined into the parse: as calls, with a check per byte, they were
// about 100 instructions of each packet the live engine reads (callgrind, docs/live.md).
#[inline(always)]
fn be16(b: &[u8], at: usize) -> u16 {
    b.get(at..at + 2)
        .and_then(|f| f.try_into().ok())
        .map_or(0, u16::from_be_bytes)
}

#[inline(always)]
fn be32(b: &[u8], at: usize) -> u32 {
    b.get(at..at + 4)
        .and_then(|f| f.try_into().ok())
        .map_or(0, u32::from_be_bytes)
}

/// A whole packet for `seg` made from the packet `like` (its bytes and its header view): an ACK a
/// base station makes up (snoop's answer to data already acknowledged, paper 002 section 3.1.1
/// case 2b) or `like` with a changed header (the ELN marker sets its bit on an ACK). Real headers,
/// correct checksums; the payload is `like`'s when `seg` and `like` are the same bytes of the same
/// connection, zeros otherwise. (Writing only the headers left an ACK that carries data, marked by
/// the ELN agent, with a total length past its end: found by fuzzing, fuzz_targets/agent_eln.rs.)
pub fn rebuild(seg: &Segment, like: &[u8], like_seg: Option<&Segment>) -> Vec<u8> {
    let same_bytes = like_seg
        .is_some_and(|l| (l.src, l.dst, l.seq, l.len) == (seg.src, seg.dst, seg.seq, seg.len));
    let payload = parse_headers(like)
        .ok()
        .filter(|_| same_bytes)
        .and_then(|h| like.get(h.payload_offset..h.total_len));
    encode(seg, payload)
}

/// The TCP payload of an IPv4/TCP packet (up to its IPv4 total length), `None` if the bytes are
/// not one ([`parse_headers`]).
pub fn payload(packet: &[u8]) -> Option<&[u8]> {
    let h = parse_headers(packet).ok()?;
    packet.get(h.payload_offset..h.total_len)
}

/// Reads the headers of an IPv4/TCP packet without checking the checksums (the live base station
/// forwards what the kernel made; the receiver checks). Never panics, whatever the bytes; trailing
/// bytes past the IPv4 total length (link padding) are ignored.
pub fn parse_headers(packet: &[u8]) -> Result<Headers, WireError> {
    let first = *packet.first().ok_or(WireError::Truncated)?;
    if first >> 4 != 4 {
        return Err(WireError::NotIpv4);
    }
    if packet.len() < IPV4_HEADER_BYTES {
        return Err(WireError::Truncated);
    }
    let ihl = usize::from(first & 0x0f) * 4;
    let total = usize::from(be16(packet, 2));
    if ihl < IPV4_HEADER_BYTES || total < ihl {
        return Err(WireError::BadHeaderLength);
    }
    if packet.len() < total {
        return Err(WireError::Truncated);
    }
    let frag = be16(packet, 6);
    if frag & 0x3fff != 0 {
        return Err(WireError::Fragment);
    }
    if packet[9] != 6 {
        return Err(WireError::NotTcp(packet[9]));
    }
    let packet = &packet[..total];
    let tcp = &packet[ihl..];
    if tcp.len() < TCP_HEADER_BYTES {
        return Err(WireError::Truncated);
    }
    let doff = usize::from(tcp[12] >> 4) * 4;
    if doff < TCP_HEADER_BYTES || doff > tcp.len() {
        return Err(WireError::BadHeaderLength);
    }
    let mut seg = Segment {
        src: Endpoint {
            addr: be32(packet, 12),
            port: be16(tcp, 0),
        },
        dst: Endpoint {
            addr: be32(packet, 16),
            port: be16(tcp, 2),
        },
        seq: Seq(be32(tcp, 4)),
        ack: Seq(be32(tcp, 8)),
        flags: Flags(tcp[13]),
        window: be16(tcp, 14),
        len: (tcp.len() - doff) as u32,
        ip_id: be16(packet, 4),
        eln: tcp[12] & ELN_BIT != 0,
        ..Segment::default()
    };
    parse_options(&tcp[TCP_HEADER_BYTES..doff], &mut seg)?;
    Ok(Headers {
        seg,
        ip_header_len: ihl,
        payload_offset: ihl + doff,
        total_len: total,
    })
}

/// Whether the IPv4 header checksum of a packet whose header is `ip_header_len` bytes holds.
pub fn ip_header_checksum_ok(packet: &[u8], ip_header_len: usize) -> bool {
    packet.len() >= ip_header_len && checksum(&packet[..ip_header_len], 0) == 0
}

/// Reads an IPv4/TCP packet ([`parse_headers`]) and checks both checksums.
pub fn parse(packet: &[u8]) -> Result<Parsed, WireError> {
    let h = parse_headers(packet)?;
    let packet = &packet[..h.total_len];
    let ihl = h.ip_header_len;
    let ip_ok = ip_header_checksum_ok(packet, ihl);
    // Summing a correct segment, checksum field included, gives zero.
    let tcp_ok = tcp_checksum(packet, ihl, packet.len() - ihl) == 0;
    Ok(Parsed {
        seg: h.seg,
        payload_offset: h.payload_offset,
        checksums_ok: ip_ok && tcp_ok,
    })
}

fn parse_options(mut opts: &[u8], seg: &mut Segment) -> Result<(), WireError> {
    while let Some(&kind) = opts.first() {
        match kind {
            OPT_EOL => break,
            OPT_NOP => {
                opts = &opts[1..];
                continue;
            }
            _ => {}
        }
        let len = usize::from(*opts.get(1).ok_or(WireError::BadOption)?);
        if len < 2 || len > opts.len() {
            return Err(WireError::BadOption);
        }
        let body = &opts[2..len];
        match (kind, body.len()) {
            (OPT_MSS, 2) => seg.mss = Some(be16(body, 0)),
            (OPT_WSCALE, 1) => seg.wscale = Some(body[0]),
            (OPT_TIMESTAMPS, 8) => {
                seg.ts = Some(Timestamps {
                    val: be32(body, 0),
                    ecr: be32(body, 4),
                })
            }
            (OPT_SACK, n) if n % 8 == 0 => {
                let mut blocks = SackBlocks::default();
                for b in body.chunks_exact(8) {
                    blocks.push(Seq(be32(b, 0)), Seq(be32(b, 4)));
                }
                seg.sack = blocks;
            }
            (SMART_OPTION_KIND, 6) if be16(body, 0) == SMART_EXID => {
                seg.smart = Some(Seq(be32(body, 2)));
            }
            (SMART_OPTION_KIND, 4) if be16(body, 0) == QUEUE_EXID => {
                seg.queue = Some(QueueReport {
                    len: body[2],
                    max: body[3],
                });
            }
            _ => {} // options the protocols here do not read (SACK permitted, ...)
        }
        opts = &opts[len..];
    }
    Ok(())
}

#[cfg(test)]
#[path = "wire_tests.rs"]
mod tests;
