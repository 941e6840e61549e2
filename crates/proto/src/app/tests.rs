//! Scripted packet-level tests of the request/response application over the TCP
//! (docs/architecture.md#tests): a client and its server joined by a wire of fixed delay that
//! drops exactly the segments a test names, on the simulated clock.

use super::*;
use crate::segment::{Endpoint, Segment};
use crate::tcp::{HostPreset, TcpConfig, TxKind};
use crate::test_support::{FH, MH};
use crate::time::{Time, MS, SEC};

const MSS: u32 = 1000;
/// One-way delay of the wire: a round trip is 100 ms.
const DELAY: Time = 50 * MS;
const RTT: Time = 2 * DELAY;

fn cfg(preset: HostPreset, iss: u32) -> TcpConfig {
    let mut c = TcpConfig::relay(MSS, 16 * 1024, 16 * 1024);
    c.host = preset.profile();
    c.iss = iss;
    if matches!(preset, HostPreset::Linux) {
        // today's Linux negotiates SACK on every connection (tcp_sack = 1): its RFC 6675
        // recovery and RACK-TLP run only with SACK (`recovery/rack.rs`)
        c.policy = crate::tcp::RecoveryPolicy::SACK;
        c.receiver.sack_blocks = true;
    }
    c
}

/// A segment on the wire: when it left, which way, and whether dropped.
#[derive(Clone, Copy, Debug)]
struct Sent {
    at: Time,
    to_server: bool,
    seg: Segment,
    kind: TxKind,
    dropped: bool,
}

/// Which segments the wire drops: called once per segment sent, with its place in the log.
type DropRule = Box<dyn FnMut(&Sent, &[Sent]) -> bool>;

/// Client/server pairs on one wire of delay `DELAY` each way.
struct Net {
    now: Time,
    preset: HostPreset,
    pairs: Vec<(Client, Server)>,
    flight: Vec<(Time, usize, bool, Segment)>,
    log: Vec<Sent>,
    drop: DropRule,
}

impl Net {
    fn new(preset: HostPreset, drop: DropRule) -> Net {
        Net {
            now: 0,
            preset,
            pairs: Vec::new(),
            flight: Vec::new(),
            log: Vec::new(),
            drop,
        }
    }

    /// Opens a connection at `now` for `exchanges`, asks the first `ask_now` of them, and
    /// returns its number.
    fn open(&mut self, closer: Closer, pipelined: bool, exchanges: &[Exchange]) -> usize {
        let k = self.pairs.len();
        let port = 1024 + k as u16;
        let client_end = Endpoint { port, ..MH };
        let server_end = Endpoint { port: 80, ..FH };
        let iss = 1000 + 100_000 * k as u32;
        let client = Client::open(
            cfg(self.preset, iss),
            client_end,
            server_end,
            self.now,
            closer,
            pipelined,
        );
        let server = Server::listen(
            cfg(self.preset, iss + 50_000),
            server_end,
            client_end,
            closer,
            exchanges.to_vec(),
        );
        self.pairs.push((client, server));
        self.collect();
        k
    }

    /// Everything the endpoints want to send goes on the wire (or is dropped).
    fn collect(&mut self) {
        for k in 0..self.pairs.len() {
            loop {
                let (c, s) = &mut self.pairs[k];
                let (seg, kind, to_server) = match c.poll_transmit() {
                    Some((seg, kind)) => (seg, kind, true),
                    None => match s.poll_transmit() {
                        Some((seg, kind)) => (seg, kind, false),
                        None => break,
                    },
                };
                let mut sent = Sent {
                    at: self.now,
                    to_server,
                    seg,
                    kind,
                    dropped: false,
                };
                sent.dropped = (self.drop)(&sent, &self.log);
                if !sent.dropped {
                    self.flight.push((self.now + DELAY, k, to_server, seg));
                }
                self.log.push(sent);
            }
        }
    }

    /// The next arrival or timer, if any.
    fn next_event(&self) -> Option<Time> {
        let arrivals = self.flight.iter().map(|f| f.0);
        let timers = self
            .pairs
            .iter()
            .flat_map(|(c, s)| [c.poll_timeout(), s.poll_timeout()])
            .flatten();
        arrivals.chain(timers).min()
    }

