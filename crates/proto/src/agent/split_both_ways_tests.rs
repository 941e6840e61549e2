//! Scripted tests of a split relay carrying both directions (I-TCP's relay, a split PEP's relay
//! process; `split_relay.rs`): a request and its answer cross it intact with their real bytes,
//! each way's FIN half-closes the other side once its direction drained (RFC 793 section 3.5),
//! the reverse buffer back-pressures the far half's window, a reset from either host resets the
//! other mid-answer, and the memory bound counts both directions.

use super::split::{direction_bound, store_bound, SplitAgent, SplitConfig};
use super::{Agent, Port, Transmit};
use crate::app::{Client, Closer, Exchange, Server};
use crate::segment::{Endpoint, Flags, Segment};
use crate::tcp::{RecoveryPolicy, State, Tcp, TcpConfig, TxKind};
use crate::test_support::{BytePkt, FH, MH};
use crate::time::{Time, MS, SEC};

const MSS: u32 = 1000;

/// Byte `k` of the stream host `dir` sends (0: the opener, 1: the other host): not periodic over
/// a segment, and different each way.
fn byte_at(dir: usize, k: u64) -> u8 {
    ((k.wrapping_mul(2_654_435_761) >> 13) as u8) ^ (dir as u8).wrapping_mul(0x5B)
}

/// A host: its TCP with some application on it.
trait End {
    fn tcp(&self) -> &Tcp;
    fn on_segment(&mut self, now: Time, seg: &Segment);
    fn on_timeout(&mut self, now: Time);
    fn poll_transmit(&mut self) -> Option<(Segment, TxKind)>;
}

/// A host whose application the test drives itself (`write`, `read`, `close`, `abort`).
impl End for Tcp {
    fn tcp(&self) -> &Tcp {
        self
    }
    fn on_segment(&mut self, now: Time, seg: &Segment) {
        Tcp::on_segment(self, now, seg);
    }
    fn on_timeout(&mut self, now: Time) {
        Tcp::on_timeout(self, now);
    }
    fn poll_transmit(&mut self) -> Option<(Segment, TxKind)> {
        Tcp::poll_transmit(self)
    }
}

impl End for Client {
    fn tcp(&self) -> &Tcp {
        Client::tcp(self)
    }
    fn on_segment(&mut self, now: Time, seg: &Segment) {
        Client::on_segment(self, now, seg);
    }
    fn on_timeout(&mut self, now: Time) {
        Client::on_timeout(self, now);
    }
    fn poll_transmit(&mut self) -> Option<(Segment, TxKind)> {
        Client::poll_transmit(self)
    }
}

impl End for Server {
    fn tcp(&self) -> &Tcp {
        Server::tcp(self)
    }
    fn on_segment(&mut self, now: Time, seg: &Segment) {
        Server::on_segment(self, now, seg);
    }
    fn on_timeout(&mut self, now: Time) {
        Server::on_timeout(self, now);
    }
    fn poll_transmit(&mut self) -> Option<(Segment, TxKind)> {
        Server::poll_transmit(self)
    }
}

/// The opener (on `side`) and the other host (on the other side) with a split base station
/// between them. Every data segment a host sends carries its stream's bytes by offset; every one
/// the relay delivers is checked to carry the right bytes for its offset.
struct Net<A, B> {
    bs: SplitAgent<BytePkt>,
    opener: A,
    other: B,
    side: Port,
    now: Time,
    /// Every `lose`-th data packet on the wireless hop, either way, is lost (0: none).
    lose: u32,
    wireless_data: u32,
    /// Bytes each host received from the relay, by offset, each checked: [opener's, other's].
    got: [Vec<bool>; 2],
    /// The ports the relay sent a reset on.
    resets: Vec<Port>,
    /// The opener is gone: nothing reaches it any more.
    opener_gone: bool,
}

impl<A: End, B: End> Net<A, B> {
    fn new(cfg: SplitConfig, side: Port, opener: A, other: B) -> Net<A, B> {
        Net {
            bs: SplitAgent::new(cfg),
            opener,
            other,
            side,
            now: 0,
            lose: 0,
            wireless_data: 0,
            got: [Vec::new(), Vec::new()],
            resets: Vec::new(),
            opener_gone: false,
        }
    }

