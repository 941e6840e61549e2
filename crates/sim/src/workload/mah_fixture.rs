//! A small synthetic stand-in for Mah's six tables, for the tests: round numbers made up here,
//! shaped like his (whole counts from 1, sizes from 0 bytes, a think time with a tail past the
//! 600 s clamp), none of them his. Written as `.cdf` files and read back through
//! `MahTables::load`, so every test that draws Mah pages also goes through the loader.

use super::mah_tables::{MahTables, MAH_FILES};
use super::model::Spec;
use std::path::PathBuf;
use std::sync::OnceLock;

/// The fixture's tables, in `MAH_FILES`' order, as `.cdf` text. The primary and secondary
/// replies differ, so a test can tell which table a draw came from.
pub const FIXTURE: [&str; 6] = [
    // files per document
    "1 0.5\n2 0.7\n3 0.8\n5 0.9\n10 0.95\n40 1\n",
    // primary reply: two columns, with a comment and a blank line
    "# bytes probability\n0 0.01\n100 0.1\n1000 0.4\n\n4000 0.7\n20000 0.9\n100000 0.99\n1000000 1\n",
    // secondary reply: three columns, the middle one ignored
    "10 3 0.05\n300 40 0.3\n1500 80 0.6\n6000 120 0.85\n50000 200 0.97\n400000 10 1\n",
    // primary request
    "100 0.05\n200 0.4\n300 0.8\n600 0.95\n3000 1\n",
    // secondary request
    "120 0.1\n220 0.5\n320 0.9\n2000 1\n",
    // think time, seconds
    "1 0.05\n5 0.3\n20 0.6\n100 0.8\n600 0.9\n86400 1\n",
];

/// A fresh directory under the system's temporary one, for this process and `what`.
pub fn scratch_dir(what: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("snooplab-mah-{what}-{}", std::process::id()));
    // A leftover of an earlier run with the same process id is replaced.
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("the temporary directory is writable");
    dir
}

/// The fixture's tables, written to files and loaded once per test process.
pub fn fixture_tables() -> &'static MahTables {
    static TABLES: OnceLock<MahTables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let dir = scratch_dir("fixture");
        for (file, text) in MAH_FILES.into_iter().zip(FIXTURE) {
            std::fs::write(dir.join(file), text).expect("the temporary directory is writable");
        }
        let tables = MahTables::load(&dir).expect("the fixture is a set of CDFs");
        let _ = std::fs::remove_dir_all(&dir);
        tables
    })
}

/// Mah's spec drawn from the fixture.
pub fn fixture_spec() -> Spec {
    Spec::mah(fixture_tables())
}
