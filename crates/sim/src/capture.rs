//! Packet captures of the simulated links, as classic pcap files that tcpdump and Wireshark read.
//!
//! Link type raw IPv4 (`LINKTYPE_IPV4`, 228), nanosecond timestamps in simulated time. Every packet is
//! a real IPv4/TCP datagram built by [`snooplab_proto::wire`] with correct checksums and its real
//! length; payload bytes are zeros. A frame that bit errors hit is written with a broken TCP checksum,
//! as the paper's receivers saw it (paper 000 section IV-A: corrupted packets are dropped by the
//! TCP checksum).

use std::io::{self, Write};

use snooplab_proto::wire;
use snooplab_proto::Time;

use crate::packet::SimPacket;

/// Magic number of a classic pcap file with nanosecond timestamps.
pub(crate) const PCAP_MAGIC_NS: u32 = 0xa1b2_3c4d;
/// `LINKTYPE_IPV4`: each record is one IPv4 datagram, no link header.
pub const LINKTYPE_IPV4: u32 = 228;
/// `LINKTYPE_ETHERNET`: each record is one Ethernet frame, its link header first (the live
/// mode's middlebox, which captures frames as its interfaces carried them).
pub const LINKTYPE_ETHERNET: u32 = 1;
/// Snap length written in the file header: packets are never cut.
pub(crate) const SNAPLEN: u32 = 65535;

/// Writes one classic pcap stream.
pub struct PcapWriter<W: Write> {
    out: W,
    packets: u64,
}

impl<W: Write> PcapWriter<W> {
    /// Writes the file header.
    pub fn new(out: W) -> io::Result<PcapWriter<W>> {
        PcapWriter::with_link_type(out, LINKTYPE_IPV4)
    }

    /// Writes the file header of a capture whose records are of `link_type`.
    pub fn with_link_type(mut out: W, link_type: u32) -> io::Result<PcapWriter<W>> {
        let mut h = Vec::with_capacity(24);
        h.extend_from_slice(&PCAP_MAGIC_NS.to_le_bytes());
        h.extend_from_slice(&2u16.to_le_bytes()); // version 2.4
        h.extend_from_slice(&4u16.to_le_bytes());
        h.extend_from_slice(&0i32.to_le_bytes()); // GMT offset
        h.extend_from_slice(&0u32.to_le_bytes()); // timestamp accuracy
        h.extend_from_slice(&SNAPLEN.to_le_bytes());
        h.extend_from_slice(&link_type.to_le_bytes());
        out.write_all(&h)?;
        Ok(PcapWriter { out, packets: 0 })
    }

    /// Appends one packet seen at `at`.
    pub fn write(&mut self, at: Time, packet: &[u8]) -> io::Result<()> {
        self.write_padded(at, packet, packet.len())
    }

    /// Appends a packet of `len` bytes seen at `at`: `head`, then zeros.
    pub(crate) fn write_padded(&mut self, at: Time, head: &[u8], len: usize) -> io::Result<()> {
        const ZEROS: [u8; 4096] = [0; 4096];
        let caplen = len.min(SNAPLEN as usize);
        let mut rec = [0u8; 16];
        rec[0..4].copy_from_slice(&((at / 1_000_000_000) as u32).to_le_bytes());
        rec[4..8].copy_from_slice(&((at % 1_000_000_000) as u32).to_le_bytes());
        rec[8..12].copy_from_slice(&(caplen as u32).to_le_bytes());
        rec[12..16].copy_from_slice(&(len as u32).to_le_bytes());
        self.out.write_all(&rec)?;
        let head = &head[..head.len().min(caplen)];
        self.out.write_all(head)?;
        let mut zeros = caplen - head.len();
        while zeros > 0 {
            let n = zeros.min(ZEROS.len());
            self.out.write_all(&ZEROS[..n])?;
            zeros -= n;
        }
        self.packets += 1;
        Ok(())
    }

    pub fn packets(&self) -> u64 {
        self.packets
    }

