//! End-to-end tests of paper 002's multicast handoff: every byte arrives across handoffs, the
//! handoffs happen and are confirmed, lost requests are repeated, runs are deterministic.

use snooplab_papers::paper002::testbed::Paper002;
use snooplab_proto::time::{MS, SEC};
use snooplab_sim::network::Network;
use snooplab_sim::run::run_network;
use snooplab_sim::RunResult;

fn run(p: &Paper002) -> RunResult {
    let net = p.network();
    if let Err(e) = net.validate() {
        panic!("{e}");
    }
    run_network(&net, "lan")
}

fn short(snoop: bool, error_every: u64, every: Option<u64>, seed: u64) -> Paper002 {
    let mut p = Paper002::new(snoop, error_every, every, seed);
    p.transfer = 1024 * 1024;
    p
}

#[test]
fn every_byte_arrives_across_frequent_handoffs_with_snoop_and_without() {
    for snoop in [true, false] {
        let r = run(&short(snoop, 0, Some(250 * MS), 1));
        assert!(r.invariants.ok(), "snoop {snoop}: {:?}", r.invariants);
        assert_eq!(r.aggregate.complete_flows, 1);
        let h = &r.handoffs[0];
        assert!(h.handoffs >= 10, "{} handoffs", h.handoffs);
        // the mobile host's one card sends a request behind the ACKs queued before it, and at
        // four handoffs a second the next decision replaces some requests before their
        // confirmation (the repeats and confirmations are tested below)
        assert!(
            h.confirmed * 2 >= h.handoffs,
            "{} of {} handoffs confirmed",
            h.confirmed,
            h.handoffs
        );
        assert!(h.first_packet_ms_mean > 0.0);
        // the two base stations took turns
        assert!(h.events.windows(2).all(|w| w[0].to != w[1].to));
        assert!(h.beacons > 0);
    }
}

#[test]
fn without_handoffs_the_first_base_station_forwards_throughout() {
    let r = run(&short(true, 0, None, 2));
    assert!(r.invariants.ok());
    let h = &r.handoffs[0];
    assert_eq!(h.handoffs, 0);
    assert_eq!(h.ring_sent, 0);
}

#[test]
fn lost_requests_are_repeated_and_the_transfer_completes() {
    // one bit error per 2 KB: a request or a confirmation is lost now and then
    let mut lost = 0;
    for seed in 1..=3 {
        let r = run(&short(true, 2048, Some(200 * MS), seed));
        assert!(r.invariants.ok(), "seed {seed}: {:?}", r.invariants);
        assert_eq!(r.aggregate.complete_flows, 1);
        lost += r.handoffs[0].requests_resent;
    }
    assert!(lost > 0, "no request was ever lost at this error rate");
}

#[test]
fn a_handoff_run_is_deterministic() {
    let p = short(true, 32 * 1024, Some(SEC / 2), 9);
    let a = serde_json::to_string(&run(&p)).unwrap_or_default();
    let b = serde_json::to_string(&run(&p)).unwrap_or_default();
    assert!(!a.is_empty());
    assert_eq!(a, b);
}

#[test]
fn beacons_cost_airtime_and_nothing_else() {
    let with = run(&short(true, 0, None, 4));
    let mut p = short(true, 0, None, 4);
    p.beacons = false;
    let without = run(&p);
    assert_eq!(without.handoffs[0].beacons, 0);
    assert!(with.handoffs[0].beacons > 0);
    assert!(with.flow().throughput_mbps <= without.flow().throughput_mbps);
    assert!(with.flow().throughput_mbps > 0.99 * without.flow().throughput_mbps);
}

/// The example scenario file, with `edit` applied to its text, as a validated network.
fn from_file(edit: &dyn Fn(String) -> String) -> Result<Network, String> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/paper002-handoff.toml"
    );
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let f = snooplab_sim::scenario::ScenarioFile::parse(&edit(text))?;
    let mut sc = snooplab_sim::scenario::default_scenario();
    f.apply(&mut sc)?;
    let net = sc.network();
    net.validate()?;
    Ok(net)
}

