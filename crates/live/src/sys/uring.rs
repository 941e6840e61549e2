//! The hosts' devices read through an `io_uring` (Linux 6.7 and later): one multishot read per
//! device (`IORING_OP_READ_MULTISHOT`) into buffers the ring picks from a provided-buffer ring
//! (`IORING_REGISTER_PBUF_RING`), each packet read posted as a completion in memory shared with the
//! kernel (`io_uring/rw.c`, `io_read_mshot`; the UAPI `include/uapi/linux/io_uring.h`).
//!
//! Why it is read this way (docs/live.md, "Against de373cc, fourth step"): a packet queued on a
//! device wakes the read's poll entry (`io_poll_wake`), which queues task work on the thread that
//! submitted it, and a thread runs its task work before it returns to user space from any system
//! call (`exit_to_user_mode_loop` -> `task_work_run`). So when the engine's `write` into a host's
//! device returns, what the host's kernel sent in that write's call (Linux takes a TUN write in
//! the writer's context, `drivers/net/tun.c`, `tun_get_user`) has already been read and posted,
//! and whether the host answered is a look at the completion ring, not a `read` that, most of the
//! time, finds the device empty. `IORING_SETUP_COOP_TASKRUN` keeps task work queued from another
//! thread (a host's own send) from interrupting the engine: it runs at the engine's next system
//! call. No `IORING_SETUP_DEFER_TASKRUN`: that would run it only in `io_uring_enter`.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicU16, AtomicU32, Ordering};

use super::check;

const IORING_SETUP_CQSIZE: u32 = 1 << 3;
const IORING_SETUP_COOP_TASKRUN: u32 = 1 << 8;
const IORING_FEAT_SINGLE_MMAP: u32 = 1 << 0;
const IORING_OFF_SQ_RING: libc::off_t = 0;
const IORING_OFF_SQES: libc::off_t = 0x1000_0000;
const IORING_REGISTER_PROBE: u32 = 8;
const IORING_REGISTER_PBUF_RING: u32 = 22;
const IO_URING_OP_SUPPORTED: u16 = 1 << 0;
const IOSQE_BUFFER_SELECT: u8 = 1 << 5;
const IORING_CQE_F_BUFFER: u32 = 1 << 0;
const IORING_CQE_F_MORE: u32 = 1 << 1;
const IORING_CQE_BUFFER_SHIFT: u32 = 16;
const IORING_OP_READ_MULTISHOT: u8 = 49;
/// The buffers' group: the ring has one.
const GROUP: u16 = 0;

#[repr(C)]
#[derive(Default)]
struct SqOffsets {
    head: u32,
    tail: u32,
    ring_mask: u32,
    ring_entries: u32,
    flags: u32,
    dropped: u32,
    array: u32,
    resv1: u32,
    user_addr: u64,
}

#[repr(C)]
#[derive(Default)]
struct CqOffsets {
    head: u32,
    tail: u32,
    ring_mask: u32,
    ring_entries: u32,
    overflow: u32,
    cqes: u32,
    flags: u32,
    resv1: u32,
    user_addr: u64,
}

#[repr(C)]
#[derive(Default)]
struct Params {
    sq_entries: u32,
    cq_entries: u32,
    flags: u32,
    sq_thread_cpu: u32,
    sq_thread_idle: u32,
    features: u32,
    wq_fd: u32,
    resv: [u32; 3],
    sq_off: SqOffsets,
    cq_off: CqOffsets,
}

#[repr(C)]
#[derive(Default)]
struct Sqe {
    opcode: u8,
    flags: u8,
    ioprio: u16,
    fd: i32,
    off: u64,
    addr: u64,
    len: u32,
    op_flags: u32,
    user_data: u64,
    buf_group: u16,
    personality: u16,
    splice_fd_in: i32,
    addr3: u64,
    pad: u64,
}

#[repr(C)]
struct Cqe {
    user_data: u64,
    res: i32,
    flags: u32,
}

#[repr(C)]
struct Buf {
    addr: u64,
    len: u32,
    bid: u16,
    /// In the ring's first entry: the ring's tail.
    resv: u16,
}

