//! The study's report to read: the headline gains, then per part and path one table (a row per
//! sender and setting, a column per agent) and, for the error rates, one sweep chart per sender
//! and path.

use snooplab_sim::protocol::Protocol;

use super::grid::{flows, kb, window, Path, AGENTS, BUFFERS, ERROR_EVERY, FLOWS, FLOW_CHANNELS};
use super::report::{Cell, PartReport, Report, HEADLINE_AGENTS};
use crate::claim::Claim;
use crate::document::{Chart, Document, Heat, Line, Row, Sweep, Table};
use crate::study::StudyReport;

impl StudyReport for Report {
    fn claims(&self) -> &[Claim] {
        &self.claims
    }
    fn document(&self) -> Document {
        document(self)
    }
}

fn document(r: &Report) -> Document {
    let mut d = Document::default();
    d.text(format!(
        "Paper 000's question asked of three senders ({}): which agent at the base station \
         hides the wireless losses best? Paper 000's testbed, 64 KB windows (the buffers \
         part: up to 4 MB for the sender that scales its windows), 1400-byte segments, one \
         download (the flows part: up to 20 in the cell at once), {} seeds per configuration. Each cell: the mean ± its 95% interval over the \
         seeds, with [min, max] under it; a gain is the agent's over no agent for the same \
         sender and setting, with its interval (docs/snoop-today.md).",
        r.senders.join(", "),
        r.seeds
    ));
    for agent in HEADLINE_AGENTS {
        headline(&mut d, r, agent);
    }
    d.claims(&r.claims);
    for part in &r.parts {
        part_tables(&mut d, part, &r.senders);
        if part.part == "errors" {
            for sender in &r.senders {
                for agent in &AGENTS[1..] {
                    d.chart(
                        Chart::Heat(heat(part, sender, agent.name())),
                        format!("gain-{sender}-{}", short(*agent)),
                        format!(
                            "{}'s gain over no agent for {sender}, by error rate and path",
                            agent.name()
                        ),
                    );
                }
            }
        }
        let today = r.senders.last().copied().unwrap_or_default();
        let (senders, columns, x_desc): (&[&str], Vec<String>, &str) = match part.part {
            "flows" => (
                &r.senders,
                FLOWS.iter().map(|&n| flows(n)).collect(),
                "downloads in the cell",
            ),
            "buffers" => (
                &[today],
                BUFFERS.iter().map(|&b| window(b)).collect(),
                "socket buffers",
            ),
            _ => continue,
        };
        for sender in senders {
            for agent in HEADLINE_AGENTS {
                d.chart(
                    Chart::Heat(setting_heat(part, sender, agent.name(), &columns, x_desc)),
                    format!("{}-gain-{sender}-{}", part.part, short(agent)),
                    format!(
                        "{}'s gain over no agent for {sender}, by {x_desc}, path and error rate",
                        agent.name()
                    ),
                );
            }
        }
    }
    d
}

/// An agent's gain for one sender over a part's own setting (columns: the text after the
/// channel in [`Cell::setting`]) and the paths and error rates it ran (rows).
fn setting_heat(
    part: &PartReport,
    sender: &str,
    agent: &str,
    columns: &[String],
    x_desc: &str,
) -> Heat {
    let mut rows = vec![];
    let mut values = vec![];
    for path in Path::ALL {
        for every in FLOW_CHANNELS {
            let channel = format!("1/{}", kb(every));
            let line: Vec<Option<f64>> = columns
                .iter()
                .map(|col| {
                    let setting = format!("{channel}, {col}");
                    part.gains
                        .iter()
                        .find(|g| {
                            g.named.sender == sender
                                && g.named.agent == agent
                                && g.named.path == path.name()
                                && g.named.setting == setting
                        })
                        .map(|g| g.gain)
                })
                .collect();
            if line.iter().any(Option::is_some) {
                rows.push(format!("{} {channel}", path.name()));
                values.push(line);
            }
        }
    }
    Heat {
        title: format!("{agent} over no agent, {sender}"),
        x_desc: x_desc.into(),
        y_desc: "path, bit errors".into(),
        columns: columns.to_vec(),
        rows,
        values,
        neutral: 1.0,
    }
}

