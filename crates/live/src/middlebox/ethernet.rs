//! Ethernet framing at the middlebox (IEEE 802.3 / Ethernet II, RFC 894 for IPv4 over it): which
//! frames carry IPv4, and the link-layer header a packet leaves with. A packet the agent forwards
//! leaves with the header of the frame it came in; one the agent makes itself (snoop's local
//! retransmission, an ACK it makes up) takes the header last seen on a frame between the same two
//! IPv4 addresses in the same direction, or, when only the other direction was seen, that
//! header with its two addresses swapped: the two hosts' own MAC addresses, as a transparent
//! bridge must leave them.

use std::collections::HashMap;

/// Destination and source MAC addresses and the EtherType.
pub const HEADER: usize = 14;
/// EtherType of IPv4 (RFC 894).
pub const ETHERTYPE_IPV4: u16 = 0x0800;
/// The most (source, destination) address pairs whose header is remembered: a bound on the
/// table's memory (about 40 bytes each); at the bound it starts again empty.
pub const MAX_PAIRS: usize = 65536;

pub type Header = [u8; HEADER];

/// The IPv4 packet an untagged Ethernet II frame carries, cut at the IPv4 total length (a short
/// frame is padded to 60 bytes on the wire, and the padding is not the packet's). `None` for any
/// other frame (ARP, IPv6, a VLAN tag, a frame too short for an IPv4 header).
pub fn ipv4_of(frame: &[u8]) -> Option<&[u8]> {
    if frame.len() < HEADER + 20 {
        return None;
    }
    if u16::from_be_bytes([frame[12], frame[13]]) != ETHERTYPE_IPV4 {
        return None;
    }
    let ip = &frame[HEADER..];
    let total = usize::from(u16::from_be_bytes([ip[2], ip[3]]));
    // a total length past the frame is the packet's fault: classify rejects it as it stands
    Some(&ip[..total.clamp(20, ip.len())])
}

/// The TPID of an IEEE 802.1Q tag, and the one a packet socket means when it names none.
pub const ETHERTYPE_VLAN: u16 = 0x8100;
/// An IEEE 802.1Q tag's length: its TPID and TCI.
pub const VLAN_TAG: usize = 4;

/// `frame` written into `out` with the VLAN tag (`tpid`, `tci`) back after its two MAC addresses
/// (IEEE 802.1Q): an interface that takes tags off in hardware (VLAN offload) hands a packet socket
/// the frame without its tag and the tag beside it (packet(7): `tp_vlan_tci`, libpcap puts it back
/// the same way), and a bridge must pass the frame on as it came. The length written; `None` if
/// `out` is too small or the frame shorter than its MAC addresses.
pub fn with_vlan_tag(frame: &[u8], (tpid, tci): (u16, u16), out: &mut [u8]) -> Option<usize> {
    let len = frame.len() + VLAN_TAG;
    if frame.len() < 12 || out.len() < len {
        return None;
    }
    out[..12].copy_from_slice(&frame[..12]);
    out[12..14].copy_from_slice(&tpid.to_be_bytes());
    out[14..16].copy_from_slice(&tci.to_be_bytes());
    out[16..len].copy_from_slice(&frame[12..]);
    Some(len)
}

/// The (source, destination) IPv4 addresses of a packet at least 20 bytes long.
pub fn addresses(ip: &[u8]) -> Option<(u32, u32)> {
    let src = u32::from_be_bytes(ip.get(12..16)?.try_into().ok()?);
    let dst = u32::from_be_bytes(ip.get(16..20)?.try_into().ok()?);
    Some((src, dst))
}

/// The link-layer headers seen, by (source, destination) IPv4 address.
#[derive(Debug, Default)]
pub struct Headers {
    by_pair: HashMap<(u32, u32), Header>,
}

