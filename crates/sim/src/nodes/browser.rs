//! The client of a workload flow (issue 53, item 1; docs/web-workload.md): a browser that fetches
//! its pages one after another, each as its plan says (`workload/plan.rs`: which connection
//! carries which object, after which other), over the request/response application
//! (`proto/src/app/`), and records every object's times.
//!
//! Each new connection takes a fresh local port as 4.4BSD's `in_pcbbind` (`netinet/in_pcb.c`)
//! picks one for a `connect()` without `bind()`: the host's last port plus one, from
//! `IPPORT_RESERVED` (1024) to `IPPORT_USERRESERVED` (5000) and round again, skipping a port in
//! use. Its server end is made at the same moment, told the connection's exchanges (the bytes
//! are modelled, so they name nothing: `app/mod.rs`); the run hands it to the server's host.

use snooplab_proto::app::{Client, Closer, Exchange, ObjectTimes, Server};
use snooplab_proto::tcp::{State, TcpConfig};
use snooplab_proto::{Endpoint, Time};

use super::apps::{AppConns, Opened};
use super::stalls::ConnId;
use crate::network::FlowId;
use crate::rng::Rng;
use crate::workload::{plan, After, Http, Page, PagePlan};

/// One object's fetch as the results report it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ObjectRecord {
    pub times: ObjectTimes,
    /// Its connection failed (the client gave up) before its response was read whole.
    pub failed: bool,
    /// The connection it rode, once asked (its stalls are found by it: `stalls.rs`).
    pub conn: Option<ConnId>,
}

/// One page's fetch: when it started and its objects in page order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageRecord {
    pub started: Time,
    pub objects: Vec<ObjectRecord>,
}

/// Where a transfer of the page being fetched stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    Waiting,
    /// Asked on the connection with this local port, as its `k`-th object.
    Asked {
        port: u16,
        k: usize,
    },
    Done,
}

/// What the browser is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Loading,
    /// The user reads the page until then (before the first page: the flow's start time).
    Thinking {
        until: Time,
    },
    /// Every page fetched.
    Finished,
}

/// A workload flow's client.
#[derive(Clone, Debug)]
pub struct Browser {
    pub flow: FlowId,
    pages: Vec<Page>,
    http: Http,
    /// The TCP both ends of each connection open with (the flow's protocol and host, each end's
    /// clock phases); the initial sequence numbers are drawn per connection.
    client_cfg: TcpConfig,
    server_cfg: TcpConfig,
    iss: Rng,
    local_addr: u32,
    server: Endpoint,
    phase: Phase,
    page: usize,
    plan: PagePlan,
    steps: Vec<Step>,
    /// Each of the page's connections' local port, once opened.
    page_conns: Vec<Option<u16>>,
    current: PageRecord,
    pub records: Vec<PageRecord>,
}

