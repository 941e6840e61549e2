//! Workload flows in a run (issue 53, item 1): each one's browser on its `to` host
//! (`nodes/browser.rs`), the server end of every connection it opens handed to the `from` host,
//! when such a flow has ended, and its result (pages and objects, `metrics/pages.rs`).

use snooplab_proto::tcp::TcpConfig;
use snooplab_proto::time::as_secs_f64;
use snooplab_proto::Time;

use super::web_stalls::{page_wait, StallsByConn};
use super::Simulation;
use crate::invariants::InvariantReport;
use crate::metrics::{FlowResult, PagesResult, TimeoutWait, TimeoutsByPhase};
use crate::network::{FlowId, Network};
use crate::nodes::{AppCounters, Browser, StallPhase};
use crate::observer::Observe;
use crate::rng::{Rng, Stream};
use crate::workload::{plan, FlowWorkload};

/// Flow `f`'s browser, if it carries pages: both ends' TCP as a bulk flow's would be (its
/// protocol's sender and receiver policies, its host, each host's clock phases), each
/// connection's initial sequence numbers from the flow's own stream.
pub(super) fn browser_for(
    net: &Network,
    f: FlowId,
    clocks: &[Option<(Time, Time)>],
) -> Option<Browser> {
    let fl = &net.flows[f];
    let FlowWorkload::Pages(spec) = &fl.workload else {
        return None;
    };
    let cfg = |node: usize| {
        let mut c = TcpConfig::relay(fl.mss, fl.buffer, fl.buffer);
        c.policy = fl.protocol.sender_policy();
        c.receiver = fl.protocol.receiver_policy();
        c.host = fl.host;
        if let Some((slow, fast)) = clocks[node] {
            c.timers.slow_phase = slow;
            c.timers.fast_phase = fast;
        }
        c
    };
    let (server, client) = net.endpoints(f);
    Some(Browser::new(
        f,
        spec.pages(net.seed),
        spec.http,
        cfg(fl.to),
        cfg(fl.from),
        Rng::indexed(net.seed, Stream::AppSequence, f as u64),
        client.addr,
        server,
        fl.start,
    ))
}

impl<O: Observe> Simulation<O> {
    /// The server ends of the connections host `n`'s browsers opened go to their servers' hosts
    /// before the SYN leaves (a passive open that was waiting: `app/server.rs`).
    #[inline]
    pub(super) fn install_servers(&mut self, n: usize) {
        let Some(w) = self.state.nodes[n].host_mut().and_then(|h| h.web.as_mut()) else {
            return;
        };
        if w.opened.is_empty() {
            return;
        }
        let opened = std::mem::take(&mut w.opened);
        for (f, server) in opened {
            let at = self.topo.net.flows[f].from;
            if let Some(s) = self.state.nodes[at].host_mut() {
                s.web
                    .get_or_insert_with(Default::default)
                    .conns
                    .push_server(f, server);
            }
        }
    }

    /// Whether workload flow `f` has ended: every page fetched (or failed) and every connection
    /// of it settled at both ends; `None` for a bulk flow.
    #[inline(never)]
    pub(super) fn web_flow_ended(&self, f: FlowId) -> Option<bool> {
        let fl = &self.topo.net.flows[f];
        if fl.workload.is_bulk() {
            return None;
        }
        let client = self.state.nodes[fl.to].host()?;
        let done = client
            .web
            .iter()
            .flat_map(|w| &w.browsers)
            .find(|b| b.flow == f)
            .is_none_or(Browser::is_finished);
        let settled = |n: usize| {
            self.state.nodes[n]
                .host()
                .and_then(|h| h.web.as_ref())
                .is_none_or(|w| w.conns.flow_settled(f))
        };
        Some(done && settled(fl.to) && settled(fl.from))
    }

