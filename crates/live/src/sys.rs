//! The few Linux system calls the live mode needs that std does not offer: entering a network
//! namespace, the TUN ioctls, `ppoll`, and TCP socket options. Every `unsafe` block of the crate is
//! here, each a direct call with checked arguments.

use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::Path;

use snooplab_proto::Time;

fn check(ret: libc::c_int) -> io::Result<libc::c_int> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

/// Moves the calling thread into another network namespace until dropped (`setns(2)` changes only
/// the calling thread). Sockets and devices opened meanwhile stay in that namespace.
pub struct NetnsGuard {
    home: File,
}

impl NetnsGuard {
    /// Enters the namespace whose handle is the file at `path` (`/run/netns/NAME`).
    pub fn enter(path: &Path) -> io::Result<NetnsGuard> {
        let home = File::open("/proc/thread-self/ns/net")?;
        let target = File::open(path)?;
        // SAFETY: setns with a valid namespace descriptor; it affects only this thread.
        check(unsafe { libc::setns(target.as_raw_fd(), libc::CLONE_NEWNET) })?;
        Ok(NetnsGuard { home })
    }
}

impl Drop for NetnsGuard {
    fn drop(&mut self) {
        // SAFETY: as above; returning to the namespace the thread came from.
        let ret = unsafe { libc::setns(self.home.as_raw_fd(), libc::CLONE_NEWNET) };
        if ret < 0 {
            // A thread left in the wrong namespace would open later sockets there: not survivable.
            eprintln!(
                "snooplab: cannot return to the original network namespace: {}",
                io::Error::last_os_error()
            );
            std::process::abort();
        }
    }
}

const IFF_TUN: libc::c_short = 0x0001;
const IFF_NO_PI: libc::c_short = 0x1000;
/// `_IOW('T', 202, int)`
const TUNSETIFF: libc::c_ulong = 0x4004_54ca;
/// `_IOW('T', 208, unsigned int)`
const TUNSETOFFLOAD: libc::c_ulong = 0x4004_54d0;

#[repr(C)]
struct IfReqFlags {
    name: [u8; libc::IFNAMSIZ],
    flags: libc::c_short,
    _pad: [u8; 22],
}

/// Opens `/dev/net/tun` non-blocking and attaches a new TUN device `name` (IFF_TUN | IFF_NO_PI: every
/// read is one bare IP packet), with every offload off so that no read is larger than the MTU.
/// The device is created in the calling thread's network namespace.
pub(crate) fn open_tun(name: &str) -> io::Result<OwnedFd> {
    if name.is_empty() || name.len() >= libc::IFNAMSIZ {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("interface name '{name}' must have 1 to 15 bytes"),
        ));
    }
    let path = CString::new("/dev/net/tun").map_err(io::Error::other)?;
    // SAFETY: open with a NUL-terminated path; the descriptor is owned below.
    let fd = check(unsafe {
        libc::open(
            path.as_ptr(),
            libc::O_RDWR | libc::O_NONBLOCK | libc::O_CLOEXEC,
        )
    })?;
    // SAFETY: fd was just returned by open and is owned by nobody else.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let mut req = IfReqFlags {
        name: [0; libc::IFNAMSIZ],
        flags: IFF_TUN | IFF_NO_PI,
        _pad: [0; 22],
    };
    req.name[..name.len()].copy_from_slice(name.as_bytes());
    // SAFETY: TUNSETIFF reads and writes a struct ifreq, which IfReqFlags lays out (40 bytes).
    check(unsafe { libc::ioctl(fd.as_raw_fd(), TUNSETIFF as _, &mut req as *mut IfReqFlags) })?;
    // SAFETY: TUNSETOFFLOAD takes its flags by value.
    check(unsafe { libc::ioctl(fd.as_raw_fd(), TUNSETOFFLOAD as _, 0 as libc::c_ulong) })?;
    Ok(fd)
}

/// `read(2)` on a non-blocking descriptor: `Ok(None)` when nothing is waiting.
pub(crate) fn read_nonblocking(fd: RawFd, buf: &mut [u8]) -> io::Result<Option<usize>> {
    // SAFETY: the buffer is valid for buf.len() bytes.
    let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
    if n < 0 {
        let e = io::Error::last_os_error();
        return match e.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => Ok(None),
            _ => Err(e),
        };
    }
    Ok(Some(n as usize))
}

