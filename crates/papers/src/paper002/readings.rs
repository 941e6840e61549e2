//! Paper 002's readings (issue 28): the details of its testbed the text leaves open, each read in
//! the ways the sources allow, the text's own first. Two readings, run in every combination:
//! the socket buffers ([`WINDOW`]) and what the old primary does with the frames queued for the
//! mobile host when told to buffer ([`OLD_PRIMARY_QUEUE`]).
//!
//! Not a reading: the mobile host's one interface queue for both cells (one card, one `if_snd`),
//! a sourced correction of the model (`snooplab_sim`'s `run/card.rs`), under every reading.

use snooplab_sim::network::OldPrimaryQueue;

use super::report::{handoff_per_second_cost, Latency, Report002, Table1Row};
use super::testbed;
use crate::document::{Document, Row, Table};
use crate::readings::{claims_summary, claims_table, describe, Reading, Value};

/// The socket buffers of both ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Window {
    /// 64 KB buffers set for the experiment: section 7's "the maximum possible window size for
    /// the connection was 64 KBytes" read as the buffers (the model before readings).
    AsStated64k,
    /// BSD/OS's default 8 KB buffers, with the "64 KBytes" read as TCP's largest window without
    /// window scaling (65535 bytes), named beside the largest segment as the other protocol limit.
    OsDefault8k,
}

impl Window {
    /// Every value, the default first, in [`WINDOW`]'s order.
    pub const ALL: [Window; 2] = [Window::AsStated64k, Window::OsDefault8k];

    /// The socket buffers, bytes.
    pub fn bytes(self) -> u32 {
        match self {
            Window::AsStated64k => testbed::WINDOW,
            // 4.4BSD-Lite2 sys/netinet/tcp_usrreq.c 8.5, lines 427-428
            Window::OsDefault8k => 8 * 1024,
        }
    }

    /// Its value in [`WINDOW`].
    pub fn value(self) -> &'static Value {
        &WINDOW.values[self as usize]
    }

    pub fn name(self) -> &'static str {
        self.value().name
    }
}

/// The window reading.
pub const WINDOW: Reading = Reading {
    name: "window",
    question:
        "the socket buffers of both hosts; section 7 names only \"the maximum possible window \
               size for the connection was 64 KBytes\"",
    values: &[
        Value {
            name: "as-stated-64k",
            sets: "64 KB socket buffers at both ends",
            source: "section 7: \"the maximum possible window size for the connection was 64 \
                     KBytes\", read as the buffers set for the experiment",
        },
        Value {
            name: "os-default-8k",
            sets: "8 KB socket buffers at both ends (6 segments of 1460 bytes once rounded)",
            source: "BSD/OS's default: 4.4BSD-Lite2 sys/netinet/tcp_usrreq.c 8.5 lines 427-428, \
                     tcp_sendspace = tcp_recvspace = 1024*8 (chenshuo/4.4BSD-Lite2); \"64 KBytes\" \
                     read as TCP's largest unscaled window",
        },
    ],
    affects: "Table 1 (every row) and Fig. 10's latency",
};

/// The old primary's queue reading.
pub const OLD_PRIMARY_QUEUE: Reading = Reading {
    name: "old-primary-queue",
    question: "what the old primary does with the frames its interface queue holds for the \
               mobile host when the host asks it to buffer; sections 4-6 say only that it \
               buffers what arrives from then on",
    values: &[
        Value {
            name: "drains",
            sets: "the queued frames go out as queued (the model before readings)",
            source: "none says otherwise: a base station's IP layer hands frames to the \
                     driver's queue (4.4BSD IF_ENQUEUE) and does not take them back; the \
                     Daedalus ip_mobile.c that would say is not reachable",
        },
        Value {
            name: "dropped",
            sets: "the queued frames for the host are dropped when its Buffer request \
                   arrives; the new primary's buffer and snoop's cache recover them",
            source: "section 6's 12-packet buffer sized for \"24 to 72 ms of transfer time\" \
                     assumes the old primary holds no more than that at a handoff; Fig. 10 \
                     blames the handoff time on \"network queuing at the MH and BS\"",
        },
    ],
    affects: "Table 1 (every row) and Fig. 10's latency",
};

/// One combination of paper 002's readings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Read002 {
    pub window: Window,
    pub old_primary_queue: OldPrimaryQueue,
}

impl Read002 {
    /// The defaults: what the text says (64 KB), and the model before readings (drains).
    pub const DEFAULT: Read002 = Read002 {
        window: Window::AsStated64k,
        old_primary_queue: OldPrimaryQueue::Drains,
    };

    /// Every combination, the default first, then the window's other value, then each with the
    /// dropped queue.
    pub const ALL: [Read002; 4] = [
        Read002::DEFAULT,
        Read002 {
            window: Window::OsDefault8k,
            old_primary_queue: OldPrimaryQueue::Drains,
        },
        Read002 {
            window: Window::AsStated64k,
            old_primary_queue: OldPrimaryQueue::Dropped,
        },
        Read002 {
            window: Window::OsDefault8k,
            old_primary_queue: OldPrimaryQueue::Dropped,
        },
    ];

    /// Its name in the report: `os-default-8k, dropped`.
    pub fn name(self) -> String {
        format!("{}, {}", self.window.name(), self.old_primary_queue.name())
    }
}

