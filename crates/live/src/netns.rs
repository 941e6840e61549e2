//! Network namespaces the live mode makes for itself (DESIGN section 7): created with `ip netns add`
//! under a name that carries the owning process id, removed when dropped, and swept up by a later run
//! if the owner died without removing them.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};

use crate::sys::{self, NetnsGuard};

/// Every namespace snooplab makes starts with this.
pub const PREFIX: &str = "snooplab-";

/// A network namespace owned by this process.
#[derive(Debug)]
pub struct Namespace {
    name: String,
}

/// Runs `ip` with `args`; the error quotes the command and what `ip` said.
pub fn ip(args: &[&str]) -> Result<(), String> {
    let out = Command::new("ip")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run `ip` (install iproute2): {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "`ip {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(())
}

/// A name for this process's next pair of namespaces: `snooplab-<pid>-<n>`.
pub fn unique_run_id() -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    format!(
        "{PREFIX}{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

impl Namespace {
    /// `ip netns add name`.
    pub fn create(name: String) -> Result<Namespace, String> {
        ip(&["netns", "add", &name])?;
        let ns = Namespace { name };
        ns.ip(&["link", "set", "lo", "up"])?;
        Ok(ns)
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The handle `setns` takes.
    pub fn path(&self) -> PathBuf {
        PathBuf::from("/run/netns").join(&self.name)
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

    /// Reads the sysctl `key` inside this namespace.
    pub fn sysctl(&self, key: &str) -> Result<String, String> {
        let _inside = self.enter()?;
        let path = PathBuf::from("/proc/sys").join(key.replace('.', "/"));
        std::fs::read_to_string(&path)
            .map(|s| s.trim().to_string())
            .map_err(|e| format!("cannot read {key} in {}: {e}", self.name))
    }
}

impl Drop for Namespace {
    fn drop(&mut self) {
        if let Err(e) = ip(&["netns", "del", &self.name]) {
            eprintln!("snooplab: {e}");
        }
    }
}

/// Namespaces of ours whose owning process is gone (a run that crashed or was killed).
pub fn leftovers() -> Vec<String> {
    let Ok(dir) = std::fs::read_dir("/run/netns") else {
        return Vec::new();
    };
    let mut names: Vec<String> = dir
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| owner_pid(n).is_some_and(|pid| !sys::process_alive(pid)))
        .collect();
    names.sort();
    names
}

/// Removes [`leftovers`]; returns the names removed.
pub fn sweep_leftovers() -> Result<Vec<String>, String> {
    let names = leftovers();
    for n in &names {
        ip(&["netns", "del", n])?;
    }
    Ok(names)
}

/// The process id in a name made by [`unique_run_id`] (`snooplab-<pid>-<n>-<role>`).
pub fn owner_pid(name: &str) -> Option<u32> {
    name.strip_prefix(PREFIX)?.split('-').next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owner_pid_reads_our_names_only() {
        assert_eq!(owner_pid("snooplab-1234-0-fh"), Some(1234));
        assert_eq!(owner_pid("snooplab-x-0-fh"), None);
        assert_eq!(owner_pid("other-1234-0-fh"), None);
        let id = unique_run_id();
        assert_eq!(owner_pid(&format!("{id}-mh")), Some(std::process::id()));
        assert_ne!(unique_run_id(), id);
    }
}
