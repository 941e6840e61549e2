//! The IPv4/TCP parser and its option decoders (`proto/src/wire.rs`), and the live mode's
//! classification of what a TUN device hands over. Arbitrary bytes; asserts no panic and:
//! - `parse` and `parse_headers` agree (the same header, the same error);
//! - a packet that parses has consistent lengths, and re-encoding its header with its payload
//!   gives a packet that parses, with correct checksums, to the same header (less the SACK blocks
//!   that do not fit beside the other options) and the same payload;
//! - breaking the TCP checksum of a packet with correct checksums is detected.
//!
//! An input starting with a zero byte (never IPv4: version 0) is instead read as a segment's
//! fields and encoded: the bytes must parse back to that segment.
#![no_main]

use libfuzzer_sys::arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use snooplab_fuzz::{assert_valid_bytes, structured_segment, LivePacket};
use snooplab_proto::{wire, SackBlocks, Segment};

/// `seg` with only the SACK blocks its encoding carries.
fn as_carried(seg: &Segment) -> Segment {
    let mut sack = SackBlocks::default();
    for (a, b) in seg.sack.iter().take(seg.sack_blocks_carried()) {
        sack.push(a, b);
    }
    Segment { sack, ..*seg }
}

fuzz_target!(|data: &[u8]| {
    if let [0, rest @ ..] = data {
        let mut u = Unstructured::new(rest);
        let seg = as_carried(&structured_segment(&mut u));
        assert_valid_bytes(&wire::encode(&seg, None), &seg, "encode");
        let h = wire::encode_headers(&seg);
        let mut whole = h.clone();
        whole.resize(seg.ip_len() as usize, 0);
        assert_eq!(whole, wire::encode(&seg, None), "encode_headers differs");
        return;
    }
    let headers = wire::parse_headers(data);
    let parsed = wire::parse(data);
    let _ = LivePacket::classify(data.to_vec());
    let (h, p) = match (headers, parsed) {
        (Ok(h), Ok(p)) => (h, p),
        (Err(a), Err(b)) => {
            assert_eq!(a, b, "parse and parse_headers fail differently");
            return;
        }
        (a, b) => panic!("parse_headers {a:?} but parse {b:?}"),
    };
    assert_eq!(h.seg, p.seg);
    assert_eq!(h.payload_offset, p.payload_offset);
    assert!(h.ip_header_len <= h.payload_offset);
    assert!(h.payload_offset <= h.total_len && h.total_len <= data.len());
    assert_eq!(h.seg.len as usize, h.total_len - h.payload_offset);
    let payload = &data[h.payload_offset..h.total_len];
    let seg = as_carried(&h.seg);
    if seg.ip_len() <= u32::from(u16::MAX) {
        let b = wire::encode(&seg, Some(payload));
        assert_valid_bytes(&b, &seg, "re-encode");
        let q = wire::parse(&b).expect("checked above");
        assert_eq!(&b[q.payload_offset..], payload, "the payload changed");
    }
    if p.checksums_ok {
        let mut broken = data.to_vec();
        wire::break_tcp_checksum(&mut broken);
        let b = wire::parse(&broken).expect("only the checksum changed");
        assert!(!b.checksums_ok, "a broken TCP checksum went unnoticed");
    }
});
