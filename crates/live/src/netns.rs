//! Network namespaces the live mode makes for itself (docs/live.md): created with `ip netns add`
//! under a run id, removed when dropped, and swept up by a later run if the owner died without
//! removing them.
//!
//! Ownership is a lock, not a process id. Before it creates anything a run creates
//! `/run/snooplab/<id>.lock` (exclusively: the id is taken by whoever creates the file) and holds an
//! exclusive `flock(2)` on it until its namespaces are gone. The kernel releases the lock when the
//! owner exits, however it exits, so "left by a killed run" means "its lock is not held", whatever
//! PID namespace the owner ran in: a process id means nothing across PID namespaces (a run in a
//! container sees other pids than the host, and the same number can be alive in one and dead in
//! the other), while the lock file is the same file for every process that sees `/run`. Names
//! without a lock file are from versions before the lock; for those alone the old rule applies
//! (the pid in the name no longer exists).

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{ErrorKind, Write};
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};

use crate::sys::{self, NetnsGuard};

/// Every namespace snooplab makes starts with this.
pub(crate) const PREFIX: &str = "snooplab-";
/// Where `ip netns` keeps the namespace handles.
pub const NETNS_DIR: &str = "/run/netns";
/// Where the runs' lock files are.
pub const LOCK_DIR: &str = "/run/snooplab";
/// The roles of a run's namespaces: the name is `<id>-<role>`, a role one of these or, for the
/// hosts of a scenario, `n<node index>` ([`host_role`]).
pub(crate) const ROLES: [&str; 2] = ["fh", "mh"];

/// The role of the namespace of host `name`, node `node` of its network: paper 000's `fh` and
/// `mh` keep their names (the paper-000 mode's namespaces are `<id>-fh` and `<id>-mh`), any other
/// host is `n<node>` (a scenario's names are the user's, and need not make good names here).
pub(crate) fn host_role(node: usize, name: &str) -> String {
    if ROLES.contains(&name) {
        name.to_string()
    } else {
        format!("n{node}")
    }
}

fn is_role(role: &str) -> bool {
    ROLES.contains(&role)
        || role
            .strip_prefix('n')
            .is_some_and(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether any namespace of run `id` exists.
fn namespaces_exist(id: &str) -> bool {
    let Ok(dir) = std::fs::read_dir(NETNS_DIR) else {
        return false;
    };
    dir.filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().into_string().ok())
        .any(|name| run_id(&name) == Some(id))
}

/// A network namespace owned by this process.
#[derive(Debug)]
pub struct Namespace {
    name: String,
}

/// Runs `ip` with `args`; the error quotes the command and what `ip` said. The child runs in a
/// process group of its own, so that a signal sent to ours (Ctrl-C in a terminal, `timeout`, a
/// hangup) reaches snooplab, which stops in order, and not `ip` halfway through a change.
pub fn ip(args: &[&str]) -> Result<(), String> {
    let out = Command::new("ip")
        .args(args)
        .stdin(Stdio::null())
        .process_group(0)
        .output()
        .map_err(|e| match e.kind() {
            ErrorKind::NotFound => {
                "cannot run `ip`: not found in PATH (install iproute2)".to_string()
            }
            _ => format!("cannot run `ip` (install iproute2): {e}"),
        })?;
    if !out.status.success() {
        let said = String::from_utf8_lossy(&out.stderr).trim().to_string();
        let why = if said.is_empty() {
            format!("{}", out.status)
        } else {
            said
        };
        return Err(format!("`ip {}` failed: {why}", args.join(" ")));
    }
    Ok(())
}

/// The lock of a run id, held from before its namespaces exist until after they are gone.
#[derive(Debug)]
pub struct RunLock {
    id: String,
    path: PathBuf,
    _file: File,
}

impl RunLock {
    /// A new run id of this process, `snooplab-<pid>-<n>`, and its lock, held. The id is the first
    /// `n` whose lock file this call creates itself (`O_EXCL`) and whose namespaces do not exist:
    /// a run of another PID namespace with the same pid cannot take the same names.
    pub fn claim() -> Result<RunLock, String> {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        std::fs::create_dir_all(LOCK_DIR).map_err(|e| format!("cannot create {LOCK_DIR}: {e}"))?;
        for _ in 0..10_000 {
            let id = format!(
                "{PREFIX}{}-{}",
                std::process::id(),
                NEXT.fetch_add(1, Ordering::Relaxed)
            );
            if namespaces_exist(&id) {
                continue;
            }
            let path = lock_path(&id);
            let mut file = match OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(f) => f,
                Err(e) if e.kind() == ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(format!("cannot create {}: {e}", path.display())),
            };
            if !sys::try_lock_exclusive(&file)
                .map_err(|e| format!("cannot lock {}: {e}", path.display()))?
                || !same_file(&file, &path)
            {
                // A sweeper found it between our create and our lock, took it for a leftover
                // and removed it: the id is not ours.
                continue;
            }
            // Who holds it, for a person looking (the lock decides, not this).
            let _ = writeln!(file, "{}", std::process::id());
            return Ok(RunLock {
                id,
                path,
                _file: file,
            });
        }
        Err(format!("no free run id in {LOCK_DIR}"))
    }

    pub fn id(&self) -> &str {
        &self.id
    }
}

