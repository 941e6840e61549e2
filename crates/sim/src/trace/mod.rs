//! Per-run time series, the evidence behind the papers' sequence and window plots (paper 000
//! Figs. 4, 5, 7, 8, 10, 11), written as CSV.
//!
//! Every row names its flow and a node: a host's TCP, or a base station when it sends data of its own
//! (a link-layer local retransmission, or a split connection's wireless side) or receives ACKs from its
//! cell. Sequence numbers are byte offsets into the flow's transfer as that sender numbers it (0 =
//! first data byte). `nodes.csv` says which node is a base station.

use std::fmt::Write as _;
use std::io;
use std::path::Path;

use snooplab_proto::tcp::TxKind;
use snooplab_proto::Time;

mod read;

/// A node of the traced run, by name, and whether it is a base station (a base station's own data
/// segments are local retransmissions or a split connection's).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceNode {
    pub name: String,
    pub base_station: bool,
}

/// Why a data segment was sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SendKind {
    New,
    /// Fast retransmission (and the other duplicate-ACK-driven resends: ELN, NewReno, SACK, SMART).
    Fast,
    /// Retransmission after a coarse timeout.
    Timeout,
    /// Local retransmission by the base station's link-layer agent.
    Local,
    /// A persist-timer probe into a closed (or too small) window.
    Persist,
}