#[repr(C)]
struct BufReg {
    ring_addr: u64,
    ring_entries: u32,
    bgid: u16,
    flags: u16,
    resv: [u64; 3],
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
struct ProbeOp {
    op: u8,
    resv: u8,
    flags: u16,
    resv2: u32,
}

/// `struct io_uring_probe` with room for every operation a `u8` names.
#[repr(C)]
struct Probe {
    last_op: u8,
    ops_len: u8,
    resv: u16,
    resv2: [u32; 3],
    ops: [ProbeOp; 256],
}

/// A shared mapping, unmapped when dropped.
struct Map {
    ptr: *mut u8,
    len: usize,
}

impl Map {
    fn new(fd: RawFd, len: usize, offset: libc::off_t) -> io::Result<Map> {
        let flags = if fd < 0 {
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS
        } else {
            libc::MAP_SHARED | libc::MAP_POPULATE
        };
        // SAFETY: a fresh mapping of len bytes; the kernel picks the address.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                flags,
                fd,
                offset,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(Map {
            ptr: ptr.cast(),
            len,
        })
    }

    /// The `T` at byte `off` (inside the mapping, aligned: the kernel's offsets are).
    fn at<T>(&self, off: u32) -> *mut T {
        debug_assert!(off as usize + std::mem::size_of::<T>() <= self.len);
        self.ptr.wrapping_add(off as usize).cast()
    }
}

impl Drop for Map {
    fn drop(&mut self) {
        // SAFETY: ptr and len are those mmap returned; nothing refers to the mapping after this.
        unsafe { libc::munmap(self.ptr.cast(), self.len) };
    }
}

/// One packet read: the device's key (as given to [`PacketRing::arm`]) and its bytes.
pub(crate) struct Completion {
    pub device: usize,
    buffer: u16,
    len: usize,
}

/// The ring over the hosts' devices.
pub(crate) struct PacketRing {
    fd: OwnedFd,
    rings: Map,
    sqes: Map,
    sq_mask: u32,
    cq_mask: u32,
    sq: SqOffsets,
    cq: CqOffsets,
    /// The provided buffers' ring (`Buf` entries) and the buffers themselves.
    buf_ring: Map,
    buffers: Vec<u8>,
    buf_len: usize,
    buf_count: u16,
    /// Each key's device, -1 where none is armed.
    devices: Vec<RawFd>,
}

impl PacketRing {
    /// A ring that will read up to `keys` devices ([`PacketRing::arm`]), each packet into one of
    /// `buf_count` (a power of two) buffers of `buf_len` bytes. An error when this kernel has no
    /// such ring or no multishot read: the caller reads the devices itself.
    pub fn new(keys: usize, buf_count: u16, buf_len: usize) -> io::Result<PacketRing> {
        if !buf_count.is_power_of_two() || keys == 0 || keys > usize::from(u16::MAX) {
            return Err(io::Error::other("a ring needs devices and 2^n buffers"));
        }
        let mut p = Params {
            flags: IORING_SETUP_COOP_TASKRUN | IORING_SETUP_CQSIZE,
            // every buffer's packet and each device's last word fit: the ring never overflows
            cq_entries: (u32::from(buf_count) + keys as u32).next_power_of_two(),
            ..Params::default()
        };
        let entries = (keys as u32).next_power_of_two();
        // SAFETY: io_uring_setup fills the Params it is given.
        let fd = check(unsafe {
            libc::syscall(libc::SYS_io_uring_setup, entries, &mut p as *mut Params) as libc::c_int
        })?;
        // SAFETY: fd was just returned by io_uring_setup and is owned by nobody else.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        if p.features & IORING_FEAT_SINGLE_MMAP == 0 || !supports_multishot_read(&fd)? {
            return Err(io::Error::other(
                "no multishot read in this kernel's io_uring",
            ));
        }
        let sq_len = p.sq_off.array as usize + p.sq_entries as usize * 4;
        let cq_len = p.cq_off.cqes as usize + p.cq_entries as usize * std::mem::size_of::<Cqe>();
        let rings = Map::new(fd.as_raw_fd(), sq_len.max(cq_len), IORING_OFF_SQ_RING)?;
        let sqes = Map::new(
            fd.as_raw_fd(),
            p.sq_entries as usize * std::mem::size_of::<Sqe>(),
            IORING_OFF_SQES,
        )?;
        let buf_ring = Map::new(-1, usize::from(buf_count) * std::mem::size_of::<Buf>(), 0)?;
        let reg = BufReg {
            ring_addr: buf_ring.ptr as u64,
            ring_entries: u32::from(buf_count),
            bgid: GROUP,
            flags: 0,
            resv: [0; 3],
        };
        // SAFETY: registers the buffer ring mapped above, which outlives the ring (same struct).
        check(unsafe {
            libc::syscall(
                libc::SYS_io_uring_register,
                fd.as_raw_fd(),
                IORING_REGISTER_PBUF_RING,
                &reg as *const BufReg,
                1,
            ) as libc::c_int
        })?;
        // SAFETY: the offsets are the kernel's, inside the mapping.
        let (sq_mask, cq_mask) = unsafe {
            (
                *rings.at::<u32>(p.sq_off.ring_mask),
                *rings.at::<u32>(p.cq_off.ring_mask),
            )
        };
        let mut ring = PacketRing {
            fd,
            rings,
            sqes,
            sq_mask,
            cq_mask,
            sq: p.sq_off,
            cq: p.cq_off,
            buf_ring,
            buffers: vec![0; usize::from(buf_count) * buf_len],
            buf_len,
            buf_count,
            devices: vec![-1; keys],
        };
        for b in 0..buf_count {
            ring.give_back(b);
        }
        Ok(ring)
    }