    /// Advances to the next event and handles everything due then; false when nothing is left.
    fn step(&mut self) -> bool {
        self.collect();
        let Some(t) = self.next_event() else {
            return false;
        };
        self.now = t;
        let (due, later): (Vec<_>, Vec<_>) = self.flight.drain(..).partition(|f| f.0 <= t);
        self.flight = later;
        for (_, k, to_server, seg) in due {
            let (c, s) = &mut self.pairs[k];
            if to_server {
                s.on_segment(t, &seg);
            } else {
                c.on_segment(t, &seg);
            }
        }
        for (c, s) in &mut self.pairs {
            if c.poll_timeout().is_some_and(|at| at <= t) {
                c.on_timeout(t);
            }
            if s.poll_timeout().is_some_and(|at| at <= t) {
                s.on_timeout(t);
            }
        }
        self.collect();
        true
    }

    /// Steps until `done` says so (checked after every step, with the net to act on), or two
    /// minutes of simulated time.
    fn run(&mut self, mut done: impl FnMut(&mut Net) -> bool) {
        while !done(self) {
            assert!(
                self.step(),
                "nothing left to happen at {} ms",
                self.now / MS
            );
            assert!(self.now < 120 * SEC, "still running at two minutes");
        }
    }

    fn all_finished(&self) -> bool {
        self.pairs
            .iter()
            .all(|(c, s)| c.all_done() && c.is_finished() && s.is_finished())
    }

    fn sent(&self, pred: impl Fn(&Sent) -> bool) -> Vec<Sent> {
        self.log.iter().copied().filter(|s| pred(s)).collect()
    }
}

fn keep_all() -> DropRule {
    Box::new(|_, _| false)
}

/// Drops the first segment `pred` matches, once.
fn drop_first(pred: impl Fn(&Sent) -> bool + 'static) -> DropRule {
    let mut done = false;
    Box::new(move |s, _| {
        if !done && pred(s) {
            done = true;
            return true;
        }
        false
    })
}

const SMALL: Exchange = Exchange {
    request_bytes: 300,
    response_bytes: 500,
};

/// One HTTP/1.0 exchange over a fresh connection, run to the end; returns the net.
fn one_exchange(preset: HostPreset, exchange: Exchange, drop: DropRule) -> Net {
    let mut net = Net::new(preset, drop);
    let k = net.open(Closer::Server, false, &[exchange]);
    let now = net.now;
    net.pairs[k].0.ask(now, exchange);
    net.run(|n| n.all_finished());
    net
}

#[test]
fn a_request_and_its_response_cross_the_wire_with_setup_and_teardown() {
    let exchange = Exchange {
        request_bytes: 300,
        response_bytes: 5_000,
    };
    let net = one_exchange(HostPreset::Bsdos21, exchange, keep_all());
    let (c, s) = &net.pairs[0];
    let o = c.objects()[0];
    // SYN out at 0, SYN|ACK back after a round trip; the request goes at once, its response's
    // first segment one round trip later.
    assert_eq!(o.connect_time(), Some(RTT));
    assert_eq!(o.requested, Some(RTT));
    assert_eq!(o.first_byte_time(), Some(2 * RTT));
    assert!(o.completion_time().is_some_and(|t| t > 2 * RTT));
    assert_eq!(c.tcp().stats().bytes_delivered, 5_000);
    assert_eq!(s.tcp().stats().bytes_delivered, 300);
    assert_eq!(s.responses_written(), 1);
    // One SYN each way, and the server's FIN before the client's (HTTP/1.0: the server closes).
    let syns = net.sent(|x| x.seg.is_syn());
    assert_eq!(syns.len(), 2);
    let fins = net.sent(|x| x.seg.is_fin());
    assert_eq!(fins.len(), 2);
    assert!(!fins[0].to_server && fins[1].to_server, "{fins:?}");
    let page = PageTimes::of(c.objects()).expect("one object");
    assert_eq!(page.done, o.completion_time());
    assert_eq!(page.first_byte, Some(2 * RTT));
}

