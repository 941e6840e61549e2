//! Calibration points of docs/model.md: error-free bulk TCP must reach the papers' peak rates.

use snooplab_sim::{run, Env, Protocol, Scenario};

fn error_free(env: Env, buffer: u32, mss: u32) -> f64 {
    let mut sc = Scenario::paper000(Protocol::E2e, env, buffer, 1);
    sc.error_every = 0;
    sc.mss = mss;
    let r = run(&sc);
    assert!(r.invariants.ok(), "{}", r.invariants.summary());
    assert_eq!(r.flow().timeouts, 0);
    assert_eq!(r.flow().sender_retransmitted_segments, 0);
    assert_eq!(r.flow().wireless_goodput_pct, Some(100.0));
    r.flow().throughput_mbps
}

#[test]
fn lan_32k_peaks_at_1_50() {
    let t = error_free(Env::Lan, 32768, 1400);
    assert!((t - 1.50).abs() <= 0.03, "LAN 32k: {t}");
}

#[test]
fn wan_32k_peaks_at_1_35() {
    let t = error_free(Env::Wan, 32768, 1400);
    assert!((t - 1.35).abs() <= 0.03, "WAN 32k: {t}");
}

#[test]
fn paper002_setting_reaches_about_1_6() {
    // LAN, 64 KB window, 1460-byte segments: paper 002 reports 1.6 Mb/s on its own (older) testbed.
    // The MAC overhead is fitted to paper 000's 1.50, which leaves this point about 5% low.
    let t = error_free(Env::Lan, 65536, 1460);
    assert!((1.45..=1.65).contains(&t), "paper 002 setting: {t}");
}