    /// One millisecond: both hosts send, timers fire, the relay's packets are delivered.
    fn step(&mut self) {
        let now = self.now;
        let sides = [self.side, self.side.opposite()];
        let mut sent: Vec<(Port, BytePkt)> = Vec::new();
        for (dir, host) in [&mut self.opener as &mut dyn End, &mut self.other]
            .into_iter()
            .enumerate()
        {
            if host.tcp().poll_timeout().is_some_and(|d| d <= now) {
                host.on_timeout(now);
            }
            while let Some((seg, _)) = host.poll_transmit() {
                let data = (seg.len > 0).then(|| {
                    let at = u64::from(seg.seq.0.wrapping_sub(host.tcp().iss().0.wrapping_add(1)));
                    (at..at + u64::from(seg.len))
                        .map(|k| byte_at(dir, k))
                        .collect()
                });
                sent.push((sides[dir], BytePkt { seg, data }));
            }
        }
        for (port, p) in sent {
            if p.seg.len > 0 && port == Port::Wireless && self.lost_on_air() {
                continue;
            }
            self.bs.on_packet(now, port, p);
        }
        if self.bs.poll_timeout().is_some_and(|d| d <= now) {
            self.bs.on_timeout(now);
        }
        let out: Vec<Transmit<BytePkt>> =
            std::iter::from_fn(|| self.bs.poll_transmit(now)).collect();
        for t in out {
            let seg = t.packet.seg;
            if seg.flags.contains(Flags::RST) {
                self.resets.push(t.port);
            }
            if seg.len > 0 && t.port == Port::Wireless && self.lost_on_air() {
                continue;
            }
            let to = usize::from(t.port != self.side);
            if to == 0 && self.opener_gone {
                continue;
            }
            let host: &mut dyn End = if to == 0 {
                &mut self.opener
            } else {
                &mut self.other
            };
            if seg.len > 0 {
                // the host numbers the relay's stream from the relay half's ISS, its IRS
                let at = u64::from(seg.seq.0.wrapping_sub(host.tcp().irs().0.wrapping_add(1)));
                let want: Vec<u8> = (at..at + u64::from(seg.len))
                    .map(|k| byte_at(1 - to, k))
                    .collect();
                assert_eq!(
                    t.packet.data.as_ref(),
                    Some(&want),
                    "offset {at} to host {to}"
                );
                let got = &mut self.got[to];
                let end = (at + u64::from(seg.len)) as usize;
                if got.len() < end {
                    got.resize(end, false);
                }
                got[at as usize..end].iter_mut().for_each(|b| *b = true);
            }
            host.on_segment(now, &seg);
        }
        self.now += MS;
    }

    /// Counts a data packet on the wireless hop, either way; whether it is lost.
    fn lost_on_air(&mut self) -> bool {
        self.wireless_data += 1;
        self.lose > 0 && self.wireless_data.is_multiple_of(self.lose)
    }

    /// Steps until `done` holds or `limit` passes; returns whether it held.
    fn run_until(&mut self, limit: Time, done: impl Fn(&Self) -> bool) -> bool {
        while self.now < limit {
            if done(self) {
                return true;
            }
            self.step();
        }
        done(self)
    }

    /// Every byte `0..n` of its stream reached host `to` (0: the opener), checked.
    fn received_all(&self, to: usize, n: u64) -> bool {
        self.got[to].len() as u64 >= n && self.got[to][..n as usize].iter().all(|&b| b)
    }
}

/// A relay-mode host: its application writes, reads and closes when the test says.
fn manual(cfg_buf: u32) -> TcpConfig {
    TcpConfig::relay(MSS, cfg_buf, cfg_buf)
}

fn hosts(side: Port) -> (Endpoint, Endpoint) {
    match side {
        Port::Wired => (FH, MH),
        Port::Wireless => (MH, FH),
    }
}

