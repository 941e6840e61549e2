//! The plots of one run, drawn from its trace: the sender's sequence numbers over time with every
//! retransmission marked (paper 000 Figs. 5, 7, 10), the congestion window over time (Figs. 4, 8,
//! 11), and what the base station holds.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;
use snooplab_proto::Time;
use snooplab_sim::trace::{SendKind, TraceLog, WindowRow};

use super::{draw_legend, plot_err, save, Chart, Figure, FONT, PALETTE};

const SIZE: (u32, u32) = (1000, 600);

fn secs(t: Time) -> f64 {
    t as f64 / 1e9
}

/// The part of a trace to draw: a title, a time window and the flow.
#[derive(Clone, Debug)]
pub struct View<'a> {
    pub trace: &'a TraceLog,
    pub title: String,
    pub from: Time,
    pub to: Time,
    /// Index of the flow drawn (the trace's first by default).
    pub flow: usize,
}

impl<'a> View<'a> {
    /// The whole run.
    pub fn whole(trace: &'a TraceLog, title: String) -> View<'a> {
        let end = trace
            .segments
            .iter()
            .map(|r| r.at)
            .chain(trace.acks.iter().map(|r| r.at))
            .max()
            .unwrap_or(0);
        View {
            trace,
            title,
            from: 0,
            to: end.max(1),
            flow: 0,
        }
    }

    fn contains(&self, t: Time) -> bool {
        (self.from..=self.to).contains(&t)
    }

    fn x_range(&self) -> std::ops::Range<f64> {
        secs(self.from)..secs(self.to).max(secs(self.from) + 1e-3)
    }
}

/// Sequence offset (KB) of every data segment against time.
pub struct SequencePlot<'a>(pub View<'a>);

/// One series of marks: which segments (sent by the flow's host, or by a base station), how they
/// look, what the legend says.
struct Marks {
    base_station: bool,
    kind: SendKind,
    label: &'static str,
    color: RGBColor,
    size: i32,
}

const MARKS: [Marks; 6] = [
    Marks {
        base_station: false,
        kind: SendKind::New,
        label: "sender new data",
        color: RGBColor(60, 60, 60),
        size: 1,
    },
    Marks {
        base_station: true,
        kind: SendKind::New,
        label: "BS new data (split)",
        color: RGBColor(150, 150, 150),
        size: 1,
    },
    Marks {
        base_station: false,
        kind: SendKind::Fast,
        label: "sender fast retransmission",
        color: PALETTE[3],
        size: 5,
    },
    Marks {
        base_station: false,
        kind: SendKind::Timeout,
        label: "sender timeout retransmission",
        color: PALETTE[1],
        size: 6,
    },
    Marks {
        base_station: true,
        kind: SendKind::Local,
        label: "BS local retransmission",
        color: PALETTE[0],
        size: 4,
    },
    Marks {
        base_station: false,
        kind: SendKind::Persist,
        label: "sender persist probe",
        color: PALETTE[2],
        size: 7,
    },
];

