//! One switch for the tests: `mah_tables` is set when `SNOOPLAB_MAH_CDF_DIR` names a directory
//! of Bruce Mah's CDF tables at build time, so the test that checks the real tables' medians
//! and means is built then, and not otherwise (src/workload/mah_tests.rs says why; a warning on
//! every build would be noise for everyone who builds snooplab).
//! snooplab does not ship the tables (docs/web-workload.md).

fn main() {
    println!("cargo::rustc-check-cfg=cfg(mah_tables)");
    println!("cargo::rerun-if-env-changed=SNOOPLAB_MAH_CDF_DIR");
    if std::env::var_os("SNOOPLAB_MAH_CDF_DIR").is_some_and(|dir| !dir.is_empty()) {
        println!("cargo::rustc-cfg=mah_tables");
    }
}
