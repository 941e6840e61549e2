//! A scenario's network as the live mode runs it, built once and checked once
//! ([`LiveNetwork::check`]): what the kernels can do (segment sizes, buffers), what the engine
//! cannot make a kernel do, and the `--exec` commands' hosts. The runner (`network_run.rs`) takes
//! only a [`LiveNetwork`], so nothing after the check builds or checks the network again.

use std::net::Ipv4Addr;

use snooplab_proto::agent::handoff::Scheme;
use snooplab_proto::time::SEC;
use snooplab_sim::network::file::Stack;
use snooplab_sim::network::{Network, NodeId, NodeKind};
use snooplab_sim::Scenario;

use crate::config::{check_segment_and_window, NetworkConfig};

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

    pub(crate) fn is_kernel(&self, node: NodeId) -> bool {
        self.kernel.iter().any(|k| k.0 == node)
    }

    /// The kernel hosts' names, as `--exec HOST=...` names them.
    pub(crate) fn kernel_names(&self) -> Vec<String> {
        self.kernel.iter().map(|k| k.1.clone()).collect()
    }
}

/// A live run's configuration with its network, built from the scenario and checked: made only
/// by [`LiveNetwork::check`], and all the runner takes.
#[derive(Clone, Debug)]
pub struct LiveNetwork {
    cfg: NetworkConfig,
    net: Network,
    hosts: LiveHosts,
}

impl LiveNetwork {
    /// Builds `cfg`'s network, the one the run runs (its simulated time limit a second past the
    /// real one, so that the real clock's limit ends the run), and checks it and the `--exec`
    /// commands' hosts; the message names what the live mode cannot run.
    pub fn check(cfg: NetworkConfig) -> Result<LiveNetwork, String> {
        let mut net = cfg.scenario.network();
        net.max_time = cfg.max_time.saturating_add(SEC);
        let hosts = LiveHosts::of(&cfg.scenario, &net);
        validate(&cfg, &net, &hosts)?;
        crate::exec::check(&cfg.exec, &hosts.kernel_names())?;
        Ok(LiveNetwork { cfg, net, hosts })
    }

    pub fn config(&self) -> &NetworkConfig {
        &self.cfg
    }

    pub fn network(&self) -> &Network {
        &self.net
    }

    pub fn hosts(&self) -> &LiveHosts {
        &self.hosts
    }
}

