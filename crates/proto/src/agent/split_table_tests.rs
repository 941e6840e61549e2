//! Scripted tests of the split base station's relay table: a relay per connection, made at its
//! SYN from either side, removed at close, reset or idle, and the memory bound's fallback to end
//! to end forwarding (`split.rs`).

use super::split::{store_bound, SplitAgent, SplitConfig};
use super::{Agent, Port, Relay, Transmit};
use crate::segment::{Endpoint, Flags};
use crate::tcp::{RecoveryPolicy, Tcp, TcpConfig};
use crate::test_support::{mobile_host, segment, wired_host, Pkt};
use crate::time::{Time, SEC};

const MSS: u32 = 1000;

/// Hosts on both sides of a split base station, delivering everything at once.
struct Net {
    bs: SplitAgent<Pkt>,
    /// Each host's TCP and the side it is on.
    hosts: Vec<(Port, Tcp)>,
    now: Time,
    /// Resets the base station sent, by side.
    resets: Vec<Port>,
}

impl Net {
    fn new(cfg: SplitConfig) -> Net {
        Net {
            bs: SplitAgent::new(cfg),
            hosts: vec![],
            now: 0,
            resets: vec![],
        }
    }

    /// A connection from `from` (on side `side`) sending `bytes` to `to` on the other side.
    fn connect(&mut self, side: Port, from: Endpoint, to: Endpoint, bytes: u64) {
        let now = self.now;
        self.hosts.push((
            side,
            Tcp::connect(TcpConfig::bulk_sender(MSS, 32768, bytes), from, to, now),
        ));
        self.hosts.push((
            side.opposite(),
            Tcp::listen(TcpConfig::sink(MSS, 32768), to, from),
        ));
    }

    /// Delivers everything sendable now.
    fn settle(&mut self) {
        let now = self.now;
        loop {
            let mut moved = false;
            for (side, t) in &mut self.hosts {
                while let Some((s, _)) = t.poll_transmit() {
                    self.bs.on_packet(now, *side, Pkt(Some(s)));
                    moved = true;
                }
            }
            let out: Vec<Transmit<Pkt>> =
                std::iter::from_fn(|| self.bs.poll_transmit(now)).collect();
            for t in out {
                moved = true;
                let Some(seg) = t.packet.0 else {
                    continue;
                };
                if seg.flags.contains(Flags::RST) {
                    self.resets.push(t.port);
                }
                if let Some((_, h)) = self
                    .hosts
                    .iter_mut()
                    .find(|(side, h)| *side == t.port && h.local() == seg.dst)
                {
                    h.on_segment(now, &seg);
                }
            }
            if !moved {
                return;
            }
        }
    }

    /// Runs event by event until `until` or nothing is left to happen.
    fn run(&mut self, until: Time) {
        loop {
            self.settle();
            let next = self
                .hosts
                .iter()
                .filter_map(|(_, t)| t.poll_timeout())
                .chain(self.bs.poll_timeout())
                .min();
            let Some(next) = next.filter(|&t| t <= until) else {
                self.now = until;
                return;
            };
            self.now = next.max(self.now);
            let now = self.now;
            for (_, t) in &mut self.hosts {
                if t.poll_timeout().is_some_and(|d| d <= now) {
                    t.on_timeout(now);
                }
            }
            if self.bs.poll_timeout().is_some_and(|d| d <= now) {
                self.bs.on_timeout(now);
            }
        }
    }
}

