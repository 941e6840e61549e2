//! A host's request/response connections (issue 53, item 1): the client ends its browsers opened
//! and the server ends it accepted, each the application of `proto/src/app/` over the one TCP,
//! demultiplexed by address and port as the bulk flows' ends are (`host.rs`). A connection is
//! dropped once closed (after TIME_WAIT, for the side that closed first), its counters kept per
//! flow for the results.

use snooplab_proto::app::{Client, Server};
use snooplab_proto::tcp::{State, Tcp, TxKind};
use snooplab_proto::time::earliest;
use snooplab_proto::{Endpoint, Segment, Time};

use super::stalls::{ConnId, Stall, StallPhase, TimerWatch};
use crate::network::FlowId;

/// `IPPORT_RESERVED` and `IPPORT_USERRESERVED` (4.4BSD `netinet/in.h`): the range `in_pcbbind`
/// gives ephemeral ports from.
pub const IPPORT_RESERVED: u16 = 1024;
pub const IPPORT_USERRESERVED: u16 = 5000;

/// The connections a browser has asked a server host to accept: each one's server end.
pub type Opened = Vec<(FlowId, Server)>;

/// One end of a request/response connection.
#[derive(Clone, Debug)]
pub enum AppEnd {
    Client(Box<Client>),
    Server(Box<Server>),
}

/// A connection end and the workload flow it serves.
#[derive(Clone, Debug)]
pub struct AppConn {
    pub flow: FlowId,
    pub end: AppEnd,
    /// When its retransmission timer was last set (`stalls.rs`).
    watch: TimerWatch,
}

impl AppConn {
    pub fn tcp(&self) -> &Tcp {
        match &self.end {
            AppEnd::Client(c) => c.tcp(),
            AppEnd::Server(s) => s.tcp(),
        }
    }

    fn on_segment(&mut self, now: Time, seg: &Segment) {
        match &mut self.end {
            AppEnd::Client(c) => c.on_segment(now, seg),
            AppEnd::Server(s) => s.on_segment(now, seg),
        }
        self.note_timer(now);
    }

    /// After a call into its TCP at `now`: whether that set its retransmission timer.
    fn note_timer(&mut self, now: Time) {
        let tcp = match &self.end {
            AppEnd::Client(c) => c.tcp(),
            AppEnd::Server(s) => s.tcp(),
        };
        self.watch.note(tcp, now);
    }

    /// The connection as both ends name it (`stalls.rs`).
    pub fn id(&self) -> ConnId {
        let t = self.tcp();
        match self.end {
            AppEnd::Client(_) => ConnId {
                client_port: t.local().port,
                client_iss: t.iss().0,
            },
            AppEnd::Server(_) => ConnId {
                client_port: t.remote().port,
                client_iss: t.irs().0,
            },
        }
    }

    fn on_corrupted(&mut self, seg: &Segment) {
        match &mut self.end {
            AppEnd::Client(c) => c.on_corrupted(seg),
            AppEnd::Server(s) => s.on_corrupted(seg),
        }
    }

    /// The timers due at `now`; a retransmission timeout among them is returned as a stall.
    fn on_timeout(&mut self, now: Time) -> Option<Stall> {
        let (before, phase) = (self.tcp().stats().timeouts, StallPhase::of(self.tcp()));
        match &mut self.end {
            AppEnd::Client(c) => c.on_timeout(now),
            AppEnd::Server(s) => s.on_timeout(now),
        }
        let fired = self.tcp().stats().timeouts > before;
        let stall = fired.then(|| Stall {
            flow: self.flow,
            conn: self.id(),
            at_server: matches!(self.end, AppEnd::Server(_)),
            armed: self.watch.armed(),
            fired: now,
            phase,
        });
        self.note_timer(now);
        stall
    }

    pub(super) fn poll_transmit(&mut self) -> Option<(Segment, TxKind)> {
        match &mut self.end {
            AppEnd::Client(c) => c.poll_transmit(),
            AppEnd::Server(s) => s.poll_transmit(),
        }
    }

    /// Nothing more will happen on it: closed, or a server end still listening for a client
    /// that gave up before its SYN arrived.
    pub fn is_settled(&self) -> bool {
        self.tcp().is_finished() || self.tcp().state() == State::Listen
    }
}

/// What a flow's connections on one host counted, the closed ones' and the open ones' together.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AppCounters {
    /// Connections opened (client ends) or accepted (server ends, their SYN received).
    pub connections: u64,
    /// Retransmission timeouts before the connection was established: a SYN or SYN|ACK sent again.
    pub handshake_timeouts: u64,
    /// Every retransmission timeout, the handshake's included.
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub retransmitted_segments: u64,
}

