//! A scenario's workload flow (`workload = "web"`) in the live engine: snooplab's HTTP server
//! listens in the `from` host's namespace on the flow's port before anything starts, its client
//! fetches the flow's pages from the `to` host's namespace from the flow's start on (the same
//! pages `snooplab run` draws for the file's seed: `PagesSpec::page`), and the flow's result is
//! the simulator's shape (`flows[].pages`, from `PagesResult::of_records`) with the kernels'
//! counters where the simulator has its TCP's.

use std::net::SocketAddrV4;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::time::Instant;

use serde::Serialize;
use snooplab_proto::time::as_secs_f64;
use snooplab_sim::metrics::{FlowResult, PagesResult};
use snooplab_sim::network::Network;
use snooplab_sim::workload::{FlowWorkload, PagesSpec};

use super::client::{fetch_pages, ClientReport, ClientSetup};
use super::server::{ServerReport, WebServer};
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
        let at = SocketAddrV4::new(host.addr, fl.dst_port);
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
    let (Some(spec), Some(to), Some(from)) =
        (pages_of(net, f), hostnet.host(fl.to), hostnet.host(fl.from))
    else {
        return ClientReport::default();
    };
    let setup = ClientSetup {
        ns: Some(&to.ns),
        server: SocketAddrV4::new(from.addr, fl.dst_port),
        http: spec.http,
        cc,
        clock,
        start: fl.start,
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
