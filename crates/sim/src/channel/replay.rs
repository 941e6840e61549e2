//! A trace-driven channel: replays recorded error marks instead of drawing them, so that a measured
//! loss process (or one generated once, `snooplab channel-trace`) hits every protocol the same way,
//! in the simulator and in `snooplab live` alike.
//!
//! The text format (documented in docs/channels.md), `#` starts a comment:
//!
//! ```text
//! frames [repeat]          # per-frame marks: the n-th frame through the channel is corrupted
//! 0000100000 0110000000    # if mark n is 1 (or x); 0 (or .) passes it; blanks are ignored
//! ```
//!
//! ```text
//! time                     # bad periods in seconds: a frame that starts inside [start, end)
//! 0.500 0.520              # is corrupted; one period a line, in order, not overlapping
//! ```
//!
//! Without `repeat` the channel is clean once the marks run out; with it they start again.

use snooplab_proto::Time;

use crate::trace::{parse_secs, secs};

/// Largest trace file read: 16 MiB.
pub const MAX_TRACE_BYTES: u64 = 16 << 20;

/// Room kept in a trace file for its comment lines and header.
const TRACE_HEADER_ROOM: u64 = 4096;

/// Most per-frame marks a trace file of [`MAX_TRACE_BYTES`] holds as [`ChannelTrace::to_text`]
/// writes them (ten marks and a blank or a newline per 11 bytes): about 15 million.
pub const MAX_TRACE_FRAMES: u64 = (MAX_TRACE_BYTES - TRACE_HEADER_ROOM) / 11 * 10;

/// Most bad periods a trace file of [`MAX_TRACE_BYTES`] holds, at the longest line `to_text` writes
/// for a period within a day (`86400.000000000 86400.000000000`, 32 bytes): about 520,000.
pub const MAX_TRACE_PERIODS: usize = ((MAX_TRACE_BYTES - TRACE_HEADER_ROOM) / 32) as usize;

/// A parsed trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChannelTrace {
    /// Where it came from (the file name), for labels.
    pub source: String,
    pub marks: Marks,
}

/// The marks of a trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Marks {
    /// One mark per frame, in the order frames go through the channel.
    Frames { lost: Vec<bool>, repeat: bool },
    /// Bad periods `[start, end)` in ns, sorted and disjoint.
    Times { bad: Vec<(Time, Time)> },
}

impl ChannelTrace {
    /// Parses the text format; errors name the line.
    pub fn parse(text: &str, source: &str) -> Result<ChannelTrace, String> {
        let mut lines = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l.split('#').next().unwrap_or("").trim()))
            .filter(|(_, l)| !l.is_empty());
        let Some((n, header)) = lines.next() else {
            return Err(format!(
                "{source}: empty channel trace: start with `frames` or `time`"
            ));
        };
        let words: Vec<&str> = header.split_whitespace().collect();
        let marks = match words.as_slice() {
            ["frames"] | ["frames", "repeat"] => {
                let mut lost = Vec::new();
                for (n, line) in lines {
                    for c in line.chars() {
                        match c {
                            '0' | '.' => lost.push(false),
                            '1' | 'x' | 'X' => lost.push(true),
                            c if c.is_whitespace() => {}
                            c => {
                                return Err(format!(
                                    "{source} line {n}: `{c}` is not a frame mark (use 0 or 1)"
                                ))
                            }
                        }
                    }
                }
                if lost.is_empty() {
                    return Err(format!("{source}: the trace has no frame marks"));
                }
                Marks::Frames {
                    lost,
                    repeat: words.len() == 2,
                }
            }
            ["time"] => {
                let mut bad: Vec<(Time, Time)> = Vec::new();
                for (n, line) in lines {
                    let f: Vec<&str> = line.split_whitespace().collect();
                    let secs = |s: &str| {
                        parse_secs(s).ok_or_else(|| {
                            format!("{source} line {n}: `{s}` is not a time in seconds")
                        })
                    };
                    let [a, b] = f.as_slice() else {
                        return Err(format!(
                            "{source} line {n}: expected `start end` in seconds, got `{line}`"
                        ));
                    };
                    let (start, end) = (secs(a)?, secs(b)?);
                    if end <= start {
                        return Err(format!(
                            "{source} line {n}: the period ends ({b}) before it starts ({a})"
                        ));
                    }
                    if bad.last().is_some_and(|&(_, e)| start < e) {
                        return Err(format!(
                            "{source} line {n}: periods must be in order and not overlap"
                        ));
                    }
                    bad.push((start, end));
                }
                Marks::Times { bad }
            }
            _ => {
                return Err(format!(
                "{source} line {n}: expected `frames`, `frames repeat` or `time`, got `{header}`"
            ))
            }
        };
        Ok(ChannelTrace {
            source: source.to_string(),
            marks,
        })
    }

    /// Reads a trace file: a regular file of at most [`MAX_TRACE_BYTES`].
    pub fn read(path: &std::path::Path) -> Result<ChannelTrace, String> {
        let text = crate::textfile::read_text_file(path, "channel trace", MAX_TRACE_BYTES)?;
        ChannelTrace::parse(&text, &path.display().to_string())
    }

    /// The trace in the text format (what `snooplab channel-trace` writes).
    pub fn to_text(&self, comment: &str) -> String {
        let mut out = String::new();
        for line in comment.lines() {
            out.push_str("# ");
            out.push_str(line);
            out.push('\n');
        }
        match &self.marks {
            Marks::Frames { lost, repeat } => {
                out.push_str(if *repeat {
                    "frames repeat\n"
                } else {
                    "frames\n"
                });
                for chunk in lost.chunks(100) {
                    for block in chunk.chunks(10) {
                        out.extend(block.iter().map(|&l| if l { '1' } else { '0' }));
                        out.push(' ');
                    }
                    out.pop();
                    out.push('\n');
                }
            }
            Marks::Times { bad } => {
                out.push_str("time\n");
                // exact nanoseconds: seconds as an f64 lose them past about 2^53 ns (104 days),
                // which the reader accepts, and the text would no longer read back as the trace
                for (s, e) in bad {
                    out.push_str(&format!("{} {}\n", secs(*s), secs(*e)));
                }
            }
        }
        out
    }

    /// Frames marked lost, or bad periods, for labels.
    pub fn summary(&self) -> String {
        match &self.marks {
            Marks::Frames { lost, repeat } => format!(
                "{} of {} frames{}",
                lost.iter().filter(|&&l| l).count(),
                lost.len(),
                if *repeat { ", repeated" } else { "" }
            ),
            Marks::Times { bad } => format!("{} bad periods", bad.len()),
        }
    }
}

