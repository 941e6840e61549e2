//! Where the kernel hosts take in the packets the engine writes into their devices (docs/live.md,
//! "The hosts' input on the other cores").
//!
//! A TUN write runs the receiving namespace's IP and TCP input in the writer's call
//! (`drivers/net/tun.c`: `tun_get_user` -> `netif_receive_skb`), so with every host's input
//! inline the engine's thread also ran every host's TCP input and, through the ACKs it handed
//! the senders, their next transmissions: a 1 GB `--env off` run had the engine's thread at
//! one core, half of it in `netif_receive_skb`, while the other core sat two-thirds idle.
//! *Steered*, a host's input runs on the other cores: Receive Packet Steering on its device
//! (`rps_cpus`, `Documentation/networking/scaling.rst`) queues each packet written to a CPU of
//! the mask, whose softirq runs the host's input, and the engine's thread is pinned to its own
//! core for the run, so that the scheduler does not put it where the input now runs.
//!
//! What a host sees is the same: the same bytes, written at the same engine times. What changes
//! is that its answer is no longer queued before the write returns, so a host is steered only
//! where nothing waits for that answer: not a station of a cell whose next pick waits for it
//! (turn taking, CSMA: `Network::awaits_answers_of`, "The live driver's fix" in
//! kernel-check.md); and, a reading of ours ([`why_inline`]), in no run that has such a cell.
//! `auto` (the default) steers every host of a run whose cells are all full duplex (or that has
//! none: `--env off`, wired scenario files) where the engine's thread may use two CPUs or more;
//! `inline` steers none (the engine's thread runs where the scheduler puts it).

use serde::Serialize;
use snooplab_sim::network::{Network, NodeId};

use crate::sys;
use crate::tun::Tun;

/// Whether to steer the hosts' input to the other cores.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HostInput {
    /// Every host nothing waits on, where there is another CPU.
    #[default]
    Auto,
    /// None: every host's input in the engine's write call.
    Inline,
}

impl HostInput {
    pub const NAMES: [&'static str; 2] = ["auto", "inline"];

    pub fn parse(s: &str) -> Result<HostInput, String> {
        match s {
            "auto" => Ok(HostInput::Auto),
            "inline" => Ok(HostInput::Inline),
            _ => Err(format!(
                "unknown host input '{s}'; expected one of: {}",
                HostInput::NAMES.join(", ")
            )),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            HostInput::Auto => "auto",
            HostInput::Inline => "inline",
        }
    }
}

/// Where one kernel host took in its packets.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HostInputOf {
    pub host: String,
    /// `steered` (on `input_cpus`) or `inline` (in the engine's write call).
    pub input: &'static str,
    /// Why a host was left inline.
    pub why: Option<String>,
}

/// What a run did with its hosts' input (the JSON's `live.host_input`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct HostInputReport {
    /// `auto` or `inline`, as asked.
    pub mode: &'static str,
    /// The CPU the engine's thread was pinned to while any host was steered (the one CPU the
    /// steered hosts' input was kept off).
    pub engine_cpu: Option<usize>,
    /// The CPUs the steered hosts took in their packets on.
    pub input_cpus: Vec<usize>,
    pub hosts: Vec<HostInputOf>,
}

impl HostInputReport {
    /// The hosts steered.
    pub fn steered(&self) -> impl Iterator<Item = &str> {
        self.hosts
            .iter()
            .filter(|h| h.input == "steered")
            .map(|h| h.host.as_str())
    }
}

impl HostInputReport {
    /// One line: which hosts took in their packets where, and why a host stayed inline.
    pub fn summary(&self) -> String {
        let cpus = |c: &[usize]| {
            let list: Vec<String> = c.iter().map(usize::to_string).collect();
            format!(
                "CPU{} {}",
                if c.len() > 1 { "s" } else { "" },
                list.join(",")
            )
        };
        let mut parts = Vec::new();
        let steered: Vec<&str> = self.steered().collect();
        if !steered.is_empty() {
            let engine = self
                .engine_cpu
                .map_or("the engine's thread not pinned".to_string(), |c| {
                    format!("the engine's thread pinned to CPU {c}")
                });
            parts.push(format!(
                "{} on {} ({engine})",
                steered.join(", "),
                cpus(&self.input_cpus)
            ));
        }
        for h in self.hosts.iter().filter(|h| h.input != "steered") {
            match &h.why {
                Some(why) => parts.push(format!("{} inline: {why}", h.host)),
                None => parts.push(format!("{} inline", h.host)),
            }
        }
        parts.join("; ")
    }
}

