//! TCP sockets: options (`TCP_CONGESTION`, `TCP_INFO`, integer options) and a connect whose
//! congestion control is set before the first segment.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use snooplab_proto::Time;

use super::check;

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