impl Drop for RunLock {
    /// Removes the lock file if the run's namespaces are gone, then releases the lock (closing the
    /// file). If one is still there (its removal failed), the file stays: a lock file whose lock
    /// nobody holds is how a later run finds the leftover.
    fn drop(&mut self) {
        if !namespaces_exist(&self.id) {
            let _ = std::fs::remove_file(&self.path);
        }
        // self._file closes after this: the lock is released.
    }
}

/// Whether `file` is the file now at `path`.
fn same_file(file: &File, path: &Path) -> bool {
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.ino() == b.ino() && a.dev() == b.dev(),
        _ => false,
    }
}

fn lock_path(id: &str) -> PathBuf {
    Path::new(LOCK_DIR).join(format!("{id}.lock"))
}

impl Namespace {
    /// `ip netns add name`. If `ip` fails halfway (killed, say), whatever handle it made is
    /// removed before the error returns.
    pub fn create(name: String) -> Result<Namespace, String> {
        if let Err(e) = ip(&["netns", "add", &name]) {
            let _ = sys::remove_netns_handle(&Path::new(NETNS_DIR).join(&name));
            return Err(e);
        }
        let ns = Namespace { name };
        ns.ip(&["link", "set", "lo", "up"])?;
        Ok(ns)
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The handle `setns` takes.
    pub fn path(&self) -> PathBuf {
        PathBuf::from(NETNS_DIR).join(&self.name)
    }

    /// `ip -n name args...`
    pub fn ip(&self, args: &[&str]) -> Result<(), String> {
        let mut all = vec!["-n", self.name.as_str()];
        all.extend_from_slice(args);
        ip(&all)
    }

    /// Moves the calling thread into this namespace until the guard drops.
    pub fn enter(&self) -> Result<NetnsGuard, String> {
        NetnsGuard::enter(&self.path())
            .map_err(|e| format!("cannot enter network namespace {}: {e}", self.name))
    }

    /// Writes `value` to the sysctl `key` (dotted, as `net.ipv4.tcp_sack`) inside this namespace:
    /// `/proc/sys/net` shows the namespace of the thread that opens it.
    pub fn set_sysctl(&self, key: &str, value: &str) -> Result<(), String> {
        let _inside = self.enter()?;
        let path = PathBuf::from("/proc/sys").join(key.replace('.', "/"));
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .map_err(|e| format!("cannot set {key} in {}: {e}", self.name))?;
        f.write_all(value.as_bytes())
            .map_err(|e| format!("cannot set {key}={value} in {}: {e}", self.name))
    }

    /// Removes the namespace now (in this process: see [`sys::remove_netns_handle`]).
    pub fn remove(self) -> Result<(), String> {
        let r = sys::remove_netns_handle(&self.path())
            .map_err(|e| format!("cannot remove network namespace {}: {e}", self.name));
        std::mem::forget(self);
        r
    }
}

impl Drop for Namespace {
    fn drop(&mut self) {
        if let Err(e) = sys::remove_netns_handle(&self.path()) {
            eprintln!(
                "snooplab: cannot remove network namespace {}: {e}",
                self.name
            );
        }
    }
}

/// The run id of one of our namespace names (`<id>-<role>`).
fn run_id(name: &str) -> Option<&str> {
    if !name.starts_with(PREFIX) {
        return None;
    }
    let (id, role) = name.rsplit_once('-')?;
    is_role(role).then_some(id)
}

/// Our namespaces and lock files, by run id.
fn ours() -> BTreeMap<String, (Vec<String>, bool)> {
    let mut runs: BTreeMap<String, (Vec<String>, bool)> = BTreeMap::new();
    if let Ok(dir) = std::fs::read_dir(NETNS_DIR) {
        for name in dir
            .filter_map(|e| e.ok())
            .filter_map(|e| e.file_name().into_string().ok())
        {
            if let Some(id) = run_id(&name) {
                runs.entry(id.to_string()).or_default().0.push(name);
            }
        }
    }
    if let Ok(dir) = std::fs::read_dir(LOCK_DIR) {
        for name in dir
            .filter_map(|e| e.ok())
            .filter_map(|e| e.file_name().into_string().ok())
        {
            if let Some(id) = name.strip_suffix(".lock") {
                if id.starts_with(PREFIX) {
                    runs.entry(id.to_string()).or_default().1 = true;
                }
            }
        }
    }
    for (names, _) in runs.values_mut() {
        names.sort();
    }
    runs
}

/// The lock of a run whose owner is gone, taken by this process; `None` while the owner holds it,
/// or if the file went away or was replaced meanwhile (the inode check: a lock taken on a file
/// that is no longer at the path protects nothing).
fn take_stale_lock(id: &str) -> Option<File> {
    let path = lock_path(id);
    let file = File::open(&path).ok()?;
    if !sys::try_lock_exclusive(&file).ok()? {
        return None;
    }
    same_file(&file, &path).then_some(file)
}

/// Namespaces of ours whose owner is gone (a run that crashed or was killed): their run's lock is
/// not held, or, for names from before the lock, the process in the name does not exist.
pub fn leftovers() -> Vec<String> {
    let mut out = Vec::new();
    for (id, (names, has_lock)) in ours() {
        let stale = if has_lock {
            // Probe only: the lock is released again at once.
            take_stale_lock(&id).is_some()
        } else {
            owner_pid(&id).is_some_and(|pid| !sys::process_alive(pid))
        };
        if stale {
            out.extend(names);
        }
    }
    out
}

/// Removes the namespaces (and lock files) of runs whose owner is gone; returns the namespace
/// names removed. Each run's lock is held while its namespaces are removed, so two sweeping runs
/// never race on one.
pub fn sweep_leftovers() -> Result<Vec<String>, String> {
    let mut removed = Vec::new();
    for (id, (names, has_lock)) in ours() {
        let lock = if has_lock {
            match take_stale_lock(&id) {
                Some(f) => Some(f),
                None => continue,
            }
        } else if owner_pid(&id).is_some_and(|pid| !sys::process_alive(pid)) {
            None
        } else {
            continue;
        };
        for n in &names {
            sys::remove_netns_handle(&Path::new(NETNS_DIR).join(n)).map_err(|e| {
                format!("cannot remove network namespace {n} left by a killed run: {e}")
            })?;
        }
        if lock.is_some() {
            let _ = std::fs::remove_file(lock_path(&id));
        }
        removed.extend(names);
    }
    Ok(removed)
}

/// The process id in a name made by [`RunLock::claim`] (`snooplab-<pid>-<n>[-<role>]`).
pub(crate) fn owner_pid(name: &str) -> Option<u32> {
    name.strip_prefix(PREFIX)?.split('-').next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_into_owner_and_run_id() {
        assert_eq!(owner_pid("snooplab-1234-0-fh"), Some(1234));
        assert_eq!(owner_pid("snooplab-x-0-fh"), None);
        assert_eq!(owner_pid("other-1234-0-fh"), None);
        assert_eq!(run_id("snooplab-1234-0-fh"), Some("snooplab-1234-0"));
        assert_eq!(run_id("snooplab-1234-17-mh"), Some("snooplab-1234-17"));
        assert_eq!(run_id("snooplab-1234-0-xx"), None);
        assert_eq!(run_id("snooplab-1234-2-n17"), Some("snooplab-1234-2"));
        assert_eq!(run_id("snooplab-1234-2-n"), None);
        assert_eq!(host_role(3, "mh1"), "n3");
        assert_eq!(host_role(2, "mh"), "mh");
        assert_eq!(run_id("other-1-0-fh"), None);
    }
}