/// Checks what the kernels can do: segment sizes and buffers (the one buffer rule, with the
/// Linux profile's limit), and what the engine cannot make a kernel do.
fn validate(cfg: &NetworkConfig, net: &Network, hosts: &LiveHosts) -> Result<(), String> {
    if cfg.exec.is_empty() && net.flows.is_empty() {
        return Err("the scenario has no flow to carry".into());
    }
    // a workload flow's pages are fetched by snooplab's HTTP client from its server, both in
    // kernel hosts (`web/`); the engine's browser and servers (`sim/src/nodes/browser.rs`)
    // model their bytes, so a modelled end could not talk to a kernel one
    if let Some(f) = net.flows.iter().find(|f| {
        !f.workload.is_bulk()
            && (!cfg.exec.is_empty() || !hosts.is_kernel(f.from) || !hosts.is_kernel(f.to))
    }) {
        return Err(format!(
            "flow '{}': workload = \"web\" runs live between two kernel hosts (snooplab's HTTP \
             client and server), not with a modelled host (stack = \"model\") or --exec",
            f.name
        ));
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
    // a split base station makes a relay per connection, from either side, and each relay
    // carries both directions (`proto/src/agent/split_relay.rs`): the user's programs (a request
    // and its answer) run through it like snooplab's own transfer
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::ExecSpec;
    use crate::profile::{CongestionControl, LinuxProfile};
    use snooplab_sim::{Env, Protocol};

    fn config(scenario: Scenario) -> NetworkConfig {
        NetworkConfig {
            scenario,
            profile: LinuxProfile::Paper,
            cc: CongestionControl::Reno,
            rto_min_ms: None,
            max_time: 30 * SEC,
            exec: Vec::new(),
            host_input: crate::host_input::HostInput::Auto,
        }
    }

    #[test]
    fn the_checked_network_is_the_one_the_runner_runs() {
        let sc = Scenario::paper000(Protocol::LlTcpAware, Env::Lan, 32 * 1024, 4);
        let live = LiveNetwork::check(config(sc.clone())).unwrap_or_else(|e| panic!("{e}"));
        // the scenario's network with the real clock's limit on it: the runner takes it as it
        // is, and nothing after this builds another (LiveNetwork is made here only)
        let mut want = sc.network();
        want.max_time = 31 * SEC;
        assert_eq!(live.network(), &want);
        assert_eq!(live.hosts().kernel_names(), ["fh", "mh"]);
        assert_eq!(live.config().scenario, sc);
    }

    #[test]
    fn the_commands_hosts_and_the_kernels_limits_are_checked_with_it() {
        let sc = Scenario::paper000(Protocol::E2e, Env::Lan, 32 * 1024, 1);
        let mut cfg = config(sc);
        cfg.exec = vec![ExecSpec::parse("moon=true").unwrap_or_else(|e| panic!("{e}"))];
        let e = LiveNetwork::check(cfg).unwrap_err();
        assert!(e.contains("moon"), "{e}");
        // a buffer past 64k runs under the paper profile as the modelled hosts run it; the
        // floor is every host's
        let sc = Scenario::paper000(Protocol::E2e, Env::Lan, 128 * 1024, 1);
        assert!(LiveNetwork::check(config(sc)).is_ok());
        let sc = Scenario::paper000(Protocol::E2e, Env::Lan, 1024, 1);
        let e = LiveNetwork::check(config(sc)).unwrap_err();
        assert!(e.starts_with("flow 'flow0': buffer 1k is less than"), "{e}");
    }

    /// A split base station's relays carry both directions: the user's programs (a request and
    /// its answer) run through it.
    #[test]
    fn a_split_base_station_runs_the_users_programs() {
        for p in [Protocol::Split, Protocol::SplitSmart] {
            let mut cfg = config(Scenario::paper000(p, Env::Lan, 32 * 1024, 1));
            cfg.exec = vec![
                ExecSpec::parse("fh=python3 -m http.server 8080").unwrap_or_else(|e| panic!("{e}")),
                ExecSpec::parse("mh=wget -q -O /dev/null http://10.0.0.1:8080/")
                    .unwrap_or_else(|e| panic!("{e}")),
            ];
            if let Err(e) = LiveNetwork::check(cfg) {
                panic!("{p:?}: {e}");
            }
        }
    }

    /// A Web workload (issue 53) runs live between kernel hosts; with `--exec`, or with a
    /// modelled end, it is refused in one line.
    #[test]
    fn a_web_workload_runs_between_kernel_hosts_only() {
        let text = include_str!("../../../examples/web-pages-snoop.toml");
        let scenario = |extra: &str| {
            let mut sc = Scenario::paper000(Protocol::E2e, Env::Lan, 32 * 1024, 1);
            let file = snooplab_sim::scenario::ScenarioFile::parse(
                &text.replace("name = \"mh\"\n", &format!("name = \"mh\"\n{extra}")),
            )
            .unwrap_or_else(|e| panic!("{e}"));
            file.apply(&mut sc).unwrap_or_else(|e| panic!("{e}"));
            sc
        };
        if let Err(e) = LiveNetwork::check(config(scenario(""))) {
            panic!("{e}");
        }
        let mut cfg = config(scenario(""));
        cfg.exec = vec![ExecSpec::parse("fh=true").unwrap_or_else(|e| panic!("{e}"))];
        let modelled = config(scenario("stack = \"model\"\n"));
        for cfg in [cfg, modelled] {
            let e = LiveNetwork::check(cfg).unwrap_err();
            assert!(
                e.starts_with("flow 'web': workload = \"web\" runs live between two kernel hosts"),
                "{e}"
            );
            assert!(!e.contains('\n'), "{e}");
        }
    }
}
