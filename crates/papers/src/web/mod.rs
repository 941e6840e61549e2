//! The Web study (issue 53, items 3-4; docs/web-workload.md, "The study"): paper 004's
//! "Wireless Web Performance" asked in the simulator. Pages go from the fixed host to the
//! mobile host ("an empirically derived Web workload to mobile hosts", paper 004's
//! introduction) over HTTP/1.0 with four connections and HTTP/1.1 with two persistent ones, for
//! Reno, SACK, snoop and ELN on the BSD/OS 2.1 hosts of the papers and today's Linux without
//! and with snoop, under exponential errors (one per 64 KB and per 16 KB) and a two-state
//! channel. Reported: page latency (median, 90th and 99th percentile, its CDF) and object
//! latency, and the share of page latency waited on retransmission timers in connection setup,
//! in the middle of a transfer and at its tail, from the TCPs' own record of their timeouts.
//!
//! A study of our own, not a paper: paper 004's sections 4-5, where its results are, are not in
//! our copy of its text. `reproduce web`.

mod claims;
pub mod grid;
pub mod outcome;
mod tables;
pub mod workload;

use snooplab_proto::tcp::HostPreset;
use snooplab_sim::{Job, RunResult};

use crate::study::{no_parts, About, Common, Plan, Planned, Study};
use grid::{Config, PAGES_PER_SEED};
pub use outcome::{WebCell, WebReport, WebRun};
use workload::Workload;

pub static ABOUT: About = About {
    name: "web",
    citation: "snooplab's study: Web page latency over the lossy link (paper 004's title, \
               \"Wireless Web Performance\"): Reno, SACK, snoop, ELN and today's Linux, pages \
               to the mobile host (docs/web-workload.md)",
    default_seeds: 4,
    default_host: HostPreset::Bsdos21,
    parts: "none: the study has one part (every sender, channel and HTTP)",
};

/// The study for `reproduce`.
pub struct WebStudy;

impl Study for WebStudy {
    fn about(&self) -> &'static About {
        &ABOUT
    }
    fn check_parts(&self, words: &[String]) -> Result<(), String> {
        no_parts(words, ABOUT.name, "it has no parts")
    }
    /// `--host` is not taken: the senders name their hosts (the papers' BSD/OS 2.1 and Linux).
    fn plan(&self, words: &[String], common: &Common) -> Result<Box<dyn Planned>, String> {
        self.check_parts(words)?;
        Ok(Box::new(WebPlan {
            configs: Config::all(),
            workload: Workload::choose(),
            seeds: common.seeds(&ABOUT),
            pages: PAGES_PER_SEED,
        }))
    }
}

/// The study planned: every configuration with every seed.
pub struct WebPlan {
    configs: Vec<Config>,
    workload: Workload,
    seeds: u64,
    pages: u32,
}

impl Plan for WebPlan {
    type Run = WebRun;

    fn jobs(&self) -> Vec<Job> {
        let mut out = vec![];
        for c in &self.configs {
            for seed in 1..=self.seeds {
                out.push(c.job(seed, &self.workload.spec, self.pages));
            }
        }
        out
    }

    fn finish(self, results: Vec<RunResult>) -> WebRun {
        let per = self.seeds as usize;
        let cells: Vec<WebCell> = self
            .configs
            .iter()
            .enumerate()
            .map(|(i, c)| outcome::cell(c, results.get(i * per..(i + 1) * per).unwrap_or_default()))
            .collect();
        let claims = claims::claims(&cells, self.workload.verified, &self.workload.label);
        WebRun {
            runs: results,
            report: WebReport {
                workload: self.workload.label,
                workload_verified: self.workload.verified,
                seeds: self.seeds,
                pages_per_seed: self.pages,
                cells,
                claims,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use snooplab_sim::workload::Spec;

    #[test]
    fn the_study_has_no_parts_and_runs_every_configuration_with_every_seed() {
        assert!(WebStudy.check_parts(&[]).is_ok());
        let e = WebStudy.check_parts(&["fig3".into()]).unwrap_err();
        assert!(e.contains("unknown part 'fig3' of web"), "{e}");
        let common = Common {
            seeds: Some(2),
            ..Common::default()
        };
        let jobs = WebStudy.plan(&[], &common).map(|p| p.jobs().len());
        assert_eq!(jobs, Ok(2 * 6 * 3 * 2));
    }

    #[test]
    fn a_small_run_reports_every_page_and_labels_surge_unverified() {
        let workload = Workload::of(Spec::surge());
        let plan = WebPlan {
            configs: Config::all()
                .into_iter()
                .filter(|c| c.channel == grid::Channel::Every(16 << 10))
                .filter(|c| c.http == grid::HTTPS[0])
                .collect(),
            workload,
            seeds: 2,
            pages: 10,
        };
        let results: Vec<RunResult> = Plan::jobs(&plan).iter().map(Job::run).collect();
        let run = Plan::finish(plan, results);
        let r = &run.report;
        assert_eq!(r.cells.len(), 6);
        for c in &r.cells {
            assert_eq!((c.pages, c.pages_completed), (20, 20), "{}", c.sender);
            assert_eq!(c.sorted_latency_s.len(), 20);
            let share = c.timeout_share;
            assert!(share.setup + share.middle + share.tail <= 1.0 + 1e-9);
            assert!(c.page_latency.median_s <= c.page_latency.p90_s);
        }
        // the same pages for every sender
        let bytes = |i: usize| run.runs[i].flows[0].transfer_bytes;
        assert_eq!(bytes(0), bytes(2 * 5));
        assert!(!r.workload_verified && r.workload.contains("unverified"));
        assert_eq!(r.claims.len(), 3);
        assert!(r.claims.iter().all(|c| c.holds.is_none()));
        assert!(r.claims[0].measured.contains("not checked"));
    }
}