impl Chart for SequencePlot<'_> {
    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let v = &self.0;
        area.fill(&WHITE).map_err(plot_err)?;
        let rows: Vec<_> = v
            .trace
            .segments
            .iter()
            .filter(|r| r.flow == v.flow && v.contains(r.at))
            .collect();
        let kb = |s: u64| s as f64 / 1024.0;
        let (lo, hi) = rows.iter().fold((f64::MAX, 0f64), |(lo, hi), r| {
            (lo.min(kb(r.seq)), hi.max(kb(r.seq + u64::from(r.len))))
        });
        let lo = if lo == f64::MAX { 0.0 } else { lo };
        let mut chart = ChartBuilder::on(area)
            .caption(&v.title, (FONT, 20))
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(75)
            .build_cartesian_2d(v.x_range(), lo..hi.max(lo + 1.0) * 1.01)
            .map_err(plot_err)?;
        chart
            .configure_mesh()
            .x_desc("time (s)")
            .y_desc("sequence offset (KB)")
            .y_label_formatter(&|v| format!("{v:.0}"))
            .label_style((FONT, 14))
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(plot_err)?;
        for m in &MARKS {
            let pts: Vec<(f64, f64)> = rows
                .iter()
                .filter(|r| v.trace.is_base_station(r.sender) == m.base_station && r.kind == m.kind)
                .map(|r| (secs(r.at), kb(r.seq)))
                .collect();
            if pts.is_empty() {
                continue;
            }
            let (c, sz) = (m.color, m.size);
            // counted in segments: one timeout resends every segment from the first unacknowledged
            // one as slow start reopens the window, so it is not the run's count of timeouts
            let label = format!("{} ({} segments)", m.label, pts.len());
            match m.kind {
                SendKind::New | SendKind::Persist => chart
                    .draw_series(pts.iter().map(|&p| Circle::new(p, sz, c.filled())))
                    .map_err(plot_err)?
                    .label(label)
                    .legend(move |(x, y)| Circle::new((x + 8, y), 3, c.filled())),
                SendKind::Fast => chart
                    .draw_series(pts.iter().map(|&p| TriangleMarker::new(p, sz, c.filled())))
                    .map_err(plot_err)?
                    .label(label)
                    .legend(move |(x, y)| TriangleMarker::new((x + 8, y), 5, c.filled())),
                SendKind::Timeout => chart
                    .draw_series(
                        pts.iter()
                            .map(|&p| Cross::new(p, sz, ShapeStyle::from(&c).stroke_width(2))),
                    )
                    .map_err(plot_err)?
                    .label(label)
                    .legend(move |(x, y)| {
                        Cross::new((x + 8, y), 5, ShapeStyle::from(&c).stroke_width(2))
                    }),
                SendKind::Local => chart
                    .draw_series(
                        pts.iter()
                            .map(|&p| Circle::new(p, sz, ShapeStyle::from(&c).stroke_width(2))),
                    )
                    .map_err(plot_err)?
                    .label(label)
                    .legend(move |(x, y)| {
                        Circle::new((x + 8, y), 4, ShapeStyle::from(&c).stroke_width(2))
                    }),
            };
        }
        // paper 002's Fig. 9: each handoff a vertical line
        let handoffs: Vec<f64> = v
            .trace
            .handoffs
            .iter()
            .filter(|h| v.contains(h.at))
            .map(|h| secs(h.at))
            .collect();
        if !handoffs.is_empty() {
            let top = hi.max(lo + 1.0) * 1.01;
            let c = PALETTE[5];
            chart
                .draw_series(
                    handoffs
                        .iter()
                        .map(|&x| PathElement::new(vec![(x, lo), (x, top)], c.stroke_width(1))),
                )
                .map_err(plot_err)?
                .label(format!("handoff ({})", handoffs.len()))
                .legend(move |(x, y)| PathElement::new(vec![(x + 8, y - 6), (x + 8, y + 6)], c));
        }
        draw_legend(&mut chart, SeriesLabelPosition::UpperLeft)?;
        Ok(())
    }
}

/// Congestion window and slow-start threshold of each sender against time, as steps.
pub struct WindowPlot<'a>(pub View<'a>);

/// `(t, value)` changes as a step line ending at `end`.
fn steps(points: &[(f64, f64)], end: f64) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(points.len() * 2 + 1);
    for (i, &(t, v)) in points.iter().enumerate() {
        if i > 0 {
            out.push((t, points[i - 1].1));
        }
        out.push((t, v));
    }
    if let Some(&(_, v)) = points.last() {
        out.push((end, v));
    }
    out
}

/// A line of the window plot.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Line {
    Cwnd,
    Ssthresh,
    SndCur,
}

impl Line {
    fn of(self, r: &WindowRow) -> u32 {
        match self {
            Line::Cwnd => r.cwnd,
            Line::Ssthresh => r.ssthresh,
            Line::SndCur => r.snd_cur(),
        }
    }
}

impl Chart for WindowPlot<'_> {
    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let v = &self.0;
        area.fill(&WHITE).map_err(plot_err)?;
        let kb = |b: u32| f64::from(b) / 1024.0;
        let x = v.x_range();
        // ssthresh starts at "infinity": it is cut at the top of the plot
        let top = 1.15
            * v.trace
                .windows
                .iter()
                .map(|r| kb(r.cwnd))
                .fold(1.0, f64::max);
        let mut chart = ChartBuilder::on(area)
            .caption(&v.title, (FONT, 20))
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(70)
            .build_cartesian_2d(x.clone(), 0.0..top)
            .map_err(plot_err)?;
        chart
            .configure_mesh()
            .x_desc("time (s)")
            .y_desc("window (KB)")
            .label_style((FONT, 14))
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(plot_err)?;
        // snd_cur (paper 001 Figs. 7-11) only where the peer's window bounded the sender: else
        // it is the cwnd line again
        let bounded = v.trace.windows.iter().any(|r| {
            r.flow == v.flow
                && !v.trace.is_base_station(r.sender)
                && r.snd_wnd > 0
                && r.snd_cur() < r.cwnd
        });
        let series = [
            (false, Line::Cwnd, "sender cwnd", PALETTE[0]),
            (false, Line::Ssthresh, "sender ssthresh", PALETTE[1]),
            (
                false,
                Line::SndCur,
                "sender snd_cur = min(cwnd, snd_wnd)",
                PALETTE[4],
            ),
            (true, Line::Cwnd, "BS cwnd (split)", PALETTE[2]),
            (true, Line::Ssthresh, "BS ssthresh (split)", PALETTE[3]),
        ];
        for (bs, line, label, color) in series {
            if line == Line::SndCur && !bounded {
                continue;
            }
            // the value in force when the window opens, then every change inside it
            let rows: Vec<_> = v
                .trace
                .windows
                .iter()
                .filter(|r| r.flow == v.flow && v.trace.is_base_station(r.sender) == bs)
                .collect();
            let start = rows.iter().rev().find(|r| r.at < v.from);
            let pts: Vec<(f64, f64)> = start
                .map(|r| (x.start, *r))
                .into_iter()
                .chain(
                    rows.iter()
                        .filter(|r| v.contains(r.at))
                        .map(|r| (secs(r.at), *r)),
                )
                .map(|(t, r)| (t, kb(line.of(r)).min(top)))
                .collect();
            if pts.is_empty() {
                continue;
            }
            let style =
                ShapeStyle::from(&color).stroke_width(if line == Line::Cwnd { 2 } else { 1 });
            chart
                .draw_series(LineSeries::new(steps(&pts, x.end), style))
                .map_err(plot_err)?
                .label(label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], style));
        }
        draw_legend(&mut chart, SeriesLabelPosition::UpperRight)?;
        Ok(())
    }
}

