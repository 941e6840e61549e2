//! Scripted tests of the split relay carrying real bytes (paper 000 section III-C; the live mode's
//! relay between kernel hosts): what the wired side receives, in order or not, leaves on the
//! wireless side byte for byte, first and again; acknowledged bytes are released; the store stays
//! within its bound; modelled packets store nothing.

use super::split::{SplitAgent, SplitConfig};
use super::{Agent, Port, Transmit};
use crate::segment::Flags;
use crate::tcp::{RecoveryPolicy, State, Tcp, TcpConfig};
use crate::test_support::{segment, BytePkt, Pkt, FH, MH};
use crate::time::{Time, MS, SEC};

/// Byte `k` of the transfer (any function of the offset that is not periodic over a segment).
fn byte_at(k: u64) -> u8 {
    (k.wrapping_mul(2_654_435_761) >> 13) as u8
}

fn bytes_at(from: u64, len: u32) -> Vec<u8> {
    (from..from + u64::from(len)).map(byte_at).collect()
}

fn drain(bs: &mut SplitAgent<BytePkt>, now: Time) -> Vec<Transmit<BytePkt>> {
    std::iter::from_fn(|| bs.poll_transmit(now)).collect()
}

const MSS: u32 = 1000;
const FH_ISS: u32 = 4_294_960_000; // wraps within the transfer

/// The relay after both handshakes, the fixed host at `FH_ISS`, the mobile host at 7000; returns
/// the relay's wireless ISS.
fn connected() -> (SplitAgent<BytePkt>, u32) {
    let mut bs: SplitAgent<BytePkt> =
        SplitAgent::new(SplitConfig::paper000(MSS, RecoveryPolicy::RENO));
    let mut syn = segment(FH, MH, FH_ISS, 0, Flags::SYN, 0);
    syn.mss = Some(MSS as u16);
    bs.on_packet(
        0,
        Port::Wired,
        BytePkt {
            seg: syn,
            data: None,
        },
    );
    let out = drain(&mut bs, 0);
    let syn_ack = out
        .iter()
        .find(|t| t.port == Port::Wired)
        .map(|t| t.packet.seg);
    let wl_syn = out
        .iter()
        .find(|t| t.port == Port::Wireless)
        .map(|t| t.packet.seg);
    let (Some(syn_ack), Some(wl_syn)) = (syn_ack, wl_syn) else {
        panic!("the relay answers the SYN and opens its own: {out:?}");
    };
    // RFC 793/1122: both handshakes carry the MSS and nothing the relay's TCP does not implement
    // (no window scale, timestamps or SACK-permitted: the segment view has no place for them)
    for s in [syn_ack, wl_syn] {
        assert_eq!(s.mss, Some(MSS as u16));
        assert!(s.sack.is_empty() && s.smart.is_none() && s.queue.is_none());
    }
    let mut mh_syn_ack = segment(MH, FH, 7000, wl_syn.seq.0 + 1, Flags::SYN | Flags::ACK, 0);
    mh_syn_ack.mss = Some(MSS as u16);
    bs.on_packet(
        MS,
        Port::Wireless,
        BytePkt {
            seg: mh_syn_ack,
            data: None,
        },
    );
    let ack = segment(
        FH,
        MH,
        FH_ISS.wrapping_add(1),
        syn_ack.seq.0 + 1,
        Flags::ACK,
        0,
    );
    bs.on_packet(
        MS,
        Port::Wired,
        BytePkt {
            seg: ack,
            data: None,
        },
    );
    drain(&mut bs, MS);
    (bs, wl_syn.seq.0)
}

/// The fixed host's data segment `i` (of `MSS` bytes) with its bytes.
fn fh_data(i: u32) -> BytePkt {
    let seg = segment(FH, MH, FH_ISS.wrapping_add(1 + i * MSS), 2, Flags::ACK, MSS);
    BytePkt {
        seg,
        data: Some(bytes_at(u64::from(i * MSS), MSS)),
    }
}

/// The wireless data segments in `out`, each checked to carry the transfer's bytes at its offset.
fn wireless_data(out: &[Transmit<BytePkt>], wl_iss: u32) -> Vec<u64> {
    out.iter()
        .filter(|t| t.port == Port::Wireless && t.packet.seg.len > 0)
        .map(|t| {
            let s = t.packet.seg;
            let at = u64::from(s.seq.0.wrapping_sub(wl_iss.wrapping_add(1)));
            assert_eq!(
                t.packet.data.as_deref(),
                Some(&bytes_at(at, s.len)[..]),
                "the bytes at offset {at}"
            );
            at
        })
        .collect()
}

