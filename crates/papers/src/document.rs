//! A paper's report as neutral data: headings, paragraphs, tables, the claims, charts and example
//! runs, in the order they are read. The command line renders one document as text for the
//! terminal and as a section of the HTML report (`cli/src/render.rs`), so no paper writes a renderer
//! of its own, and a new paper or study only says what its report holds.

use snooplab_sim::stats::Summary;
use snooplab_sim::Job;

use crate::claim::Claim;

/// A report, top to bottom.
#[derive(Clone, Debug, Default)]
pub struct Document {
    pub blocks: Vec<Block>,
}

/// One piece of a report.
#[derive(Clone, Debug)]
pub enum Block {
    /// A section's heading.
    Heading(String),
    /// A paragraph, on the terminal and on the page.
    Text(String),
    /// A paragraph the page shows and the terminal leaves out: how a figure or a run was made,
    /// more than a terminal reader needs beside the table.
    PageOnly(String),
    Table(Table),
    /// The paper's claims as checked, each with what we measured.
    Claims(Vec<Claim>),
    /// A chart (the page only), drawn into the paper's directory as `file`.png and `.svg`.
    Chart {
        chart: Chart,
        file: String,
        caption: String,
    },
    /// One run traced and plotted (the page only): its sequence and window plots in the paper's
    /// directory under `file`/, every flow's or only `flow`'s shown, each caption after `label`.
    Example {
        job: Box<Job>,
        file: String,
        flow: Option<usize>,
        label: Option<String>,
    },
}

/// A table: a column heading for each column (the first heads the row names), then the rows.
#[derive(Clone, Debug, Default)]
pub struct Table {
    pub title: Option<String>,
    pub columns: Vec<String>,
    pub rows: Vec<Row>,
}

/// A row of a [`Table`].
#[derive(Clone, Debug)]
pub enum Row {
    /// A measured row: its name, then a cell per column.
    Cells(Vec<Cell>),
    /// A line that belongs to the row above (the paper's values, our distance from them).
    Under(Vec<Cell>),
    /// A remark across the whole table's width under the row above.
    Note(String),
}

/// One cell: its text, whether it marks a miss (the page shades it), and a detail the page shows
/// in small type under the text (a 95% interval) where the terminal has no room for it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Cell {
    pub text: String,
    pub miss: bool,
    pub detail: Option<String>,
}

impl Cell {
    pub fn miss(text: impl Into<String>, miss: bool) -> Cell {
        Cell {
            text: text.into(),
            miss,
            detail: None,
        }
    }

    /// A cell with a detail for the page.
    pub fn with_detail(text: impl Into<String>, detail: impl Into<String>) -> Cell {
        Cell {
            text: text.into(),
            miss: false,
            detail: Some(detail.into()),
        }
    }
}

impl<T: Into<String>> From<T> for Cell {
    fn from(text: T) -> Cell {
        Cell {
            text: text.into(),
            miss: false,
            detail: None,
        }
    }
}

impl Row {
    /// A measured row from texts.
    pub fn cells<I: IntoIterator<Item = S>, S: Into<Cell>>(cells: I) -> Row {
        Row::Cells(cells.into_iter().map(Into::into).collect())
    }
    /// A line under the row above, from texts.
    pub fn under<I: IntoIterator<Item = S>, S: Into<Cell>>(cells: I) -> Row {
        Row::Under(cells.into_iter().map(Into::into).collect())
    }
}

impl Document {
    pub fn push(&mut self, b: Block) {
        self.blocks.push(b);
    }
    pub fn heading(&mut self, s: impl Into<String>) {
        self.push(Block::Heading(s.into()));
    }
    pub fn text(&mut self, s: impl Into<String>) {
        self.push(Block::Text(s.into()));
    }
    pub fn page_only(&mut self, s: impl Into<String>) {
        self.push(Block::PageOnly(s.into()));
    }
    pub fn table(&mut self, t: Table) {
        self.push(Block::Table(t));
    }
    pub fn claims(&mut self, c: &[Claim]) {
        if !c.is_empty() {
            self.push(Block::Claims(c.to_vec()));
        }
    }
    pub fn chart(&mut self, chart: Chart, file: impl Into<String>, caption: impl Into<String>) {
        self.push(Block::Chart {
            chart,
            file: file.into(),
            caption: caption.into(),
        });
    }
    pub fn example(&mut self, job: Job, file: impl Into<String>) {
        self.push(Block::Example {
            job: Box::new(job),
            file: file.into(),
            flow: None,
            label: None,
        });
    }
    /// An example run of several flows of which the page shows one flow's plots (all are
    /// written), each caption after `label`.
    pub fn example_of_flow(
        &mut self,
        job: Job,
        file: impl Into<String>,
        flow: usize,
        label: impl Into<String>,
    ) {
        self.push(Block::Example {
            job: Box::new(job),
            file: file.into(),
            flow: Some(flow),
            label: Some(label.into()),
        });
    }
}

