//! What paper 002 runs: its parts, the settings of each (the handoff intervals, error rates,
//! baselines and the crash) and the network of each job under a combination of readings.

use snooplab_proto::agent::handoff::Scheme;
use snooplab_proto::time::SEC;
use snooplab_proto::Time;
use snooplab_sim::network::Network;
use snooplab_sim::protocol::AgentKind;

use super::data::Paper002Data;
use super::readings::Read002;
use super::testbed::{Paper002, SNOOP};

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
                SNOOP
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
                SNOOP
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
