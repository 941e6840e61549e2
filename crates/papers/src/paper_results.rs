//! The papers' numbers, built in.

/// The papers' numbers, transcribed from the papers into `data/paper-results.toml` and built into
/// the binary so a reproduction needs no file at run time. Each paper's module reads its table.
pub(crate) const PAPER_RESULTS: &str = include_str!("../../../data/paper-results.toml");
