//! Mixed networks (docs/live.md, "Mixed networks"): a modelled host (`stack = "model"`, the
//! engine's TCP on the real clock, putting the transfer's real bytes on the wire) and a kernel
//! host in a namespace carry one flow between them. These need root, /dev/net/tun and
//! `ip netns`: they are `#[ignore]`d (scripts/test-all includes them where those exist) and fail,
//! naming what is missing, when run without them.

use snooplab_live::network_report::NetworkResult;
use snooplab_live::network_run::{run_network, LiveNetwork, NetworkConfig};
use snooplab_live::testbed::require_live;
use snooplab_proto::time::SEC;
use snooplab_sim::Scenario;

/// One cell: `fh` on the wired side, `mh` in the cell, the flow `from` to the other, the
/// stacks as given.
fn run(protocol: &str, from: &str, stacks: (&str, &str), host: &str) -> NetworkResult {
    let to = if from == "fh" { "mh" } else { "fh" };
    let text = format!(
        "protocol = \"{protocol}\"\nmss = 1400\nbuffer = \"32k\"\ntransfer = \"512k\"\n\
         error-every = \"16k\"\nhost = \"{host}\"\nseed = 2\n\
         [[node]]\nname = \"fh\"\nstack = \"{}\"\n\
         [[node]]\nname = \"bs\"\nkind = \"base-station\"\n\
         [[node]]\nname = \"mh\"\nstack = \"{}\"\n\
         [[link]]\nbetween = [\"fh\", \"bs\"]\nenv = \"lan\"\n\
         [[cell]]\nbase-station = \"bs\"\nstations = [\"mh\"]\n\
         [[flow]]\nfrom = \"{from}\"\nto = \"{to}\"\n",
        stacks.0, stacks.1
    );
    let sc = Scenario::from_toml(&text).unwrap_or_else(|e| panic!("{e}"));
    let cfg = NetworkConfig::paper(sc, 120 * SEC);
    let live = LiveNetwork::check(cfg).unwrap_or_else(|e| panic!("{e}"));
    run_network(&live, None, &mut |_| {}).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
#[ignore = "live: needs root, /dev/net/tun and ip netns (scripts/test-all runs it where they exist)"]
fn a_modelled_bsdos_eln_mobile_sender_reaches_a_kernel_receiver_through_the_eln_base_station() {
    require_live(
        "a_modelled_bsdos_eln_mobile_sender_reaches_a_kernel_receiver_through_the_eln_base_station",
    );
    // paper 004's Reno+ELN: the base station marks the kernel's duplicate ACKs (rebuilt real
    // packets, the mark in a reserved header bit) and the modelled sender resends on them
    let r = run("bs-eln", "mh", ("kernel", "model"), "bsdos-2.1");
    let (f, l) = (&r.run.flows[0], &r.live.flows[0]);
    assert!(l.integrity_ok, "{l:?}");
    assert_eq!((l.sender, l.receiver), ("model", "kernel"));
    assert!(f.invariants.complete, "{:?}", f.invariants);
    assert_eq!(f.host, "bsdos-2.1");
    assert!(
        r.run.cells[0].frames_corrupted_up > 0,
        "{:?}",
        r.run.cells[0]
    );
    assert!(
        f.eln_retransmits > 0,
        "the sender resent on ELN-marked ACKs: {f:?}"
    );
}

#[test]
#[ignore = "live: needs root, /dev/net/tun and ip netns (scripts/test-all runs it where they exist)"]
fn a_kernel_sender_reaches_a_modelled_smart_receiver_through_ll_smart_tcp_aware() {
    require_live("a_kernel_sender_reaches_a_modelled_smart_receiver_through_ll_smart_tcp_aware");
    // the modelled receiver's ACKs carry SMART information (a TCP option in real bytes), which
    // the base station reads to resend from its cache of the kernel's real packets
    let r = run("ll-smart-tcp-aware", "fh", ("kernel", "model"), "bsdos-2.1");
    let (f, l) = (&r.run.flows[0], &r.live.flows[0]);
    assert!(l.integrity_ok, "{l:?}");
    assert_eq!((l.sender, l.receiver), ("kernel", "model"));
    assert!(f.invariants.complete, "{:?}", f.invariants);
    assert_eq!(f.invariants.payload_mismatches, 0);
    assert!(f.throughput_mbps > 0.5, "{}", f.throughput_mbps);
    let cell = &r.run.cells[0];
    assert!(cell.frames_corrupted_down > 0, "{cell:?}");
    assert!(
        r.run.agent_total("local_retransmissions") > 0,
        "{:?}",
        r.run.agents
    );
}

#[test]
#[ignore = "live: needs root, /dev/net/tun and ip netns (scripts/test-all runs it where they exist)"]
fn split_smart_relays_a_kernel_senders_bytes_to_a_modelled_smart_receiver() {
    require_live("split_smart_relays_a_kernel_senders_bytes_to_a_modelled_smart_receiver");
    // SPLIT-SMART's wireless sender needs the SMART information a Linux receiver never sends;
    // a modelled receiver sends it, and checks every byte the relay carried from the kernel
    let r = run("split-smart", "fh", ("kernel", "model"), "bsdos-2.1");
    let (f, l) = (&r.run.flows[0], &r.live.flows[0]);
    assert!(l.integrity_ok, "{l:?}");
    assert_eq!(f.invariants.payload_mismatches, 0);
    assert!(f.invariants.complete, "{:?}", f.invariants);
    let relay = f.relay.as_ref().expect("the relay sender's counters");
    assert!(
        relay.fast_retransmits > 0,
        "the SMART sender resent on SMART information: {relay:?}"
    );
}
