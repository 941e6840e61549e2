//! The two Web workload models as named readings (docs/web-workload.md): every distribution and
//! parameter with its source, and the text its numbers were checked against.
//!
//! `mah` is Bruce Mah's own empirical CDFs, drawn as GloMoSim 2.02's HTTP client and server
//! draw them; the tables themselves are not shipped and are read at run time
//! (`mah_tables.rs`), so a Mah [`Spec`] is built from [`MahTables`]. `surge` is Barford and
//! Crovella's table as commonly cited: the paper's text could not be read here, so its numbers
//! are unchecked and the model is refused by [`Model::require_verified`].

use super::cdf::Cdf;
use super::mah_tables::MahTables;
use super::sample::Dist;
use std::sync::Arc;

/// Which model the pages come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Model {
    /// Barford and Crovella, "Generating Representative Web Workloads for Network and Server
    /// Performance Evaluation", SIGMETRICS 1998 (SURGE), its table of distributions (section 3).
    Surge,
    /// Mah, "An Empirical Model of HTTP Network Traffic", INFOCOM 1997 (Berkeley packet traces),
    /// drawn from his empirical CDFs (read at run time, `mah_tables.rs`) as GloMoSim 2.02
    /// draws them.
    Mah,
}

/// The readings' names, in the order `Model::ALL` lists them; the first is the default, the
/// verified one.
pub const MODEL_NAMES: [&str; 2] = ["mah", "surge"];

impl Model {
    pub const ALL: [Model; 2] = [Model::Mah, Model::Surge];

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

    /// The model's spec: SURGE's is built in; Mah's is drawn from his tables in the directory
    /// `SNOOPLAB_MAH_CDF_DIR` names, and refused in one line without them
    /// ([`MahTables::from_env`]). A caller with its own directory uses [`MahTables::load`] and
    /// [`Spec::mah`].
    pub fn spec(self) -> Result<Spec, String> {
        match self {
            Model::Surge => Ok(Spec::surge()),
            Model::Mah => Ok(Spec::mah(&MahTables::from_env()?)),
        }
    }

    /// The names of the quantities whose numbers were not checked against a text (no table
    /// needed: whether Mah's reading was checked does not depend on the files).
    pub fn unchecked(self) -> Vec<&'static str> {
        match self {
            Model::Surge => SURGE.unchecked(),
            Model::Mah => MAH
                .into_iter()
                .filter(|q| q.checked.is_none())
                .map(|q| q.name)
                .collect(),
        }
    }

    /// The model if every one of its numbers was checked against a text, or the one-line
    /// message naming the first that was not. A scenario file's model must pass it; the Web
    /// study (`papers/src/web/workload.rs`) asks it whether its claims may hold or fail, and
    /// reports an unverified model's results labelled so, its claims "not checked".
    pub fn require_verified(self) -> Result<Model, String> {
        match self.unchecked().first() {
            None => Ok(self),
            Some(what) => Err(format!(
                "workload model '{}' is not verified: its {what} was not checked against its source (docs/web-workload.md)",
                self.name()
            )),
        }
    }
}

/// One quantity of a model: its distribution, the bound a draw is clamped to, and its source.
#[derive(Clone, Debug, PartialEq)]
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
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    /// The model it is.
    pub model: Model,
    /// Files per page, the document included: `floor` of a draw, at least 1.
    pub files_per_page: Param,
    /// The document's reply, bytes.
    pub document_bytes: Param,
    /// Each embedded object's reply, bytes.
    pub embedded_bytes: Param,
    /// The document's request, bytes.
    pub document_request_bytes: Param,
    /// Each embedded object's request, bytes.
    pub embedded_request_bytes: Param,
    /// The user's think (OFF) time after a page has loaded, seconds.
    pub think_s: Param,
}

impl Spec {
    /// Its quantities, each with its name.
    pub fn params(&self) -> [(&'static str, &Param); 6] {
        [
            ("files per page", &self.files_per_page),
            ("document reply", &self.document_bytes),
            ("embedded reply", &self.embedded_bytes),
            ("document request", &self.document_request_bytes),
            ("embedded request", &self.embedded_request_bytes),
            ("think time", &self.think_s),
        ]
    }

    /// The names of the quantities whose numbers were not checked against a text.
    pub fn unchecked(&self) -> Vec<&'static str> {
        self.params()
            .into_iter()
            .filter(|(_, p)| p.checked.is_none())
            .map(|(name, _)| name)
            .collect()
    }

    /// Every number checked: the model may carry a result.
    pub fn verified(&self) -> bool {
        self.unchecked().is_empty()
    }

    /// SURGE's spec (unverified).
    pub fn surge() -> Spec {
        SURGE.clone()
    }

