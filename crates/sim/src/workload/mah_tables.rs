//! Bruce Mah's empirical CDFs of HTTP traffic ("An Empirical Model of HTTP Network Traffic",
//! INFOCOM 1997, from packet traces at Berkeley), read at run time from a directory the user
//! provides, one `.cdf` file per table (`cdf.rs` reads and checks each).
//!
//! snooplab does not ship them: the copy we could read, GloMoSim 2.02's
//! `application/http_distribution.c` (which holds "all of the CDFs that Bruce Mah has created
//! from network traces"), is licensed for educational and non-commercial research use only,
//! and snooplab is MIT OR Apache-2.0. The user brings Mah's own files, or extracts them from
//! their own copy of that GloMoSim file with `scripts/mah-cdf-from-glomosim`. The directory is
//! `SNOOPLAB_MAH_CDF_DIR` unless a caller names another ([`MahTables::load`]).

use super::cdf::Cdf;
use std::ffi::OsStr;
use std::path::Path;

/// The environment variable naming the directory of Mah's `.cdf` files.
pub const MAH_CDF_DIR_VAR: &str = "SNOOPLAB_MAH_CDF_DIR";

/// Each table's file, as Mah named it (GloMoSim's comment above each of its tables:
/// "HttpFilesPerDocument.cc generated from HttpFilesPerDocument.cdf", and so on).
pub const FILES_PER_DOCUMENT_FILE: &str = "HttpFilesPerDocument.cdf";
pub const PRIMARY_REPLY_FILE: &str = "HttpPrimaryReply.cdf";
pub const SECONDARY_REPLY_FILE: &str = "HttpSecondaryReply.cdf";
pub const PRIMARY_REQUEST_FILE: &str = "HttpPrimaryRequest.cdf";
pub const SECONDARY_REQUEST_FILE: &str = "HttpSecondaryRequest.cdf";
pub const THINK_TIME_FILE: &str = "HttpThinkTime.cdf";

/// The files the model draws from, in `MahTables`' field order. (Mah's
/// `HttpConsecutiveDocs.cdf`, documents from one server before the user moves on, is not drawn:
/// pages here are not grouped by server.)
pub const MAH_FILES: [&str; 6] = [
    FILES_PER_DOCUMENT_FILE,
    PRIMARY_REPLY_FILE,
    SECONDARY_REPLY_FILE,
    PRIMARY_REQUEST_FILE,
    SECONDARY_REQUEST_FILE,
    THINK_TIME_FILE,
];

/// Mah's six tables the model draws from.
#[derive(Clone, Debug, PartialEq)]
pub struct MahTables {
    /// Files per document, the document itself included (GloMoSim 2.02's client counts the
    /// document among them: `pageItems--` after the primary request, `http_client.pc`).
    pub files_per_document: Cdf,
    /// The reply to a document's (primary) request, bytes.
    pub primary_reply_bytes: Cdf,
    /// The reply to an embedded file's (secondary) request, bytes.
    pub secondary_reply_bytes: Cdf,
    /// A document's (primary) request, bytes.
    pub primary_request_bytes: Cdf,
    /// An embedded file's (secondary) request, bytes.
    pub secondary_request_bytes: Cdf,
    /// The user's think time between documents, seconds.
    pub think_time_s: Cdf,
}

impl MahTables {
    /// The six tables from `dir`, or one line naming the first file (and line) at fault.
    pub fn load(dir: &Path) -> Result<MahTables, String> {
        if !dir.is_dir() {
            return Err(format!(
                "{} is not a directory of Mah's CDF tables ({})",
                dir.display(),
                where_to_get_them()
            ));
        }
        let read = |file: &str| {
            let path = dir.join(file);
            if !path.exists() {
                return Err(format!(
                    "{}: missing, one of Mah's CDF tables ({})",
                    path.display(),
                    where_to_get_them()
                ));
            }
            Cdf::read(&path)
        };
        Ok(MahTables {
            files_per_document: read(FILES_PER_DOCUMENT_FILE)?,
            primary_reply_bytes: read(PRIMARY_REPLY_FILE)?,
            secondary_reply_bytes: read(SECONDARY_REPLY_FILE)?,
            primary_request_bytes: read(PRIMARY_REQUEST_FILE)?,
            secondary_request_bytes: read(SECONDARY_REQUEST_FILE)?,
            think_time_s: read(THINK_TIME_FILE)?,
        })
    }

    /// The tables from the directory `SNOOPLAB_MAH_CDF_DIR` names, or the one-line refusal
    /// saying where to get them and why they are not shipped.
    pub fn from_env() -> Result<MahTables, String> {
        MahTables::from_dir_setting(std::env::var_os(MAH_CDF_DIR_VAR).as_deref())
    }

    /// The tables from the directory a setting names (the variable's value, if set), or the
    /// one-line refusal where it names none.
    pub fn from_dir_setting(dir: Option<&OsStr>) -> Result<MahTables, String> {
        match dir {
            Some(dir) if !dir.is_empty() => MahTables::load(Path::new(dir)),
            _ => Err(format!(
                "workload model 'mah' needs Bruce Mah's CDF tables, which snooplab does not ship: {}",
                where_to_get_them()
            )),
        }
    }
}

/// Where the tables come from and why they are not here, in one clause.
pub fn where_to_get_them() -> String {
    format!(
        "set {MAH_CDF_DIR_VAR} to a directory holding {}, one 'value probability' per line: Mah's \
         own files, or extracted from your copy of GloMoSim 2.02's \
         application/http_distribution.c by scripts/mah-cdf-from-glomosim; they are not shipped \
         because that copy is licensed for educational and non-commercial use only and \
         snooplab is MIT OR Apache-2.0 (docs/web-workload.md)",
        MAH_FILES.join(", ")
    )
}