/// The running state of one direction's replay.
#[derive(Clone, Debug)]
pub struct Replay {
    trace: std::sync::Arc<ChannelTrace>,
    /// Frames seen (frame marks), or the first bad period not yet over (time marks).
    next: usize,
}

impl Replay {
    pub fn new(trace: std::sync::Arc<ChannelTrace>) -> Replay {
        Replay { trace, next: 0 }
    }

    /// A frame starts at `now`; true if the trace marks it (times must not go backwards).
    pub fn corrupts(&mut self, now: Time) -> bool {
        match &self.trace.marks {
            Marks::Frames { lost, repeat } => {
                let i = self.next;
                self.next += 1;
                if i < lost.len() {
                    lost[i]
                } else if *repeat {
                    lost[i % lost.len()]
                } else {
                    false
                }
            }
            Marks::Times { bad } => {
                while self.next < bad.len() && bad[self.next].1 <= now {
                    self.next += 1;
                }
                bad.get(self.next).is_some_and(|&(s, _)| s <= now)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// Found by fuzzing (fuzz/fuzz_targets/channel_trace.rs): a period ending after 2^53 ns was
    /// written back through an f64 and lost its last nanoseconds.
    #[test]
    fn late_periods_are_written_back_to_the_nanosecond() {
        let t = ChannelTrace::parse("time\n18.967 93665519.238000005\n", "t").unwrap();
        let text = t.to_text("");
        assert!(text.contains("18.967000000 93665519.238000005"), "{text}");
        assert_eq!(ChannelTrace::parse(&text, "t").unwrap(), t);
    }

    #[test]
    fn frame_marks_replay_frame_for_frame() {
        let t = ChannelTrace::parse("# test\nframes\n0100 1\n..x\n", "t").unwrap();
        let mut r = Replay::new(Arc::new(t));
        let got: Vec<bool> = (0..10).map(|i| r.corrupts(i)).collect();
        let want = [
            false, true, false, false, true, false, false, true, false, false,
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn repeat_starts_again() {
        let t = ChannelTrace::parse("frames repeat\n01\n", "t").unwrap();
        let mut r = Replay::new(Arc::new(t));
        let got: Vec<bool> = (0..5).map(|i| r.corrupts(i)).collect();
        assert_eq!(got, [false, true, false, true, false]);
    }

    #[test]
    fn time_marks_cover_half_open_periods() {
        let t = ChannelTrace::parse("time\n0.5 0.6\n1 1.25 # second\n", "t").unwrap();
        let mut r = Replay::new(Arc::new(t));
        let ms = 1_000_000;
        let got: Vec<bool> = [0, 500, 599, 600, 999, 1000, 1100, 1250, 5000]
            .iter()
            .map(|&m| r.corrupts(m * ms))
            .collect();
        assert_eq!(
            got,
            [false, true, true, false, false, true, true, false, false]
        );
    }

    #[test]
    fn text_round_trips() {
        let t = ChannelTrace {
            source: "x".into(),
            marks: Marks::Frames {
                lost: (0..237).map(|i| i % 7 == 3).collect(),
                repeat: true,
            },
        };
        let back = ChannelTrace::parse(&t.to_text("made by a test\nsecond line"), "x").unwrap();
        assert_eq!(back, t);
        let t = ChannelTrace {
            source: "y".into(),
            marks: Marks::Times {
                bad: vec![(1, 2), (500_000_000, 750_000_001)],
            },
        };
        assert_eq!(ChannelTrace::parse(&t.to_text(""), "y").unwrap(), t);
    }

    #[test]
    fn errors_name_the_line() {
        let e = |s: &str| ChannelTrace::parse(s, "f").unwrap_err();
        assert!(e("").contains("empty"));
        assert!(e("frames\n01z\n").starts_with("f line 2:"));
        assert!(e("bits\n").starts_with("f line 1:"));
        assert!(e("time\n1 2\n1.5 3\n").contains("line 3"));
        assert!(e("time\n2 1\n").contains("line 2"));
        assert!(e("time\n1\n").contains("line 2"));
        assert!(e("frames\n").contains("no frame marks"));
    }
}