/// `write(2)` of one whole packet.
pub(crate) fn write_packet(fd: RawFd, packet: &[u8]) -> io::Result<()> {
    // SAFETY: the buffer is valid for packet.len() bytes.
    let n = unsafe { libc::write(fd, packet.as_ptr().cast(), packet.len()) };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    if n as usize != packet.len() {
        return Err(io::Error::other(format!(
            "short write: {n} of {} bytes",
            packet.len()
        )));
    }
    Ok(())
}

/// Waits until one of `fds` is readable or `timeout` nanoseconds pass (`ppoll(2)`: nanosecond
/// resolution, which the 1 ms of `poll(2)` lacks for a 2 Mb/s link). Returns which are readable.
pub(crate) fn wait_readable<const N: usize>(
    fds: [RawFd; N],
    timeout: Time,
) -> io::Result<[bool; N]> {
    let mut ready = [false; N];
    wait_readable_into(&fds, &mut ready, timeout)?;
    Ok(ready)
}

/// [`wait_readable`] over any number of descriptors: `ready[i]` says whether `fds[i]` is readable
/// (both of the same length; at most [`MAX_POLL_FDS`]).
pub(crate) fn wait_readable_into(
    fds: &[RawFd],
    ready: &mut [bool],
    timeout: Time,
) -> io::Result<()> {
    const IDLE: libc::pollfd = libc::pollfd {
        fd: -1,
        events: 0,
        revents: 0,
    };
    if fds.len() > MAX_POLL_FDS || ready.len() != fds.len() {
        return Err(io::Error::other("too many descriptors to wait for"));
    }
    let mut pfds = [IDLE; MAX_POLL_FDS];
    for (p, &fd) in pfds.iter_mut().zip(fds) {
        p.fd = fd;
        p.events = libc::POLLIN;
    }
    let ts = libc::timespec {
        tv_sec: (timeout / 1_000_000_000) as libc::time_t,
        tv_nsec: (timeout % 1_000_000_000) as libc::c_long,
    };
    // SAFETY: pfds holds fds.len() valid pollfd structs; ts is a valid timespec; no signal mask.
    let ret = unsafe {
        libc::ppoll(
            pfds.as_mut_ptr(),
            fds.len() as libc::nfds_t,
            &ts,
            std::ptr::null(),
        )
    };
    ready.fill(false);
    if ret < 0 {
        let e = io::Error::last_os_error();
        if e.kind() == io::ErrorKind::Interrupted {
            return Ok(());
        }
        return Err(e);
    }
    for (r, p) in ready.iter_mut().zip(&pfds) {
        *r = p.revents & (libc::POLLIN | libc::POLLERR | libc::POLLHUP) != 0;
    }
    Ok(())
}

/// The most descriptors one wait takes: one TUN device per host of a live network.
pub(crate) const MAX_POLL_FDS: usize = 64;

/// Sets an integer socket option.
pub(crate) fn set_int_option(
    fd: RawFd,
    level: libc::c_int,
    name: libc::c_int,
    value: libc::c_int,
) -> io::Result<()> {
    // SAFETY: the option value is a valid c_int of the size passed.
    check(unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            (&value as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    })
    .map(|_| ())
}

/// Reads an integer socket option.
pub(crate) fn get_int_option(
    fd: RawFd,
    level: libc::c_int,
    name: libc::c_int,
) -> io::Result<libc::c_int> {
    let mut value: libc::c_int = 0;
    let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: value and len are valid for writing; len says how much room value has.
    check(unsafe {
        libc::getsockopt(
            fd,
            level,
            name,
            (&mut value as *mut libc::c_int).cast(),
            &mut len,
        )
    })?;
    Ok(value)
}

/// `SO_RCVBUFFORCE` (include/uapi/asm-generic/socket.h): `SO_RCVBUF` without the global
/// `net.core.rmem_max` cap, for CAP_NET_ADMIN. The libc crate does not export it for glibc targets.
pub(crate) const SO_RCVBUFFORCE: libc::c_int = 33;

/// Chooses the congestion control algorithm of a TCP socket (`TCP_CONGESTION`).
pub(crate) fn set_congestion_control(fd: RawFd, name: &str) -> io::Result<()> {
    // SAFETY: the option value is name's bytes, of the length passed.
    check(unsafe {
        libc::setsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_CONGESTION,
            name.as_ptr().cast(),
            name.len() as libc::socklen_t,
        )
    })
    .map(|_| ())
}

/// The congestion control algorithm a TCP socket uses.
pub(crate) fn congestion_control(fd: RawFd) -> io::Result<String> {
    let mut buf = [0u8; 16];
    let mut len = buf.len() as libc::socklen_t;
    // SAFETY: buf and len are valid for writing; len says how much room buf has.
    check(unsafe {
        libc::getsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_CONGESTION,
            buf.as_mut_ptr().cast(),
            &mut len,
        )
    })?;
    let end = buf.iter().position(|b| *b == 0).unwrap_or(buf.len());
    Ok(String::from_utf8_lossy(&buf[..end]).into_owned())
}

