//! `snooplab live --scenario FILE` (docs/live.md, "Scenario files"): a scenario's network on the
//! real clock. Every host is a kernel host in a namespace of its own (`hosts.rs`); the engine, the
//! simulator's own event loop with every link, cell, channel and agent of the network, runs in
//! this thread on the real clock (`tun_driver.rs`); each flow is carried by snooplab's sender and
//! receiver (`endpoint.rs`) in its hosts' namespaces. The result has `snooplab run --json`'s keys
//! (`network_report.rs`).

use std::net::{Ipv4Addr, SocketAddrV4};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use snooplab_proto::agent::handoff::Scheme;
use snooplab_proto::time::{as_secs_f64, MS, SEC};
use snooplab_proto::Time;
use snooplab_sim::capture::Capture;
use snooplab_sim::network::file::Stack;
use snooplab_sim::network::{Network, NodeId, NodeKind};
use snooplab_sim::protocol::AgentKind;
use snooplab_sim::transfer_bytes;
use snooplab_sim::Scenario;

use crate::config::{check_segment_and_window, interrupted_or, HEADER_BYTES};
pub use crate::config::{NetworkConfig, NetworkProgress};
use crate::endpoint::{self, Receiver, ReceiverReport, SenderReport};
use crate::ends::Ends;
pub use crate::ends::FlowEnds;
use crate::engine::{run_engine, EngineSetup, LiveObserver};
use crate::exec::ExecReport;
use crate::exec_run::carry_exec;
use crate::hosts::HostNet;
use crate::netns;
use crate::network_report::{report, NetworkResult};
use crate::snmp;
use crate::testbed::TestbedConfig;
use crate::tun_driver::{DriverCounters, Ending, Stop};

/// Where a network's hosts run live: a kernel host is a namespace of its own (the default); a
/// modelled host (`stack = "model"`) is the engine's TCP, on the real clock (docs/live.md,
/// "Mixed networks").
#[derive(Clone, Debug, Default)]
pub struct LiveHosts {
    /// Each kernel host as (node, name, address).
    pub kernel: Vec<(NodeId, String, Ipv4Addr)>,
    /// Each modelled host's node and address.
    pub modelled: Vec<(NodeId, Ipv4Addr)>,
}

impl LiveHosts {
    pub fn of(sc: &Scenario, net: &Network) -> LiveHosts {
        let stacks = sc.topology.as_ref().map(|t| t.stacks()).unwrap_or_default();
        let mut out = LiveHosts::default();
        for (i, n) in net.nodes.iter().enumerate() {
            if n.kind != NodeKind::Host {
                continue;
            }
            if stacks.get(i).copied().flatten() == Some(Stack::Model) {
                out.modelled.push((i, Ipv4Addr::from(n.addr)));
            } else {
                out.kernel.push((i, n.name.clone(), Ipv4Addr::from(n.addr)));
            }
        }
        out
    }

    pub fn is_kernel(&self, node: NodeId) -> bool {
        self.kernel.iter().any(|k| k.0 == node)
    }
}

/// The kernel hosts of a network, each as (node, name, address): every host the scenario does
/// not model (`stack = "model"`).
pub fn kernel_hosts(sc: &Scenario, net: &Network) -> Vec<(NodeId, String, Ipv4Addr)> {
    LiveHosts::of(sc, net).kernel
}

