//! "Does snoop still help today's TCP?" (docs/snoop-today.md): paper 000's question, which agent
//! at the base station best hides wireless losses from the sender, asked of three senders: the
//! 1996 BSD/OS Reno of the paper, the same host with SACK (Fall and Floyd's recovery), and
//! today's Linux (the `linux` profile, CUBIC with RFC 6675/PRR, RACK-TLP, IW10, held to the kernel
//! by the kernel check). Each with no agent, snoop (LL-TCP-AWARE), snoop with SMART's selective
//! information (LL-SMART-TCP-AWARE) and the split connection (SPLIT-SMART), over paper 000's LAN
//! and WAN and a long path, across error rates, transfer sizes, bursty channels, cells of up to
//! 20 downloads and (for Linux) buffers up to 4 MB.
//!
//! A study of our own, not a paper: its findings are its tables (every configuration's mean with
//! its 95% interval, min and max over the seeds) and each agent's gain over no agent for the same
//! sender, path and channel; its claims (`claims.rs`) are what the new agent must show and
//! Vangala and Labrador's headline for theirs.

mod cell;
mod claims;
pub mod grid;
mod outcome;
mod report;
mod tables;

use snooplab_proto::tcp::HostPreset;
use snooplab_sim::{Job, RunResult};

use crate::study::{parts, About, Common, Plan, Planned, Study};
use grid::{
    Channel, Config, Path, Sender, AGENTS, BUFFER, BUFFERS, BURSTS, ERROR_EVERY, FLOWS,
    FLOW_CHANNELS, FLOW_TRANSFER, TRANSFER, TRANSFERS,
};
pub use outcome::TodayRun;
pub use report::{Cell, Gain, PartReport, Report};

pub static ABOUT: About = About {
    name: "snoop-today",
    citation: "snooplab's study: does snoop still help today's TCP? Paper 000's question asked \
               of the 1996 BSD/OS Reno, the same host with SACK and today's Linux \
               (docs/snoop-today.md)",
    default_seeds: 10,
    default_host: HostPreset::Linux,
    parts: "errors (throughput against the error rate), transfers (completion time against the \
            transfer's size), bursts (bursty channels), flows (1 to 20 downloads in one cell), \
            buffers (Linux's window up to 4 MB); none: all five",
};

/// A part of the study: which of the configuration's settings it varies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// Throughput against exponential errors from one per 4 KB to one per 1 MB, every path.
    Errors,
    /// Completion time of 10 KB to 8 MB at one error per 64 KB, the LAN and the long path.
    Transfers,
    /// Throughput under bursts of 2 and 4 frames and the Gilbert-Elliott channel, every path.
    Bursts,
    /// Aggregate throughput of 1, 5 and 20 mobile hosts downloading at once in one cell, at one
    /// error per 16 KB and 64 KB, the LAN and the long path.
    Flows,
    /// Throughput with socket buffers of 64 KB to 4 MB for the senders that scale their windows
    /// (the 1996 senders at their 64 KB), at one error per 16 KB and 64 KB, the WAN and the long
    /// path.
    Buffers,
}

impl Part {
    pub const ALL: [Part; 5] = [
        Part::Errors,
        Part::Transfers,
        Part::Bursts,
        Part::Flows,
        Part::Buffers,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Part::Errors => "errors",
            Part::Transfers => "transfers",
            Part::Bursts => "bursts",
            Part::Flows => "flows",
            Part::Buffers => "buffers",
        }
    }

    fn parse(w: &str) -> Result<Vec<Part>, String> {
        Part::ALL
            .into_iter()
            .find(|p| p.name() == w.trim().to_ascii_lowercase())
            .map(|p| vec![p])
            .ok_or_else(|| {
                format!("unknown part '{w}' of snoop-today: use errors, transfers, bursts, flows or buffers")
            })
    }

    /// Whether the part compares completion times (short transfers) rather than throughput.
    pub fn by_completion(self) -> bool {
        self == Part::Transfers
    }

    /// Every configuration of the part, for `senders`.
    pub fn configs(self, senders: &[Sender]) -> Vec<Config> {
        let every = |rates: &[u64]| rates.iter().map(|&b| Channel::Every(b)).collect();
        let (paths, channels, transfers): (&[Path], Vec<Channel>, &[u64]) = match self {
            Part::Errors => (&Path::ALL, every(&ERROR_EVERY), &[TRANSFER]),
            Part::Transfers => (&[Path::Lan, Path::Long], every(&[64 << 10]), &TRANSFERS),
            Part::Bursts => (&Path::ALL, BURSTS.to_vec(), &[TRANSFER]),
            Part::Flows => (
                &[Path::Lan, Path::Long],
                every(&FLOW_CHANNELS),
                &[FLOW_TRANSFER],
            ),
            Part::Buffers => (&[Path::Wan, Path::Long], every(&FLOW_CHANNELS), &[TRANSFER]),
        };
        let flows: &[usize] = if self == Part::Flows { &FLOWS } else { &[1] };
        let mut out = vec![];
        for &path in paths {
            for &sender in senders {
                let buffers: &[u32] = if self == Part::Buffers && sender.scales_windows() {
                    &BUFFERS
                } else {
                    &[BUFFER]
                };
                for &channel in &channels {
                    for &transfer in transfers {
                        for &n in flows {
                            for &buffer in buffers {
                                for agent in AGENTS {
                                    out.push(Config {
                                        flows: n,
                                        buffer,
                                        ..Config::new(sender, agent, path, channel, transfer)
                                    });
                                }
                            }
                        }
                    }
                }
            }
        }
        out
    }
}

