//! A scenario's workload flow (`workload = "web"`) in the live engine: snooplab's HTTP server
//! listens in the `from` host's namespace on the flow's port before anything starts (20000 + the
//! flow's index, where the simulator's server listens: `Network::endpoints`), its client
//! fetches the flow's pages from the `to` host's namespace from the flow's start on (the same
//! pages `snooplab run` draws for the file's seed: `PagesSpec::page`), and the flow's result is
//! the simulator's shape (`flows[].pages`, from `PagesResult::of_records`) with the kernels'
//! counters where the simulator has its TCP's.

use std::net::{Ipv4Addr, SocketAddrV4};
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::time::Instant;

use serde::Serialize;
use snooplab_proto::time::as_secs_f64;
use snooplab_sim::metrics::{FlowResult, PagesResult};
use snooplab_sim::network::Network;
use snooplab_sim::workload::{FlowWorkload, PagesSpec};

use super::client::{fetch_pages, ClientReport, ClientSetup};
use super::server::{ServerReport, WebServer};
use crate::endpoint::size_receive_buffers;
use crate::hosts::HostNet;
use crate::snmp::TcpCounters;

/// What a workload flow's two ends gave.
#[derive(Debug)]
pub struct WebEnds {
    pub client: ClientReport,
    pub server: ServerReport,
}

/// What the live group says of a workload flow (`live.flows[].web`).
#[derive(Clone, Debug, Serialize)]
pub struct LiveWeb {
    pub objects_failed: u64,
    /// Objects whose reply bytes differed from the server's (0 expected).
    pub objects_corrupt: u64,
    /// The client's first failures, and the server's.
    pub client_errors: Vec<String>,
    pub server: ServerReport,
}

/// Flow `f`'s pages, if it is a workload flow.
pub(crate) fn pages_of(net: &Network, f: usize) -> Option<&PagesSpec> {
    match &net.flows[f].workload {
        FlowWorkload::Pages(p) => Some(p),
        FlowWorkload::Bulk => None,
    }
}

/// Where flow `f`'s server listens: the simulator's server end (`Network::endpoints`), the
/// `from` host's address and the flow's source port.
fn server_addr(net: &Network, f: usize) -> SocketAddrV4 {
    let (server, _) = net.endpoints(f);
    SocketAddrV4::new(Ipv4Addr::from(server.addr), server.port)
}

/// The bytes of every reply of flow `f`'s pages, if it is a workload flow (for progress).
pub(crate) fn reply_bytes(net: &Network, f: usize) -> Option<u64> {
    let spec = pages_of(net, f)?;
    let page_bytes = |i| -> u64 {
        let p = spec.page(net.seed, i);
        p.objects.iter().map(|o| u64::from(o.reply_bytes)).sum()
    };
    Some((0..u64::from(spec.pages)).map(page_bytes).sum())
}

/// The server of each workload flow, listening in its `from` host on the flow's port (`None`
/// for a bulk flow).
pub(crate) fn listen(
    net: &Network,
    hostnet: &HostNet,
    cc: &str,
) -> Result<Vec<Option<WebServer>>, String> {
    let mut out = Vec::with_capacity(net.flows.len());
    for (f, fl) in net.flows.iter().enumerate() {
        if pages_of(net, f).is_none() {
            out.push(None);
            continue;
        }
        let host = hostnet
            .host(fl.from)
            .ok_or_else(|| format!("flow '{}': its server is not a kernel host", fl.name))?;
        let at = server_addr(net, f);
        out.push(Some(WebServer::listen(Some(&host.ns), at, Some(cc))?));
    }
    Ok(out)
}

