//! The multicast handoff (paper 002 sections 4-6): a handoff base station (around snoop, a plain
//! router or a split agent, any of the four schemes) and the home agent, fed arbitrary TCP
//! segments, tunnelled packets and handoff messages with arbitrary timing, and for the split
//! scheme a mobile host's connection state (its relays) moved out and back in. Asserts no panic, every TCP segment sent one that goes on the wire as
//! it is (or one it was given), every message of the size it says, and timers that move on.
#![no_main]

use libfuzzer_sys::arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use snooplab_fuzz::{check_sim_packet, drive_agent, sim_packet, Drive, SimPacket};
use snooplab_proto::agent::handoff::{
    HandoffAgent, HandoffConfig, HomeAgent, Mobility, MobilityPacket, Request, Scheme, Tunnel,
    BROADCAST,
};
use snooplab_proto::agent::{
    Agent, HandedOver, Router, SnoopAgent, SnoopConfig, SplitAgent, SplitConfig,
};
use snooplab_proto::tcp::RecoveryPolicy;
use snooplab_proto::time::MS;
use snooplab_proto::Segment;

const BS: u32 = 0x0a00_0201;
const OTHER_BS: u32 = 0x0a00_0202;
const HA: u32 = 0x0a00_0003;
const MHS: [u32; 2] = [0x0a00_0102, 0x0a00_0103];
const ADDRS: [u32; 8] = [BS, OTHER_BS, HA, MHS[0], MHS[1], BROADCAST, 0x0a00_0001, 0];

fn addr(u: &mut Unstructured) -> u32 {
    let i: u8 = u.arbitrary().unwrap_or(0);
    match ADDRS.get(usize::from(i)) {
        Some(&a) => a,
        None => u.arbitrary().unwrap_or(0),
    }
}

fn message(u: &mut Unstructured) -> Mobility {
    let kind: u8 = u.arbitrary().unwrap_or(0);
    let mh = addr(u);
    match kind % 8 {
        0 => Mobility::Beacon {
            bs: addr(u),
            sent: u.arbitrary().unwrap_or(0),
            seq: u.arbitrary().unwrap_or(0),
        },
        1 => Mobility::Forward {
            mh,
            last_ids: u.arbitrary().unwrap_or([0; 3]),
            count: u.arbitrary().unwrap_or(0),
        },
        2 => Mobility::Buffer { mh },
        3 => Mobility::Leave { mh },
        4 => Mobility::Confirm {
            mh,
            request: [Request::Forward, Request::Buffer, Request::Leave]
                [usize::from(kind >> 3) % 3],
        },
        5 => Mobility::Join { mh, bs: addr(u) },
        6 => Mobility::Prune { mh, bs: addr(u) },
        _ => Mobility::Register { mh, bs: addr(u) },
    }
}

fn packet(u: &mut Unstructured) -> Option<SimPacket> {
    let k: u8 = u.arbitrary().unwrap_or(0);
    match k % 4 {
        0 => {
            let (src, dst) = (addr(u), addr(u));
            Some(SimPacket::control(src, dst, message(u)))
        }
        1 => {
            let (src, dst) = (addr(u), addr(u));
            Some(sim_packet(u)?.encapsulate(Tunnel { src, dst }))
        }
        _ => sim_packet(u),
    }
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let sel: u8 = u.arbitrary().unwrap_or(0);
    let mut agent: Box<dyn Agent<SimPacket>> = if sel & 0x80 != 0 {
        Box::new(HomeAgent::<SimPacket>::new(
            HA,
            [(MHS[0], vec![BS]), (MHS[1], vec![BS, OTHER_BS])],
        ))
    } else {
        let scheme = Scheme::ALL[usize::from(sel) % 4];
        let mut cfg = HandoffConfig::paper002(BS, HA, u64::from(sel >> 2) * 37 * MS);
        cfg.scheme = scheme;
        if sel & 0x20 != 0 {
            cfg.ring = 2;
        }
        let inner: Box<dyn Agent<SimPacket>> = match (sel & 0x40 != 0, sel & 0x08 != 0) {
            (true, _) => Box::new(SnoopAgent::<SimPacket>::new(SnoopConfig::paper002())),
            (false, true) => Box::new(SplitAgent::<SimPacket>::new(SplitConfig::paper000(
                1460,
                RecoveryPolicy::RENO,
            ))),
            (false, false) => Box::new(Router::default()),
        };
        let primary: &[u32] = if sel & 0x10 != 0 { &MHS[..1] } else { &[] };
        Box::new(HandoffAgent::new(cfg, inner, primary, &MHS[1..]))
    };
    let given = std::cell::RefCell::new(Vec::<Segment>::new());
    let mut moved: Option<HandedOver<SimPacket>> = None;
    drive_agent(
        agent.as_mut(),
        &mut u,
        Drive {
            packet: &mut |u| {
                let p = packet(u)?;
                given.borrow_mut().push(p.seg);
                Some(p)
            },
            check: &mut |t| check_sim_packet(&t.packet, &given.borrow(), "handoff"),
            after: &mut |_| {},
            extra: Some(&mut |a, u, now| {
                let mh = MHS[usize::from(u.arbitrary::<u8>().unwrap_or(0) & 1)];
                if let Some(h) = a.handover() {
                    match moved.take() {
                        Some(state) => h.take_over(now, state),
                        None => moved = h.hand_over(now, mh),
                    }
                }
            }),
        },
    );
    let _ = agent.counters();
});