/// What the kernel reports of a TCP connection (`TCP_INFO`) that the results use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpInfo {
    /// Segments retransmitted over the connection's life (`tcpi_total_retrans`).
    pub total_retrans: u32,
    /// Smoothed RTT, microseconds.
    pub rtt_us: u32,
    /// Current retransmission timeout, microseconds (`tcpi_rto`).
    pub rto_us: u32,
    /// Send MSS.
    pub snd_mss: u32,
    /// The kernel's estimate of the peer's segment size (`icsk_ack.rcv_mss`).
    pub rcv_mss: u32,
    /// Window scale this end advertises (the low 4 bits of `tcpi_snd_rcv_wscale` are the peer's,
    /// the high 4 bits ours).
    pub rcv_wscale: u8,
    /// Bitmask of negotiated options (`TCPI_OPT_*`).
    pub options: u8,
    /// Congestion window, segments (`tcpi_snd_cwnd`: Linux counts cwnd in packets).
    pub snd_cwnd: u32,
    /// Slow-start threshold, segments (`tcpi_snd_ssthresh`; `TCP_INFINITE_SSTHRESH`, 0x7fffffff,
    /// before the first loss).
    pub snd_ssthresh: u32,
    /// The congestion-avoidance state machine (`tcpi_ca_state`: 0 Open, 1 Disorder, 2 CWR,
    /// 3 Recovery, 4 Loss; `enum tcp_ca_state` in include/net/tcp.h).
    pub ca_state: u8,
    /// RTT variance, microseconds (`tcpi_rttvar`).
    pub rttvar_us: u32,
    /// Segments sent and not yet acknowledged, cumulatively or selectively (`tcpi_unacked`).
    pub unacked: u32,
    /// Bytes cumulatively acknowledged (`tcpi_bytes_acked`, RFC 4898 `tcpEStatsAppHCThruOctetsAcked`).
    pub bytes_acked: u64,
}

/// Reads `TCP_INFO` of a socket.
pub(crate) fn tcp_info(fd: RawFd) -> io::Result<TcpInfo> {
    // SAFETY: tcp_info is plain old data; all-zero is a valid value.
    let mut info: libc::tcp_info = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::tcp_info>() as libc::socklen_t;
    // SAFETY: info and len are valid for writing; len says how much room info has.
    check(unsafe {
        libc::getsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            (&mut info as *mut libc::tcp_info).cast(),
            &mut len,
        )
    })?;
    Ok(TcpInfo {
        total_retrans: info.tcpi_total_retrans,
        rtt_us: info.tcpi_rtt,
        rto_us: info.tcpi_rto,
        snd_mss: info.tcpi_snd_mss,
        rcv_mss: info.tcpi_rcv_mss,
        rcv_wscale: info.tcpi_snd_rcv_wscale >> 4,
        options: info.tcpi_options,
        snd_cwnd: info.tcpi_snd_cwnd,
        snd_ssthresh: info.tcpi_snd_ssthresh,
        ca_state: info.tcpi_ca_state,
        rttvar_us: info.tcpi_rttvar,
        unacked: info.tcpi_unacked,
        bytes_acked: info.tcpi_bytes_acked,
    })
}

/// The signal that asked the run to stop, 0 = none.
static STOP_SIGNAL: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

extern "C" fn on_stop_signal(sig: libc::c_int) {
    // The first signal is the one reported; later ones change nothing.
    let _ = STOP_SIGNAL.compare_exchange(
        0,
        sig,
        std::sync::atomic::Ordering::SeqCst,
        std::sync::atomic::Ordering::SeqCst,
    );
}

/// The signals that stop a live run through its normal path, which removes its namespaces: Ctrl-C,
/// `kill`, and the hangup of a closed terminal or ssh session.
pub(crate) const STOP_SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

