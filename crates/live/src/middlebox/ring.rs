//! A packet socket's receive ring (`PACKET_RX_RING`, `TPACKET_V2`; the kernel's
//! Documentation/networking/packet_mmap.rst): memory shared with the kernel, in which it writes
//! each frame the interface receives into the next free slot and marks it the user's. Reading a
//! frame is reading memory: no system call and no socket buffer per frame, and the loop sleeps in
//! `poll` only when the ring is empty. Version 2, not 3: a version-3 block is handed over only
//! when full or after a timeout of at least a millisecond, a delay on every frame of a slow
//! connection, where version 2 hands over each frame at once.

use std::io;
use std::os::fd::RawFd;
use std::sync::atomic::{fence, AtomicU32, Ordering};

use super::ethernet::ETHERTYPE_VLAN;

/// `TPACKET_V2` of `enum tpacket_versions` (linux/if_packet.h).
const TPACKET_V2: libc::c_int = 1;
/// What the ring holds in all: 8 MiB, twice the socket buffer the middlebox asks for otherwise
/// (a burst at a gigabit's line rate for about 60 ms while the loop handles the other side).
const RING_BYTES: usize = 8 << 20;
/// Frames per block: a block is contiguous memory the kernel allocates whole.
const FRAMES_PER_BLOCK: usize = 32;

/// One frame in the ring: its real length, the bytes held (at most the slot's room), the packet
/// type (`sll_pkttype`), and the VLAN tag (TPID, TCI) the interface took off, if it did.
pub struct RingFrame<'a> {
    pub len: usize,
    pub bytes: &'a [u8],
    pub pkttype: u8,
    pub vlan: Option<(u16, u16)>,
}

pub struct RxRing {
    map: *mut u8,
    map_len: usize,
    frame_size: usize,
    frame_nr: usize,
    block_size: usize,
    /// The slot the kernel fills next after the ones read.
    next: usize,
}

fn align(x: usize, to: usize) -> usize {
    x.div_ceil(to) * to
}

impl RxRing {
    /// Sets socket `fd` up to receive into a ring whose slots hold a frame of `max_frame`
    /// bytes, and maps it. Must be called before the socket is bound to an interface.
    pub fn attach(fd: RawFd, max_frame: usize) -> io::Result<RxRing> {
        let set = |name: libc::c_int, value: *const libc::c_void, len: usize| {
            // SAFETY: value points at `len` readable bytes of the option's type.
            let r = unsafe { libc::setsockopt(fd, libc::SOL_PACKET, name, value, len as _) };
            if r < 0 {
                Err(io::Error::last_os_error())
            } else {
                Ok(())
            }
        };
        let version = TPACKET_V2;
        set(
            libc::PACKET_VERSION,
            (&version as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>(),
        )?;
        // each slot: the header, the sockaddr_ll, then the frame at a 16-byte boundary
        let frame_size = align(
            libc::TPACKET2_HDRLEN + 16 + max_frame,
            libc::TPACKET_ALIGNMENT,
        );
        // SAFETY: sysconf has no preconditions.
        let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096);
        let block_size = align(frame_size * FRAMES_PER_BLOCK, page);
        let block_nr = (RING_BYTES / block_size).max(1);
        let frames_per_block = block_size / frame_size;
        let req = libc::tpacket_req {
            tp_block_size: block_size as u32,
            tp_block_nr: block_nr as u32,
            tp_frame_size: frame_size as u32,
            tp_frame_nr: (block_nr * frames_per_block) as u32,
        };
        set(
            libc::PACKET_RX_RING,
            (&req as *const libc::tpacket_req).cast(),
            std::mem::size_of::<libc::tpacket_req>(),
        )?;
        let map_len = block_size * block_nr;
        // SAFETY: mapping the ring the kernel just made for fd, of the size it was given.
        let map = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd,
                0,
            )
        };
        if map == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(RxRing {
            map: map.cast(),
            map_len,
            frame_size,
            frame_nr: block_nr * frames_per_block,
            block_size,
            next: 0,
        })
    }

    /// The start of slot `i` (frames do not cross blocks; a block's tail may be unused).
    fn slot(&self, i: usize) -> *mut u8 {
        let per_block = self.block_size / self.frame_size;
        let offset = (i / per_block) * self.block_size + (i % per_block) * self.frame_size;
        // SAFETY: i < frame_nr, so the offset is inside the mapping.
        unsafe { self.map.add(offset) }
    }

    /// The status word of slot `i`, which the kernel and this process hand back and forth.
    fn status(&self, i: usize) -> &AtomicU32 {
        // SAFETY: tp_status is the first field of the slot's tpacket2_hdr, a u32 aligned to 16;
        // the kernel writes it as a whole word.
        unsafe { &*(self.slot(i) as *const AtomicU32) }
    }

    /// Hands the next frame the kernel filled to `take` and gives its slot back; `false` when the
    /// ring holds none.
    pub fn take_next(&mut self, take: impl FnOnce(RingFrame<'_>)) -> bool {
        let i = self.next;
        if self.status(i).load(Ordering::Acquire) & libc::TP_STATUS_USER == 0 {
            return false;
        }
        fence(Ordering::Acquire);
        let base = self.slot(i);
        // SAFETY: the slot is the user's (TP_STATUS_USER): the kernel wrote a tpacket2_hdr at
        // its start and the sockaddr_ll after it, and does not touch it until it is given back.
        let hdr = unsafe { std::ptr::read_unaligned(base as *const libc::tpacket2_hdr) };
        // SAFETY: as above; the sockaddr_ll follows the header, aligned.
        let sll = unsafe {
            std::ptr::read_unaligned(base.add(libc::TPACKET_ALIGN(std::mem::size_of::<
                libc::tpacket2_hdr,
            >())) as *const libc::sockaddr_ll)
        };
        let mac = usize::from(hdr.tp_mac);
        let held = (hdr.tp_snaplen as usize).min(self.frame_size.saturating_sub(mac));
        // SAFETY: the kernel put tp_snaplen bytes at tp_mac within the slot (held is cut to the
        // slot in any case).
        let bytes = unsafe { std::slice::from_raw_parts(base.add(mac), held) };
        let vlan = (hdr.tp_status & libc::TP_STATUS_VLAN_VALID != 0).then(|| {
            let tpid = if hdr.tp_status & libc::TP_STATUS_VLAN_TPID_VALID != 0 {
                hdr.tp_vlan_tpid
            } else {
                ETHERTYPE_VLAN
            };
            (tpid, hdr.tp_vlan_tci)
        });
        take(RingFrame {
            len: hdr.tp_len as usize,
            bytes,
            pkttype: sll.sll_pkttype,
            vlan,
        });
        self.status(i)
            .store(libc::TP_STATUS_KERNEL, Ordering::Release);
        self.next = (i + 1) % self.frame_nr;
        true
    }
}

impl Drop for RxRing {
    fn drop(&mut self) {
        // SAFETY: unmapping the mapping made in attach, once.
        unsafe { libc::munmap(self.map.cast(), self.map_len) };
    }
}

impl std::fmt::Debug for RxRing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "RxRing({} frames of {} bytes)",
            self.frame_nr, self.frame_size
        )
    }
}
