//! Reading a text input the user names (a scenario file, a channel trace, a `ping` log) without
//! letting it hang or exhaust the tool: only a regular file, only up to a size, checked before
//! anything is read.

use std::path::Path;

/// Reads `path` as UTF-8 text, refusing what is not a regular file (a FIFO would block, a device
/// never end) and files over `max` bytes, before reading any of it. `what` names the input in the
/// messages ("scenario file", "channel trace").
pub fn read_text_file(path: &Path, what: &str, max: u64) -> Result<String, String> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let shown = path.display();
    let limit = if max.is_multiple_of(1 << 20) {
        format!("{max} ({} MiB)", max >> 20)
    } else {
        max.to_string()
    };
    // non-blocking, so opening a FIFO without a writer returns at once; the type is checked on the
    // opened file, so it is the file that will be read
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| format!("cannot read {what} {shown}: {e}"))?;
    let meta = file
        .metadata()
        .map_err(|e| format!("cannot read {what} {shown}: {e}"))?;
    if !meta.is_file() {
        return Err(format!(
            "{what} {shown} is not a regular file (it is {})",
            file_kind(&meta.file_type())
        ));
    }
    if meta.len() > max {
        return Err(format!(
            "{what} {shown} is {} bytes, more than the limit of {limit}",
            meta.len()
        ));
    }
    // a file that grows while being read still stops at the limit
    let mut bytes = Vec::new();
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {what} {shown}: {e}"))?;
    if bytes.len() as u64 > max {
        return Err(format!("{what} {shown} is more than the limit of {limit}"));
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "{what} {shown} is not UTF-8 text (byte {})",
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
