//! How much of a page's latency its connections spent waiting on retransmission timers
//! (issue 53: "what fraction of the latency comes from timeouts in setup, in the middle and at
//! the tail"), from the stalls the TCPs recorded (`nodes/stalls.rs`).
//!
//! Only a wait on the page's critical path delays the page: a stalled connection whose object
//! is not the last to finish, nor one the last waited for, is hidden behind the others. The
//! critical path is walked back through the plan (`workload/plan.rs`): from the object that
//! completed last to the transfer its request waited for, and so on to the page's start. Each
//! of those objects' connection stalls (both ends) is cut to the object's own interval, from its
//! ask to its last byte; where stalls overlap, the time counts once, for the phase first in
//! [`StallPhase::ALL`] (setup, then middle, then tail: a reading). A wait outside every object's
//! interval (a FIN sent again after the response was read) delays no page.

use std::collections::HashMap;

use snooplab_proto::time::as_secs_f64;
use snooplab_proto::Time;

use crate::metrics::TimeoutWait;
use crate::nodes::{ConnId, PageRecord, Stall, StallPhase};
use crate::workload::{After, PagePlan};

/// A flow's stalls by connection.
pub(super) type StallsByConn<'a> = HashMap<ConnId, Vec<&'a Stall>>;

/// The objects of the page's critical path, last first: the one completed last, then the one
/// its request waited for, back to the page's start. Empty if an object has no completion.
fn critical_path(record: &PageRecord, plan: &PagePlan) -> Vec<usize> {
    let done = |o: usize| record.objects.get(o).and_then(|r| r.times.done);
    let Some(last) = (0..record.objects.len())
        .map(|o| done(o).map(|d| (d, o)))
        .collect::<Option<Vec<_>>>()
        .and_then(|v| v.into_iter().max().map(|(_, o)| o))
    else {
        return vec![];
    };
    let transfer_of = |o: usize| {
        plan.transfers
            .iter()
            .position(|t| usize::from(t.object) == o)
    };
    let mut out = vec![last];
    let mut t = transfer_of(last);
    // at most one step per transfer: a plan's dependencies are on earlier transfers
    for _ in 0..plan.transfers.len() {
        let Some(i) = t else { break };
        let next = match plan.transfers[i].after {
            After::PageStart => break,
            After::Document => transfer_of(0),
            After::Reply(j) | After::Request(j) => Some(usize::from(j)),
        };
        let Some(n) = next else { break };
        out.push(usize::from(plan.transfers[n].object));
        t = Some(n);
    }
    out
}

/// The page's wait on timers along its critical path, by phase.
pub(super) fn page_wait(
    record: &PageRecord,
    plan: &PagePlan,
    stalls: &StallsByConn,
) -> TimeoutWait {
    let mut spans: Vec<(Time, Time, StallPhase)> = vec![];
    for o in critical_path(record, plan) {
        let Some(r) = record.objects.get(o) else {
            continue;
        };
        let (Some(conn), Some(done)) = (r.conn, r.times.done) else {
            continue;
        };
        for s in stalls.get(&conn).into_iter().flatten() {
            let (a, b) = (s.armed.max(r.times.asked), s.fired.min(done));
            if a < b {
                spans.push((a, b, s.phase));
            }
        }
    }
    union_by_phase(&spans)
}

/// The measure of the spans' union, each instant counted once for the first phase covering it
/// in [`StallPhase::ALL`]'s order.
fn union_by_phase(spans: &[(Time, Time, StallPhase)]) -> TimeoutWait {
    let mut edges: Vec<Time> = spans.iter().flat_map(|&(a, b, _)| [a, b]).collect();
    edges.sort_unstable();
    edges.dedup();
    let mut w = TimeoutWait::default();
    for pair in edges.windows(2) {
        let (x, y) = (pair[0], pair[1]);
        let covering = StallPhase::ALL
            .into_iter()
            .find(|p| spans.iter().any(|&(a, b, q)| q == *p && a <= x && y <= b));
        let d = as_secs_f64(y - x);
        match covering {
            Some(StallPhase::Setup) => w.setup_s += d,
            Some(StallPhase::Middle) => w.middle_s += d,
            Some(StallPhase::Tail) => w.tail_s += d,
            None => {}
        }
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nodes::ObjectRecord;
    use crate::workload::{plan, Http, Object, Page};
    use snooplab_proto::app::ObjectTimes;
    use snooplab_proto::time::SEC;

    fn record(times: &[(Time, Time)]) -> PageRecord {
        PageRecord {
            started: 0,
            objects: times
                .iter()
                .enumerate()
                .map(|(i, &(asked, done))| ObjectRecord {
                    times: ObjectTimes {
                        asked,
                        done: Some(done),
                        ..ObjectTimes::default()
                    },
                    failed: false,
                    conn: Some(ConnId {
                        client_port: 1024 + i as u16,
                        client_iss: 7,
                    }),
                })
                .collect(),
        }
    }

    fn stall(port: u16, armed: Time, fired: Time, phase: StallPhase) -> Stall {
        Stall {
            flow: 0,
            conn: ConnId {
                client_port: port,
                client_iss: 7,
            },
            at_server: true,
            armed,
            fired,
            phase,
        }
    }

    fn page(n: usize) -> Page {
        Page {
            objects: vec![
                Object {
                    request_bytes: 100,
                    reply_bytes: 1000,
                };
                n
            ],
            think: 0,
        }
    }

    #[test]
    fn only_the_critical_paths_waits_count_each_instant_once() {
        // HTTP/1.0, two at once: the document 0-2 s; objects 1 and 2 from 2 s, 2 ending last
        let plan = plan(&page(3), Http::Http10 { parallel: 2 });
        let rec = record(&[(0, 2 * SEC), (2 * SEC, 3 * SEC), (2 * SEC, 9 * SEC)]);
        let all = [
            // the document's SYN|ACK lost: 1 s of setup
            stall(1024, 0, SEC, StallPhase::Setup),
            // object 1 stalls 2 s, hidden behind object 2 (not on the critical path)
            stall(1025, 2 * SEC, 3 * SEC, StallPhase::Middle),
            // object 2: a tail stall, and a middle one overlapping its first second
            stall(1026, 4 * SEC, 8 * SEC, StallPhase::Tail),
            stall(1026, 3 * SEC, 5 * SEC, StallPhase::Middle),
            // a FIN sent again after the document was read delays nothing
            stall(1024, 2 * SEC, 4 * SEC, StallPhase::Tail),
        ];
        let mut by: StallsByConn = HashMap::new();
        for s in &all {
            by.entry(s.conn).or_default().push(s);
        }
        assert_eq!(critical_path(&rec, &plan), vec![2, 0]);
        let w = page_wait(&rec, &plan, &by);
        assert_eq!((w.setup_s, w.middle_s, w.tail_s), (1.0, 2.0, 3.0));
    }
}
