//! Running the binary with a guard against hangs.

use std::io::Read;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Only a guard against a hang, so that a regression fails instead of blocking the suite; far
/// longer than any of these commands takes, and nothing is asserted about the time.
const HANG_GUARD: Duration = Duration::from_secs(300);

/// Runs the binary with stdout and stderr piped (so stderr is not a terminal), killing it if it
/// has not ended within [`HANG_GUARD`].
pub fn snooplab<S: AsRef<std::ffi::OsStr> + std::fmt::Debug>(args: &[S]) -> Output {
    snooplab_in(None, args)
}

/// [`snooplab`] in the directory `dir` (`None`: the test's own, the package's directory).
pub fn snooplab_in<S: AsRef<std::ffi::OsStr> + std::fmt::Debug>(
    dir: Option<&std::path::Path>,
    args: &[S],
) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_snooplab"));
    if let Some(d) = dir {
        cmd.current_dir(d);
    }
    cmd.args(args);
    guarded(cmd, args)
}

/// [`snooplab`] with its address space limited to `kib` KiB (`ulimit -v`): an input that would
/// make it hold unbounded memory ends it with an allocation failure (a non-zero exit a test sees)
/// instead of taking the machine's memory first. The outcome is what a test asserts, never time.
#[allow(dead_code)]
pub fn snooplab_within<S: AsRef<std::ffi::OsStr> + std::fmt::Debug>(
    kib: u64,
    args: &[S],
) -> Output {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg("ulimit -v \"$1\" && shift && exec \"$@\"")
        .arg("sh")
        .arg(kib.to_string())
        .arg(env!("CARGO_BIN_EXE_snooplab"))
        .args(args);
    guarded(cmd, args)
}

/// Runs `cmd` (the binary with `args`, for messages) under the hang guard.
fn guarded<S: std::fmt::Debug>(mut cmd: Command, args: &[S]) -> Output {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the snooplab binary runs");
    // drain both pipes on threads, so a chatty child cannot block on a full pipe
    let mut out = child.stdout.take().expect("stdout piped");
    let mut err = child.stderr.take().expect("stderr piped");
    let out_t = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = out.read_to_end(&mut b);
        b
    });
    let err_t = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = err.read_to_end(&mut b);
        b
    });
    let started = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if started.elapsed() > HANG_GUARD {
            let _ = child.kill();
            let _ = child.wait();
            panic!("snooplab {args:?} did not end (killed)");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: out_t.join().expect("stdout reader"),
        stderr: err_t.join().expect("stderr reader"),
    }
}