/// The first SYN is lost: the client's retransmission timer, at the profile's initial RTO
/// (4.4BSD `tcp_newtcpcb`: `TCPTV_SRTTDFLT` 3 s gives 6 s; FreeBSD 2.2's finer estimator 3 s,
/// rtt.rs), sends it again, and the object waits that long for its connection.
#[test]
fn a_lost_syn_waits_the_profiles_initial_rto() {
    for (preset, rto) in [
        (HostPreset::Bsd44Lite, 6 * SEC),
        (HostPreset::Bsdos21, 6 * SEC),
        (HostPreset::Freebsd22, 3 * SEC),
    ] {
        let net = one_exchange(preset, SMALL, drop_first(|s| s.to_server && s.seg.is_syn()));
        let syns = net.sent(|s| s.to_server && s.seg.is_syn());
        assert_eq!(syns.len(), 2, "{}", preset.name());
        assert!(syns[0].dropped && !syns[1].dropped);
        assert_eq!(syns[1].kind, TxKind::TimeoutRetransmit, "{}", preset.name());
        assert_eq!(syns[1].at - syns[0].at, rto, "{}", preset.name());
        let o = net.pairs[0].0.objects()[0];
        assert_eq!(o.connect_time(), Some(rto + RTT), "{}", preset.name());
        assert_eq!(net.pairs[0].0.tcp().stats().timeouts, 1);
    }
}

/// The server's FIN is lost. The response was complete before it, so the object is not later;
/// the connection's close waits for the FIN's retransmission.
#[test]
fn a_lost_fin_delays_the_close_not_the_object() {
    let clean = one_exchange(HostPreset::Bsdos21, SMALL, keep_all());
    let lossy = one_exchange(
        HostPreset::Bsdos21,
        SMALL,
        drop_first(|s| !s.to_server && s.seg.is_fin()),
    );
    let (c0, c1) = (&clean.pairs[0].0, &lossy.pairs[0].0);
    assert_eq!(c1.objects()[0].done, c0.objects()[0].done);
    let fins = lossy.sent(|s| !s.to_server && s.seg.is_fin());
    assert_eq!(fins.len(), 2);
    assert!(
        fins[0].dropped && fins[0].seg.len == 0,
        "a FIN alone: {fins:?}"
    );
    assert_eq!(fins[1].kind, TxKind::TimeoutRetransmit);
    assert_eq!(lossy.pairs[0].1.tcp().stats().timeouts, 1);
    let closed = |c: &Client| c.connection().closed.expect("closed");
    // The client closes on the retransmitted FIN: at least the minimum RTO (1 s) later.
    assert!(
        closed(c1) >= closed(c0) + SEC,
        "{} vs {}",
        closed(c1),
        closed(c0)
    );
    // The FIN arrives, the client's own FIN goes back and its ACK returns: CLOSED.
    assert_eq!(closed(c1), fins[1].at + DELAY + RTT);
}

/// The response's last segment is lost. Nothing follows it to make duplicate ACKs (at most one,
/// for the FIN), so 4.4BSD waits for its retransmission timer; the object is complete only when
/// the retransmission arrives.
#[test]
fn a_lost_last_segment_of_a_response_waits_for_the_timeout() {
    let exchange = Exchange {
        request_bytes: 300,
        response_bytes: 5_000,
    };
    let clean = one_exchange(HostPreset::Bsdos21, exchange, keep_all());
    let server_iss = clean.pairs[0].1.tcp().iss();
    let end = server_iss + 1 + 5_000;
    let lossy = one_exchange(
        HostPreset::Bsdos21,
        exchange,
        drop_first(move |s| !s.to_server && s.seg.len > 0 && s.seg.seq + s.seg.len == end),
    );
    let server = lossy.pairs[0].1.tcp().stats();
    assert_eq!(server.timeouts, 1);
    assert_eq!(server.fast_retransmits, 0);
    let rexmt = lossy.sent(|s| !s.to_server && s.kind == TxKind::TimeoutRetransmit);
    assert!(!rexmt.is_empty());
    let lost = lossy.sent(|s| s.dropped);
    assert_eq!(lost.len(), 1);
    assert!(
        rexmt[0].at >= lost[0].at + SEC,
        "at least TCPTV_MIN after the loss"
    );
    let done = |n: &Net| n.pairs[0].0.objects()[0].done.expect("done");
    // The retransmission starts at snd_una, the lost segment: it completes the response.
    assert_eq!(rexmt[0].seg.seq + rexmt[0].seg.len, end);
    assert_eq!(done(&lossy), rexmt[0].at + DELAY);
    assert!(done(&lossy) >= done(&clean) + SEC);
}

