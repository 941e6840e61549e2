//! The wire codec's tests: encodings parse back, checksums, options, malformed input.

use super::*;
use crate::segment::MAX_TCP_OPTION_BYTES;
use proptest::prelude::*;

fn data_segment() -> Segment {
    Segment {
        src: Endpoint {
            addr: 0x0a00_0001,
            port: 20000,
        },
        dst: Endpoint {
            addr: 0x0a00_0102,
            port: 5001,
        },
        seq: Seq(1000),
        ack: Seq(77),
        flags: Flags::ACK | Flags::PSH,
        window: 33600,
        len: 1400,
        ip_id: 9,
        ..Segment::default()
    }
}

#[test]
fn udp_datagrams_and_tunnels_have_valid_checksums() {
    let src = Endpoint {
        addr: 0x0a00_0102,
        port: 4344,
    };
    let dst = Endpoint {
        addr: 0x0a00_00fe,
        port: 4344,
    };
    let d = encode_udp(src, dst, 0, &[2, 3, 1, 2, 3, 4, 5, 6]);
    assert_eq!(d.len(), 20 + 8 + 8);
    assert_eq!(d[9], 17);
    assert_eq!(checksum(&d[..20], 0), 0, "IP header checksum");
    // the UDP checksum over the pseudo-header and the datagram sums to zero
    let mut pseudo = vec![];
    pseudo.extend_from_slice(&d[12..20]);
    pseudo.extend_from_slice(&[0, 17, 0, 16]);
    assert_eq!(checksum(&d[20..], u32::from(!checksum(&pseudo, 0))), 0);
    let inner = encode_headers(&data_segment());
    let t = encapsulate_ipip(0x0a00_0003, 0x0a00_00fe, &inner, 1440);
    assert_eq!(t[9], 4, "IP-in-IP");
    assert_eq!(u16::from_be_bytes([t[2], t[3]]), 1460);
    assert_eq!(checksum(&t[..20], 0), 0);
    assert_eq!(&t[20..], &inner[..]);
}

#[test]
fn data_segment_has_real_lengths_and_checksums() {
    let seg = data_segment();
    let bytes = encode(&seg, None);
    assert_eq!(bytes.len(), 1440);
    assert_eq!(be16(&bytes, 2), 1440);
    assert_eq!(checksum(&bytes[..20], 0), 0, "IPv4 header checksum");
    let p = parse(&bytes).unwrap();
    assert!(p.checksums_ok);
    assert_eq!(p.seg, seg);
    assert_eq!(p.payload_offset, 40);
}

/// A known packet, its TCP checksum worked out by hand from RFC 1071's definition.
#[test]
fn checksum_of_a_small_packet_matches_a_hand_computation() {
    let seg = Segment {
        src: Endpoint {
            addr: 0x0102_0304,
            port: 1,
        },
        dst: Endpoint {
            addr: 0x0506_0708,
            port: 2,
        },
        seq: Seq(0),
        ack: Seq(0),
        flags: Flags::SYN,
        window: 0,
        len: 0,
        ..Segment::default()
    };
    let b = encode(&seg, None);
    // pseudo-header: 0x0102+0x0304+0x0506+0x0708 = 0x1014, + protocol 6 + length 20 = 0x102E
    // header: ports 1+2, data offset and flags 0x5002 (5 words, SYN) -> 0x5005
    // sum 0x102E + 0x5005 = 0x6033 -> checksum !0x6033 = 0x9FCC
    assert_eq!(be16(&b, 36), 0x9fcc);
}

