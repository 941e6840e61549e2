//! Runs that are one run, or start as one, made once: the sharing of runs behind one door. The
//! loop knows only [`Watch`] (where a run that others ride must stop); everything else is here.
//!
//! From the bottom: `change.rs` (what a twin changes), `fork.rs` (a run copied, and where two
//! runs part), `line.rs` (a group of runs ridden as one), `family.rs` (the grouping of a sweep's
//! jobs into families and twins, and running a family).

mod change;
mod family;
mod fork;
mod line;

pub use change::Change;
pub use family::{families, run_family, Family, Twin};
pub use line::SharedRuns;
pub(in crate::run) use line::Watch;
pub use line::{run_sharing_start, Rider};
