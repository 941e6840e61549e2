//! One TCP endpoint (4.4BSD-Lite with the papers' recovery policies and host profiles), active or
//! passive, bulk sender, sink or relay, fed arbitrary segments (some corrupted), timeouts, and a
//! relay application's reads, writes and closes. Asserts no panic, timers that move on, and:
//! - it never acknowledges bytes it did not receive: the ACK of every segment it sends (and its
//!   `rcv_nxt`) stays within the bytes from the peer's initial sequence number on that the
//!   segments it was given cover without a gap. A reset may acknowledge exactly the segment it
//!   answers (`tcp_respond` from `dropwithreset`, RFC 793);
//! - it never sends bytes its application did not write (nor past the SYN and the FIN);
//! - every segment it sends goes on the wire as it is (options that fit, a length IPv4 carries).
#![no_main]

use libfuzzer_sys::arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use snooplab_fuzz::{assert_valid_segment, seq_near, time_step, MAX_OPS};
use snooplab_proto::tcp::{HostPreset, ReceiverPolicy, RecoveryPolicy, State, Tcp, TcpConfig};
use snooplab_proto::{Endpoint, Flags, Segment, Seq, Time};

const LOCAL: Endpoint = Endpoint {
    addr: 0x0a00_0001,
    port: 20000,
};
const REMOTE: Endpoint = Endpoint {
    addr: 0x0a00_0102,
    port: 5001,
};

const POLICIES: [RecoveryPolicy; 11] = [
    RecoveryPolicy::RENO,
    RecoveryPolicy::NEWRENO,
    RecoveryPolicy::ELN,
    RecoveryPolicy::ELN_RXMT,
    RecoveryPolicy::ELN_MOBILE,
    RecoveryPolicy::SACK,
    RecoveryPolicy::SMART,
    RecoveryPolicy::EFR,
    RecoveryPolicy::LIMITED_TRANSMIT,
    RecoveryPolicy::EARLY_RETRANSMIT,
    RecoveryPolicy::EARLY_RETRANSMIT_LT,
];

fn byte(u: &mut Unstructured) -> u8 {
    u.arbitrary().unwrap_or(0)
}

/// The peer's segments as given: where each starts and the sequence space it takes.
#[derive(Default)]
struct Given {
    segs: Vec<(Seq, u32)>,
}

impl Given {
    /// Bytes from `irs` on (the SYN included) that the given segments cover without a gap.
    fn contiguous_from(&self, irs: Seq) -> u64 {
        let mut ranges: Vec<(u64, u64)> = self
            .segs
            .iter()
            .filter_map(|&(s, l)| {
                let a = u64::from(s.0.wrapping_sub(irs.0));
                let l = u64::from(l);
                if a < 1 << 31 {
                    Some((a, a + l))
                } else {
                    // starts before irs: counts for what reaches past it
                    let back = (1u64 << 32) - a;
                    (l > back).then(|| (0, l - back))
                }
            })
            .collect();
        ranges.sort_unstable();
        let mut end = 0;
        for (a, b) in ranges {
            if a > end {
                break;
            }
            end = end.max(b);
        }
        end
    }

    /// Whether `ack` is exactly the end of a given segment (what a reset may acknowledge).
    fn ends_at(&self, ack: Seq) -> bool {
        self.segs.iter().any(|&(s, l)| s.0.wrapping_add(l) == ack.0)
    }
}

