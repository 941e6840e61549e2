//! Paper 002 (Balakrishnan, Seshan and Katz 1995, "Improving Reliable Transport and Handoff
//! Performance in Cellular Wireless Networks"), section 7: Table 1 (handoffs between two base stations at a fixed interval, no bit
//! errors, snoop), Fig. 7 (snoop against Reno across bit-error rates, no handoffs), Fig. 10 (the
//! handoff latency, idle and during a transfer) and Fig. 11 (Fig. 7's sweep for snoop with a
//! handoff every 5 s), on the testbed of `testbed.rs`. Figs. 8 and 9 are traces of single
//! runs (the report draws them). Beside them, the baselines of section 8: a hard handoff as in plain
//! Mobile IP, and Caceres and Iftode's fast retransmissions after it.

use crate::study::About;
use serde::{Deserialize, Serialize};
use snooplab_proto::agent::handoff::Scheme;
use snooplab_proto::time::SEC;
use snooplab_proto::Time;

use crate::paper002::readings::Read002;
use crate::paper002::testbed::Paper002;
use crate::{Claim, PAPER_RESULTS};
use snooplab_sim::network::Network;
use snooplab_sim::protocol::AgentKind;
use snooplab_sim::stats::Summary;

/// Who paper 002 is for `reproduce`: Fig. 7 "was repeated ten times at each error rate", the
/// testbed's hosts ([`testbed::HOST`]).
pub const ABOUT: About = About {
    name: "paper002",
    citation: "Balakrishnan, Seshan and Katz, \"Improving Reliable Transport and Handoff \
               Performance in Cellular Wireless Networks\" (1995)",
    default_seeds: 10,
    default_host: testbed::HOST,
};

/// Bits between errors on Figs. 7 and 11's x axis (log2 scale), 16 Kbits to 4 Mbits. The text
/// places "5e-7" near "the 2 Mb point", names one error per 256 Kbits (Fig. 8) and per 1 Mbit, and
/// at its highest rate "every other packet was being dropped" (a 1500-byte frame is lost with
/// probability 1/2 at one error per 17 Kbits); the figure itself is not in our copy.
pub const KBITS_BETWEEN_ERRORS: [u64; 9] = [16, 32, 64, 128, 256, 512, 1024, 2048, 4096];

/// Fig. 11's handoff interval.
pub const FIG11_HANDOFF: Time = 5 * SEC;

/// The latency run (Fig. 10): handoffs every 10 s, the transfer starting after three of them, as
/// the paper's "10 handoffs occurring before, during and after a 10 Mbyte transfer".
pub const LATENCY_HANDOFF: Time = 10 * SEC;
pub const LATENCY_START: Time = 35 * SEC;

/// The intervals Table 1 is also run at with each cell on a medium of its own (a check of ours).
pub const TABLE1_TWO_MEDIA: [Option<Time>; 3] = [Some(SEC), Some(5 * SEC), None];

/// "Within 3%" (the reading of Table 1's closeness).
pub const TABLE1_TOLERANCE: f64 = 0.03;

#[derive(Debug, Deserialize)]
struct Raw {
    paper002: Raw002,
}

#[derive(Debug, Deserialize)]
struct Raw002 {
    peak_throughput_mbps: f64,
    peak_with_beacons_mbps: f64,
    #[serde(rename = "snoop_vs_tcp_at_3_9e-6")]
    snoop_vs_tcp: [f64; 2],
    table1: RawTable1,
}

#[derive(Debug, Deserialize)]
struct RawTable1 {
    seconds_between_handoffs: Vec<f64>,
    throughput_mbps: Vec<f64>,
    stddev_mbps: Vec<f64>,
}

/// The paper's numbers.
#[derive(Clone, Debug, Serialize)]
pub struct Paper002Data {
    pub peak_mbps: f64,
    pub peak_with_beacons_mbps: f64,
    /// Fig. 8's run at one error per 256 Kbits: snoop, Reno (Mb/s).
    pub fig8_snoop_reno_mbps: [f64; 2],
    /// Table 1: seconds between handoffs (infinite: none), throughput and its deviation.
    pub table1: Vec<(f64, f64, f64)>,
}

impl Paper002Data {
    pub fn load() -> Result<Paper002Data, String> {
        let raw: Raw = toml::from_str(PAPER_RESULTS)
            .map_err(|e| format!("data/paper-results.toml: {}", e.message()))?;
        let t = raw.paper002.table1;
        Ok(Paper002Data {
            peak_mbps: raw.paper002.peak_throughput_mbps,
            peak_with_beacons_mbps: raw.paper002.peak_with_beacons_mbps,
            fig8_snoop_reno_mbps: raw.paper002.snoop_vs_tcp,
            table1: t
                .seconds_between_handoffs
                .iter()
                .zip(&t.throughput_mbps)
                .zip(&t.stddev_mbps)
                .map(|((&s, &m), &d)| (s, m, d))
                .collect(),
        })
    }
}

