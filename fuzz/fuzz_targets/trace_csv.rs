//! The trace reader of `snooplab plot` (`TraceLog::read_csv`): the input, split at zero bytes, is
//! the directory's files (nodes.csv, segments.csv, acks.csv, cwnd.csv, bs_cache.csv,
//! suppressed_dupacks.csv, and handoffs.csv when there is a seventh part), written to a directory
//! in /dev/shm (memory) and read as `plot` reads them. Asserts no panic, and that every row read
//! names a node of nodes.csv.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use snooplab_sim::trace::{TraceLog, HANDOFFS_FILE, TRACE_FILES};

fn dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let base = if std::path::Path::new("/dev/shm").is_dir() {
            PathBuf::from("/dev/shm")
        } else {
            std::env::temp_dir()
        };
        let d = base.join(format!("snooplab-fuzz-trace-{}", std::process::id()));
        std::fs::create_dir_all(&d).expect("a scratch directory");
        d
    })
}

fuzz_target!(|data: &[u8]| {
    let d = dir();
    let names = [
        TRACE_FILES[5],
        TRACE_FILES[0],
        TRACE_FILES[1],
        TRACE_FILES[2],
        TRACE_FILES[3],
        TRACE_FILES[4],
        HANDOFFS_FILE,
    ];
    let mut parts = data.split(|&b| b == 0);
    for (i, name) in names.iter().enumerate() {
        let path = d.join(name);
        match parts.next() {
            Some(p) => std::fs::write(&path, p).expect("write a scratch file"),
            None if i == names.len() - 1 => {
                let _ = std::fs::remove_file(&path);
            }
            // a missing file: an empty one (which the reader refuses for want of a header)
            None => std::fs::write(&path, b"").expect("write a scratch file"),
        }
    }
    let Ok(t) = TraceLog::read_csv(d) else {
        return;
    };
    let n = t.nodes.len();
    assert!(t.segments.iter().all(|r| r.sender < n));
    assert!(t.acks.iter().all(|r| r.receiver < n));
    assert!(t.held.iter().all(|r| r.node < n));
    assert!(t
        .handoffs
        .iter()
        .all(|r| r.mobile < n && r.from < n && r.to < n));
    for f in 0..t.flows.len() {
        let _ = t.flow_name(f);
    }
});
