//! The multicast handoff of paper 002 (sections 4-6): a home agent that tunnels a mobile host's
//! packets to its multicast group (`home_agent.rs`), base stations that forward (the primary) or keep
//! the last packets in a circular buffer (`ring.rs`) and mirror snoop's cache (`base_station.rs`),
//! beacons, and the mobile host's side: which base station forwards, when to hand off, and the IP
//! ids of the last packets it received (`mobile.rs`). The messages between them are real packets
//! (`messages.rs`): they take airtime, can be lost, and appear in captures.
//!
//! Everything here is sans-IO and generic over the packet ([`MobilityPacket`]), like the other
//! agents.

mod base_station;
mod home_agent;
mod messages;
mod mobile;
mod ring;
#[cfg(test)]
mod tests;

pub use base_station::{HandoffAgent, HandoffConfig, HandoffStats};
pub use home_agent::HomeAgent;
pub use messages::{Mobility, Request, Tunnel, BROADCAST, CONTROL_PORT, TUNNEL_HEADER_BYTES};
pub use mobile::{Decision, DecisionTotals, MobileConfig, MobileHandoff, Trigger, DECISIONS_KEPT};
pub use ring::Ring;

/// How the network moves a mobile host's traffic at a handoff: paper 002's scheme, and the two
/// baselines it is compared with (section 8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Scheme {
    /// Multicast to the nearby base stations; buffering base stations keep the last packets and
    /// mirror snoop's cache (sections 4-5).
    #[default]
    Multicast,
    /// A hard handoff as in plain Mobile IP: the home agent tunnels to the primary only, the new
    /// base station registers the mobile host there, nothing is buffered, the new base station
    /// starts with an empty cache, and the mobile host hears only its primary: packets in flight
    /// to the old cell are lost.
    Hard,
    /// Caceres and Iftode's scheme (section 8): a hard handoff after which the mobile host sends
    /// three duplicate ACKs, so that the fixed host fast-retransmits at once instead of waiting
    /// for its retransmission timer.
    FastRetransmit,
    /// A split connection (I-TCP) handed over: routed as a hard handoff, and the old base
    /// station's connection state (both TCPs and the relay buffer) moves to the new one, which
    /// takes a time that grows with the state (section 8: "I-TCP handoff times vary between 265
    /// and 1400 ms depending on the amount of data in the socket buffers"). Until it arrives the
    /// connection stands still.
    SplitTransfer,
}

impl Scheme {
    pub const ALL: [Scheme; 4] = [
        Scheme::Multicast,
        Scheme::Hard,
        Scheme::FastRetransmit,
        Scheme::SplitTransfer,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Scheme::Multicast => "multicast",
            Scheme::Hard => "hard",
            Scheme::FastRetransmit => "fast-retransmit",
            Scheme::SplitTransfer => "split",
        }
    }

    pub fn parse(name: &str) -> Result<Scheme, String> {
        Scheme::ALL
            .into_iter()
            .find(|s| s.name() == name.trim().to_ascii_lowercase())
            .ok_or_else(|| {
                format!(
                    "unknown handoff scheme '{name}' (known: multicast, hard, fast-retransmit, \
                     split)"
                )
            })
    }

    /// Whether base stations other than the primary receive and buffer the mobile host's packets.
    pub fn buffers(self) -> bool {
        self == Scheme::Multicast
    }

    /// I-TCP's handoff time for `bytes` of connection state: 265 ms empty to 1430 ms with 32 KB
    /// socket buffers (Bakre and Badrinath 1995, as paper 002 section 8 and the issue cite them),
    /// straight between the two (our reading of two points), and beyond 32 KB at the same rate.
    pub fn state_transfer_time(bytes: u64) -> Time {
        let (empty, full) = (265 * MS, 1430 * MS);
        empty + (full - empty) * bytes / 32768
    }
}

use super::SegmentView;
use crate::time::{Time, MS};

/// A packet the handoff protocol can read and build: control messages and beacons besides TCP
/// segments, and IP-in-IP encapsulation from the home agent to the base stations.
pub trait MobilityPacket: SegmentView + Clone {
    /// The control message or beacon this packet carries; `None` for any other packet.
    fn mobility(&self) -> Option<&Mobility>;
    /// The outer header of an encapsulated packet.
    fn tunnel(&self) -> Option<Tunnel>;
    /// This packet inside an outer header (the home agent copies the packet for every member of
    /// the group but the last, which gets the packet itself).
    fn encapsulate(self, tunnel: Tunnel) -> Self;
    /// The inner packet.
    fn decapsulate(self) -> Self;
    /// A control message from `src` to `dst` (addresses in host byte order).
    fn control(src: u32, dst: u32, msg: Mobility) -> Self;
}