#[test]
fn handoffs_come_from_scenario_files_with_errors_that_name_the_key() {
    let net = from_file(&|t| t).unwrap_or_else(|e| panic!("{e}"));
    let h = &net.handoffs[0];
    assert_eq!(h.base_stations.len(), 2);
    assert_eq!(h.ring, 12);
    assert_eq!(
        h.trigger,
        snooplab_proto::agent::handoff::Trigger::Every(5 * SEC)
    );
    let err = |edit: &dyn Fn(String) -> String| from_file(edit).err().unwrap_or_default();
    assert!(
        err(&|t| t.replace("home-agent = \"ha\"", "home-agent = \"hq\""))
            .contains("unknown node 'hq'")
    );
    assert!(err(&|t| t.replace("every-s = 5", "trigger = \"signal\"")).contains("movement model"));
    assert!(
        err(&|t| t.replace("home-agent = \"ha\"", "home-agent = \"bs1\""))
            .contains("must be a router")
    );
    assert!(err(&|t| t.replace("every-s = 5", "every-s = 5\nbogus = 1")).contains("bogus"));
    let e = err(&|t| t.replace("every-s = 5", "every-s = 5\nold-primary-queue = \"kept\""));
    assert!(e.contains("unknown old-primary-queue 'kept'"), "{e}");
    let dropped = from_file(&|t| {
        t.replace(
            "every-s = 5",
            "every-s = 5\nold-primary-queue = \"dropped\"",
        )
    });
    assert_eq!(
        dropped.map(|n| n.handoffs[0].old_primary_queue),
        Ok(snooplab_sim::network::OldPrimaryQueue::Dropped)
    );
    assert_eq!(
        h.old_primary_queue,
        snooplab_sim::network::OldPrimaryQueue::Drains
    );
    // a host in two cells without a handoff is refused
    let e = err(&|t| {
        t.split("[[handoff]]")
            .next()
            .unwrap_or_default()
            .to_string()
    });
    assert!(e.contains("exactly one attachment"), "{e}");
    // signal-strength handoffs over the movement model: walking from bs1 to bs2 hands off once
    let signal = |t: String| {
        t.replace("every-s = 5", "trigger = \"signal\"\n[handoff.movement]\nfrom-m = 0\nto-m = 100\nspeed-mps = 10\nbase-stations-m = [0, 100]")
            .replace("transfer = \"10M\"", "transfer = \"2M\"")
    };
    let net = from_file(&signal).unwrap_or_else(|e| panic!("{e}"));
    let r = run_network(&net, "lan");
    assert!(r.invariants.ok());
    let h = &r.handoffs[0];
    // at 10 m/s bs2 is 6 dB stronger past 61 m (30 log10(61/39)), at 6.1 s; each beacon is compared
    // with the other base station's last one, up to a second old, so the handoff comes within two
    // beacon periods of that
    assert!(h.handoffs >= 1, "{h:?}");
    assert!((6.1..8.2).contains(&h.events[0].at_s), "{:?}", h.events[0]);
}

#[test]
fn a_hard_handoff_loses_the_old_cells_packets_and_caceres_iftode_resends_at_once() {
    use snooplab_proto::agent::handoff::Scheme;
    let at = |scheme, snoop| {
        let mut p = short(snoop, 0, Some(SEC / 2), 3);
        p.scheme = scheme;
        let r = run(&p);
        assert!(r.invariants.ok(), "{}: {:?}", scheme.name(), r.invariants);
        r
    };
    let multicast = at(Scheme::Multicast, false);
    let hard = at(Scheme::Hard, false);
    let fast = at(Scheme::FastRetransmit, false);
    // nothing is buffered, and what the old cell still sent never arrived: the sender resends
    assert_eq!(hard.handoffs[0].ring_sent, 0);
    // the Leave to the old base station goes once (its confirmation would go out in a cell the
    // host has left); only a Forward not yet confirmed is repeated
    for r in [&hard, &fast] {
        let h = &r.handoffs[0];
        assert!(h.requests_resent < h.handoffs, "{h:?}");
    }
    assert!(
        hard.flow().sender_retransmitted_segments
            > multicast.flow().sender_retransmitted_segments + 10
    );
    assert!(hard.flow().throughput_mbps < 0.8 * multicast.flow().throughput_mbps);
    // after each handoff three duplicate ACKs make the fixed host fast-retransmit
    assert!(
        fast.flow().fast_retransmits
            >= hard.flow().fast_retransmits + fast.handoffs[0].confirmed / 2,
        "{} fast retransmits with the scheme, {} without, {} handoffs",
        fast.flow().fast_retransmits,
        hard.flow().fast_retransmits,
        fast.handoffs[0].confirmed
    );
}