    /// Flushes and hands back the writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

/// A sink for a capture: a file, or memory in tests.
pub type Sink = Box<dyn Write + Send>;

/// The packets of a capture [`PcapWriter`] wrote (for tests and tools): each record's bytes, in
/// order; a record cut short by the end of the file ends the list.
pub fn read_packets(file: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut at = 24;
    while let Some(h) = file.get(at..at + 16) {
        let len = u32::from_le_bytes([h[8], h[9], h[10], h[11]]) as usize;
        let Some(p) = file.get(at + 16..at + 16 + len) else {
            break;
        };
        out.push(p.to_vec());
        at += 16 + len;
    }
    out
}

/// The captures of one run, one per wired link (both directions, as seen at the receiving end) and
/// one per cell (every frame in both directions, corrupted ones included), in the network's order:
/// links first, then cells.
pub struct Capture {
    writers: Vec<(String, PcapWriter<Sink>)>,
    error: Option<io::Error>,
}

impl Capture {
    /// One file per name, `<name>.pcap`, in `dir` (made if missing): `run --pcap` and the live
    /// mode's captures.
    pub fn create_files(dir: &std::path::Path, names: &[String]) -> Result<Capture, String> {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let mut sinks = Vec::with_capacity(names.len());
        for name in names {
            let p = dir.join(format!("{name}.pcap"));
            let f = std::fs::File::create(&p)
                .map_err(|e| format!("cannot create {}: {e}", p.display()))?;
            let sink: Sink = Box::new(std::io::BufWriter::with_capacity(1 << 16, f));
            sinks.push((name.clone(), sink));
        }
        Capture::new(sinks).map_err(|e| format!("cannot write a capture in {}: {e}", dir.display()))
    }

    /// One named capture per link, then per cell.
    pub fn new(sinks: Vec<(String, Sink)>) -> io::Result<Capture> {
        let mut writers = Vec::with_capacity(sinks.len());
        for (name, sink) in sinks {
            writers.push((name, PcapWriter::new(sink)?));
        }
        Ok(Capture {
            writers,
            error: None,
        })
    }

    /// Records `pkt` arriving at the end of link or cell `index` at `at`. A write error is kept and
    /// reported by [`Capture::finish`]; the run goes on.
    pub fn record(&mut self, at: Time, index: usize, pkt: &SimPacket) {
        if self.error.is_some() {
            return;
        }
        let Some((_, w)) = self.writers.get_mut(index) else {
            return;
        };
        // headers with checksums for the zero payload, which is written as zeros; a handoff
        // message is a whole UDP datagram
        if pkt.raw().is_some() {
            // a real packet: its own bytes, the checksum broken if the channel corrupted it;
            // between the home agent and a base station inside the home agent's IP-in-IP
            // header (paper 002 section 4), as `wire_bytes` is what the host gets, decapsulated
            let bytes = pkt.wire_bytes();
            let written = match pkt.tunnel() {
                Some(t) => w.write(
                    at,
                    &wire::encapsulate_ipip(t.src, t.dst, &bytes, bytes.len()),
                ),
                None => w.write(at, &bytes),
            };
            if let Err(e) = written {
                self.error = Some(e);
            }
            return;
        }
        let mut bytes = match pkt.mobility() {
            Some(m) => wire::encode_udp(pkt.seg.src, pkt.seg.dst, 0, &m.encode()),
            None => wire::encode_headers(&pkt.seg),
        };
        if pkt.corrupted {
            if pkt.is_tcp() {
                wire::break_tcp_checksum(&mut bytes);
            } else if let Some(sum) = bytes.get_mut(26..28) {
                // the UDP checksum, as bit errors would leave it
                sum[0] ^= 0x5a;
                sum[1] ^= 0xa5;
            }
        }
        let inner_len = pkt.ip_len() as usize - usize::from(pkt.tunnel().is_some()) * 20;
        if let Some(t) = pkt.tunnel() {
            // the home agent's tunnel: IP-in-IP around the packet
            bytes = wire::encapsulate_ipip(t.src, t.dst, &bytes, inner_len);
        }
        let len = pkt.ip_len() as usize;
        if let Err(e) = w.write_padded(at, &bytes, len) {
            self.error = Some(e);
        }
    }

    /// Flushes every file; each capture's name and packet count.
    pub fn finish(self) -> io::Result<Vec<(String, u64)>> {
        if let Some(e) = self.error {
            return Err(e);
        }
        let mut counts = Vec::with_capacity(self.writers.len());
        for (name, w) in self.writers {
            counts.push((name, w.packets()));
            w.finish()?;
        }
        Ok(counts)
    }
}
