//! Tests of `host_keys.rs` and `host.rs`.
use super::*;
use crate::tcp::host_presets::*;

#[test]
fn presets_parse_and_differ() {
    for p in HostPreset::ALL {
        assert_eq!(HostPreset::parse(p.name()), Ok(p));
    }
    assert!(HostPreset::parse("solaris")
        .unwrap_err()
        .contains("unknown host 'solaris'"));
    let lite = HostPreset::Bsd44Lite.profile();
    let bsdos = HostPreset::Bsdos21.profile();
    assert_eq!(
        lite.differences(&bsdos),
        vec!["ca-increment", "reader", "header-prediction", "persist"]
    );
    let freebsd = HostPreset::Freebsd22.profile();
    assert_eq!(
        bsdos.differences(&freebsd),
        vec!["header-prediction", "deflation", "rtt-estimator"]
    );
}

/// The Linux presets: `linux` is the live `modern` profile's host (its name an alias), every
/// Linux detail on; `linux-paper` keeps SACK, timestamps and window scaling off and 4.4BSD's
/// 1 s minimum RTO, as the live `paper` profile's sysctls and route options do.
#[test]
fn the_linux_presets_are_the_live_profiles_hosts() {
    assert_eq!(HostPreset::parse("modern"), Ok(HostPreset::Linux));
    assert_eq!(HostPreset::parse("paper"), Ok(HostPreset::LinuxPaper));
    assert_eq!(
        HostPreset::parse("paper-sack"),
        Ok(HostPreset::LinuxPaperSack)
    );
    for p in HostPreset::ALL {
        assert_eq!(HostPreset::parse(p.name()), Ok(p));
        assert_eq!(p.is_bsd(), HostPreset::BSD.contains(&p));
    }
    let linux = HostPreset::Linux.profile();
    assert_eq!(linux.congestion_control, CongestionControl::Cubic);
    assert_eq!(linux.sack, SackUse::On);
    assert_eq!(linux.sack_recovery, SackRecovery::Rfc6675Prr);
    // Linux resends only what is marked lost (tcp_xmit_retransmit_queue), every Linux preset;
    // the BSD ones keep RFC 6675's NextSeg (and never read it: Fall and Floyd's recovery)
    for p in HostPreset::ALL {
        let expected = if p.is_bsd() {
            NextSeg::Rfc6675
        } else {
            NextSeg::LinuxLostOnly
        };
        assert_eq!(p.profile().next_seg, expected, "{}", p.name());
    }
    assert!(linux.window_scaling && linux.timestamps);
    assert_eq!(linux.initial_window, 10);
    assert_eq!(linux.timer_clock, TimerClock::Jiffies { hz: LINUX_HZ });
    assert_eq!(linux.delayed_ack, DelayedAck::Linux);
    assert_eq!(
        linux.rtt_estimator,
        RttEstimator::Linux {
            rto_min: crate::tcp::TCP_RTO_MIN
        }
    );
    let reno = HostPreset::LinuxReno.profile();
    assert_eq!(linux.differences(&reno), vec!["congestion-control"]);
    let paper = HostPreset::LinuxPaper.profile();
    assert_eq!(
        linux.differences(&paper),
        vec![
            "rtt-estimator",
            "window-scaling",
            "timestamps",
            "initial-window",
            "congestion-control",
            "sack",
            "rack-tlp",
            "undo",
            "dsack",
            "frto",
            "sack-compress"
        ]
    );
    assert_eq!(
        HostPreset::LinuxPaperSack.profile().differences(&paper),
        vec!["sack", "undo", "dsack", "sack-compress"]
    );
    assert_eq!(HostPreset::Linux.buffer_limit().max, MAX_LINUX_BUFFER);
    assert_eq!(HostPreset::LinuxPaper.buffer_limit().max, SB_MAX);
}

#[test]
fn linux_details_parse_and_are_off_in_every_bsd_profile() {
    for p in HostPreset::BSD {
        let h = p.profile();
        assert_eq!(h.timer_clock, TimerClock::BsdTicks);
        assert_eq!(h.initial_window, 1);
        assert!(!matches!(h.rtt_estimator, RttEstimator::Linux { .. }));
        assert_ne!(h.delayed_ack, DelayedAck::Linux);
        assert!(!h.rack_tlp);
        assert!(!h.undo);
        assert!(!h.dsack);
        assert!(!h.frto);
        assert!(!h.reno_sack_emulation);
    }
    let mut h = HostProfile::default();
    for (key, value) in [
        ("rtt-estimator", "linux"),
        ("rtt-estimator", "linux:5ms"),
        ("timer-clock", "jiffies"),
        ("timer-clock", "jiffies:250"),
        ("delayed-ack", "linux"),
        ("initial-window", "10"),
    ] {
        h.set(key, value).expect("valid");
        let text = h.get(key).expect("known key");
        let before = h;
        h.set(key, &text).expect("its own value parses");
        assert_eq!(h, before, "{key} = {value} -> {text}");
    }
    assert_eq!(
        h.rtt_estimator,
        RttEstimator::Linux {
            rto_min: 5 * crate::time::MS
        }
    );
    assert_eq!(h.timer_clock, TimerClock::Jiffies { hz: 250 });
    assert!(h.set("timer-clock", "jiffies:123").is_err());
    assert!(h.set("initial-window", "0").is_err());
    assert!(h.set("rtt-estimator", "linux:-1ms").is_err());
}

#[test]
fn every_key_round_trips() {
    let mut p = HostProfile::default();
    for key in HostProfile::KEYS {
        let v = p.get(key).expect("known key");
        p.set(key, &v).expect("its own value parses");
        assert_eq!(p.get(key), Some(v));
    }
    assert!(p
        .set("nagle", "on")
        .unwrap_err()
        .contains("unknown host detail 'nagle'"));
    assert!(p
        .set("reader", "lazy")
        .unwrap_err()
        .contains("instant or process"));
    assert!(p.set("read-size", "0").is_err());
    assert!(p.set("read-delay", "-1ms").is_err());
    p.set("read-delay", "1.5ms").unwrap();
    assert_eq!(p.read_delay, 1_500_000);
}