#[test]
fn a_crashed_base_station_costs_snoop_nothing_but_time_and_split_its_relayed_bytes() {
    use snooplab_sim::network::Crash;
    let crashed = |split: bool| {
        let mut p = short(!split, 0, None, 5);
        if split {
            p.agent = snooplab_sim::protocol::AgentKind::Split { smart: false };
        }
        p.transfer = 2 * 1024 * 1024;
        let mut net = p.network();
        net.crashes.push(Crash {
            node: 2, // bs1, the primary
            at: 3 * SEC,
            down_for: SEC / 2,
        });
        if let Err(e) = net.validate() {
            panic!("{e}");
        }
        run_network(&net, "lan")
    };
    let snoop = crashed(false);
    assert!(snoop.invariants.ok(), "{:?}", snoop.invariants);
    assert!(snoop.drops.crashes > 0);
    assert_eq!(snoop.invariants.split_bytes_lost, 0);
    let split = crashed(true);
    assert!(!split.invariants.complete, "the relay's bytes are gone");
    assert_eq!(split.invariants.payload_mismatches, 0);
    assert!(
        split.invariants.split_bytes_lost > 1460,
        "{} bytes lost",
        split.invariants.split_bytes_lost
    );
    assert!(
        split
            .invariants
            .messages
            .iter()
            .any(|m| m.contains("reset")),
        "{:?}",
        split.invariants.messages
    );
}