/// Two connections from the wired side and one from a mobile host: three relays, one per SYN,
/// each carrying its own connection's bytes; once the connections are closed (TIME_WAIT over),
/// every relay is gone and its report kept.
#[test]
fn a_relay_is_made_at_each_syn_from_either_side_and_goes_when_both_halves_close() {
    let mut net = Net::new(SplitConfig::paper000(MSS, RecoveryPolicy::RENO));
    let sizes = [100_000u64, 60_000, 80_000];
    net.connect(
        Port::Wired,
        wired_host(1000),
        mobile_host(1, 5001),
        sizes[0],
    );
    net.connect(
        Port::Wired,
        wired_host(1001),
        mobile_host(2, 5001),
        sizes[1],
    );
    net.connect(
        Port::Wireless,
        mobile_host(3, 7000),
        wired_host(80),
        sizes[2],
    );
    net.run(1);
    assert_eq!(net.bs.relay_count(), 3, "a relay per SYN, either way");
    net.run(30 * SEC);
    for (k, &n) in sizes.iter().enumerate() {
        let receiver = &net.hosts[2 * k + 1].1;
        assert_eq!(receiver.stats().bytes_delivered, n, "connection {k}");
    }
    let stats = net.bs.stats();
    assert_eq!((stats.relays, stats.relays_most, stats.unsplit), (3, 3, 0));
    net.run(600 * SEC);
    assert_eq!(net.bs.poll_timeout(), None, "nothing left to do");
    // a new connection after TIME_WAIT: the three finished relays make way for it
    net.connect(Port::Wired, wired_host(1002), mobile_host(1, 5002), 1000);
    net.run(600 * SEC + 1);
    assert_eq!(net.bs.relay_count(), 1, "finished relays are removed");
    assert_eq!(net.bs.stats().relays_idle, 0, "not for being idle");
    let reports = net.bs.reports();
    assert_eq!(reports.len(), 4, "each removed relay's report is kept");
    // each report names its connection as (sender, receiver), the uplink's too
    let uplink = (mobile_host(3, 7000), wired_host(80));
    assert!(reports.iter().any(|r| r.endpoints == uplink));
    assert!(reports.iter().all(|r| r.gave_up.is_none()));
    assert!(net.resets.is_empty(), "{:?}", net.resets);
}

/// A reset from one host ends both halves: the relay resets the other host and goes.
#[test]
fn a_reset_from_either_host_ends_both_halves_and_removes_the_relay() {
    let mut net = Net::new(SplitConfig::paper000(MSS, RecoveryPolicy::RENO));
    net.connect(
        Port::Wired,
        wired_host(1000),
        mobile_host(1, 5001),
        1_000_000,
    );
    net.connect(
        Port::Wireless,
        mobile_host(2, 7000),
        wired_host(80),
        1_000_000,
    );
    net.run(SEC / 10);
    assert_eq!(net.bs.relay_count(), 2);
    // the mobile receiver of the first connection aborts
    net.hosts[1].1.abort();
    net.run(SEC / 10 + 1);
    assert_eq!(
        net.bs.relay_count(),
        1,
        "the reset connection's relay is gone"
    );
    assert_eq!(
        net.resets,
        vec![Port::Wired],
        "the fixed host is reset in turn"
    );
    assert!(net.hosts[0].1.stats().reset_received);
    // the fixed receiver of the uplink aborts
    net.hosts[3].1.abort();
    net.run(SEC / 10 + 2);
    assert_eq!(net.bs.relay_count(), 0);
    assert_eq!(net.resets, vec![Port::Wired, Port::Wireless]);
    assert!(net.hosts[2].1.stats().reset_received);
    assert_eq!(net.bs.reports().len(), 2);
}

/// A relay whose connection went silent is removed once it has been idle for the limit, when a
/// new connection comes; a segment of it after that gets a reset.
#[test]
fn an_idle_relay_is_removed_after_its_limit() {
    let mut cfg = SplitConfig::paper000(MSS, RecoveryPolicy::RENO);
    cfg.idle = 100 * SEC;
    let mut bs: SplitAgent<Pkt> = SplitAgent::new(cfg);
    let syn = |port| segment(wired_host(port), mobile_host(1, 5001), 10, 0, Flags::SYN, 0);
    bs.on_packet(0, Port::Wired, Pkt(Some(syn(1000))));
    assert_eq!(bs.relay_count(), 1);
    // a second connection before the first's limit: both held
    bs.on_packet(99 * SEC, Port::Wired, Pkt(Some(syn(1001))));
    assert_eq!((bs.relay_count(), bs.stats().relays_idle), (2, 0));
    // a third one once the first has been silent for the limit: the first goes
    bs.on_packet(100 * SEC, Port::Wired, Pkt(Some(syn(1002))));
    assert_eq!((bs.relay_count(), bs.stats().relays_idle), (2, 1));
    while bs.poll_transmit(100 * SEC).is_some() {}
    // the first connection's fixed host speaks again: nothing knows it
    let data = segment(
        wired_host(1000),
        mobile_host(1, 5001),
        11,
        0,
        Flags::ACK,
        100,
    );
    bs.on_packet(101 * SEC, Port::Wired, Pkt(Some(data)));
    let t = bs.poll_transmit(101 * SEC).expect("an answer");
    let seg = t.packet.0.expect("a segment");
    assert!(seg.flags.contains(Flags::RST));
    assert_eq!((t.port, seg.dst), (Port::Wired, wired_host(1000)));
}

