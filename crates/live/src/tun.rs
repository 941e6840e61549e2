//! A TUN device opened from inside a namespace (docs/live.md): the kernel of that namespace
//! routes packets into it, and what snooplab writes into it arrives there as if from a wire.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};

use crate::netns::Namespace;
use crate::sys;

#[derive(Debug)]
pub struct Tun {
    fd: OwnedFd,
    name: String,
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
        Ok(Tun {
            fd,
            name: name.to_string(),
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub(crate) fn raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// One packet if one is waiting.
    pub fn recv(&self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        sys::read_nonblocking(self.raw_fd(), buf)
    }

    /// Hands one packet to the namespace's kernel.
    pub fn send(&self, packet: &[u8]) -> io::Result<()> {
        sys::write_packet(self.raw_fd(), packet)
    }
}
