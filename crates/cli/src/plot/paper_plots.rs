//! The figures of `reproduce`: throughput bars with the paper's value beside ours (paper 000
//! Figs. 3, 6, 9 and Table V), and the error-rate sweep on a log axis (Fig. 12).

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;
use snooplab_sim::reproduce::paper000::{Part, TableReport};

use super::{draw_legend, plot_err, save, Chart, Figure, FONT, PALETTE};

/// Bars per protocol: for each row of the table, ours (solid, with the 95% interval) and the
/// paper's (hatched look: a lighter fill with an outline).
pub struct ThroughputBars<'a>(pub &'a TableReport);

impl Chart for ThroughputBars<'_> {
    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let t = self.0;
        area.fill(&WHITE).map_err(plot_err)?;
        let nrows = t.rows.len().max(1);
        let nprot = t.protocols.len().max(1);
        let top = t
            .rows
            .iter()
            .flat_map(|r| &r.cells)
            .map(|c| {
                (c.throughput_mbps.mean + c.throughput_mbps.ci95)
                    .max(c.paper_throughput_mbps.unwrap_or(0.0))
            })
            .fold(0.1, f64::max)
            * 1.5; // headroom for the legend
        let protocols = t.protocols.clone();
        let mut chart = ChartBuilder::on(area)
            .caption(&t.title, (FONT, 18))
            .margin(12)
            .x_label_area_size(50)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..nprot as f64, 0.0..top)
            .map_err(plot_err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(nprot * 2 + 1)
            .x_label_formatter(&|x| {
                let i = x.floor() as usize;
                if (x - i as f64 - 0.5).abs() < 1e-6 {
                    protocols.get(i).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            })
            .y_desc("throughput (Mb/s)")
            .label_style((FONT, 13))
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(plot_err)?;
        // each protocol's slot [i, i+1): 0.1 margin, then 2 bars per row
        let bar = 0.8 / (2 * nrows) as f64;
        for (ri, row) in t.rows.iter().enumerate() {
            let color = PALETTE[ri % PALETTE.len()];
            let mut ours = vec![];
            let mut theirs = vec![];
            let mut whiskers = vec![];
            for c in &row.cells {
                let Some(pi) = t.protocols.iter().position(|p| *p == c.protocol) else {
                    continue;
                };
                let x0 = pi as f64 + 0.1 + 2.0 * ri as f64 * bar;
                let m = c.throughput_mbps.mean;
                ours.push(Rectangle::new([(x0, 0.0), (x0 + bar, m)], color.filled()));
                let xm = x0 + bar / 2.0;
                let (lo, hi) = (m - c.throughput_mbps.ci95, m + c.throughput_mbps.ci95);
                whiskers.push(PathElement::new(vec![(xm, lo), (xm, hi)], BLACK));
                if let Some(p) = c.paper_throughput_mbps {
                    let x1 = x0 + bar;
                    theirs.push(Rectangle::new(
                        [(x1, 0.0), (x1 + bar, p)],
                        color.mix(0.3).filled(),
                    ));
                    theirs.push(Rectangle::new(
                        [(x1, 0.0), (x1 + bar, p)],
                        color.stroke_width(1),
                    ));
                }
            }
            let label = row.row.clone();
            chart
                .draw_series(ours)
                .map_err(plot_err)?
                .label(format!("{label}: ours"))
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 14, y + 5)], color.filled())
                });
            if !theirs.is_empty() {
                chart
                    .draw_series(theirs)
                    .map_err(plot_err)?
                    .label(format!("{label}: paper"))
                    .legend(move |(x, y)| {
                        Rectangle::new([(x, y - 5), (x + 14, y + 5)], color.mix(0.3).filled())
                    });
            }
            chart.draw_series(whiskers).map_err(plot_err)?;
        }
        draw_legend(&mut chart, SeriesLabelPosition::UpperRight)?;
        Ok(())
    }
}

/// One line of an [`ErrorRateSweep`]: a protocol's mean throughput at each error rate.
pub struct Line {
    pub name: String,
    /// (mean bytes between errors, mean throughput Mb/s, half-width of its 95% interval).
    pub points: Vec<(u64, f64, f64)>,
}