/// The study for `reproduce`.
pub struct SnoopToday;

impl Study for SnoopToday {
    fn about(&self) -> &'static About {
        &ABOUT
    }
    fn check_parts(&self, words: &[String]) -> Result<(), String> {
        parts(words, &Part::ALL, Part::parse).map(|_| ())
    }
    fn plan(&self, words: &[String], common: &Common) -> Result<Box<dyn Planned>, String> {
        let parts = parts(words, &Part::ALL, Part::parse)?;
        if parts.contains(&Part::Bursts) {
            grid::replayed_trace()?;
        }
        let senders = vec![
            grid::RENO_1996,
            grid::SACK_1996,
            grid::today(common.host(&ABOUT)),
        ];
        Ok(Box::new(TodayPlan {
            parts: parts.iter().map(|&p| (p, p.configs(&senders))).collect(),
            senders,
            seeds: common.seeds(&ABOUT),
        }))
    }
}

/// The study planned: every part's configurations, each with every seed.
pub struct TodayPlan {
    parts: Vec<(Part, Vec<Config>)>,
    senders: Vec<Sender>,
    seeds: u64,
}

impl Plan for TodayPlan {
    type Run = TodayRun;

    fn jobs(&self) -> Vec<Job> {
        let mut out = vec![];
        for (_, configs) in &self.parts {
            for c in configs {
                for seed in 1..=self.seeds {
                    out.push(c.job(seed));
                }
            }
        }
        out
    }

    fn finish(self, results: Vec<RunResult>) -> TodayRun {
        outcome::finish(&self.parts, &self.senders, self.seeds, results)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use snooplab_sim::protocol::Protocol;

    #[test]
    fn parts_are_named_and_unknown_words_refused() {
        assert!(SnoopToday.check_parts(&[]).is_ok());
        assert!(SnoopToday.check_parts(&["Bursts".into()]).is_ok());
        let e = SnoopToday.check_parts(&["fig3".into()]).unwrap_err();
        assert!(e.contains("unknown part 'fig3' of snoop-today"), "{e}");
    }

    #[test]
    fn every_part_runs_every_agent_for_every_sender() {
        let senders = [
            grid::RENO_1996,
            grid::SACK_1996,
            grid::today(HostPreset::Linux),
        ];
        let errors = Part::Errors.configs(&senders);
        assert_eq!(errors.len(), 3 * 3 * ERROR_EVERY.len() * AGENTS.len());
        let transfers = Part::Transfers.configs(&senders);
        assert_eq!(transfers.len(), 2 * 3 * TRANSFERS.len() * AGENTS.len());
        for c in &errors {
            assert!(errors.contains(&c.without_agent()));
        }
        let plan = SnoopToday
            .plan(
                &["bursts".into()],
                &Common {
                    seeds: Some(2),
                    ..Common::default()
                },
            )
            .map(|p| p.jobs().len());
        assert_eq!(plan, Ok(2 * 3 * 3 * BURSTS.len() * AGENTS.len()));
    }

    #[test]
    fn the_flows_part_puts_every_count_of_downloads_in_one_cell() {
        let senders = [grid::RENO_1996, grid::today(HostPreset::Linux)];
        let flows = Part::Flows.configs(&senders);
        let per = FLOW_CHANNELS.len() * FLOWS.len() * AGENTS.len();
        assert_eq!(flows.len(), 2 * 2 * per);
        assert!(flows
            .iter()
            .all(|c| c.buffer == BUFFER && c.transfer == FLOW_TRANSFER));
        let twenty = flows
            .iter()
            .find(|c| c.flows == 20 && c.path == Path::Long)
            .copied();
        let Some(twenty) = twenty else {
            panic!("no configuration of 20 flows on the long path");
        };
        let job = twenty.job(4);
        assert_eq!(job.network.flows.len(), 20);
        assert_eq!(job.network.cells[0].stations.len(), 20);
        assert_eq!(job.network.seed, 4);
        assert_eq!(
            job.network.links[0].params.delay,
            grid::Path::Long.wired().delay
        );
        assert_eq!(twenty.setting(Part::Flows), "1/16 KB, 20 flows");
        // one flow is the other parts' testbed unchanged
        let one = Config::new(
            senders[1],
            Protocol::E2e,
            Path::Lan,
            Channel::Every(16 << 10),
            TRANSFER,
        );
        assert_eq!(one.job(2).network, one.scenario(2).network());
    }

    #[test]
    fn the_buffers_part_widens_only_a_window_that_scales() {
        let senders = [
            grid::RENO_1996,
            grid::SACK_1996,
            grid::today(HostPreset::Linux),
        ];
        let buffers = Part::Buffers.configs(&senders);
        let per_setting = 2 * FLOW_CHANNELS.len() * AGENTS.len();
        assert_eq!(buffers.len(), per_setting * (2 + BUFFERS.len()));
        for c in &buffers {
            let widened = c.buffer != BUFFER;
            assert!(!widened || c.sender.scales_windows(), "{c:?}");
            assert_eq!(c.flows, 1);
            assert_ne!(c.path, Path::Lan);
        }
        let four = buffers.iter().find(|c| c.buffer == 4 << 20).copied();
        let Some(four) = four else {
            panic!("no 4 MB configuration");
        };
        let sc = four.scenario(1);
        assert_eq!(sc.buffer, 4 << 20);
        assert_eq!(sc.host.get("window-scaling").as_deref(), Some("on"));
        assert_eq!(sc.validate(), Ok(()));
        assert_eq!(four.setting(Part::Buffers), "1/16 KB, 4 MB window");
        assert!(!grid::RENO_1996.scales_windows());
    }
}