impl Headers {
    /// Remembers the header of `frame`, which carries `ip`.
    pub fn learn(&mut self, frame: &[u8], ip: &[u8]) {
        let (Some(pair), Some(h)) = (addresses(ip), frame.get(..HEADER)) else {
            return;
        };
        let mut header = [0; HEADER];
        header.copy_from_slice(h);
        if self.by_pair.get(&pair) == Some(&header) {
            return;
        }
        if self.by_pair.len() >= MAX_PAIRS {
            self.by_pair.clear();
        }
        self.by_pair.insert(pair, header);
    }

    /// The header for a packet from `src` to `dst`: the one seen that way, or the other way's
    /// with its MAC addresses swapped; `None` if neither was seen.
    pub fn for_pair(&self, src: u32, dst: u32) -> Option<Header> {
        if let Some(h) = self.by_pair.get(&(src, dst)) {
            return Some(*h);
        }
        let back = self.by_pair.get(&(dst, src))?;
        let mut h = *back;
        h[..6].copy_from_slice(&back[6..12]);
        h[6..12].copy_from_slice(&back[..6]);
        Some(h)
    }

    pub fn len(&self) -> usize {
        self.by_pair.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_pair.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(dst: u8, src: u8, ethertype: u16, ip: &[u8]) -> Vec<u8> {
        let mut f = vec![dst; 6];
        f.extend([src; 6]);
        f.extend(ethertype.to_be_bytes());
        f.extend(ip);
        f
    }

    fn ip(src: u32, dst: u32, total: u16) -> Vec<u8> {
        let mut p = vec![0u8; 20];
        p[0] = 0x45;
        p[2..4].copy_from_slice(&total.to_be_bytes());
        p[12..16].copy_from_slice(&src.to_be_bytes());
        p[16..20].copy_from_slice(&dst.to_be_bytes());
        p
    }

    #[test]
    fn only_untagged_ipv4_is_ipv4_and_padding_is_cut() {
        let mut f = frame(1, 2, ETHERTYPE_IPV4, &ip(1, 2, 20));
        f.extend([0; 26]); // padded to 60 bytes
        assert_eq!(ipv4_of(&f).map(<[u8]>::len), Some(20));
        assert_eq!(ipv4_of(&frame(1, 2, 0x0806, &[0; 28])), None); // ARP
        assert_eq!(ipv4_of(&frame(1, 2, 0x8100, &ip(1, 2, 20))), None); // VLAN tag
        assert_eq!(ipv4_of(&frame(1, 2, 0x86dd, &[0; 40])), None); // IPv6
    }

    #[test]
    fn a_tag_taken_off_goes_back_after_the_mac_addresses() {
        let untagged = frame(1, 2, ETHERTYPE_IPV4, &[0x45, 9]);
        let mut out = [0u8; 64];
        let n = with_vlan_tag(&untagged, (ETHERTYPE_VLAN, 0x2007), &mut out).unwrap();
        let tagged = [
            &[1u8; 6][..],
            &[2; 6],
            &[0x81, 0x00, 0x20, 0x07],
            &[0x08, 0x00, 0x45, 9],
        ]
        .concat();
        assert_eq!(&out[..n], &tagged[..]);
        assert_eq!(
            ipv4_of(&out[..n]),
            None,
            "a tagged frame is not read as IPv4"
        );
        assert_eq!(
            with_vlan_tag(&untagged, (ETHERTYPE_VLAN, 1), &mut out[..17]),
            None
        );
    }

    #[test]
    fn a_header_is_the_pairs_own_or_the_reverse_swapped() {
        let mut h = Headers::default();
        let p = ip(10, 20, 20);
        h.learn(&frame(0xbb, 0xaa, ETHERTYPE_IPV4, &p), &p);
        let same = h.for_pair(10, 20).unwrap();
        assert_eq!(&same[..12], &[[0xbb; 6], [0xaa; 6]].concat()[..]);
        let back = h.for_pair(20, 10).unwrap();
        assert_eq!(&back[..12], &[[0xaa; 6], [0xbb; 6]].concat()[..]);
        assert_eq!(h.for_pair(10, 30), None);
    }
}