/// An agent's gain for one sender over the error rates (columns) and the paths by RTT (rows).
fn heat(part: &PartReport, sender: &str, agent: &str) -> Heat {
    let columns: Vec<String> = ERROR_EVERY
        .iter()
        .map(|&b| format!("1/{}", kb(b)))
        .collect();
    let values = Path::ALL
        .iter()
        .map(|p| {
            columns
                .iter()
                .map(|ch| {
                    part.gains
                        .iter()
                        .find(|g| {
                            g.named.sender == sender
                                && g.named.agent == agent
                                && g.named.path == p.name()
                                && &g.named.channel == ch
                        })
                        .map(|g| g.gain)
                })
                .collect()
        })
        .collect();
    Heat {
        title: format!("{agent} over no agent, {sender}"),
        x_desc: "bit errors (one per)".into(),
        y_desc: "path (by RTT)".into(),
        columns: ERROR_EVERY.iter().map(|&b| kb(b)).collect(),
        rows: Path::ALL.iter().map(|p| p.name().to_string()).collect(),
        values,
        neutral: 1.0,
    }
}

fn part_tables(d: &mut Document, part: &PartReport, senders: &[&'static str]) {
    let completion = part.measure == "completion time";
    d.heading(format!("Part {}: {}", part.part, part.measure));
    for path in Path::ALL {
        let cells: Vec<&Cell> = part
            .cells
            .iter()
            .filter(|c| c.named.path == path.name())
            .collect();
        if cells.is_empty() {
            continue;
        }
        let mut columns = vec!["sender".to_string(), "setting".to_string()];
        columns.extend(
            AGENTS.map(|a| format!("{} {}", a.name(), if completion { "s" } else { "Mb/s" })),
        );
        columns.extend(AGENTS[1..].iter().map(|a| format!("{} gain", short(*a))));
        let mut rows = vec![];
        for sender in senders {
            let mine: Vec<&&Cell> = cells.iter().filter(|c| c.named.sender == *sender).collect();
            let mut settings: Vec<String> = vec![];
            for c in &mine {
                if !settings.contains(&c.named.setting) {
                    settings.push(c.named.setting.clone());
                }
            }
            for s in settings {
                let row_cells: Vec<Option<&&&Cell>> = AGENTS
                    .iter()
                    .map(|a| {
                        mine.iter()
                            .find(|c| c.named.agent == a.name() && c.named.setting == s)
                    })
                    .collect();
                let measure = |c: &Cell| {
                    if completion {
                        c.completion_s
                    } else {
                        c.throughput_mbps
                    }
                };
                let digits = if completion { 2 } else { 3 };
                let mut row = vec![sender.to_string(), s.clone()];
                let mut under = vec![String::new(), String::new()];
                for c in &row_cells {
                    match c {
                        Some(c) => {
                            let m = measure(c);
                            let failed = if c.incomplete > 0 {
                                format!(" !{}", c.incomplete)
                            } else {
                                String::new()
                            };
                            row.push(format!("{}{failed}", m.mean_ci(digits)));
                            under.push(format!("[{:.digits$}, {:.digits$}]", m.min, m.max));
                        }
                        None => {
                            row.push("-".into());
                            under.push(String::new());
                        }
                    }
                }
                for a in &AGENTS[1..] {
                    let g = part.gains.iter().find(|g| {
                        g.named.sender == *sender
                            && g.named.agent == a.name()
                            && g.named.path == path.name()
                            && g.named.setting == s
                    });
                    row.push(g.map_or_else(|| "-".into(), |g| g.text()));
                    under.push(String::new());
                }
                rows.push(Row::cells(row));
                rows.push(Row::under(under));
            }
        }
        d.table(Table {
            title: Some(format!("{}, {}", part.part, path.name())),
            columns,
            rows,
        });
        if part.part == "flows" {
            per_flow_table(d, &cells, senders, path);
        }
        if part.part == "errors" {
            for sender in senders {
                d.chart(
                    Chart::Sweep(sweep(&cells, sender, path)),
                    format!("errors-{}-{sender}", path.name()),
                    format!(
                        "{sender} on the {} path: throughput against the error rate, a line \
                         per agent (95% intervals)",
                        path.name()
                    ),
                );
            }
        }
    }
}

/// The `flows` part's flows one by one: per agent the mean of the flows' own throughputs and
/// Jain's fairness index of them, each the mean over the seeds.
fn per_flow_table(d: &mut Document, cells: &[&Cell], senders: &[&'static str], path: Path) {
    let mut columns = vec!["sender".to_string(), "setting".to_string()];
    columns.extend(AGENTS.map(|a| format!("{} per flow Mb/s, fairness", a.name())));
    let mut rows = vec![];
    for sender in senders {
        let mut settings: Vec<&String> = vec![];
        for c in cells
            .iter()
            .filter(|c| c.named.sender == *sender && c.flows > 1)
        {
            if !settings.contains(&&c.named.setting) {
                settings.push(&c.named.setting);
            }
        }
        for s in settings {
            let mut row = vec![sender.to_string(), s.clone()];
            for a in AGENTS {
                let c = cells.iter().find(|c| {
                    c.named.sender == *sender && c.named.agent == a.name() && &c.named.setting == s
                });
                row.push(match c.and_then(|c| c.per_flow_mbps.zip(c.fairness)) {
                    Some((m, f)) => format!("{}, {:.3}", m.mean_ci(3), f.mean),
                    None => "-".into(),
                });
            }
            rows.push(Row::cells(row));
        }
    }
    if rows.is_empty() {
        return;
    }
    d.table(Table {
        title: Some(format!("flows, {}: each flow", path.name())),
        columns,
        rows,
    });
}

/// An agent's short name for a gain column.
fn short(p: Protocol) -> &'static str {
    match p {
        Protocol::LlTcpAware => "snoop",
        Protocol::LlSmartTcpAware => "snoop-smart",
        Protocol::SplitSmart => "split",
        Protocol::SnoopSackVl => "sack-vl",
        Protocol::SnoopSack => "snoop-sack",
        p => p.name(),
    }
}

fn sweep(cells: &[&Cell], sender: &str, path: Path) -> Sweep {
    let lines = AGENTS
        .iter()
        .map(|a| Line {
            name: a.name().into(),
            points: cells
                .iter()
                .filter(|c| c.named.sender == sender && c.named.agent == a.name())
                .filter_map(|c| match c.config.channel {
                    super::grid::Channel::Every(b) => Some((
                        b,
                        c.throughput_mbps.mean,
                        c.throughput_mbps.ci95.unwrap_or(0.0),
                    )),
                    _ => None,
                })
                .collect(),
        })
        .collect();
    Sweep {
        title: format!("{sender}, {} path", path.name()),
        lines,
    }
}

/// One agent's gain at one error per 16 KB per sender and path; for snoop, the kernel's measured
/// gain under them.
fn headline(d: &mut Document, r: &Report, agent: Protocol) {
    let gains: Vec<_> = r
        .headline
        .iter()
        .filter(|g| g.named.agent == agent.name())
        .collect();
    if gains.is_empty() {
        return;
    }
    d.heading(format!("{}'s gain at one error per 16 KB", agent.name()));
    let mut rows = vec![];
    for sender in &r.senders {
        let mut row = vec![sender.to_string()];
        for path in Path::ALL {
            row.push(
                gains
                    .iter()
                    .find(|g| g.named.sender == *sender && g.named.path == path.name())
                    .map_or_else(|| "-".into(), |g| g.text()),
            );
        }
        rows.push(Row::cells(row));
    }
    let kernel: Vec<_> = r
        .kernel_headline
        .iter()
        .filter(|g| g.agent == agent.name())
        .collect();
    if !kernel.is_empty() {
        let mut row = vec!["the Linux kernel, live".to_string()];
        for path in Path::ALL {
            row.push(kernel.iter().find(|g| g.path == path.name()).map_or_else(
                || "not measured".into(),
                |g| format!("{:.2} ({} runs)", g.gain, g.runs),
            ));
        }
        rows.push(Row::cells(row));
    }
    let mut columns = vec!["sender".to_string()];
    columns.extend(Path::ALL.map(|p| format!("{} ({} / no agent)", p.name(), short(agent))));
    d.table(Table {
        title: None,
        columns,
        rows,
    });
}