/// Turns [`STOP_SIGNALS`] into a request to stop (see [`stop_signal`]) so that the run ends
/// through its normal path and removes its namespaces. The handler only stores the signal number:
/// a signal that arrives during the cleanup does not interrupt it.
pub fn catch_stop_signals() -> io::Result<()> {
    for sig in STOP_SIGNALS {
        // SAFETY: installing a handler that only stores to an atomic (async-signal-safe).
        let ret = unsafe { libc::signal(sig, on_stop_signal as *const () as libc::sighandler_t) };
        if ret == libc::SIG_ERR {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Whether a stop signal arrived since [`catch_stop_signals`].
pub fn stop_requested() -> bool {
    stop_signal().is_some()
}

/// The first stop signal that arrived since [`catch_stop_signals`], if any.
pub fn stop_signal() -> Option<libc::c_int> {
    match STOP_SIGNAL.load(std::sync::atomic::Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// How a stop signal is named in messages.
pub fn signal_name(sig: libc::c_int) -> String {
    match sig {
        libc::SIGINT => "SIGINT (Ctrl-C)".into(),
        libc::SIGTERM => "SIGTERM".into(),
        libc::SIGHUP => "SIGHUP".into(),
        other => format!("signal {other}"),
    }
}

/// Takes an exclusive `flock(2)` on `file` without waiting: `Ok(false)` when another open file
/// description holds it (another process, or another open of the same file in this one). The
/// lock goes with the descriptor: closing it, or the process ending however it ends, releases it.
pub fn try_lock_exclusive(file: &File) -> io::Result<bool> {
    // SAFETY: flock on a valid descriptor.
    let ret = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if ret == 0 {
        return Ok(true);
    }
    let e = io::Error::last_os_error();
    if e.kind() == io::ErrorKind::WouldBlock {
        Ok(false)
    } else {
        Err(e)
    }
}

/// Removes the network namespace handle `path` (`/run/netns/NAME`) as `ip netns del` does
/// (iproute2 ip/ipnetns.c, `netns_delete`): detach its bind mount, then unlink the file. In this
/// process rather than a child `ip`, so that a signal sent to the process group (Ctrl-C in a
/// terminal, `timeout`, a hangup) cannot kill the removal halfway. A handle already gone is fine.
pub(crate) fn remove_netns_handle(path: &Path) -> io::Result<()> {
    let c = CString::new(path.as_os_str().as_encoded_bytes()).map_err(io::Error::other)?;
    // SAFETY: umount2 with a NUL-terminated path.
    let ret = unsafe { libc::umount2(c.as_ptr(), libc::MNT_DETACH) };
    if ret < 0 {
        let e = io::Error::last_os_error();
        // EINVAL: not a mount point (a handle whose mount failed); ENOENT: already gone.
        if !matches!(e.raw_os_error(), Some(libc::EINVAL) | Some(libc::ENOENT)) {
            return Err(e);
        }
    }
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// Whether a process with this id exists.
pub(crate) fn process_alive(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

/// Sends `frame` out of the device `ifname` of the calling thread's namespace as it is, with no
/// checks (an `AF_PACKET` socket): the device's reader gets exactly these bytes. For tests and
/// diagnostics of what the base station does with malformed packets.
pub fn send_on_device(ifname: &str, frame: &[u8]) -> io::Result<()> {
    let name = CString::new(ifname).map_err(io::Error::other)?;
    // SAFETY: a NUL-terminated name.
    let index = unsafe { libc::if_nametoindex(name.as_ptr()) };
    if index == 0 {
        return Err(io::Error::last_os_error());
    }
    let proto = (libc::ETH_P_IP as u16).to_be();
    // SAFETY: creating a socket; the descriptor is owned below.
    let fd =
        check(unsafe { libc::socket(libc::AF_PACKET, libc::SOCK_RAW, libc::c_int::from(proto)) })?;
    // SAFETY: fd was just returned by socket and is owned by nobody else.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    // SAFETY: sockaddr_ll is plain old data; all-zero is valid before the fields are set.
    let mut addr: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
    addr.sll_family = libc::AF_PACKET as u16;
    addr.sll_protocol = proto;
    addr.sll_ifindex = index as i32;
    // SAFETY: frame is valid for its length; addr is a valid sockaddr_ll of the size passed.
    let n = unsafe {
        libc::sendto(
            fd.as_raw_fd(),
            frame.as_ptr().cast(),
            frame.len(),
            0,
            (&addr as *const libc::sockaddr_ll).cast(),
            std::mem::size_of::<libc::sockaddr_ll>() as libc::socklen_t,
        )
    };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// A TCP connection to `to` whose congestion control is `cc` from the first segment on
/// (`TCP_CONGESTION` set before `connect`, which `std::net` cannot do). Opened in the calling
/// thread's namespace. The connect does not block: every `step` nanoseconds `give_up()` is asked
/// whether to stop waiting (a SYN that gets no answer is retried for about two minutes otherwise).
/// `from_port` binds the local port first (a modelled receiver listens for one peer port);
/// `None` leaves it to the kernel.
pub(crate) fn connect_tcp(
    to: std::net::SocketAddrV4,
    from_port: Option<u16>,
    cc: &str,
    step: Time,
    give_up: &dyn Fn() -> bool,
) -> io::Result<std::net::TcpStream> {
    // SAFETY: creating a socket; the descriptor is owned below.
    let fd = check(unsafe {
        libc::socket(
            libc::AF_INET,
            libc::SOCK_STREAM | libc::SOCK_CLOEXEC | libc::SOCK_NONBLOCK,
            0,
        )
    })?;
    // SAFETY: fd was just returned by socket and is owned by nobody else.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    set_congestion_control(fd.as_raw_fd(), cc)?;
    if let Some(port) = from_port {
        set_int_option(fd.as_raw_fd(), libc::SOL_SOCKET, libc::SO_REUSEADDR, 1)?;
        let local = libc::sockaddr_in {
            sin_family: libc::AF_INET as libc::sa_family_t,
            sin_port: port.to_be(),
            sin_addr: libc::in_addr { s_addr: 0 },
            sin_zero: [0; 8],
        };
        // SAFETY: local is a valid sockaddr_in of the size passed.
        check(unsafe {
            libc::bind(
                fd.as_raw_fd(),
                (&local as *const libc::sockaddr_in).cast(),
                std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
            )
        })?;
    }
    let addr = libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: to.port().to_be(),
        sin_addr: libc::in_addr {
            s_addr: u32::from(*to.ip()).to_be(),
        },
        sin_zero: [0; 8],
    };
    // SAFETY: addr is a valid sockaddr_in of the size passed.
    let ret = unsafe {
        libc::connect(
            fd.as_raw_fd(),
            (&addr as *const libc::sockaddr_in).cast(),
            std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
        )
    };
    if ret < 0 {
        let e = io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::EINPROGRESS) {
            return Err(e);
        }
        loop {
            if give_up() {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "stopped while connecting",
                ));
            }
            if wait_writable(fd.as_raw_fd(), step)? {
                break;
            }
        }
        let err = get_int_option(fd.as_raw_fd(), libc::SOL_SOCKET, libc::SO_ERROR)?;
        if err != 0 {
            return Err(io::Error::from_raw_os_error(err));
        }
    }
    let stream = std::net::TcpStream::from(fd);
    stream.set_nonblocking(false)?;
    Ok(stream)
}

/// Waits until `fd` is writable (a non-blocking connect has ended, either way) or `timeout`
/// nanoseconds pass.
fn wait_writable(fd: RawFd, timeout: Time) -> io::Result<bool> {
    let mut pfd = libc::pollfd {
        fd,
        events: libc::POLLOUT,
        revents: 0,
    };
    let ts = libc::timespec {
        tv_sec: (timeout / 1_000_000_000) as libc::time_t,
        tv_nsec: (timeout % 1_000_000_000) as libc::c_long,
    };
    // SAFETY: one valid pollfd; ts is a valid timespec; no signal mask.
    let ret = unsafe { libc::ppoll(&mut pfd, 1, &ts, std::ptr::null()) };
    if ret < 0 {
        let e = io::Error::last_os_error();
        if e.kind() == io::ErrorKind::Interrupted {
            return Ok(false);
        }
        return Err(e);
    }
    Ok(pfd.revents & (libc::POLLOUT | libc::POLLERR | libc::POLLHUP) != 0)
}

/// Signals process group `pgid` (every process of an `--exec` command, `exec.rs`); an error (the
/// group is gone) is nothing to act on.
pub(crate) fn signal_group(pgid: i32, sig: libc::c_int) {
    if pgid > 0 {
        // SAFETY: kill(2) with a negative pid signals that process group; no memory is involved.
        unsafe {
            libc::kill(-pgid, sig);
        }
    }
}

/// Makes this process the reaper of its descendants' orphans (PR_SET_CHILD_SUBREAPER), so that
/// what an `--exec` command's shell leaves behind is reaped here and not left to an init that, in
/// a container, may reap nothing.
pub(crate) fn become_child_subreaper() {
    // SAFETY: prctl(2) with integer arguments only.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    }
}

/// Reaps one ended process of group `pgid` without blocking: `Some(true)` one was reaped,
/// `Some(false)` some are still running, `None` none is left.
pub(crate) fn reap_group_member(pgid: i32) -> Option<bool> {
    let mut status = 0;
    // SAFETY: waitpid(2) on a process group with a valid pointer to a local status.
    let r = unsafe { libc::waitpid(-pgid, &mut status, libc::WNOHANG) };
    match r {
        0 => Some(false),
        r if r > 0 => Some(true),
        _ => None,
    }
}
