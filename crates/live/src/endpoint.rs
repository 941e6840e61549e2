//! The transfer's two ends: snooplab's own sender in the fixed host's namespace and receiver in the
//! mobile host's, with ordinary Linux sockets (DESIGN section 7). Each runs on its own thread, which
//! opens its socket inside its namespace; the sockets stay there.

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddrV4, TcpListener};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::netns::Namespace;
use crate::payload::{self, StreamDigest};
use crate::profile::CongestionControl;
use crate::sys::{self, TcpInfo};
use crate::testbed::{MH_IP, MH_PORT};

/// How often blocked socket calls come back to look at the stop flag.
const POLL: Duration = Duration::from_millis(100);

/// What the receiver saw.
#[derive(Clone, Debug, Default)]
pub struct ReceiverReport {
    pub bytes: u64,
    pub digest: u64,
    pub last_byte: Option<Instant>,
}

/// What the sender did.
#[derive(Clone, Debug)]
pub struct SenderReport {
    pub bytes: u64,
    pub digest: u64,
    /// When the connection was established and the first data could go.
    pub started: Instant,
    /// When the receiver's FIN came back: everything was acknowledged.
    pub finished: Instant,
    pub tcp_info: TcpInfo,
    /// The congestion control the socket used, as the kernel reports it.
    pub cc: String,
}

/// The receiving socket, listening in the mobile host's namespace before the sender starts.
pub struct Receiver {
    listener: TcpListener,
}

impl Receiver {
    /// Listens on the mobile host's address. `window` is the exact window it advertises at most
    /// (`TCP_WINDOW_CLAMP`, inherited by the accepted socket); its buffer is made larger than that
    /// so the clamp, not Linux's buffer arithmetic, sets the window.
    pub fn listen(mh: &Namespace, window: u32) -> Result<Receiver, String> {
        let listener = {
            let _inside = mh.enter()?;
            TcpListener::bind(SocketAddrV4::new(MH_IP, MH_PORT))
                .map_err(|e| format!("cannot listen on {MH_IP}:{MH_PORT}: {e}"))?
        };
        let fd = listener.as_raw_fd();
        let clamp = i32::try_from(window).map_err(|_| format!("window {window} too large"))?;
        sys::set_int_option(
            fd,
            libc::SOL_SOCKET,
            libc::SO_RCVBUF,
            clamp.saturating_mul(4),
        )
        .map_err(|e| format!("SO_RCVBUF: {e}"))?;
        sys::set_int_option(fd, libc::IPPROTO_TCP, libc::TCP_WINDOW_CLAMP, clamp)
            .map_err(|e| format!("TCP_WINDOW_CLAMP {window}: {e}"))?;
        listener
            .set_nonblocking(true)
            .map_err(|e| format!("listener: {e}"))?;
        Ok(Receiver { listener })
    }

    /// Accepts one connection and reads it to the end, feeding `received` as it goes.
    pub fn run(self, stop: &AtomicBool, received: &AtomicU64) -> Result<ReceiverReport, String> {
        let mut stream = loop {
            if stop.load(Ordering::Relaxed) {
                return Err("stopped before the sender connected".into());
            }
            match self.listener.accept() {
                Ok((s, _)) => break s,
                Err(e) if e.kind() == ErrorKind::WouldBlock => {
                    sys::wait_readable([self.listener.as_raw_fd()], POLL.as_nanos() as u64)
                        .map_err(|e| format!("waiting for the sender: {e}"))?;
                }
                Err(e) => return Err(format!("accept: {e}")),
            }
        };
        stream
            .set_nonblocking(false)
            .and_then(|_| stream.set_read_timeout(Some(POLL)))
            .map_err(|e| format!("receiver socket: {e}"))?;
        let mut digest = StreamDigest::default();
        let mut buf = vec![0u8; 1 << 16];
        let mut last_byte = None;
        loop {
            match stream.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    digest.update(&buf[..n]);
                    last_byte = Some(Instant::now());
                    received.store(digest.len(), Ordering::Relaxed);
                }
                Err(e) if is_timeout(&e) || e.kind() == ErrorKind::Interrupted => {
                    if stop.load(Ordering::Relaxed) {
                        return Err(format!("stopped after {} bytes received", digest.len()));
                    }
                }
                Err(e) => return Err(format!("receive: {e}")),
            }
        }
        drop(stream);
        Ok(ReceiverReport {
            bytes: digest.len(),
            digest: digest.finish(),
            last_byte,
        })
    }
}

fn is_timeout(e: &std::io::Error) -> bool {
    matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut)
}

/// Connects from the fixed host's namespace and sends `transfer` bytes of the seed's stream, then
/// waits for the receiver to close (every byte acknowledged) and reads the socket's counters.
pub fn send(
    fh: &Namespace,
    cc: CongestionControl,
    transfer: u64,
    seed: u64,
    stop: &AtomicBool,
) -> Result<SenderReport, String> {
    let to = SocketAddrV4::new(MH_IP, MH_PORT);
    let mut stream = {
        let _inside = fh.enter()?;
        sys::connect_tcp(to, cc.name()).map_err(|e| {
            format!(
                "cannot connect to {to} with congestion control {}: {e}",
                cc.name()
            )
        })?
    };
    let started = Instant::now();
    let fd = stream.as_raw_fd();
    let cc_used = sys::congestion_control(fd).map_err(|e| format!("TCP_CONGESTION: {e}"))?;
    stream
        .set_write_timeout(Some(POLL))
        .and_then(|_| stream.set_read_timeout(Some(POLL)))
        .map_err(|e| format!("sender socket: {e}"))?;
    let mut digest = StreamDigest::default();
    let mut buf = vec![0u8; 1 << 16];
    let mut offset = 0u64;
    while offset < transfer {
        let n = (transfer - offset).min(buf.len() as u64) as usize;
        payload::fill(seed, offset, &mut buf[..n]);
        let mut at = 0;
        while at < n {
            match stream.write(&buf[at..n]) {
                Ok(0) => return Err("the connection closed during the transfer".into()),
                Ok(k) => at += k,
                Err(e) if is_timeout(&e) || e.kind() == ErrorKind::Interrupted => {
                    if stop.load(Ordering::Relaxed) {
                        return Err(format!("stopped after {} bytes sent", offset + at as u64));
                    }
                }
                Err(e) => return Err(format!("send: {e}")),
            }
        }
        digest.update(&buf[..n]);
        offset += n as u64;
    }
    stream
        .shutdown(Shutdown::Write)
        .map_err(|e| format!("shutdown: {e}"))?;
    let mut sink = [0u8; 64];
    loop {
        match stream.read(&mut sink) {
            Ok(0) => break,
            Ok(_) => return Err("the receiver sent data".into()),
            Err(e) if is_timeout(&e) || e.kind() == ErrorKind::Interrupted => {
                if stop.load(Ordering::Relaxed) {
                    return Err("stopped while waiting for the last acknowledgement".into());
                }
            }
            Err(e) => return Err(format!("waiting for the receiver to close: {e}")),
        }
    }
    let finished = Instant::now();
    let tcp_info = sys::tcp_info(fd).map_err(|e| format!("TCP_INFO: {e}"))?;
    Ok(SenderReport {
        bytes: offset,
        digest: digest.finish(),
        started,
        finished,
        tcp_info,
        cc: cc_used,
    })
}
