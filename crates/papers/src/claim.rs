//! A paper's claim as the report holds it: what the paper says, what we measured, and whether
//! the measurement supports it.

use serde::Serialize;

/// One of a paper's claims, checked as a measured ratio.
#[derive(Clone, Debug, Serialize)]
pub struct Claim {
    pub id: &'static str,
    /// What the paper says.
    pub paper: &'static str,
    /// What we measured, in words and numbers.
    pub measured: String,
    /// Whether the measurement supports the claim (None if the runs needed were not made).
    pub holds: Option<bool>,
}
