//! `snooplab live --scenario FILE` (docs/live.md, "Scenario files"): a scenario's network on the
//! real clock. Every host is a kernel host in a namespace of its own (`hosts.rs`); the engine, the
//! simulator's own event loop with every link, cell, channel and agent of the network, runs in
//! this thread on the real clock (`tun_driver.rs`); each flow is carried by snooplab's sender and
//! receiver (`endpoint.rs`) in its hosts' namespaces. The result has `snooplab run --json`'s keys
//! (`network_report.rs`). The network is built and checked once, before the run
//! (`network_check.rs`); the runner takes it as it is.

use std::net::{Ipv4Addr, SocketAddrV4};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use snooplab_proto::time::{as_secs_f64, MS};
use snooplab_proto::Time;
use snooplab_sim::capture::Capture;
use snooplab_sim::network::{Network, NodeId};
use snooplab_sim::transfer_bytes;

pub use crate::config::NetworkConfig;
use crate::config::NetworkProgress;
use crate::config::{interrupted_or, HEADER_BYTES};
use crate::endpoint::{self, Receiver, ReceiverReport, SenderReport};
use crate::ends::Ends;
pub use crate::ends::FlowEnds;
use crate::engine::{run_engine, EngineSetup, LiveObserver};
use crate::exec::ExecReport;
use crate::exec_run::carry_exec;
use crate::host_input::{self, HostInputReport};
use crate::hosts::HostNet;
use crate::netns;
pub use crate::network_check::{LiveHosts, LiveNetwork};
use crate::network_report::{report, NetworkResult};
use crate::snmp;
use crate::testbed::TestbedConfig;
use crate::tun::Tun;
use crate::tun_driver::{DriverCounters, Ending, Stop};
use crate::web::{self, flow::WebEnds, server::WebServer};

/// Runs a checked network live ([`LiveNetwork::check`]: built and checked once, before this),
/// recording a capture of every link and cell into `capture` if given (one per
/// [`Network::capture_names`], the real packets' bytes); `progress` is called about twice a second.
pub fn run_network(
    live: &LiveNetwork,
    capture: Option<Capture>,
    progress: &mut dyn FnMut(NetworkProgress),
) -> Result<NetworkResult, String> {
    run_network_with(live, capture, progress, &mut Vec::new())
}

/// [`run_network`], which also leaves the `--exec` commands' reports in `exec_out` once they
/// ended, so that their output can be shown when the run fails too (a time limit, a signal).
pub fn run_network_with(
    live: &LiveNetwork,
    capture: Option<Capture>,
    progress: &mut dyn FnMut(NetworkProgress),
    exec_out: &mut Vec<ExecReport>,
) -> Result<NetworkResult, String> {
    let (cfg, net, hosts) = (live.config(), live.network(), live.hosts());
    let kernel = &hosts.kernel;
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
    // before any host sends (the engine's thread is pinned once the others have started)
    let host_input = {
        let devices: Vec<(NodeId, &str, &Tun)> = hostnet
            .hosts
            .iter()
            .map(|h| (h.node, h.name.as_str(), &h.tun))
            .collect();
        host_input::steer(cfg.host_input, &devices, |n| host_input::why_inline(net, n))
    };
    if !cfg.exec.is_empty() {
        let obs = LiveObserver {
            capture,
            ..LiveObserver::default()
        };
        let (ends, obs) = carry_exec(cfg, net, &hostnet, (obs, host_input, progress), exec_out)?;
        let mut r = finish(cfg, net, &hostnet, (ends, obs), leftovers_removed)?;
        r.exec = exec_out.clone();
        return Ok(r);
    }
    // a flow's receiver in a kernel host listens before anything starts; one in a modelled
    // host is the engine's; a workload flow's server listens in its `from` host (`web/flow.rs`)
    let servers = web::flow::listen(net, &hostnet, cfg.cc.name()).map_err(interrupted_or)?;
    let mut receivers = Vec::with_capacity(net.flows.len());
    for (f, server) in net.flows.iter().zip(&servers) {
        receivers.push(match hostnet.host(f.to).filter(|_| server.is_none()) {
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
    let ends = (receivers, servers);
    let (ends, obs) = carry(cfg, net, &hostnet, ends, (clock, obs, host_input), progress)?;
    finish(cfg, net, &hostnet, (ends, obs), leftovers_removed)
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
/// until every flow has ended: a bulk flow's receiver and sender, a workload flow's server and
/// client (the flow has ended when its client has fetched every page; its server serves until
/// the run stops).
fn carry(
    cfg: &NetworkConfig,
    net: &Network,
    hostnet: &HostNet,
    (receivers, servers): (Vec<Option<Receiver>>, Vec<Option<WebServer>>),
    (clock, obs, host_input): (Instant, LiveObserver, HostInputReport),
    progress: &mut dyn FnMut(NetworkProgress),
) -> Result<(Ends, LiveObserver), String> {
    let stop = AtomicBool::new(false);
    let finished = AtomicUsize::new(0);
    let received: Vec<AtomicU64> = net.flows.iter().map(|_| AtomicU64::new(0)).collect();
    let total: u64 = (0..net.flows.len())
        .map(|f| web::flow::reply_bytes(net, f).unwrap_or(net.flows[f].transfer))
        .sum();
    let web = servers.iter().filter(|w| w.is_some()).count();
    let kernel_ends = receivers.iter().filter(|r| r.is_some()).count()
        + web
        + net
            .flows
            .iter()
            .zip(&servers)
            .filter(|(f, w)| w.is_none() && hostnet.host(f.from).is_some())
            .count();
    let ends = std::thread::scope(|s| {
        let mut handles = Vec::new();
        let mut web_handles = Vec::new();
        for (i, (f, (rx, server))) in net
            .flows
            .iter()
            .zip(receivers.into_iter().zip(servers))
            .enumerate()
        {
            let (stop, finished, received) = (&stop, &finished, &received[i]);
            if let Some(server) = server {
                let server = s.spawn(move || server.serve(stop));
                let client = s.spawn(move || {
                    let r =
                        web::flow::fetch(net, i, hostnet, (cfg.cc.name(), clock), stop, received);
                    finished.fetch_add(1, Ordering::SeqCst);
                    r
                });
                handles.push((None, None));
                web_handles.push(Some((client, server)));
                continue;
            }
            web_handles.push(None);
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
        let setup = EngineSetup::for_hosts(
            net,
            cfg.scenario.env.name(),
            hostnet,
            clock,
            (obs, host_input),
        );
        let engine = run_engine(setup, stop_when);
        // However the loop ended, the endpoints stop now (they look every 100 ms); a workload's
        // server has nothing left to serve once its client has fetched every page
        stop.store(true, Ordering::SeqCst);
        let web: Vec<Option<WebEnds>> = web_handles
            .into_iter()
            .map(|h| {
                h.map(|(client, server)| WebEnds {
                    client: client.join().unwrap_or_default(),
                    server: server.join().unwrap_or_default(),
                })
            })
            .collect();
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
        (engine, flows, web)
    });
    let (mut engine, flows, web) = ends;
    let error = engine.error.take();
    let out = settle(cfg, net, (engine.ending, error), &engine.counters, flows)?;
    let (mut ends, obs) = engine.into_ends(clock, out);
    ends.web = web;
    Ok((ends, obs))
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
                    None if !f.workload.is_bulk() => format!("{}: pages still loading", f.name),
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
