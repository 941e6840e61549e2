//! The server side: reads each request, writes its response once the request is whole, in
//! order, and closes when its side of the exchange is over (`Closer`).

use super::{Closer, Exchange};
use crate::segment::{Endpoint, Segment};
use crate::tcp::{Tcp, TcpConfig, TxKind};
use crate::time::Time;

/// A listening server connection and the exchanges it will serve, in order.
#[derive(Clone, Debug)]
pub struct Server {
    tcp: Tcp,
    closer: Closer,
    exchanges: Vec<Exchange>,
    requests_read: usize,
    request_progress: u64,
    responses_written: usize,
    response_progress: u64,
    closed_app: bool,
}

impl Server {
    /// A passive open waiting for the client's SYN. `exchanges` are what the client will ask,
    /// in order (the modelled bytes name nothing, so the server is told).
    pub fn listen(
        cfg: TcpConfig,
        local: Endpoint,
        remote: Endpoint,
        closer: Closer,
        exchanges: Vec<Exchange>,
    ) -> Server {
        Server {
            tcp: Tcp::listen(cfg, local, remote),
            closer,
            exchanges,
            requests_read: 0,
            request_progress: 0,
            responses_written: 0,
            response_progress: 0,
            closed_app: false,
        }
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

    /// Responses written whole to the socket.
    pub fn responses_written(&self) -> usize {
        self.responses_written
    }

    pub fn is_finished(&self) -> bool {
        self.tcp.is_finished()
    }

    fn drive(&mut self, now: Time) {
        loop {
            let read = self.read_requests(now);
            let wrote = self.write_responses(now);
            if !read && !wrote {
                break;
            }
        }
        if !self.closed_app {
            let close = match self.closer {
                Closer::Server => self.responses_written == self.exchanges.len(),
                Closer::Client => self.tcp.at_eof() && self.responses_written == self.requests_read,
            };
            if close {
                self.closed_app = true;
                self.tcp.close(now);
            }
        }
    }

    /// Reads what has arrived of the requests expected; true if a byte was read.
    fn read_requests(&mut self, now: Time) -> bool {
        let mut any = false;
        while self.requests_read < self.exchanges.len() {
            let want = self.exchanges[self.requests_read].request_bytes;
            let n = self.tcp.read(now, want - self.request_progress);
            self.request_progress += n;
            any |= n > 0;
            if self.request_progress < want {
                break;
            }
            self.requests_read += 1;
            self.request_progress = 0;
        }
        any
    }

    /// Writes the responses to the requests read whole, in order; true if a byte was written.
    fn write_responses(&mut self, now: Time) -> bool {
        let mut any = false;
        while self.responses_written < self.requests_read {
            let want = self.exchanges[self.responses_written].response_bytes;
            let n = self.tcp.write(now, want - self.response_progress);
            self.response_progress += n;
            any |= n > 0;
            if self.response_progress < want {
                break;
            }
            self.responses_written += 1;
            self.response_progress = 0;
        }
        any
    }
}