/// Checks what the kernels can do: segment sizes, buffers, windows without scaling.
pub fn validate(cfg: &NetworkConfig, net: &Network) -> Result<(), String> {
    if cfg.exec.is_empty() && net.flows.is_empty() {
        return Err("the scenario has no flow to carry".into());
    }
    // A kernel mobile host hands off with the engine's mobility layer below its TCP (docs/live.md,
    // "Handoffs"), but the engine cannot make a kernel's TCP send anything: Caceres and Iftode's
    // three duplicate ACKs after a handoff (paper 002 section 8) are its TCP's.
    if let Some(h) = net
        .handoffs
        .iter()
        .find(|h| h.scheme == Scheme::FastRetransmit)
    {
        return Err(format!(
            "handoff of '{}': scheme = \"fast-retransmit\" needs the mobile host's TCP to send \
             three duplicate ACKs after each handoff, which a kernel host's TCP does not do; \
             the live mode runs \"multicast\" and \"hard\"",
            net.nodes[h.mobile].name
        ));
    }
    // a split base station makes a relay per connection, from either side (`proto/src/agent/
    // split.rs`), but each relay carries bytes one way, from the connection's opener (paper 000
    // section III-C's bulk transfer): the user's programs talk both ways (a request and its
    // answer; issue 52 leaves that for later)
    let split = |k: &NodeKind| {
        matches!(
            k,
            NodeKind::BaseStation {
                agent: AgentKind::Split { .. },
                ..
            }
        )
    };
    if let Some(n) = net.nodes.iter().find(|n| split(&n.kind)) {
        if !cfg.exec.is_empty() {
            return Err(format!(
                "node '{}': a split base station relays each connection's bytes one way, from \
                 the host that opened it, and --exec programs talk both ways (a request and \
                 its answer): run split with snooplab's own transfer (no --exec)",
                n.name
            ));
        }
    }
    let hosts = LiveHosts::of(&cfg.scenario, net);
    if !cfg.exec.is_empty() {
        if let Some(&(n, _)) = hosts.modelled.first() {
            return Err(format!(
                "node '{}' is modelled (stack = \"model\"), but --exec runs programs in kernel \
                 hosts instead of the scenario's flows, and a modelled host runs only those: \
                 leave out --exec or the node's stack",
                net.nodes[n].name
            ));
        }
    }
    for f in &net.flows {
        if hosts.is_kernel(f.from) || hosts.is_kernel(f.to) {
            check_segment_and_window(f.mss, f.buffer, cfg.profile)
                .map_err(|e| format!("flow '{}': {e}", f.name))?;
        }
    }
    Ok(())
}

/// Runs the scenario's network live, recording a capture of every link and cell into `capture`
/// if given (one per [`Network::capture_names`], the real packets' bytes); `progress` is called
/// about twice a second.
pub fn run_network(
    cfg: &NetworkConfig,
    capture: Option<Capture>,
    progress: &mut dyn FnMut(NetworkProgress),
) -> Result<NetworkResult, String> {
    run_network_with(cfg, capture, progress, &mut Vec::new())
}

/// [`run_network`], which also leaves the `--exec` commands' reports in `exec_out` once they
/// ended, so that their output can be shown when the run fails too (a time limit, a signal).
pub fn run_network_with(
    cfg: &NetworkConfig,
    capture: Option<Capture>,
    progress: &mut dyn FnMut(NetworkProgress),
    exec_out: &mut Vec<ExecReport>,
) -> Result<NetworkResult, String> {
    let mut net = cfg.scenario.network();
    net.max_time = cfg.max_time.saturating_add(SEC);
    validate(cfg, &net)?;
    let hosts = LiveHosts::of(&cfg.scenario, &net);
    let kernel = &hosts.kernel;
    let names: Vec<String> = kernel.iter().map(|k| k.1.clone()).collect();
    crate::exec::check(&cfg.exec, &names)?;
    let leftovers_removed = netns::sweep_leftovers()?;
    let mtu = net.flows.iter().map(|f| f.mss).max().unwrap_or(1400) + HEADER_BYTES;
    let modelled: Vec<Ipv4Addr> = hosts.modelled.iter().map(|m| m.1).collect();
    let hostnet = HostNet::create(
        kernel,
        &modelled,
        &TestbedConfig {
            profile: cfg.profile,
            mtu,
            rto_min_ms: cfg.rto_min_ms,
            initcwnd: cfg.profile.initcwnd(),
        },
    )
    .map_err(interrupted_or)?;
    if !cfg.exec.is_empty() {
        let obs = LiveObserver {
            capture,
            ..LiveObserver::default()
        };
        let (ends, obs) = carry_exec(cfg, &net, &hostnet, (obs, progress), exec_out)?;
        let mut r = finish(cfg, &net, &hostnet, (ends, obs), leftovers_removed)?;
        r.exec = exec_out.clone();
        return Ok(r);
    }
    // a flow's receiver in a kernel host listens before anything starts; one in a modelled
    // host is the engine's
    let mut receivers = Vec::with_capacity(net.flows.len());
    for f in &net.flows {
        receivers.push(match hostnet.host(f.to) {
            Some(host) => {
                let at = SocketAddrV4::new(host.addr, f.dst_port);
                Some(Receiver::listen(&host.ns, at, f.buffer).map_err(interrupted_or)?)
            }
            None => None,
        });
    }
    let clock = Instant::now();
    let obs = LiveObserver {
        capture,
        ..LiveObserver::default()
    };
    let (ends, obs) = carry(cfg, &net, &hostnet, receivers, (clock, obs), progress)?;
    finish(cfg, &net, &hostnet, (ends, obs), leftovers_removed)
}

