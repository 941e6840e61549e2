//! The figures of `reproduce`: grouped bars with the paper's value beside ours where it gives one
//! (paper 000 Figs. 3, 6, 9 and Table V; paper 001 Figs. 15-19), and the error-rate sweep on a log
//! axis (paper 000 Fig. 12, paper 002 Figs. 7 and 11, paper 004 Fig. 2), and values over time
//! as steps (the kernel check's congestion windows).

use plotters::coord::Shift;
use plotters::prelude::*;
pub use snooplab_papers::document::{Bar, Bars, Series, Sweep as ErrorRateSweep};

use super::{draw_legend, plot_err, Chart, FONT, PALETTE};

/// Every bar of a chart.
fn all_bars(b: &Bars) -> impl Iterator<Item = &Bar> {
    b.series.iter().flat_map(|s| s.bars.iter().flatten())
}

impl Chart for Bars {
    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), String> {
        area.fill(&WHITE).map_err(plot_err)?;
        let ngroups = self.groups.len().max(1);
        let nseries = self.series.len().max(1);
        let with_paper = all_bars(self).any(|b| b.paper.is_some());
        let top = all_bars(self)
            .map(|b| {
                b.value
                    .max(b.whisker.map_or(0.0, |w| w.1))
                    .max(b.paper.unwrap_or(0.0))
            })
            .fold(0.0, f64::max);
        // headroom for the legend; a chart of zeros still gets an axis
        let top = if top > 0.0 { top * 1.5 } else { 1.0 };
        let groups = self.groups.clone();
        let mut chart = ChartBuilder::on(area)
            .caption(&self.title, (FONT, 18))
            .margin(12)
            .x_label_area_size(50)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..ngroups as f64, 0.0..top)
            .map_err(plot_err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(ngroups * 2 + 1)
            .x_label_formatter(&|x| {
                let i = x.floor() as usize;
                if (x - i as f64 - 0.5).abs() < 1e-6 {
                    groups.get(i).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            })
            .y_desc(self.y_desc.as_str())
            .label_style((FONT, 13))
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(plot_err)?;
        // each group's slot [i, i+1): 0.1 margin each side, then one or two bars per series
        let per_series = if with_paper { 2 } else { 1 };
        let bar = 0.8 / (per_series * nseries) as f64;
        for (si, series) in self.series.iter().enumerate() {
            let color = PALETTE[si % PALETTE.len()];
            let mut ours = vec![];
            let mut theirs = vec![];
            let mut whiskers = vec![];
            for (gi, b) in series.bars.iter().enumerate() {
                let Some(b) = b else { continue };
                let x0 = gi as f64 + 0.1 + (per_series * si) as f64 * bar;
                ours.push(Rectangle::new(
                    [(x0, 0.0), (x0 + bar, b.value)],
                    color.filled(),
                ));
                if let Some((lo, hi)) = b.whisker {
                    let xm = x0 + bar / 2.0;
                    whiskers.push(PathElement::new(vec![(xm, lo), (xm, hi)], BLACK));
                }
                if let Some(p) = b.paper {
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
            let label = if with_paper {
                format!("{}: ours", series.name)
            } else {
                series.name.clone()
            };
            chart
                .draw_series(ours)
                .map_err(plot_err)?
                .label(label)
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 14, y + 5)], color.filled())
                });
            if !theirs.is_empty() {
                chart
                    .draw_series(theirs)
                    .map_err(plot_err)?
                    .label(format!("{}: paper", series.name))
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

/// `points` as steps: each value held until the next point's time.
fn held(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(points.len() * 2);
    for (i, &(x, y)) in points.iter().enumerate() {
        if i > 0 {
            out.push((x, points[i - 1].1));
        }
        out.push((x, y));
    }
    out
}

impl Chart for Series {
    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), String> {
        area.fill(&WHITE).map_err(plot_err)?;
        let all = || self.lines.iter().flat_map(|l| l.points.iter());
        let right = all().map(|p| p.0).fold(0.0, f64::max).max(1e-3);
        let top = all().map(|p| p.1).fold(0.0, f64::max).max(1.0) * 1.1;
        let mut chart = ChartBuilder::on(area)
            .caption(&self.title, (FONT, 18))
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..right, 0.0..top)
            .map_err(plot_err)?;
        chart
            .configure_mesh()
            .x_desc(self.x_desc.as_str())
            .y_desc(self.y_desc.as_str())
            .label_style((FONT, 13))
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(plot_err)?;
        for (li, line) in self.lines.iter().enumerate() {
            let style = ShapeStyle::from(&PALETTE[li % PALETTE.len()]).stroke_width(2);
            chart
                .draw_series(LineSeries::new(held(&line.points), style))
                .map_err(plot_err)?
                .label(line.name.clone())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], style));
        }
        draw_legend(&mut chart, SeriesLabelPosition::UpperRight)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::held;

    #[test]
    fn steps_hold_each_value_until_the_next_time() {
        assert_eq!(
            held(&[(0.0, 1.0), (2.0, 3.0), (5.0, 2.0)]),
            vec![(0.0, 1.0), (2.0, 1.0), (2.0, 3.0), (5.0, 3.0), (5.0, 2.0)]
        );
        assert!(held(&[]).is_empty());
    }
}
