//! Which agent the middlebox runs: a name a scenario file gives a node (`NODE_AGENTS`: router,
//! snoop-002, ...) or a protocol's (`snooplab protocols`: ll, ll-tcp-aware alias snoop, bs-eln,
//! bs-nack, e2e, split, split-smart). The agents that work on any packet come from the
//! simulator's factory (`snooplab_sim::agents::forwarding_agent`) with the constants it gives
//! them; a split base station is made here, for the interfaces it sits between
//! ([`SplitSettings`]).

use snooplab_proto::agent::split::DEFAULT_RELAY_MEMORY;
use snooplab_proto::agent::{Agent, SplitAgent, SplitConfig};
use snooplab_proto::tcp::{HostPreset, RecoveryPolicy, SackUse};
use snooplab_sim::agents::forwarding_agent;
use snooplab_sim::packet::SimPacket;
use snooplab_sim::protocol::{AgentKind, Protocol, NODE_AGENTS};

/// The largest relay memory taken (1 TiB), as a scenario file's `relay-memory`: a bound that is
/// only allocated as connections come, but one past any machine's memory is a mistake.
pub const RELAY_MEMORY_MAX: u64 = 1 << 40;
/// IPv4's and TCP's headers without options (RFC 791, RFC 9293 section 3.1): what an interface's
/// MTU leaves a segment (RFC 9293 section 3.7.1, the MSS a host offers is the MTU less these).
const IP_TCP_HEADERS: u32 = 40;

/// What a split base station between two interfaces is made with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SplitSettings {
    /// The smaller of the two interfaces' MTUs: each relay's halves offer and send segments of
    /// it less the headers.
    pub mtu: u32,
    /// The most bytes all relays may hold together (`--relay-memory`).
    pub relay_memory: u64,
    /// The host whose TCP both halves of every relay run (`--relay-host`): the simulator's
    /// profiles, as a split base station's relays take the relayed flow's host there.
    pub relay_host: HostPreset,
}

impl Default for SplitSettings {
    /// Ethernet's MTU (RFC 894: 1500 bytes), the simulator's default relay memory, and paper
    /// 000's hosts (BSD/OS 2.1), whose split base station this is.
    fn default() -> Self {
        SplitSettings {
            mtu: 1500,
            relay_memory: DEFAULT_RELAY_MEMORY,
            relay_host: HostPreset::Bsdos21,
        }
    }
}

/// The kind of agent named `name`, or why there is none.
pub fn agent_kind(name: &str) -> Result<AgentKind, String> {
    NODE_AGENTS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, k)| *k)
        .or_else(|| Protocol::parse(name).ok().map(Protocol::agent))
        .ok_or_else(|| format!("unknown agent '{name}' (the middlebox runs: {})", names()))
}

/// The agent of kind `kind`; a split one made with `split`.
pub fn make_agent(
    kind: AgentKind,
    split: SplitSettings,
) -> Result<Box<dyn Agent<SimPacket>>, String> {
    if let AgentKind::Split { smart } = kind {
        return Ok(Box::new(SplitAgent::new(split_config(smart, split)?)));
    }
    forwarding_agent(kind).ok_or_else(|| format!("agent {kind:?} does not run on real packets"))
}

/// The agent named `name` with the default settings (an Ethernet MTU).
pub fn agent_named(name: &str) -> Result<Box<dyn Agent<SimPacket>>, String> {
    make_agent(agent_kind(name)?, SplitSettings::default())
}

/// Paper 000's split base station (section III-C: a 64 KB relay buffer; Reno, or SMART towards
/// the mobile host), its relays' TCPs those of the host `s.relay_host` (by default BSD/OS 2.1, the
/// paper's hosts; any host without SACK on every connection, [`relay_host`]), with what a real
/// box needs besides: segments of the interfaces' MTU, the relays' memory bound, and
/// initial sequence numbers and timer phases drawn at random (a reading of RFC 9293 section
/// 3.4.1 and RFC 6528: not a clock and a hash of the connection, but unpredictable across runs,
/// each relay's offset from them by `split_relay.rs`'s spacing).
fn split_config(smart: bool, s: SplitSettings) -> Result<SplitConfig, String> {
    let mss = s
        .mtu
        .checked_sub(IP_TCP_HEADERS)
        .filter(|m| *m >= 536)
        .ok_or_else(|| {
            format!(
            "an MTU of {} is too small for a split relay (TCP's least segment, 536 bytes, needs \
             576: RFC 9293 section 3.7.1)",
            s.mtu
        )
        })?;
    if s.relay_memory > RELAY_MEMORY_MAX {
        return Err(format!(
            "--relay-memory {} is more than 1T (the relays' bound, not an allocation)",
            s.relay_memory
        ));
    }
    let policy = if smart {
        RecoveryPolicy::SMART
    } else {
        RecoveryPolicy::RENO
    };
    let mut cfg = SplitConfig::paper000(mss, policy);
    cfg.max_memory = s.relay_memory;
    for t in [&mut cfg.wired, &mut cfg.wireless] {
        t.host = s.relay_host.profile();
        t.timers.slow_phase = random_u64() % t.timers.slow_tick.max(1);
        t.timers.fast_phase = random_u64() % t.timers.fast_tick.max(1);
        t.iss = random_u64() as u32;
    }
    Ok(cfg)
}