/// Segments the base station holds (snoop's cache or a split relay) against time.
pub struct HeldPlot<'a>(pub View<'a>);

impl Chart for HeldPlot<'_> {
    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let v = &self.0;
        area.fill(&WHITE).map_err(plot_err)?;
        let x = v.x_range();
        let top = v
            .trace
            .held
            .iter()
            .map(|r| r.segments)
            .max()
            .unwrap_or(1)
            .max(1);
        let mut chart = ChartBuilder::on(area)
            .caption(&v.title, (FONT, 20))
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(60)
            .build_cartesian_2d(x.clone(), 0.0..f64::from(top) * 1.1)
            .map_err(plot_err)?;
        chart
            .configure_mesh()
            .x_desc("time (s)")
            .y_desc("segments held at the base station")
            .label_style((FONT, 14))
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(plot_err)?;
        let pts: Vec<(f64, f64)> = v
            .trace
            .held
            .iter()
            .filter(|r| v.contains(r.at))
            .map(|r| (secs(r.at), f64::from(r.segments)))
            .collect();
        chart
            .draw_series(LineSeries::new(steps(&pts, x.end), &PALETTE[4]))
            .map_err(plot_err)?;
        let sup: Vec<f64> = v
            .trace
            .suppressed
            .iter()
            .filter(|r| r.flow == v.flow && v.contains(r.at))
            .map(|r| secs(r.at))
            .collect();
        if !sup.is_empty() {
            let c = PALETTE[1];
            chart
                .draw_series(sup.iter().map(|&t| Cross::new((t, 0.0), 3, c)))
                .map_err(plot_err)?
                .label(format!("duplicate ACK suppressed ({})", sup.len()))
                .legend(move |(x, y)| Cross::new((x + 8, y), 4, c));
            draw_legend(&mut chart, SeriesLabelPosition::UpperRight)?;
        }
        Ok(())
    }
}

/// Writes `sequence`, `cwnd` and (when the base station held anything) `bs_cache` plots into `dir`.
pub fn plot_trace(dir: &Path, view: &View) -> Result<Vec<Figure>, String> {
    let flows = &view.trace.flows;
    if flows.len() <= 1 {
        return plot_flow(dir, view, "");
    }
    // several flows: each its own sequence and window plots, named after the flow
    let mut out = vec![];
    for (i, name) in flows.iter().enumerate() {
        let v = View {
            flow: i,
            title: format!("{}, flow {name}", view.title),
            ..view.clone()
        };
        out.extend(plot_flow(dir, &v, &format!("-{name}"))?);
    }
    Ok(out)
}

/// The plots of one flow, into files named `sequence<suffix>`, ...
fn plot_flow(dir: &Path, view: &View, suffix: &str) -> Result<Vec<Figure>, String> {
    let mut out = vec![
        save(
            dir,
            &format!("sequence{suffix}"),
            SIZE,
            &SequencePlot(view.clone()),
        )?,
        save(
            dir,
            &format!("cwnd{suffix}"),
            SIZE,
            &WindowPlot(view.clone()),
        )?,
    ];
    if view.trace.held.iter().any(|r| r.segments > 0) {
        out.push(save(
            dir,
            &format!("bs_cache{suffix}"),
            SIZE,
            &HeldPlot(view.clone()),
        )?);
    }
    Ok(out)
}