#[test]
fn bytes_arriving_out_of_order_leave_in_order_with_their_own_bytes() {
    let (mut bs, wl_iss) = connected();
    // segment 1 before segment 0: held ahead of the hole, nothing to send yet
    bs.on_packet(2 * MS, Port::Wired, fh_data(1));
    assert!(wireless_data(&drain(&mut bs, 2 * MS), wl_iss).is_empty());
    assert_eq!(bs.relay_bytes().held(), 2 * u64::from(MSS));
    // the hole fills: the wireless side sends from offset 0 (one segment: its window starts at one)
    bs.on_packet(3 * MS, Port::Wired, fh_data(0));
    let sent = wireless_data(&drain(&mut bs, 3 * MS), wl_iss);
    assert_eq!(sent, vec![0]);
    // the mobile host acknowledges it: the rest goes, with its bytes
    let ack = segment(MH, FH, 7001, wl_iss + 1 + MSS, Flags::ACK, 0);
    bs.on_packet(
        4 * MS,
        Port::Wireless,
        BytePkt {
            seg: ack,
            data: None,
        },
    );
    let sent = wireless_data(&drain(&mut bs, 4 * MS), wl_iss);
    assert_eq!(sent, vec![u64::from(MSS)]);
    // released up to what the mobile host acknowledged
    assert_eq!(bs.relay_bytes().base(), u64::from(MSS));
    assert_eq!(bs.segments_without_bytes(), 0);
}

#[test]
fn a_retransmission_by_the_wireless_side_carries_the_same_bytes() {
    let (mut bs, wl_iss) = connected();
    for i in 0..3 {
        bs.on_packet(2 * MS, Port::Wired, fh_data(i));
    }
    let first = wireless_data(&drain(&mut bs, 2 * MS), wl_iss);
    assert_eq!(first, vec![0]);
    // the mobile host never acknowledges: the relay's timer resends offset 0, bytes and all
    let mut resent = Vec::new();
    let mut now = 2 * MS;
    while now < 20 * SEC && resent.len() < 3 {
        let Some(t) = bs.poll_timeout() else {
            break;
        };
        now = t;
        bs.on_timeout(now);
        resent.extend(wireless_data(&drain(&mut bs, now), wl_iss));
    }
    assert_eq!(
        resent,
        vec![0, 0, 0],
        "three timeouts, each resending offset 0"
    );
    assert_eq!(
        bs.relay_bytes().base(),
        0,
        "nothing acknowledged, nothing released"
    );
}

