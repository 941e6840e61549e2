//! Support shared by the integration tests: running the binary (`guarded.rs`), what it wrote as
//! text, the one-line refusal every bad input ends in, and scratch directories; the property
//! tests' argument vectors (`argv.rs`); the live tests' runs (`live.rs`). Each test file uses part of it.
#![allow(dead_code)]

pub mod argv;
pub mod guarded;
pub mod live;

use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Runs the binary with `args` under the hang guard ([`guarded::snooplab`]).
pub fn snooplab(args: &[&str]) -> Output {
    guarded::snooplab(args)
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Exit code 2 and exactly `line` on stderr, as one `error:` line, and nothing on stdout.
pub fn assert_refused_with(o: &Output, line: &str) {
    assert_eq!(stderr(o), format!("error: {line}\n"));
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stdout(o), "");
}

/// Scratch directories made by this test process so far: each one's number.
static SCRATCH_DIRS: AtomicUsize = AtomicUsize::new(0);

/// A test's own scratch directory, empty when made and removed when dropped. Its name holds the
/// process id and a number no other scratch directory of the process has, so no two tests (run on
/// threads of one process, or by two processes) ever share one, whatever `label` they give: two
/// tests that once shared a name raced on its files.
pub struct Scratch(PathBuf);

impl Scratch {
    pub fn new(label: &str) -> Scratch {
        let n = SCRATCH_DIRS.fetch_add(1, Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("snooplab-test-{}-{n}-{label}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)
            .unwrap_or_else(|e| panic!("scratch dir {}: {e}", dir.display()));
        Scratch(dir)
    }
}

impl std::ops::Deref for Scratch {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// [`Scratch::new`].
pub fn scratch(label: &str) -> Scratch {
    Scratch::new(label)
}