    /// Mah's spec, drawn from his tables.
    pub fn mah(tables: &MahTables) -> Spec {
        let [files, document, embedded, document_request, embedded_request, think] = MAH;
        let cdfs = [
            &tables.files_per_document,
            &tables.primary_reply_bytes,
            &tables.secondary_reply_bytes,
            &tables.primary_request_bytes,
            &tables.secondary_request_bytes,
            &tables.think_time_s,
        ];
        let [f, d, e, dr, er, t] = cdfs.map(|cdf| Arc::new(cdf.clone()));
        Spec {
            model: Model::Mah,
            files_per_page: files.param(f),
            document_bytes: document.param(d),
            embedded_bytes: embedded.param(e),
            document_request_bytes: document_request.param(dr),
            embedded_request_bytes: embedded_request.param(er),
            think_s: think.param(t),
        }
    }
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
    model: Model::Surge,
    files_per_page: Param {
        dist: Dist::Pareto { alpha: 2.43, k: 1.0 },
        cap: MAX_FILES_PER_PAGE,
        source: "SURGE table: embedded references, Pareto alpha 2.43, k 1 (read here as files per object, the document included)",
        checked: None,
    },
    document_bytes: SURGE_FILE_SIZE,
    embedded_bytes: SURGE_FILE_SIZE,
    document_request_bytes: SURGE_REQUEST,
    embedded_request_bytes: SURGE_REQUEST,
    think_s: Param {
        dist: Dist::Pareto { alpha: 1.5, k: 1.0 },
        cap: MAX_THINK_S,
        source: "SURGE table: OFF times, Pareto alpha 1.5, k 1 s (SURGE 1.1 on has no active OFF time within an object, and its HTTP/1.0 client sleeps the OFF time after all of an object's files: checked in SURGE 1.2's Surgeclient.c and client10.c; the numbers are not; wtg-seal, a SURGE-based generator, uses alpha 1.4)",
        checked: None,
    },
};

const SURGE_REQUEST: Param = Param {
    dist: Dist::Constant(80.0),
    cap: MAX_REQUEST_BYTES,
    source: "SURGE models no request-message size (its 'request sizes' are the sizes of the files transferred); 80 bytes is SURGE 1.2's request-line buffer (URLSIZE in Surgeclient.h)",
    checked: Some("a public copy of SURGE 1.2's Surgeclient.h: URLSIZE 80"),
};

/// The body's lognormal and the tail's Pareto as the SURGE table is commonly cited (also the
/// numbers of a third-party R generator citing the paper, which though puts 7% of files in the
/// tail where this reading puts the lognormal's own 3.2%): not read in the paper.
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

/// What the Mah reading was checked against: which table each quantity is drawn from and how
/// (GloMoSim 2.02's `http_client.pc` and `http_server.pc`, which cite Mah, INFOCOM 1997); the
/// numbers are the user's copy of Mah's own files (`mah_tables.rs`).
const MAH_CHECKED: &str = "GloMoSim 2.02's http_client.pc, http_server.pc and http_distribution.c (which cite Mah, INFOCOM 1997): the table each quantity is drawn from, and how; the numbers are Mah's own CDF files, read at run time";

/// One quantity of Mah's model without its table: how it is drawn, bounded and sourced.
#[derive(Clone, Copy, Debug)]
struct MahQuantity {
    name: &'static str,
    /// Rounded up to a whole number (counts and byte lengths) or continuous (the think time).
    whole: bool,
    cap: f64,
    source: &'static str,
    checked: Option<&'static str>,
}

impl MahQuantity {
    fn param(self, cdf: Arc<Cdf>) -> Param {
        Param {
            dist: Dist::Empirical {
                cdf,
                whole: self.whole,
            },
            cap: self.cap,
            source: self.source,
            checked: self.checked,
        }
    }
}

/// Mah's model: each quantity drawn from his empirical CDF, as GloMoSim 2.02's HTTP client and
/// server draw them (`http_client.pc`, `http_server.pc`): the document's and the embedded
/// files' requests and replies from their own tables ("primary" and "secondary"), the number
/// of files per document (the document included), the think time after it. A reply of 0 bytes
/// is raised to 1 by the clamp, as GloMoSim changes "0 length request/response packets" to 1
/// byte. In `Spec`'s order: files, document reply, embedded reply, document request, embedded
/// request, think time.
const MAH: [MahQuantity; 6] = [
    MahQuantity {
        name: "files per page",
        whole: true,
        cap: MAX_FILES_PER_PAGE,
        source: "Mah 1997, files per document (HttpFilesPerDocument.cdf)",
        checked: Some(MAH_CHECKED),
    },
    MahQuantity {
        name: "document reply",
        whole: true,
        cap: MAX_REPLY_BYTES,
        source: "Mah 1997, primary (document) reply length (HttpPrimaryReply.cdf)",
        checked: Some(MAH_CHECKED),
    },
    MahQuantity {
        name: "embedded reply",
        whole: true,
        cap: MAX_REPLY_BYTES,
        source: "Mah 1997, secondary (embedded file) reply length (HttpSecondaryReply.cdf)",
        checked: Some(MAH_CHECKED),
    },
    MahQuantity {
        name: "document request",
        whole: true,
        cap: MAX_REQUEST_BYTES,
        source: "Mah 1997, primary (document) request length (HttpPrimaryRequest.cdf)",
        checked: Some(MAH_CHECKED),
    },
    MahQuantity {
        name: "embedded request",
        whole: true,
        cap: MAX_REQUEST_BYTES,
        source: "Mah 1997, secondary (embedded file) request length (HttpSecondaryRequest.cdf)",
        checked: Some(MAH_CHECKED),
    },
    MahQuantity {
        name: "think time",
        whole: false,
        cap: MAX_THINK_S,
        source: "Mah 1997, user think time between documents (HttpThinkTime.cdf)",
        checked: Some(MAH_CHECKED),
    },
];
