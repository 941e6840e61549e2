//! The packet captures of `snooplab run --pcap`, read back with code independent of the writer: a
//! pcap record reader written here and etherparse for the IPv4 and TCP headers. Where tshark is
//! installed, it must read the captures without errors and count the simulator's retransmissions.

use std::path::Path;
use std::process::Command;

use etherparse::{Ipv4HeaderSlice, TcpHeaderSlice, TcpOptionElement, TcpOptionReadError};

mod common;

use common::{scratch, Scratch};

fn snooplab(args: &[&str]) -> serde_json::Value {
    let o = common::snooplab(args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).expect("one JSON object")
}

/// Captures one run; returns its JSON result and the directory.
fn capture(protocol: &str, extra: &[&str]) -> (serde_json::Value, Scratch) {
    let dir = scratch(protocol);
    let d = dir.to_string_lossy().into_owned();
    let mut args = vec![
        "run",
        "--protocol",
        protocol,
        "--transfer",
        "1M",
        "--error-every",
        "16k",
        "--seed",
        "2",
        "--json",
        "--pcap",
        &d,
    ];
    args.extend_from_slice(extra);
    (snooplab(&args), dir)
}

struct Record {
    ts_ns: u64,
    orig_len: u32,
    data: Vec<u8>,
}

/// Classic pcap, little-endian, nanosecond magic, LINKTYPE_IPV4.
fn read_pcap(path: &Path) -> Vec<Record> {
    let b = std::fs::read(path).expect("capture file");
    assert!(b.len() >= 24, "{}: no file header", path.display());
    let u32_at = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    assert_eq!(u32_at(0), 0xa1b2_3c4d, "nanosecond pcap magic");
    assert_eq!(u32_at(20), 228, "link type raw IPv4");
    let snaplen = u32_at(16);
    let mut out = vec![];
    let mut i = 24;
    while i < b.len() {
        assert!(i + 16 <= b.len(), "truncated record header");
        let (sec, nsec, incl, orig) = (u32_at(i), u32_at(i + 4), u32_at(i + 8), u32_at(i + 12));
        assert!(nsec < 1_000_000_000);
        assert!(incl <= snaplen && incl <= orig);
        let start = i + 16;
        let end = start + incl as usize;
        assert!(end <= b.len(), "truncated record");
        out.push(Record {
            ts_ns: u64::from(sec) * 1_000_000_000 + u64::from(nsec),
            orig_len: orig,
            data: b[start..end].to_vec(),
        });
        i = end;
    }
    out
}

#[derive(Default, Debug)]
struct Seen {
    packets: u64,
    bad_checksum: u64,
    data_from_fh: u64,
    sack_blocks: u64,
    smart_options: u64,
    queue_options: u64,
    eln_marks: u64,
}

/// Checks every record's headers and counts what the test asserts on.
fn inspect(path: &Path) -> Seen {
    let mut s = Seen::default();
    let mut last_ts = 0;
    for r in read_pcap(path) {
        assert!(r.ts_ns >= last_ts, "timestamps in order");
        last_ts = r.ts_ns;
        let ip = Ipv4HeaderSlice::from_slice(&r.data).expect("an IPv4 header");
        assert_eq!(usize::from(ip.total_len()), r.data.len(), "real length");
        assert_eq!(r.orig_len as usize, r.data.len());
        assert_eq!(
            ip.header_checksum(),
            ip.to_header().calc_header_checksum(),
            "IPv4 header checksum"
        );
        assert_eq!(ip.protocol(), etherparse::IpNumber::TCP);
        let tcp_bytes = &r.data[usize::from(ip.ihl()) * 4..];
        let tcp = TcpHeaderSlice::from_slice(tcp_bytes).expect("a TCP header");
        let payload = &tcp_bytes[usize::from(tcp.data_offset()) * 4..];
        let good = tcp.calc_checksum_ipv4(&ip, payload).expect("checksum") == tcp.checksum();
        s.packets += 1;
        s.bad_checksum += u64::from(!good);
        if ip.source() == [10, 0, 0, 1] && !payload.is_empty() {
            s.data_from_fh += 1;
        }
        // ELN: the reserved bit 0x08 of byte 12
        if tcp_bytes[12] & 0x08 != 0 {
            s.eln_marks += 1;
        }
        for opt in tcp.options_iterator() {
            match opt {
                Ok(TcpOptionElement::SelectiveAcknowledgement(first, rest)) => {
                    assert!(first.0 != first.1);
                    s.sack_blocks += 1 + rest.iter().flatten().count() as u64;
                }
                Ok(TcpOptionElement::MaximumSegmentSize(m)) => assert_eq!(m, 1400),
                Ok(_) => {}
                Err(TcpOptionReadError::UnknownId(253)) => {
                    // RFC 6994 layout: kind, length, ExID, then SMART's 32-bit sequence number
                    // (length 8, "SM") or the mobile host's queue length and maximum (6, "QL")
                    let o = tcp.options();
                    let at = o.iter().position(|&k| k == 253).expect("kind 253");
                    match (o[at + 1], &o[at + 2..at + 4]) {
                        (8, [0x53, 0x4d]) => s.smart_options += 1,
                        (6, [0x51, 0x4c]) => {
                            assert!(o[at + 4] <= o[at + 5], "length within the maximum");
                            s.queue_options += 1;
                        }
                        other => panic!("{}: unknown experiment {other:?}", path.display()),
                    }
                }
                Err(e) => panic!("{}: bad TCP option: {e:?}", path.display()),
            }
        }
    }
    s
}

