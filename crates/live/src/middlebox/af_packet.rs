//! One interface of the middlebox read and written raw: an `AF_PACKET` socket (packet(7)) bound to
//! the interface, `SOCK_RAW` with `ETH_P_ALL`, so that every frame the interface receives is read
//! with its link-layer header and every frame written leaves as it is. The interface is put in
//! promiscuous mode through the socket's own membership (`PACKET_ADD_MEMBERSHIP`,
//! `PACKET_MR_PROMISC`), which the kernel counts per socket and drops when the socket closes
//! (net/packet/af_packet.c, `packet_dev_mc` / `packet_flush_mclist`): however the process ends,
//! the interface is left as it was. Nothing else about it is changed (no address, no qdisc, no
//! state). Frames are read from a ring shared with the kernel (`ring.rs`, no system call per
//! frame) and written a batch per system call (`sendmmsg(2)`): at a gigabit's 80,000 frames a
//! second each way, a call per frame is most of the loop's own time. The middlebox's system calls are here, as `sys/` holds the rest of the crate's.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use super::batch::{Outgoing, Slots, BATCH, MAX_FRAME};
use super::device::FrameDevice;
use super::ethernet::{with_vlan_tag, VLAN_TAG};
use super::ring::{RingFrame, RxRing};

/// `PACKET_OUTGOING` of `sll_pkttype` (linux/if_packet.h): a frame this host sent, which a
/// packet socket sees too. The bridge's own writes come back this way and are not read again.
const PACKET_OUTGOING: u8 = 4;
/// `PACKET_IGNORE_OUTGOING` (linux/if_packet.h, Linux 4.20): the kernel does not queue a
/// socket the frames sent on its interface, each of which would cost a read to discard.
const PACKET_IGNORE_OUTGOING: libc::c_int = 23;
/// The send buffer asked for: about 30 ms of a gigabit interface's line rate waiting in its
/// queue (a frame written counts against the socket until the interface has sent it; a full
/// buffer refuses the write, which the bridge counts and drops). Frames received wait in the
/// ring (`ring.rs`).
const SOCKET_BUFFER: libc::c_int = 4 << 20;

fn check(ret: libc::c_int) -> io::Result<libc::c_int> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

/// The index of interface `name` in the calling thread's namespace, `None` if there is none.
pub fn interface_index(name: &str) -> Option<u32> {
    let c = CString::new(name).ok()?;
    // SAFETY: a NUL-terminated name.
    let index = unsafe { libc::if_nametoindex(c.as_ptr()) };
    (index != 0).then_some(index)
}

#[derive(Debug)]
pub struct PacketSocket {
    /// Where the kernel puts the frames received (unmapped before the socket closes).
    ring: RxRing,
    fd: OwnedFd,
    name: String,
}

#[repr(C)]
struct IfReqFlags {
    name: [u8; libc::IFNAMSIZ],
    flags: libc::c_short,
    _pad: [u8; 22],
}

#[repr(C)]
struct IfReqMtu {
    name: [u8; libc::IFNAMSIZ],
    mtu: libc::c_int,
    _pad: [u8; 20],
}

/// Copies frame `f` of the ring into `place`, its VLAN tag put back if the interface took it off:
/// (bytes held, real length).
fn copy_frame(f: &RingFrame<'_>, place: &mut [u8]) -> (usize, usize) {
    if let Some(tag) = f.vlan {
        let len = f.len + VLAN_TAG;
        // a frame cut (f.bytes shorter than f.len) or too long for the place stays cut
        let held = with_vlan_tag(f.bytes, tag, place).unwrap_or(0);
        return (held, len);
    }
    let n = f.bytes.len().min(place.len());
    place[..n].copy_from_slice(&f.bytes[..n]);
    (n, f.len)
}