/// Fetches flow `f`'s pages from its `to` host (a kernel host: checked before the run).
pub(crate) fn fetch(
    net: &Network,
    f: usize,
    hostnet: &HostNet,
    (cc, clock): (&str, Instant),
    stop: &AtomicBool,
    fetched: &AtomicU64,
) -> ClientReport {
    let fl = &net.flows[f];
    let (Some(spec), Some(to)) = (pages_of(net, f), hostnet.host(fl.to)) else {
        return ClientReport::default();
    };
    // The client's window is the flow's buffer, as a bulk flow's receiver's (endpoint.rs): its
    // namespace's sockets start with that buffer, each connection then holds the clamp.
    let window = match size_receive_buffers(&to.ns, fl.buffer) {
        Ok(clamp) => Some(clamp),
        Err(e) => {
            return ClientReport {
                errors: vec![format!("the client's receive window: {e}")],
                ..ClientReport::default()
            }
        }
    };
    let setup = ClientSetup {
        ns: Some(&to.ns),
        server: server_addr(net, f),
        http: spec.http,
        cc,
        clock,
        start: fl.start,
        window,
    };
    let seed = net.seed;
    fetch_pages(
        &setup,
        u64::from(spec.pages),
        &|i| spec.page(seed, i),
        stop,
        fetched,
    )
}

/// A host's counters, if it is an end of flow `f` alone (its namespace's counters are then the
/// flow's).
pub(crate) type SoleCounters<'a> = Option<&'a TcpCounters>;

/// Flow `f`'s result from its ends, in the simulator's shape: its pages and objects, and the
/// kernels' counters where the simulator has its TCP's (the client host's for the client's
/// timeouts, the server host's for the server's; each only where the host carries this flow
/// alone, 0 otherwise). Returns what the live group adds.
pub(crate) fn fill(
    net: &Network,
    f: usize,
    ends: &WebEnds,
    (client_host, server_host): (SoleCounters, SoleCounters),
    result: &mut FlowResult,
) -> (bool, LiveWeb) {
    let fl = &net.flows[f];
    let Some(spec) = pages_of(net, f) else {
        return (false, live_web(ends));
    };
    let page = |i| spec.page(net.seed, i);
    let fetched = PagesResult::of_records(u64::from(spec.pages), page, &ends.client.records);
    let c = client_host.copied().unwrap_or_default();
    let s = server_host.copied().unwrap_or_default();
    let pages = PagesResult {
        connections: ends.client.connections,
        syn_timeouts: c.syn_retrans,
        client_timeouts: c.timeouts,
        syn_ack_timeouts: s.syn_retrans,
        server_timeouts: s.timeouts,
        server_fast_retransmits: s.reno_recovery + s.sack_recovery,
        server_retransmitted_segments: s.retrans_segs,
        ..fetched
    };
    let intact = pages.pages_completed == u64::from(spec.pages)
        && ends.client.corrupt_objects == 0
        && ends.client.failed_objects == 0;
    let last = ends
        .client
        .records
        .iter()
        .flat_map(|p| p.objects.iter().filter_map(|o| o.times.done))
        .max()
        .unwrap_or(fl.start);
    // as the simulator counts it (`run/web.rs`): the replies of the pages fetched
    result.transfer_bytes = (0..ends.client.records.len() as u64)
        .map(|i| {
            page(i)
                .objects
                .iter()
                .map(|o| u64::from(o.reply_bytes))
                .sum::<u64>()
        })
        .sum();
    result.start_s = as_secs_f64(fl.start);
    result.duration_s = as_secs_f64(last.saturating_sub(fl.start));
    result.timeouts = pages.server_timeouts;
    result.fast_retransmits = pages.server_fast_retransmits;
    result.sender_retransmitted_segments = pages.server_retransmitted_segments;
    // the engine ran no browser for kernel hosts: its note of no pages fetched is not the run's
    result.invariants.complete = intact;
    result.invariants.payload_mismatches = ends.client.corrupt_objects;
    result.invariants.messages.clear();
    if !intact {
        result.invariants.note(format!(
            "{} of {} pages fetched whole, {} objects failed, {} corrupt",
            pages.pages_completed,
            spec.pages,
            ends.client.failed_objects,
            ends.client.corrupt_objects
        ));
    }
    result.pages = Some(pages);
    (intact, live_web(ends))
}

