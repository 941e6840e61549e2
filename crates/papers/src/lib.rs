//! The papers' experiments, one directory per paper: its testbed (`testbed.rs` where it has one of
//! its own; paper 000's is the simulator's default network), the runs it makes, the paper's numbers
//! and its claims checked as measured ratios. `snooplab reproduce` and the Python package plan a
//! paper's runs here, run them (`snooplab-lab`) and evaluate the results here into a report.
//! [`PAPERS`] lists the papers that are built.

pub mod claim;
pub mod document;
pub mod kernel_check;
pub mod paper000;
pub mod paper001;
pub mod paper002;
pub mod paper004;
mod paper_results;
pub mod readings;
pub mod select;
pub mod snoop_today;
pub mod study;
pub mod units;
pub mod web;

pub use claim::Claim;

/// A paper `reproduce` can run, as the registry holds it.
pub type Paper = &'static dyn study::Study;

/// Every paper `reproduce` runs, in the order it runs them. A new paper or a study of our own is a
/// directory beside these and one line here.
pub static PAPERS: &[Paper] = &[
    &paper000::Reproduction,
    &paper001::Reproduction,
    &paper002::Reproduction,
    &paper004::Reproduction,
    &kernel_check::KernelCheck,
    &snoop_today::SnoopToday,
    &web::WebStudy,
];

/// The paper named `s`: its exact name (`paper000`, or a study's own name), or for a paper its
/// number (`000`, `0`, `paper0`).
pub fn find(s: &str) -> Option<Paper> {
    let t = s.trim().to_ascii_lowercase();
    if let Some(&p) = PAPERS.iter().find(|p| p.name() == t) {
        return Some(p);
    }
    let digits = t.strip_prefix("paper").unwrap_or(&t);
    let n: u32 = digits.parse().ok()?;
    PAPERS.iter().copied().find(|p| {
        p.name()
            .strip_prefix("paper")
            .is_some_and(|d| d.parse() == Ok(n))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn papers_parse_by_name_or_number() {
        let name = |w: &str| find(w).map(|p| p.name());
        assert_eq!(name("paper000"), Some("paper000"));
        assert_eq!(name("000"), Some("paper000"));
        assert_eq!(name("Paper0"), Some("paper000"));
        assert_eq!(name("paper001"), Some("paper001"));
        assert_eq!(name("paper003"), None);
        assert_eq!(name("4"), Some("paper004"));
        assert_eq!(name("table3"), None);
    }

    #[test]
    fn every_paper_has_its_own_name() {
        let mut names: Vec<&str> = PAPERS.iter().map(|p| p.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), PAPERS.len());
        assert!(PAPERS.iter().all(|p| find(p.name()).is_some()));
    }
}
