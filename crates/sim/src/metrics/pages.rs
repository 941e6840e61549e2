//! A workload flow's result (issue 53): every page's and object's times, and their summary
//! (median, 90th and 99th percentile page latency), with what the connections counted.

use serde::Serialize;
use snooplab_proto::time::as_secs_f64;
use snooplab_proto::Time;

use crate::nodes::PageRecord;
use crate::workload::Page;

/// One object's fetch, seconds from its ask: connect <= first byte <= complete.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ObjectResult {
    pub page: u32,
    /// Its place in the page (0: the document).
    pub object: u32,
    pub request_bytes: u32,
    pub response_bytes: u32,
    /// When it was asked, seconds into the run.
    pub asked_s: f64,
    /// The wait for its connection's handshake (0 on one already open).
    pub connect_s: Option<f64>,
    pub first_byte_s: Option<f64>,
    pub complete_s: Option<f64>,
    /// Its connection failed before its response was in.
    pub failed: bool,
}

/// One page's fetch.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PageResult {
    pub page: u32,
    /// When its document was asked, seconds into the run.
    pub started_s: f64,
    pub objects: u32,
    /// From its start to its last object's last byte; `None` if an object failed.
    pub latency_s: Option<f64>,
    /// The part of its latency its critical path waited on retransmission timers
    /// (`run/web_stalls.rs`); zeros for a page that failed.
    pub timeout_wait: TimeoutWait,
}

/// Seconds waited on retransmission timers, by where the timeouts fell (`nodes/stalls.rs`):
/// before the connection was established, in the middle of a transfer, or on its last segment
/// or FIN.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct TimeoutWait {
    pub setup_s: f64,
    pub middle_s: f64,
    pub tail_s: f64,
}

impl TimeoutWait {
    pub fn total_s(&self) -> f64 {
        self.setup_s + self.middle_s + self.tail_s
    }

    pub fn plus(self, o: TimeoutWait) -> TimeoutWait {
        TimeoutWait {
            setup_s: self.setup_s + o.setup_s,
            middle_s: self.middle_s + o.middle_s,
            tail_s: self.tail_s + o.tail_s,
        }
    }
}

/// Retransmission timeouts of a flow's connections, both ends, by where they fell.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TimeoutsByPhase {
    pub setup: u64,
    pub middle: u64,
    pub tail: u64,
}

/// Median and tail of a set of latencies, seconds; `None` where the set is empty.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Latencies {
    pub count: u64,
    pub median_s: Option<f64>,
    pub p90_s: Option<f64>,
    pub p99_s: Option<f64>,
    pub mean_s: Option<f64>,
    pub max_s: Option<f64>,
}

impl Latencies {
    /// The nearest-rank percentiles (the smallest value with at least p% of the set at or
    /// below it), so each is a latency that was measured.
    pub fn of(mut values: Vec<Time>) -> Latencies {
        values.sort_unstable();
        let n = values.len();
        let rank = |p: u64| -> Option<f64> {
            if n == 0 {
                return None;
            }
            let k = (p as usize * n).div_ceil(100).clamp(1, n);
            Some(as_secs_f64(values[k - 1]))
        };
        Latencies {
            count: n as u64,
            median_s: rank(50),
            p90_s: rank(90),
            p99_s: rank(99),
            mean_s: (n > 0).then(|| values.iter().map(|&v| as_secs_f64(v)).sum::<f64>() / n as f64),
            max_s: values.last().map(|&v| as_secs_f64(v)),
        }
    }
}

/// A workload flow's pages and objects, and what its connections counted.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PagesResult {
    pub pages: u64,
    pub pages_completed: u64,
    pub objects: u64,
    pub objects_completed: u64,
    pub page_latency: Latencies,
    pub object_latency: Latencies,
    /// Connections the client opened.
    pub connections: u64,
    /// The client's retransmission timeouts before a connection was established (its SYN sent
    /// again), and all of them.
    pub syn_timeouts: u64,
    pub client_timeouts: u64,
    /// The server's timeouts before a connection was established (its SYN|ACK sent again), and
    /// all of them (a lost response's tail among them).
    pub syn_ack_timeouts: u64,
    pub server_timeouts: u64,
    pub server_fast_retransmits: u64,
    pub server_retransmitted_segments: u64,
    /// Every retransmission timeout of the flow's connections, both ends, by where it fell.
    pub timeouts_by_phase: TimeoutsByPhase,
    /// The pages' [`PageResult::timeout_wait`] summed over the pages fetched whole: with the
    /// sum of their latencies, the fraction of page latency spent waiting on timers.
    pub timeout_wait: TimeoutWait,
    /// The latencies of the pages fetched whole, summed, seconds.
    pub latency_sum_s: f64,
    pub per_page: Vec<PageResult>,
    pub per_object: Vec<ObjectResult>,
}