    /// Workload flow `f`'s result (`None` for a bulk flow); its invariants are merged into `all`.
    pub(super) fn web_flow_result(
        &self,
        f: FlowId,
        all: &mut InvariantReport,
    ) -> Option<FlowResult> {
        let net = &self.topo.net;
        let spec = &net.flows[f];
        if spec.workload.is_bulk() {
            return None;
        }
        let counters = |n: usize| {
            self.state.nodes[n]
                .host()
                .and_then(|h| h.web.as_ref())
                .map_or_else(AppCounters::default, |w| w.conns.counters(f))
        };
        let (client, server) = (counters(spec.to), counters(spec.from));
        let browser = self.state.nodes[spec.to]
            .host()
            .and_then(|h| h.web.as_ref())
            .and_then(|w| w.browsers.iter().find(|b| b.flow == f));
        let pages = browser.map_or(&[][..], |b| &b.records[..]);
        let FlowWorkload::Pages(ps) = &spec.workload else {
            return None;
        };
        // every retransmission timeout of the flow's connections, at both ends
        let mut stalls = StallsByConn::new();
        let mut by_phase = TimeoutsByPhase::default();
        for n in [spec.to, spec.from] {
            let here = self.state.nodes[n].host().and_then(|h| h.web.as_ref());
            for s in here.iter().flat_map(|w| &w.conns.stalls) {
                if s.flow != f {
                    continue;
                }
                match s.phase {
                    StallPhase::Setup => by_phase.setup += 1,
                    StallPhase::Middle => by_phase.middle += 1,
                    StallPhase::Tail => by_phase.tail += 1,
                }
                stalls.entry(s.conn).or_default().push(s);
            }
        }
        let mut fetched =
            PagesResult::of_records(u64::from(ps.pages), |i| ps.page(net.seed, i), pages);
        // each completed page's wait on those timers along its critical path
        let mut wait_sum = TimeoutWait::default();
        for (i, (p, r)) in pages.iter().zip(fetched.per_page.iter_mut()).enumerate() {
            if r.latency_s.is_some() {
                let page = ps.page(net.seed, i as u64);
                r.timeout_wait = page_wait(p, &plan(&page, ps.http), &stalls);
                wait_sum = wait_sum.plus(r.timeout_wait);
            }
        }
        let mut inv = InvariantReport {
            complete: fetched.pages_completed == u64::from(ps.pages),
            ..InvariantReport::default()
        };
        if !inv.complete {
            inv.note(format!(
                "{} of {} pages fetched whole",
                fetched.pages_completed, ps.pages
            ));
        }
        all.merge(&inv, &spec.name);
        let result = PagesResult {
            connections: client.connections,
            syn_timeouts: client.handshake_timeouts,
            client_timeouts: client.timeouts,
            syn_ack_timeouts: server.handshake_timeouts,
            server_timeouts: server.timeouts,
            server_fast_retransmits: server.fast_retransmits,
            server_retransmitted_segments: server.retransmitted_segments,
            timeouts_by_phase: by_phase,
            timeout_wait: wait_sum,
            ..fetched
        };
        // from the flow's start to its last object's last byte (or the run's end, if one failed)
        let end = if inv.complete {
            pages
                .iter()
                .flat_map(|p| p.objects.iter().filter_map(|o| o.times.done))
                .max()
                .unwrap_or(self.state.now)
        } else {
            self.state.now
        };
        Some(FlowResult {
            flow: spec.name.clone(),
            from: net.nodes[spec.from].name.clone(),
            to: net.nodes[spec.to].name.clone(),
            protocol: spec.protocol.name().to_string(),
            buffer_bytes: spec.buffer,
            mss: spec.mss,
            transfer_bytes: pages
                .iter()
                .enumerate()
                .map(|(i, _)| {
                    ps.page(net.seed, i as u64)
                        .objects
                        .iter()
                        .map(|o| u64::from(o.reply_bytes))
                        .sum::<u64>()
                })
                .sum(),
            start_s: as_secs_f64(spec.start),
            duration_s: as_secs_f64(end.saturating_sub(spec.start)),
            timeouts: server.timeouts,
            fast_retransmits: server.fast_retransmits,
            sender_retransmitted_segments: server.retransmitted_segments,
            effective_buffer_bytes: spec.buffer,
            host: crate::scenario::host_label(spec.host_preset, &spec.host),
            host_details: snooplab_proto::tcp::HostProfile::KEYS
                .iter()
                .filter_map(|k| spec.host.get(k).map(|v| (k.to_string(), v)))
                .collect(),
            invariants: inv,
            pages: Some(result),
            ..FlowResult::default()
        })
    }
}
