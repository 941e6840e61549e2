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