impl PagesResult {
    /// The pages and objects a client fetched, from what it recorded of each page (`records`,
    /// in page order, each page's objects in page order) and the pages it was to fetch
    /// (`page(i)`, for the objects' sizes): one conversion for both clocks, the engine's browser
    /// (`run/web.rs`) and the live client (`live/src/web/`). An object whose connection failed has
    /// no completion and its page no latency. The connections' counters are left at 0: they are
    /// the caller's.
    pub fn of_records(pages: u64, page: impl Fn(u64) -> Page, records: &[PageRecord]) -> Self {
        let mut per_page = Vec::with_capacity(records.len());
        let mut per_object = Vec::new();
        let (mut page_lat, mut object_lat) = (Vec::new(), Vec::new());
        let mut latency_sum_s = 0.0;
        for (i, p) in records.iter().enumerate() {
            let drawn = page(i as u64);
            let mut last: Option<Time> = Some(p.started);
            for (k, o) in p.objects.iter().enumerate() {
                let t = o.times;
                let secs = |d: Option<Time>| d.map(as_secs_f64);
                let done = if o.failed { None } else { t.done };
                last = last.zip(done).map(|(a, b)| a.max(b));
                if let Some(d) = t.completion_time().filter(|_| !o.failed) {
                    object_lat.push(d);
                }
                let size = drawn.objects.get(k).copied();
                per_object.push(ObjectResult {
                    page: i as u32,
                    object: k as u32,
                    request_bytes: size.map_or(0, |s| s.request_bytes),
                    response_bytes: size.map_or(0, |s| s.reply_bytes),
                    asked_s: as_secs_f64(t.asked),
                    connect_s: secs(t.connect_time()),
                    first_byte_s: secs(t.first_byte_time()),
                    complete_s: secs(t.completion_time()).filter(|_| !o.failed),
                    failed: o.failed,
                });
            }
            let latency = last.map(|l| l - p.started);
            if let Some(l) = latency {
                page_lat.push(l);
                latency_sum_s += as_secs_f64(l);
            }
            per_page.push(PageResult {
                page: i as u32,
                started_s: as_secs_f64(p.started),
                objects: p.objects.len() as u32,
                latency_s: latency.map(as_secs_f64),
                // the simulator adds its timers' waits (`run/web.rs`); live has no such record
                timeout_wait: TimeoutWait::default(),
            });
        }
        PagesResult {
            pages,
            pages_completed: page_lat.len() as u64,
            objects: per_object.len() as u64,
            objects_completed: object_lat.len() as u64,
            page_latency: Latencies::of(page_lat),
            object_latency: Latencies::of(object_lat),
            latency_sum_s,
            per_page,
            per_object,
            ..PagesResult::default()
        }
    }

    /// The one line of the text output: pages in, page latency median and tail, objects and
    /// connections, and the timeouts of the handshake and of the server.
    pub fn summary(&self) -> String {
        let s = |v: Option<f64>| v.map_or("n/a".to_string(), |v| format!("{v:.3} s"));
        format!(
            "{} of {} pages in, latency median {}, p90 {}, p99 {}; {} of {} objects over {} \
             connections; timeouts: {} SYN, {} SYN|ACK, {} client, {} server",
            self.pages_completed,
            self.pages,
            s(self.page_latency.median_s),
            s(self.page_latency.p90_s),
            s(self.page_latency.p99_s),
            self.objects_completed,
            self.objects,
            self.connections,
            self.syn_timeouts,
            self.syn_ack_timeouts,
            self.client_timeouts,
            self.server_timeouts
        )
    }
}