#[test]
fn handoffs_are_in_the_trace_and_read_back() {
    use snooplab_sim::observer::Observer;
    use snooplab_sim::run::Simulation;
    use snooplab_sim::trace::TraceLog;
    let net = (short(true, 0, Some(SEC), 2)).network();
    let (r, obs) =
        Simulation::observed_network(&net, "lan", Observer::default().with_trace()).run_observed();
    let trace = obs.trace.unwrap_or_default();
    assert_eq!(trace.handoffs.len() as u64, r.handoffs[0].handoffs);
    assert!(trace
        .handoffs
        .iter()
        .all(|h| h.mobile == 4 && h.from != h.to));
    let dir = std::env::temp_dir().join(format!("snooplab-handoff-trace-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    trace.write_csv(&dir).unwrap_or_else(|e| panic!("{e}"));
    let back = TraceLog::read_csv(&dir).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(back.handoffs, trace.handoffs);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn on_one_shared_channel_two_cells_never_carry_more_than_one() {
    // routers, a handoff every second: with two media the old cell's backlog drains beside the new
    // cell's traffic and the run beats one cell's capacity; on one channel it cannot
    let at = |shared| {
        let mut p = short(false, 0, Some(SEC), 6);
        p.transfer = 4 * 1024 * 1024;
        p.shared_channel = shared;
        let r = run(&p);
        assert!(r.invariants.ok(), "{:?}", r.invariants);
        r.flow().throughput_mbps
    };
    let mut alone = short(false, 0, None, 6);
    alone.transfer = 4 * 1024 * 1024;
    let one_cell = run(&alone).flow().throughput_mbps;
    let (apart, shared) = (at(false), at(true));
    assert!(
        apart > one_cell * 1.05,
        "two media {apart} against one cell {one_cell}"
    );
    assert!(
        shared <= one_cell * 1.001,
        "one channel {shared} against one cell {one_cell}"
    );
}

/// A capture kept in memory, readable after the run.
#[derive(Clone, Default)]
struct Shared(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Shared {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .map_err(|_| std::io::Error::other("poisoned"))?
            .extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A record of a classic pcap stream as `PcapWriter` writes it (raw IPv4).
struct Record {
    /// When the frame ended, ns.
    end: u64,
    src: u32,
    /// IP length, bytes.
    len: u32,
    ip_id: u16,
    /// IP protocol (6: TCP, 17: UDP).
    proto: u8,
}

/// A classic pcap stream's records.
fn records(pcap: &[u8]) -> Vec<Record> {
    let (mut at, mut out) = (24, vec![]);
    let word = |i: usize| u32::from_le_bytes([pcap[i], pcap[i + 1], pcap[i + 2], pcap[i + 3]]);
    let half = |i: usize| u16::from_be_bytes([pcap[i], pcap[i + 1]]);
    while at + 16 + 20 <= pcap.len() {
        let ip = at + 16;
        out.push(Record {
            end: u64::from(word(at)) * 1_000_000_000 + u64::from(word(at + 4)),
            src: u32::from_be_bytes([pcap[ip + 12], pcap[ip + 13], pcap[ip + 14], pcap[ip + 15]]),
            len: u32::from(half(ip + 2)),
            ip_id: half(ip + 4),
            proto: pcap[ip + 9],
        });
        at += 16 + word(at + 8) as usize;
    }
    out
}

/// The times (ns) of a classic pcap stream's records.
fn record_times(pcap: &[u8]) -> Vec<u64> {
    records(pcap).into_iter().map(|r| r.end).collect()
}

/// Runs paper 002's testbed with a capture of every link and cell kept in memory; the result and
/// each cell's capture.
fn run_captured(p: &Paper002) -> (RunResult, Vec<Vec<u8>>) {
    use snooplab_sim::capture::{Capture, Sink};
    use snooplab_sim::{Observer, Simulation};
    let net = p.network();
    let (links, cells) = (net.links.len(), net.cells.len());
    let mem: Vec<Shared> = (0..links + cells).map(|_| Shared::default()).collect();
    let sinks: Vec<(String, Sink)> = mem
        .iter()
        .enumerate()
        .map(|(i, m)| (format!("c{i}"), Box::new(m.clone()) as Sink))
        .collect();
    let capture = Capture::new(sinks).unwrap_or_else(|e| panic!("{e}"));
    let (r, obs) =
        Simulation::observed_network(&net, "lan", Observer::default().with_capture(capture))
            .run_observed();
    let _ = obs.capture.map(Capture::finish);
    let cells = mem[links..]
        .iter()
        .map(|m| m.0.lock().unwrap_or_else(|e| panic!("{e}")).clone())
        .collect();
    (r, cells)
}

#[test]
fn the_mobile_hosts_one_card_sends_its_frames_one_at_a_time_in_the_order_queued() {
    // snoop, 64 KB windows, a handoff every second: after a handoff the mobile host still holds
    // ACKs for the old cell when it sends for the new one. One card with one interface queue
    // sends its frames in the order IP queued them, whichever cell each is for (its TCP numbers
    // its segments' IP ids in that order), and never two at once, even with each cell on a
    // medium of its own; with a queue per cell the new cell's ACKs overtook the old cell's
    use snooplab_sim::medium::{airtime, WavelanParams};
    for shared in [true, false] {
        let mut p = short(true, 0, Some(SEC), 3);
        p.transfer = 2 * 1024 * 1024;
        p.shared_channel = shared;
        let (r, cells) = run_captured(&p);
        assert!(r.invariants.ok(), "{:?}", r.invariants);
        assert_eq!(r.aggregate.complete_flows, 1);
        let mh = p.network().nodes[4].addr;
        let wavelan = WavelanParams::default();
        // (start, end, cell, ip id) of the mobile host's frames, TCP's with their id
        let mut frames: Vec<(u64, u64, usize, Option<u16>)> = vec![];
        for (c, pcap) in cells.iter().enumerate() {
            for f in records(pcap).into_iter().filter(|f| f.src == mh) {
                let id = (f.proto == 6).then_some(f.ip_id);
                frames.push((f.end - airtime(&wavelan, f.len), f.end, c, id));
            }
        }
        for c in 0..2 {
            let n = frames.iter().filter(|f| f.2 == c && f.3.is_some()).count();
            assert!(
                n >= 100,
                "shared {shared}: {n} ACK frames of the mobile host in cell {c}"
            );
        }
        frames.sort_unstable();
        for w in frames.windows(2) {
            assert!(
                w[1].0 >= w[0].1,
                "shared {shared}: the mobile host's frame in cell {} from {} ns overlaps its \
                 frame in cell {} until {} ns",
                w[1].2,
                w[1].0,
                w[0].2,
                w[0].1
            );
        }
        let ids: Vec<(u16, usize)> = frames.iter().filter_map(|f| Some((f.3?, f.2))).collect();
        for w in ids.windows(2) {
            assert!(
                w[1].0 > w[0].0,
                "shared {shared}: IP id {} (cell {}) left after {} (cell {})",
                w[1].0,
                w[1].1,
                w[0].0,
                w[0].1
            );
        }
    }
}

#[test]
fn an_old_primary_that_drops_its_queue_for_the_mobile_host_loses_no_byte() {
    // snoop, 64 KB windows, a handoff every second: the old primary holds a backlog for the
    // mobile host when its Buffer request arrives; dropped, the backlog is counted as queue drops
    // at that base station, and the new primary and snoop recover every byte
    use snooplab_sim::network::OldPrimaryQueue;
    let mut p = short(true, 0, Some(SEC), 3);
    p.transfer = 2 * 1024 * 1024;
    let drains = run(&p);
    p.old_primary_queue = OldPrimaryQueue::Dropped;
    let dropped = run(&p);
    for r in [&drains, &dropped] {
        assert!(r.invariants.ok(), "{:?}", r.invariants);
        assert_eq!(r.aggregate.complete_flows, 1);
    }
    assert_eq!(drains.drops.queues, 0);
    assert!(
        dropped.drops.queues >= 10 * (dropped.handoffs[0].events.len() as u64 / 2),
        "{} frames dropped over {} handoffs",
        dropped.drops.queues,
        dropped.handoffs[0].events.len()
    );
}

#[test]
fn on_one_shared_channel_the_old_cell_drains_its_backlog_beside_the_new_one() {
    // snoop, 64 KB windows, a handoff every second: the old primary holds a backlog for its cell
    // when the mobile host hands off; on one channel the two cells take turns, so the backlog
    // goes out at once, interleaved with the new cell's frames, not after the next handoff back
    let mut p = short(true, 0, Some(SEC), 3);
    p.transfer = 4 * 1024 * 1024;
    p.shared_channel = true;
    let (r, cells) = run_captured(&p);
    assert!(r.invariants.ok(), "{:?}", r.invariants);
    let frames: Vec<Vec<u64>> = cells.iter().map(|c| record_times(c)).collect();
    let names = ["bs1", "bs2"];
    let events = &r.handoffs[0].events;
    assert!(events.len() >= 3, "{} handoffs", events.len());
    // from the new primary's confirmation: the mobile host's request waits in its one card's
    // queue behind the ACKs for the old cell
    for e in events.iter().filter(|e| e.at_s < r.flow().duration_s - 1.0) {
        let Some(confirmed_ms) = e.latency_ms else {
            continue;
        };
        let t = ((e.at_s + confirmed_ms / 1e3) * 1e9) as u64;
        let window = t..t + 200 * MS;
        let old = names.iter().position(|n| *n == e.from).expect("old cell");
        let new = 1 - old;
        let count = |c: usize| frames[c].iter().filter(|x| window.contains(x)).count();
        let (o, n) = (count(old), count(new));
        assert!(
            o >= 5 && n >= 5,
            "in the 200 ms after the handoff at {:.3} s: {o} frames in the old cell, {n} in the \
             new (turns across the cells)",
            e.at_s
        );
    }
}

/// Issue: a handoff every millisecond kept about 200 bytes per handoff (712 MB by the hour's cap)
/// and went on for 3000 s of beacons after the only sender had given up. The records are now
/// bounded and the run ends with its last flow. (A millisecond is now below the floor a file may
/// give, issue 49: this runs at the floor, 10 ms.) A bounded-input test: it asserts what is kept,
/// not how long it takes.
#[test]
fn a_handoff_every_millisecond_keeps_bounded_records_and_ends_with_its_flow() {
    let net = from_file(&|t| {
        // a millisecond is now refused when the file is read (issue 49): the shortest period
        t.replace("every-s = 5", "every-s = 0.01")
            .replace("transfer = \"10M\"", "transfer = \"1M\"")
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let r = run_network(&net, "lan");
    let h = &r.handoffs[0];
    assert!(
        h.handoffs > snooplab_proto::agent::handoff::DECISIONS_KEPT as u64,
        "{} handoffs",
        h.handoffs
    );
    assert_eq!(
        h.events.len(),
        snooplab_proto::agent::handoff::DECISIONS_KEPT,
        "per-handoff records are capped"
    );
    assert!(h.confirmed > 0 && h.latency_ms_mean > 0.0);
    // at the shortest period a file may give (10 ms, issue 49; at 1 ms the sender gave up) the
    // transfer still completes, over thousands of handoffs; the run ends with it, not at the
    // time cap
    assert_eq!(r.aggregate.complete_flows, 1, "{:?}", r.invariants);
    assert!(
        !r.invariants.messages.iter().any(|n| n.contains("time cap")),
        "{:?}",
        r.invariants
    );
    assert!(r.flow().duration_s < 1000.0, "{} s", r.flow().duration_s);
}