    /// The ring's own descriptor: readable when a completion waits (to `ppoll` beside devices
    /// the ring does not read).
    pub fn raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// From now on the ring reads device `fd` under `key` (below the `keys` of `new`). What the
    /// device holds already is read at once, first.
    pub fn arm(&mut self, key: usize, fd: RawFd) -> io::Result<()> {
        if key >= self.devices.len() || self.devices[key] >= 0 {
            return Err(io::Error::other(
                "a device armed twice, or beyond the ring's keys",
            ));
        }
        self.devices[key] = fd;
        self.push_read(key);
        self.submit(1)
    }

    fn atomic_u32(&self, off: u32) -> &AtomicU32 {
        // SAFETY: a u32 of the shared rings at the kernel's offset, aligned; the kernel reads and
        // writes it concurrently, hence atomic.
        unsafe { &*self.rings.at::<AtomicU32>(off) }
    }

    fn buf_tail(&self) -> &AtomicU16 {
        // SAFETY: the buffer ring's tail is the first entry's `resv` (offset 14), aligned.
        unsafe { &*self.buf_ring.at::<AtomicU16>(14) }
    }

    /// Hands buffer `b` back to the kernel.
    fn give_back(&mut self, b: u16) {
        let tail = self.buf_tail().load(Ordering::Relaxed);
        let slot = usize::from(tail & (self.buf_count - 1));
        let addr = self
            .buffers
            .as_mut_ptr()
            .wrapping_add(usize::from(b) * self.buf_len);
        let entry = self
            .buf_ring
            .at::<Buf>((slot * std::mem::size_of::<Buf>()) as u32);
        // SAFETY: slot < buf_count entries of the buffer ring; the kernel does not read the entry
        // before the tail below passes it. `resv` of entry 0 is the tail: not written here.
        unsafe {
            (*entry).addr = addr as u64;
            (*entry).len = self.buf_len as u32;
            (*entry).bid = b;
        }
        self.buf_tail()
            .store(tail.wrapping_add(1), Ordering::Release);
    }

    /// Queues device `d`'s multishot read (submitted by the next `submit`).
    fn push_read(&mut self, d: usize) {
        let tail = self.atomic_u32(self.sq.tail).load(Ordering::Relaxed);
        let slot = tail & self.sq_mask;
        let sqe = Sqe {
            opcode: IORING_OP_READ_MULTISHOT,
            flags: IOSQE_BUFFER_SELECT,
            fd: self.devices[d],
            user_data: d as u64,
            buf_group: GROUP,
            ..Sqe::default()
        };
        // SAFETY: slot < sq_entries, inside both mappings; the kernel reads the entry only after
        // the tail below passes it.
        unsafe {
            self.sqes.at::<Sqe>(slot * 64).write(sqe);
            *self.rings.at::<u32>(self.sq.array + slot * 4) = slot;
        }
        self.atomic_u32(self.sq.tail)
            .store(tail.wrapping_add(1), Ordering::Release);
    }

