//! snooplab's HTTP client (`snooplab web-client`, and the client end of a live workload flow): it
//! fetches pages one after another, each after the previous one's think time, every page as its
//! plan says (`sim/src/workload/plan.rs`: which connection carries which object, after which
//! other), a thread per connection of the page, and records every object's times as the
//! simulator's browser does (`proto/src/app/record.rs`'s `ObjectTimes`, on the run's clock):
//! asked (its dependency met), connected (its connection's handshake done, if it waited for
//! one), requested (its request written), first byte and last byte of its reply read.
//!
//! - HTTP/1.0: a connection per object; the reply is complete at its `Content-Length`, and the
//!   client then closes (a reading: the simulator's client closes on the server's FIN, a moment
//!   later; the page's latency does not depend on it).
//! - HTTP/1.1: persistent connections for the page; a connection's requests wait for its
//!   previous reply, or with pipelining go as soon as the previous request is written (RFC 2616
//!   section 8.1.2.2), and the client closes after its last reply, as the simulator's
//!   (`Closer::Client`).
//!
//! Every byte of every reply is checked against what the server must send (`http.rs`): an
//! object whose bytes differ, or whose connection failed, is failed, and its page has no latency.

use std::collections::VecDeque;
use std::net::{SocketAddrV4, TcpStream};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use snooplab_proto::app::ObjectTimes;
use snooplab_proto::Time;
use snooplab_sim::nodes::{ObjectRecord, PageRecord};
use snooplab_sim::workload::{plan, After, Http, Page, PagePlan};

use super::http::{self, Version};
use super::{poll_every, read_some, write_all, POLL};
use crate::endpoint::WindowKeeper;
use crate::netns::Namespace;
use crate::sys;

/// At most this many connections' errors are kept for the report (all are counted).
const ERRORS_KEPT: usize = 8;

/// Where and how the client fetches.
#[derive(Clone, Copy)]
pub struct ClientSetup<'a> {
    /// The namespace its sockets are made in (`None`: the caller's).
    pub ns: Option<&'a Namespace>,
    pub server: SocketAddrV4,
    pub http: Http,
    /// The congestion control of its sockets.
    pub cc: &'a str,
    /// The run's time 0: every time recorded is from it.
    pub clock: Instant,
    /// When the first page starts, from `clock`.
    pub start: Time,
    /// The window clamp every connection holds, as a bulk flow's receiver does
    /// ([`crate::endpoint::size_receive_buffers`], [`WindowKeeper`]): the flow's buffer, so the
    /// client advertises what the simulator's client does. `None`: the kernel's own window (the
    /// `web-client` command, whose namespace is not set up).
    pub window: Option<i32>,
}

/// What the client fetched.
#[derive(Clone, Debug, Default)]
pub struct ClientReport {
    /// Each page fetched, in order.
    pub records: Vec<PageRecord>,
    /// Bytes of the replies read, heads included.
    pub received_bytes: u64,
    /// Connections opened (established).
    pub connections: u64,
    /// Objects whose reply differed from what the server must send (0 expected: TCP delivers
    /// intact bytes or none).
    pub corrupt_objects: u64,
    /// Objects failed (their connection failed, or their bytes differed).
    pub failed_objects: u64,
    /// The first few failures.
    pub errors: Vec<String>,
}

