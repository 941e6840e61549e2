//! A request/response application over the one TCP, sans-IO (issue 53, item 1;
//! docs/web-workload.md): a client that opens a connection, writes a request of N bytes and
//! reads a response of M bytes, and its server, so that a Web object's connection setup,
//! request, response and teardown are all on the wire, and a lost SYN, a lost FIN or a lost last
//! segment costs what it cost the hosts of the time.
//!
//! Each side is a [`crate::tcp::Tcp`] with an explicit application (`CloseWhen::Relay`: it writes
//! with `Tcp::write`, reads with `Tcp::read` and closes with `Tcp::close`, as the split relay
//! does), driven through the same four calls as the TCP. The application reads what has arrived
//! at once (a process blocked in `read()`), and writes as much of a message as the send buffer
//! takes, the rest as the buffer drains.
//!
//! The bytes are modelled, not parsed: a request's and a response's length are given to both
//! sides (`Exchange`), as a workload gives them (`sim::workload`), and a response is complete
//! when its last byte is read (a reading: a `Content-Length` known to the client; an HTTP/1.0
//! response without one ends at the server's FIN instead, RFC 1945 section 7.2.2).
//!
//! - HTTP/1.0 (RFC 1945 section 1.3: current practice has the client open a connection before
//!   each request and the server close it after sending the response): one exchange per
//!   connection, [`Closer::Server`]; the client closes when it reads end of file.
//! - HTTP/1.1 persistent connections (RFC 2616 section 8.1): several exchanges on one connection,
//!   each request after the previous response or, pipelined, back to back (section 8.1.2.2). The
//!   client closes after its last response ([`Closer::Client`]; a reading: section 8.1.2.1 lets
//!   either side close, and a browser keeping the connection open for the next page, until a
//!   server's idle timeout, is not modelled).
//!
//! What happened when is recorded per object and per connection (`record.rs`); a page's times
//! are its objects' ([`PageTimes`]).

mod client;
mod record;
mod server;

#[cfg(test)]
mod tests;

pub use client::Client;
pub use record::{ConnectionTimes, ObjectTimes, PageTimes};
pub use server::Server;

/// One request and its response, in bytes of application data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exchange {
    pub request_bytes: u64,
    pub response_bytes: u64,
}

/// Which side closes the connection once its exchanges are done; the other closes when it reads
/// end of file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Closer {
    /// HTTP/1.0: the server, after its response (RFC 1945 section 1.3).
    Server,
    /// HTTP/1.1 persistent: the client, after its last response (a reading of RFC 2616
    /// section 8.1.2.1, which lets either side close).
    Client,
}