fn field(v: &serde_json::Value, k: &str) -> u64 {
    v[k].as_u64()
        .unwrap_or_else(|| panic!("{k} in the run JSON"))
}

#[test]
fn captures_have_real_headers_checksums_and_the_runs_counts() {
    let (r, dir) = capture("e2e", &[]);
    let wired = inspect(&dir.join("wired.pcap"));
    let wireless = inspect(&dir.join("wireless.pcap"));
    assert_eq!(wired.bad_checksum, 0, "the wired link corrupts nothing");
    assert_eq!(
        wireless.bad_checksum,
        field(&r, "frames_corrupted_down") + field(&r, "frames_corrupted_up"),
        "every corrupted frame is in the capture with a wrong checksum"
    );
    assert!(wireless.bad_checksum > 0);
    // every data segment the fixed host sent crosses the (lossless) wired link once
    let sent = 1_048_576_u64.div_ceil(1400) + field(&r, "sender_retransmitted_segments");
    assert_eq!(wired.data_from_fh, sent);
    assert_eq!(
        wireless.data_from_fh,
        field(&r, "wireless_data_frames"),
        "data frames on the air"
    );
    assert_eq!(wired.sack_blocks + wired.smart_options + wired.eln_marks, 0);
}

#[test]
fn sack_smart_and_eln_are_on_the_wire() {
    let (_, dir) = capture("e2e-ietf-sack", &[]);
    assert!(inspect(&dir.join("wired.pcap")).sack_blocks > 0);

    let (_, dir) = capture("e2e-smart", &[]);
    let s = inspect(&dir.join("wireless.pcap"));
    assert!(s.smart_options > 0, "{s:?}");

    let (r, dir) = capture("e2e-eln", &[]);
    let s = inspect(&dir.join("wired.pcap"));
    assert!(s.eln_marks > 0, "{s:?}");
    assert!(field(&r, "fast_retransmits") + field(&r, "timeouts") > 0);

    // paper 004: the mobile host piggybacks its queue on every packet; the base station marks
    // the ACKs it forwards to it
    let (r, dir) = capture("bs-eln", &["--direction", "up"]);
    let air = inspect(&dir.join("wireless.pcap"));
    let wired = inspect(&dir.join("wired.pcap"));
    assert!(air.queue_options > 0 && air.eln_marks > 0, "{air:?}");
    assert_eq!(
        wired.queue_options,
        air.queue_options - field(&r, "frames_corrupted_up")
    );
    assert_eq!(
        wired.eln_marks, 0,
        "the fixed host's ACKs leave it unmarked"
    );
    assert_eq!(field(&r, "eln_marked_acks"), air.eln_marks);
}

