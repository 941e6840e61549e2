//! The process itself: the stop signals, the process groups of `--exec` commands, and a file lock
//! that goes with the process.

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::path::Path;

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

/// Whether a process with this id exists.
pub(crate) fn process_alive(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
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