/// The kernel's CPU mask of `cpus` as `rps_cpus` reads it (`lib/bitmap.c`, `bitmap_parse`): hex,
/// in 32-bit words separated by commas, the highest first.
pub fn cpu_mask(cpus: &[usize]) -> String {
    let words = cpus.iter().max().map_or(1, |&m| m / 32 + 1);
    let mut w = vec![0u32; words];
    for &c in cpus {
        w[c / 32] |= 1 << (c % 32);
    }
    let mut out = format!("{:x}", w[words - 1]);
    for word in w[..words - 1].iter().rev() {
        out.push_str(&format!(",{word:08x}"));
    }
    out
}

/// Steers the input of each host of `hosts` (node, name, device) that `mode` allows and
/// `keep_inline` gives no reason to keep inline ([`why_inline`]) to every CPU the calling thread
/// may use but the one it is on, which the report names as the engine's: [`pin_engine`] pins the
/// engine's thread there once the run's other threads have started (they would inherit it). Done
/// while the hosts are set up, before any of them sends: a device's mask takes an `ip netns exec`
/// of a few milliseconds. A host whose device the kernel will not steer (no RPS in the kernel, a
/// read-only sysfs) stays inline, with the reason.
pub(crate) fn steer(
    mode: HostInput,
    hosts: &[(NodeId, &str, &Tun)],
    keep_inline: impl Fn(NodeId) -> Option<String>,
) -> HostInputReport {
    let mut report = HostInputReport {
        mode: mode.name(),
        ..HostInputReport::default()
    };
    let inline = |host: &str, why: String| HostInputOf {
        host: host.to_string(),
        input: "inline",
        why: Some(why),
    };
    // where the other CPUs are, if any
    let place = match (mode, sys::allowed_cpus(), sys::current_cpu()) {
        (HostInput::Inline, _, _) => Err("--host-input inline".to_string()),
        (_, Ok(allowed), Some(cur)) if allowed.contains(&cur) && allowed.len() > 1 => {
            Ok((cur, allowed.into_iter().filter(|&c| c != cur).collect()))
        }
        (_, Ok(_), Some(_)) => Err("the engine may use one CPU only".to_string()),
        (_, Err(e), _) => Err(format!("cannot read the engine's CPUs: {e}")),
        (_, _, None) => Err("cannot tell the engine's CPU".to_string()),
    };
    let (engine_cpu, others): (usize, Vec<usize>) = match place {
        Ok(p) => p,
        Err(why) => {
            report.hosts = hosts.iter().map(|h| inline(h.1, why.clone())).collect();
            return report;
        }
    };
    let mask = cpu_mask(&others);
    for &(node, name, tun) in hosts {
        report.hosts.push(if let Some(why) = keep_inline(node) {
            inline(name, why)
        } else {
            match tun.steer_input(&mask) {
                Ok(()) => HostInputOf {
                    host: name.to_string(),
                    input: "steered",
                    why: None,
                },
                Err(e) => inline(name, e),
            }
        });
    }
    if report.steered().next().is_some() {
        report.engine_cpu = Some(engine_cpu);
        report.input_cpus = others;
    }
    report
}

/// Why host `node` of `net` must take in its packets in the engine's write call, if it must.
///
/// A host a cell waits on answers in that call (the cell's next pick waits for it). The other
/// hosts of a run with such a cell stay inline too, a reading of ours: such a run is paced by its
/// emulated links, not by the CPU, so steering gains it nothing, and it keeps the conditions its
/// live figures were measured under (a steered fixed host beside an inline mobile host leaves the
/// kernel check's `lan-16k-snoop-cubic` as it was on a quiet machine: docs/kernel-check.md, "The
/// hosts' input"). So only a run whose every cell is full duplex, or that has no cell, is
/// steered: `--env off`, and wired or full-duplex scenario files.
pub(crate) fn why_inline(net: &Network, node: NodeId) -> Option<String> {
    if net.awaits_answers_of(node) {
        Some("its cell waits for its answers (half duplex)".into())
    } else if net.any_cell_awaits_answers() {
        Some("another host's cell waits for its answers (half duplex): a run is steered only without one".into())
    } else {
        None
    }
}

