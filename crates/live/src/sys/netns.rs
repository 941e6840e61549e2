//! Network namespaces: entering one for a thread (`setns(2)`), removing a handle as `ip netns
//! del` does.

use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::path::Path;

use super::check;

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
