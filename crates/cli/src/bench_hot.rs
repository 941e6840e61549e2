//! `snooplab bench --hot-paths`: the simulator's hot paths one at a time, each driven directly
//! through its sans-IO calls with nothing else around it, so a change to one shows in its own line:
//! the event queue, TCP per segment (a sender and a receiver back to back), snoop per segment (the
//! same pair through a snoop agent) and the CSMA/CA access rule per frame (stations that always
//! have a frame to send). Each line is the best of a few timed rounds after a warm-up, in ns per
//! operation; the figure to compare is the same line on the same machine, not the lines with each
//! other.

use std::hint::black_box;
use std::time::Instant;

use snooplab_proto::agent::{Agent, BuildPacket, Port, SegmentView, SnoopAgent, SnoopConfig};
use snooplab_proto::segment::{Endpoint, Segment};
use snooplab_proto::tcp::{Tcp, TcpConfig};
use snooplab_proto::Time;
use snooplab_sim::channel::{Channel, ChannelSpec};
use snooplab_sim::engine::EventQueue;
use snooplab_sim::medium::{AccessModel, CsmaParams, Frame, Medium, WavelanParams};
use snooplab_sim::rng::{ChannelStreams, Rng, Stream};

/// Timed rounds per path; the fastest is reported (the others met more interference).
const ROUNDS: usize = 5;

/// One hot path's result.
#[derive(Clone, Debug, serde::Serialize)]
pub struct HotPath {
    pub path: &'static str,
    /// What one operation is.
    pub op: &'static str,
    pub ops_per_round: u64,
    pub ns_per_op_best: f64,
    pub ns_per_op_median: f64,
}

/// Every hot path, timed.
pub fn hot_paths() -> Vec<HotPath> {
    vec![
        time("event queue", "push + pop, 64 pending", event_queue),
        time("tcp", "data segment and its ACK, 1400 bytes", || {
            tcp_pair(false)
        }),
        time("snoop", "data segment and its ACK through snoop", || {
            tcp_pair(true)
        }),
        time("csma", "frame on a 4-station CSMA/CA cell", csma),
    ]
}

/// Prints them as a table.
pub fn print(paths: &[HotPath]) {
    println!("snooplab bench --hot-paths (best and median of {ROUNDS} rounds, one thread)");
    println!(
        "  {:<12} {:>10} {:>10}  {:>10}  operation",
        "path", "best ns", "median ns", "ops/round"
    );
    for p in paths {
        println!(
            "  {:<12} {:>10.1} {:>10.1}  {:>10}  {}",
            p.path, p.ns_per_op_best, p.ns_per_op_median, p.ops_per_round, p.op
        );
    }
}

/// Runs `round` once to warm up and [`ROUNDS`] times timed; each returns the operations it did.
fn time(path: &'static str, op: &'static str, round: impl Fn() -> u64) -> HotPath {
    let ops = black_box(round());
    let mut ns: Vec<f64> = (0..ROUNDS)
        .map(|_| {
            let t = Instant::now();
            let n = black_box(round());
            t.elapsed().as_nanos() as f64 / n.max(1) as f64
        })
        .collect();
    ns.sort_by(f64::total_cmp);
    HotPath {
        path,
        op,
        ops_per_round: ops,
        ns_per_op_best: ns[0],
        ns_per_op_median: ns[ns.len() / 2],
    }
}

/// The event queue in steady state: 64 events pending (about what a multi-host run holds), each
/// pop followed by a push a pseudo-random time later.
fn event_queue() -> u64 {
    const OPS: u64 = 2_000_000;
    let mut q: EventQueue<u32> = EventQueue::default();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut step = || {
        // xorshift: cheap, and the same sequence every round
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % 10_000_000
    };
    for i in 0..64 {
        q.push(step(), i);
    }
    for _ in 0..OPS {
        if let Some((t, e)) = q.pop() {
            q.push(t + step(), black_box(e));
        }
    }
    OPS
}

/// A packet that is only its header, for driving an agent without the simulator.
#[derive(Clone, Debug)]
struct Header(Segment);

impl SegmentView for Header {
    fn segment(&self) -> Option<&Segment> {
        Some(&self.0)
    }
}

impl BuildPacket for Header {
    fn build(seg: &Segment, _like: &Self) -> Self {
        Header(*seg)
    }
}

const FH: Endpoint = Endpoint {
    addr: 0x0a00_0001,
    port: 20000,
};
const MH: Endpoint = Endpoint {
    addr: 0x0a00_0102,
    port: 5001,
};

