//! A live run carried by the user's programs (`--exec`, `exec.rs`) instead of snooplab's sender
//! and receiver: the commands start in their hosts' namespaces, the engine runs on this thread
//! until the last command exits (or the time limit, a stop signal or an error), then the others
//! are stopped. The network's flows are not started; the engine's counters (cells, agents, drops,
//! the hosts' traffic) are reported as for any run.

use std::time::Instant;

use snooplab_proto::time::as_secs_f64;
use snooplab_sim::network::Network;

use crate::config::{interrupted_or, NetworkConfig, NetworkProgress};
use crate::ends::Ends;
use crate::engine::{run_engine, EngineSetup, LiveObserver};
use crate::exec::{ExecReport, Running};
use crate::host_input::HostInputReport;
use crate::hosts::HostNet;
use crate::tun_driver::{Ending, Stop};

/// Runs the engine between the hosts while `cfg.exec`'s commands run in them; their reports are
/// left in `exec_out` whether the run succeeds or not.
pub(crate) fn carry_exec(
    cfg: &NetworkConfig,
    net: &Network,
    hostnet: &HostNet,
    (obs, host_input, progress): (
        LiveObserver,
        HostInputReport,
        &mut dyn FnMut(NetworkProgress),
    ),
    exec_out: &mut Vec<ExecReport>,
) -> Result<(Ends, LiveObserver), String> {
    // The engine is not reading the devices while the commands start: a packet sent in the
    // settle time waits in its device's queue (a server only listens then).
    let running = Running::start(&cfg.exec, hostnet).map_err(interrupted_or)?;
    let clock = Instant::now();
    let done = || running.run_over();
    let mut tick = |elapsed| progress((elapsed, 0, 0));
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
    let mut engine = run_engine(setup, stop_when);
    // stops the others (and, on the error paths below, every command)
    *exec_out = running.finish();
    if let Some(e) = engine.error.take() {
        return Err(e);
    }
    match engine.ending {
        Some(Ending::Done) | None => {}
        Some(Ending::Interrupted) => return Err(interrupted_or(String::new())),
        Some(Ending::TimedOut) => {
            let last = exec_out.last().map_or(String::new(), |r| r.host.clone());
            return Err(format!(
                "the last --exec command (on {last}) did not exit within {} s; every command \
                 is stopped; raise --max-time",
                as_secs_f64(cfg.max_time)
            ));
        }
    }
    Ok(engine.into_ends(clock, Vec::new()))
}
