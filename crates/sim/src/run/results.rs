//! A run's results: each flow's, the cells', the agents' and the handoffs', gathered once the
//! loop has stopped, and why an incomplete flow did not complete.

use snooplab_proto::agent::{Relay, RelayReport};
use snooplab_proto::tcp::HostProfile;
use snooplab_proto::time::as_secs_f64;
use snooplab_proto::Time;

use super::Simulation;
use crate::channel::ChannelSpec;
use crate::flow::FlowState;
use crate::invariants::InvariantReport;
use crate::metrics::{
    AgentResult, Aggregate, CellResult, Drops, FlowResult, HandoffEvent, HandoffResult, RunResult,
    RunSetup, StationChannels,
};
use crate::network::{FlowId, NodeId};
use crate::nodes::{Role, SimNode};
use crate::observer::Observe;
use crate::stats::pct;

impl<O: Observe> Simulation<O> {
    /// Why flow `f` did not complete: which connection gave up or stalled, and when.
    pub(super) fn why_incomplete(&self, f: FlowId) -> String {
        let secs = |t: Time| format!("{:.3} s", as_secs_f64(t));
        let relay = self.relay_of(f);
        // a split flow has two senders: name the fixed host's as such
        let who = if relay.is_some() {
            "the fixed host's sender (the split connection's wired half)"
        } else {
            "the sender"
        };
        let sender = self.tcp(f, Role::Sender).map(|t| t.stats());
        if let Some((at, held)) = relay.as_ref().and_then(|r| r.gave_up) {
            return format!(
                "the base station's relay sender (the split connection's wireless half) gave up \
                 after 12 retransmissions of one segment at {}, holding {held} bytes for the \
                 mobile host; the base station then reset the fixed host's connection",
                secs(at)
            );
        }
        if sender.is_some_and(|s| s.dropped) {
            let at = self.state.flows[f]
                .gave_up_at
                .map_or_else(String::new, |t| format!(" at {}", secs(t)));
            return format!("{who} gave up after 12 retransmissions of one segment{at}");
        }
        if sender.is_some_and(|s| s.reset_received) {
            return format!("{who}'s connection was reset");
        }
        if self.book.capped {
            let stalled = match self.tcp(f, Role::Sender) {
                Some(t) if t.persist_deadline().is_some() => format!(
                    "; {who} was probing a zero window ({} persist probes)",
                    t.stats().persist_timeouts
                ),
                _ => String::new(),
            };
            return format!(
                "the run reached its time cap of {}{stalled}",
                secs(self.topo.net.max_time)
            );
        }
        "nothing was left to happen (a deadlock: no packet in flight, no timer set)".into()
    }

    /// The relay sender of the split base station that relays flow `f`, if any (or of the
    /// relays on their way between two base stations at a split handoff). A sender outside the
    /// engine (a kernel) picks its own port: its relay is known by the addresses and the
    /// receiver's port.
    pub(super) fn relay_of(&self, f: FlowId) -> Option<RelayReport> {
        let (from, to) = self.topo.endpoints[f];
        let any_port = self.outside(self.state.flows[f].sender);
        let held = self
            .state
            .nodes
            .iter()
            .filter_map(SimNode::agent)
            .filter_map(|a| a.relay());
        let moving = self
            .state
            .in_transit
            .iter()
            .flatten()
            .map(|(_, state)| state as &dyn Relay);
        held.chain(moving).find_map(|relay| {
            relay.reports().into_iter().find(|r| {
                r.endpoints == (from, to)
                    || (any_port && r.endpoints.0.addr == from.addr && r.endpoints.1 == to)
            })
        })
    }

    /// Node `node`'s agent's counters, with those of split relays still on their way to it at
    /// a handoff (a run may end before they arrive).
    pub(super) fn agent_counters(&self, node: NodeId) -> snooplab_proto::agent::Counters {
        let mut c = self.state.nodes[node]
            .agent()
            .map(|a| a.counters())
            .unwrap_or_default();
        for (_, state) in self
            .state
            .in_transit
            .iter()
            .flatten()
            .filter(|s| s.0 == node)
        {
            c.extend(state.counters());
        }
        c
    }