fn synced(s: State) -> bool {
    !matches!(s, State::Closed | State::Listen | State::SynSent)
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let sel = byte(&mut u);
    let mss = [1460, 536, 64, 1400][usize::from(sel & 3)];
    let buffer = [32768, 4096, 65535, 1024][usize::from((sel >> 2) & 3)];
    let app_bytes = u64::from(u.arbitrary::<u16>().unwrap_or(0)) * 3;
    let role = (sel >> 4) % 3;
    let mut cfg = match role {
        0 => TcpConfig::bulk_sender(mss, buffer, app_bytes),
        1 => TcpConfig::sink(mss, buffer),
        _ => TcpConfig::relay(mss, buffer, buffer),
    };
    let p = byte(&mut u);
    cfg.policy = POLICIES[usize::from(p) % POLICIES.len()];
    cfg.receiver = ReceiverPolicy {
        mark_eln: p & 0x20 != 0,
        smart_acks: p & 0x40 != 0,
        sack_blocks: p & 0x80 != 0,
    };
    cfg.host = HostPreset::ALL[usize::from(byte(&mut u)) % HostPreset::ALL.len()].profile();
    cfg.iss = u.arbitrary().unwrap_or(1);
    let peer_iss: u32 = u.arbitrary().unwrap_or(0);
    let mut now: Time = 0;
    let mut tcp = if sel & 0x40 != 0 {
        Tcp::listen(cfg.clone(), LOCAL, REMOTE)
    } else {
        Tcp::connect(cfg.clone(), LOCAL, REMOTE, now)
    };
    let iss = tcp.iss();
    let mut given = Given::default();
    let mut written: u64 = 0;
    let mut was_synced = false;
    for _ in 0..MAX_OPS {
        if u.is_empty() {
            break;
        }
        match byte(&mut u) % 9 {
            0..=3 => {
                let seg = Segment {
                    src: REMOTE,
                    dst: LOCAL,
                    seq: seq_near(&mut u, peer_iss),
                    ack: seq_near(&mut u, iss.0),
                    flags: Flags(byte(&mut u)),
                    window: u.arbitrary().unwrap_or(0),
                    len: u32::from(u.arbitrary::<u16>().unwrap_or(0) % 3000),
                    ..Segment::default()
                };
                let mut seg = seg;
                let o = byte(&mut u);
                if o & 1 != 0 {
                    seg.mss = Some(u.arbitrary().unwrap_or(0));
                }
                seg.eln = o & 2 != 0;
                if o & 4 != 0 {
                    seg.smart = Some(seq_near(&mut u, iss.0));
                }
                for _ in 0..(o >> 3) % 4 {
                    let a = seq_near(&mut u, iss.0);
                    let n = u32::from(u.arbitrary::<u16>().unwrap_or(1)).max(1);
                    seg.sack.push(a, a + n);
                }
                if o & 0x80 != 0 {
                    tcp.on_corrupted(&seg);
                } else {
                    given.segs.push((seg.seq, seg.seq_len()));
                    tcp.on_segment(now, &seg);
                }
            }
            4 | 5 => {
                now += time_step(&mut u);
                fire_due(&mut tcp, now);
            }
            6 => {
                if let Some(t) = tcp.poll_timeout() {
                    now = now.max(t);
                    fire_due(&mut tcp, now);
                }
            }
            7 => {
                if role == 2 {
                    let n = u64::from(u.arbitrary::<u16>().unwrap_or(0));
                    let before = tcp.send_space();
                    tcp.write(now, n);
                    written += n.min(before);
                    tcp.read(now, u64::from(u.arbitrary::<u16>().unwrap_or(0)));
                }
            }
            _ => match byte(&mut u) % 4 {
                0 if role == 2 => tcp.close(now),
                1 => tcp.abort(),
                _ => tcp.send_acks(now, u32::from(byte(&mut u) % 4)),
            },
        }
        was_synced |= synced(tcp.state());
        let irs = tcp.irs();
        let covered = was_synced.then(|| given.contiguous_from(irs));
        if let Some(c) = covered {
            let r = u64::from(tcp.rcv_nxt().0.wrapping_sub(irs.0));
            assert!(
                r <= c,
                "rcv_nxt is {r} bytes past irs, only {c} were received in order"
            );
        }
        let app = if role == 2 { written } else { cfg.app_bytes };
        while let Some((seg, _)) = tcp.poll_transmit() {
            assert_valid_segment(&seg, "tcp");
            if seg.has_ack() {
                let rel = u64::from(seg.ack.0.wrapping_sub(irs.0));
                let within = covered.is_some_and(|c| rel <= c || rel >= 1 << 31);
                let answers = seg.flags.contains(Flags::RST) && given.ends_at(seg.ack);
                assert!(
                    within || answers,
                    "acknowledges bytes it did not receive: ack {} is {rel} past irs {}, \
                     {covered:?} received in order: {seg:?}",
                    seg.ack.0,
                    irs.0
                );
            }
            if !seg.flags.contains(Flags::RST) {
                let end = u64::from(seg.seq.0.wrapping_add(seg.seq_len()).wrapping_sub(iss.0));
                assert!(
                    end <= app + 2,
                    "sends up to {end} bytes past its iss, the application wrote {app}: {seg:?}"
                );
            }
        }
    }
    let _ = (tcp.stats(), tcp.state(), tcp.unread_bytes());
});

/// Runs the connection's timers while they are due at `now`.
fn fire_due(tcp: &mut Tcp, now: Time) {
    for _ in 0..64 {
        match tcp.poll_timeout() {
            Some(t) if t <= now => tcp.on_timeout(now),
            _ => return,
        }
    }
    panic!("the connection's timer stays due at {now} ns after 64 expiries");
}
