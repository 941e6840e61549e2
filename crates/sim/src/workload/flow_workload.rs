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
    #[inline]
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

#[cfg(test)]
mod tests {
    use super::super::mah_fixture::fixture_spec;
    use super::*;
    use crate::scenario::{default_scenario, ScenarioFile};

    const EXAMPLE: &str = include_str!("../../../../examples/web-pages-snoop.toml");

    /// The example's network with its flow's pages drawn from Mah's model on the fixture's
    /// tables (none of Mah's numbers), `pages` of them.
    fn mah_network(pages: u32, seed: u64) -> crate::network::Network {
        let mut sc = default_scenario();
        let file = ScenarioFile::parse(EXAMPLE).unwrap_or_else(|e| panic!("{e}"));
        file.apply(&mut sc).unwrap_or_else(|e| panic!("{e}"));
        let mut net = sc.network();
        net.seed = seed;
        let FlowWorkload::Pages(spec) = &mut net.flows[0].workload else {
            panic!("the example carries pages");
        };
        spec.source = PageSource::Model(Box::new(fixture_spec()));
        spec.pages = pages;
        // Mah's think times run to 600 s: give the run room for them
        net.max_time = 100_000 * snooplab_proto::time::SEC;
        net.validate().unwrap_or_else(|e| panic!("{e}"));
        net
    }

    /// A model's pages are the workload's own (`page.rs`), page for page, whatever their number.
    #[test]
    fn a_models_pages_are_the_workloads() {
        let spec = PagesSpec {
            source: PageSource::Model(Box::new(fixture_spec())),
            pages: 30,
            http: Http::Http10 { parallel: 4 },
        };
        let pages = spec.pages(7);
        for (i, p) in pages.iter().enumerate() {
            assert_eq!(*p, page(&fixture_spec(), 7, i as u64));
        }
        assert_eq!(pages[..10], spec.pages(7)[..10]);
        assert_ne!(pages, spec.pages(8));
    }

    /// Mah's pages (the fixture's tables) run end to end: every page and object in, each
    /// object's response the size its page drew, and the same seed gives the same result.
    #[test]
    fn mah_pages_run_through_snoop() {
        let net = mah_network(12, 3);
        let FlowWorkload::Pages(spec) = &net.flows[0].workload else {
            panic!("pages");
        };
        let drawn = spec.pages(3);
        let r = crate::run_network(&net, "mah");
        let p = r.flows[0].pages.as_ref().expect("a workload's result");
        assert_eq!(p.pages_completed, 12, "{:?}", r.invariants);
        let objects: usize = drawn.iter().map(|pg| pg.objects.len()).sum();
        assert_eq!(p.objects_completed, objects as u64);
        for o in &p.per_object {
            let want = drawn[o.page as usize].objects[o.object as usize];
            assert_eq!(o.response_bytes, want.reply_bytes);
            assert_eq!(o.request_bytes, want.request_bytes);
        }
        assert_eq!(r, crate::run_network(&net, "mah"));
    }
}