impl AppCounters {
    fn add(&mut self, conn: &AppConn) {
        let t = conn.tcp();
        let s = t.stats();
        let opened = match conn.end {
            AppEnd::Client(_) => true,
            AppEnd::Server(_) => t.state() != State::Listen,
        };
        self.connections += u64::from(opened);
        self.handshake_timeouts += s.timeout_causes.handshake;
        self.timeouts += s.timeouts;
        self.fast_retransmits += s.fast_retransmits;
        self.retransmitted_segments += s.rexmt_segs;
    }

    pub fn plus(mut self, o: AppCounters) -> AppCounters {
        self.connections += o.connections;
        self.handshake_timeouts += o.handshake_timeouts;
        self.timeouts += o.timeouts;
        self.fast_retransmits += o.fast_retransmits;
        self.retransmitted_segments += o.retransmitted_segments;
        self
    }
}

/// A host's request/response connections.
#[derive(Clone, Debug, Default)]
pub struct AppConns {
    pub conns: Vec<AppConn>,
    /// The last ephemeral port given (`in_pcbbind`'s `head->inp_lport`), 0 before the first.
    last_port: u16,
    /// The counters of the connections dropped, by flow.
    closed: Vec<(FlowId, AppCounters)>,
    /// Every retransmission timeout of the connections here, in order (`stalls.rs`): at most
    /// `max_rxtshift` (12) a connection between ACKs of new data, so bounded by the segments
    /// the run's bounded objects send.
    pub stalls: Vec<Stall>,
}

impl AppConns {
    /// The connection a segment from `seg.src` to `seg.dst` belongs to.
    pub fn index(&self, seg: &Segment) -> Option<usize> {
        self.conns
            .iter()
            .position(|c| c.tcp().local() == seg.dst && c.tcp().remote() == seg.src)
    }

    pub fn client(&self, flow: FlowId, port: u16) -> Option<&Client> {
        self.conns.iter().find_map(|c| match &c.end {
            AppEnd::Client(cl) if c.flow == flow && cl.tcp().local().port == port => {
                Some(cl.as_ref())
            }
            _ => None,
        })
    }

    pub fn client_mut(&mut self, flow: FlowId, port: u16) -> Option<&mut Client> {
        self.conns.iter_mut().find_map(|c| match &mut c.end {
            AppEnd::Client(cl) if c.flow == flow && cl.tcp().local().port == port => {
                Some(cl.as_mut())
            }
            _ => None,
        })
    }

    /// A client end just opened: its SYN's timer set when `connect()` was called.
    pub fn push_client(&mut self, flow: FlowId, client: Client) {
        let watch = TimerWatch::new(client.tcp(), client.connection().opened);
        self.conns.push(AppConn {
            flow,
            end: AppEnd::Client(Box::new(client)),
            watch,
        });
    }

    /// After the application called into connections at `now` (a browser's requests): the
    /// retransmission timers they set.
    pub fn note_timers(&mut self, now: Time) {
        for c in &mut self.conns {
            c.note_timer(now);
        }
    }

    /// A server end waiting for its client's SYN. An old connection of the same two endpoints
    /// still in TIME_WAIT (the client's ports came round again within 2 MSL) gives way to it,
    /// as 4.4BSD's `tcp_input` drops a TIME_WAIT connection for a new SYN and starts over (a
    /// reading: BSD asks the SYN's sequence number to be above the old connection's, which the
    /// independent initial sequence numbers here do not keep).
    pub fn push_server(&mut self, flow: FlowId, server: Server) {
        let (local, remote) = (server.tcp().local(), server.tcp().remote());
        if let Some(i) = self.conns.iter().position(|c| {
            c.tcp().local() == local && c.tcp().remote() == remote && c.tcp().is_finished()
        }) {
            let old = self.conns.remove(i);
            self.keep_counters(&old);
        }
        let watch = TimerWatch::new(server.tcp(), 0);
        self.conns.push(AppConn {
            flow,
            end: AppEnd::Server(Box::new(server)),
            watch,
        });
    }