/// The readings section of the report: the readings, Table 1 and Fig. 10 under every
/// combination, and the claims under each.
pub(super) fn section(d: &mut Document, r: &Report002) {
    describe(d, &[&WINDOW, &OLD_PRIMARY_QUEUE]);
    if r.readings.is_empty() {
        return;
    }
    // the default's rows are the report's own; each other combination's follow in Read002::ALL's
    // order
    let table1s: Vec<&[Table1Row]> = std::iter::once(r.table1.as_slice())
        .chain(r.readings.iter().map(|w| w.table1.as_slice()))
        .collect();
    let latencies: Vec<Option<&Latency>> = std::iter::once(r.latency.as_ref())
        .chain(r.readings.iter().map(|w| w.latency.as_ref()))
        .collect();
    let names: Vec<String> = std::iter::once(Read002::DEFAULT.name())
        .chain(r.readings.iter().map(|w| w.name()))
        .collect();
    if !r.table1.is_empty() {
        d.table(table1_by_reading(&names, &table1s));
    }
    if latencies.iter().any(Option::is_some) {
        d.table(latency_by_reading(&names, &latencies));
    }
    let claims: Vec<&[crate::claim::Claim]> = std::iter::once(r.claims.as_slice())
        .chain(r.readings.iter().map(|w| w.claims.as_slice()))
        .collect();
    d.table(claims_table("window, old-primary-queue", &names, &claims));
    d.text(format!(
        "What the evidence supports: {} {}",
        handoff_cost_text(&names, &table1s),
        claims_summary(&names, &claims)
    ));
}

/// What a handoff per second costs against no handoffs (one channel, beacons) under each
/// combination, in one sentence.
fn handoff_cost_text(names: &[String], table1s: &[&[Table1Row]]) -> String {
    let costs: Vec<String> = names
        .iter()
        .zip(table1s)
        .filter_map(|(n, t)| {
            let (drop, _, never) = handoff_per_second_cost(t)?;
            (never > 0.0).then(|| format!("{:.1}% under {n}", 100.0 * drop))
        })
        .collect();
    if costs.is_empty() {
        return String::new();
    }
    let costs: Vec<&str> = costs.iter().map(String::as_str).collect();
    format!(
        "a handoff per second costs {} (the paper: 2%).",
        crate::readings::and_list(&costs)
    )
}

/// Table 1 with a column per combination of readings: Mb/s, and the local retransmissions.
fn table1_by_reading(names: &[String], table1s: &[&[Table1Row]]) -> Table {
    let rows = table1s[0]
        .iter()
        .map(|row| {
            let label = row.label();
            let mut cells = vec![label.clone()];
            for t in table1s {
                cells.push(t.iter().find(|x| x.label() == label).map_or_else(
                    || "-".to_string(),
                    |x| {
                        format!(
                            "{} ({:.0})",
                            x.throughput_mbps.mean_ci(3),
                            x.local_retransmissions.mean
                        )
                    },
                ));
            }
            cells.push(row.paper_text());
            Row::cells(cells)
        })
        .collect();
    let mut columns = vec!["time between handoffs".to_string()];
    columns.extend(names.iter().map(|n| format!("{n}, Mb/s (local rexmt)")));
    columns.push("paper Mb/s".into());
    Table {
        title: Some("Table 1 under each reading".into()),
        columns,
        rows,
    }
}

/// Fig. 10's latencies with a column per combination of readings, ms.
fn latency_by_reading(names: &[String], latencies: &[Option<&Latency>]) -> Table {
    let rows = [
        ("idle (decision to confirmation)", "5-10"),
        ("during a transfer, to the confirmation", "25-70"),
        (
            "during a transfer, to the first packet from the new base station",
            "25-70",
        ),
    ]
    .iter()
    .enumerate()
    .map(|(i, (what, paper))| {
        let mut cells = vec![what.to_string()];
        for l in latencies {
            cells.push(l.map_or_else(
                || "-".to_string(),
                |l| {
                    [
                        &l.idle_ms,
                        &l.transfer_confirm_ms,
                        &l.transfer_first_packet_ms,
                    ][i]
                        .mean_ci(2)
                },
            ));
        }
        cells.push(paper.to_string());
        Row::cells(cells)
    })
    .collect();
    let mut columns = vec![String::new()];
    columns.extend(names.iter().map(|n| format!("{n}, ms")));
    columns.push("paper, ms".into());
    Table {
        title: Some("Fig. 10 under each reading".into()),
        columns,
        rows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_enum_follows_the_readings_values_and_the_default_is_todays() {
        assert_eq!(Window::ALL.len(), WINDOW.values.len());
        assert_eq!(Window::AsStated64k.name(), WINDOW.default_value().name);
        assert_eq!(Window::OsDefault8k.name(), "os-default-8k");
        assert_eq!(Window::AsStated64k.bytes(), 64 * 1024);
        assert_eq!(Window::OsDefault8k.bytes(), 8192);
    }

    #[test]
    fn the_old_primary_reading_names_the_simulators_rules_and_every_combination_runs_once() {
        let names: Vec<_> = OldPrimaryQueue::ALL.iter().map(|q| q.name()).collect();
        let values: Vec<_> = OLD_PRIMARY_QUEUE.values.iter().map(|v| v.name).collect();
        assert_eq!(names, values);
        assert_eq!(Read002::ALL[0], Read002::DEFAULT);
        for (i, a) in Read002::ALL.iter().enumerate() {
            assert!(Read002::ALL[i + 1..].iter().all(|b| b != a));
        }
        assert_eq!(Read002::ALL[3].name(), "os-default-8k, dropped");
    }
}