fn live_web(ends: &WebEnds) -> LiveWeb {
    LiveWeb {
        objects_failed: ends.client.failed_objects,
        objects_corrupt: ends.client.corrupt_objects,
        client_errors: ends.client.errors.clone(),
        server: ends.server.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use snooplab_proto::app::ObjectTimes;
    use snooplab_sim::nodes::{ObjectRecord, PageRecord};
    use snooplab_sim::scenario::{default_scenario, ScenarioFile};

    fn example() -> Network {
        let text = include_str!("../../../../examples/web-pages-snoop.toml");
        let mut sc = default_scenario();
        let file = ScenarioFile::parse(text).unwrap_or_else(|e| panic!("{e}"));
        file.apply(&mut sc).unwrap_or_else(|e| panic!("{e}"));
        sc.network()
    }

    /// Every page of the example fetched, each object 100 ms after its ask; `failed` of them
    /// failed.
    fn ends(net: &Network, failed: usize) -> WebEnds {
        let spec = pages_of(net, 0).unwrap_or_else(|| panic!("a workload flow"));
        let ms = 1_000_000;
        let records = (0..u64::from(spec.pages))
            .map(|i| {
                let started = i * 1000 * ms;
                let objects = spec.page(net.seed, i).objects.len();
                PageRecord {
                    started,
                    objects: (0..objects)
                        .map(|k| ObjectRecord {
                            times: ObjectTimes {
                                asked: started,
                                connected: Some(started + 20 * ms),
                                requested: Some(started + 20 * ms),
                                first_byte: Some(started + 60 * ms),
                                done: Some(started + 100 * ms),
                            },
                            failed: i == 0 && k < failed,
                            conn: None,
                        })
                        .collect(),
                }
            })
            .collect();
        WebEnds {
            client: ClientReport {
                records,
                connections: 80,
                failed_objects: failed as u64,
                ..ClientReport::default()
            },
            server: ServerReport::default(),
        }
    }

    /// The server listens where the simulator's server end is: the `from` host, port 20000 + i.
    #[test]
    fn the_server_listens_where_the_simulators_does() {
        let net = example();
        let at = server_addr(&net, 0);
        assert_eq!(at.port(), 20000);
        assert_eq!(u32::from(*at.ip()), net.nodes[net.flows[0].from].addr);
    }

    #[test]
    fn a_flows_pages_and_the_kernels_counters_fill_the_simulators_keys() {
        let net = example();
        let client = TcpCounters {
            syn_retrans: 2,
            timeouts: 3,
            ..TcpCounters::default()
        };
        let server = TcpCounters {
            syn_retrans: 1,
            timeouts: 4,
            reno_recovery: 5,
            retrans_segs: 6,
            ..TcpCounters::default()
        };
        let mut r = FlowResult::default();
        let (intact, web) = fill(
            &net,
            0,
            &ends(&net, 0),
            (Some(&client), Some(&server)),
            &mut r,
        );
        assert!(intact && r.invariants.complete, "{:?}", r.invariants);
        assert_eq!(web.objects_failed, 0);
        let p = r.pages.as_ref().unwrap_or_else(|| panic!("pages"));
        assert_eq!((p.pages_completed, p.objects_completed), (20, 80));
        assert_eq!(p.page_latency.median_s, Some(0.1));
        let counts = (
            p.syn_timeouts,
            p.client_timeouts,
            p.syn_ack_timeouts,
            p.server_timeouts,
        );
        assert_eq!(counts, (2, 3, 1, 4));
        assert_eq!(
            (p.server_fast_retransmits, p.server_retransmitted_segments),
            (5, 6)
        );
        assert_eq!(
            (
                r.timeouts,
                r.fast_retransmits,
                r.sender_retransmitted_segments
            ),
            (4, 5, 6)
        );
        assert_eq!(r.transfer_bytes, 20 * 4 * 8192);
        // where a host serves other flows too, its counters are not this flow's: 0
        let mut r = FlowResult::default();
        fill(&net, 0, &ends(&net, 0), (None, None), &mut r);
        assert_eq!(r.pages.as_ref().map(|p| p.server_timeouts), Some(0));
        // a failed object: its page has no latency, and the flow is not intact
        let mut r = FlowResult::default();
        let (intact, web) = fill(&net, 0, &ends(&net, 1), (None, None), &mut r);
        assert!(!intact && !r.invariants.complete);
        assert_eq!(web.objects_failed, 1);
        assert_eq!(r.pages.as_ref().map(|p| p.pages_completed), Some(19));
        assert!(
            r.invariants.messages[0].contains("19 of 20 pages"),
            "{:?}",
            r.invariants
        );
    }
}