/// Which parts run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parts {
    pub table1: bool,
    pub fig7: bool,
    pub fig10: bool,
    pub fig11: bool,
    pub baselines: bool,
    pub crash: bool,
}

impl Parts {
    pub const ALL: Parts = Parts {
        table1: true,
        fig7: true,
        fig10: true,
        fig11: true,
        baselines: true,
        crash: true,
    };
    pub const NONE: Parts = Parts {
        table1: false,
        fig7: false,
        fig10: false,
        fig11: false,
        baselines: false,
        crash: false,
    };
}

/// The crash: the primary base station goes down 5 s into the transfer for 1 s (our choice; the
/// issue asks for a crash mid-transfer).
pub const CRASH_AT: Time = 5 * SEC;
pub const CRASH_DOWN: Time = SEC;

impl Parts {
    /// The parts named by `words` (none: all of them).
    pub fn parse(words: &[String]) -> Result<Parts, String> {
        if words.is_empty() {
            return Ok(Parts::ALL);
        }
        let mut p = Parts::NONE;
        for w in words {
            match w.trim().to_ascii_lowercase().as_str() {
                "table1" => p.table1 = true,
                "fig7" => p.fig7 = true,
                "fig10" => p.fig10 = true,
                "fig11" => p.fig11 = true,
                "baselines" => p.baselines = true,
                "crash" => p.crash = true,
                "all" => p = Parts::ALL,
                _ => {
                    return Err(format!(
                        "unknown part '{w}' of paper002 (known: table1, fig7, fig10, fig11, \
                         baselines, crash, all; Figs. 8 and 9 are traces in the report)"
                    ))
                }
            }
        }
        Ok(p)
    }
}

/// The baselines' handoff intervals.
pub const BASELINE_INTERVALS: [Time; 2] = [SEC, 5 * SEC];

/// What one job is, to sort its result into the report.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Experiment {
    /// Table 1: handoff interval (`None`: never), beacons on; `false` beacons for the beacon-free peak.
    Table1(Option<Time>, bool),
    /// Table 1's setting with each cell on a medium of its own (`shared_channel` false), at this
    /// interval.
    Table1TwoMedia(Option<Time>),
    /// Figs. 7 and 11: Kbits between errors, snoop, handoff interval.
    Sweep(u64, bool, Option<Time>),
    /// Fig. 10's latency run.
    Latency,
    /// A handoff scheme with snoop (a split connection for `Scheme::SplitTransfer`), no errors, a
    /// handoff at this interval.
    Baseline(Scheme, Time),
    /// A split connection with no handoffs, the reference of the split baseline.
    SplitAlone,
    /// The primary crashes and comes back, no handoffs, no errors: snoop (`false`) or a split
    /// connection (`true`).
    Crash(bool),
}

fn setting(snoop: bool, error_every: u64, every: Option<Time>, seed: u64) -> Paper002 {
    Paper002::new(snoop, error_every, every, seed)
}

/// The network of one job under the default readings.
pub fn network(job: Experiment, seed: u64) -> Network {
    network_read(job, Read002::DEFAULT, seed)
}

/// The network of one job under a combination of readings.
pub fn network_read(job: Experiment, read: Read002, seed: u64) -> Network {
    let mut p = match job {
        Experiment::Table1(every, beacons) => Paper002 {
            beacons,
            ..setting(true, 0, every, seed)
        },
        Experiment::Table1TwoMedia(every) => Paper002 {
            shared_channel: false,
            ..setting(true, 0, every, seed)
        },
        Experiment::Sweep(kbits, snoop, every) => setting(snoop, kbits * 1024 / 8, every, seed),
        Experiment::Latency => Paper002 {
            start: LATENCY_START,
            ..setting(true, 0, Some(LATENCY_HANDOFF), seed)
        },
        Experiment::Baseline(scheme, every) => Paper002 {
            scheme,
            agent: if scheme == Scheme::SplitTransfer {
                AgentKind::Split { smart: false }
            } else {
                AgentKind::Snoop002
            },
            ..setting(true, 0, Some(every), seed)
        },
        Experiment::SplitAlone => Paper002 {
            agent: AgentKind::Split { smart: false },
            ..setting(true, 0, None, seed)
        },
        Experiment::Crash(split) => Paper002 {
            agent: if split {
                AgentKind::Split { smart: false }
            } else {
                AgentKind::Snoop002
            },
            crash: Some((CRASH_AT, CRASH_DOWN)),
            ..setting(true, 0, None, seed)
        },
    };
    p.window = read.window.bytes();
    p.old_primary_queue = read.old_primary_queue;
    p.network()
}

