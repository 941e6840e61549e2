//! Which pages the study fetches (docs/web-workload.md, "The study"): Mah's model when the user
//! has his tables (`SNOOPLAB_MAH_CDF_DIR`), otherwise SURGE's, whose numbers could not be read in
//! its paper, labelled unverified on every table and leaving every claim "not checked". The
//! model's own gate, [`Model::require_verified`], decides which: a claim may hold or fail only
//! on a verified model's pages.
//!
//! Think time is set to 1 s for every page, the least a model's draw is clamped to
//! (`workload/page.rs`): page latency runs from a page's first request to its last byte, so the
//! user's reading time is not part of it, and no TCP state crosses a think time here: every
//! connection, persistent ones included, closes with its page (`nodes/browser.rs`), so Linux's
//! `tcp_slow_start_after_idle` (the window restarted after an idle RTO) has no connection to
//! act on. The model's think times (Mah's mean 98 s) would only stretch the simulated run.

use snooplab_sim::workload::{Dist, MahTables, Model, Param, Spec};

/// The pages' model and what may be said of results on it.
#[derive(Clone, Debug)]
pub struct Workload {
    pub spec: Spec,
    /// Every number of the model checked against its source ([`Model::require_verified`]).
    pub verified: bool,
    /// `mah` or `surge (unverified: ...)`, on every table.
    pub label: String,
}

/// The think time of the study's pages: the 1 s floor (above).
const THINK: Param = Param {
    dist: Dist::Constant(1.0),
    cap: 1.0,
    source: "the Web study: page latency needs no think time, and no connection outlives its page",
    checked: Some("a choice of the study, not a number of the model"),
};

impl Workload {
    /// Mah's pages if his tables are where `SNOOPLAB_MAH_CDF_DIR` says, else SURGE's.
    pub fn choose() -> Workload {
        match MahTables::from_env() {
            Ok(t) => Workload::of(Spec::mah(&t)),
            Err(_) => Workload::of(Spec::surge()),
        }
    }

    /// The study's workload of `spec`: its think time 0, its label from its model's check.
    pub fn of(mut spec: Spec) -> Workload {
        spec.think_s = THINK;
        let model = spec.model;
        let (verified, label) = match model.require_verified() {
            Ok(m) => (true, m.name().to_string()),
            Err(_) => (
                false,
                format!(
                    "{} (unverified: its {} not checked against its paper)",
                    model.name(),
                    model.unchecked().join(", ")
                ),
            ),
        };
        Workload {
            spec,
            verified,
            label,
        }
    }

    /// The model.
    pub fn model(&self) -> Model {
        self.spec.model
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use snooplab_sim::workload::page;

    #[test]
    fn surge_is_labelled_unverified_and_thinks_for_one_second() {
        let w = Workload::of(Spec::surge());
        assert!(!w.verified);
        assert!(w.label.starts_with("surge (unverified"), "{}", w.label);
        assert!(w.label.contains("document reply"), "{}", w.label);
        // the constant think time draws nothing: every other draw of a page is the model's own
        for i in 0..50 {
            let (ours, model) = (page(&w.spec, 3, i), page(&Spec::surge(), 3, i));
            assert_eq!(ours.objects, model.objects);
            assert_eq!(ours.think, snooplab_proto::time::SEC);
        }
    }
}
