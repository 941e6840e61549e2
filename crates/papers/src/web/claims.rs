//! The Web study's claims: paper 004's introduction announces an evaluation of "TCP Reno, TCP
//! Selective Acknowledgments and the Snoop protocol for an empirically derived Web workload to
//! mobile hosts"; its results (sections 4-5) are not in our copy of the text, so what is
//! checked is the direction the snoop papers argue for bulk transfers, asked of page latency:
//! snoop lowers it against the end-to-end sender on the same host. Each is held on the per-seed
//! medians (or 90th percentiles): snoop's mean below Reno's by more than both 95% intervals.
//! On an unverified workload (SURGE's numbers, unread in its paper) every claim is "not checked".

use snooplab_sim::stats::Summary;

use super::grid::{http_name, Channel, HTTPS};
use super::outcome::WebCell;
use crate::claim::Claim;

/// `a` below `b` by more than both 95% intervals (none counts as 0).
fn clearly_below(a: &Summary, b: &Summary) -> bool {
    a.mean + a.ci95.unwrap_or(0.0) < b.mean - b.ci95.unwrap_or(0.0)
}

/// Which per-seed statistic a claim compares.
#[derive(Clone, Copy)]
enum Stat {
    Median,
    P90,
}

struct Spec {
    id: &'static str,
    text: &'static str,
    agent: &'static str,
    against: &'static str,
    channel: Channel,
    stat: Stat,
}

const SPECS: [Spec; 3] = [
    Spec {
        id: "web-snoop-median-16k",
        text: "snoop lowers the median page latency against Reno (the BSD/OS 2.1 hosts) at one \
               error per 16 KB, HTTP/1.0 with four connections: the per-seed medians' means \
               apart by more than both 95% intervals",
        agent: "snoop",
        against: "reno",
        channel: Channel::Every(16 << 10),
        stat: Stat::Median,
    },
    Spec {
        id: "web-snoop-p90-two-state",
        text: "snoop lowers the 90th-percentile page latency against Reno under the two-state \
               channel, HTTP/1.0 with four connections (per-seed 90th percentiles, intervals \
               apart)",
        agent: "snoop",
        against: "reno",
        channel: Channel::TwoState,
        stat: Stat::P90,
    },
    Spec {
        id: "web-linux-snoop-median-16k",
        text: "snoop lowers today's Linux's median page latency at one error per 16 KB, \
               HTTP/1.0 with four connections (per-seed medians, intervals apart)",
        agent: "linux-snoop",
        against: "linux",
        channel: Channel::Every(16 << 10),
        stat: Stat::Median,
    },
];

/// Every claim over the cells; `verified`: the workload's numbers were checked.
pub(super) fn claims(cells: &[WebCell], verified: bool, workload: &str) -> Vec<Claim> {
    SPECS
        .iter()
        .map(|s| claim(s, cells, verified, workload))
        .collect()
}

fn claim(s: &Spec, cells: &[WebCell], verified: bool, workload: &str) -> Claim {
    let http = http_name(HTTPS[0]);
    let find = |sender: &str| {
        cells
            .iter()
            .find(|c| c.sender == sender && c.channel == s.channel.name() && c.http == http)
    };
    let (Some(a), Some(b)) = (find(s.agent), find(s.against)) else {
        return Claim {
            id: s.id,
            paper: s.text,
            measured: "not run".into(),
            holds: None,
        };
    };
    let stat = |c: &WebCell| match s.stat {
        Stat::Median => c.seed_median_s,
        Stat::P90 => c.seed_p90_s,
    };
    let (x, y) = (stat(a), stat(b));
    let below = clearly_below(&x, &y);
    let mut measured = format!(
        "{} {} s, {} {} s ({} seeds)",
        s.agent,
        x.mean_ci(3),
        s.against,
        y.mean_ci(3),
        x.n
    );
    if !verified {
        measured.push_str(&format!(
            "; not checked: the workload's numbers are unverified ({workload})"
        ));
    }
    Claim {
        id: s.id,
        paper: s.text,
        measured,
        holds: verified.then_some(below),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(mean: f64, ci: f64) -> Summary {
        Summary {
            n: 4,
            mean,
            ci95: Some(ci),
            min: mean,
            max: mean,
        }
    }

    #[test]
    fn below_means_beyond_both_intervals() {
        assert!(clearly_below(&s(1.0, 0.1), &s(1.3, 0.1)));
        assert!(!clearly_below(&s(1.0, 0.2), &s(1.3, 0.2)));
    }

    #[test]
    fn without_the_runs_a_claim_is_not_checked() {
        let c = claims(&[], true, "mah");
        assert_eq!(c.len(), SPECS.len());
        assert!(c
            .iter()
            .all(|c| c.holds.is_none() && c.measured == "not run"));
    }
}
