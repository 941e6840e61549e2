//! The transfer's two ends: snooplab's own sender in the fixed host's namespace and receiver in the
//! mobile host's, with ordinary Linux sockets (docs/live.md). Each runs on its own thread, which
//! opens its socket inside its namespace; the sockets stay there.

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddrV4, TcpListener};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::kernel_samples::{self, KernelSample};
use crate::netns::Namespace;
use crate::payload::{self, StreamDigest};
use crate::profile::CongestionControl;
use crate::sys::{self, TcpInfo};

/// How often blocked socket calls come back to look at the stop flag.
const POLL: Duration = Duration::from_millis(100);

/// What the receiver saw.
#[derive(Clone, Debug, Default)]
pub struct ReceiverReport {
    pub bytes: u64,
    pub digest: u64,
    pub last_byte: Option<Instant>,
    /// Times the kernel changed the window clamp after the buffer was raised and the receiver
    /// set it back (0 expected: see [`Receiver`]).
    pub clamp_restored: u32,
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
    /// `TCP_INFO` sampled during the transfer (kernel_samples.rs).
    pub samples: Vec<KernelSample>,
}

/// The receiving socket, listening in the mobile host's namespace before the sender starts.
///
/// # How the advertised window is held at `--buffer`
///
/// `TCP_WINDOW_CLAMP` alone does not hold on the kernels this runs on (6.6 and later; measured on
/// 6.18). The accepted socket inherits the listener's clamp, and the SYN-ACK honours it, but when
/// the first full-sized segment arrives `tcp_measure_rcv_mss()` (net/ipv4/tcp_input.c) measures
/// the socket's `scaling_ratio` (payload bytes per byte of `skb->truesize`, 148/256 for the TUN
/// device's 1440-byte packets, against the default of 128/256) and, the ratio having changed,
/// calls `tcp_set_window_clamp(sk, tcp_win_from_space(sk, sk->sk_rcvbuf))` (commit dfa2f0483360
/// "tcp: get rid of sysctl_tcp_adv_win_scale", 6.6; through `tcp_set_window_clamp()` since
/// a2cbb1603943): the user's clamp is replaced by what the receive buffer holds. With the buffer
/// at 4x the window (`SO_RCVBUF` 32 KB, `sk_rcvbuf` 64 KB) that is 65536 x 148/256 = 37,888 bytes:
/// the 37,800 (27 segments) a capture of `--buffer 8k` showed; with 32k the clamp became 150 KB and
/// the window stopped at 65,535, the largest without window scaling. `tcp_adv_win_scale` no
/// longer plays a part (the same commit) and `tcp_rmem` only sizes unlocked buffers.
///
/// So the receiver works with the kernel rather than against it:
/// 1. The mobile host's namespace gets `net.ipv4.tcp_rmem = "4096 W W"` for a clamp of W bytes
///    (and `tcp_moderate_rcvbuf = 0`), so the listener and the connection it accepts start with
///    `sk_rcvbuf` = W and no autotuning can take it above W. Whatever ratio the kernel measures
///    (always below 256/256, as `truesize` exceeds the payload), the clamp it computes is then
///    below `--buffer`. The buffer is sized through the sysctl rather than `SO_RCVBUF` because a
///    user-locked listener buffer also lowers the window clamp of the SYN-ACK to what the buffer
///    holds at the default ratio, half of it (`tcp_openreq_init_rwin()`), and the window scale the
///    kernel picks from that clamp (`tcp_select_initial_window()`): `--buffer 100000` with window
///    scaling got scale 0 and could not pass 65,535. Until the ratio is measured the window is
///    what the buffer holds at the default ratio: the SYN-ACK offers about half of `--buffer`
///    (`tcp_init_buffer_space()` lowers the clamp the same way once the connection is set up).
/// 2. Once the kernel has measured the ratio (`tcpi_rcv_mss` has reached the sender's segment
///    size, see [`ratio_measured`]), the receiver raises the buffer to 4x the window, so memory
///    never limits it, and sets `TCP_WINDOW_CLAMP` back to `--buffer`. The ratio is measured
///    again only when a segment longer than `rcv_mss` arrives, which no longer happens: segments
///    of the same length have the same `truesize`.
/// 3. After every read the receiver reads the clamp back and restores it if the kernel changed it
///    anyway ([`ReceiverReport::clamp_restored`] counts that; a test checks every window in the
///    capture).
///
/// With window scaling (the modern profile) a window is a multiple of `1 << rcv_wscale` and the
/// kernel rounds it up to one (`ALIGN` in `__tcp_select_window()`); [`window_clamp`] rounds the
/// clamp down to such a multiple, so that the rounded window stays within `--buffer`. Without
/// window scaling (the paper profiles) no window exceeds 65,535 bytes, and the kernel rounds it down
/// to whole segments: `--buffer 32k` advertises 23 x 1400 = 32,200 bytes.
///
/// The sender needs no limit of its own: Linux never sends beyond the receiver's window, so the
/// bytes in flight are bounded by it.
pub struct Receiver {
    listener: TcpListener,
    /// The `TCP_WINDOW_CLAMP` held on the connection.
    clamp: i32,
}

