//! A split base station's settings (paper 000 section III-C): the two halves' TCPs, the relay
//! buffer, the bound on all relays' memory and the idle limit, and the bytes one relay may store,
//! which the bound counts. Read by the agent (`split.rs`) and each relay (`split_relay.rs`).

use crate::tcp::TcpConfig;
use crate::time::{Time, SEC};

/// How long a relay may see no packet of its connection before it is removed: 2 hours and 4
/// minutes, the least idle time a middlebox may give an established TCP connection (RFC 5382,
/// REQ-5: TCP's keepalive interval of two hours, RFC 1122 section 4.2.3.6, plus four minutes for
/// its probes). A relay whose halves are both closed goes at once.
pub const IDLE_LIMIT: Time = (2 * 3600 + 4 * 60) * SEC;

/// The most bytes all of a base station's relays may hold together by default: 64 MiB, about 245
/// of paper 000's relays (each way a 64 KB buffer + a 64 KB window + a segment), over the 200
/// connections of a busy cell (issue 52's measure), while a flood of SYNs can take no more than
/// that of the machine's memory.
pub const DEFAULT_RELAY_MEMORY: u64 = 64 << 20;

#[derive(Clone, Debug, PartialEq)]
pub struct SplitConfig {
    /// The base station's end of the opener's connection (a relay receiver).
    pub wired: TcpConfig,
    /// The base station's connection to the other host (a relay sender: Reno, or the SMART
    /// sender towards a mobile host).
    pub wireless: TcpConfig,
    /// The relay buffer shared by both connections of one relay, in bytes, each way.
    pub relay_bytes: u32,
    /// The most bytes all relays may hold together ([`store_bound`] each): a connection beyond
    /// it is forwarded end to end.
    pub max_memory: u64,
    /// A relay that sees no packet for this long is removed.
    pub idle: Time,
}

impl SplitConfig {
    /// Paper 000: a 64 KB relay buffer; `wireless_policy` is Reno (SPLIT) or SMART (SPLIT-SMART).
    pub fn paper000(mss: u32, wireless_policy: crate::tcp::RecoveryPolicy) -> SplitConfig {
        let relay = 65536;
        let mut wireless = TcpConfig::relay(mss, relay, relay);
        wireless.policy = wireless_policy;
        SplitConfig {
            wired: TcpConfig::relay(mss, relay, relay),
            wireless,
            relay_bytes: relay,
            max_memory: DEFAULT_RELAY_MEMORY,
            idle: IDLE_LIMIT,
        }
    }

    /// The most relays at once: [`SplitConfig::max_memory`] in [`store_bound`]s.
    pub fn max_relays(&self) -> u64 {
        self.max_memory / store_bound(self).max(1)
    }
}

/// The most bytes one relay stores: both directions' [`direction_bound`].
pub fn store_bound(cfg: &SplitConfig) -> u64 {
    2 * direction_bound(cfg)
}

/// The most bytes one direction of a relay stores: the relay buffer (received from one host, not
/// yet acknowledged by the other) plus the receiving half's window ([`SplitRelay::open`] makes it
/// the relay buffer, which 4.4BSD's `tcp_mss()` rounds up to whole segments): every byte the
/// sending host may send beyond what the other host acknowledged.
pub fn direction_bound(cfg: &SplitConfig) -> u64 {
    let relay = u64::from(cfg.relay_bytes);
    relay + relay + u64::from(cfg.wired.mss.max(cfg.wireless.mss))
}
