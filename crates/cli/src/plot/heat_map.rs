//! A heat map: one coloured cell per (row, column) with its value written in it, on a scale
//! centred on a neutral value (white): above it green, below it red, saturating at 4 times and a
//! quarter of it on a log scale (a gain of 4x is as green as it gets).

use plotters::coord::Shift;
use plotters::prelude::*;
pub use snooplab_papers::document::Heat;

use super::{plot_err, Chart, FONT};

/// How far from neutral, as a factor, the colour saturates.
const SATURATE: f64 = 4.0;

/// The cell colour of `v` on a scale centred on `neutral`.
fn colour(v: f64, neutral: f64) -> RGBColor {
    if v <= 0.0 || neutral <= 0.0 || !v.is_finite() {
        return RGBColor(200, 200, 200);
    }
    let t = ((v / neutral).ln() / SATURATE.ln()).clamp(-1.0, 1.0);
    let fade = |full: u8, t: f64| (255.0 - (255.0 - f64::from(full)) * t.abs()).round() as u8;
    if t >= 0.0 {
        RGBColor(fade(44, t), fade(160, t), fade(44, t))
    } else {
        RGBColor(fade(214, t), fade(39, t), fade(40, t))
    }
}

impl Chart for Heat {
    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), String> {
        area.fill(&WHITE).map_err(plot_err)?;
        let (nx, ny) = (self.columns.len().max(1), self.rows.len().max(1));
        let mut chart = ChartBuilder::on(area)
            .caption(&self.title, (FONT, 18))
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..nx as f64, 0.0..ny as f64)
            .map_err(plot_err)?;
        let columns = self.columns.clone();
        let rows = self.rows.clone();
        let label = |names: &[String], v: f64| {
            let i = v - 0.5;
            if (i - i.round()).abs() < 1e-6 && i >= 0.0 {
                names.get(i.round() as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        };
        chart
            .configure_mesh()
            .disable_mesh()
            .x_desc(self.x_desc.as_str())
            .y_desc(self.y_desc.as_str())
            .x_labels(nx * 2 + 1)
            .y_labels(ny * 2 + 1)
            .x_label_formatter(&|v| label(&columns, *v))
            .y_label_formatter(&|v| label(&rows, *v))
            .label_style((FONT, 13))
            .draw()
            .map_err(plot_err)?;
        for (r, row) in self.values.iter().enumerate() {
            for (c, v) in row.iter().enumerate() {
                let (x, y) = (c as f64, r as f64);
                let fill = v.map_or(RGBColor(230, 230, 230), |v| colour(v, self.neutral));
                chart
                    .draw_series([Rectangle::new([(x, y), (x + 1.0, y + 1.0)], fill.filled())])
                    .map_err(plot_err)?;
                let text = v.map_or_else(|| "-".to_string(), |v| format!("{v:.2}"));
                chart
                    .draw_series([Text::new(
                        text,
                        (x + 0.38, y + 0.58),
                        (FONT, 15).into_font().color(&BLACK),
                    )])
                    .map_err(plot_err)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scale_is_white_at_neutral_and_saturates_both_ways() {
        assert_eq!(colour(1.0, 1.0), RGBColor(255, 255, 255));
        assert_eq!(colour(4.0, 1.0), RGBColor(44, 160, 44));
        assert_eq!(colour(100.0, 1.0), colour(4.0, 1.0));
        assert_eq!(colour(0.25, 1.0), RGBColor(214, 39, 40));
        let half = colour(2.0, 1.0);
        assert!(half.1 > 160 && half.1 < 255, "{half:?}");
        assert_eq!(colour(0.0, 1.0), RGBColor(200, 200, 200));
    }
}
