//! Scripted tests of a split base station's part in a split handoff (`split_handover.rs`): which
//! connections one mobile host's state takes, what the old base station does with their late
//! segments, and what the new one does at its memory bound.

use super::split::{store_bound, SplitAgent, SplitConfig};
use super::{Agent, Handover, Port, Transmit};
use crate::segment::{Endpoint, Flags, Segment};
use crate::tcp::RecoveryPolicy;
use crate::test_support::{mobile_host, segment, wired_host, Pkt};
use crate::time::MS;

const MSS: u32 = 1000;

fn fixed(port: u16) -> Endpoint {
    wired_host(port)
}

fn mobile(k: u32) -> Endpoint {
    mobile_host(k, 5001)
}

fn agent(relays: u64) -> SplitAgent<Pkt> {
    let mut cfg = SplitConfig::paper000(MSS, RecoveryPolicy::RENO);
    cfg.max_memory = relays * store_bound(&cfg);
    SplitAgent::new(cfg)
}

/// A SYN from the fixed host's `port` to `to`.
fn syn(port: u16, to: Endpoint) -> Pkt {
    Pkt(Some(segment(fixed(port), to, 100, 0, Flags::SYN, 0)))
}

/// A data segment from the fixed host's `port` to `to`, in the middle of its connection.
fn data(port: u16, to: Endpoint) -> Pkt {
    Pkt(Some(segment(fixed(port), to, 5001, 1, Flags::ACK, MSS)))
}

fn drain(a: &mut SplitAgent<Pkt>) -> Vec<Transmit<Pkt>> {
    std::iter::from_fn(|| a.poll_transmit(0)).collect()
}

fn resets(out: &[Transmit<Pkt>]) -> usize {
    out.iter()
        .filter_map(|t| t.packet.0)
        .filter(|s: &Segment| s.flags.contains(Flags::RST))
        .count()
}

/// The state of one mobile host takes its relays, the connections forwarded end to end at the
/// bound, and nothing of another host's; the old base station passes a late segment of a handed
/// over connection on untouched (where a connection it never knew gets a reset), and the new one
/// passes the forwarded connection's segments as the old one did.
#[test]
fn a_mobile_hosts_state_takes_its_connections_only_and_the_old_base_station_passes_stragglers() {
    let (mh1, mh2) = (mobile(2), mobile(3));
    // room for two relays: mobile host 1's third connection goes end to end
    let mut old = agent(2);
    old.on_packet(0, Port::Wired, syn(1000, mh1));
    old.on_packet(0, Port::Wired, syn(1001, mh2));
    old.on_packet(0, Port::Wired, syn(1002, mh1));
    drain(&mut old);
    assert_eq!((old.relay_count(), old.stats().unsplit), (2, 1));

    let state = old.hand_over(MS, mh1.addr).expect("a state, even empty");
    assert_eq!((state.mobile(), state.relays()), (mh1.addr, 1));
    assert_eq!(old.relay_count(), 1, "mobile host 2's relay stays");
    // a late segment of the handed-over connection passes as it came
    old.on_packet(2 * MS, Port::Wired, data(1000, mh1));
    let out = drain(&mut old);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].port, Port::Wireless);
    assert_eq!(out[0].packet, data(1000, mh1));
    // one of a connection never seen here is answered with a reset, as before
    old.on_packet(2 * MS, Port::Wired, data(1003, mh1));
    assert_eq!(resets(&drain(&mut old)), 1);

    let mut new = agent(2);
    new.take_over(3 * MS, state);
    assert_eq!(new.relay_count(), 1);
    assert_eq!(new.stats().relays_taken_over, 1);
    // the connection forwarded end to end at the old base station is forwarded here too
    new.on_packet(4 * MS, Port::Wired, data(1002, mh1));
    let out = drain(&mut new);
    assert_eq!(resets(&out), 0);
    assert_eq!(out.first().map(|t| &t.packet), Some(&data(1002, mh1)));

    // back to the old base station: its relay there again, no longer passed untouched
    let back = new.hand_over(5 * MS, mh1.addr).expect("the state");
    old.take_over(6 * MS, back);
    assert_eq!(old.relay_count(), 2);
    old.on_packet(7 * MS, Port::Wired, data(1000, mh1));
    let out = drain(&mut old);
    assert!(
        out.iter().all(|t| t.packet != data(1000, mh1)),
        "the relay takes it"
    );
    let s = old.stats();
    assert_eq!((s.relays_handed_over, s.relays_taken_over), (1, 1));
}

/// A base station at its memory bound takes a handed-over relay all the same (its bytes are
/// acknowledged already) and counts it; a new connection there then goes end to end.
#[test]
fn a_relay_taken_over_at_the_bound_is_kept_and_counted() {
    let (mh1, mh2) = (mobile(2), mobile(3));
    let mut old = agent(1);
    old.on_packet(0, Port::Wired, syn(1000, mh1));
    let mut new = agent(1);
    new.on_packet(0, Port::Wired, syn(1001, mh2));
    let state = old.hand_over(MS, mh1.addr).expect("the state");
    new.take_over(2 * MS, state);
    assert_eq!(new.relay_count(), 2, "both kept");
    let s = new.stats();
    assert_eq!((s.relays_taken_over, s.relays_over_bound), (1, 1));
    assert_eq!(s.relays_most, 2);
    new.on_packet(3 * MS, Port::Wired, syn(1002, mh2));
    assert_eq!(new.relay_count(), 2);
    assert_eq!(new.stats().unsplit, 1, "a new connection beyond the bound");
}