/// The clamp that keeps every advertised window within `buffer`: `buffer` rounded down to a
/// multiple of the largest window scale unit the kernel can pick for it
/// (`tcp_select_initial_window()`: the scale is `ilog2(min(space, window_clamp)) - 15`).
pub(crate) fn window_clamp(buffer: u32) -> u32 {
    let scale = buffer.checked_ilog2().unwrap_or(0).saturating_sub(15);
    buffer & !((1u32 << scale) - 1)
}

/// Whether the kernel has measured the connection's `scaling_ratio` (and replaced the window
/// clamp with it): `tcp_measure_rcv_mss()` does both when a segment longer than `rcv_mss` arrives
/// and then sets `rcv_mss` to its length, the sender's full segment (`snd_mss` of the receiver:
/// both ends have the same MTU and options). A connection that starts with `rcv_mss` already at
/// the full size (MSS of 536 or less) never measures it: the clamp is never replaced.
pub(crate) fn ratio_measured(info: &TcpInfo) -> bool {
    info.rcv_mss >= info.snd_mss
}

/// Step 1 of [`Receiver`]'s window keeping, for every TCP socket made in `ns` from now on: its
/// receive buffer starts at the clamp that holds the window at `window` bytes, and no autotuning
/// raises it. Returns the clamp (the web client's connections keep it too, `web/client.rs`).
pub(crate) fn size_receive_buffers(ns: &Namespace, window: u32) -> Result<i32, String> {
    let clamp =
        i32::try_from(window_clamp(window)).map_err(|_| format!("window {window} too large"))?;
    // Before the socket exists: a TCP socket takes tcp_rmem[1] as its buffer when created.
    ns.set_sysctl(
        "net.ipv4.tcp_rmem",
        &format!("{} {clamp} {clamp}", clamp.min(4096)),
    )?;
    ns.set_sysctl("net.ipv4.tcp_moderate_rcvbuf", "0")?;
    Ok(clamp)
}

impl Receiver {
    /// Listens on `at` in the receiving host's namespace `mh`; the connection it accepts
    /// advertises at most `window` bytes (see the type's documentation for how).
    pub fn listen(mh: &Namespace, at: SocketAddrV4, window: u32) -> Result<Receiver, String> {
        let clamp = size_receive_buffers(mh, window)?;
        let listener = {
            let _inside = mh.enter()?;
            TcpListener::bind(at).map_err(|e| format!("cannot listen on {at}: {e}"))?
        };
        let fd = listener.as_raw_fd();
        sys::set_int_option(fd, libc::IPPROTO_TCP, libc::TCP_WINDOW_CLAMP, clamp)
            .map_err(|e| format!("TCP_WINDOW_CLAMP {clamp}: {e}"))?;
        listener
            .set_nonblocking(true)
            .map_err(|e| format!("listener: {e}"))?;
        Ok(Receiver { listener, clamp })
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
        let fd = stream.as_raw_fd();
        let mut window = WindowKeeper::new(fd, self.clamp);
        window.check()?;
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
                    window.check()?;
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
            clamp_restored: window.restored,
        })
    }
}

/// Steps 2 and 3 of [`Receiver`]'s window keeping, on the accepted socket (or a web client's
/// connected one).
pub(crate) struct WindowKeeper {
    fd: std::os::fd::RawFd,
    clamp: i32,
    /// The buffer has been raised (the kernel has measured its ratio).
    raised: bool,
    restored: u32,
}

impl WindowKeeper {
    /// Keeps socket `fd`'s window at `clamp` ([`size_receive_buffers`]'s); call
    /// [`WindowKeeper::check`] after every read.
    pub(crate) fn new(fd: std::os::fd::RawFd, clamp: i32) -> WindowKeeper {
        WindowKeeper {
            fd,
            clamp,
            raised: false,
            restored: 0,
        }
    }