/// Every job in a fixed order, each `seeds` times: every part under the default readings (part,
/// then setting), then the parts the readings affect (Table 1 and Fig. 10) under each other
/// combination of them.
pub fn experiments(paper: &Paper002Data, parts: Parts) -> Vec<(Experiment, Read002)> {
    let mut out: Vec<(Experiment, Read002)> = default_experiments(paper, parts)
        .into_iter()
        .map(|e| (e, Read002::DEFAULT))
        .collect();
    let read = Parts {
        table1: parts.table1,
        fig10: parts.fig10,
        ..Parts::NONE
    };
    for reading in &Read002::ALL[1..] {
        out.extend(
            default_experiments(paper, read)
                .into_iter()
                .map(|e| (e, *reading)),
        );
    }
    out
}

/// The jobs of the parts, in a fixed order (part, then setting).
fn default_experiments(paper: &Paper002Data, parts: Parts) -> Vec<Experiment> {
    let mut out = vec![];
    if parts.table1 {
        for &(secs, ..) in &paper.table1 {
            let every = secs
                .is_finite()
                .then(|| (secs * SEC as f64).round() as Time);
            out.push(Experiment::Table1(every, true));
        }
        out.push(Experiment::Table1(None, false));
        for every in TABLE1_TWO_MEDIA {
            out.push(Experiment::Table1TwoMedia(every));
        }
    }
    if parts.fig7 {
        for kb in KBITS_BETWEEN_ERRORS {
            for snoop in [false, true] {
                out.push(Experiment::Sweep(kb, snoop, None));
            }
        }
    }
    if parts.fig11 {
        for kb in KBITS_BETWEEN_ERRORS {
            out.push(Experiment::Sweep(kb, true, Some(FIG11_HANDOFF)));
        }
    }
    if parts.fig10 {
        out.push(Experiment::Latency);
    }
    if parts.baselines {
        out.push(Experiment::SplitAlone);
        for every in BASELINE_INTERVALS {
            for scheme in Scheme::ALL {
                out.push(Experiment::Baseline(scheme, every));
            }
        }
    }
    if parts.crash {
        out.push(Experiment::Crash(false));
        out.push(Experiment::Crash(true));
    }
    out
}

/// The crash, for one agent.
#[derive(Clone, Debug, Serialize)]
pub struct CrashRow {
    pub agent: String,
    /// Runs whose transfer completed with every check passing.
    pub intact: usize,
    pub runs: usize,
    /// Bytes the fixed host was acknowledged that the mobile host never received.
    pub bytes_lost: Summary,
    pub crash_drops: Summary,
    /// `None` when no run was intact: the 0 Mb/s of a reset connection is not a throughput.
    pub throughput_mbps: Option<Summary>,
    /// Why the first incomplete run stopped.
    pub first_failure: Option<String>,
}

/// One baseline at one handoff interval.
#[derive(Clone, Debug, Serialize)]
pub struct BaselineRow {
    pub scheme: String,
    pub seconds: f64,
    pub throughput_mbps: Summary,
    pub timeouts: Summary,
    pub fast_retransmits: Summary,
    pub sender_retransmitted_segments: Summary,
    /// Throughput / the multicast scheme's at the same interval, per seed.
    pub over_multicast: Summary,
    /// Split: what each handoff cost, s (transfer time beyond the split connection's without
    /// handoffs, over the handoffs), and the mean state transfer time, s.
    pub cost_per_handoff_s: Option<Summary>,
    pub state_transfer_s: Option<Summary>,
    pub failures: usize,
}

/// One row of Table 1.
#[derive(Clone, Debug, Serialize)]
pub struct Table1Row {
    /// Seconds between handoffs; `None`: no handoffs.
    pub seconds: Option<f64>,
    pub beacons: bool,
    /// Both cells on one channel, as the paper's testbed; `false`: each on a medium of its own (a
    /// check of ours, not in the paper).
    pub shared_channel: bool,
    pub throughput_mbps: Summary,
    /// Standard deviation over the seeds, as the paper gives.
    pub stddev_mbps: f64,
    pub paper_mbps: Option<f64>,
    pub paper_stddev_mbps: Option<f64>,
    pub local_retransmissions: Summary,
    pub ring_sent: Summary,
    pub failures: usize,
}

impl Table1Row {
    /// The row's name: the interval, or never (with or without beacons).
    pub fn label(&self) -> String {
        let when = match (self.seconds, self.beacons) {
            (_, false) => "never, no beacons".to_string(),
            (None, true) => "never".to_string(),
            (Some(x), true) => format!("{x} s"),
        };
        if self.shared_channel {
            when
        } else {
            format!("{when}, two media")
        }
    }

