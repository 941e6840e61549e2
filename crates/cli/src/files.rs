//! Writing results to disk, with errors that name the path.

use std::path::Path;

/// Creates `dir` and its parents.
pub fn create_dir(dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("cannot create directory {}: {e}", dir.display()))
}

/// Writes `contents` to `path`.
pub fn write_file(path: &Path, contents: impl AsRef<[u8]>) -> Result<(), String> {
    std::fs::write(path, contents).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The largest scenario file read (documented in `run --help` and docs/outputs.md): real ones are a
/// few kilobytes, and reading a device such as /dev/zero whole would exhaust memory.
pub const MAX_SCENARIO_BYTES: u64 = 1 << 20;

/// Reads a scenario file, refusing what is not a regular file (a FIFO would block, a device never
/// end) and files over [`MAX_SCENARIO_BYTES`], before reading any of it.
pub fn read_scenario(path: &Path) -> Result<String, String> {
    snooplab_sim::textfile::read_text_file(path, "scenario file", MAX_SCENARIO_BYTES)
}
