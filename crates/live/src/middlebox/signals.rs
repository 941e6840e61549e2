//! SIGUSR1 as a request for the middlebox's counters (the convention of long-running daemons:
//! dd(1) prints its statistics on SIGUSR1). The handler only stores to an atomic; the loop prints.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};

static STATUS_ASKED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_usr1(_sig: libc::c_int) {
    STATUS_ASKED.store(true, Ordering::SeqCst);
}

/// Turns SIGUSR1 into a status request ([`status_asked`]) instead of the default, which ends the
/// process.
pub fn catch_status_signal() -> io::Result<()> {
    // SAFETY: installing a handler that only stores to an atomic (async-signal-safe).
    let ret = unsafe { libc::signal(libc::SIGUSR1, on_usr1 as *const () as libc::sighandler_t) };
    if ret == libc::SIG_ERR {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Whether a status request came since the last call (the request is taken).
pub fn status_asked() -> bool {
    STATUS_ASKED.swap(false, Ordering::SeqCst)
}
