//! Reading a trace directory back (`snooplab plot`): each CSV file through the bounded text
//! reader, rows split as they are read, every error naming its file, row and column.

use std::collections::HashMap;
use std::path::Path;

use snooplab_proto::Time;

use super::{
    parse_secs, AckRow, HandoffRow, HeldRow, SegmentRow, SendKind, SuppressedRow, TraceLog,
    TraceNode, WindowRow, HANDOFFS_FILE, TRACE_FILES,
};

/// The largest trace file `snooplab plot` reads (each of [`TRACE_FILES`] and [`HANDOFFS_FILE`]):
/// the trace of an 8 MB transfer is about 300 KB per file, so this takes transfers of a few hundred
/// megabytes, while a file named by mistake (a link to `/dev/zero`, a disk image) is refused before
/// it is read. Files this size of the shortest rows, read and drawn, peaked at about 700 MB (each
/// byte of a file costs about 9 in rows and drawing); twice the limit went over 1 GB.
pub(crate) const MAX_TRACE_FILE_BYTES: u64 = 16 << 20;

/// One CSV file of a trace directory: its text, whose rows are split as they are read (a row held
/// as separate strings would cost several times the file), with errors that name the place.
struct CsvFile {
    name: &'static str,
    text: String,
}

impl CsvFile {
    /// Reads `dir/name` as [`crate::textfile::read_text_file`] does (a regular file only, opened
    /// without blocking, at most [`MAX_TRACE_FILE_BYTES`]) and checks its header.
    fn open(dir: &Path, name: &'static str, header: &str) -> Result<CsvFile, String> {
        let path = dir.join(name);
        if std::fs::symlink_metadata(&path).is_err() {
            return Err(format!(
                "cannot read {}: no such file (is {} a trace directory written by `snooplab run \
                 --trace`?)",
                path.display(),
                dir.display()
            ));
        }
        let text = crate::textfile::read_text_file(&path, "trace file", MAX_TRACE_FILE_BYTES)?;
        if text.lines().next().map(str::trim) != Some(header) {
            return Err(format!(
                "{}: the first line must be the header '{header}'",
                path.display()
            ));
        }
        Ok(CsvFile { name, text })
    }

    fn rows(&self) -> impl Iterator<Item = Row<'_>> {
        self.text
            .lines()
            .enumerate()
            .skip(1)
            .filter(|(_, l)| !l.trim().is_empty())
            .map(move |(i, l)| Row {
                file: self.name,
                line: i + 1,
                fields: l.split(',').map(str::trim).collect(),
            })
    }
}

struct Row<'a> {
    file: &'static str,
    line: usize,
    fields: Vec<&'a str>,
}

