//! Web workloads (issue 53, item 2; docs/web-workload.md): pages of a document and its embedded
//! objects with heavy-tailed sizes and think times, from Mah's empirical CDFs (read at run time
//! from the user's copy, `mah_tables.rs`, each checked by `cdf.rs`) or SURGE's table
//! (unverified) (`model.rs`, each number with its source), drawn with portable code
//! (`sample.rs`) from a seed (`page.rs`), and the plan of a page's transfers under HTTP/1.0 or
//! HTTP/1.1 (`plan.rs`).
//!
//! In `sim` because both clocks read it: `live` depends on `sim`, not on `papers`, and `proto`
//! draws no random numbers. The request/response application that carries a plan over the TCP
//! is `proto/src/app/`; a scenario's flow carries pages with it (`flow_workload.rs`), fetched by
//! a host's browser (`nodes/browser.rs`).

pub mod cdf;
pub mod flow_workload;
pub mod mah_tables;
pub mod model;
pub mod page;
pub mod plan;
pub mod sample;

#[cfg(test)]
mod mah_fixture;
#[cfg(test)]
mod mah_tests;
#[cfg(test)]
mod tests;

pub use cdf::Cdf;
pub use flow_workload::{
    FlowWorkload, PageSource, PagesSpec, MAX_OBJECTS_PER_RUN, MAX_OPEN_PER_HOST,
};
pub use mah_tables::{MahTables, MAH_CDF_DIR_VAR};
pub use model::{Model, Param, Spec, MODEL_NAMES};
pub use page::{page, Object, Page, Workload, MAX_PAGES};
pub use plan::{plan, After, Http, PagePlan, Transfer};
pub use sample::Dist;
