//! How many packets a host's kernel has queued on its TUN device, counted by the kernel in
//! memory the driver reads without a call: an eBPF socket filter on the device
//! (`TUNSETFILTEREBPF`, run by `drivers/net/tun.c`'s `tun_net_xmit` for every packet it queues for
//! the reader, in the sending context, before `ptr_ring_produce`) adds one to the one value of an
//! array map the driver maps into its memory (`BPF_F_MMAPABLE`), and keeps the packet whole (it
//! returns the packet's length). The UAPI: `include/uapi/linux/bpf.h`.
//!
//! Why (docs/live.md, "Against de373cc, fourth step"): a host's immediate answer to a packet the
//! driver writes is queued, and counted, in the write's own call, so when the write returns, a
//! count that has not moved since the driver last read the device says the host did not answer,
//! without the `read` that would find the device empty; and when it has moved, by how many
//! packets, so the driver reads that many and not one more.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicU64, Ordering};

use super::check;

const BPF_MAP_CREATE: libc::c_int = 0;
const BPF_PROG_LOAD: libc::c_int = 5;
const BPF_MAP_TYPE_ARRAY: u32 = 2;
const BPF_F_MMAPABLE: u32 = 1 << 10;
const BPF_PROG_TYPE_SOCKET_FILTER: u32 = 1;
const BPF_PSEUDO_MAP_FD: u8 = 1;
const BPF_FUNC_MAP_LOOKUP_ELEM: i32 = 1;
/// `_IOR('T', 225, int)`
const TUNSETFILTEREBPF: libc::c_ulong = 0x8004_54e1;

/// `union bpf_attr`, as bytes: each command reads the fields it knows, the rest must be zero.
#[repr(C, align(8))]
struct Attr([u8; 128]);

impl Attr {
    fn new() -> Attr {
        Attr([0; 128])
    }
    fn u32(mut self, off: usize, v: u32) -> Attr {
        self.0[off..off + 4].copy_from_slice(&v.to_ne_bytes());
        self
    }
    fn u64(mut self, off: usize, v: u64) -> Attr {
        self.0[off..off + 8].copy_from_slice(&v.to_ne_bytes());
        self
    }
}

fn bpf(cmd: libc::c_int, attr: &mut Attr) -> io::Result<OwnedFd> {
    // SAFETY: attr is a zeroed bpf_attr the command reads (and may write) within its 128 bytes;
    // every pointer in it points at memory that outlives the call.
    let fd = check(unsafe {
        libc::syscall(
            libc::SYS_bpf,
            cmd,
            attr as *mut Attr,
            std::mem::size_of::<Attr>(),
        ) as libc::c_int
    })?;
    // SAFETY: the call returned a new descriptor, owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// One `struct bpf_insn`.
fn insn(code: u8, dst: u8, src: u8, off: i16, imm: i32) -> u64 {
    u64::from(code)
        | u64::from(dst & 0xf) << 8
        | u64::from(src & 0xf) << 12
        | u64::from(off as u16) << 16
        | u64::from(imm as u32) << 32
}

/// The filter: `count[0] += 1; return skb->len` (the packet kept whole).
fn filter(map: RawFd) -> Vec<u64> {
    vec![
        insn(0xbf, 6, 1, 0, 0),                        // r6 = r1 (the packet)
        insn(0x62, 10, 0, -4, 0),                      // *(u32 *)(r10 - 4) = 0
        insn(0xbf, 2, 10, 0, 0),                       // r2 = r10
        insn(0x07, 2, 0, 0, -4),                       // r2 += -4 (the key)
        insn(0x18, 1, BPF_PSEUDO_MAP_FD, 0, map),      // r1 = the map
        insn(0, 0, 0, 0, 0),                           //   (its upper half)
        insn(0x85, 0, 0, 0, BPF_FUNC_MAP_LOOKUP_ELEM), // r0 = &count[0]
        insn(0x15, 0, 0, 2, 0),                        // if r0 == 0 skip two
        insn(0xb7, 1, 0, 0, 1),                        // r1 = 1
        insn(0xdb, 0, 1, 0, 0),                        // lock *(u64 *)r0 += r1
        insn(0x61, 0, 6, 0, 0),                        // r0 = skb->len
        insn(0x95, 0, 0, 0, 0),                        // exit
    ]
}

/// The count of packets the kernel has queued on one device for its reader.
pub(crate) struct QueueCount {
    count: *const AtomicU64,
    map_len: usize,
    /// The filter stays loaded while the device holds it; the map while it is mapped.
    _map: OwnedFd,
    _filter: OwnedFd,
}

// SAFETY: `count` points into a shared mapping owned by this value (unmapped only in drop), read
// only through an atomic: any thread may read it.
unsafe impl Send for QueueCount {}
// SAFETY: as above; `queued` takes `&self` and only loads atomically.
unsafe impl Sync for QueueCount {}

impl QueueCount {
    /// Counts what the kernel queues on `device` from now on (attached before the device is up,
    /// it counts every packet). An error where the kernel refuses (no eBPF, no right to load it).
    pub fn attach(device: RawFd) -> io::Result<QueueCount> {
        // map_type, key_size, value_size, max_entries, map_flags
        let mut attr = Attr::new()
            .u32(0, BPF_MAP_TYPE_ARRAY)
            .u32(4, 4)
            .u32(8, 8)
            .u32(12, 1)
            .u32(16, BPF_F_MMAPABLE);
        let map = bpf(BPF_MAP_CREATE, &mut attr)?;
        // SAFETY: sysconf has no memory argument.
        let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096);
        // SAFETY: maps the array's one value (zero now) read-only; unmapped in drop.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                page,
                libc::PROT_READ,
                libc::MAP_SHARED,
                map.as_raw_fd(),
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let count = ptr as *const AtomicU64;
        let prog = filter(map.as_raw_fd());
        let license = c"GPL";
        // prog_type, insn_cnt, insns, license
        let mut attr = Attr::new()
            .u32(0, BPF_PROG_TYPE_SOCKET_FILTER)
            .u32(4, prog.len() as u32)
            .u64(8, prog.as_ptr() as u64)
            .u64(16, license.as_ptr() as u64);
        let loaded = bpf(BPF_PROG_LOAD, &mut attr);
        let unmap = || {
            // SAFETY: the mapping made above, not used after a failure.
            unsafe { libc::munmap(ptr, page) };
        };
        let filter = match loaded {
            Ok(f) => f,
            Err(e) => {
                unmap();
                return Err(e);
            }
        };
        let raw = filter.as_raw_fd();
        // SAFETY: TUNSETFILTEREBPF reads an int, the program's descriptor.
        if let Err(e) = check(unsafe { libc::ioctl(device, TUNSETFILTEREBPF as _, &raw) }) {
            unmap();
            return Err(e);
        }
        Ok(QueueCount {
            count,
            map_len: page,
            _map: map,
            _filter: filter,
        })
    }

    /// Packets the kernel has queued on the device since [`QueueCount::attach`]. A packet the
    /// kernel then drops (its queue full) is counted too: the count never falls short.
    pub fn queued(&self) -> u64 {
        // SAFETY: the mapping's first u64, aligned; the kernel adds to it atomically.
        unsafe { &*self.count }.load(Ordering::Acquire)
    }
}

impl std::fmt::Debug for QueueCount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueueCount")
            .field("queued", &self.queued())
            .finish()
    }
}

impl Drop for QueueCount {
    fn drop(&mut self) {
        // SAFETY: the mapping made in attach; nothing refers to it after this.
        unsafe { libc::munmap(self.count as *mut libc::c_void, self.map_len) };
    }
}