    pub(super) fn finish(self) -> RunResult {
        let net = &self.topo.net;
        let mut flows = Vec::with_capacity(net.flows.len());
        let mut all = InvariantReport {
            complete: true,
            ..InvariantReport::default()
        };
        for f in 0..net.flows.len() {
            flows.push(self.flow_result(f, &mut all));
        }
        for (i, m) in self.book.inv.messages.iter().enumerate() {
            if i == 0 {
                all.complete = false;
            }
            all.note(m.clone());
        }
        let aggregate = aggregate(&flows, &self.state.flows);
        let cells = self.cell_results();
        let agents = self
            .state
            .nodes
            .iter()
            .enumerate()
            .filter_map(|(n, node)| {
                node.agent().map(|_| AgentResult {
                    node: net.nodes[n].name.clone(),
                    counters: self.agent_counters(n),
                })
            })
            .collect();
        let base_stations = || self.state.nodes.iter().filter_map(SimNode::base_station);
        let input_queues: u64 = base_stations().map(|b| b.input_drops).sum();
        let links: u64 = self
            .state
            .links
            .iter()
            .map(|l| l[0].drops + l[1].drops)
            .sum();
        let drops = Drops {
            queues: input_queues + links + cells.iter().map(|c| c.queue_drops).sum::<u64>(),
            input_queues,
            crashes: base_stations().map(|b| b.crash_drops).sum(),
        };
        let (error_every_bytes, burst) = match net.cells.first().and_then(|c| c.stations.first()) {
            Some(s) => match &s.down {
                ChannelSpec::Exponential { mean_bytes, burst } => (*mean_bytes, *burst),
                // the cells' `channels` name the other models
                _ => (0, 1),
            },
            None => (0, 1),
        };
        let invariants = match flows.as_slice() {
            [only] if self.book.inv.messages.is_empty() => only.invariants.clone(),
            _ => all,
        };
        RunResult {
            setup: RunSetup {
                env: self.topo.env.clone(),
                seed: net.seed,
                error_every_bytes,
                burst,
            },
            events: self.book.events,
            handoffs: self.handoff_results(),
            flows,
            aggregate,
            cells,
            agents,
            drops,
            invariants,
        }
    }

    /// Flow `f`'s result; its invariants are merged into `all`.
    fn flow_result(&self, f: FlowId, all: &mut InvariantReport) -> FlowResult {
        if let Some(r) = self.web_flow_result(f, all) {
            return r;
        }
        let net = &self.topo.net;
        let spec = &net.flows[f];
        let st = &self.state.flows[f];
        let mut inv = st.inv.clone();
        let sender = self.tcp(f, Role::Sender);
        let receiver = self.tcp(f, Role::Receiver);
        let delivered = receiver.map_or(0, |t| t.stats().bytes_delivered);
        inv.complete = delivered == spec.transfer && st.complete_at.is_some();
        if self.split_on_path(f) {
            // what the relay acknowledged to the fixed host and the mobile host never got
            let acked = sender.map_or(0, |t| {
                u64::from(t.snd_una().since(t.iss() + 1)).min(spec.transfer)
            });
            inv.split_bytes_lost = acked.saturating_sub(delivered);
        }
        // a receiver outside the engine is judged by whoever drives it (the live mode's digest)
        if !inv.complete && !self.outside(spec.to) {
            let why = self.why_incomplete(f);
            inv.note(format!(
                "{why}, with {delivered} of {} bytes delivered",
                spec.transfer
            ));
        }
        let start = st.first_data_at.unwrap_or(0);
        let end = st.complete_at.unwrap_or(self.state.now);
        let duration = end.saturating_sub(start);
        let throughput = if inv.complete && duration > 0 {
            spec.transfer as f64 * 8.0 / as_secs_f64(duration) / 1e6
        } else {
            0.0
        };
        let fs = sender.map(|t| t.stats().clone()).unwrap_or_default();
        let ms = receiver.map(|t| t.stats().clone()).unwrap_or_default();
        let host = crate::scenario::host_label(spec.host_preset, &spec.host);
        all.merge(&inv, &spec.name);
        FlowResult {
            flow: spec.name.clone(),
            from: net.nodes[spec.from].name.clone(),
            to: net.nodes[spec.to].name.clone(),
            protocol: spec.protocol.name().to_string(),
            buffer_bytes: spec.buffer,
            mss: spec.mss,
            transfer_bytes: spec.transfer,
            start_s: as_secs_f64(spec.start),
            throughput_mbps: throughput,
            wireless_goodput_pct: (st.wireless_data_frames > 0)
                .then(|| pct(delivered, st.wireless_data_bytes)),
            wired_goodput_pct: pct(delivered, fs.data_bytes_sent),
            timeouts: fs.timeouts,
            fast_retransmits: fs.fast_retransmits,
            duration_s: as_secs_f64(duration),
            sender_retransmitted_segments: fs.rexmt_segs,
            sender_dupacks: fs.dupacks_rcvd,
            wireless_data_frames: st.wireless_data_frames,
            wireless_data_frames_lost: st.wireless_data_lost,
            wireless_data_frames_collided: st.wireless_data_collided,
            timeouts_after_dupacks: fs.timeouts_after_dupacks,
            fast_retransmits_below_three: fs.fast_retransmits_below_three,
            limited_transmits: fs.limited_transmits,
            timeout_stall_s: as_secs_f64(st.timeout_stall),
            timeout_causes: fs.timeout_causes.clone(),
            effective_buffer_bytes: sender.map_or(spec.buffer, |t| t.buffers().0),
            host,
            host_details: HostProfile::KEYS
                .iter()
                .filter_map(|k| spec.host.get(k).map(|v| (k.to_string(), v)))
                .collect(),
            persist_timeouts: fs.persist_timeouts,
            zero_window_acks: ms.zero_window_acks,
            window_updates: ms.window_updates,
            predicted_acks: fs.predicted_acks,
            predicted_acks_in_recovery: fs.predicted_acks_in_recovery,
            predicted_data: ms.predicted_data,
            eln_retransmits: fs.eln_retransmits,
            relay: self.relay_of(f).map(|r| (&r.sender).into()),
            invariants: inv,
            pages: None,
        }
    }