/// Throughput against the mean bytes between errors, log axis, one line per protocol (paper 000
/// Fig. 12, paper 004 Fig. 2), with the 95% interval of each point as a bar.
pub struct ErrorRateSweep {
    pub title: String,
    pub lines: Vec<Line>,
}

impl ErrorRateSweep {
    /// Paper 000's Fig. 12 from its table.
    fn of_table(t: &TableReport) -> ErrorRateSweep {
        let x: Vec<u64> = t
            .part
            .rows()
            .iter()
            .map(|(_, make)| make(snooplab_sim::Protocol::E2e).error_every)
            .collect();
        let lines = t
            .protocols
            .iter()
            .map(|proto| Line {
                name: proto.clone(),
                points: t
                    .rows
                    .iter()
                    .zip(&x)
                    .filter_map(|(r, &x)| {
                        r.cells
                            .iter()
                            .find(|c| &c.protocol == proto)
                            .map(|c| (x, c.throughput_mbps.mean, c.throughput_mbps.ci95))
                    })
                    .collect(),
            })
            .collect();
        ErrorRateSweep {
            title: t.title.clone(),
            lines,
        }
    }
}

impl Chart for ErrorRateSweep {
    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), String> {
        area.fill(&WHITE).map_err(plot_err)?;
        let mut kb: Vec<f64> = self
            .lines
            .iter()
            .flat_map(|l| l.points.iter().map(|p| p.0 as f64 / 1024.0))
            .collect();
        kb.sort_by(f64::total_cmp);
        kb.dedup();
        let (x0, x1) = (
            kb.iter().copied().fold(f64::MAX, f64::min).min(1e9),
            kb.iter().copied().fold(1.0, f64::max),
        );
        let top = self
            .lines
            .iter()
            .flat_map(|l| &l.points)
            .map(|p| p.1 + p.2)
            .fold(0.1, f64::max)
            * 1.1;
        let mut chart = ChartBuilder::on(area)
            .caption(&self.title, (FONT, 18))
            .margin(12)
            .x_label_area_size(50)
            .y_label_area_size(60)
            .build_cartesian_2d(
                (x0 * 0.9..x1 * 1.1).log_scale().with_key_points(kb.clone()),
                0.0..top,
            )
            .map_err(plot_err)?;
        chart
            .configure_mesh()
            .x_desc("mean bytes between errors (KB, log scale)")
            .y_desc("throughput (Mb/s)")
            .x_label_formatter(&|v| format!("{v:.0}"))
            .label_style((FONT, 13))
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(plot_err)?;
        for (li, line) in self.lines.iter().enumerate() {
            let color = PALETTE[li % PALETTE.len()];
            let pts: Vec<(f64, f64)> = line
                .points
                .iter()
                .map(|p| (p.0 as f64 / 1024.0, p.1))
                .collect();
            let style = ShapeStyle::from(&color).stroke_width(2);
            chart
                .draw_series(LineSeries::new(pts.clone(), style))
                .map_err(plot_err)?
                .label(line.name.clone())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], style));
            chart
                .draw_series(pts.iter().map(|&p| Circle::new(p, 4, color.filled())))
                .map_err(plot_err)?;
            chart
                .draw_series(line.points.iter().filter(|p| p.2 > 0.0).map(|p| {
                    let x = p.0 as f64 / 1024.0;
                    PathElement::new(vec![(x, p.1 - p.2), (x, p.1 + p.2)], color)
                }))
                .map_err(plot_err)?;
        }
        draw_legend(&mut chart, SeriesLabelPosition::LowerRight)?;
        Ok(())
    }
}

/// One figure per table of the report: `<part>.png` / `.svg` in `dir`.
pub fn plot_tables(dir: &Path, tables: &[TableReport]) -> Result<Vec<(String, Figure)>, String> {
    let mut out = vec![];
    for t in tables {
        let stem = t.part.name();
        let fig = if t.part == Part::Fig12 {
            save(dir, stem, (1000, 600), &ErrorRateSweep::of_table(t))?
        } else {
            save(dir, stem, (1000, 600), &ThroughputBars(t))?
        };
        out.push((stem.to_string(), fig));
    }
    Ok(out)
}
