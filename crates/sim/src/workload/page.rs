//! Pages drawn from a model: a workload is a function of (model, seed, number of pages) only, so
//! every protocol, channel and clock given the same three gets the same pages, byte for byte
//! (for Mah's model, the same tables too: `mah_tables.rs`).

use super::model::{Model, Param, Spec};
use crate::rng::{Rng, Stream};
use snooplab_proto::time::{Time, SEC};

/// One request and its reply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Object {
    pub request_bytes: u32,
    pub reply_bytes: u32,
}

/// A page: its document first, then its embedded objects in the order the document names them,
/// and the user's think time after it has loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Page {
    pub objects: Vec<Object>,
    pub think: Time,
}

impl Page {
    pub fn document(&self) -> Object {
        self.objects[0]
    }

    pub fn embedded(&self) -> &[Object] {
        &self.objects[1..]
    }
}

/// A workload: `pages` pages of a model's spec from a seed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Workload {
    pub model: Model,
    pub seed: u64,
    pub pages: Vec<Page>,
}

/// At most this many pages in one workload. A page holds at most 150 objects of 8 bytes, so the
/// bound keeps a workload under about 120 MB whatever it draws; the study needs 1,000 pages per
/// protocol and channel (issue 53), a hundred times fewer.
pub const MAX_PAGES: usize = 100_000;

impl Workload {
    pub fn generate(spec: &Spec, seed: u64, pages: usize) -> Result<Workload, String> {
        if pages == 0 || pages > MAX_PAGES {
            return Err(format!(
                "a workload has 1 to {MAX_PAGES} pages, not {pages}"
            ));
        }
        Ok(Workload {
            model: spec.model,
            seed,
            pages: (0..pages).map(|i| page(spec, seed, i as u64)).collect(),
        })
    }
}

/// The `index`-th page of a model's spec and a seed. Each page draws from its own stream
/// (`Stream::Workload`, indexed by the page), so page `i` is the same whatever the number of
/// pages asked for, and a consumer may draw pages one at a time instead of holding them all.
/// Draws, in order: the number of files; each file's request then its reply; the think time.
pub fn page(spec: &Spec, seed: u64, index: u64) -> Page {
    let mut rng = Rng::indexed(seed, Stream::Workload, index);
    let files = clamp(&spec.files_per_page, &mut rng).floor() as usize;
    let objects = (0..files)
        .map(|i| {
            let (request, reply) = if i == 0 {
                (&spec.document_request_bytes, &spec.document_bytes)
            } else {
                (&spec.embedded_request_bytes, &spec.embedded_bytes)
            };
            let request_bytes = clamp(request, &mut rng) as u32;
            Object {
                request_bytes,
                reply_bytes: clamp(reply, &mut rng) as u32,
            }
        })
        .collect();
    let think_s = clamp(&spec.think_s, &mut rng);
    Page {
        objects,
        think: (think_s * SEC as f64) as Time,
    }
}

/// A draw clamped to `[1, cap]` (a size or count below 1 is 1); sizes then truncate to whole bytes.
fn clamp(param: &Param, rng: &mut Rng) -> f64 {
    let v = param.dist.sample(rng);
    if v.is_nan() {
        return 1.0;
    }
    v.clamp(1.0, param.cap)
}