    /// A fresh local port at `addr`, as 4.4BSD's `in_pcbbind` gives one: the last one plus one,
    /// within `IPPORT_RESERVED..=IPPORT_USERRESERVED`, skipping those in use here. (At most
    /// [`crate::workload::MAX_OPEN_PER_HOST`] connections of a host are open at once besides
    /// TIME_WAIT ones, so a free port is found.)
    pub fn ephemeral_port(&mut self, addr: u32) -> u16 {
        for _ in IPPORT_RESERVED..=IPPORT_USERRESERVED {
            let old = self.last_port;
            self.last_port = old.wrapping_add(1);
            if old < IPPORT_RESERVED || self.last_port > IPPORT_USERRESERVED {
                self.last_port = IPPORT_RESERVED;
            }
            let port = self.last_port;
            let used = self
                .conns
                .iter()
                .any(|c| c.tcp().local() == Endpoint { addr, port });
            if !used {
                break;
            }
        }
        self.last_port
    }

    pub fn on_segment(&mut self, now: Time, i: usize, seg: &Segment) {
        if let Some(c) = self.conns.get_mut(i) {
            c.on_segment(now, seg);
        }
    }

    pub fn on_corrupted(&mut self, i: usize, seg: &Segment) {
        if let Some(c) = self.conns.get_mut(i) {
            c.on_corrupted(seg);
        }
    }

    pub fn on_timeout(&mut self, now: Time) {
        let stalls = &mut self.stalls;
        for c in &mut self.conns {
            if c.tcp().poll_timeout().is_some_and(|t| t <= now) {
                if let Some(s) = c.on_timeout(now) {
                    stalls.push(s);
                }
            }
        }
    }

    pub fn poll_timeout(&self) -> Option<Time> {
        self.conns
            .iter()
            .fold(None, |t, c| earliest(t, c.tcp().poll_timeout()))
    }

    /// Drops the closed connections, keeping their counters.
    pub fn drop_closed(&mut self) {
        let mut i = 0;
        while i < self.conns.len() {
            if self.conns[i].tcp().state() == State::Closed {
                let c = self.conns.remove(i);
                self.keep_counters(&c);
            } else {
                i += 1;
            }
        }
    }

    fn keep_counters(&mut self, c: &AppConn) {
        match self.closed.iter_mut().find(|(f, _)| *f == c.flow) {
            Some((_, k)) => k.add(c),
            None => {
                let mut k = AppCounters::default();
                k.add(c);
                self.closed.push((c.flow, k));
            }
        }
    }

    /// A flow's counters here, the closed connections' and the open ones' (a host is one
    /// flow's client or its server, not both).
    pub fn counters(&self, flow: FlowId) -> AppCounters {
        let mut k = self
            .closed
            .iter()
            .find(|(f, _)| *f == flow)
            .map_or_else(AppCounters::default, |(_, k)| *k);
        for c in self.conns.iter().filter(|c| c.flow == flow) {
            k.add(c);
        }
        k
    }

    /// Every connection of the flow here is settled ([`AppConn::is_settled`]).
    pub fn flow_settled(&self, flow: FlowId) -> bool {
        self.conns
            .iter()
            .filter(|c| c.flow == flow)
            .all(AppConn::is_settled)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use snooplab_proto::app::Closer;
    use snooplab_proto::tcp::TcpConfig;

    const ADDR: u32 = 0x0a00_0002;

    fn client_on(apps: &mut AppConns, port: u16) {
        let cfg = TcpConfig::relay(1000, 8192, 8192);
        let local = Endpoint { addr: ADDR, port };
        let remote = Endpoint {
            addr: 0x0a00_0001,
            port: 80,
        };
        apps.push_client(
            0,
            Client::open(cfg, local, remote, 0, Closer::Server, false),
        );
    }

    /// `in_pcbbind`: 1024 first, then one more each time, back to 1024 after 5000.
    #[test]
    fn ephemeral_ports_count_up_from_1024_and_wrap_after_5000() {
        let mut apps = AppConns::default();
        assert_eq!(apps.ephemeral_port(ADDR), 1024);
        assert_eq!(apps.ephemeral_port(ADDR), 1025);
        apps.last_port = 4999;
        assert_eq!(apps.ephemeral_port(ADDR), 5000);
        assert_eq!(apps.ephemeral_port(ADDR), 1024);
    }

    /// A port a connection of the host holds is skipped.
    #[test]
    fn an_ephemeral_port_in_use_is_skipped() {
        let mut apps = AppConns::default();
        client_on(&mut apps, 1024);
        client_on(&mut apps, 1025);
        assert_eq!(apps.ephemeral_port(ADDR), 1026);
        // at another address the ports are free (the look-up is by local endpoint)
        let mut other = AppConns::default();
        client_on(&mut other, 1024);
        assert_eq!(other.ephemeral_port(ADDR + 1), 1024);
    }
}