/// A 32 MB transfer between a bulk sender and a receiver with no link between them (every segment
/// arrives at once; time moves only to the next timer), optionally through a snoop agent (LL-TCP-AWARE) at the
/// base station; the operations are the data segments sent.
fn tcp_pair(snoop: bool) -> u64 {
    const BYTES: u64 = 32 << 20;
    let (mss, buffer) = (1400, 32 * 1024);
    let mut now: Time = 0;
    let mut fh = Tcp::connect(TcpConfig::bulk_sender(mss, buffer, BYTES), FH, MH, now);
    let mut mh = Tcp::listen(TcpConfig::sink(mss, buffer), MH, FH);
    let mut agent = snoop.then(|| SnoopAgent::<Header>::new(SnoopConfig::paper000(true, false)));
    let mut moved = true;
    while !mh.at_eof() && now < 3_600_000_000_000 {
        if !moved {
            // nothing in flight: the next timer
            let next = [
                fh.poll_timeout(),
                mh.poll_timeout(),
                agent.as_ref().and_then(|a| a.poll_timeout()),
            ]
            .into_iter()
            .flatten()
            .min();
            let Some(t) = next else { break };
            now = now.max(t);
            fh.on_timeout(now);
            mh.on_timeout(now);
            if let Some(a) = agent.as_mut() {
                a.on_timeout(now);
            }
        }
        moved = false;
        while let Some((seg, _)) = fh.poll_transmit() {
            moved = true;
            deliver(&mut agent, now, Port::Wired, seg, &mut fh, &mut mh);
        }
        mh.read(now, u64::MAX);
        while let Some((seg, _)) = mh.poll_transmit() {
            moved = true;
            deliver(&mut agent, now, Port::Wireless, seg, &mut fh, &mut mh);
        }
    }
    fh.stats().data_segs_sent.max(1)
}

/// `seg` from the side of `from`, through the agent if there is one, to the other side's TCP.
fn deliver(
    agent: &mut Option<SnoopAgent<Header>>,
    now: Time,
    from: Port,
    seg: Segment,
    fh: &mut Tcp,
    mh: &mut Tcp,
) {
    let mut to_host = |port: Port, s: &Segment| match port {
        Port::Wireless => mh.on_segment(now, s),
        Port::Wired => fh.on_segment(now, s),
    };
    match agent {
        None => to_host(from.opposite(), &seg),
        Some(a) => {
            a.on_packet(now, from, Header(seg));
            while let Some(t) = a.poll_transmit(now) {
                to_host(t.port, &t.packet.0);
            }
        }
    }
}

/// A frame of a fixed size, for the medium alone.
struct Bytes(u32);

impl Frame for Bytes {
    fn ip_len(&self) -> u32 {
        self.0
    }
    fn set_corrupted(&mut self, _corrupted: bool) {}
}

/// Three mobile stations and the base station, every one with a 1440-byte frame always queued,
/// contending under CSMA/CA with the default parameters; the operations are the frames that ended.
fn csma() -> u64 {
    const FRAMES: u64 = 200_000;
    let stations = 3;
    let channels = (0..stations)
        .map(|i| {
            let none = |s| Channel::new(&ChannelSpec::None, s);
            (
                none(ChannelStreams::down(1, i as u64)),
                none(ChannelStreams::up(1, i as u64)),
            )
        })
        .collect();
    let mut m: Medium<Bytes> = Medium::new(
        WavelanParams::default(),
        AccessModel::Csma(CsmaParams::default()),
        channels,
        Rng::new(1, Stream::MediumBackoff),
    );
    let fill = |m: &mut Medium<Bytes>, from: usize| {
        let to = if from == 0 { 1 } else { 0 };
        m.enqueue(
            from,
            to,
            Bytes(1440),
            snooplab_proto::agent::Priority::Normal,
        );
    };
    for s in 0..=stations {
        fill(&mut m, s);
    }
    let (mut now, mut done) = (0, 0);
    m.start(now);
    while done < FRAMES {
        let Some(t) = m.poll_timeout() else { break };
        now = now.max(t);
        m.on_timeout(now);
        while let Some(tx) = m.poll_done() {
            done += 1;
            fill(&mut m, tx.from);
        }
        m.start(now);
    }
    done.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_hot_path_does_the_work_it_counts() {
        // the TCP pair completes its transfer in whole segments, through snoop as without it
        let plain = tcp_pair(false);
        let snoop = tcp_pair(true);
        assert!(plain >= (32 << 20) / 1400, "{plain} segments");
        assert_eq!(plain, snoop, "snoop changes nothing on a loss-free path");
        assert_eq!(event_queue(), 2_000_000);
        assert_eq!(csma(), 200_000);
    }
}