impl Browser {
    /// A browser for `pages` from `start` on, its client end at `local_addr`, the server at
    /// `server`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        flow: FlowId,
        pages: Vec<Page>,
        http: Http,
        client_cfg: TcpConfig,
        server_cfg: TcpConfig,
        iss: Rng,
        local_addr: u32,
        server: Endpoint,
        start: Time,
    ) -> Browser {
        Browser {
            flow,
            pages,
            http,
            client_cfg,
            server_cfg,
            iss,
            local_addr,
            server,
            phase: Phase::Thinking { until: start },
            page: 0,
            plan: PagePlan { transfers: vec![] },
            steps: vec![],
            page_conns: vec![],
            current: PageRecord {
                started: 0,
                objects: vec![],
            },
            records: Vec::new(),
        }
    }

    /// Every page is in (or failed).
    pub fn is_finished(&self) -> bool {
        self.phase == Phase::Finished
    }

    /// The end of the user's think time, when thinking.
    pub fn poll_timeout(&self) -> Option<Time> {
        match self.phase {
            Phase::Thinking { until } => Some(until),
            _ => None,
        }
    }

    /// Moves the browser on at `now`: starts the first page, or the next after the think time;
    /// notes the objects whose responses are in; asks those whose turn has come, opening their
    /// connections.
    pub fn step(&mut self, now: Time, apps: &mut AppConns, opened: &mut Opened) {
        loop {
            match self.phase {
                Phase::Finished => return,
                Phase::Thinking { until } if until > now => return,
                Phase::Thinking { .. } => self.start_page(now),
                Phase::Loading => {}
            }
            if self.phase != Phase::Loading {
                continue;
            }
            self.note_done(apps);
            while self.ask_ready(now, apps, opened) {
                self.note_done(apps);
            }
            if self.steps.iter().all(|s| *s == Step::Done) {
                self.end_page(now);
                continue;
            }
            return;
        }
    }

    fn start_page(&mut self, now: Time) {
        let Some(page) = self.pages.get(self.page) else {
            self.phase = Phase::Finished;
            return;
        };
        self.plan = plan(page, self.http);
        self.steps = vec![Step::Waiting; self.plan.transfers.len()];
        self.page_conns = vec![None; self.plan.connections()];
        self.current = PageRecord {
            started: now,
            objects: vec![
                ObjectRecord {
                    times: ObjectTimes::default(),
                    failed: false,
                    conn: None,
                };
                page.objects.len()
            ],
        };
        self.phase = Phase::Loading;
    }

    fn end_page(&mut self, now: Time) {
        let think = self.pages.get(self.page).map_or(0, |p| p.think);
        self.records.push(std::mem::replace(
            &mut self.current,
            PageRecord {
                started: 0,
                objects: vec![],
            },
        ));
        self.page += 1;
        self.phase = if self.page >= self.pages.len() {
            Phase::Finished
        } else {
            Phase::Thinking { until: now + think }
        };
    }

    /// Notes the objects asked whose responses are in, or whose connection failed.
    fn note_done(&mut self, apps: &AppConns) {
        for (i, step) in self.steps.iter_mut().enumerate() {
            let Step::Asked { port, k } = *step else {
                continue;
            };
            let object = usize::from(self.plan.transfers[i].object);
            let client = apps.client(self.flow, port);
            let (times, failed, conn) = match client {
                Some(c) => {
                    let times = c.objects()[k];
                    let failed = times.done.is_none() && c.tcp().state() == State::Closed;
                    let id = ConnId {
                        client_port: port,
                        client_iss: c.tcp().iss().0,
                    };
                    (times, failed, Some(id))
                }
                // a connection is dropped only once closed: its object was noted before
                None => (ObjectTimes::default(), true, None),
            };
            if times.done.is_some() || failed {
                self.current.objects[object] = ObjectRecord {
                    times,
                    failed,
                    conn,
                };
                *step = Step::Done;
            }
        }
    }

    /// Asks every transfer whose dependency is met; true if one was asked.
    fn ask_ready(&mut self, now: Time, apps: &mut AppConns, opened: &mut Opened) -> bool {
        let mut any = false;
        for i in 0..self.steps.len() {
            if self.steps[i] != Step::Waiting || !self.may_go(i, apps) {
                continue;
            }
            let t = self.plan.transfers[i];
            let connection = usize::from(t.connection);
            let exchange = self.exchange(usize::from(t.object));
            let port = match self.page_conns[connection] {
                Some(p) => p,
                None => {
                    let p = self.open(now, connection, apps, opened);
                    self.page_conns[connection] = Some(p);
                    p
                }
            };
            let last_on_connection = !self.plan.transfers[i + 1..]
                .iter()
                .any(|u| usize::from(u.connection) == connection);
            if let Some(c) = apps.client_mut(self.flow, port) {
                let k = c.ask(now, exchange);
                if last_on_connection {
                    c.finish(now);
                }
                self.steps[i] = Step::Asked { port, k };
            } else {
                self.steps[i] = Step::Done;
                self.current.objects[usize::from(t.object)].failed = true;
            }
            any = true;
        }
        if any {
            // the requests just written set their connections' retransmission timers
            apps.note_timers(now);
        }
        any
    }

    /// The transfer's dependency is met (a failed object counts as in, so the page goes on).
    fn may_go(&self, i: usize, apps: &AppConns) -> bool {
        match self.plan.transfers[i].after {
            After::PageStart => true,
            After::Document => self.steps[0] == Step::Done,
            After::Reply(j) => self.steps[usize::from(j)] == Step::Done,
            After::Request(j) => match self.steps[usize::from(j)] {
                Step::Waiting => false,
                Step::Done => true,
                Step::Asked { port, k } => apps
                    .client(self.flow, port)
                    .is_none_or(|c| c.objects()[k].requested.is_some()),
            },
        }
    }

    fn exchange(&self, object: usize) -> Exchange {
        let o = self.pages[self.page].objects[object];
        Exchange {
            request_bytes: u64::from(o.request_bytes),
            response_bytes: u64::from(o.reply_bytes),
        }
    }

    /// Opens the page's connection `connection`: a client end on a fresh port, and its server
    /// end, told every exchange the plan puts on it, for the run to hand to the server's host.
    fn open(
        &mut self,
        now: Time,
        connection: usize,
        apps: &mut AppConns,
        opened: &mut Opened,
    ) -> u16 {
        let port = apps.ephemeral_port(self.local_addr);
        let local = Endpoint {
            addr: self.local_addr,
            port,
        };
        let exchanges = self
            .plan
            .transfers
            .iter()
            .filter(|t| usize::from(t.connection) == connection)
            .map(|t| self.exchange(usize::from(t.object)))
            .collect();
        let (closer, pipelined) = match self.http {
            Http::Http10 { .. } => (Closer::Server, false),
            Http::Http11 { pipelined, .. } => (Closer::Client, pipelined),
        };
        let mut ccfg = self.client_cfg.clone();
        ccfg.iss = self.iss.next_u64() as u32;
        let mut scfg = self.server_cfg.clone();
        scfg.iss = self.iss.next_u64() as u32;
        let client = Client::open(ccfg, local, self.server, now, closer, pipelined);
        apps.push_client(self.flow, client);
        opened.push((
            self.flow,
            Server::listen(scfg, self.server, local, closer, exchanges),
        ));
        port
    }
}
