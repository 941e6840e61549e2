//! A TUN device opened from inside a namespace (docs/live.md): the kernel of that namespace
//! routes packets into it, and what snooplab writes into it arrives there as if from a wire.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::netns::Namespace;
use crate::sys;

#[derive(Debug)]
pub struct Tun {
    fd: OwnedFd,
    name: String,
    /// The namespace it lives in.
    ns: String,
    /// What the kernel has queued on the device, counted by the kernel (`sys/tun_count.rs`),
    /// where it lets us count; and the packets read from it.
    queued: Option<sys::QueueCount>,
    read: AtomicU64,
}

impl Tun {
    /// Creates the TUN device `name` in `ns`: the thread enters the namespace, opens
    /// `/dev/net/tun` there (`TUNSETIFF`, `TUNSETOFFLOAD(0)`) and comes back with the descriptor.
    pub(crate) fn create_in(ns: &Namespace, name: &str) -> Result<Tun, String> {
        let fd = {
            let _inside = ns.enter()?;
            sys::open_tun(name)
                .map_err(|e| format!("cannot create TUN device {name} in {}: {e}", ns.name()))?
        };
        // attached before the device is up: every packet it will hold is counted
        let queued = sys::QueueCount::attach(fd.as_raw_fd()).ok();
        Ok(Tun {
            fd,
            name: name.to_string(),
            ns: ns.name().to_string(),
            queued,
            read: AtomicU64::new(0),
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Has the namespace's kernel take in what is written into the device on the CPUs `mask`
    /// (a hex CPU mask, `host_input.rs`), not in the writer's call: Receive Packet Steering, the
    /// device's `queues/rx-0/rps_cpus` (`Documentation/networking/scaling.rst`). sysfs shows a
    /// namespace's devices only where it was mounted from inside it, so the write runs through
    /// `ip netns exec`, which mounts one.
    pub(crate) fn steer_input(&self, mask: &str) -> Result<(), String> {
        let path = format!("/sys/class/net/{}/queues/rx-0/rps_cpus", self.name);
        crate::netns::ip(&[
            "netns",
            "exec",
            &self.ns,
            "sh",
            "-c",
            "printf '%s\\n' \"$1\" > \"$2\"",
            "sh",
            mask,
            &path,
        ])
    }

    pub(crate) fn raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// One packet if one is waiting.
    pub fn recv(&self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        let r = sys::read_nonblocking(self.raw_fd(), buf);
        if let Ok(Some(_)) = r {
            // never past the kernel's count: a packet queued past the filter (none is known
            // here; `tun_xdp_xmit` would be one) must not leave every later count short, which
            // would make an in-call answer wait for the next poll. The kernel counts a packet
            // before it queues it, so a counted one read never meets this cap.
            let cap = self.queued.as_ref().map_or(u64::MAX, |q| q.queued());
            let _ = self
                .read
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                    Some(n.saturating_add(1).min(cap))
                });
        }
        r
    }

    /// At most how many packets the device holds, without a call: what the kernel queued on it
    /// less what was read (more only by packets the kernel dropped, its queue full); `None`
    /// where the kernel does not count (then only a read tells).
    pub fn at_most_waiting(&self) -> Option<u64> {
        let queued = self.queued.as_ref()?.queued();
        Some(queued.saturating_sub(self.read.load(Ordering::Relaxed)))
    }

    /// Hands one packet to the namespace's kernel.
    pub fn send(&self, packet: &[u8]) -> io::Result<()> {
        sys::write_packet(self.raw_fd(), packet)
    }
}
