//! What a scenario's flow carries (issue 53, item 1; docs/networks.md, docs/web-workload.md): one
//! bulk transfer, as every run before, or pages of request/response objects that its `to` host
//! (the client, a browser) fetches from its `from` host (the server) over the application of
//! `proto/src/app/`, a connection per object (HTTP/1.0) or persistent ones (HTTP/1.1).
//!
//! The server is `from` and the client `to` so that a flow's bytes go from `from` to `to` for
//! either workload: paper 004's Web workload is downloads "to mobile hosts", so a file whose bulk
//! flow runs from the fixed host to the mobile host fetches its pages that way by adding the keys.

use snooplab_proto::time::Time;

use super::model::Spec;
use super::page::{page, Object, Page, MAX_PAGES};
use super::plan::Http;

/// At most this many objects in one run, over all its flows: each object's times are kept to
/// the end of the run for its result (about 60 bytes each), so the bound keeps them under 60 MB.
/// A study's point needs 1,000 pages (issue 53), about 3,000 objects of Mah's model.
pub const MAX_OBJECTS_PER_RUN: u64 = 1_000_000;

/// At most this many connections a host's workloads may hold open at once, over all its flows
/// (each flow's HTTP/1.0 `parallel` or HTTP/1.1 connections, plus the page's document
/// connection that HTTP/1.0 closes before the others open): a host looks an arriving segment up
/// among its connections one by one, so the bound keeps that look-up short. A connection in
/// TIME_WAIT is not counted: it is the server's (HTTP/1.0) or one per page (HTTP/1.1).
pub const MAX_OPEN_PER_HOST: u64 = 64;

/// At most this many objects in a page of the fixed source: SURGE 1.2's own limit on files per
/// object (`OBJLIMIT`, the bound `model.rs` clamps drawn pages to).
pub const MAX_FIXED_OBJECTS: u64 = 150;

/// What a flow carries.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum FlowWorkload {
    /// One transfer of the flow's `transfer` bytes from `from` to `to`.
    #[default]
    Bulk,
    /// Pages fetched by `to` from `from`.
    Pages(PagesSpec),
}

/// Pages fetched over request/response connections.
#[derive(Clone, Debug, PartialEq)]
pub struct PagesSpec {
    pub source: PageSource,
    /// How many pages, one after another (each after the previous one's think time).
    pub pages: u32,
    pub http: Http,
}

/// Where a flow's pages come from.
#[derive(Clone, Debug, PartialEq)]
pub enum PageSource {
    /// Every page alike: `objects` objects (the document included), each a request and a
    /// response of so many bytes, and a think time after it (the scenario keys' first cut: no
    /// table needed).
    Fixed {
        objects: u16,
        request_bytes: u32,
        response_bytes: u32,
        think: Time,
    },
    /// Drawn from a model's spec with the run's seed (`page.rs`): Mah's tables, read when the
    /// file was read.
    Model(Box<Spec>),
}

impl FlowWorkload {
    pub fn is_bulk(&self) -> bool {
        matches!(self, FlowWorkload::Bulk)
    }
}

impl PagesSpec {
    /// The flow's pages for the run's seed: the same seed gives the same pages, whatever the
    /// protocol, channel or clock.
    pub fn pages(&self, seed: u64) -> Vec<Page> {
        (0..u64::from(self.pages))
            .map(|i| self.page(seed, i))
            .collect()
    }

    /// The `i`-th page.
    pub fn page(&self, seed: u64, i: u64) -> Page {
        match &self.source {
            PageSource::Fixed {
                objects,
                request_bytes,
                response_bytes,
                think,
            } => Page {
                objects: vec![
                    Object {
                        request_bytes: *request_bytes,
                        reply_bytes: *response_bytes,
                    };
                    usize::from(*objects)
                ],
                think: *think,
            },
            PageSource::Model(spec) => page(spec, seed, i),
        }
    }

    /// How many connections the flow's client holds open at once at most.
    pub fn open_at_once(&self) -> u64 {
        match self.http {
            // the document's connection closes before the embedded objects' open
            Http::Http10 { parallel } => u64::from(parallel),
            Http::Http11 { connections, .. } => u64::from(connections),
        }
    }

    /// The checks of one flow's spec alone; the message names `what`.
    pub fn check(&self, what: &str) -> Result<(), String> {
        if self.pages == 0 || self.pages as usize > MAX_PAGES {
            return Err(format!(
                "{what}: pages must be 1 to {MAX_PAGES}, not {}",
                self.pages
            ));
        }
        if let PageSource::Fixed {
            objects,
            request_bytes,
            response_bytes,
            ..
        } = &self.source
        {
            if *objects == 0 || u64::from(*objects) > MAX_FIXED_OBJECTS {
                return Err(format!(
                    "{what}: objects must be 1 to {MAX_FIXED_OBJECTS}, not {objects}"
                ));
            }
            if *request_bytes == 0 || *response_bytes == 0 {
                return Err(format!(
                    "{what}: request-bytes and response-bytes must be at least 1"
                ));
            }
        }
        Ok(())
    }
}

/// The objects every flow's pages hold, refused in one line above [`MAX_OBJECTS_PER_RUN`].
pub fn check_objects(flows: &[(&str, &PagesSpec)], seed: u64) -> Result<(), String> {
    let mut total = 0u64;
    for (name, spec) in flows {
        for i in 0..u64::from(spec.pages) {
            total += spec.page(seed, i).objects.len() as u64;
            if total > MAX_OBJECTS_PER_RUN {
                return Err(format!(
                    "flow '{name}': the run's workloads ask for more than {MAX_OBJECTS_PER_RUN} objects"
                ));
            }
        }
    }
    Ok(())
}

/// A network's workload flows, checked before it runs, each fault refused in one line: each
/// flow's spec, the connections a host holds open at once ([`MAX_OPEN_PER_HOST`], over the flows
/// it is the client or the server of) and the objects of the run ([`MAX_OBJECTS_PER_RUN`]).
pub fn check_network(net: &crate::network::Network) -> Result<(), String> {
    if net.flows.iter().all(|f| f.workload.is_bulk()) {
        return Ok(());
    }
    let mut open = vec![0u64; net.nodes.len()];
    let mut flows = Vec::new();
    let routes = crate::network::Routes::new(net);
    for fl in &net.flows {
        let FlowWorkload::Pages(spec) = &fl.workload else {
            continue;
        };
        let what = format!("flow '{}'", fl.name);
        spec.check(&what)?;
        // a split relay carries a connection's bytes one way, from the host that opened it
        // (`proto/src/agent/split.rs`): the client opens, and the pages come the other way
        if let Some(&n) = routes.path(net, fl.from, fl.to).iter().find(|&&n| {
            matches!(
                net.nodes[n].kind,
                crate::network::NodeKind::BaseStation {
                    agent: crate::protocol::AgentKind::Split { .. },
                    ..
                }
            )
        }) {
            return Err(format!(
                "{what}: workload = \"web\" through the split base station '{}': its relays \
                 carry a connection's bytes only from the host that opened it, and the pages \
                 come from the other end",
                net.nodes[n].name
            ));
        }
        for n in [fl.from, fl.to] {
            open[n] += spec.open_at_once();
            if open[n] > MAX_OPEN_PER_HOST {
                return Err(format!(
                    "{what}: host '{}' would hold more than {MAX_OPEN_PER_HOST} workload connections open at once",
                    net.nodes[n].name
                ));
            }
        }
        flows.push((fl.name.as_str(), spec));
    }
    check_objects(&flows, net.seed)
}