/// Writes the captures, reads the hosts' counters and makes the run's result.
fn finish(
    cfg: &NetworkConfig,
    net: &Network,
    hostnet: &HostNet,
    (ends, mut obs): (Ends, LiveObserver),
    leftovers_removed: Vec<String>,
) -> Result<NetworkResult, String> {
    if let Some(c) = obs.capture.take() {
        c.finish()
            .map_err(|e| format!("cannot write the captures: {e}"))?;
    }
    let hosts = hostnet
        .hosts
        .iter()
        .map(|h| snmp::read(&h.ns).map(|c| (h.name.clone(), c)))
        .collect::<Result<Vec<_>, String>>()?;
    Ok(report(cfg, net, (ends, &obs), hosts, leftovers_removed))
}

/// Runs the flows' kernel ends on threads and the engine, with every modelled end, on this one
/// until every flow has ended.
fn carry(
    cfg: &NetworkConfig,
    net: &Network,
    hostnet: &HostNet,
    receivers: Vec<Option<Receiver>>,
    (clock, obs): (Instant, LiveObserver),
    progress: &mut dyn FnMut(NetworkProgress),
) -> Result<(Ends, LiveObserver), String> {
    let stop = AtomicBool::new(false);
    let finished = AtomicUsize::new(0);
    let received: Vec<AtomicU64> = net.flows.iter().map(|_| AtomicU64::new(0)).collect();
    let total: u64 = net.flows.iter().map(|f| f.transfer).sum();
    let kernel_ends = receivers.iter().filter(|r| r.is_some()).count()
        + net
            .flows
            .iter()
            .filter(|f| hostnet.host(f.from).is_some())
            .count();
    let ends = std::thread::scope(|s| {
        let mut handles = Vec::new();
        for (i, (f, rx)) in net.flows.iter().zip(receivers).enumerate() {
            let (stop, finished, received) = (&stop, &finished, &received[i]);
            let modelled_receiver = rx.is_none();
            let rx = rx.map(|rx| {
                s.spawn(move || {
                    let r = rx.run(stop, received);
                    finished.fetch_add(1, Ordering::SeqCst);
                    r
                })
            });
            let seed = transfer_bytes::seed_of(net.seed, i);
            let tx = hostnet.host(f.from).map(|from| {
                // the receiver's address, and for a modelled receiver, which waits for one peer
                // port, the flow's own source port
                let to = SocketAddrV4::new(Ipv4Addr::from(net.nodes[f.to].addr), f.dst_port);
                let bind = modelled_receiver.then_some(f.src_port);
                s.spawn(move || {
                    wait_until(clock, f.start, stop);
                    let r = endpoint::send(&from.ns, (to, bind), cfg.cc, f.transfer, seed, stop);
                    finished.fetch_add(1, Ordering::SeqCst);
                    r
                })
            });
            handles.push((rx, tx));
        }
        let done = || finished.load(Ordering::SeqCst) == kernel_ends;
        let mut tick = |elapsed| {
            let got = received.iter().map(|r| r.load(Ordering::Relaxed)).sum();
            progress((elapsed, got, total));
        };
        let stop_when = Stop {
            done: &done,
            limit: cfg.max_time,
            tick: &mut tick,
            tick_every: crate::tun_driver::TICK_EVERY,
        };
        let setup = EngineSetup::for_hosts(net, cfg.scenario.env.name(), hostnet, clock, obs);
        let engine = run_engine(setup, stop_when);
        // However the loop ended, the endpoints stop now (they look every 100 ms).
        stop.store(true, Ordering::SeqCst);
        let flows: Vec<FlowEnds<Result<ReceiverReport, String>, Result<SenderReport, String>>> =
            handles
                .into_iter()
                .map(|(rx, tx)| {
                    let rx = rx.map(|h| {
                        h.join()
                            .unwrap_or_else(|_| Err("a receiver thread panicked".into()))
                    });
                    let tx = tx.map(|h| {
                        h.join()
                            .unwrap_or_else(|_| Err("a sender thread panicked".into()))
                    });
                    (rx, tx)
                })
                .collect();
        (engine, flows)
    });
    let (mut engine, flows) = ends;
    let error = engine.error.take();
    let out = settle(cfg, net, (engine.ending, error), &engine.counters, flows)?;
    Ok(engine.into_ends(clock, out))
}

