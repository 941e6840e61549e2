//! The kernel hosts of a scenario's network (docs/live.md, "Scenario files"): one network
//! namespace per host, each with one TUN device addressed as the scenario addresses the host and
//! a route to every other host through it. The engine, in the snooplab process, reads and
//! writes the devices; nothing else is attached, so no packet leaves the namespaces the run made.

use std::net::Ipv4Addr;

use snooplab_sim::network::NodeId;

use crate::netns::{host_role, Namespace, RunLock};
use crate::testbed::{host_namespace, TestbedConfig};
use crate::tun::Tun;

/// One kernel host: its node in the network, its namespace and its device.
pub struct KernelHost {
    pub node: NodeId,
    /// The scenario's name of the host.
    pub name: String,
    pub addr: Ipv4Addr,
    // Field order is drop order: the device closes before its namespace goes.
    pub tun: Tun,
    pub ns: Namespace,
}

/// Every kernel host of a run; dropping it removes them all, then releases the run's lock.
pub struct HostNet {
    pub hosts: Vec<KernelHost>,
    pub lock: RunLock,
}

impl HostNet {
    /// A namespace for each of `hosts` (node, name, address), set up as `cfg` says, with a
    /// route through its device to every other host, `modelled` ones (the engine's) included.
    pub fn create(
        hosts: &[(NodeId, String, Ipv4Addr)],
        modelled: &[Ipv4Addr],
        cfg: &TestbedConfig,
    ) -> Result<HostNet, String> {
        if hosts.len() > crate::sys::MAX_POLL_FDS {
            return Err(format!(
                "{} kernel hosts: the live mode runs at most {}",
                hosts.len(),
                crate::sys::MAX_POLL_FDS
            ));
        }
        let lock = RunLock::claim()?;
        let mut out = HostNet {
            hosts: Vec::with_capacity(hosts.len()),
            lock,
        };
        for (node, name, addr) in hosts {
            let peers: Vec<String> = hosts
                .iter()
                .map(|h| h.2)
                .chain(modelled.iter().copied())
                .filter(|a| a != addr)
                .map(|a| format!("{a}/32"))
                .collect();
            let peers: Vec<&str> = peers.iter().map(String::as_str).collect();
            let ns_name = format!("{}-{}", out.lock.id(), host_role(*node, name));
            let (ns, tun) = host_namespace(&ns_name, cfg, *addr, 32, &peers)?;
            out.hosts.push(KernelHost {
                node: *node,
                name: name.clone(),
                addr: *addr,
                tun,
                ns,
            });
        }
        Ok(out)
    }

    /// The kernel host of node `node`.
    pub fn host(&self, node: NodeId) -> Option<&KernelHost> {
        self.hosts.iter().find(|h| h.node == node)
    }
}

impl Drop for HostNet {
    fn drop(&mut self) {
        // the hosts (devices, then namespaces) before the lock, which drops after this
        self.hosts.clear();
    }
}
