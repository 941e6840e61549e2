//! The Web study's report to read: per channel and HTTP one table (a row per sender: page and
//! object latency, the share of page latency waited on timers by phase, the timeouts) and one
//! CDF chart of page latency, a line per sender; every title names the workload, and says when
//! its numbers are unverified.

use crate::claim::Claim;
use crate::document::{Chart, Document, Row, Series, SeriesLine, Table};
use crate::study::StudyReport;

use super::grid::{http_name, CHANNELS, HTTPS};
use super::outcome::{WebCell, WebReport};

/// Points of a CDF line: the latency at each of these percents, 1 to 99 (the tail above the
/// 99th percentile would flatten the rest of the chart; the table gives the 99th).
const CDF_PERCENTS: std::ops::RangeInclusive<usize> = 1..=99;

impl StudyReport for WebReport {
    fn claims(&self) -> &[Claim] {
        &self.claims
    }
    fn document(&self) -> Document {
        document(self)
    }
}

fn document(r: &WebReport) -> Document {
    let mut d = Document::default();
    d.text(format!(
        "Pages from the fixed host to the mobile host over paper 000's LAN testbed (10 Mb/s \
         Ethernet, 2 Mb/s WaveLAN, 64 KB windows, 1400-byte segments); workload: {}; {} seeds \
         of {} pages per configuration. Page latency runs from the page's first request to its \
         last object's last byte. A timeout's wait is the time its retransmission timer ran; \
         a page counts the waits on its critical path once (docs/web-workload.md, \"The \
         study\").",
        r.workload, r.seeds, r.pages_per_seed
    ));
    d.claims(&r.claims);
    for channel in CHANNELS {
        for http in HTTPS {
            let (ch, h) = (channel.name(), http_name(http));
            let cells: Vec<&WebCell> = r
                .cells
                .iter()
                .filter(|c| c.channel == ch && c.http == h)
                .collect();
            if cells.is_empty() {
                continue;
            }
            d.heading(format!("{ch}, {h}"));
            // the heading names the channel and HTTP; the title keeps the workload's label with
            // the table wherever it is copied
            d.table(table(&cells, &format!("workload {}", r.workload)));
            d.chart(
                Chart::Series(cdf(&cells, &format!("{ch}, {h}"))),
                format!(
                    "cdf-{}-{}",
                    ch.replace("1/", "1-per-").replace(' ', ""),
                    h.replace(['/', ' ', '.'], "").to_ascii_lowercase()
                ),
                format!(
                    "page latency CDF, {ch}, {h}, to the 99th percentile (workload {})",
                    r.workload
                ),
            );
        }
    }
    d
}

fn seconds(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |v| format!("{v:.3}"))
}

fn percent(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

fn table(cells: &[&WebCell], title: &str) -> Table {
    let columns = [
        "sender",
        "pages",
        "page median s",
        "p90 s",
        "p99 s",
        "object median s",
        "object p90 s",
        "waited: setup",
        "middle",
        "tail",
        "timeouts setup/middle/tail",
    ]
    .map(String::from)
    .to_vec();
    let rows = cells
        .iter()
        .map(|c| {
            let failed = if c.incomplete_runs > 0 {
                format!(" !{}", c.incomplete_runs)
            } else {
                String::new()
            };
            Row::cells([
                format!("{} ({}, {})", c.sender, c.host, c.protocol),
                format!("{} of {}{failed}", c.pages_completed, c.pages),
                seconds(c.page_latency.median_s),
                seconds(c.page_latency.p90_s),
                seconds(c.page_latency.p99_s),
                seconds(c.object_latency.median_s),
                seconds(c.object_latency.p90_s),
                percent(c.timeout_share.setup),
                percent(c.timeout_share.middle),
                percent(c.timeout_share.tail),
                format!(
                    "{}/{}/{}",
                    c.timeouts.setup, c.timeouts.middle, c.timeouts.tail
                ),
            ])
        })
        .collect();
    Table {
        title: Some(title.into()),
        columns,
        rows,
    }
}

fn cdf(cells: &[&WebCell], title: &str) -> Series {
    Series {
        title: title.into(),
        x_desc: "page latency, s".into(),
        y_desc: "fraction of pages".into(),
        lines: cells
            .iter()
            .map(|c| SeriesLine {
                name: c.sender.into(),
                points: CDF_PERCENTS
                    .filter_map(|p| {
                        super::outcome::rank(&c.sorted_latency_s, p).map(|x| (x, p as f64 / 100.0))
                    })
                    .collect(),
            })
            .collect(),
    }
}
