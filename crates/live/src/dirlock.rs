//! Locks on capture directories (`--pcap DIR`, docs/live.md "Ownership, signals and limits"): a
//! second invocation, or a second run, writing into the same directory is refused with the pid of
//! the first instead of interleaving their records.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::path::Path;

use crate::sys;

/// The lock file a run holds in its capture directory while it writes there.
pub const CAPTURE_LOCK: &str = ".snooplab-capture.lock";
/// The lock file `snooplab live --pcap DIR` holds in DIR for the whole invocation.
pub const INVOCATION_LOCK: &str = ".snooplab-live.lock";

/// Tries at taking a [`DirLock`], 50 ms apart.
const LOCK_ATTEMPTS: u32 = 20;

/// An exclusive `flock(2)` on `dir/name` (created if missing), held until dropped, with this
/// process's id written in it for the message of whoever finds it held. Two runs writing
/// `wired.pcap` into one directory at once would interleave their records: the second is refused.
#[derive(Debug)]
pub struct DirLock {
    _file: File,
}

impl DirLock {
    pub fn acquire(dir: &Path, name: &str) -> Result<DirLock, String> {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let path = dir.join(name);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
        // A lock just released can still look held for a moment: a child this process is
        // spawning (`ip`) holds a copy of every descriptor between its fork and its exec, which
        // closes them (O_CLOEXEC), and a flock belongs to the open file, not to one descriptor.
        // So a busy directory is refused only after a second of retries.
        let mut locked = false;
        for attempt in 0..LOCK_ATTEMPTS {
            if attempt > 0 {
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            locked = sys::try_lock_exclusive(&file)
                .map_err(|e| format!("cannot lock {}: {e}", path.display()))?;
            if locked {
                break;
            }
        }
        if !locked {
            let mut text = String::new();
            let _ = file.read_to_string(&mut text);
            let pid = text.trim();
            let who = if pid.parse::<u32>().is_ok() {
                format!(" (pid {pid})")
            } else {
                String::new()
            };
            return Err(format!(
                "capture directory {} is in use by another snooplab live run{who}: use another \
                 --pcap directory, or wait for that run to end",
                dir.display()
            ));
        }
        let _ = file
            .set_len(0)
            .and_then(|_| file.rewind())
            .and_then(|_| writeln!(file, "{}", std::process::id()));
        Ok(DirLock { _file: file })
    }
}
