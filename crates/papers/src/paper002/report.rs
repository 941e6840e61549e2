//! Paper 002's report as data: Table 1's rows, the Figs. 7 and 11 sweep, Fig. 10's latencies, the
//! baselines and the crash, and the same parts under each other combination of readings.

use serde::Serialize;
use snooplab_sim::stats::Summary;

use crate::claim::Claim;

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

/// What one handoff a second costs on the paper's testbed (one channel, beacons): the fraction
/// of the throughput without handoffs it loses, and the two throughputs, Mb/s.
pub fn handoff_per_second_cost(table1: &[Table1Row]) -> Option<(f64, f64, f64)> {
    let mean = |seconds: Option<f64>| {
        table1
            .iter()
            .find(|r| r.beacons && r.shared_channel && r.seconds == seconds)
            .map(|r| r.throughput_mbps.mean)
    };
    let (one, never) = (mean(Some(1.0))?, mean(None)?);
    Some((1.0 - one / never, one, never))
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