/// The MTU of interface `name` (`SIOCGIFMTU`, asked through any socket `fd`).
fn mtu_of(fd: RawFd, name: &str) -> io::Result<u32> {
    let mut req = IfReqMtu {
        name: [0; libc::IFNAMSIZ],
        mtu: 0,
        _pad: [0; 20],
    };
    let n = name.len().min(libc::IFNAMSIZ - 1);
    req.name[..n].copy_from_slice(&name.as_bytes()[..n]);
    // SAFETY: SIOCGIFMTU reads and writes a struct ifreq, which IfReqMtu lays out.
    check(unsafe { libc::ioctl(fd, libc::SIOCGIFMTU as _, &mut req as *mut IfReqMtu) })?;
    u32::try_from(req.mtu).map_err(|_| io::Error::other("a negative MTU"))
}

impl PacketSocket {
    /// Opens interface `name` raw (non-blocking) and puts it in promiscuous mode for as long as
    /// the socket lives. Fails if the interface does not exist or is down, or without
    /// `CAP_NET_RAW`.
    pub fn open(name: &str) -> io::Result<PacketSocket> {
        let index = interface_index(name).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::NotFound,
                format!("no interface named '{name}' here"),
            )
        })?;
        let proto = (libc::ETH_P_ALL as u16).to_be();
        // protocol 0: the socket receives nothing until bound, to ETH_P_ALL on the interface,
        // once its ring is in place (packet(7))
        // SAFETY: creating a socket; the descriptor is owned below.
        let fd = check(unsafe {
            libc::socket(
                libc::AF_PACKET,
                libc::SOCK_RAW | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC,
                0,
            )
        })?;
        // SAFETY: fd was just returned by socket and is owned by nobody else.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        // a slot holds a frame of the MTU, its Ethernet header and a VLAN tag (IEEE 802.1Q)
        let room = (mtu_of(fd.as_raw_fd(), name)? as usize + 18).min(MAX_FRAME);
        let ring = RxRing::attach(fd.as_raw_fd(), room)?;
        let sock = PacketSocket {
            ring,
            fd,
            name: name.to_string(),
        };
        if !sock.is_up()? {
            return Err(io::Error::other(format!(
                "interface '{name}' is down (ip link set {name} up)"
            )));
        }
        // SAFETY: sockaddr_ll is plain old data; all-zero is valid before the fields are set.
        let mut addr: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
        addr.sll_family = libc::AF_PACKET as u16;
        addr.sll_protocol = proto;
        addr.sll_ifindex = index as i32;
        // SAFETY: addr is a valid sockaddr_ll of the size passed.
        check(unsafe {
            libc::bind(
                sock.fd.as_raw_fd(),
                (&addr as *const libc::sockaddr_ll).cast(),
                std::mem::size_of::<libc::sockaddr_ll>() as libc::socklen_t,
            )
        })?;
        // SAFETY: packet_mreq is plain old data.
        let mut mreq: libc::packet_mreq = unsafe { std::mem::zeroed() };
        mreq.mr_ifindex = index as i32;
        mreq.mr_type = libc::PACKET_MR_PROMISC as u16;
        sock.set_option(libc::SOL_PACKET, libc::PACKET_ADD_MEMBERSHIP, &mreq)?;
        // a bigger buffer is better but not needed: without CAP_NET_ADMIN the default stays
        let _ = sock.set_option(libc::SOL_SOCKET, libc::SO_SNDBUFFORCE, &SOCKET_BUFFER);
        // an older kernel queues them, and `recv` skips them
        let _ = sock.set_option(libc::SOL_PACKET, PACKET_IGNORE_OUTGOING, &1 as &libc::c_int);
        Ok(sock)
    }

    fn set_option<T>(&self, level: libc::c_int, name: libc::c_int, value: &T) -> io::Result<()> {
        // SAFETY: value is valid for size_of::<T>() bytes, the size passed.
        check(unsafe {
            libc::setsockopt(
                self.fd.as_raw_fd(),
                level,
                name,
                (value as *const T).cast(),
                std::mem::size_of::<T>() as libc::socklen_t,
            )
        })
        .map(|_| ())
    }

    /// The interface's MTU: the largest IPv4 packet a frame of it carries.
    pub fn mtu(&self) -> io::Result<u32> {
        mtu_of(self.fd.as_raw_fd(), &self.name)
    }

    /// Whether the interface is up (`SIOCGIFFLAGS`, `IFF_UP`).
    fn is_up(&self) -> io::Result<bool> {
        let mut req = IfReqFlags {
            name: [0; libc::IFNAMSIZ],
            flags: 0,
            _pad: [0; 22],
        };
        let n = self.name.len().min(libc::IFNAMSIZ - 1);
        req.name[..n].copy_from_slice(&self.name.as_bytes()[..n]);
        // SAFETY: SIOCGIFFLAGS reads and writes a struct ifreq, which IfReqFlags lays out.
        check(unsafe {
            libc::ioctl(
                self.fd.as_raw_fd(),
                libc::SIOCGIFFLAGS as _,
                &mut req as *mut IfReqFlags,
            )
        })?;
        Ok(req.flags & libc::IFF_UP as libc::c_short != 0)
    }
}