/// The charts a report can ask for.
#[derive(Clone, Debug)]
pub enum Chart {
    Bars(Bars),
    Sweep(Sweep),
    Series(Series),
    Heat(Heat),
}

/// One bar of a [`Bars`] chart: ours, with an interval or range drawn as a whisker, and the
/// paper's value beside it where the paper gives one.
#[derive(Clone, Copy, Debug)]
pub struct Bar {
    pub value: f64,
    /// (low, high) of the whisker: a 95% interval or the range over trials.
    pub whisker: Option<(f64, f64)>,
    pub paper: Option<f64>,
}

impl Bar {
    /// A mean with its 95% interval (no whisker for one trial, which has none).
    pub fn mean_ci(s: &Summary) -> Bar {
        Bar {
            value: s.mean,
            whisker: s.ci95.map(|c| (s.mean - c, s.mean + c)),
            paper: None,
        }
    }

    /// A mean with the range of the trials (paper 001 Fig. 19's lines).
    pub fn mean_range(s: &Summary) -> Bar {
        Bar {
            value: s.mean,
            whisker: Some((s.min, s.max)),
            paper: None,
        }
    }

    /// A value with no whisker.
    pub fn plain(value: f64) -> Bar {
        Bar {
            value,
            whisker: None,
            paper: None,
        }
    }
}

/// One series of a [`Bars`] chart (one colour): a bar per group, `None` where it was not run.
#[derive(Clone, Debug)]
pub struct BarSeries {
    pub name: String,
    pub bars: Vec<Option<Bar>>,
}

/// Grouped bars: one slot per group along x, in it one bar per series (two where the chart has
/// the paper's values: ours solid, the paper's lighter with an outline).
#[derive(Clone, Debug)]
pub struct Bars {
    pub title: String,
    pub y_desc: String,
    pub groups: Vec<String>,
    pub series: Vec<BarSeries>,
}

/// One line of a [`Sweep`]: a protocol's mean throughput at each error rate.
#[derive(Clone, Debug)]
pub struct Line {
    pub name: String,
    /// (mean bytes between errors, mean throughput Mb/s, half-width of its 95% interval; 0, no
    /// whisker, where there is none).
    pub points: Vec<(u64, f64, f64)>,
}

/// Throughput against the mean bytes between errors, log axis, one line per protocol (paper 000
/// Fig. 12, paper 004 Fig. 2), with the 95% interval of each point as a bar.
#[derive(Clone, Debug)]
pub struct Sweep {
    pub title: String,
    pub lines: Vec<Line>,
}

/// One line of a [`Series`] chart: (x, y) points in order, drawn as steps (a value holds until
/// the next sample, as a window does).
#[derive(Clone, Debug)]
pub struct SeriesLine {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// Values over time, one line per source (the kernel check's congestion windows: the kernel's
/// `TCP_INFO` samples beside the model's trace).
#[derive(Clone, Debug)]
pub struct Series {
    pub title: String,
    pub x_desc: String,
    pub y_desc: String,
    pub lines: Vec<SeriesLine>,
}

/// A grid of values, a colour per cell with its text in it: `values[row][column]`, `None` where
/// nothing was measured (an agent's gain per sender over the error rate and the path's RTT).
#[derive(Clone, Debug)]
pub struct Heat {
    pub title: String,
    pub x_desc: String,
    pub y_desc: String,
    pub columns: Vec<String>,
    pub rows: Vec<String>,
    pub values: Vec<Vec<Option<f64>>>,
    /// The value the colour scale is centred on (a gain of 1: no change), drawn white.
    pub neutral: f64,
}
