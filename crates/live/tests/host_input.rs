//! Where the kernel hosts take in their packets (`host_input.rs`): steered to the other cores
//! where nothing waits for their answers, inline where a half-duplex cell does, or when asked;
//! the engine's thread pinned for the run only. Live: needs root, /dev/net/tun and `ip netns`
//! (`#[ignore]`d; scripts/test-all includes them where those exist).

use snooplab_live::host_input::{HostInput, HostInputReport};
use snooplab_live::link_config::LinkConfig;
use snooplab_live::testbed::require_live;
use snooplab_live::{CongestionControl, LinuxProfile, LiveConfig, NetworkResult};
use snooplab_proto::time::SEC;
use snooplab_sim::medium::WavelanParams;
use snooplab_sim::{Env, Protocol};

/// The CPUs this thread may run on.
fn my_cpus() -> Vec<usize> {
    // SAFETY: a zeroed cpu_set_t is an empty set; sched_getaffinity fills the struct it is given.
    let set = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        assert_eq!(
            libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set),
            0
        );
        set
    };
    (0..8 * std::mem::size_of::<libc::cpu_set_t>())
        .filter(|&c| unsafe { libc::CPU_ISSET(c, &set) })
        .collect()
}

/// How often a CPU was woken to take packets RPS steered to its backlog, over all CPUs: the
/// tenth column of `/proc/net/softnet_stat` (`received_rps`, `net/core/net-procfs.c`).
fn received_rps() -> u64 {
    let s = std::fs::read_to_string("/proc/net/softnet_stat").unwrap_or_default();
    s.lines()
        .filter_map(|l| l.split_whitespace().nth(9))
        .filter_map(|c| u64::from_str_radix(c, 16).ok())
        .sum()
}

/// A 4 MB transfer of the modern profile: with the emulator off (`--env off`: a wire and a
/// full-duplex cell) or on the LAN preset (a half-duplex WaveLAN cell).
fn config(env_off: bool, host_input: HostInput) -> LiveConfig {
    LiveConfig {
        protocol: Protocol::E2e,
        env_name: if env_off { "off" } else { "lan" }.into(),
        link: (!env_off).then(|| LinkConfig {
            wired: Env::Lan.wired(),
            wavelan: WavelanParams::default(),
            error_every: 0,
            burst: 1,
            down: None,
            up: None,
            seed: 1,
        }),
        profile: LinuxProfile::Modern,
        cc: CongestionControl::Cubic,
        rto_min_ms: None,
        buffer: 1 << 20,
        mss: 1460,
        transfer: if env_off { 4 << 20 } else { 256 << 10 },
        seed: 1,
        max_time: 120 * SEC,
        pcap: None,
        host_input,
    }
}

/// Runs `cfg` and checks that the bytes arrived intact and this thread's CPUs are as before.
fn run(cfg: &LiveConfig) -> NetworkResult {
    let before = my_cpus();
    let r = snooplab_live::run(cfg, &mut |_| {}).unwrap_or_else(|e| panic!("{e}"));
    assert!(r.intact(), "bytes not intact");
    assert_eq!(
        my_cpus(),
        before,
        "the engine's thread did not get its CPUs back"
    );
    r
}

fn input_of<'a>(h: &'a HostInputReport, host: &str) -> (&'a str, Option<&'a str>) {
    let of = h
        .hosts
        .iter()
        .find(|o| o.host == host)
        .unwrap_or_else(|| panic!("no host {host} in {h:?}"));
    (of.input, of.why.as_deref())
}

#[test]
#[ignore = "live: needs root, /dev/net/tun and ip netns (scripts/test-all runs it where they exist)"]
fn hosts_nothing_waits_on_are_steered_to_the_other_cores_and_the_engine_gets_its_cpus_back() {
    require_live(
        "hosts_nothing_waits_on_are_steered_to_the_other_cores_and_the_engine_gets_its_cpus_back",
    );
    let cpus = my_cpus();
    let rps_before = received_rps();
    let r = run(&config(true, HostInput::Auto));
    let rps_steered = received_rps() - rps_before;
    let h = &r.live.host_input;
    assert_eq!(h.mode, "auto");
    if cpus.len() < 2 {
        // nowhere else to take the input: every host inline, saying why
        for host in ["fh", "mh"] {
            let (input, why) = input_of(h, host);
            assert_eq!(input, "inline");
            assert!(why.is_some_and(|w| w.contains("one CPU")), "{why:?}");
        }
        assert_eq!(h.engine_cpu, None);
        return;
    }
    // --env off: a wire and a full-duplex cell, nothing waits for an answer
    assert_eq!(input_of(h, "fh"), ("steered", None));
    assert_eq!(input_of(h, "mh"), ("steered", None));
    let engine = h.engine_cpu.expect("the engine's thread pinned");
    assert!(cpus.contains(&engine));
    let others: Vec<usize> = cpus.iter().copied().filter(|&c| c != engine).collect();
    assert_eq!(h.input_cpus, others, "the input goes to every other CPU");
    // the kernel did steer them: another CPU was woken for the packets written (a batch a
    // wake-up; nothing on this machine steers otherwise, and the inline run below adds none)
    assert!(rps_steered > 0, "no packet steered by RPS");

    // asked inline: none steered, nothing pinned
    let rps_before = received_rps();
    let r = run(&config(true, HostInput::Inline));
    let rps_inline = received_rps() - rps_before;
    assert!(
        rps_inline < rps_steered,
        "{rps_inline} wake-ups for steered packets inline, {rps_steered} steered"
    );
    let h = &r.live.host_input;
    assert_eq!(h.mode, "inline");
    assert_eq!(h.engine_cpu, None);
    assert!(h.input_cpus.is_empty());
    for host in ["fh", "mh"] {
        assert_eq!(input_of(h, host), ("inline", Some("--host-input inline")));
    }
}

#[test]
#[ignore = "live: needs root, /dev/net/tun and ip netns (scripts/test-all runs it where they exist)"]
fn a_run_with_a_half_duplex_cell_takes_every_hosts_input_in_the_engines_write_call() {
    require_live("a_run_with_a_half_duplex_cell_takes_every_hosts_input_in_the_engines_write_call");
    if my_cpus().len() < 2 {
        eprintln!("one CPU here: no host is steered, nothing to tell apart");
        return;
    }
    // the LAN preset: the mobile host is a station of a WaveLAN cell (turn taking), whose next
    // pick waits for its answer; the fixed host is on a wire, in the same run
    let r = run(&config(false, HostInput::Auto));
    let h = &r.live.host_input;
    let (input, why) = input_of(h, "mh");
    assert_eq!(input, "inline");
    assert!(
        why.is_some_and(|w| w.starts_with("its cell waits for its answers")),
        "{why:?}"
    );
    let (input, why) = input_of(h, "fh");
    assert_eq!(input, "inline");
    assert!(
        why.is_some_and(|w| w.starts_with("another host's cell waits")),
        "{why:?}"
    );
    assert_eq!(h.engine_cpu, None, "nothing steered, nothing pinned");
}