impl FrameDevice for PacketSocket {
    fn name(&self) -> &str {
        &self.name
    }

    fn raw_fd(&self) -> Option<RawFd> {
        Some(self.fd.as_raw_fd())
    }

    /// The next frame the interface received (not one it sent), `None` when none is waiting.
    fn recv(&mut self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        let mut got = None;
        while got.is_none() {
            let taken = self.ring.take_next(|f| {
                if f.pkttype != PACKET_OUTGOING {
                    got = Some(copy_frame(&f, buf).1);
                }
            });
            if !taken {
                break;
            }
        }
        Ok(got)
    }

    fn send(&mut self, frame: &[u8]) -> io::Result<()> {
        // SAFETY: frame is valid for its length; the socket is bound to the interface.
        let n = unsafe { libc::send(self.fd.as_raw_fd(), frame.as_ptr().cast(), frame.len(), 0) };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// The frames waiting in the ring, as many as `slots` has places for, with no system call.
    fn recv_batch(&mut self, slots: &mut Slots) -> io::Result<()> {
        while let Some((place, bytes)) = slots.next_place() {
            let mut len = None;
            let taken = self.ring.take_next(|f| {
                if f.pkttype != PACKET_OUTGOING {
                    len = Some(copy_frame(&f, bytes));
                }
            });
            if !taken {
                break;
            }
            if let Some((held, len)) = len {
                slots.filled(place, held, len);
            }
        }
        Ok(())
    }

    /// Frames `from..` of `out` (at most a batch) in one `sendmmsg(2)`.
    fn send_batch(&mut self, out: &Outgoing, from: usize) -> io::Result<usize> {
        let count = out.len().saturating_sub(from).min(BATCH);
        // SAFETY: plain old data, all-zero valid; the pointers are set below.
        let mut iov: [libc::iovec; BATCH] = unsafe { std::mem::zeroed() };
        // SAFETY: as above.
        let mut hdrs: [libc::mmsghdr; BATCH] = unsafe { std::mem::zeroed() };
        for (i, (v, h)) in iov.iter_mut().zip(hdrs.iter_mut()).take(count).enumerate() {
            let frame = out.frame(from + i);
            // sendmsg(2) reads from msg_iov and never writes it
            v.iov_base = frame.as_ptr().cast_mut().cast();
            v.iov_len = frame.len();
            h.msg_hdr.msg_iov = v;
            h.msg_hdr.msg_iovlen = 1;
        }
        // SAFETY: the first `count` headers each point at a live iovec over a frame of `out`;
        // the socket is bound to the interface (no address needed).
        let n = unsafe {
            libc::sendmmsg(
                self.fd.as_raw_fd(),
                hdrs.as_mut_ptr(),
                count as libc::c_uint,
                0,
            )
        };
        match n {
            n if n < 0 => Err(io::Error::last_os_error()),
            0 => Err(io::Error::from(io::ErrorKind::WriteZero)),
            n => Ok(n as usize),
        }
    }
}