/// An HTTP/1.0 exchange through the relay, opened from either side (paper 000's fixed host, or a
/// mobile host's `wget`), with every 11th wireless data packet lost: the request (N bytes) and
/// the answer (M bytes) arrive whole, every byte right for its offset, first or again; the relay
/// counts both ways, sends nothing without its bytes, and goes once both halves closed.
#[test]
fn a_request_and_its_answer_cross_the_relay_intact_both_ways() {
    let (n, m) = (3_500u64, 150_000u64);
    for side in [Port::Wireless, Port::Wired] {
        let (a, b) = hosts(side);
        let x = Exchange {
            request_bytes: n,
            response_bytes: m,
        };
        let mut client = Client::open(manual(32768), a, b, 0, Closer::Server, false);
        client.ask(0, x);
        client.finish(0);
        let server = Server::listen(manual(32768), b, a, Closer::Server, vec![x]);
        let cfg = SplitConfig::paper000(MSS, RecoveryPolicy::RENO);
        let mut net = Net::new(cfg, side, client, server);
        net.lose = 11;
        let done = net.run_until(120 * SEC, |n| {
            n.opener.all_done() && n.opener.is_finished() && n.other.is_finished()
        });
        assert!(done, "{side:?}: the exchange and both closes completed");
        assert!(net.opener.objects()[0].done.is_some(), "{side:?}");
        assert!(net.received_all(1, n), "{side:?}: the request, intact");
        assert!(net.received_all(0, m), "{side:?}: the answer, intact");
        assert_eq!(net.other.tcp().stats().bytes_delivered, n);
        assert_eq!(net.opener.tcp().stats().bytes_delivered, m);
        assert!(net.wireless_data > 11, "losses on the air were repaired");
        let s = net.bs.stats();
        assert_eq!((s.relays, s.relayed_bytes, s.answered_bytes), (1, n, m));
        if side == Port::Wireless {
            // the answer crossed the lossy hop from the relay's near half: it repaired the losses
            assert!(
                s.back_retransmissions > 0,
                "the relay resent the lost answer"
            );
        }
        assert_eq!(net.bs.segments_without_bytes(), 0);
        assert_eq!(
            net.bs.relay_bytes_back().base(),
            m,
            "all released once acknowledged"
        );
        // TIME_WAIT over: the relay goes, its report kept
        net.run_until(net.now + 61 * SEC, |_| false);
        net.bs.on_packet(
            net.now,
            Port::Wired,
            BytePkt {
                seg: crate::test_support::segment(
                    FH,
                    Endpoint { port: 9, ..MH },
                    1,
                    0,
                    Flags::SYN,
                    0,
                ),
                data: None,
            },
        );
        assert_eq!(net.bs.stats().relays, 2, "{side:?}");
        assert_eq!(net.bs.relay_count(), 1, "{side:?}: the first relay went");
    }
}

/// Half-close both ways (RFC 793 section 3.5). The opener sends its request and closes, and
/// still receives the whole answer; the other way round, the other host answers first and
/// closes, and the opener, told of the close, still sends its bytes through the relay.
#[test]
fn a_fin_closes_the_other_half_only_after_its_direction_and_the_other_direction_goes_on() {
    for side in [Port::Wired, Port::Wireless] {
        let (a, b) = hosts(side);
        let cfg = SplitConfig::paper000(MSS, RecoveryPolicy::RENO);
        // the opener writes and closes at once: its FIN follows its bytes
        let mut opener = Tcp::connect(manual(32768), a, b, 0);
        let mut net = Net::new(
            cfg.clone(),
            side,
            opener.clone(),
            Tcp::listen(manual(32768), b, a),
        );
        assert!(net.run_until(SEC, |n| n.opener.state() == State::Established));
        net.opener.write(net.now, 20_000);
        net.opener.close(net.now);
        let read_all = |n: &mut Net<Tcp, Tcp>| {
            let now = n.now;
            let u = n.other.unread();
            n.other.read(now, u);
        };
        while net.now < 20 * SEC && !net.other.at_eof() {
            read_all(&mut net);
            net.step();
        }
        assert!(
            net.other.at_eof(),
            "{side:?}: the FIN came after the request"
        );
        assert!(net.received_all(1, 20_000));
        // the answer flows back to the half-closed opener, then the other host's FIN
        net.other.write(net.now, 30_000);
        net.other.close(net.now);
        let opener_reads = |n: &mut Net<Tcp, Tcp>| {
            let now = n.now;
            let u = n.opener.unread();
            n.opener.read(now, u);
        };
        while net.now < 60 * SEC && !(net.opener.at_eof() && net.other.is_finished()) {
            opener_reads(&mut net);
            net.step();
        }
        assert!(
            net.received_all(0, 30_000),
            "{side:?}: the answer after the opener's FIN"
        );
        assert!(net.opener.at_eof() && net.opener.is_finished());

        // the other host answers and closes first: the opener gets the answer and the FIN,
        // and its own bytes still go through
        opener = Tcp::connect(manual(32768), a, b, 0);
        let mut net = Net::new(cfg, side, opener, Tcp::listen(manual(32768), b, a));
        assert!(net.run_until(SEC, |n| n.other.state() == State::Established));
        net.other.write(net.now, 25_000);
        net.other.close(net.now);
        while net.now < 20 * SEC && !net.opener.at_eof() {
            opener_reads(&mut net);
            net.step();
        }
        assert!(
            net.opener.at_eof(),
            "{side:?}: the other host's FIN reached the opener"
        );
        assert_eq!(net.opener.state(), State::CloseWait);
        assert!(net.received_all(0, 25_000));
        net.opener.write(net.now, 30_000);
        net.opener.close(net.now);
        while net.now < 60 * SEC && !(net.other.at_eof() && net.opener.is_finished()) {
            read_all(&mut net);
            net.step();
        }
        assert!(
            net.received_all(1, 30_000),
            "{side:?}: sent after the other's FIN"
        );
        assert!(net.other.at_eof() && net.opener.is_finished());
        assert_eq!(net.bs.segments_without_bytes(), 0);
    }
}