/// Fetches `pages` pages (`page(i)` is the `i`-th) until done or `stop`; `fetched` counts the
/// reply bytes read as they come (for progress).
pub fn fetch_pages(
    setup: &ClientSetup,
    pages: u64,
    page: &dyn Fn(u64) -> Page,
    stop: &AtomicBool,
    fetched: &AtomicU64,
) -> ClientReport {
    let mut report = ClientReport::default();
    if !sleep_until(setup.clock, setup.start, stop) {
        return report;
    }
    for i in 0..pages {
        let p = page(i);
        let started = now(setup.clock);
        let plan = plan(&p, setup.http);
        let outs = fetch_page(setup, &p, &plan, stop, fetched);
        let mut objects = vec![
            ObjectRecord {
                times: ObjectTimes::default(),
                failed: true,
                conn: None,
            };
            p.objects.len()
        ];
        for out in outs {
            report.received_bytes += out.bytes;
            report.connections += out.connections;
            report.corrupt_objects += out.corrupt;
            for (object, record) in out.objects {
                report.failed_objects += u64::from(record.failed);
                if let Some(o) = objects.get_mut(object) {
                    *o = record;
                }
            }
            if let Some(e) = out.error.filter(|_| report.errors.len() < ERRORS_KEPT) {
                report.errors.push(format!("page {i}: {e}"));
            }
        }
        report.records.push(PageRecord { started, objects });
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let think_until = now(setup.clock).saturating_add(p.think);
        if i + 1 < pages && !sleep_until(setup.clock, think_until, stop) {
            break;
        }
    }
    report
}

fn now(clock: Instant) -> Time {
    clock.elapsed().as_nanos() as Time
}

/// Sleeps until `at` on the run's clock; false if told to stop first.
fn sleep_until(clock: Instant, at: Time, stop: &AtomicBool) -> bool {
    loop {
        if stop.load(Ordering::Relaxed) {
            return false;
        }
        let t = now(clock);
        if t >= at {
            return true;
        }
        std::thread::sleep(Duration::from_nanos(at - t).min(POLL));
    }
}

/// Where each transfer of the page being fetched stands, shared by its connections' threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Step {
    Waiting,
    Requested,
    /// Its reply is in, or it failed (a failed object counts as in, so the page goes on, as the
    /// simulator's browser goes on).
    Done,
}

struct Board {
    steps: Mutex<Vec<Step>>,
    changed: Condvar,
}

impl Board {
    /// Whether a transfer with this dependency may go (`nodes/browser.rs`'s rule).
    fn ready(&self, after: After) -> bool {
        let Ok(steps) = self.steps.lock() else {
            return true;
        };
        let at = |j: u16| steps.get(usize::from(j)).copied().unwrap_or(Step::Done);
        match after {
            After::PageStart => true,
            After::Document => at(0) == Step::Done,
            After::Reply(j) => at(j) == Step::Done,
            After::Request(j) => at(j) >= Step::Requested,
        }
    }

    fn set(&self, i: usize, step: Step) {
        if let Ok(mut steps) = self.steps.lock() {
            if let Some(s) = steps.get_mut(i) {
                *s = step;
            }
        }
        self.changed.notify_all();
    }

    /// Waits for a change, at most [`POLL`].
    fn wait(&self) {
        if let Ok(steps) = self.steps.lock() {
            let _ = self.changed.wait_timeout(steps, POLL);
        }
    }
}

/// What one connection of a page gave.
#[derive(Default)]
struct ConnOut {
    /// Each of its objects (its place in the page) and its record.
    objects: Vec<(usize, ObjectRecord)>,
    bytes: u64,
    connections: u64,
    corrupt: u64,
    error: Option<String>,
}

/// Fetches one page: a thread per connection of its plan.
fn fetch_page(
    setup: &ClientSetup,
    page: &Page,
    plan: &PagePlan,
    stop: &AtomicBool,
    fetched: &AtomicU64,
) -> Vec<ConnOut> {
    let board = Board {
        steps: Mutex::new(vec![Step::Waiting; plan.transfers.len()]),
        changed: Condvar::new(),
    };
    let version = match setup.http {
        Http::Http10 { .. } => Version::Http10,
        Http::Http11 { .. } => Version::Http11,
    };
    let conn = Conn {
        setup,
        page,
        plan,
        board: &board,
        version,
        stop,
        fetched,
    };
    std::thread::scope(|s| {
        let threads: Vec<_> = (0..plan.connections())
            .map(|c| {
                let conn = &conn;
                s.spawn(move || conn.run(c as u16))
            })
            .collect();
        threads
            .into_iter()
            .map(|t| {
                t.join().unwrap_or_else(|_| ConnOut {
                    error: Some("a connection's thread panicked".into()),
                    ..ConnOut::default()
                })
            })
            .collect()
    })
}