/// At the memory bound a new connection is not split: its packets pass through untouched, both
/// ways, and it is counted.
#[test]
fn at_the_memory_bound_a_new_connection_is_forwarded_end_to_end() {
    let mut cfg = SplitConfig::paper000(MSS, RecoveryPolicy::RENO);
    cfg.max_memory = 2 * store_bound(&cfg) + 1;
    assert_eq!(cfg.max_relays(), 2);
    let mut bs: SplitAgent<Pkt> = SplitAgent::new(cfg);
    let syn = |port| segment(wired_host(port), mobile_host(1, 5001), 10, 0, Flags::SYN, 0);
    bs.on_packet(0, Port::Wired, Pkt(Some(syn(1000))));
    bs.on_packet(0, Port::Wired, Pkt(Some(syn(1001))));
    while bs.poll_transmit(0).is_some() {}
    bs.on_packet(0, Port::Wired, Pkt(Some(syn(1002))));
    let t = bs.poll_transmit(0).expect("the SYN passes");
    assert_eq!((t.port, t.packet), (Port::Wireless, Pkt(Some(syn(1002)))));
    assert!(bs.poll_transmit(0).is_none());
    assert_eq!((bs.relay_count(), bs.stats().unsplit), (2, 1));
    // the mobile host's answer passes back untouched too
    let synack = segment(
        mobile_host(1, 5001),
        wired_host(1002),
        500,
        11,
        Flags::SYN | Flags::ACK,
        0,
    );
    bs.on_packet(SEC, Port::Wireless, Pkt(Some(synack)));
    let t = bs.poll_transmit(SEC).expect("the SYN-ACK passes");
    assert_eq!((t.port, t.packet), (Port::Wired, Pkt(Some(synack))));
    // a relay's closing makes room: the next connection is split again
    assert_eq!(bs.stats().relays, 2);
}

/// A flood of SYNs from 100,000 connections (a port scan, or a SYN flood of spoofed sources) at a
/// bound of no relays: every SYN passes on as it came and is counted, and the base station
/// remembers at most 65,536 of them (the oldest forgotten first), so that its memory stays
/// bounded; a remembered one's next segment passes on untouched, a forgotten one's is a segment of
/// no connection (answered with a reset, as a closed port's).
#[test]
fn a_syn_flood_passes_end_to_end_and_is_remembered_within_the_cap() {
    let mut cfg = SplitConfig::paper000(MSS, RecoveryPolicy::RENO);
    cfg.max_memory = 0;
    let mut bs: SplitAgent<Pkt> = SplitAgent::new(cfg);
    let wired = |i: u32| Endpoint {
        addr: 0x0a00_0001 + (i >> 16),
        port: i as u16,
    };
    let syn = |i| segment(wired(i), mobile_host(1, 5001), 10, 0, Flags::SYN, 0);
    let flood = 100_000;
    for i in 0..flood {
        bs.on_packet(Time::from(i), Port::Wired, Pkt(Some(syn(i))));
        let t = bs.poll_transmit(0).expect("the SYN passes");
        assert_eq!(t.packet, Pkt(Some(syn(i))));
    }
    assert_eq!(bs.stats().unsplit, u64::from(flood));
    assert_eq!(bs.relay_count(), 0);
    let ack = |i| segment(wired(i), mobile_host(1, 5001), 11, 501, Flags::ACK, 0);
    let now = Time::from(flood);
    // the last 65,536 are remembered, the first ones forgotten
    bs.on_packet(now, Port::Wired, Pkt(Some(ack(flood - 1))));
    let t = bs.poll_transmit(now).expect("passes");
    assert_eq!(t.packet, Pkt(Some(ack(flood - 1))));
    bs.on_packet(now, Port::Wired, Pkt(Some(ack(0))));
    let t = bs.poll_transmit(now).expect("answered");
    assert!(t.packet.0.is_some_and(|s| s.flags.contains(Flags::RST)));
}
