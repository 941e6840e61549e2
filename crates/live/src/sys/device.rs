//! The hosts' devices: the TUN ioctls, a packet's read and write, `ppoll` over the devices, and a
//! raw frame sent out of a device (tests, diagnostics).

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use snooplab_proto::Time;

use super::check;

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

/// `read(2)` or `write(2)` (`call`) of `len` bytes at `buf` on `fd`, made through `syscall(2)`:
/// glibc's `read` and `write` are cancellation points, which wrap every call in
/// `__pthread_enable_asynccancel` and `__pthread_disable_asynccancel` (an atomic exchange each,
/// on a cold cache line after a call that ran a host's TCP), about 7% of the live engine's user
/// time (docs/live.md, "Against de373cc, fifth step"); nothing here cancels threads. The
/// arguments go as the kernel's `long`s.
///
/// # Safety
/// `buf` is valid for `len` bytes, for writing when `call` is `SYS_read`.
unsafe fn read_or_write(call: libc::c_long, fd: RawFd, buf: *mut u8, len: usize) -> isize {
    // SAFETY: the caller's; read and write take (unsigned int, pointer, size_t)
    unsafe { libc::syscall(call, libc::c_long::from(fd), buf, len) as isize }
}

/// `read(2)` on a non-blocking descriptor: `Ok(None)` when nothing is waiting.
pub(crate) fn read_nonblocking(fd: RawFd, buf: &mut [u8]) -> io::Result<Option<usize>> {
    // SAFETY: the buffer is valid for buf.len() bytes, and writable.
    let n = unsafe { read_or_write(libc::SYS_read, fd, buf.as_mut_ptr(), buf.len()) };
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
    // SAFETY: the buffer is valid for packet.len() bytes; write only reads it.
    let n = unsafe {
        read_or_write(
            libc::SYS_write,
            fd,
            packet.as_ptr().cast_mut(),
            packet.len(),
        )
    };
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
