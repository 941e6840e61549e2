//! Scripted tests of the requests of a hard handoff (`Scheme::Hard`, the Mobile IP baseline): the
//! `Leave` to a base station the mobile host no longer hears goes once ("unheard requests go
//! once", `MobileHandoff::request`), and a lost `Leave` still leaves the old base station with
//! nothing to forward, since the new one's `Register` moves the home agent's tunnel.

use super::{data, data_sent, drain, tunnelled, BS1, BS2, HA, P};
use crate::agent::handoff::messages::Request;
use crate::agent::handoff::{
    HandoffAgent, HandoffConfig, HomeAgent, MobileConfig, MobileHandoff, Mobility, MobilityPacket,
    Scheme, Trigger,
};
use crate::agent::{Agent, Port, Router};
use crate::test_support::MH;
use crate::time::{Time, MS, SEC};

/// A mobile host between BS1 (its primary at the start) and BS2, handing off every second.
fn mobile(scheme: Scheme) -> MobileHandoff {
    let cfg = MobileConfig {
        scheme,
        ..MobileConfig::paper002(MH.addr, vec![BS1, BS2], Trigger::Every(SEC))
    };
    MobileHandoff::new(cfg).unwrap_or_else(|| panic!("two base stations"))
}

fn sent(m: &mut MobileHandoff) -> Vec<(u32, Mobility)> {
    std::iter::from_fn(|| m.poll_transmit()).collect()
}

fn confirm(m: &mut MobileHandoff, now: Time, bs: u32, request: Request) {
    let msg = Mobility::Confirm {
        mh: MH.addr,
        request,
    };
    m.on_message(now, bs, &msg, 0.0);
}

#[test]
fn after_a_hard_handoff_the_leave_goes_once_and_the_forward_until_confirmed() {
    let mut m = mobile(Scheme::Hard);
    m.on_timeout(SEC);
    let first = sent(&mut m);
    assert_eq!(first.len(), 2);
    assert_eq!(first[1], (BS1, Mobility::Leave { mh: MH.addr }));
    assert!(!m.hears(BS1), "the host has left BS1's cell");
    // neither confirmation came: the Forward goes again, the Leave does not
    assert_eq!(m.poll_timeout(), Some(SEC + 100 * MS));
    m.on_timeout(SEC + 100 * MS);
    let again = sent(&mut m);
    assert_eq!(again.len(), 1, "{again:?}");
    assert_eq!(again[0].0, BS2);
    confirm(&mut m, SEC + 150 * MS, BS2, Request::Forward);
    // nothing is awaited any more: the next thing due is the next handoff
    assert_eq!(m.poll_timeout(), Some(2 * SEC));
    for k in 2..10 {
        m.on_timeout(SEC + k * 100 * MS);
    }
    assert!(sent(&mut m).is_empty());
    assert_eq!(m.resent_requests, 1);
}

#[test]
fn under_the_multicast_scheme_the_buffer_request_is_still_awaited() {
    // the host hears every base station of its group, so the old one's confirmation can come
    let mut m = mobile(Scheme::Multicast);
    m.on_timeout(SEC);
    sent(&mut m);
    confirm(&mut m, SEC + MS, BS2, Request::Forward);
    m.on_timeout(SEC + 100 * MS);
    assert_eq!(sent(&mut m), vec![(BS1, Mobility::Buffer { mh: MH.addr })]);
    confirm(&mut m, SEC + 110 * MS, BS1, Request::Buffer);
    assert_eq!(m.poll_timeout(), Some(2 * SEC));
}

/// A base station of the hard scheme, forwarding for the mobile host at the start or not.
fn hard_bs(addr: u32, primary: bool) -> HandoffAgent<P> {
    let cfg = HandoffConfig {
        beacon_interval: None,
        scheme: Scheme::Hard,
        ..HandoffConfig::paper002(addr, HA, 0)
    };
    let primary_for: &[u32] = if primary { &[MH.addr] } else { &[] };
    HandoffAgent::new(cfg, Box::new(Router::default()), primary_for, &[])
}

#[test]
fn a_lost_leave_leaves_the_old_base_station_nothing_to_forward() {
    let mut ha: HomeAgent<P> = HomeAgent::new(HA, [(MH.addr, vec![BS1])]);
    let (mut bs1, mut bs2) = (hard_bs(BS1, true), hard_bs(BS2, false));
    let mut m = mobile(Scheme::Hard);
    m.on_timeout(SEC);
    // the Forward reaches BS2; the Leave to BS1 is lost
    let (to, forward) = sent(&mut m)[0];
    assert_eq!(to, BS2);
    bs2.on_packet(SEC, Port::Wireless, P::control(MH.addr, BS2, forward));
    let out = drain(&mut bs2);
    let register = out
        .iter()
        .find(|t| t.port == Port::Wired)
        .unwrap_or_else(|| panic!("no registration: {out:?}"));
    assert_eq!(
        register.packet.mobility(),
        Some(&Mobility::Register {
            mh: MH.addr,
            bs: BS2
        })
    );
    ha.on_packet(SEC + MS, Port::Wired, register.packet.clone());
    // the home agent tunnels to BS2 alone: BS1 gets nothing new and forwards nothing
    ha.on_packet(SEC + 2 * MS, Port::Wired, data(7));
    let tunnelled_to: Vec<_> = drain(&mut ha)
        .iter()
        .filter_map(|t| t.packet.tunnel().map(|t| t.dst))
        .collect();
    assert_eq!(tunnelled_to, vec![BS2]);
    bs2.on_packet(SEC + 3 * MS, Port::Wired, tunnelled(7, BS2));
    assert_eq!(data_sent(&drain(&mut bs2)), vec![7]);
    assert!(drain(&mut bs1).is_empty());
    // BS1's entry for the host is stale (it still counts itself primary) and costs no airtime;
    // the host does not ask it again
    assert!(bs1.is_primary(MH.addr));
    confirm(&mut m, SEC + 4 * MS, BS2, Request::Forward);
    for k in 1..10 {
        m.on_timeout(SEC + k * 100 * MS);
    }
    assert!(sent(&mut m).is_empty());
}
