//! The papers' experiments, one directory per paper: its testbed (`testbed.rs` where it has one of
//! its own; paper 000's is the simulator's default network), the runs it makes, the paper's numbers
//! and its claims checked as measured ratios. `snooplab reproduce` and the Python package plan a
//! paper's runs here, run them (`snooplab-lab`) and evaluate the results here into a report.
//! [`Paper`] names the papers that are built.

pub mod document;
pub mod paper000;
pub mod paper001;
pub mod paper002;
pub mod paper004;
pub mod select;
pub mod study;

use serde::Serialize;
use snooplab_proto::tcp::HostPreset;

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

/// The papers' numbers, transcribed from the papers into `data/paper-results.toml` and built into
/// the binary so a reproduction needs no file at run time. Each paper's module reads its table.
pub(crate) const PAPER_RESULTS: &str = include_str!("../../../data/paper-results.toml");

/// A paper `reproduce` can run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Paper {
    /// Balakrishnan, Padmanabhan, Seshan and Katz 1997: a comparison of mechanisms (Tables II-V,
    /// Fig. 12).
    Paper000,
    /// Tamura, Tobe and Tokuda 1998: EFR on a shared WaveLAN (Figs. 15-19).
    Paper001,
    /// Balakrishnan, Seshan and Katz 1995: snoop and the multicast handoff (Table 1, Figs.
    /// 7-11).
    Paper002,
    /// Balakrishnan and Katz 1998: explicit loss notification for mobile senders (Fig. 2).
    Paper004,
}

impl Paper {
    /// Every paper that is built, in the order `reproduce` runs them.
    pub const BUILT: [Paper; 4] = [
        Paper::Paper000,
        Paper::Paper001,
        Paper::Paper002,
        Paper::Paper004,
    ];

    /// The name on the command line and in outputs (`paper000`).
    pub fn name(self) -> &'static str {
        match self {
            Paper::Paper000 => "paper000",
            Paper::Paper001 => "paper001",
            Paper::Paper002 => "paper002",
            Paper::Paper004 => "paper004",
        }
    }

    /// Authors, year and title, for headings.
    pub fn citation(self) -> &'static str {
        match self {
            Paper::Paper000 => {
                "Balakrishnan, Padmanabhan, Seshan and Katz, \"A Comparison of Mechanisms for \
                 Improving TCP Performance over Wireless Links\" (1997)"
            }
            Paper::Paper001 => {
                "Tamura, Tobe and Tokuda, \"EFR: Efficient Fast Retransmit Scheme for TCP in a \
                 Wireless Multiple Access\" (1998)"
            }
            Paper::Paper002 => {
                "Balakrishnan, Seshan and Katz, \"Improving Reliable Transport and Handoff \
                 Performance in Cellular Wireless Networks\" (1995)"
            }
            Paper::Paper004 => {
                "Balakrishnan and Katz, \"Explicit Loss Notification and Wireless Web Performance\" \
                 (1998)"
            }
        }
    }

    /// How many seeds each configuration runs with when `--seeds` is not given: the paper's own
    /// number of trials where it states one.
    pub fn default_seeds(self) -> u64 {
        match self {
            // "10 runs" is paper 000's; paper 002's Fig. 7 "was repeated ten times at each error
            // rate"; paper 004's Fig. 2 does not say, and gets the same
            Paper::Paper000 | Paper::Paper002 | Paper::Paper004 => 10,
            // "averaging the results of 50 trials" (section 6.1)
            Paper::Paper001 => 50,
        }
    }

    /// The TCP implementation of the paper's hosts (docs/model.md, docs/host-profiles.md): BSD/OS 2.1 in paper 000's
    /// testbed; paper 004 names none and ran at the same lab a year later, on the same kind of
    /// hosts as far as we can tell.
    pub fn default_host(self) -> HostPreset {
        match self {
            Paper::Paper000 | Paper::Paper004 => HostPreset::Bsdos21,
            Paper::Paper001 => crate::paper001::testbed::HOST,
            Paper::Paper002 => crate::paper002::testbed::HOST,
        }
    }

    /// The paper as a [`study::Study`] (its report is a [`document::Document`]); every built paper
    /// is one, and `None` is left for a paper built before its study, which `reproduce` refuses.
    pub fn study(self) -> Option<&'static dyn study::Study> {
        match self {
            Paper::Paper000 => Some(&paper000::Reproduction),
            Paper::Paper001 => Some(&paper001::Reproduction),
            Paper::Paper002 => Some(&paper002::Reproduction),
            Paper::Paper004 => Some(&paper004::Reproduction),
        }
    }

    /// The paper named `s` (`paper000`, `000` or `0`), if it is built.
    pub fn parse(s: &str) -> Option<Paper> {
        let t = s.trim().to_ascii_lowercase();
        let digits = t.strip_prefix("paper").unwrap_or(&t);
        let n: u32 = digits.parse().ok()?;
        Paper::BUILT
            .iter()
            .copied()
            .find(|p| p.name().trim_start_matches("paper").parse() == Ok(n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn papers_parse_by_name_or_number() {
        assert_eq!(Paper::parse("paper000"), Some(Paper::Paper000));
        assert_eq!(Paper::parse("000"), Some(Paper::Paper000));
        assert_eq!(Paper::parse("Paper0"), Some(Paper::Paper000));
        assert_eq!(Paper::parse("paper001"), Some(Paper::Paper001));
        assert_eq!(Paper::parse("paper003"), None);
        assert_eq!(Paper::parse("4"), Some(Paper::Paper004));
        assert_eq!(Paper::parse("table3"), None);
    }
}
