//! The live testbed: the fixed host's and the mobile host's namespaces, one TUN device in each, and
//! the snooplab process between them as the base station (docs/live.md).
//!
//! ```text
//!  netns snooplab-<pid>-<n>-fh          snooplab (base station)          netns ...-mh
//!  10.0.0.1 --route 10.0.1.0/24--> [tun snl0] <-> wired | agent | air <-> [tun snl0] 10.0.1.2
//! ```
//!
//! Nothing else is connected to either namespace: every packet either host sends goes through
//! snooplab, and snooplab writes only into these two devices.

use std::net::Ipv4Addr;

use crate::netns::{Namespace, RunLock};
use crate::profile::LinuxProfile;
use crate::tun::Tun;

/// The fixed host's address (the simulator's, `10.0.0.1`).
pub const FH_IP: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 1);
/// The mobile host's address (the simulator's, `10.0.1.2`).
pub const MH_IP: Ipv4Addr = Ipv4Addr::new(10, 0, 1, 2);
/// Where the mobile host's receiver listens.
pub(crate) const MH_PORT: u16 = 5001;
/// The receiver's address and port.
pub const MH_ADDR: std::net::SocketAddrV4 = std::net::SocketAddrV4::new(MH_IP, MH_PORT);
/// Name of the TUN device in each namespace.
pub const TUN_NAME: &str = "snl0";

/// Everything a run needs from the kernel; dropping it removes all of it.
pub struct Testbed {
    // Field order is drop order: the devices close before their namespaces go, and the run's lock
    // is released last, once they are gone.
    pub fh_tun: Tun,
    pub mh_tun: Tun,
    pub fh: Namespace,
    pub mh: Namespace,
    pub lock: RunLock,
}

/// What to set up.
#[derive(Clone, Debug, PartialEq)]
pub struct TestbedConfig {
    pub profile: LinuxProfile,
    /// MTU of both TUN devices: the MSS is this minus 40 bytes of headers and any options.
    pub mtu: u32,
    /// `rto_min` of the routes between the hosts, ms; `None` = the kernel's.
    pub rto_min_ms: Option<u32>,
    /// `initcwnd` of the routes between the hosts, segments; `None` = the kernel's.
    pub initcwnd: Option<u32>,
}

impl TestbedConfig {
    /// The route options after `ip route add <net> dev snl0`.
    fn route_options(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(ms) = self.rto_min_ms {
            out.extend(["rto_min".to_string(), format!("{ms}ms")]);
        }
        if let Some(n) = self.initcwnd {
            out.extend(["initcwnd".to_string(), n.to_string()]);
        }
        out
    }
}

impl Testbed {
    pub fn create(cfg: &TestbedConfig) -> Result<Testbed, String> {
        let lock = RunLock::claim()?;
        let id = lock.id().to_string();
        let (fh, fh_tun) = host_namespace(&format!("{id}-fh"), cfg, FH_IP, 24, &["10.0.1.0/24"])?;
        let (mh, mh_tun) = host_namespace(&format!("{id}-mh"), cfg, MH_IP, 24, &["10.0.0.0/24"])?;
        Ok(Testbed {
            fh_tun,
            mh_tun,
            fh,
            mh,
            lock,
        })
    }
}

/// A host's namespace `name` with loopback and one TUN device [`TUN_NAME`] (MTU `cfg.mtu`)
/// addressed `own/prefix`, IPv6 off, the profile's TCP sysctls, and a route through the device to
/// each of `routes` with the profile's route options. Nothing else is attached: every packet the
/// host sends goes to whoever reads the device.
pub(crate) fn host_namespace(
    name: &str,
    cfg: &TestbedConfig,
    own: Ipv4Addr,
    prefix: u8,
    routes: &[&str],
) -> Result<(Namespace, Tun), String> {
    let ns = Namespace::create(name.to_string())?;
    disable_ipv6(&ns)?;
    for (key, value) in cfg.profile.sysctls() {
        ns.set_sysctl(key, &value)?;
    }
    let tun = Tun::create_in(&ns, TUN_NAME)?;
    let mtu = cfg.mtu.to_string();
    ns.ip(&["link", "set", "dev", TUN_NAME, "mtu", &mtu, "up"])?;
    ns.ip(&["addr", "add", &format!("{own}/{prefix}"), "dev", TUN_NAME])?;
    let options = cfg.route_options();
    for to in routes {
        let mut route = vec!["route", "add", to, "dev", TUN_NAME];
        route.extend(options.iter().map(String::as_str));
        ns.ip(&route)?;
    }
    Ok((ns, tun))
}

/// No IPv6 in the namespaces: no router solicitations or neighbour discovery on the devices, only
/// the traffic of the run (docs/live.md). Kernels without IPv6 have nothing to turn off.
fn disable_ipv6(ns: &Namespace) -> Result<(), String> {
    if !std::path::Path::new("/proc/sys/net/ipv6").exists() {
        return Ok(());
    }
    ns.set_sysctl("net.ipv6.conf.all.disable_ipv6", "1")?;
    ns.set_sysctl("net.ipv6.conf.default.disable_ipv6", "1")
}

/// Why the live mode cannot run here, or `None` if it can: it needs root, `/dev/net/tun` and
/// `ip netns`. The message names the missing thing and what to do about it (only a user who is not
/// root is told to run as root). Live tests fail with it ([`require_live`]).
pub fn unavailable_reason() -> Option<String> {
    // The effective user id, from /proc/self/status (no libc call needed).
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let euid = status
        .lines()
        .find(|l| l.starts_with("Uid:"))
        .and_then(|l| l.split_whitespace().nth(2))
        .and_then(|v| v.parse::<u32>().ok());
    if euid != Some(0) {
        return Some(
            "live mode needs root (network namespaces and TUN devices): run it as root on Linux \
             (e.g. sudo snooplab live ...)"
                .into(),
        );
    }
    if !std::path::Path::new("/dev/net/tun").exists() {
        return Some(
            "live mode needs /dev/net/tun, which does not exist here (load the tun module: \
             modprobe tun; in a container, pass the device in)"
                .into(),
        );
    }
    match std::process::Command::new("ip")
        .args(["netns", "list"])
        .stdin(std::process::Stdio::null())
        .output()
    {
        Ok(o) if o.status.success() => None,
        Ok(o) => Some(format!(
            "live mode needs `ip netns`, and `ip netns list` fails: {}",
            String::from_utf8_lossy(&o.stderr).trim()
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some(
            "live mode needs the `ip` command of iproute2, which is not in PATH (install \
             iproute2)"
                .into(),
        ),
        Err(e) => Some(format!("live mode needs `ip` from iproute2: {e}")),
    }
}

/// For tests that need the live mode: panics, naming `test` and what is missing, where it cannot
/// run here. The live tests are `#[ignore]`d (cargo counts them as ignored, not passed, where
/// nobody asked for them); a run that includes them asked for the live mode, so its absence is a
/// failure, never a silent pass (scripts/test-all includes them where [`unavailable_reason`] is
/// `None`).
pub fn require_live(test: &str) {
    if let Some(why) = unavailable_reason() {
        panic!("live test {test} cannot run here: {why}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn route_options_follow_the_config() {
        let mut cfg = TestbedConfig {
            profile: LinuxProfile::Paper,
            mtu: 1440,
            rto_min_ms: Some(1000),
            initcwnd: Some(1),
        };
        assert_eq!(cfg.route_options(), ["rto_min", "1000ms", "initcwnd", "1"]);
        cfg.rto_min_ms = None;
        cfg.initcwnd = None;
        assert!(cfg.route_options().is_empty());
    }
}
