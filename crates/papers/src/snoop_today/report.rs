//! The study's report as data: every configuration summarised over its seeds (a [`Cell`]), each
//! agent's gain over no agent ([`Gain`]), the kernel's measured gains ([`KernelGain`]) and the
//! claims; computed in `outcome.rs`, rendered in `tables.rs`, checked in `claims.rs`.

use serde::Serialize;
use snooplab_sim::protocol::Protocol;
use snooplab_sim::stats::Summary;

use super::grid::Config;
use super::Part;
use crate::claim::Claim;

/// The agents whose gains at one error per 16 KB head the report: paper 000's snoop, and ours for
/// a SACK sender.
pub const HEADLINE_AGENTS: [Protocol; 2] = [Protocol::LlTcpAware, Protocol::SnoopSack];

/// Which configuration a [`Cell`] or a [`Gain`] is of, by the names the tables and the JSON give
/// it (its keys stand in the cell's or the gain's own JSON object, first).
#[derive(Clone, Debug, Serialize)]
pub struct Named {
    pub sender: &'static str,
    pub agent: &'static str,
    pub path: &'static str,
    pub channel: String,
    pub transfer_bytes: u64,
    /// What the part varies besides the agent, as the tables' rows name it (`1/16 KB`,
    /// `100 KB`, `1/16 KB, 5 flows, 64 KB window`).
    pub setting: String,
}

impl Named {
    /// The names of configuration `c` in part `part`.
    pub fn of(c: &Config, part: Part) -> Named {
        Named {
            sender: c.sender.name,
            agent: c.agent.name(),
            path: c.path.name(),
            channel: c.channel.name(),
            transfer_bytes: c.transfer,
            setting: c.setting(part),
        }
    }
}

/// One configuration over its seeds.
#[derive(Clone, Debug, Serialize)]
pub struct Cell {
    #[serde(flatten)]
    pub named: Named,
    /// Downloads in the cell at once (1 but in the `flows` part).
    pub flows: usize,
    /// Both ends' socket buffers.
    pub buffer_bytes: u32,
    /// With several flows: all of them together (`RunResult::aggregate`: every byte over the span
    /// from the first data sent to the last byte read; where a flow did not complete, the sum of
    /// the flows' own throughputs).
    pub throughput_mbps: Summary,
    /// From the first data segment to the last byte read, seconds (the last flow's).
    pub completion_s: Summary,
    /// With several flows, every flow's together (also the two counts below).
    pub timeouts: Summary,
    /// Segments the fixed host sent again (not the base station's local retransmissions).
    pub sender_retransmitted: Summary,
    /// The base station's own retransmissions (snoop's; 0 without an agent).
    pub local_retransmissions: Summary,
    /// Seeds whose transfer did not complete or broke an invariant (their numbers are in the
    /// summaries as measured: bytes delivered over the time taken).
    pub incomplete: usize,
    /// With several flows: the mean of the flows' own throughputs in a run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_flow_mbps: Option<Summary>,
    /// With several flows: Jain's fairness index of the flows' throughputs in a run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fairness: Option<Summary>,
    #[serde(skip)]
    pub config: Config,
}

/// An agent's gain over no agent for one sender, path, channel and transfer: the ratio of the
/// mean throughputs (or, for completion times, of no agent's mean time to the agent's), with the
/// half-width of its 95% interval by the delta method from the two means' intervals
/// (`r * sqrt((ca/a)^2 + (cb/b)^2)`, the seeds of the two taken as independent samples).
#[derive(Clone, Debug, Serialize)]
pub struct Gain {
    /// The agent's cell's names.
    #[serde(flatten)]
    pub named: Named,
    pub gain: f64,
    pub ci95: Option<f64>,
}

impl Gain {
    /// `1.23 ± 0.04` (or `1.23` without an interval).
    pub fn text(&self) -> String {
        match self.ci95 {
            Some(c) => format!("{:.2} ± {c:.2}", self.gain),
            None => format!("{:.2}", self.gain),
        }
    }
}

/// One part's cells and gains.
#[derive(Clone, Debug, Serialize)]
pub struct PartReport {
    pub part: &'static str,
    /// What the gains compare: `throughput` or `completion time`.
    pub measure: &'static str,
    pub cells: Vec<Cell>,
    pub gains: Vec<Gain>,
}

/// The study's report (`reproduce --json`'s value under `snoop-today`).
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub seeds: u64,
    pub senders: Vec<&'static str>,
    pub parts: Vec<PartReport>,
    /// The gains of snoop (LL-TCP-AWARE) and of snoop-sack for each sender at one error per 16 KB
    /// on each path, from the `errors` part (empty when it was not run).
    pub headline: Vec<Gain>,
    /// The same gains for the Linux kernel's CUBIC, measured live (the kernel check's data), on
    /// each path it has both points of.
    pub kernel_headline: Vec<KernelGain>,
    /// The study's claims (`claims.rs`).
    pub claims: Vec<Claim>,
}

/// Snoop's gain for the kernel's CUBIC on one path at one error per 16 KB, from the kernel
/// check's committed data (`data/kernel-check/linux.json`).
#[derive(Clone, Debug, Serialize)]
pub struct KernelGain {
    pub agent: &'static str,
    pub path: &'static str,
    pub gain: f64,
    /// Half-width of the gain's 95% interval, from the two points' runs (the delta method).
    pub ci95: Option<f64>,
    /// Live runs per side.
    pub runs: usize,
}