/// A page of four objects: one connection per object, one after another (HTTP/1.0 as SURGE's
/// client and the browsers without parallel connections fetched), against one persistent
/// connection (HTTP/1.1), with and without pipelining.
#[test]
fn a_persistent_connection_saves_a_handshake_per_object() {
    let objects = [
        Exchange {
            request_bytes: 250,
            response_bytes: 3_000,
        },
        Exchange {
            request_bytes: 230,
            response_bytes: 2_000,
        },
        Exchange {
            request_bytes: 230,
            response_bytes: 6_000,
        },
        Exchange {
            request_bytes: 230,
            response_bytes: 1_000,
        },
    ];
    // Per object: connection j opens when object j - 1 is in.
    let mut per_object = Net::new(HostPreset::Bsdos21, keep_all());
    per_object.open(Closer::Server, false, &objects[..1]);
    per_object.pairs[0].0.ask(0, objects[0]);
    per_object.run(|n| {
        let j = n.pairs.len();
        if j < objects.len() && n.pairs[j - 1].0.all_done() {
            let k = n.open(Closer::Server, false, &objects[j..=j]);
            let now = n.now;
            n.pairs[k].0.ask(now, objects[j]);
        }
        n.pairs.len() == objects.len() && n.all_finished()
    });
    let per_object_times: Vec<ObjectTimes> = per_object
        .pairs
        .iter()
        .map(|(c, _)| c.objects()[0])
        .collect();

    let persistent = |pipelined: bool| {
        let mut net = Net::new(HostPreset::Bsdos21, keep_all());
        net.open(Closer::Client, pipelined, &objects);
        for o in objects {
            net.pairs[0].0.ask(0, o);
        }
        net.pairs[0].0.finish(0);
        net.run(|n| n.all_finished());
        net
    };
    let serial = persistent(false);
    let pipelined = persistent(true);

    let syns = |n: &Net| n.sent(|s| s.to_server && s.seg.is_syn()).len();
    assert_eq!(syns(&per_object), 4);
    assert_eq!(syns(&serial), 1);
    assert_eq!(syns(&pipelined), 1);
    let page = |times: &[ObjectTimes]| {
        PageTimes::of(times)
            .and_then(|p| p.done)
            .expect("every object in")
    };
    let t_per_object = page(&per_object_times);
    let t_serial = page(serial.pairs[0].0.objects());
    let t_pipelined = page(pipelined.pairs[0].0.objects());
    // Three handshakes saved, a round trip each, and the window kept open between objects.
    assert!(
        t_per_object >= t_serial + 3 * RTT,
        "per object {t_per_object}, persistent {t_serial}"
    );
    assert!(
        t_pipelined < t_serial,
        "pipelined {t_pipelined}, serial {t_serial}"
    );
    // Asked at the page's start, every object on the persistent connection waited for its one
    // handshake, and no other.
    let later = &serial.pairs[0].0.objects()[1..];
    assert!(
        later.iter().all(|o| o.connect_time() == Some(RTT)),
        "{later:?}"
    );
    // The client closes first on HTTP/1.1.
    let fins = serial.sent(|s| s.seg.is_fin());
    assert!(fins[0].to_server, "{fins:?}");
}