    pub(crate) fn check(&mut self) -> Result<(), String> {
        let now = sys::get_int_option(self.fd, libc::IPPROTO_TCP, libc::TCP_WINDOW_CLAMP)
            .map_err(|e| format!("TCP_WINDOW_CLAMP: {e}"))?;
        if !self.raised {
            let info = sys::tcp_info(self.fd).map_err(|e| format!("TCP_INFO: {e}"))?;
            if !ratio_measured(&info) {
                return Ok(());
            }
            self.raised = true;
            // 4x the window: room for it at any ratio above 64/256 (148/256 measured).
            sys::set_int_option(
                self.fd,
                libc::SOL_SOCKET,
                sys::SO_RCVBUFFORCE,
                self.clamp.saturating_mul(2),
            )
            .map_err(|e| format!("SO_RCVBUFFORCE: {e}"))?;
        } else if now == self.clamp {
            return Ok(());
        } else {
            self.restored += 1;
        }
        sys::set_int_option(
            self.fd,
            libc::IPPROTO_TCP,
            libc::TCP_WINDOW_CLAMP,
            self.clamp,
        )
        .map_err(|e| format!("TCP_WINDOW_CLAMP {}: {e}", self.clamp))
    }
}

fn is_timeout(e: &std::io::Error) -> bool {
    matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut)
}

/// Connects from the sending host's namespace `fh` to `to` and sends `transfer` bytes of the seed's
/// stream, then waits for the receiver to close (every byte acknowledged) and reads the socket's
/// counters.
pub fn send(
    fh: &Namespace,
    (to, from_port): (SocketAddrV4, Option<u16>),
    cc: CongestionControl,
    transfer: u64,
    seed: u64,
    stop: &AtomicBool,
) -> Result<SenderReport, String> {
    let mut stream = {
        let _inside = fh.enter()?;
        let give_up = || stop.load(Ordering::Relaxed);
        sys::connect_tcp(to, from_port, cc.name(), POLL.as_nanos() as u64, &give_up).map_err(
            |e| {
                format!(
                    "cannot connect to {to} with congestion control {}: {e}",
                    cc.name()
                )
            },
        )?
    };
    let started = Instant::now();
    let fd = stream.as_raw_fd();
    let cc_used = sys::congestion_control(fd).map_err(|e| format!("TCP_CONGESTION: {e}"))?;
    stream
        .set_write_timeout(Some(POLL))
        .and_then(|_| stream.set_read_timeout(Some(POLL)))
        .map_err(|e| format!("sender socket: {e}"))?;
    // the kernel's congestion state, sampled while the transfer runs (kernel_samples.rs)
    let done = AtomicBool::new(false);
    let (sent, samples) = std::thread::scope(|scope| {
        let sampler = scope.spawn(|| kernel_samples::sample_until(fd, started, &done));
        let sent = transfer_all(&mut stream, transfer, seed, stop);
        done.store(true, Ordering::Release);
        // a sampler that panicked leaves no series; the transfer's own result stands
        (sent, sampler.join().unwrap_or_default())
    });
    let (offset, digest) = sent?;
    let finished = Instant::now();
    let tcp_info = sys::tcp_info(fd).map_err(|e| format!("TCP_INFO: {e}"))?;
    Ok(SenderReport {
        bytes: offset,
        digest,
        started,
        finished,
        tcp_info,
        cc: cc_used,
        samples,
    })
}

/// Writes `transfer` bytes of the seed's stream, shuts the sending side and waits for the
/// receiver's FIN (every byte acknowledged); returns the bytes sent and their digest.
fn transfer_all(
    stream: &mut std::net::TcpStream,
    transfer: u64,
    seed: u64,
    stop: &AtomicBool,
) -> Result<(u64, u64), String> {
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
    Ok((offset, digest.finish()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clamp_is_a_multiple_of_the_window_scale_unit() {
        // no scaling needed: the buffer itself
        assert_eq!(window_clamp(8192), 8192);
        assert_eq!(window_clamp(65_535), 65_535);
        // 100000 needs scale 1 (ilog2 = 16): even
        assert_eq!(window_clamp(100_001), 100_000);
        // 4M: scale 7, a multiple of 128 already; 4M + 100 rounds down to it
        assert_eq!(window_clamp(4 << 20), 4 << 20);
        assert_eq!(window_clamp((4 << 20) + 100), 4 << 20);
        for b in [2048, 65_536, 131_071, 1 << 26] {
            let c = window_clamp(b);
            let unit = 1u32 << b.ilog2().saturating_sub(15);
            assert!(c <= b && b - c < unit && c.is_multiple_of(unit), "{b}: {c}");
        }
    }

    #[test]
    fn the_ratio_is_measured_once_rcv_mss_reaches_the_segment_size() {
        let mut info = TcpInfo {
            snd_mss: 1400,
            rcv_mss: 536,
            ..TcpInfo::default()
        };
        assert!(!ratio_measured(&info));
        info.rcv_mss = 1400;
        assert!(ratio_measured(&info));
    }
}