impl SendKind {
    pub fn name(self) -> &'static str {
        match self {
            SendKind::New => "new",
            SendKind::Fast => "fast",
            SendKind::Timeout => "timeout",
            SendKind::Local => "local",
            SendKind::Persist => "persist",
        }
    }

    /// The kind of a TCP endpoint's transmission (`None` for pure ACKs).
    pub fn of(kind: TxKind) -> Option<SendKind> {
        match kind {
            TxKind::New => Some(SendKind::New),
            TxKind::Ack | TxKind::Reset => None,
            TxKind::FastRetransmit => Some(SendKind::Fast),
            TxKind::TimeoutRetransmit => Some(SendKind::Timeout),
            TxKind::PersistProbe => Some(SendKind::Persist),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct SegmentRow {
    pub at: Time,
    /// Index into [`TraceLog::flows`].
    pub flow: usize,
    /// Index into [`TraceLog::nodes`].
    pub sender: usize,
    pub seq: u64,
    pub len: u32,
    pub kind: SendKind,
}

#[derive(Clone, Debug, PartialEq)]
pub struct AckRow {
    pub at: Time,
    pub flow: usize,
    /// Where the ACK arrived: the flow's sender, or a base station (from its cell).
    pub receiver: usize,
    pub ack: u64,
    pub window: u16,
    /// Same acknowledgment number as the previous ACK there, no data.
    pub duplicate: bool,
    pub eln: bool,
    pub sack_blocks: u8,
    /// SMART: offset of the segment that caused the ACK.
    pub smart: Option<u64>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct WindowRow {
    pub at: Time,
    pub flow: usize,
    pub sender: usize,
    pub cwnd: u32,
    pub ssthresh: u32,
    /// The peer's advertised window as the sender holds it (`snd_wnd`); `snd_cur` (paper 001
    /// section 4.4) is `min(cwnd, snd_wnd)`. 0 where not known (a split relay's sender).
    pub snd_wnd: u32,
}

impl WindowRow {
    /// Paper 001's `snd_cur`: what the sender may have outstanding, `min(cwnd, snd_wnd)`.
    pub fn snd_cur(&self) -> u32 {
        self.cwnd.min(self.snd_wnd)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct HeldRow {
    pub at: Time,
    /// The base station.
    pub node: usize,
    pub segments: u32,
    pub bytes: u64,
}

/// A duplicate ACK a base station kept from the sender.
#[derive(Clone, Debug, PartialEq)]
pub struct SuppressedRow {
    pub at: Time,
    pub flow: usize,
    pub node: usize,
    /// Acknowledgment offset.
    pub ack: u64,
}

/// A mobile host decided to hand off from one base station to another (paper 002).
#[derive(Clone, Debug, PartialEq)]
pub struct HandoffRow {
    pub at: Time,
    pub mobile: usize,
    pub from: usize,
    pub to: usize,
}

/// Where a trace keeps its handoffs (written only when there are any).
pub const HANDOFFS_FILE: &str = "handoffs.csv";

/// Everything traced in one run, in time order per table.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TraceLog {
    pub nodes: Vec<TraceNode>,
    /// Flow names, by flow index.
    pub flows: Vec<String>,
    pub segments: Vec<SegmentRow>,
    pub acks: Vec<AckRow>,
    pub windows: Vec<WindowRow>,
    /// What each base station holds (snoop's cache, or a split relay's buffer), on each change.
    pub held: Vec<HeldRow>,
    /// Duplicate ACKs base stations suppressed.
    pub suppressed: Vec<SuppressedRow>,
    /// Handoffs of mobile hosts (paper 002).
    pub handoffs: Vec<HandoffRow>,
}

impl TraceLog {
    /// A node's name (`?` for an index the trace does not know).
    pub fn name(&self, node: usize) -> &str {
        self.nodes.get(node).map_or("?", |n| n.name.as_str())
    }

    /// Whether `node` is a base station.
    pub fn is_base_station(&self, node: usize) -> bool {
        self.nodes.get(node).is_some_and(|n| n.base_station)
    }

    /// A flow's name.
    pub fn flow_name(&self, flow: usize) -> &str {
        self.flows.get(flow).map_or("?", String::as_str)
    }
}

/// The names of the files [`TraceLog::write_csv`] writes.
pub const TRACE_FILES: [&str; 6] = [
    "segments.csv",
    "acks.csv",
    "cwnd.csv",
    "bs_cache.csv",
    "suppressed_dupacks.csv",
    "nodes.csv",
];

/// Seconds with nanosecond digits.
pub fn secs(t: Time) -> String {
    format!("{}.{:09}", t / 1_000_000_000, t % 1_000_000_000)
}

impl TraceLog {
    /// Writes one CSV file per table into `dir` (which must exist).
    pub fn write_csv(&self, dir: &Path) -> io::Result<()> {
        let mut s = String::from("time_s,flow,sender,seq,len,kind\n");
        for r in &self.segments {
            let _ = writeln!(
                s,
                "{},{},{},{},{},{}",
                secs(r.at),
                self.flow_name(r.flow),
                self.name(r.sender),
                r.seq,
                r.len,
                r.kind.name()
            );
        }
        std::fs::write(dir.join(TRACE_FILES[0]), &s)?;

        s = String::from("time_s,flow,at,ack,window,duplicate,eln,sack_blocks,smart\n");
        for r in &self.acks {
            let _ = writeln!(
                s,
                "{},{},{},{},{},{},{},{},{}",
                secs(r.at),
                self.flow_name(r.flow),
                self.name(r.receiver),
                r.ack,
                r.window,
                u8::from(r.duplicate),
                u8::from(r.eln),
                r.sack_blocks,
                r.smart.map(|v| v.to_string()).unwrap_or_default()
            );
        }
        std::fs::write(dir.join(TRACE_FILES[1]), &s)?;

        s = String::from("time_s,flow,sender,cwnd,ssthresh,snd_wnd,snd_cur\n");
        for r in &self.windows {
            let _ = writeln!(
                s,
                "{},{},{},{},{},{},{}",
                secs(r.at),
                self.flow_name(r.flow),
                self.name(r.sender),
                r.cwnd,
                r.ssthresh,
                r.snd_wnd,
                r.snd_cur()
            );
        }
        std::fs::write(dir.join(TRACE_FILES[2]), &s)?;

        s = String::from("time_s,node,segments,bytes\n");
        for r in &self.held {
            let _ = writeln!(
                s,
                "{},{},{},{}",
                secs(r.at),
                self.name(r.node),
                r.segments,
                r.bytes
            );
        }
        std::fs::write(dir.join(TRACE_FILES[3]), &s)?;

        s = String::from("time_s,flow,node,ack\n");
        for r in &self.suppressed {
            let _ = writeln!(
                s,
                "{},{},{},{}",
                secs(r.at),
                self.flow_name(r.flow),
                self.name(r.node),
                r.ack
            );
        }
        std::fs::write(dir.join(TRACE_FILES[4]), &s)?;

        if !self.handoffs.is_empty() {
            s = String::from("time_s,mobile,from,to\n");
            for r in &self.handoffs {
                let _ = writeln!(
                    s,
                    "{},{},{},{}",
                    secs(r.at),
                    self.name(r.mobile),
                    self.name(r.from),
                    self.name(r.to)
                );
            }
            std::fs::write(dir.join(HANDOFFS_FILE), &s)?;
        }

        s = String::from("name,kind\n");
        for n in &self.nodes {
            let kind = if n.base_station {
                "base-station"
            } else {
                "host"
            };
            let _ = writeln!(s, "{},{kind}", n.name);
        }
        std::fs::write(dir.join(TRACE_FILES[5]), &s)
    }
}

/// Reads seconds written by [`secs`] (or any decimal seconds) back into nanoseconds.
pub fn parse_secs(s: &str) -> Option<Time> {
    let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
    if frac.len() > 9 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let whole: u64 = whole.parse().ok()?;
    let frac: u64 = if frac.is_empty() {
        0
    } else {
        format!("{frac:0<9}").parse().ok()?
    };
    whole.checked_mul(1_000_000_000)?.checked_add(frac)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn seconds_round_trip(t in any::<u64>()) {
            prop_assert_eq!(parse_secs(&secs(t)), Some(t));
        }
    }

    #[test]
    fn parse_secs_rejects_junk() {
        assert_eq!(parse_secs("1.5"), Some(1_500_000_000));
        assert_eq!(parse_secs("2"), Some(2_000_000_000));
        for bad in ["", "x", "1.x", "-1", "1.0000000001", "1.-5"] {
            assert_eq!(parse_secs(bad), None, "{bad}");
        }
    }
}
