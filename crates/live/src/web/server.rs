//! snooplab's HTTP server (`snooplab web-server`, and the server end of a live workload flow):
//! answers `GET /<n>` with a reply of `n` bytes in all (`http.rs`), a thread per connection.
//!
//! - HTTP/1.0 (RFC 1945 section 1.3): one request per connection; the server closes after its
//!   reply, as the simulator's server does (`Closer::Server`, `proto/src/app/`).
//! - HTTP/1.1 (RFC 2616 section 8.1): requests one after another on the connection, pipelined
//!   ones included (each read whole after the previous reply is written, section 8.1.2.2: replies
//!   in the order of the requests), until the client closes.
//!
//! Bounded: a request head of at most [`http::MAX_REQUEST_HEAD`], a reply of at most
//! [`http::MAX_REPLY`], at most [`MAX_CONNECTIONS`] connections served at once (the rest wait in
//! the listen queue), and a connection that moves nothing for [`super::NO_PROGRESS`] is closed.
//! A bad request closes its connection (it is counted, and the first few are kept).

use std::net::{Shutdown, SocketAddrV4, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use super::http::{self, Version};
use super::{poll_every, read_some, write_all, POLL};
use crate::netns::Namespace;
use crate::sys;

/// At most this many connections served at once: four times the 64 a host's workloads may hold
/// open (`MAX_OPEN_PER_HOST`), for the HTTP/1.0 connections still closing.
pub const MAX_CONNECTIONS: usize = 256;

/// At most this many connections' errors are kept for the report (all are counted).
const ERRORS_KEPT: usize = 8;

/// What the server did.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct ServerReport {
    pub connections: u64,
    pub replies: u64,
    /// Bytes of the replies written, heads included.
    pub reply_bytes: u64,
    /// Connections that ended on an error (a bad request, a reset, no progress).
    pub failed_connections: u64,
    /// The first few of their errors.
    pub errors: Vec<String>,
}

/// A listening server.
pub struct WebServer {
    listener: TcpListener,
}

impl WebServer {
    /// Listens on `at`, inside `ns` if given; the connections it accepts use congestion control
    /// `cc` if given (an accepted socket inherits its listener's).
    pub fn listen(
        ns: Option<&Namespace>,
        at: SocketAddrV4,
        cc: Option<&str>,
    ) -> Result<WebServer, String> {
        let listener = {
            let _inside = ns.map(Namespace::enter).transpose()?;
            TcpListener::bind(at).map_err(|e| format!("cannot listen on {at}: {e}"))?
        };
        if let Some(cc) = cc {
            sys::set_congestion_control(listener.as_raw_fd(), cc)
                .map_err(|e| format!("congestion control {cc}: {e}"))?;
        }
        listener
            .set_nonblocking(true)
            .map_err(|e| format!("listener: {e}"))?;
        Ok(WebServer { listener })
    }

    /// The address it listens on (its port chosen by the kernel for port 0).
    pub fn local_addr(&self) -> Result<std::net::SocketAddr, String> {
        self.listener
            .local_addr()
            .map_err(|e| format!("listener: {e}"))
    }

    /// Serves until `stop` is set, then waits for the connections being served (each looks at
    /// `stop` every [`POLL`]).
    pub fn serve(self, stop: &AtomicBool) -> ServerReport {
        let report = Mutex::new(ServerReport::default());
        let active = AtomicUsize::new(0);
        std::thread::scope(|s| {
            while !stop.load(Ordering::Relaxed) {
                if active.load(Ordering::SeqCst) >= MAX_CONNECTIONS {
                    std::thread::sleep(POLL / 10);
                    continue;
                }
                let stream = match self.listener.accept() {
                    Ok((stream, _)) => stream,
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                        let fd = self.listener.as_raw_fd();
                        let _ = sys::wait_readable([fd], POLL.as_nanos() as u64);
                        continue;
                    }
                    Err(e) => {
                        note(&report, None, Err(format!("accept: {e}")));
                        std::thread::sleep(POLL);
                        continue;
                    }
                };
                active.fetch_add(1, Ordering::SeqCst);
                let (report, active) = (&report, &active);
                s.spawn(move || {
                    let r = serve_connection(stream, stop);
                    note(report, Some(()), r);
                    active.fetch_sub(1, Ordering::SeqCst);
                });
            }
        });
        report.into_inner().unwrap_or_default()
    }
}

/// Adds a connection's outcome (replies and bytes, or its error) to the report.
fn note(report: &Mutex<ServerReport>, connection: Option<()>, r: Result<(u64, u64), String>) {
    let Ok(mut g) = report.lock() else { return };
    g.connections += u64::from(connection.is_some());
    match r {
        Ok((replies, bytes)) => {
            g.replies += replies;
            g.reply_bytes += bytes;
        }
        Err(e) => {
            g.failed_connections += 1;
            if g.errors.len() < ERRORS_KEPT {
                g.errors.push(e);
            }
        }
    }
}

/// Serves one connection: its requests in order, each answered whole; returns the replies and
/// their bytes.
fn serve_connection(mut stream: TcpStream, stop: &AtomicBool) -> Result<(u64, u64), String> {
    stream
        .set_nonblocking(false)
        .map_err(|e| format!("socket: {e}"))?;
    poll_every(&stream)?;
    let (mut replies, mut bytes) = (0u64, 0u64);
    let mut buf: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        // a request's head: what is left of the last read, then more until the blank line
        let end = loop {
            if let Some(end) = http::head_end(&buf) {
                break end;
            }
            if buf.len() > http::MAX_REQUEST_HEAD {
                return Err(format!(
                    "a request head longer than {} bytes",
                    http::MAX_REQUEST_HEAD
                ));
            }
            let n = match read_some(&mut stream, &mut chunk, stop) {
                Ok(n) => n,
                // the run ended while the connection waited for a request: nothing was left
                Err(_) if buf.is_empty() && stop.load(Ordering::Relaxed) => 0,
                Err(e) => return Err(e),
            };
            if n == 0 {
                // the client closed (after its last reply under HTTP/1.1)
                return if buf.is_empty() {
                    Ok((replies, bytes))
                } else {
                    Err("the client closed within a request".into())
                };
            }
            buf.extend_from_slice(&chunk[..n]);
        };
        let request = http::parse_request(&buf[..end])?;
        buf.drain(..end);
        bytes += write_reply(&mut stream, request, &mut chunk, stop)?;
        replies += 1;
        if request.version == Version::Http10 {
            // RFC 1945: the server closes the connection after its reply
            let _ = stream.shutdown(Shutdown::Write);
            return Ok((replies, bytes));
        }
    }
}

/// Writes the reply `request` asks for; returns its bytes.
fn write_reply(
    stream: &mut TcpStream,
    request: http::Request,
    chunk: &mut [u8],
    stop: &AtomicBool,
) -> Result<u64, String> {
    let (head, body) = http::reply_head(request.version, request.reply_bytes);
    write_all(stream, &head, stop)?;
    let mut offset = 0;
    while offset < body {
        let n = (body - offset).min(chunk.len() as u64) as usize;
        http::body_bytes(body, offset, &mut chunk[..n]);
        write_all(stream, &chunk[..n], stop)?;
        offset += n as u64;
    }
    Ok(head.len() as u64 + body)
}