/// The other host answers and the opener does not read: the reverse buffer fills and the far
/// half's window closes (what the near half still holds of the answer is counted against it),
/// so the relay never holds more of the answer than its buffer and a segment; once the opener
/// reads, the window opens and the answer arrives whole.
#[test]
fn a_full_reverse_buffer_closes_the_far_halfs_window() {
    let mut cfg = SplitConfig::paper000(MSS, RecoveryPolicy::RENO);
    cfg.relay_bytes = 8000;
    let side = Port::Wired;
    let (a, b) = hosts(side);
    let opener = Tcp::connect(manual(4000), a, b, 0);
    let mut net = Net::new(cfg, side, opener, Tcp::listen(manual(32768), b, a));
    assert!(net.run_until(SEC, |n| n.other.state() == State::Established));
    let answer = 60_000;
    net.other.write(net.now, answer);
    let mut written = 0;
    let mut most = 0;
    while net.now < 10 * SEC {
        // the other host writes as its buffer drains
        let now = net.now;
        written += net.other.write(now, 60_000 - written);
        net.step();
        let (near, far) = net.bs.connections();
        let (Some(near), Some(far)) = (near, far) else {
            panic!("the relay is there");
        };
        most = most.max(far.unread() + near.send_buffered());
    }
    assert!(
        most <= 8000 + u64::from(MSS),
        "the relay held {most} of the answer"
    );
    assert!(most >= 8000, "the buffer filled: {most}");
    let stuck = net.other.send_buffered();
    assert!(stuck > 0, "the other host is held back");
    // the opener reads: everything arrives
    while net.now < 60 * SEC && !net.received_all(0, answer) {
        let now = net.now;
        let u = net.opener.unread();
        net.opener.read(now, u);
        written += net.other.write(now, answer - written);
        net.step();
    }
    assert!(net.received_all(0, answer));
}

/// A reset from either host while the answer flows resets the other host's connection, and the
/// relay goes.
#[test]
fn a_reset_from_either_host_mid_answer_resets_the_other() {
    for (resetter, side) in [(0usize, Port::Wired), (1, Port::Wired), (0, Port::Wireless)] {
        let (a, b) = hosts(side);
        let cfg = SplitConfig::paper000(MSS, RecoveryPolicy::RENO);
        let opener = Tcp::connect(manual(32768), a, b, 0);
        let mut net = Net::new(cfg, side, opener, Tcp::listen(manual(32768), b, a));
        assert!(net.run_until(SEC, |n| n.other.state() == State::Established));
        net.other.write(net.now, 30_000);
        net.run_until(net.now + 200 * MS, |_| false);
        assert!(net.opener.unread() > 0, "the answer is flowing");
        if resetter == 0 {
            net.opener.abort();
        } else {
            net.other.abort();
        }
        net.run_until(net.now + SEC, |_| false);
        let (hit, port) = if resetter == 0 {
            (&net.other, side.opposite())
        } else {
            (&net.opener, side)
        };
        assert!(hit.stats().reset_received, "{resetter} {side:?}");
        assert_eq!(hit.state(), State::Closed);
        assert!(net.resets.contains(&port));
        assert_eq!(net.bs.relay_count(), 0, "the relay went");
    }
}

