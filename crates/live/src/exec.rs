//! `snooplab live --exec HOST=COMMAND` (docs/live.md, "Your own programs: --exec"): the user's
//! programs (iperf3, `python3 -m http.server`, curl) run inside the kernel hosts' namespaces in
//! place of snooplab's sender and receiver, so any program's traffic crosses the engine's network.
//!
//! Each command runs as `ip netns exec NS sh -c COMMAND` in a process group of its own: a signal
//! meant for snooplab (Ctrl-C, `timeout`) does not reach it half-way, and stopping it stops
//! everything it started (the whole group is signalled). Its output is captured, bounded, and
//! printed after the run.

use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::hosts::HostNet;

/// The most `--exec` commands one run starts: each is a process group, two pipes and three
/// threads, and a run is a handful of programs, not a fleet.
pub(crate) const MAX_EXEC: usize = 16;

/// The pause after starting each command before the next, so that a server listens before its
/// client connects (iperf3 and `python3 -m http.server` bind well within it).
pub(crate) const SETTLE: Duration = Duration::from_millis(300);

/// The most output kept of each stream (stdout, stderr) of each command; the rest is read and
/// dropped, so that a chatty program neither blocks on a full pipe nor fills the memory.
pub const OUTPUT_LIMIT: usize = 1 << 20;

/// How long a command may take to end after SIGTERM before its group gets SIGKILL.
pub(crate) const GRACE: Duration = Duration::from_secs(2);

/// After the last command exits, the network carries packets for at most this long more, so that
/// the others can close their connections and exit by themselves (an `iperf3 -s -1` whose client
/// has just finished waits for the last ACK of its close); those still running then are stopped.
pub(crate) const LINGER: Duration = Duration::from_secs(1);

/// One `--exec HOST=COMMAND`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecSpec {
    pub host: String,
    pub command: String,
}

impl ExecSpec {
    /// Parses `HOST=COMMAND` (the first `=` splits; the command may hold more).
    pub fn parse(text: &str) -> Result<ExecSpec, String> {
        let (host, command) = text.split_once('=').ok_or_else(|| {
            format!("--exec '{text}': expected HOST=COMMAND (e.g. fh='iperf3 -s -1')")
        })?;
        let host = host.trim();
        if host.is_empty() {
            return Err(format!(
                "--exec '{text}': the host name before '=' is empty"
            ));
        }
        if command.trim().is_empty() {
            return Err(format!("--exec '{text}': the command after '=' is empty"));
        }
        Ok(ExecSpec {
            host: host.to_string(),
            command: command.to_string(),
        })
    }
}

/// Checks the commands against the run's kernel hosts (`known`, their scenario names): at most
/// [`MAX_EXEC`], each on a host the run creates.
pub fn check(specs: &[ExecSpec], known: &[String]) -> Result<(), String> {
    if specs.len() > MAX_EXEC {
        return Err(format!(
            "{} --exec commands: at most {MAX_EXEC} per run",
            specs.len()
        ));
    }
    for s in specs {
        if !known.contains(&s.host) {
            return Err(format!(
                "--exec {}=...: no kernel host '{}' in this network (known: {})",
                s.host,
                s.host,
                known.join(", ")
            ));
        }
    }
    Ok(())
}

/// What became of one command, for the report.
#[derive(Clone, Debug, Serialize)]
pub struct ExecReport {
    pub host: String,
    pub command: String,
    /// The exit code; `None` when a signal ended it (see `signal`) or it never ended.
    pub status: Option<i32>,
    /// The signal that ended it, if one did (snooplab's SIGTERM/SIGKILL when it was stopped).
    pub signal: Option<i32>,
    /// snooplab stopped it (it had not exited when the last command did, or the run failed).
    pub stopped: bool,
    #[serde(skip)]
    pub stdout: Vec<u8>,
    #[serde(skip)]
    pub stderr: Vec<u8>,
    pub stdout_truncated: bool,
    pub stderr_truncated: bool,
}

impl ExecReport {
    /// It exited by itself with status 0.
    pub fn success(&self) -> bool {
        self.status == Some(0) && !self.stopped
    }

    /// How it ended, in words.
    pub fn status_text(&self) -> String {
        let how = match (self.status, self.signal) {
            (Some(c), _) => format!("exit status {c}"),
            (None, Some(s)) => format!("killed by {}", crate::sys::signal_name(s)),
            (None, None) => "did not end".to_string(),
        };
        if self.stopped {
            format!("{how} (stopped by snooplab)")
        } else {
            how
        }
    }
}

