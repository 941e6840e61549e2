//! Scripted tests of the split relay (paper 000 section III-C).

use super::split::{SplitAgent, SplitConfig};
use super::{Agent, Port, Transmit};
use crate::tcp::{RecoveryPolicy, State, Tcp, TcpConfig};
use crate::test_support::{Pkt, FH, MH};
use crate::time::MS;

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
            bs.on_packet(now, Port::Wired, Pkt(Some(s)));
        }
        if fh.poll_timeout().is_some_and(|t| t <= now) {
            fh.on_timeout(now);
        }
        if bs.poll_timeout().is_some_and(|t| t <= now) {
            bs.on_timeout(now);
        }
        let out: Vec<Transmit<Pkt>> = std::iter::from_fn(|| bs.poll_transmit(now)).collect();
        for t in out {
            let Some(seg) = t.packet.0 else {
                continue;
            };
            match t.port {
                Port::Wired => {
                    wired_windows.push(seg.window);
                    fh.on_segment(now, &seg);
                }
                Port::Wireless if mh_alive => mh.on_segment(now, &seg),
                Port::Wireless => {}
            }
        }
        while let Some((s, _)) = mh.poll_transmit() {
            if mh_alive {
                bs.on_packet(now, Port::Wireless, Pkt(Some(s)));
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