/// Both hosts write and neither reads: both directions fill at once and both byte stores are
/// allocated (each its direction's bound, once). What the relay holds and what it allocated stay
/// within its [`store_bound`], which counts both directions: the bound a relay-memory of one
/// relay's worth admits, and no second relay.
#[test]
fn the_memory_bound_counts_both_directions() {
    let mut cfg = SplitConfig::paper000(MSS, RecoveryPolicy::RENO);
    cfg.relay_bytes = 8000;
    cfg.max_memory = store_bound(&cfg);
    assert_eq!(cfg.max_relays(), 1);
    let (a, b) = hosts(Port::Wired);
    let opener = Tcp::connect(manual(8000), a, b, 0);
    let mut net = Net::new(
        cfg.clone(),
        Port::Wired,
        opener,
        Tcp::listen(manual(8000), b, a),
    );
    assert!(net.run_until(SEC, |n| n.other.state() == State::Established));
    let (mut up, mut down, mut most) = (0, 0, 0);
    while net.now < 10 * SEC {
        let now = net.now;
        up += net.opener.write(now, 100_000 - up);
        down += net.other.write(now, 100_000 - down);
        net.step();
        let (on, back) = (net.bs.relay_bytes(), net.bs.relay_bytes_back());
        assert!(on.held() <= direction_bound(&cfg) && back.held() <= direction_bound(&cfg));
        most = most
            .max(on.held() + back.held())
            .max(net.bs.probe().held_bytes);
    }
    assert!(
        most <= cfg.max_memory,
        "{most} held, bound {}",
        cfg.max_memory
    );
    assert!(
        most > u64::from(cfg.relay_bytes + MSS),
        "both directions held bytes: {most}"
    );
    let allocated = net.bs.relay_bytes().allocated() + net.bs.relay_bytes_back().allocated();
    assert!(
        allocated > direction_bound(&cfg) as usize && allocated <= cfg.max_memory as usize,
        "{allocated} allocated, bound {}",
        cfg.max_memory
    );
    // the bound admits this one relay and no other
    let c = Endpoint { port: 7, ..FH };
    net.bs.on_packet(
        net.now,
        Port::Wired,
        BytePkt {
            seg: crate::test_support::segment(c, MH, 1, 0, Flags::SYN, 0),
            data: None,
        },
    );
    assert_eq!((net.bs.stats().relays, net.bs.stats().unsplit), (1, 1));
}

/// The opener vanishes while the answer flows: the near half retransmits to it until it gives up
/// (12 retransmissions, `TCP_MAXRXTSHIFT`), and the relay then drops the other host's connection
/// too (a reset), as a relay process whose write failed closes its other socket; the relay goes.
#[test]
fn a_near_half_that_gives_up_on_the_opener_resets_the_other_host() {
    let (a, b) = hosts(Port::Wired);
    let cfg = SplitConfig::paper000(MSS, RecoveryPolicy::RENO);
    let opener = Tcp::connect(manual(32768), a, b, 0);
    let mut net = Net::new(cfg, Port::Wired, opener, Tcp::listen(manual(32768), b, a));
    assert!(net.run_until(SEC, |n| n.other.state() == State::Established));
    net.other.write(net.now, 30_000);
    net.run_until(net.now + 100 * MS, |_| false);
    net.opener_gone = true;
    let gone = net.run_until(30 * 60 * SEC, |n| n.bs.relay_count() == 0);
    assert!(gone, "the relay went");
    assert!(net.other.stats().reset_received);
    assert_eq!(net.other.state(), State::Closed);
    assert!(net.resets.contains(&Port::Wireless));
}