/// A stream's bytes, at most [`OUTPUT_LIMIT`], and whether more came.
type Captured = Arc<Mutex<(Vec<u8>, bool)>>;

/// One started command.
struct Proc {
    spec: ExecSpec,
    /// Its process id, which is also its process group's.
    pid: i32,
    status: Arc<Mutex<Option<ExitStatus>>>,
    exited: Arc<AtomicBool>,
    stopped: bool,
    threads: Vec<JoinHandle<()>>,
    out: Captured,
    err: Captured,
}

/// The commands of a run, started in order.
pub struct Running {
    procs: Vec<Proc>,
    /// When [`Running::run_over`] first saw the last command exited.
    last_seen_exited: std::cell::Cell<Option<Instant>>,
}

impl Running {
    /// Starts each command in its host's namespace, in order, [`SETTLE`] apart. On an error,
    /// those already started are stopped (by drop).
    pub fn start(specs: &[ExecSpec], hostnet: &HostNet) -> Result<Running, String> {
        // Orphans of a command's shell (its programs, once SIGTERM ended the shell) come to
        // snooplab rather than to init, so that they are reaped (`reap_group`): init in a
        // container may reap nothing.
        crate::sys::become_child_subreaper();
        let mut running = Running {
            procs: Vec::new(),
            last_seen_exited: std::cell::Cell::new(None),
        };
        for (i, s) in specs.iter().enumerate() {
            if i > 0 {
                std::thread::sleep(SETTLE);
            }
            // a stop signal while the commands start: start no more (those started are stopped)
            if crate::sys::stop_requested() {
                return Err("interrupted while the --exec commands started".into());
            }
            let host = hostnet
                .hosts
                .iter()
                .find(|h| h.name == s.host)
                .ok_or_else(|| format!("--exec: no kernel host '{}'", s.host))?;
            let child = Command::new("ip")
                .args(["netns", "exec", host.ns.name(), "sh", "-c", &s.command])
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .process_group(0)
                .spawn()
                .map_err(|e| format!("--exec {}: cannot run `ip netns exec`: {e}", s.host))?;
            running.procs.push(watch(s.clone(), child));
        }
        // the last one started after its predecessors settled; it needs none
        Ok(running)
    }

    /// The last command has exited (the run is over).
    pub(crate) fn last_exited(&self) -> bool {
        self.procs
            .last()
            .is_none_or(|p| p.exited.load(Ordering::SeqCst))
    }

    /// The run is over: the last command has exited, and the others have too or [`LINGER`] has
    /// passed since that was first seen.
    pub(crate) fn run_over(&self) -> bool {
        if !self.last_exited() {
            return false;
        }
        if self.procs.iter().all(|p| p.exited.load(Ordering::SeqCst)) {
            return true;
        }
        let seen = self.last_seen_exited.get().unwrap_or_else(|| {
            let now = Instant::now();
            self.last_seen_exited.set(Some(now));
            now
        });
        seen.elapsed() >= LINGER
    }

    /// Stops every command still running (SIGTERM to its group, SIGKILL after [`GRACE`]), and
    /// anything an exited one left in its group, then reports each.
    pub fn finish(mut self) -> Vec<ExecReport> {
        self.stop_all();
        std::mem::take(&mut self.procs)
            .into_iter()
            .map(|p| {
                join_bounded(p.threads);
                reap_group(p.pid);
                let status = p.status.lock().map(|s| *s).unwrap_or(None);
                let (stdout, stdout_truncated) = take(&p.out);
                let (stderr, stderr_truncated) = take(&p.err);
                ExecReport {
                    host: p.spec.host,
                    command: p.spec.command,
                    status: status.and_then(|s| s.code()),
                    signal: status.and_then(|s| s.signal()),
                    stopped: p.stopped,
                    stdout,
                    stderr,
                    stdout_truncated,
                    stderr_truncated,
                }
            })
            .collect()
    }

