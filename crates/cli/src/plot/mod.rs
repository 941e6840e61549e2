//! Plots as PNG and SVG with plotters. The font (DejaVu Sans) is compiled in and registered with
//! plotters' own glyph renderer, so plotting needs no system font library.

pub mod heat_map;
pub mod paper_plots;
pub mod trace_plots;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::prelude::*;

/// The font family name every chart asks for.
pub const FONT: &str = "sans-serif";

/// Registers the embedded font once.
pub fn init_fonts() -> Result<(), String> {
    static DONE: OnceLock<Result<(), String>> = OnceLock::new();
    DONE.get_or_init(|| {
        let fail = |_| "the embedded DejaVu Sans font did not load".to_string();
        plotters::style::register_font(FONT, FontStyle::Normal, dejavu::sans::regular())
            .map_err(fail)?;
        plotters::style::register_font(FONT, FontStyle::Bold, dejavu::sans::bold()).map_err(fail)
    })
    .clone()
}

/// Something that draws itself on any plotters backend.
pub trait Chart {
    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), String>;
}

/// The legend box every chart uses, at `pos`.
pub fn draw_legend<'a, DB: DrawingBackend + 'a, CT: plotters::coord::CoordTranslate>(
    chart: &mut ChartContext<'a, DB, CT>,
    pos: SeriesLabelPosition,
) -> Result<(), String> {
    chart
        .configure_series_labels()
        .position(pos)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font((FONT, 14))
        .draw()
        .map_err(plot_err)
}

/// Turns a plotters error into our one-line message.
pub fn plot_err<E: std::fmt::Display>(e: E) -> String {
    format!("plotting failed: {e}")
}

/// A figure written to disk as `<stem>.png` and `<stem>.svg`.
#[derive(Clone, Debug)]
pub struct Figure {
    pub png: PathBuf,
    pub svg: PathBuf,
}

/// Draws `chart` at `size` pixels into `dir/<stem>.png` and `dir/<stem>.svg`.
pub fn save(
    dir: &Path,
    stem: &str,
    size: (u32, u32),
    chart: &impl Chart,
) -> Result<Figure, String> {
    init_fonts()?;
    let png = dir.join(format!("{stem}.png"));
    let svg = dir.join(format!("{stem}.svg"));
    // opened here first so that a path that cannot be written (a directory of that name, no
    // permission) is reported as such, not as the drawing library's debug dump
    std::fs::File::create(&png).map_err(|e| format!("cannot write {}: {e}", png.display()))?;
    {
        let root = BitMapBackend::new(&png, size).into_drawing_area();
        chart.draw(&root)?;
        root.present()
            .map_err(|e| format!("cannot write {}: {e}", png.display()))?;
    }
    let mut svg_text = String::new();
    {
        let root = SVGBackend::with_string(&mut svg_text, size).into_drawing_area();
        chart.draw(&root)?;
        root.present().map_err(plot_err)?;
    }
    crate::files::write_file(&svg, &svg_text)?;
    Ok(Figure { png, svg })
}

/// The colours of the figures: distinguishable, and dark enough to read on white.
pub const PALETTE: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
];