#[test]
fn options_layout_sack_smart_mss_and_eln() {
    let mut seg = data_segment();
    seg.len = 0;
    seg.eln = true;
    seg.smart = Some(Seq(4242));
    seg.sack.push(Seq(10), Seq(20));
    seg.sack.push(Seq(30), Seq(40));
    let b = encode(&seg, None);
    let tcp = &b[20..];
    assert_eq!(tcp[12] >> 4, 5 + 5 + 2, "20 bytes of SACK, 8 of SMART");
    assert_eq!(tcp[12] & ELN_BIT, ELN_BIT);
    assert_eq!(&tcp[20..24], &[1, 1, 5, 18]);
    assert_eq!(be32(tcp, 24), 10);
    assert_eq!(&tcp[40..44], &[253, 8, 0x53, 0x4d]);
    assert_eq!(be32(tcp, 44), 4242);
    assert_eq!(parse(&b).unwrap().seg, seg);

    let mut syn = data_segment();
    syn.flags = Flags::SYN;
    syn.len = 0;
    syn.mss = Some(1400);
    let b = encode(&syn, None);
    assert_eq!(&b[40..44], &[2, 4, 0x05, 0x78]);
}

/// RFC 7323's options in Linux's layout (`tcp_options_write`): a SYN with MSS, timestamps and
/// window scale is 20 bytes of options, and a data segment's timestamps 12, ahead of SACK blocks.
#[test]
fn options_layout_timestamps_and_window_scale_as_linux() {
    let mut syn = data_segment();
    syn.flags = Flags::SYN;
    syn.len = 0;
    syn.mss = Some(1460);
    syn.wscale = Some(7);
    syn.ts = Some(Timestamps {
        val: 0x0102_0304,
        ecr: 0,
    });
    assert_eq!(syn.option_bytes(), 20);
    let b = encode(&syn, None);
    let tcp = &b[20..];
    assert_eq!(tcp[12] >> 4, 5 + 5, "20 bytes of options");
    assert_eq!(&tcp[20..24], &[2, 4, 0x05, 0xb4]);
    assert_eq!(&tcp[24..28], &[1, 1, 8, 10]);
    assert_eq!(be32(tcp, 28), 0x0102_0304);
    assert_eq!(be32(tcp, 32), 0);
    assert_eq!(&tcp[36..40], &[1, 3, 3, 7]);
    assert_eq!(parse(&b).unwrap().seg, syn);

    let mut ack = data_segment();
    ack.len = 0;
    ack.ts = Some(Timestamps { val: 9, ecr: 8 });
    ack.sack.push(Seq(10), Seq(20));
    ack.sack.push(Seq(30), Seq(40));
    ack.sack.push(Seq(50), Seq(60));
    // 12 bytes of timestamps leave room for three blocks (4 + 24 bytes), as in Linux
    assert_eq!(ack.sack_blocks_carried(), 3);
    assert_eq!(ack.option_bytes(), 40);
    let b = encode(&ack, None);
    assert_eq!(&b[40..44], &[1, 1, 8, 10]);
    assert_eq!(&b[52..56], &[1, 1, 5, 26]);
    assert_eq!(parse(&b).unwrap().seg, ack);
}

/// A base station that rebuilds a kernel's packet (the live ELN marker sets its bit on an ACK)
/// keeps the packet's timestamps: the kernel's peer would otherwise see a segment without them.
#[test]
fn rebuilding_a_packet_keeps_its_timestamps() {
    let mut ack = data_segment();
    ack.len = 0;
    ack.ts = Some(Timestamps {
        val: 0xdead_beef,
        ecr: 7,
    });
    let bytes = encode(&ack, None);
    let marked = Segment { eln: true, ..ack };
    let rebuilt = rebuild(&marked, &bytes, Some(&ack));
    let p = parse(&rebuilt).unwrap();
    assert!(p.checksums_ok);
    assert_eq!(p.seg.ts, ack.ts);
    assert_eq!(rebuilt.len(), bytes.len());
}

#[test]
fn headers_alone_carry_the_checksums_of_the_zero_payload() {
    let seg = data_segment();
    let h = encode_headers(&seg);
    assert_eq!(h.len(), 40);
    let mut whole = h.clone();
    whole.resize(1440, 0);
    assert_eq!(whole, encode(&seg, Some(&[])));
    assert!(parse(&whole).unwrap().checksums_ok);
}

#[test]
fn broken_checksum_is_detected() {
    let mut b = encode(&data_segment(), None);
    break_tcp_checksum(&mut b);
    let p = parse(&b).unwrap();
    assert!(!p.checksums_ok);
    assert_eq!(p.seg, data_segment(), "the header still reads");
}