    fn stop_all(&mut self) {
        for p in &mut self.procs {
            if !p.exited.load(Ordering::SeqCst) {
                p.stopped = true;
            }
            // the group, even when its leader exited: a program it left behind goes too
            crate::sys::signal_group(p.pid, libc::SIGTERM);
        }
        let deadline = Instant::now() + GRACE;
        while Instant::now() < deadline
            && !self.procs.iter().all(|p| p.exited.load(Ordering::SeqCst))
        {
            std::thread::sleep(Duration::from_millis(20));
        }
        for p in &self.procs {
            crate::sys::signal_group(p.pid, libc::SIGKILL);
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        // an error path: nothing of the commands outlives the run
        self.stop_all();
        for p in &self.procs {
            reap_group(p.pid);
        }
    }
}

/// Joins the waiter and the readers. A reader waits at most [`GRACE`] more: a program that left
/// the group (a daemon) may hold the pipe open for ever, and its output is then left behind.
fn join_bounded(threads: Vec<JoinHandle<()>>) {
    let deadline = Instant::now() + GRACE;
    for t in threads {
        while !t.is_finished() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        if t.is_finished() {
            let _ = t.join();
        }
    }
}

/// Reaps what is left of a process group whose leader was reaped (see the subreaper in
/// [`Running::start`]), waiting at most [`GRACE`] for the SIGKILLed to end.
fn reap_group(pgid: i32) {
    let deadline = Instant::now() + GRACE;
    while pgid > 0 && Instant::now() < deadline {
        match crate::sys::reap_group_member(pgid) {
            Some(false) => std::thread::sleep(Duration::from_millis(10)),
            Some(true) => {}
            None => return, // none left
        }
    }
}

fn take(c: &Captured) -> (Vec<u8>, bool) {
    match c.lock() {
        Ok(mut g) => (std::mem::take(&mut g.0), g.1),
        Err(_) => (Vec::new(), false),
    }
}

/// Threads that read the child's two streams and wait for its end.
fn watch(spec: ExecSpec, mut child: Child) -> Proc {
    let pid = child.id() as i32;
    let out: Captured = Arc::default();
    let err: Captured = Arc::default();
    let mut threads = Vec::new();
    if let Some(s) = child.stdout.take() {
        let c = out.clone();
        threads.push(std::thread::spawn(move || drain(s, &c)));
    }
    if let Some(s) = child.stderr.take() {
        let c = err.clone();
        threads.push(std::thread::spawn(move || drain(s, &c)));
    }
    let status: Arc<Mutex<Option<ExitStatus>>> = Arc::default();
    let exited = Arc::new(AtomicBool::new(false));
    let (st, ex) = (status.clone(), exited.clone());
    threads.push(std::thread::spawn(move || {
        let s = child.wait().ok();
        if let Ok(mut g) = st.lock() {
            *g = s;
        }
        ex.store(true, Ordering::SeqCst);
    }));
    Proc {
        spec,
        pid,
        status,
        exited,
        stopped: false,
        threads,
        out,
        err,
    }
}

/// Reads `r` to its end, keeping the first [`OUTPUT_LIMIT`] bytes.
fn drain(mut r: impl Read, into: &Captured) {
    let mut buf = [0u8; 8192];
    loop {
        let n = match r.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        if let Ok(mut g) = into.lock() {
            let room = OUTPUT_LIMIT.saturating_sub(g.0.len());
            g.0.extend_from_slice(&buf[..n.min(room)]);
            if n > room {
                g.1 = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_host_and_command() {
        let s = ExecSpec::parse("fh=iperf3 -s -1 --logfile=x").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s.host, "fh");
        assert_eq!(s.command, "iperf3 -s -1 --logfile=x");
        assert!(ExecSpec::parse("fh").unwrap_err().contains("HOST=COMMAND"));
        assert!(ExecSpec::parse("fh=  ").unwrap_err().contains("empty"));
        assert!(ExecSpec::parse("=ls").unwrap_err().contains("empty"));
    }

    #[test]
    fn unknown_hosts_and_too_many_commands_are_refused() {
        let known = vec!["fh".to_string(), "mh".to_string()];
        let spec = |h: &str| ExecSpec {
            host: h.into(),
            command: "true".into(),
        };
        assert!(check(&[spec("fh"), spec("mh")], &known).is_ok());
        let e = check(&[spec("bs")], &known).unwrap_err();
        assert!(e.contains("known: fh, mh"), "{e}");
        let many: Vec<ExecSpec> = (0..=MAX_EXEC).map(|_| spec("fh")).collect();
        assert!(check(&many, &known).is_err());
    }
}
