//! The client side: opens the connection, writes each request when its turn comes, reads each
//! response, and closes when its side of the exchange is over (`Closer`).

use super::record::{ConnectionTimes, ObjectTimes};
use super::{Closer, Exchange};
use crate::segment::{Endpoint, Segment};
use crate::tcp::{State, Tcp, TcpConfig, TxKind};
use crate::time::Time;

/// A client connection and the objects asked on it, in order.
#[derive(Clone, Debug)]
pub struct Client {
    tcp: Tcp,
    closer: Closer,
    pipelined: bool,
    exchanges: Vec<Exchange>,
    objects: Vec<ObjectTimes>,
    /// Requests written whole, and bytes of the next one written.
    requests_written: usize,
    request_progress: u64,
    /// Responses read whole, and bytes of the next one read.
    responses_read: usize,
    response_progress: u64,
    /// No more objects will be asked (HTTP/1.1: the client may close after the last response).
    finished: bool,
    closed_app: bool,
    connection: ConnectionTimes,
}

impl Client {
    /// `connect()`: the SYN is queued at `now`. `cfg` should be a `TcpConfig::relay` (an
    /// explicit application); `pipelined` sends each request without waiting for the previous
    /// response (RFC 2616 section 8.1.2.2).
    pub fn open(
        cfg: TcpConfig,
        local: Endpoint,
        remote: Endpoint,
        now: Time,
        closer: Closer,
        pipelined: bool,
    ) -> Client {
        Client {
            tcp: Tcp::connect(cfg, local, remote, now),
            closer,
            pipelined,
            exchanges: Vec::new(),
            objects: Vec::new(),
            requests_written: 0,
            request_progress: 0,
            responses_read: 0,
            response_progress: 0,
            finished: false,
            closed_app: false,
            connection: ConnectionTimes {
                opened: now,
                ..ConnectionTimes::default()
            },
        }
    }

    /// The application asks for an object on this connection; returns its number on it. Its
    /// request goes when the connection is open and, unless pipelined, the previous response in.
    pub fn ask(&mut self, now: Time, exchange: Exchange) -> usize {
        self.exchanges.push(exchange);
        self.objects.push(ObjectTimes {
            asked: now,
            ..ObjectTimes::default()
        });
        self.drive(now);
        self.exchanges.len() - 1
    }

    /// No more objects will be asked on this connection.
    pub fn finish(&mut self, now: Time) {
        self.finished = true;
        self.drive(now);
    }

    pub fn on_segment(&mut self, now: Time, seg: &Segment) {
        self.tcp.on_segment(now, seg);
        self.drive(now);
    }

    pub fn on_timeout(&mut self, now: Time) {
        self.tcp.on_timeout(now);
        self.drive(now);
    }

    /// A segment that arrived corrupted: the TCP notes it where its receiver marks ELN
    /// (`Tcp::on_corrupted`); the application has nothing new to read.
    pub fn on_corrupted(&mut self, seg: &Segment) {
        self.tcp.on_corrupted(seg);
    }

    pub fn poll_transmit(&mut self) -> Option<(Segment, TxKind)> {
        self.tcp.poll_transmit()
    }

    pub fn poll_timeout(&self) -> Option<Time> {
        self.tcp.poll_timeout()
    }

    pub fn tcp(&self) -> &Tcp {
        &self.tcp
    }

    pub fn objects(&self) -> &[ObjectTimes] {
        &self.objects
    }

    pub fn connection(&self) -> ConnectionTimes {
        self.connection
    }

    /// Every object asked is in, or the connection failed.
    pub fn all_done(&self) -> bool {
        self.responses_read == self.exchanges.len() || self.tcp.state() == State::Closed
    }

    /// The connection's client side has finished too.
    pub fn is_finished(&self) -> bool {
        self.tcp.is_finished()
    }

    /// The application's part after every event: note the handshake, write what may be
    /// written, read what has arrived, close when done.
    fn drive(&mut self, now: Time) {
        if self.connection.established.is_none() && is_open(self.tcp.state()) {
            self.connection.established = Some(now);
            for o in &mut self.objects {
                o.connected = Some(now);
            }
        }
        if self.connection.established.is_some() {
            loop {
                let wrote = self.write_requests(now);
                let read = self.read_responses(now);
                if !wrote && !read {
                    break;
                }
            }
        }
        self.maybe_close(now);
        if self.connection.closed.is_none() && self.tcp.is_finished() {
            self.connection.closed = Some(now);
        }
    }

    /// Writes the requests whose turn has come; true if a byte was written.
    fn write_requests(&mut self, now: Time) -> bool {
        let mut any = false;
        while self.requests_written < self.exchanges.len()
            && (self.pipelined || self.requests_written == self.responses_read)
        {
            let want = self.exchanges[self.requests_written].request_bytes;
            let n = self.tcp.write(now, want - self.request_progress);
            self.request_progress += n;
            any |= n > 0;
            if self.request_progress < want {
                break;
            }
            self.objects[self.requests_written].requested = Some(now);
            self.requests_written += 1;
            self.request_progress = 0;
        }
        any
    }

    /// Reads what has arrived of the responses asked for; true if a byte was read.
    fn read_responses(&mut self, now: Time) -> bool {
        let mut any = false;
        while self.responses_read < self.requests_written {
            let want = self.exchanges[self.responses_read].response_bytes;
            let n = self.tcp.read(now, want - self.response_progress);
            if n == 0 && want > 0 {
                break;
            }
            any |= n > 0;
            let object = &mut self.objects[self.responses_read];
            if self.response_progress == 0 {
                object.first_byte = Some(now);
            }
            self.response_progress += n;
            if self.response_progress == want {
                object.done = Some(now);
                self.responses_read += 1;
                self.response_progress = 0;
                // The next request may now go (not pipelined).
                any = true;
            }
        }
        any
    }

    fn maybe_close(&mut self, now: Time) {
        if self.closed_app {
            return;
        }
        let close = match self.closer {
            Closer::Client => self.finished && self.responses_read == self.exchanges.len(),
            // The server closes first; the client closes on reading end of file.
            Closer::Server => self.tcp.at_eof(),
        };
        if close {
            self.closed_app = true;
            self.tcp.close(now);
        }
    }
}

/// The handshake is done (`TCPS_HAVEESTABLISHED` in BSD's terms).
fn is_open(state: State) -> bool {
    !matches!(
        state,
        State::Closed | State::Listen | State::SynSent | State::SynRcvd
    )
}