/// The flows' ends once the engine stopped, or why the run failed: an error of the driver, a
/// stop signal, the time limit, or an end that failed.
fn settle(
    cfg: &NetworkConfig,
    net: &Network,
    (ending, error): (Option<Ending>, Option<String>),
    counters: &DriverCounters,
    flows: Vec<FlowEnds<Result<ReceiverReport, String>, Result<SenderReport, String>>>,
) -> Result<Vec<FlowEnds<ReceiverReport, SenderReport>>, String> {
    if let Some(e) = error {
        return Err(e);
    }
    match ending {
        Some(Ending::Done) | None => {}
        Some(Ending::Interrupted) => return Err(interrupted_or(String::new())),
        Some(Ending::TimedOut) => {
            let got: Vec<String> = flows
                .iter()
                .zip(&net.flows)
                .map(|((rx, _), f)| match rx {
                    Some(Ok(r)) => format!("{}: {} of {}", f.name, r.bytes, f.transfer),
                    Some(Err(e)) => format!("{}: {e}", f.name),
                    None => format!("{}: received in the engine", f.name),
                })
                .collect();
            return Err(format!(
                "the transfer did not finish within {} s ({}; the hosts sent {} packets and \
                 were handed {}); raise --max-time",
                as_secs_f64(cfg.max_time),
                got.join(", "),
                counters.packets_in,
                counters.packets_out
            ));
        }
    }
    let mut out = Vec::with_capacity(flows.len());
    for (i, (rx, tx)) in flows.into_iter().enumerate() {
        let name = &net.flows[i].name;
        let rx = rx
            .transpose()
            .map_err(|e| format!("flow '{name}': receiver: {e}"))?;
        let tx = tx
            .transpose()
            .map_err(|e| format!("flow '{name}': sender: {e}"))?;
        out.push((rx, tx));
    }
    Ok(out)
}

/// Sleeps until `at` after `clock`, or until told to stop.
fn wait_until(clock: Instant, at: Time, stop: &AtomicBool) {
    while !stop.load(Ordering::Relaxed) {
        let now = clock.elapsed().as_nanos() as Time;
        if now >= at {
            return;
        }
        std::thread::sleep(Duration::from_nanos((at - now).min(100 * MS)));
    }
}