/// The server's SYN|ACK is lost: the client's SYN and the server's SYN|ACK are both sent again
/// at their initial RTO, so the handshake costs the same wait as a lost SYN, within a round trip.
#[test]
fn a_lost_syn_ack_costs_the_initial_rto_too() {
    for (preset, rto) in [
        (HostPreset::Bsdos21, 6 * SEC),
        (HostPreset::Freebsd22, 3 * SEC),
    ] {
        let net = one_exchange(
            preset,
            SMALL,
            drop_first(|s| !s.to_server && s.seg.is_syn()),
        );
        let o = net.pairs[0].0.objects()[0];
        let connect = o.connect_time().expect("connected");
        assert!(
            (rto..=rto + RTT).contains(&connect),
            "{}: {connect}",
            preset.name()
        );
        assert!(o.done.is_some());
        let synacks = net.sent(|s| !s.to_server && s.seg.is_syn());
        assert_eq!(synacks[1].kind, TxKind::TimeoutRetransmit, "{synacks:?}");
    }
}

/// Today's Linux: a lost SYN is sent again after RFC 6298's initial RTO of 1 s (section 2.1;
/// Linux's `TCP_TIMEOUT_INIT`), where 4.4BSD waited 6 s. Linux's timer wheel rounds the 250
/// jiffies up to its level's granularity (`kernel/time/timer.c`, `calc_wheel_index()`): 256
/// jiffies at HZ 250, 1.024 s.
#[test]
fn a_lost_syn_waits_one_second_on_linux() {
    let net = one_exchange(
        HostPreset::Linux,
        SMALL,
        drop_first(|s| s.to_server && s.seg.is_syn()),
    );
    let syns = net.sent(|s| s.to_server && s.seg.is_syn());
    assert_eq!(syns.len(), 2);
    assert_eq!(syns[1].kind, TxKind::TimeoutRetransmit);
    let wait = syns[1].at - syns[0].at;
    assert_eq!(wait, 1_024 * MS);
    let o = net.pairs[0].0.objects()[0];
    assert_eq!(o.connect_time(), Some(wait + RTT));
}

/// Today's Linux: the response's lost last segment is sent again by the tail loss probe (RFC
/// 8985 section 7.2: PTO = 2 SRTT, plus the peer's worst delayed ACK, `TCP_RTO_MIN` 200 ms, with
/// one segment in flight), not by the retransmission timer; 4.4BSD waits at least a second for
/// its timer (`a_lost_last_segment_of_a_response_waits_for_the_timeout`).
#[test]
fn a_lost_last_segment_is_probed_by_tlp_on_linux() {
    let exchange = Exchange {
        request_bytes: 300,
        response_bytes: 5_000,
    };
    let clean = one_exchange(HostPreset::Linux, exchange, keep_all());
    let end = clean.pairs[0].1.tcp().iss() + 1 + 5_000;
    let lossy = one_exchange(
        HostPreset::Linux,
        exchange,
        drop_first(move |s| !s.to_server && s.seg.len > 0 && s.seg.seq + s.seg.len == end),
    );
    let server = lossy.pairs[0].1.tcp().stats();
    assert_eq!(
        server.timeouts, 0,
        "no timeout: the probe repaired the tail"
    );
    let lost = lossy.sent(|s| s.dropped);
    assert_eq!(lost.len(), 1);
    let again = lossy
        .sent(move |s| !s.to_server && !s.dropped && s.seg.len > 0 && s.seg.seq + s.seg.len == end);
    assert_eq!(again.len(), 1, "{again:?}");
    let probe = again[0];
    assert_eq!(probe.kind, TxKind::FastRetransmit, "sent as the probe");
    // the PTO runs from the last ACK (of the segment before the lost one), which left the
    // server with the lost one: 2 SRTT + 200 ms, below BSD's 1 s minimum RTO
    let wait = probe.at - lost[0].at;
    assert!(
        (2 * RTT + 200 * MS..SEC).contains(&wait),
        "{} ms",
        wait / MS
    );
    let done = |n: &Net| n.pairs[0].0.objects()[0].done.expect("done");
    assert_eq!(done(&lossy), probe.at + DELAY);
    assert!(done(&lossy) < done(&clean) + SEC / 2);
}