/// Eight random bytes from the kernel (getrandom(2)); the clock's nanoseconds if it has none.
fn random_u64() -> u64 {
    let mut b = [0u8; 8];
    // SAFETY: b is valid for its 8 bytes.
    let n = unsafe { libc::getrandom(b.as_mut_ptr().cast(), b.len(), 0) };
    if n == 8 {
        return u64::from_ne_bytes(b);
    }
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// The host whose TCP a split relay may run (`--relay-host`): one that recovers without SACK.
/// The relays' handshakes carry the MSS alone (the segment view has no place for SACK-permitted,
/// window scaling or timestamps: `split_bytes_tests.rs`), so the kernels at either end never send
/// SACK blocks; a host that assumes SACK on every connection (Linux's `tcp_sack`, the `linux`
/// presets) would then recover every loss by a timeout. Measured so on issue 52's bed with the
/// modern sender, before this rule: `linux` relays 4.57 Mb/s (median of five 10 s iperf3 runs,
/// every retransmission a timeout) against `bsdos-2.1`'s 8.42 (every one a fast retransmit;
/// docs/live.md).
pub fn relay_host(name: &str) -> Result<HostPreset, String> {
    let host = HostPreset::parse(name)?;
    if host.profile().sack == SackUse::On {
        let usable: Vec<&str> = HostPreset::ALL
            .into_iter()
            .filter(|h| h.profile().sack != SackUse::On)
            .map(HostPreset::name)
            .collect();
        return Err(format!(
            "'{name}' uses SACK on every connection, and a relay's handshake does not negotiate \
             it (its TCP would recover every loss by a timeout); take one of: {}",
            usable.join(", ")
        ));
    }
    Ok(host)
}

/// The names [`agent_named`] takes.
pub fn names() -> String {
    let mut out: Vec<String> = Vec::new();
    for p in Protocol::ALL {
        let kind = p.agent();
        if out.iter().any(|n| n == p.name()) {
            continue;
        }
        // one name per agent: the first protocol that has it
        if Protocol::ALL
            .into_iter()
            .take_while(|q| *q != p)
            .any(|q| q.agent() == kind)
        {
            continue;
        }
        out.push(match p.def().aliases {
            [] => p.name().to_string(),
            a => format!("{} ({})", p.name(), a.join(", ")),
        });
    }
    out.extend(NODE_AGENTS.iter().map(|(n, _)| n.to_string()));
    out.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_agent_runs_and_an_unknown_one_is_refused_in_one_line() {
        for name in [
            "snoop",
            "ll-tcp-aware",
            "ll",
            "e2e",
            "bs-eln",
            "bs-nack",
            "snoop-002",
            "split",
            "split-smart",
        ] {
            assert!(agent_named(name).is_ok(), "{name}");
        }
        let e = agent_named("nope").err().unwrap();
        assert!(
            e.contains("snoop") && e.contains("split") && !e.contains('\n'),
            "{e}"
        );
    }

    #[test]
    fn a_split_relay_sends_segments_of_the_mtu_within_the_memory_bound() {
        let cfg = split_config(
            true,
            SplitSettings {
                mtu: 9000,
                relay_memory: 1 << 20,
                ..SplitSettings::default()
            },
        )
        .unwrap();
        assert_eq!((cfg.wired.mss, cfg.wireless.mss), (8960, 8960));
        assert_eq!(cfg.max_memory, 1 << 20);
        assert_eq!(cfg.wireless.policy, RecoveryPolicy::SMART);
        let small = SplitSettings {
            mtu: 500,
            ..SplitSettings::default()
        };
        assert!(split_config(false, small)
            .unwrap_err()
            .contains("too small"));
        let huge = SplitSettings {
            relay_memory: 2 << 40,
            ..SplitSettings::default()
        };
        assert!(split_config(false, huge).unwrap_err().contains("1T"));
    }

    #[test]
    fn a_split_relay_runs_the_host_asked_for_and_the_papers_by_default() {
        let bsd = split_config(false, SplitSettings::default()).unwrap();
        let linux = split_config(
            false,
            SplitSettings {
                relay_host: relay_host("linux-paper").unwrap(),
                ..SplitSettings::default()
            },
        )
        .unwrap();
        for (cfg, host) in [
            (&bsd, HostPreset::Bsdos21),
            (&linux, HostPreset::LinuxPaper),
        ] {
            assert_eq!(cfg.wired.host, host.profile(), "{}", host.name());
            assert_eq!(cfg.wireless.host, host.profile(), "{}", host.name());
        }
        assert_ne!(bsd.wired.host, linux.wired.host);
    }

    #[test]
    fn a_relay_host_that_assumes_sack_is_refused_in_one_line_naming_those_taken() {
        for name in ["linux", "linux-reno", "linux-paper-sack"] {
            let e = relay_host(name).unwrap_err();
            assert!(e.contains("SACK") && !e.contains('\n'), "{e}");
            let (_, taken) = e.split_once("take one of: ").expect("the hosts taken");
            assert_eq!(
                taken, "bsd44-lite, bsdos-2.1, freebsd-2.2, linux-paper",
                "{e}"
            );
        }
        for name in ["bsd44-lite", "bsdos-2.1", "freebsd-2.2", "linux-paper"] {
            assert!(relay_host(name).is_ok(), "{name}");
        }
        assert!(relay_host("nope").unwrap_err().contains("unknown host"));
    }
}