    /// `io_uring_enter`: submits `n` entries (a read is tried at once: what its device holds is
    /// read in this call).
    fn submit(&self, n: u32) -> io::Result<()> {
        // SAFETY: no argument is a pointer.
        let r = unsafe {
            libc::syscall(
                libc::SYS_io_uring_enter,
                self.fd.as_raw_fd(),
                n,
                0,
                0,
                std::ptr::null::<libc::c_void>(),
                0,
            )
        };
        if r < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// The oldest completion, if any, without consuming it.
    fn peek(&self) -> Option<&Cqe> {
        let head = self.atomic_u32(self.cq.head).load(Ordering::Relaxed);
        let tail = self.atomic_u32(self.cq.tail).load(Ordering::Acquire);
        if head == tail {
            return None;
        }
        let off = self.cq.cqes + (head & self.cq_mask) * std::mem::size_of::<Cqe>() as u32;
        // SAFETY: head < tail: the kernel wrote this entry before publishing the tail (Acquire).
        Some(unsafe { &*self.rings.at::<Cqe>(off) })
    }

    /// Whether a packet (or a device's last word) waits: a load from shared memory, no call.
    pub fn ready(&self) -> bool {
        self.peek().is_some()
    }

    /// The next packet read, in the order the kernel read them (per device, the order sent).
    /// Its bytes are [`PacketRing::bytes`] until [`PacketRing::done`], which the caller calls
    /// before asking for the next.
    pub fn next(&mut self) -> io::Result<Option<Completion>> {
        loop {
            let Some(c) = self.peek() else {
                return Ok(None);
            };
            let (device, res, flags) = (c.user_data as usize, c.res, c.flags);
            let head = self.atomic_u32(self.cq.head).load(Ordering::Relaxed);
            self.atomic_u32(self.cq.head)
                .store(head.wrapping_add(1), Ordering::Release);
            if device >= self.devices.len() || self.devices[device] < 0 {
                continue;
            }
            if flags & IORING_CQE_F_MORE == 0 {
                // its read ended (no free buffer: -ENOBUFS; every buffer taken before this one
                // has been given back by now): it starts again, after what it read
                if res >= 0 || res == -libc::ENOBUFS {
                    self.push_read(device);
                    self.submit(1)?;
                } else {
                    return Err(io::Error::from_raw_os_error(-res));
                }
            }
            let buffer = (flags >> IORING_CQE_BUFFER_SHIFT) as u16;
            if res > 0 && flags & IORING_CQE_F_BUFFER != 0 && buffer < self.buf_count {
                return Ok(Some(Completion {
                    device,
                    buffer,
                    len: (res as usize).min(self.buf_len),
                }));
            }
        }
    }

    pub fn bytes(&self, c: &Completion) -> &[u8] {
        let start = usize::from(c.buffer) * self.buf_len;
        &self.buffers[start..start + c.len]
    }

    /// `c`'s buffer goes back to the kernel.
    pub fn done(&mut self, c: Completion) {
        self.give_back(c.buffer);
    }
}

/// Whether this kernel's `io_uring` has the multishot read (`IORING_REGISTER_PROBE`).
fn supports_multishot_read(fd: &OwnedFd) -> io::Result<bool> {
    let mut probe = Probe {
        last_op: 0,
        ops_len: 0,
        resv: 0,
        resv2: [0; 3],
        ops: [ProbeOp::default(); 256],
    };
    // SAFETY: the kernel fills at most 256 ops of the probe, which has room for them.
    check(unsafe {
        libc::syscall(
            libc::SYS_io_uring_register,
            fd.as_raw_fd(),
            IORING_REGISTER_PROBE,
            &mut probe as *mut Probe,
            256,
        ) as libc::c_int
    })?;
    let op = usize::from(IORING_OP_READ_MULTISHOT);
    Ok(probe.last_op >= IORING_OP_READ_MULTISHOT
        && probe.ops[op].flags & IO_URING_OP_SUPPORTED != 0)
}
