//! Scripted tests of the split relay (paper 000 section III-C).

use super::split::{SplitAgent, SplitConfig};
use super::{Agent, Port, SegmentView, Transmit};
use crate::agent::snoop::BuildPacket;
use crate::segment::{Endpoint, Segment};
use crate::tcp::{RecoveryPolicy, State, Tcp, TcpConfig};
use crate::time::MS;

const FH: Endpoint = Endpoint {
    addr: 0x0a00_0001,
    port: 20000,
};
const MH: Endpoint = Endpoint {
    addr: 0x0a00_0102,
    port: 5001,
};

#[derive(Clone, Debug)]
struct Pkt(Segment);

impl SegmentView for Pkt {
    fn segment(&self) -> Option<&Segment> {
        Some(&self.0)
    }
}

impl BuildPacket for Pkt {
    fn build(seg: &Segment, _like: &Self) -> Self {
        Pkt(*seg)
    }
}

/// Runs the fixed host, the split base station and a mobile host that never answers after the
/// handshake (as if the wireless link went dark): the relay fills and the wired window closes.
#[test]
fn full_relay_buffer_closes_the_wired_window() {
    let mss = 1000;
    let mut fh = Tcp::connect(TcpConfig::bulk_sender(mss, 32768, 1_000_000), FH, MH, 0);
    let mut cfg = SplitConfig::paper000(mss, RecoveryPolicy::RENO);
    cfg.relay_bytes = 16000;
    let mut bs: SplitAgent<Pkt> = SplitAgent::new(cfg);
    let mut mh = Tcp::listen(TcpConfig::sink(mss, 32768), MH, FH);
    let mut mh_alive = true;
    let mut wired_windows = vec![];
    for step in 0..4000 {
        let now = step * MS;
        while let Some((s, _)) = fh.poll_transmit() {
            bs.on_packet(now, Port::Wired, Pkt(s));
        }
        if fh.poll_timeout().is_some_and(|t| t <= now) {
            fh.on_timeout(now);
        }
        if bs.poll_timeout().is_some_and(|t| t <= now) {
            bs.on_timeout(now);
        }
        let out: Vec<Transmit<Pkt>> = std::iter::from_fn(|| bs.poll_transmit(now)).collect();
        for t in out {
            match t.port {
                Port::Wired => {
                    wired_windows.push(t.packet.0.window);
                    fh.on_segment(now, &t.packet.0);
                }
                Port::Wireless if mh_alive => mh.on_segment(now, &t.packet.0),
                Port::Wireless => {}
            }
        }
        while let Some((s, _)) = mh.poll_transmit() {
            if mh_alive {
                bs.on_packet(now, Port::Wireless, Pkt(s));
            }
        }
        if mh.state() == State::Established && mh.stats().bytes_delivered > 0 {
            mh_alive = false; // the wireless link goes dark after the first data
        }
    }
    assert!(wired_windows.contains(&0), "the wired window closed");
    assert!(
        bs.max_relay_bytes() <= 16000 + u64::from(mss),
        "relay {} bytes",
        bs.max_relay_bytes()
    );
    // the fixed host was told about bytes the mobile host never got: split semantics
    assert!(fh.snd_una().since(fh.iss() + 1) > 10_000);
    assert!(mh.stats().bytes_delivered <= 2 * u64::from(mss));
}
