//! Per-run time series, the evidence behind the papers' sequence and window plots (paper 000
//! Figs. 4, 5, 7, 8, 10, 11), written as CSV.
//!
//! Two senders can appear: `fh`, the fixed host's TCP, and `bs`, the base station when it sends data
//! of its own (a link-layer local retransmission, or a split connection's wireless side). Sequence
//! numbers are byte offsets into the transfer as that sender numbers it (0 = first data byte).

use std::fmt::Write as _;
use std::io;
use std::path::Path;

use snooplab_proto::tcp::TxKind;
use snooplab_proto::Time;

/// Who sent a data segment or received an ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Who {
    /// The fixed host.
    Fh,
    /// The base station.
    Bs,
}

impl Who {
    pub fn name(self) -> &'static str {
        match self {
            Who::Fh => "fh",
            Who::Bs => "bs",
        }
    }
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
            TxKind::Ack => None,
            TxKind::FastRetransmit => Some(SendKind::Fast),
            TxKind::TimeoutRetransmit => Some(SendKind::Timeout),
            TxKind::PersistProbe => Some(SendKind::Persist),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct SegmentRow {
    pub at: Time,
    pub sender: Who,
    pub seq: u64,
    pub len: u32,
    pub kind: SendKind,
}

#[derive(Clone, Debug, PartialEq)]
pub struct AckRow {
    pub at: Time,
    /// Where the ACK arrived: the fixed host, or the base station (from the mobile host).
    pub receiver: Who,
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
    pub sender: Who,
    pub cwnd: u32,
    pub ssthresh: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct HeldRow {
    pub at: Time,
    pub segments: u32,
    pub bytes: u64,
}

/// Everything traced in one run, in time order per table.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TraceLog {
    pub segments: Vec<SegmentRow>,
    pub acks: Vec<AckRow>,
    pub windows: Vec<WindowRow>,
    /// What the base station holds (snoop's cache, or a split relay's buffer), on each change.
    pub held: Vec<HeldRow>,
    /// Duplicate ACKs the base station suppressed: time and acknowledgment offset.
    pub suppressed: Vec<(Time, u64)>,
}

/// The names of the files [`TraceLog::write_csv`] writes.
pub const TRACE_FILES: [&str; 5] = [
    "segments.csv",
    "acks.csv",
    "cwnd.csv",
    "bs_cache.csv",
    "suppressed_dupacks.csv",
];

/// Seconds with nanosecond digits.
pub fn secs(t: Time) -> String {
    format!("{}.{:09}", t / 1_000_000_000, t % 1_000_000_000)
}

impl TraceLog {
    /// Writes one CSV file per table into `dir` (which must exist).
    pub fn write_csv(&self, dir: &Path) -> io::Result<()> {
        let mut s = String::from("time_s,sender,seq,len,kind\n");
        for r in &self.segments {
            let _ = writeln!(
                s,
                "{},{},{},{},{}",
                secs(r.at),
                r.sender.name(),
                r.seq,
                r.len,
                r.kind.name()
            );
        }
        std::fs::write(dir.join(TRACE_FILES[0]), &s)?;

        s = String::from("time_s,at,ack,window,duplicate,eln,sack_blocks,smart\n");
        for r in &self.acks {
            let _ = writeln!(
                s,
                "{},{},{},{},{},{},{},{}",
                secs(r.at),
                r.receiver.name(),
                r.ack,
                r.window,
                u8::from(r.duplicate),
                u8::from(r.eln),
                r.sack_blocks,
                r.smart.map(|v| v.to_string()).unwrap_or_default()
            );
        }
        std::fs::write(dir.join(TRACE_FILES[1]), &s)?;

        s = String::from("time_s,sender,cwnd,ssthresh\n");
        for r in &self.windows {
            let _ = writeln!(
                s,
                "{},{},{},{}",
                secs(r.at),
                r.sender.name(),
                r.cwnd,
                r.ssthresh
            );
        }
        std::fs::write(dir.join(TRACE_FILES[2]), &s)?;

        s = String::from("time_s,segments,bytes\n");
        for r in &self.held {
            let _ = writeln!(s, "{},{},{}", secs(r.at), r.segments, r.bytes);
        }
        std::fs::write(dir.join(TRACE_FILES[3]), &s)?;

        s = String::from("time_s,ack\n");
        for (at, ack) in &self.suppressed {
            let _ = writeln!(s, "{},{}", secs(*at), ack);
        }
        std::fs::write(dir.join(TRACE_FILES[4]), &s)
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

/// One CSV file of a trace directory, read line by line with errors that name the place.
struct CsvFile {
    name: &'static str,
    lines: Vec<(usize, Vec<String>)>,
}

impl CsvFile {
    fn open(dir: &Path, name: &'static str, header: &str) -> Result<CsvFile, String> {
        let path = dir.join(name);
        let text = std::fs::read_to_string(&path).map_err(|e| {
            format!(
                "cannot read {}: {e} (is {} a trace directory written by `snooplab run --trace`?)",
                path.display(),
                dir.display()
            )
        })?;
        let mut it = text.lines();
        if it.next().map(str::trim) != Some(header) {
            return Err(format!(
                "{}: the first line must be the header '{header}'",
                path.display()
            ));
        }
        let lines = it
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .map(|(i, l)| (i + 2, l.split(',').map(|f| f.trim().to_string()).collect()))
            .collect();
        Ok(CsvFile { name, lines })
    }

    fn rows(&self) -> impl Iterator<Item = Row<'_>> {
        self.lines.iter().map(move |(n, f)| Row {
            file: self.name,
            line: *n,
            fields: f,
        })
    }
}

struct Row<'a> {
    file: &'static str,
    line: usize,
    fields: &'a [String],
}