/// What every connection thread of a page shares.
struct Conn<'a> {
    setup: &'a ClientSetup<'a>,
    page: &'a Page,
    plan: &'a PagePlan,
    board: &'a Board,
    version: Version,
    stop: &'a AtomicBool,
    fetched: &'a AtomicU64,
}

impl Conn<'_> {
    fn now(&self) -> Time {
        now(self.setup.clock)
    }

    /// Carries connection `c`'s transfers: each request when its dependency is met (opening the
    /// connection for the first), the replies in order.
    fn run(&self, c: u16) -> ConnOut {
        let mine: Vec<usize> = (0..self.plan.transfers.len())
            .filter(|&i| self.plan.transfers[i].connection == c)
            .collect();
        let mut out = ConnOut::default();
        let mut stream: Option<TcpStream> = None;
        let mut window: Option<WindowKeeper> = None;
        let mut outstanding: VecDeque<(usize, ObjectTimes)> = VecDeque::new();
        let mut leftover = Vec::new();
        let mut next = 0;
        while next < mine.len() || !outstanding.is_empty() {
            let ready = mine
                .get(next)
                .is_some_and(|&i| self.board.ready(self.plan.transfers[i].after));
            let step = if ready {
                let i = mine[next];
                next += 1;
                self.ask(i, (&mut stream, &mut window), &mut out).map(|t| {
                    self.board.set(i, Step::Requested);
                    outstanding.push_back((i, t));
                })
            } else if let Some((i, mut t)) = outstanding.pop_front() {
                let got = stream
                    .as_mut()
                    .ok_or_else(|| "no connection".to_string())
                    .and_then(|s| {
                        let reply = (i, &mut t, &mut leftover);
                        self.read_reply((s, &mut window), reply, &mut out)
                    });
                match got {
                    Ok(()) => {
                        self.finish(i, t, false, &mut out);
                        Ok(())
                    }
                    Err(e) => {
                        self.finish(i, t, true, &mut out);
                        Err(e)
                    }
                }
            } else if self.stop.load(Ordering::Relaxed) {
                Err("stopped".to_string())
            } else {
                self.board.wait();
                Ok(())
            };
            if let Err(e) = step {
                // the connection's other objects fail with it
                for (i, t) in outstanding.drain(..) {
                    self.finish(i, t, true, &mut out);
                }
                for &i in &mine[next..] {
                    let t = ObjectTimes {
                        asked: self.now(),
                        ..ObjectTimes::default()
                    };
                    self.finish(i, t, true, &mut out);
                }
                out.error = Some(e);
                break;
            }
        }
        if let Some(s) = stream {
            let _ = s.shutdown(std::net::Shutdown::Write);
        }
        out
    }

    /// Asks transfer `i`: opens the connection if it is the first, writes its request.
    fn ask(
        &self,
        i: usize,
        (stream, window): (&mut Option<TcpStream>, &mut Option<WindowKeeper>),
        out: &mut ConnOut,
    ) -> Result<ObjectTimes, String> {
        let mut t = ObjectTimes {
            asked: self.now(),
            ..ObjectTimes::default()
        };
        let object = self.object(i);
        let fail = |t: ObjectTimes, out: &mut ConnOut, e: String| {
            self.finish(i, t, true, out);
            Err(e)
        };
        if stream.is_none() {
            match self.connect() {
                Ok(s) => {
                    t.connected = Some(self.now());
                    out.connections += 1;
                    *window = self
                        .setup
                        .window
                        .map(|clamp| WindowKeeper::new(s.as_raw_fd(), clamp));
                    *stream = Some(s);
                }
                Err(e) => return fail(t, out, e),
            }
        }
        let Some(s) = stream.as_mut() else {
            return fail(t, out, "no connection".into());
        };
        let o = self.page.objects[object];
        let host = self.setup.server.ip().to_string();
        let req = http::request(self.version, &host, o.reply_bytes, o.request_bytes);
        if let Err(e) = write_all(s, &req, self.stop) {
            return fail(t, out, e);
        }
        t.requested = Some(self.now());
        Ok(t)
    }

    fn connect(&self) -> Result<TcpStream, String> {
        let to = self.setup.server;
        let _inside = self.setup.ns.map(Namespace::enter).transpose()?;
        let give_up = || self.stop.load(Ordering::Relaxed);
        let s = sys::connect_tcp(to, None, self.setup.cc, POLL.as_nanos() as u64, &give_up)
            .map_err(|e| format!("cannot connect to {to}: {e}"))?;
        poll_every(&s)?;
        Ok(s)
    }

    /// The object transfer `i` carries (its place in the page).
    fn object(&self, i: usize) -> usize {
        usize::from(self.plan.transfers[i].object)
    }

    fn finish(&self, i: usize, times: ObjectTimes, failed: bool, out: &mut ConnOut) {
        out.objects
            // no simulated connection: the kernel's timers are not recorded per connection
            .push((
                self.object(i),
                ObjectRecord {
                    times,
                    failed,
                    conn: None,
                },
            ));
        self.board.set(i, Step::Done);
    }

    /// Reads transfer `i`'s reply whole, checking every byte; `leftover` holds what a read took
    /// past the previous reply.
    fn read_reply(
        &self,
        (s, window): (&mut TcpStream, &mut Option<WindowKeeper>),
        (i, t, leftover): (usize, &mut ObjectTimes, &mut Vec<u8>),
        out: &mut ConnOut,
    ) -> Result<(), String> {
        let o = self.page.objects[self.object(i)];
        let mut chunk = vec![0u8; 64 * 1024];
        let mut buf = std::mem::take(leftover);
        let mut take = |buf: &mut Vec<u8>, t: &mut ObjectTimes| -> Result<(), String> {
            let n = read_some(s, &mut chunk, self.stop)?;
            if let Some(w) = window.as_mut() {
                w.check()?; // the window at the flow's buffer (endpoint.rs)
            }
            if n == 0 {
                return Err("the server closed before the reply was in".into());
            }
            t.first_byte.get_or_insert_with(|| self.now());
            self.fetched.fetch_add(n as u64, Ordering::Relaxed);
            buf.extend_from_slice(&chunk[..n]);
            Ok(())
        };
        if !buf.is_empty() {
            t.first_byte = Some(self.now());
        }
        let end = loop {
            if let Some(end) = http::head_end(&buf) {
                break end;
            }
            if buf.len() > http::MAX_REPLY_HEAD {
                return Err("a reply head longer than 1 KiB".into());
            }
            take(&mut buf, t)?;
        };
        let body = http::parse_reply_head(&buf[..end])?;
        let (_, want) = http::reply_head(self.version, u64::from(o.reply_bytes));
        if body != want {
            out.corrupt += 1;
            return Err(format!(
                "a reply of {body} body bytes where {want} were asked"
            ));
        }
        out.bytes += end as u64;
        buf.drain(..end);
        let mut expect = vec![0u8; 64 * 1024];
        let mut offset = 0u64;
        while offset < body {
            if buf.is_empty() {
                take(&mut buf, t)?;
            }
            let n = (body - offset).min(buf.len() as u64) as usize;
            let n = n.min(expect.len());
            http::body_bytes(body, offset, &mut expect[..n]);
            if buf[..n] != expect[..n] {
                out.corrupt += 1;
                return Err(format!("reply bytes differ at body offset {offset}"));
            }
            buf.drain(..n);
            offset += n as u64;
        }
        out.bytes += body;
        t.done = Some(self.now());
        *leftover = buf;
        Ok(())
    }
}
