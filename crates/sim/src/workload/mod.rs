//! Web workloads (issue 53, item 2; docs/web-workload.md): pages of a document and its embedded
//! objects with heavy-tailed sizes and think times, from SURGE or Mah's model (`model.rs`, each
//! number with its source), drawn with portable code (`sample.rs`) from a seed (`page.rs`), and
//! the plan of a page's transfers under HTTP/1.0 or HTTP/1.1 (`plan.rs`).
//!
//! In `sim` because both clocks read it: `live` depends on `sim`, not on `papers`, and `proto`
//! draws no random numbers. Nothing here is wired to a host yet: the request/response
//! application over the TCP is the next step.

pub mod model;
pub mod page;
pub mod plan;
pub mod sample;

#[cfg(test)]
mod tests;

pub use model::{Model, Param, Spec, MODEL_NAMES};
pub use page::{page, Object, Page, Workload, MAX_PAGES};
pub use plan::{plan, After, Http, PagePlan, Transfer};
pub use sample::Dist;