/// The fixed host's and the mobile host's TCPs (the model's, which count bytes) with the relay
/// between them; the fixed host's segments carry the transfer's bytes by offset, the wired path
/// reorders every 7th segment behind the next, the wireless path loses every 13th data packet.
/// Every wireless data packet carries its offset's bytes, first or again; the store never holds
/// more than its bound (the relay buffer plus the wired window) and allocates it once.
#[test]
fn a_long_transfer_through_the_relay_carries_every_byte_within_the_bound() {
    let transfer = 600_000u64;
    let mut fh = Tcp::connect(TcpConfig::bulk_sender(MSS, 32768, transfer), FH, MH, 0);
    let mut cfg = SplitConfig::paper000(MSS, RecoveryPolicy::RENO);
    cfg.relay_bytes = 16384;
    let bound = 2 * 16384 + u64::from(MSS);
    let mut bs: SplitAgent<BytePkt> = SplitAgent::new(cfg);
    let mut mh = Tcp::listen(TcpConfig::sink(MSS, 32768), MH, FH);
    let mut held_back: Option<BytePkt> = None;
    let (mut wired_data, mut wireless_data_pkts, mut checked) = (0u32, 0u32, 0u64);
    let mut allocated = None;
    for step in 0..200_000u64 {
        let now = step * MS;
        while let Some((s, _)) = fh.poll_transmit() {
            let data = (s.len > 0).then(|| {
                let at = u64::from(s.seq.0.wrapping_sub(fh.iss().0.wrapping_add(1)));
                bytes_at(at, s.len)
            });
            let p = BytePkt { seg: s, data };
            if s.len > 0 {
                wired_data += 1;
                if wired_data % 7 == 0 && held_back.is_none() {
                    held_back = Some(p);
                    continue;
                }
            }
            bs.on_packet(now, Port::Wired, p);
            if let Some(late) = held_back.take() {
                bs.on_packet(now, Port::Wired, late);
            }
        }
        for t in [&mut fh, &mut mh] {
            if t.poll_timeout().is_some_and(|d| d <= now) {
                t.on_timeout(now);
            }
        }
        if bs.poll_timeout().is_some_and(|d| d <= now) {
            bs.on_timeout(now);
        }
        let out = drain(&mut bs, now);
        let wl_iss = bs.connections().1.map(|m| m.iss().0);
        for t in out {
            let s = t.packet.seg;
            match t.port {
                Port::Wired => fh.on_segment(now, &s),
                Port::Wireless => {
                    if s.len > 0 {
                        let iss = wl_iss.expect("the wireless connection exists");
                        let at = u64::from(s.seq.0.wrapping_sub(iss.wrapping_add(1)));
                        assert_eq!(t.packet.data, Some(bytes_at(at, s.len)), "offset {at}");
                        checked += u64::from(s.len);
                        wireless_data_pkts += 1;
                        if wireless_data_pkts % 13 == 0 {
                            continue; // lost on the air
                        }
                    }
                    mh.on_segment(now, &s);
                }
            }
        }
        while let Some((s, _)) = mh.poll_transmit() {
            bs.on_packet(now, Port::Wireless, BytePkt { seg: s, data: None });
        }
        let store = bs.relay_bytes();
        assert!(
            store.held() <= bound,
            "{} held, bound {bound}",
            store.held()
        );
        if store.in_use() {
            let a = *allocated.get_or_insert(store.allocated());
            assert_eq!(store.allocated(), a, "allocated once");
        }
        if mh.state() == State::Closed || (mh.is_finished() && fh.is_finished()) {
            break;
        }
    }
    assert_eq!(
        mh.stats().bytes_delivered,
        transfer,
        "the transfer completed"
    );
    assert!(checked > transfer, "retransmissions were checked too");
    assert_eq!(bs.segments_without_bytes(), 0);
    let store = bs.relay_bytes();
    assert!(store.max_held() <= bound && store.max_held() > 16384);
    let a = allocated.expect("real bytes were stored");
    assert!(
        a >= bound as usize && a < 2 * bound as usize,
        "{a} bytes allocated"
    );
    assert_eq!(
        store.base(),
        transfer,
        "everything released once acknowledged"
    );
}

/// A modelled run's packets carry no bytes: the relay stores and allocates nothing, and builds its
/// packets as before.
#[test]
fn modelled_packets_make_the_relay_store_nothing() {
    let mss = 1000;
    let mut fh = Tcp::connect(TcpConfig::bulk_sender(mss, 32768, 200_000), FH, MH, 0);
    let mut bs: SplitAgent<Pkt> = SplitAgent::new(SplitConfig::paper000(mss, RecoveryPolicy::RENO));
    let mut mh = Tcp::listen(TcpConfig::sink(mss, 32768), MH, FH);
    for step in 0..20_000u64 {
        let now = step * MS;
        while let Some((s, _)) = fh.poll_transmit() {
            bs.on_packet(now, Port::Wired, Pkt(Some(s)));
        }
        for t in [&mut fh, &mut mh] {
            if t.poll_timeout().is_some_and(|d| d <= now) {
                t.on_timeout(now);
            }
        }
        if bs.poll_timeout().is_some_and(|d| d <= now) {
            bs.on_timeout(now);
        }
        let out: Vec<Transmit<Pkt>> = std::iter::from_fn(|| bs.poll_transmit(now)).collect();
        for t in out {
            let Some(s) = t.packet.0 else { continue };
            match t.port {
                Port::Wired => fh.on_segment(now, &s),
                Port::Wireless => mh.on_segment(now, &s),
            }
        }
        while let Some((s, _)) = mh.poll_transmit() {
            bs.on_packet(now, Port::Wireless, Pkt(Some(s)));
        }
    }
    assert_eq!(mh.stats().bytes_delivered, 200_000);
    let store = bs.relay_bytes();
    assert!(!store.in_use());
    assert_eq!((store.allocated(), store.max_held()), (0, 0));
}
