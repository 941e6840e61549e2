//! What the live tests share (`live_cli.rs`, `live_results.rs`): the binary run to its end, which
//! a live run's own `--max-time` bounds, and a scratch directory's path.

use std::path::PathBuf;
use std::process::{Command, Output};

/// Runs the binary with `args` and collects its output.
pub fn output(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_snooplab"))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("the snooplab binary runs: {e}"))
}

/// A path in the temporary directory for the test `name` of this process, removed if it exists.
pub fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("snooplab-live-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}