    /// The paper's number for the row, with its deviation where Table 1 gives one.
    pub fn paper_text(&self) -> String {
        match (self.paper_mbps, self.paper_stddev_mbps) {
            (Some(m), Some(d)) => format!("{m:.2} ± {d:.3}"),
            (Some(m), None) => format!("{m} (peak)"),
            _ => "-".into(),
        }
    }
}

/// One error rate of Figs. 7 and 11. A series is `None` (`null`, printed `n/a`) when it was not
/// run or when every one of its runs failed: the 0 Mb/s an incomplete run counts would otherwise
/// read as a measured throughput. Its `*_failures` say which.
#[derive(Clone, Debug, Serialize)]
pub struct SweepPoint {
    pub kbits_between_errors: u64,
    pub reno_mbps: Option<Summary>,
    pub snoop_mbps: Option<Summary>,
    /// Snoop with a handoff every 5 s (Fig. 11).
    pub snoop_handoff_mbps: Option<Summary>,
    /// Snoop / Reno per seed.
    pub snoop_over_reno: Option<Summary>,
    /// Runs incomplete or with a failed check: all three series, and each.
    pub failures: usize,
    pub reno_failures: usize,
    pub snoop_failures: usize,
    pub snoop_handoff_failures: usize,
}

/// Fig. 10: handoff latencies, ms.
#[derive(Clone, Debug, Serialize)]
pub struct Latency {
    /// Decision to confirmation, handoffs before the transfer.
    pub idle_ms: Summary,
    /// Decision to confirmation, handoffs during the transfer.
    pub transfer_confirm_ms: Summary,
    /// Decision to the first TCP packet from the new primary, during the transfer.
    pub transfer_first_packet_ms: Summary,
}

#[derive(Clone, Debug, Serialize)]
pub struct Report002 {
    pub seeds: u64,
    pub host: String,
    pub table1: Vec<Table1Row>,
    pub sweep: Vec<SweepPoint>,
    pub latency: Option<Latency>,
    pub baselines: Vec<BaselineRow>,
    pub crash: Vec<CrashRow>,
    pub claims: Vec<Claim>,
    /// The parts the readings affect under each other combination of them (the default's are
    /// above).
    pub readings: Vec<ReadingRun>,
}

/// Table 1 and Fig. 10 under one combination of readings, and the claims they check.
#[derive(Clone, Debug, Serialize)]
pub struct ReadingRun {
    pub window: &'static str,
    pub old_primary_queue: &'static str,
    pub table1: Vec<Table1Row>,
    pub latency: Option<Latency>,
    pub claims: Vec<Claim>,
}

impl ReadingRun {
    /// The combination's name, as `Read002::name` gives it.
    pub fn name(&self) -> String {
        format!("{}, {}", self.window, self.old_primary_queue)
    }
}

mod claims;
mod document;
mod evaluate;
pub mod plan;
pub mod readings;
pub mod testbed;

pub use document::Reproduction;
pub use plan::{Plan002, Run002};

pub use evaluate::evaluate;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_paper_data_gives_table1_and_the_jobs_cover_each_part() {
        let p = Paper002Data::load().expect("paper data");
        assert_eq!(p.table1.len(), 7);
        assert_eq!(p.table1[0], (1.0, 1.42, 0.011));
        assert!(p.table1[6].0.is_infinite());
        let j = experiments(&p, Parts::ALL);
        // every part under the default readings, then Table 1 and Fig. 10 under each other
        // combination of them
        assert_eq!(j.len(), 8 + 3 + 18 + 9 + 1 + 9 + 2 + 3 * (8 + 3 + 1));
        let w = Read002::DEFAULT;
        assert_eq!(j[0], (Experiment::Table1(Some(SEC), true), w));
        assert_eq!(j[6], (Experiment::Table1(None, true), w));
        assert_eq!(j[7], (Experiment::Table1(None, false), w));
        let w8 = Read002::ALL[1];
        assert_eq!(j[50], (Experiment::Table1(Some(SEC), true), w8));
        assert_eq!(j[61], (Experiment::Latency, w8));
        assert_eq!(network_read(j[50].0, w8, 1).flows[0].buffer, 8192);
        assert_eq!(network(j[0].0, 1).flows[0].buffer, 65536);
        let dropped = Read002::ALL[3];
        assert_eq!(
            j[j.len() - 12],
            (Experiment::Table1(Some(SEC), true), dropped)
        );
        let net = network_read(j[j.len() - 12].0, dropped, 1);
        assert_eq!(net.flows[0].buffer, 8192);
        assert_eq!(
            net.handoffs[0].old_primary_queue,
            snooplab_sim::network::OldPrimaryQueue::Dropped
        );
        let net = network(Experiment::Sweep(256, true, None), 1);
        assert_eq!(
            net.cells[0].stations[0].down,
            snooplab_sim::channel::ChannelSpec::every(32 * 1024, 1)
        );
    }
}