/// tshark must parse the captures with no malformed packets and see as many retransmissions from the
/// fixed host as the simulator counted.
#[test]
fn tshark_reads_the_captures_and_counts_the_retransmissions() {
    let tshark = Command::new("tshark").arg("--version").output();
    if !tshark.is_ok_and(|o| o.status.success()) {
        println!("SKIPPED: tshark is not installed (apt-get install tshark)");
        return;
    }
    let (r, dir) = capture("e2e", &[]);
    let wired = dir.join("wired.pcap");
    let count = |filter: &str| -> u64 {
        let o = Command::new("tshark")
            .args(["-n", "-r"])
            .arg(&wired)
            .args(["-Y", filter, "-T", "fields", "-e", "frame.number"])
            .output()
            .expect("tshark runs");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).lines().count() as u64
    };
    assert_eq!(count("_ws.malformed || _ws.expert.severity >= error"), 0);
    assert_eq!(
        count("ip.src == 10.0.0.1 && tcp.analysis.retransmission"),
        field(&r, "sender_retransmitted_segments")
    );
    assert_eq!(
        count("ip.src == 10.0.0.1 && tcp.analysis.fast_retransmission"),
        field(&r, "fast_retransmits")
    );
}

/// Paper 002's handoff on the wire: the home agent's packets to a base station are IP-in-IP around
/// the fixed host's TCP, and the cells carry the beacons and the handoff messages as UDP datagrams
/// to port 4344 (type byte 1: beacon, 2: forward, 3: buffer, 5: confirm). tshark, where installed,
/// reads them without a malformed packet.
#[test]
fn handoff_tunnels_beacons_and_requests_are_in_the_captures() {
    let dir = scratch("handoff");
    let d = dir.to_string_lossy().into_owned();
    let scenario = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/paper002-handoff.toml"
    );
    let r = snooplab(&[
        "run",
        "--scenario",
        scenario,
        "--transfer",
        "2M",
        "--json",
        "--pcap",
        &d,
    ]);
    let h = &r["handoffs"][0];
    assert!(h["handoffs"].as_u64().unwrap_or(0) >= 1, "{h}");
    // the link carries the tunnel one way, the mobile host's ACKs (plain TCP) and the base
    // station's joins (UDP) the other
    let mut tunnelled = 0;
    for rec in &read_pcap(&dir.join("ha-bs1.pcap")) {
        let outer = Ipv4HeaderSlice::from_slice(&rec.data).expect("outer IPv4");
        if outer.protocol().0 != 4 {
            assert!(matches!(outer.protocol().0, 6 | 17));
            continue;
        }
        tunnelled += 1;
        let inner = Ipv4HeaderSlice::from_slice(&rec.data[20..]).expect("inner IPv4");
        assert_eq!(inner.protocol().0, 6);
        assert_eq!(
            u32::from(outer.total_len()),
            u32::from(inner.total_len()) + 20
        );
        assert_eq!(rec.orig_len, u32::from(outer.total_len()));
    }
    assert!(tunnelled > 100, "{tunnelled} tunnelled packets");
    let mut kinds = [0u64; 8];
    for cell in ["cell1.pcap", "cell2.pcap"] {
        for rec in read_pcap(&dir.join(cell)) {
            let ip = Ipv4HeaderSlice::from_slice(&rec.data).expect("IPv4");
            if ip.protocol().0 != 17 {
                continue;
            }
            let udp = &rec.data[20..];
            assert_eq!(u16::from_be_bytes([udp[2], udp[3]]), 4344);
            kinds[usize::from(udp[8]).min(7)] += 1;
        }
    }
    assert_eq!(
        kinds[1],
        h["beacons"].as_u64().unwrap_or(0),
        "every beacon captured"
    );
    assert!(kinds[2] >= 1 && kinds[3] >= 1 && kinds[5] >= 2, "{kinds:?}");
    let tshark = Command::new("tshark").arg("--version").output();
    if tshark.is_ok_and(|o| o.status.success()) {
        for f in ["ha-bs1.pcap", "cell1.pcap"] {
            let o = Command::new("tshark")
                .args(["-n", "-r"])
                .arg(dir.join(f))
                .args(["-Y", "_ws.malformed || _ws.expert.severity >= error"])
                .output()
                .expect("tshark runs");
            assert!(o.status.success());
            assert_eq!(String::from_utf8_lossy(&o.stdout).lines().count(), 0, "{f}");
        }
    } else {
        println!("tshark is not installed: the captures were checked without it");
    }
}