impl<'a> Row<'a> {
    fn get(&self, i: usize) -> Result<&'a str, String> {
        self.fields
            .get(i)
            .copied()
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
    /// A node named in nodes.csv (by name, so a trace of many nodes is not read in quadratic
    /// time).
    fn node(&self, i: usize, nodes: &HashMap<String, usize>) -> Result<usize, String> {
        let v = self.get(i)?;
        nodes
            .get(v)
            .copied()
            .ok_or_else(|| self.bad("node (not in nodes.csv)", v))
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
    /// Reads a directory written by [`TraceLog::write_csv`]. Each file must be a regular file of at
    /// most [`MAX_TRACE_FILE_BYTES`]: the directory is the user's to name, and one of its files may
    /// be a FIFO (which would block), a device (which never ends) or simply too big to hold.
    pub fn read_csv(dir: &Path) -> Result<TraceLog, String> {
        let nodes = read_nodes(dir)?;
        // the first row of a name wins, as the simulator writes each once
        let mut by_name: HashMap<String, usize> = HashMap::new();
        for (i, n) in nodes.iter().enumerate() {
            by_name.entry(n.name.clone()).or_insert(i);
        }
        let mut flows = FlowNames::default();
        let segments = read_segments(dir, &by_name, &mut flows)?;
        let acks = read_acks(dir, &by_name, &mut flows)?;
        let windows = read_windows(dir, &by_name, &mut flows)?;
        let held = read_held(dir, &by_name)?;
        let suppressed = read_suppressed(dir, &by_name, &mut flows)?;
        let handoffs = read_handoffs(dir, &by_name)?;
        Ok(TraceLog {
            nodes,
            flows: flows.names,
            segments,
            acks,
            windows,
            held,
            suppressed,
            handoffs,
        })
    }
}

/// Flow names in the order first seen, each with its index.
#[derive(Default)]
struct FlowNames {
    names: Vec<String>,
    index: HashMap<String, usize>,
}

impl FlowNames {
    fn id(&mut self, name: &str) -> usize {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        self.names.push(name.to_string());
        self.index.insert(name.to_string(), self.names.len() - 1);
        self.names.len() - 1
    }
}

/// `nodes.csv`: every node's name and whether it is a base station.
fn read_nodes(dir: &Path) -> Result<Vec<TraceNode>, String> {
    let mut nodes = vec![];
    let f = CsvFile::open(dir, TRACE_FILES[5], "name,kind")?;
    for r in f.rows() {
        let base_station = match r.get(1)? {
            "host" => false,
            "base-station" => true,
            v => return Err(r.bad("kind (host or base-station)", v)),
        };
        nodes.push(TraceNode {
            name: r.get(0)?.to_string(),
            base_station,
        });
    }
    Ok(nodes)
}

/// `segments.csv`: every data segment sent.
fn read_segments(
    dir: &Path,
    nodes: &HashMap<String, usize>,
    flows: &mut FlowNames,
) -> Result<Vec<SegmentRow>, String> {
    let mut out = vec![];
    let f = CsvFile::open(dir, TRACE_FILES[0], "time_s,flow,sender,seq,len,kind")?;
    for r in f.rows() {
        let kind = match r.get(5)? {
            "new" => SendKind::New,
            "fast" => SendKind::Fast,
            "timeout" => SendKind::Timeout,
            "local" => SendKind::Local,
            "persist" => SendKind::Persist,
            v => return Err(r.bad("kind (new, fast, timeout, local, persist)", v)),
        };
        out.push(SegmentRow {
            at: r.time(0)?,
            flow: flows.id(r.get(1)?),
            sender: r.node(2, nodes)?,
            seq: r.num(3, "sequence offset")?,
            len: r.num(4, "length")?,
            kind,
        });
    }
    Ok(out)
}

/// `acks.csv`: every ACK received.
fn read_acks(
    dir: &Path,
    nodes: &HashMap<String, usize>,
    flows: &mut FlowNames,
) -> Result<Vec<AckRow>, String> {
    let mut out = vec![];
    let f = CsvFile::open(
        dir,
        TRACE_FILES[1],
        "time_s,flow,at,ack,window,duplicate,eln,sack_blocks,smart",
    )?;
    for r in f.rows() {
        let smart = match r.get(8)? {
            "" => None,
            _ => Some(r.num(8, "SMART offset")?),
        };
        out.push(AckRow {
            at: r.time(0)?,
            flow: flows.id(r.get(1)?),
            receiver: r.node(2, nodes)?,
            ack: r.num(3, "ack offset")?,
            window: r.num(4, "window")?,
            duplicate: r.flag(5)?,
            eln: r.flag(6)?,
            sack_blocks: r.num(7, "SACK block count")?,
            smart,
        });
    }
    Ok(out)
}

/// `cwnd.csv`: every sender's windows as they change.
fn read_windows(
    dir: &Path,
    nodes: &HashMap<String, usize>,
    flows: &mut FlowNames,
) -> Result<Vec<WindowRow>, String> {
    let mut out = vec![];
    let f = CsvFile::open(
        dir,
        TRACE_FILES[2],
        "time_s,flow,sender,cwnd,ssthresh,snd_wnd,snd_cur",
    )?;
    for r in f.rows() {
        out.push(WindowRow {
            at: r.time(0)?,
            flow: flows.id(r.get(1)?),
            sender: r.node(2, nodes)?,
            cwnd: r.num(3, "cwnd")?,
            ssthresh: r.num(4, "ssthresh")?,
            snd_wnd: r.num(5, "snd_wnd")?,
        });
    }
    Ok(out)
}

/// `bs_cache.csv`: what each base station holds.
fn read_held(dir: &Path, nodes: &HashMap<String, usize>) -> Result<Vec<HeldRow>, String> {
    let mut out = vec![];
    let f = CsvFile::open(dir, TRACE_FILES[3], "time_s,node,segments,bytes")?;
    for r in f.rows() {
        out.push(HeldRow {
            at: r.time(0)?,
            node: r.node(1, nodes)?,
            segments: r.num(2, "segment count")?,
            bytes: r.num(3, "byte count")?,
        });
    }
    Ok(out)
}

/// `suppressed_dupacks.csv`: duplicate ACKs a base station kept from the sender.
fn read_suppressed(
    dir: &Path,
    nodes: &HashMap<String, usize>,
    flows: &mut FlowNames,
) -> Result<Vec<SuppressedRow>, String> {
    let mut out = vec![];
    let f = CsvFile::open(dir, TRACE_FILES[4], "time_s,flow,node,ack")?;
    for r in f.rows() {
        out.push(SuppressedRow {
            at: r.time(0)?,
            flow: flows.id(r.get(1)?),
            node: r.node(2, nodes)?,
            ack: r.num(3, "ack offset")?,
        });
    }
    Ok(out)
}

/// `handoffs.csv`, where the run had handoffs (the file is optional).
fn read_handoffs(dir: &Path, nodes: &HashMap<String, usize>) -> Result<Vec<HandoffRow>, String> {
    let mut out = vec![];
    if dir.join(HANDOFFS_FILE).exists() {
        let f = CsvFile::open(dir, HANDOFFS_FILE, "time_s,mobile,from,to")?;
        for r in f.rows() {
            out.push(HandoffRow {
                at: r.time(0)?,
                mobile: r.node(1, nodes)?,
                from: r.node(2, nodes)?,
                to: r.node(3, nodes)?,
            });
        }
    }
    Ok(out)
}