/// The engine's thread pinned for one run; dropped (on the same thread), it gives the thread
/// back the CPUs it had.
pub(crate) struct Pinned {
    restore: Option<Vec<usize>>,
}

/// Pins the calling thread, the engine's, to the CPU `report` keeps for it, where [`steer`]
/// steered any host; the scheduler would otherwise put it, now and then, where the hosts' input
/// runs. If the pin fails the hosts stay steered (their devices are set) and the engine's thread
/// may share a core with their input, which costs speed, not correctness: the report then names
/// no engine CPU.
pub(crate) fn pin_engine(report: &mut HostInputReport) -> Pinned {
    let Some(cpu) = report.engine_cpu else {
        return Pinned { restore: None };
    };
    match sys::allowed_cpus().and_then(|before| sys::set_allowed_cpus(&[cpu]).map(|()| before)) {
        Ok(before) => Pinned {
            restore: Some(before),
        },
        Err(e) => {
            eprintln!("snooplab: cannot pin the engine's thread to CPU {cpu}: {e}");
            report.engine_cpu = None;
            Pinned { restore: None }
        }
    }
}

impl Drop for Pinned {
    fn drop(&mut self) {
        if let Some(cpus) = self.restore.take() {
            if let Err(e) = sys::set_allowed_cpus(&cpus) {
                eprintln!("snooplab: cannot give the engine's thread its CPUs back: {e}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_mask_is_hex_words_of_32_cpus_the_highest_first() {
        assert_eq!(cpu_mask(&[1]), "2");
        assert_eq!(cpu_mask(&[0, 1, 2, 3]), "f");
        assert_eq!(cpu_mask(&[1, 3, 4]), "1a");
        assert_eq!(cpu_mask(&[32]), "1,00000000");
        assert_eq!(cpu_mask(&[0, 35]), "8,00000001");
        assert_eq!(cpu_mask(&[]), "0");
    }

    /// Parses a mask back as `bitmap_parse` does.
    fn parse(mask: &str) -> Vec<usize> {
        let words: Vec<u32> = mask
            .split(',')
            .map(|w| u32::from_str_radix(w, 16).unwrap())
            .collect();
        let mut cpus = Vec::new();
        for (i, w) in words.iter().rev().enumerate() {
            for b in 0..32 {
                if w & (1 << b) != 0 {
                    cpus.push(i * 32 + b);
                }
            }
        }
        cpus
    }

    proptest! {
        #[test]
        fn a_mask_names_exactly_its_cpus(cpus in proptest::collection::btree_set(0usize..1024, 0..40)) {
            let cpus: Vec<usize> = cpus.into_iter().collect();
            let mask = cpu_mask(&cpus);
            prop_assert_eq!(parse(&mask), cpus);
            // every word but the first is eight digits
            for w in mask.split(',').skip(1) {
                prop_assert_eq!(w.len(), 8);
            }
        }
    }

    #[test]
    fn the_summary_names_each_hosts_input_and_why_one_stayed_inline() {
        let r = HostInputReport {
            mode: "auto",
            engine_cpu: Some(1),
            input_cpus: vec![0, 2],
            hosts: vec![
                HostInputOf {
                    host: "fh".into(),
                    input: "steered",
                    why: None,
                },
                HostInputOf {
                    host: "mh".into(),
                    input: "inline",
                    why: Some("its cell waits for its answers (half duplex)".into()),
                },
            ],
        };
        assert_eq!(
            r.summary(),
            "fh on CPUs 0,2 (the engine's thread pinned to CPU 1); \
             mh inline: its cell waits for its answers (half duplex)"
        );
    }

    #[test]
    fn host_input_names_parse_back() {
        for n in HostInput::NAMES {
            assert_eq!(HostInput::parse(n).unwrap().name(), n);
        }
        assert!(HostInput::parse("steered").is_err());
    }
}