impl Row<'_> {
    fn get(&self, i: usize) -> Result<&str, String> {
        self.fields
            .get(i)
            .map(String::as_str)
            .ok_or_else(|| format!("{} line {}: expected field {}", self.file, self.line, i + 1))
    }
    fn bad(&self, what: &str, v: &str) -> String {
        format!("{} line {}: bad {what} '{v}'", self.file, self.line)
    }
    fn time(&self, i: usize) -> Result<Time, String> {
        let v = self.get(i)?;
        parse_secs(v).ok_or_else(|| self.bad("time", v))
    }
    fn num<T: std::str::FromStr>(&self, i: usize, what: &str) -> Result<T, String> {
        let v = self.get(i)?;
        v.parse().map_err(|_| self.bad(what, v))
    }
    fn who(&self, i: usize) -> Result<Who, String> {
        match self.get(i)? {
            "fh" => Ok(Who::Fh),
            "bs" => Ok(Who::Bs),
            v => Err(self.bad("sender (fh or bs)", v)),
        }
    }
    fn flag(&self, i: usize) -> Result<bool, String> {
        match self.get(i)? {
            "0" => Ok(false),
            "1" => Ok(true),
            v => Err(self.bad("flag (0 or 1)", v)),
        }
    }
}

impl TraceLog {
    /// Reads a directory written by [`TraceLog::write_csv`].
    pub fn read_csv(dir: &Path) -> Result<TraceLog, String> {
        let mut t = TraceLog::default();
        let f = CsvFile::open(dir, TRACE_FILES[0], "time_s,sender,seq,len,kind")?;
        for r in f.rows() {
            let kind = match r.get(4)? {
                "new" => SendKind::New,
                "fast" => SendKind::Fast,
                "timeout" => SendKind::Timeout,
                "local" => SendKind::Local,
                "persist" => SendKind::Persist,
                v => return Err(r.bad("kind (new, fast, timeout, local, persist)", v)),
            };
            t.segments.push(SegmentRow {
                at: r.time(0)?,
                sender: r.who(1)?,
                seq: r.num(2, "sequence offset")?,
                len: r.num(3, "length")?,
                kind,
            });
        }
        let f = CsvFile::open(
            dir,
            TRACE_FILES[1],
            "time_s,at,ack,window,duplicate,eln,sack_blocks,smart",
        )?;
        for r in f.rows() {
            let smart = match r.get(7)? {
                "" => None,
                _ => Some(r.num(7, "SMART offset")?),
            };
            t.acks.push(AckRow {
                at: r.time(0)?,
                receiver: r.who(1)?,
                ack: r.num(2, "ack offset")?,
                window: r.num(3, "window")?,
                duplicate: r.flag(4)?,
                eln: r.flag(5)?,
                sack_blocks: r.num(6, "SACK block count")?,
                smart,
            });
        }
        let f = CsvFile::open(dir, TRACE_FILES[2], "time_s,sender,cwnd,ssthresh")?;
        for r in f.rows() {
            t.windows.push(WindowRow {
                at: r.time(0)?,
                sender: r.who(1)?,
                cwnd: r.num(2, "cwnd")?,
                ssthresh: r.num(3, "ssthresh")?,
            });
        }
        let f = CsvFile::open(dir, TRACE_FILES[3], "time_s,segments,bytes")?;
        for r in f.rows() {
            t.held.push(HeldRow {
                at: r.time(0)?,
                segments: r.num(1, "segment count")?,
                bytes: r.num(2, "byte count")?,
            });
        }
        let f = CsvFile::open(dir, TRACE_FILES[4], "time_s,ack")?;
        for r in f.rows() {
            t.suppressed.push((r.time(0)?, r.num(1, "ack offset")?));
        }
        Ok(t)
    }
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
