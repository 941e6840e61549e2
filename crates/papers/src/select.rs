//! Which papers and parts the words of `snooplab reproduce` name. What every paper's run shares
//! (seeds, host profile, threads) is [`crate::study::Common`], part of the interface each paper
//! implements.

use crate::{find, paper000, Paper, PAPERS};

/// One paper and what of it to run.
#[derive(Clone, Debug)]
pub struct Selection {
    pub paper: Paper,
    /// The parts named after the paper (empty: all of it).
    pub parts: Vec<String>,
}

/// The papers and parts the words name, in the order given (no words: every built paper). A word
/// that is not a paper is a part of the paper before it, or of paper 000 when it comes first.
pub fn selections(words: &[String]) -> Result<Vec<Selection>, String> {
    if words.is_empty() {
        return Ok(PAPERS
            .iter()
            .map(|&paper| Selection {
                paper,
                parts: vec![],
            })
            .collect());
    }
    let mut out: Vec<Selection> = vec![];
    for w in words {
        if let Some(paper) = find(w) {
            if out.iter().any(|s| s.paper.name() == paper.name()) {
                return Err(format!("{} is named twice", paper.name()));
            }
            out.push(Selection {
                paper,
                parts: vec![],
            });
            continue;
        }
        if w.trim().to_ascii_lowercase().starts_with("paper") {
            let built: Vec<&str> = PAPERS.iter().map(|p| p.name()).collect();
            return Err(format!("unknown paper '{w}' (built: {})", built.join(", ")));
        }
        match out.last_mut() {
            Some(s) => s.parts.push(w.clone()),
            None => out.push(Selection {
                // a part before any paper is paper 000's, the first of the papers
                paper: &paper000::Reproduction,
                parts: vec![w.clone()],
            }),
        }
    }
    Ok(out)
}

/// Checks the parts each selection names.
pub fn check_parts(sels: &[Selection]) -> Result<(), String> {
    sels.iter().try_for_each(|s| s.paper.check_parts(&s.parts))
}

/// The most seeds per configuration `reproduce` runs.
pub const MAX_SEEDS: u64 = 10_000;

/// A number of seeds per configuration, 1 to [`MAX_SEEDS`].
pub fn check_seeds(n: u64) -> Result<u64, String> {
    if n == 0 || n > MAX_SEEDS {
        return Err(format!("seeds {n} is out of range: use 1 to {MAX_SEEDS}"));
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::study::Common;

    fn words(w: &[&str]) -> Vec<String> {
        w.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn words_name_papers_and_their_parts() {
        let all = selections(&[]).expect("all");
        assert_eq!(all.len(), PAPERS.len());
        let s = selections(&words(&["table3"])).expect("a part alone");
        assert_eq!(s[0].paper.name(), "paper000");
        assert_eq!(s[0].parts, ["table3"]);
        let s = selections(&words(&["paper000", "table2", "fig12"])).expect("two parts");
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].parts, ["table2", "fig12"]);
        assert!(selections(&words(&["paper000", "paper0"])).is_err());
        let e = selections(&words(&["paper009"])).expect_err("not built");
        assert!(e.to_string().contains("unknown paper 'paper009'"), "{e}");
    }

    #[test]
    fn a_plan_runs_each_experiment_with_every_seed() {
        let common = Common {
            seeds: Some(2),
            ..Common::default()
        };
        let plan = crate::paper000::Plan000::new(&words(&["fig12"]), &common).unwrap();
        let jobs = plan.scenarios();
        // six schemes at five error rates, two seeds each
        assert_eq!(jobs.len(), 6 * 5 * 2);
        assert_eq!((jobs[0].seed, jobs[1].seed, jobs[2].seed), (1, 2, 1));
        assert!(crate::paper004::plan::parts(&words(&["fig3"])).is_err());
    }
}
