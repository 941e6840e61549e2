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
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let shown = path.display();
    // non-blocking, so opening a FIFO without a writer returns at once; the type is checked on the
    // opened file, so it is the file that will be read
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| format!("cannot read scenario file {shown}: {e}"))?;
    let meta = file
        .metadata()
        .map_err(|e| format!("cannot read scenario file {shown}: {e}"))?;
    if !meta.is_file() {
        return Err(format!(
            "scenario file {shown} is not a regular file (it is {})",
            file_kind(&meta.file_type())
        ));
    }
    if meta.len() > MAX_SCENARIO_BYTES {
        return Err(format!(
            "scenario file {shown} is {} bytes, more than the limit of {MAX_SCENARIO_BYTES} (1 MiB)",
            meta.len()
        ));
    }
    // a file that grows while being read still stops at the limit
    let mut bytes = Vec::new();
    file.take(MAX_SCENARIO_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read scenario file {shown}: {e}"))?;
    if bytes.len() as u64 > MAX_SCENARIO_BYTES {
        return Err(format!(
            "scenario file {shown} is more than the limit of {MAX_SCENARIO_BYTES} bytes (1 MiB)"
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "scenario file {shown} is not UTF-8 text (byte {})",
            e.utf8_error().valid_up_to()
        )
    })
}

/// What a file that is not a regular file is, in words.
fn file_kind(t: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "a special file"
    }
}