    /// Each cell's result: frames, collisions, corruption each way, airtime, drops, channels.
    fn cell_results(&self) -> Vec<CellResult> {
        let net = &self.topo.net;
        net.cells
            .iter()
            .zip(&self.state.cells)
            .map(|(spec, m)| {
                let (mut down, mut up) = (0, 0);
                for s in 1..m.station_count() {
                    down += m.channel(crate::medium::BASE_STATION, s).corrupted;
                    up += m.channel(s, crate::medium::BASE_STATION).corrupted;
                }
                CellResult {
                    cell: spec.name.clone(),
                    access: m.model().name().to_string(),
                    stations: m.station_count(),
                    frames: m.stations.iter().map(|s| s.frames).sum(),
                    collisions: m.collisions,
                    frames_corrupted_down: down,
                    frames_corrupted_up: up,
                    airtime_s: as_secs_f64(m.busy_time),
                    utilisation_pct: pct(m.busy_time, self.state.now),
                    queue_drops: m.stations.iter().map(|s| s.drops).sum(),
                    access_drops: m.stations.iter().map(|s| s.gave_up).sum(),
                    channels: spec
                        .stations
                        .iter()
                        .enumerate()
                        .map(|(i, st)| {
                            let down = m.channel(crate::medium::BASE_STATION, i + 1);
                            let up = m.channel(i + 1, crate::medium::BASE_STATION);
                            StationChannels {
                                station: net.nodes[st.node].name.clone(),
                                down: st.down.label(),
                                up: st.up.label(),
                                frames_down: down.frames,
                                corrupted_down: down.corrupted,
                                frames_up: up.frames,
                                corrupted_up: up.corrupted,
                            }
                        })
                        .collect(),
                }
            })
            .collect()
    }

    /// What each mobile host that hands off and its base stations did.
    pub(super) fn handoff_results(&self) -> Vec<HandoffResult> {
        let ms = |t: Time| as_secs_f64(t) * 1e3;
        let name_of = |addr: u32| {
            self.topo
                .addrs
                .iter()
                .position(|&a| a == addr)
                .map_or_else(|| "?".to_string(), |n| self.topo.net.nodes[n].name.clone())
        };
        self.topo
            .net
            .handoffs
            .iter()
            .filter_map(|h| {
                let m = self.state.nodes[h.mobile].mobile()?;
                let totals = m.decision_totals();
                let mean = |sum: f64, n: u64| if n == 0 { 0.0 } else { sum / n as f64 };
                let (moved, moved_ms) = self.book.state_transfers[h.mobile];
                let mut r = HandoffResult {
                    mobile: self.topo.net.nodes[h.mobile].name.clone(),
                    handoffs: totals.made,
                    requests_resent: m.resent_requests,
                    confirmed: totals.confirmed,
                    latency_ms_mean: mean(totals.latency_ms_sum, totals.confirmed),
                    latency_ms_max: totals.latency_ms_max,
                    first_packet_ms_mean: mean(totals.first_packet_ms_sum, totals.first_packets),
                    state_transfers: moved,
                    state_transfer_ms_mean: mean(moved_ms, moved),
                    ..HandoffResult::default()
                };
                for d in m.decisions() {
                    let latency = d.confirmed.map(|c| ms(c - d.at));
                    let first_packet = d.first_packet.map(|c| ms(c - d.at));
                    r.events.push(HandoffEvent {
                        at_s: as_secs_f64(d.at),
                        from: name_of(d.from),
                        to: name_of(d.to),
                        latency_ms: latency,
                        first_packet_ms: first_packet,
                    });
                }
                for &bs in &h.base_stations {
                    let c = self.agent_counters(bs);
                    r.beacons += c.get("beacons");
                    r.ids_found += c.get("ids_found");
                    r.ring_sent += c.get("ring_sent");
                    r.withheld += c.get("withheld");
                }
                Some(r)
            })
            .collect()
    }
}

/// All flows together: bytes over the span from the first data sent to the last byte read.
fn aggregate(flows: &[FlowResult], states: &[FlowState]) -> Aggregate {
    let start = states.iter().filter_map(|s| s.first_data_at).min();
    let end = states.iter().filter_map(|s| s.complete_at).max();
    Aggregate::of(flows, start, end)
}

impl RunResult {
    /// This result as a run of `net` would give it, where `net` is this run's network with other
    /// protocol names for its flows and the run would have been the same, state for state (an
    /// Early Retransmit twin that never acted, `family.rs`): each flow names its protocol.
    pub fn as_run_of(mut self, net: &crate::network::Network) -> RunResult {
        for (r, f) in self.flows.iter_mut().zip(&net.flows) {
            r.protocol = f.protocol.name().to_string();
        }
        self
    }
}
