//! Scripted tests of the stall record (`stalls.rs`): one HTTP/1.0 exchange between a client's
//! and a server's connections (each in its own host's `AppConns`) on a wire of 50 ms each way
//! that drops the server's segments a test names; each checks where the server's timeout fell
//! and that its wait starts when the server's TCP last set its timer.

use snooplab_proto::app::{Client, Closer, Exchange, Server};
use snooplab_proto::tcp::TcpConfig;
use snooplab_proto::time::MS;
use snooplab_proto::{Endpoint, Segment, Time};

use super::apps::AppConns;
use super::stalls::{Stall, StallPhase};

const CLIENT: Endpoint = Endpoint {
    addr: 0x0a00_0002,
    port: 1024,
};
const SERVER: Endpoint = Endpoint {
    addr: 0x0a00_0001,
    port: 80,
};
const ONE_WAY: Time = 50 * MS;
const MSS: u32 = 1000;

/// What the exchange gave: the stalls at each end, and when each segment reached the server.
struct Outcome {
    client: Vec<Stall>,
    server: Vec<Stall>,
    at_server: Vec<Time>,
}

/// Fetches one object of `response` bytes; `drop(k, seg)` drops the `k`-th segment the server
/// sends (from 0), the SYN|ACK and retransmissions included.
fn exchange(response: u64, drop: impl Fn(usize, &Segment) -> bool) -> Outcome {
    let cfg = TcpConfig::relay(MSS, 8192, 8192);
    let ex = Exchange {
        request_bytes: 100,
        response_bytes: response,
    };
    let (mut client, mut server) = (AppConns::default(), AppConns::default());
    client.push_client(
        0,
        Client::open(cfg.clone(), CLIENT, SERVER, 0, Closer::Server, false),
    );
    server.push_server(
        0,
        Server::listen(cfg, SERVER, CLIENT, Closer::Server, vec![ex]),
    );
    if let Some(c) = client.client_mut(0, CLIENT.port) {
        c.ask(0, ex);
        c.finish(0);
    }
    client.note_timers(0);
    let mut wire: Vec<(Time, bool, Segment)> = vec![]; // (arrival, to the server, segment)
    let (mut sent_by_server, mut at_server) = (0, vec![]);
    let mut now = 0;
    for _ in 0..10_000 {
        for (apps, to_server) in [(&mut client, true), (&mut server, false)] {
            for c in &mut apps.conns {
                while let Some((seg, _)) = c.poll_transmit() {
                    if !to_server {
                        sent_by_server += 1;
                        if drop(sent_by_server - 1, &seg) {
                            continue;
                        }
                    }
                    wire.push((now + ONE_WAY, to_server, seg));
                }
            }
        }
        let next_wire = wire.iter().map(|w| w.0).min();
        let next = [next_wire, client.poll_timeout(), server.poll_timeout()]
            .into_iter()
            .flatten()
            .min();
        let Some(t) = next else { break };
        now = t;
        if next_wire == Some(t) {
            let i = wire.iter().position(|w| w.0 == t).unwrap_or(0);
            let (_, to_server, seg) = wire.remove(i);
            let apps = if to_server { &mut server } else { &mut client };
            if to_server {
                at_server.push(now);
            }
            if let Some(k) = apps.index(&seg) {
                apps.on_segment(now, k, &seg);
            }
        } else {
            client.on_timeout(now);
            server.on_timeout(now);
        }
    }
    Outcome {
        client: client.stalls,
        server: server.stalls,
        at_server,
    }
}

/// The last segment of a three-segment response lost once: no later segment can draw a
/// duplicate ACK, so the server's timer resends it, a tail timeout; its wait started at the
/// last ACK that reached the server before it fired (which set the timer again).
#[test]
fn a_lost_last_segment_is_a_tail_timeout_timed_from_the_last_ack() {
    let o = exchange(3000, |k, seg| seg.len > 0 && k == 3);
    assert_eq!(o.server.len(), 1, "{:?}", o.server);
    let s = o.server[0];
    assert_eq!(s.phase, StallPhase::Tail);
    assert!(s.at_server);
    let last_ack = o.at_server.iter().copied().filter(|&t| t < s.fired).max();
    assert_eq!(Some(s.armed), last_ack);
    assert!(s.fired - s.armed >= 500 * MS, "{s:?}");
    assert!(o.client.is_empty());
}

/// The second of five segments lost: the ones after it draw fewer than three duplicate ACKs
/// (the window is small), so the timer resends it with more than one segment outstanding: a
/// timeout in the middle.
#[test]
fn a_lost_segment_with_more_behind_it_is_a_middle_timeout() {
    let o = exchange(5000, |k, seg| seg.len > 0 && k == 2);
    assert_eq!(o.server.len(), 1, "{:?}", o.server);
    assert_eq!(o.server[0].phase, StallPhase::Middle);
}

/// The SYN|ACK lost: the server resends it on its timer (a setup timeout timed from the SYN's
/// arrival), and the client's SYN timer too, both before the connection was established.
#[test]
fn a_lost_syn_ack_is_a_setup_timeout_at_both_ends() {
    let o = exchange(1000, |k, _| k == 0);
    assert!(!o.server.is_empty());
    let s = o.server[0];
    assert_eq!(s.phase, StallPhase::Setup);
    assert_eq!(Some(s.armed), o.at_server.first().copied());
    assert!(o
        .client
        .iter()
        .chain(&o.server)
        .all(|s| s.phase == StallPhase::Setup));
    assert!(o.client.iter().all(|s| s.armed == 0 && !s.at_server));
}