#[test]
fn rejects_what_is_not_a_whole_tcp_ipv4_packet() {
    let b = encode(&data_segment(), None);
    assert_eq!(parse(&[]), Err(WireError::Truncated));
    assert_eq!(parse(&b[..30]), Err(WireError::Truncated));
    let mut v6 = b.clone();
    v6[0] = 0x60;
    assert_eq!(parse(&v6), Err(WireError::NotIpv4));
    let mut udp = b.clone();
    udp[9] = 17;
    assert_eq!(parse(&udp), Err(WireError::NotTcp(17)));
    let mut frag = b.clone();
    frag[6] = 0x20; // more fragments
    assert_eq!(parse(&frag), Err(WireError::Fragment));
    let mut opt = encode(
        &Segment {
            mss: Some(1400),
            ..data_segment()
        },
        None,
    );
    opt[41] = 40; // MSS option longer than the header
    assert_eq!(parse(&opt), Err(WireError::BadOption));
}

fn arb_segment() -> impl Strategy<Value = Segment> {
    (
        any::<(u32, u16, u32, u16)>(),
        any::<(u32, u32, u8, u16, u16)>(),
        0u32..3000,
        proptest::option::of(any::<u16>()),
        any::<bool>(),
        proptest::option::of(any::<u32>()),
        proptest::collection::vec((any::<u32>(), 1u32..100_000), 0..=3),
        proptest::option::of(any::<(u8, u8)>()),
        proptest::option::of(0u8..=14),
        proptest::option::of(any::<(u32, u32)>()),
    )
        .prop_map(
            |(
                (sa, sp, da, dp),
                (seq, ack, fl, win, id),
                len,
                mss,
                eln,
                smart,
                sacks,
                queue,
                wscale,
                ts,
            )| {
                let mut sack = SackBlocks::default();
                for (a, n) in sacks {
                    sack.push(Seq(a), Seq(a.wrapping_add(n)));
                }
                Segment {
                    src: Endpoint { addr: sa, port: sp },
                    dst: Endpoint { addr: da, port: dp },
                    seq: Seq(seq),
                    ack: Seq(ack),
                    flags: Flags(fl),
                    window: win,
                    len,
                    ip_id: id,
                    mss,
                    eln,
                    smart: smart.map(Seq),
                    sack,
                    queue: queue.map(|(len, max)| QueueReport { len, max }),
                    wscale,
                    ts: ts.map(|(val, ecr)| Timestamps { val, ecr }),
                }
            },
        )
}

proptest! {
    #[test]
    fn encode_then_parse_gives_the_segment_back(seg in arb_segment()) {
        // every combination of options fits the 40 bytes a TCP header holds (RFC 9293 3.1)
        prop_assert!(seg.option_bytes() <= MAX_TCP_OPTION_BYTES);
        let b = encode(&seg, None);
        prop_assert_eq!(b.len() as u32, seg.ip_len());
        let p = parse(&b).unwrap();
        prop_assert!(p.checksums_ok);
        // SACK blocks beyond the 40 bytes of options are left out, the first ones kept
        let mut carried = SackBlocks::default();
        for (a, z) in seg.sack.iter().take(seg.sack_blocks_carried()) {
            carried.push(a, z);
        }
        prop_assert_eq!(p.seg, Segment { sack: carried, ..seg });
    }

    #[test]
    fn any_payload_keeps_the_checksum_right(seg in arb_segment(), fill in any::<u8>()) {
        let payload = vec![fill; seg.len as usize];
        let b = encode(&seg, Some(&payload));
        prop_assert!(parse(&b).unwrap().checksums_ok);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = parse(&bytes);
    }

    #[test]
    fn mutated_packets_never_panic(seg in arb_segment(), at in any::<usize>(), v in any::<u8>()) {
        let mut b = encode(&seg, None);
        let i = at % b.len();
        b[i] = v;
        let _ = parse(&b);
    }
}
