//! The two Web workload models as named readings (docs/web-workload.md): every distribution and
//! parameter with its source, and whether its number was checked against a text we could read.
//!
//! Neither paper's text was readable here (only their openings), so the numbers below come from
//! the papers as commonly cited and are marked `checked: None`; the few that were checked name
//! the text read. docs/web-workload.md lists them all.

use super::sample::Dist;

/// Which model the pages come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Model {
    /// Barford and Crovella, "Generating Representative Web Workloads for Network and Server
    /// Performance Evaluation", SIGMETRICS 1998 (SURGE), its table of distributions (section 3).
    Surge,
    /// Mah, "An Empirical Model of HTTP Network Traffic", INFOCOM 1997 (Berkeley packet traces),
    /// section 4's statistics. Provisional: none of its numbers here is checked (see `spec`).
    Mah,
}

/// The readings' names, in the order `Model::ALL` lists them; the first is the default.
pub const MODEL_NAMES: [&str; 2] = ["surge", "mah"];

impl Model {
    pub const ALL: [Model; 2] = [Model::Surge, Model::Mah];

    pub fn name(self) -> &'static str {
        match self {
            Model::Surge => "surge",
            Model::Mah => "mah",
        }
    }

    /// The model a name gives, or the one-line message naming the known ones.
    pub fn from_name(name: &str) -> Result<Model, String> {
        Model::ALL
            .into_iter()
            .find(|m| m.name() == name)
            .ok_or_else(|| {
                format!(
                    "unknown workload model '{name}' (known: {})",
                    MODEL_NAMES.join(", ")
                )
            })
    }

    pub fn spec(self) -> &'static Spec {
        match self {
            Model::Surge => &SURGE,
            Model::Mah => &MAH,
        }
    }
}

/// One quantity of a model: its distribution, the bound a draw is clamped to, and its source.
#[derive(Clone, Copy, Debug)]
pub struct Param {
    pub dist: Dist,
    /// Draws above are clamped to this (never resampled, so the stream's draws stay aligned);
    /// below 1 a size or count is raised to 1. Each cap says why in the `Spec` it belongs to.
    pub cap: f64,
    /// The paper, table or section the distribution and its numbers come from.
    pub source: &'static str,
    /// The text the numbers were checked against, or `None` where they were not.
    pub checked: Option<&'static str>,
}

/// A model: what a page is made of.
#[derive(Clone, Copy, Debug)]
pub struct Spec {
    /// Files per page, the document included: `floor` of a draw, at least 1.
    pub files_per_page: Param,
    /// The document's reply, bytes.
    pub document_bytes: Param,
    /// Each embedded object's reply, bytes.
    pub embedded_bytes: Param,
    /// Each HTTP request, bytes.
    pub request_bytes: Param,
    /// The user's think (OFF) time after a page has loaded, seconds.
    pub think_s: Param,
}

/// At most this many files in a page: SURGE 1.2's own limit on files per object (`OBJLIMIT` in
/// `Surgeclient.h`, "max number of files per object"). Read in a public copy of SURGE 1.2's client.
pub const MAX_FILES_PER_PAGE: f64 = 150.0;

/// A reply above 10^8 bytes is clamped. With SURGE's tail (alpha 1.1 above 133 KB, about 3% of
/// files) a file exceeds it with probability about 2e-5: the cap keeps a few-thousand-page study
/// from spending its time cap on one file, and fits a `u32`.
pub const MAX_REPLY_BYTES: f64 = 1e8;

/// A request above 64 KiB is clamped: the GETs of the time were a line and a few headers.
pub const MAX_REQUEST_BYTES: f64 = 65_536.0;

/// A think time above 600 s is clamped: the live step waits it out on the real clock. With
/// SURGE's Pareto (alpha 1.5, k 1 s) that touches 600^-1.5, about 7e-5 of the pages.
pub const MAX_THINK_S: f64 = 600.0;

const SURGE_TABLE: &str =
    "Barford and Crovella, SIGMETRICS 1998, section 3, table of SURGE's distributions";

static SURGE: Spec = Spec {
    files_per_page: Param {
        dist: Dist::Pareto { alpha: 2.43, k: 1.0 },
        cap: MAX_FILES_PER_PAGE,
        source: "SURGE table: embedded references, Pareto alpha 2.43, k 1 (read here as files per object, the document included)",
        checked: None,
    },
    document_bytes: SURGE_FILE_SIZE,
    embedded_bytes: SURGE_FILE_SIZE,
    request_bytes: Param {
        dist: Dist::Constant(80.0),
        cap: MAX_REQUEST_BYTES,
        source: "SURGE models no request-message size (its 'request sizes' are the sizes of the files transferred); 80 bytes is SURGE 1.2's request-line buffer (URLSIZE in Surgeclient.h)",
        checked: Some("a public copy of SURGE 1.2's Surgeclient.h: URLSIZE 80"),
    },
    think_s: Param {
        dist: Dist::Pareto { alpha: 1.5, k: 1.0 },
        cap: MAX_THINK_S,
        source: "SURGE table: OFF times, Pareto alpha 1.5, k 1 s (SURGE 1.1 on has no active OFF time within an object, and its HTTP/1.0 client sleeps the OFF time after all of an object's files: checked in SURGE 1.2's Surgeclient.c and client10.c; the numbers are not; wtg-seal, a SURGE-based generator, uses alpha 1.4)",
        checked: None,
    },
};

const SURGE_FILE_SIZE: Param = Param {
    dist: Dist::LogNormalParetoTail {
        mu: 9.357,
        sigma: 1.318,
        alpha: 1.1,
        cut: 133_000.0,
    },
    cap: MAX_REPLY_BYTES,
    source: SURGE_TABLE,
    checked: None,
};

/// Mah's reading. Mah published empirical distributions (CDFs) and summary statistics, not
/// fitted families; these are families matched to his statistics as recalled, none checked:
/// a study must not rely on this reading before each number is read in section 4 of the paper.
static MAH: Spec = Spec {
    files_per_page: Param {
        // floor(Pareto(1.4, 1)) has median 1 and mean zeta(1.4), about 3.1.
        dist: Dist::Pareto { alpha: 1.4, k: 1.0 },
        cap: MAX_FILES_PER_PAGE,
        source: "Mah 1997, section 4, files per document: median 1, mean about 3 (as recalled); Pareto alpha 1.4 matches both",
        checked: None,
    },
    document_bytes: MAH_REPLY,
    embedded_bytes: MAH_REPLY,
    request_bytes: Param {
        dist: Dist::Constant(250.0),
        cap: MAX_REQUEST_BYTES,
        source: "Mah 1997, section 4, request length: median about 250 bytes (as recalled)",
        checked: None,
    },
    think_s: Param {
        // Median k 2^(1/alpha) = 15 s.
        dist: Dist::Pareto {
            alpha: 1.5,
            k: 9.449,
        },
        cap: MAX_THINK_S,
        source: "Mah 1997, section 4, think time: heavy-tailed, median about 15 s (as recalled); Pareto alpha 1.5 taken from SURGE's OFF times",
        checked: None,
    },
};

const MAH_REPLY: Param = Param {
    // Median e^mu = 2,000 bytes; mean e^(mu + sigma^2 / 2) = 8,500 bytes.
    dist: Dist::LogNormal {
        mu: 7.600_902,
        sigma: 1.701_2,
    },
    cap: MAX_REPLY_BYTES,
    source: "Mah 1997, section 4, reply length: heavy-tailed, median about 2 KB, mean about 8-10 KB (as recalled); a lognormal with median 2,000 and mean 8,500 bytes",
    checked: None,
};
