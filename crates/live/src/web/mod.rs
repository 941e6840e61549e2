//! A Web workload on real hosts (issue 53, item 5; docs/live.md, "Web pages"): snooplab's own
//! small HTTP server (`server.rs`) and client (`client.rs`) over the kernels' TCP, with ordinary
//! sockets and a thread per connection. The client replays a flow's pages, the same pages the
//! simulator draws for the same model and seed (`sim/src/workload/`), each as the page's plan
//! under HTTP/1.0 or HTTP/1.1 says (`workload/plan.rs`), and records each object's times in the
//! shape the simulator's browser records them (`nodes/browser.rs`'s `PageRecord`), so one
//! conversion (`PagesResult::of_records`) gives both clocks' `flows[].pages`. The messages are
//! `http.rs`; a scenario's workload flow in the live engine is `flow.rs`.
//!
//! Every wait is bounded: blocked calls come back every [`POLL`] to look at the stop flag, and a
//! connection that moves no byte for [`NO_PROGRESS`] is given up.

pub mod client;
pub mod flow;
pub mod http;
pub mod server;

#[cfg(test)]
mod tests;

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How often blocked socket calls come back to look at the stop flag.
pub(crate) const POLL: Duration = Duration::from_millis(100);

/// A connection that moves no byte for this long is given up: longer than Linux's SYN retries
/// take for a connect (about 127 s with `tcp_syn_retries` 6 is the kernel's own bound there)
/// is not needed for a page, and 4.4BSD gives up a connection attempt after 75 s
/// (`TCPTV_KEEP_INIT`); two minutes covers several of the paper profile's backed-off timeouts.
pub const NO_PROGRESS: Duration = Duration::from_secs(120);

/// Sets the stream's reads and writes to come back every [`POLL`].
pub(crate) fn poll_every(stream: &TcpStream) -> Result<(), String> {
    stream
        .set_read_timeout(Some(POLL))
        .and_then(|_| stream.set_write_timeout(Some(POLL)))
        .map_err(|e| format!("socket timeouts: {e}"))
}

fn is_timeout(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
    )
}

/// Writes all of `bytes`, giving up on `stop` or when no byte goes for [`NO_PROGRESS`].
pub(crate) fn write_all(
    stream: &mut TcpStream,
    mut bytes: &[u8],
    stop: &AtomicBool,
) -> Result<(), String> {
    let mut moved = Instant::now();
    while !bytes.is_empty() {
        match stream.write(bytes) {
            Ok(0) => return Err("the connection closed".into()),
            Ok(n) => {
                bytes = &bytes[n..];
                moved = Instant::now();
            }
            Err(e) if is_timeout(&e) => check_waiting(stop, moved)?,
            Err(e) => return Err(format!("send: {e}")),
        }
    }
    Ok(())
}

/// Reads what has come (at least one byte), 0 at the end of the stream; gives up on `stop` or
/// when no byte comes for [`NO_PROGRESS`].
pub(crate) fn read_some(
    stream: &mut TcpStream,
    buf: &mut [u8],
    stop: &AtomicBool,
) -> Result<usize, String> {
    let since = Instant::now();
    loop {
        match stream.read(buf) {
            Ok(n) => return Ok(n),
            Err(e) if is_timeout(&e) => check_waiting(stop, since)?,
            Err(e) => return Err(format!("receive: {e}")),
        }
    }
}

fn check_waiting(stop: &AtomicBool, since: Instant) -> Result<(), String> {
    if stop.load(Ordering::Relaxed) {
        return Err("stopped".into());
    }
    if since.elapsed() >= NO_PROGRESS {
        return Err(format!("no byte moved for {} s", NO_PROGRESS.as_secs()));
    }
    Ok(())
}
