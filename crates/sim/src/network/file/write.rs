//! The other way: a scenario's network written as a scenario file's tables (`snooplab run
//! --print-scenario`, docs/networks.md). Every node, link, cell, station and flow is written with
//! every value it has, none left to a default, so that the file read back
//! ([`Scenario::from_toml`]) builds the same network ([`Scenario::network`]) and runs the same
//! run: the command line's flags and paper 000's preset are builders of one network language.
//!
//! Times are written in the units the tables take them in (milliseconds, microseconds, seconds as
//! floats, or whole microseconds); each float is written so that it reads back to the same
//! nanosecond. A value a table cannot carry exactly (a cell's overhead or a CSMA time that is no
//! whole number of microseconds) and handoffs, which this writer does not write yet, are refused
//! with a message rather than written differently.

use std::fmt::Write as _;
use std::net::Ipv4Addr;

use snooplab_proto::duration::format_duration;
use snooplab_proto::tcp::{HostPreset, HostProfile};
use snooplab_proto::time::Time;

use super::cell::CELL_KEYS;
use super::flow::FLOW_KEYS;
use super::link::LINK_KEYS;
use super::node::write_base_station_keys;
use super::params::write_keys;
use super::values::{float, quote, secs, size, whole_us};
use crate::channel::ChannelSpec;
use crate::medium::AccessModel;
use crate::network::file::Stack;
use crate::network::NodeKind;
use crate::scenario::Scenario;

/// The scenario file of `sc`'s network: its top-level settings (the defaults a file's tables
/// fall back on, written so that the scenario reads back the same) and the network's tables,
/// every value spelled out.
pub fn write_scenario(sc: &Scenario) -> Result<String, String> {
    let net = sc.network();
    if !net.handoffs.is_empty() {
        return Err(
            "the scenario has handoffs ([[handoff]] tables), which --print-scenario does not \
             write yet"
                .into(),
        );
    }
    let stacks = sc.topology.as_ref().map(|t| t.stacks()).unwrap_or_default();
    let mut out = String::new();
    let mut line = |s: String| {
        out.push_str(&s);
        out.push('\n');
    };
    line("# A network in snooplab's table form (docs/networks.md), every value spelled out: what the".into());
    line("# command line built. Run it again with: snooplab run --scenario FILE".into());
    line(format!("protocol = {}", quote(sc.protocol.name())));
    line(format!("env = {}", quote(sc.env.name())));
    line(format!("host = {}", quote(sc.host_preset.name())));
    if let Some(details) = host_details(sc.host_preset, &sc.host) {
        line(format!("host-details = {details}"));
    }
    line(format!("buffer = {}", size(u64::from(sc.buffer))));
    line(format!("mss = {}", sc.mss));
    line(format!("transfer = {}", size(sc.transfer)));
    line(format!("seed = {}", sc.seed));
    line(format!("max-time-s = {}", float(secs(net.max_time))));
    for (i, n) in net.nodes.iter().enumerate() {
        line(String::new());
        line("[[node]]".into());
        line(format!("name = {}", quote(&n.name)));
        line(format!(
            "address = {}",
            quote(&Ipv4Addr::from(n.addr).to_string())
        ));
        match &n.kind {
            NodeKind::Host => {
                if let Some(stack) = stacks.get(i).copied().flatten() {
                    let name = match stack {
                        Stack::Model => "model",
                        Stack::Kernel => "kernel",
                    };
                    line(format!("stack = {}", quote(name)));
                }
            }
            NodeKind::BaseStation { agent: kind, input } => {
                let agent = kind
                    .file_name()
                    .ok_or_else(|| format!("node '{}': its agent has no name", n.name))?;
                line("kind = \"base-station\"".into());
                line(format!("agent = {}", quote(agent)));
                for key in write_base_station_keys(*kind, input) {
                    line(key);
                }
            }
        }
    }
    for l in &net.links {
        line(String::new());
        line("[[link]]".into());
        line(format!("name = {}", quote(&l.name)));
        line(format!(
            "between = [{}, {}]",
            quote(&net.nodes[l.ends[0]].name),
            quote(&net.nodes[l.ends[1]].name)
        ));
        for key in write_keys(&LINK_KEYS, &l.params, &format!("link '{}'", l.name))? {
            line(key);
        }
    }
    for c in &net.cells {
        let what = format!("cell '{}'", c.name);
        line(String::new());
        line("[[cell]]".into());
        line(format!("name = {}", quote(&c.name)));
        line(format!(
            "base-station = {}",
            quote(&net.nodes[c.base_station].name)
        ));
        match &c.access {
            AccessModel::Turns => line("access = \"turns\"".into()),
            AccessModel::FullDuplex => line("access = \"full-duplex\"".into()),
            AccessModel::Csma(m) => {
                let us = |t: Time, key: &str| whole_us(t, &format!("{what}: csma.{key}"));
                line("access = \"csma\"".into());
                line(format!(
                    "csma = {{ ifs-us = {}, slot-us = {}, cw-min = {}, cw-max = {}, \
                     max-attempts = {}, post-tx-window = {}, load-ns-per-byte = {}, \
                     framing-us = {}, sense-delay-us = {} }}",
                    us(m.ifs, "ifs-us")?,
                    us(m.slot, "slot-us")?,
                    m.cw_min,
                    m.cw_max,
                    m.max_attempts,
                    m.post_tx_window,
                    m.load_ns_per_byte,
                    us(m.framing, "framing-us")?,
                    us(m.sense_delay, "sense-delay-us")?
                ));
            }
        }
        for key in write_keys(&CELL_KEYS, &c.params, &what)? {
            line(key);
        }
        for s in &c.stations {
            line(String::new());
            line("[[cell.station]]".into());
            line(format!("node = {}", quote(&net.nodes[s.node].name)));
            line(format!("down = {}", channel(&s.down)?));
            line(format!("up = {}", channel(&s.up)?));
        }
    }
    for f in &net.flows {
        line(String::new());
        line("[[flow]]".into());
        line(format!("name = {}", quote(&f.name)));
        line(format!("from = {}", quote(&net.nodes[f.from].name)));
        line(format!("to = {}", quote(&net.nodes[f.to].name)));
        line(format!("protocol = {}", quote(f.protocol.name())));
        line(format!("host = {}", quote(f.host_preset.name())));
        if let Some(details) = host_details(f.host_preset, &f.host) {
            line(format!("host-details = {details}"));
        }
        for key in write_keys(&FLOW_KEYS, f, &format!("flow '{}'", f.name))? {
            line(key);
        }
        for key in super::workload::write(&f.workload) {
            line(key);
        }
    }
    for c in &net.crashes {
        line(String::new());
        line("[[crash]]".into());
        line(format!("node = {}", quote(&net.nodes[c.node].name)));
        line(format!("at-s = {}", float(secs(c.at))));
        line(format!("down-s = {}", float(secs(c.down_for))));
    }
    Ok(out)
}

/// A channel model as the inline table that names it (docs/channels.md).
fn channel(spec: &ChannelSpec) -> Result<String, String> {
    Ok(match spec {
        ChannelSpec::None => "{ model = \"none\" }".into(),
        ChannelSpec::Exponential { mean_bytes, burst } => format!(
            "{{ model = \"exponential\", every = {}, burst = {burst} }}",
            size(*mean_bytes)
        ),
        ChannelSpec::GilbertElliott(p) => format!(
            "{{ model = \"gilbert-elliott\", good-every = {}, bad-every = {}, good-time = {}, \
             bad-time = {} }}",
            size(p.good_every),
            size(p.bad_every),
            quote(&format_duration(p.good_time)),
            quote(&format_duration(p.bad_time))
        ),
        ChannelSpec::Trace(t) => {
            // absolute, so that the file reads it from wherever the file is kept (a relative
            // name in a file is relative to the file's directory)
            let path = std::path::absolute(&t.source)
                .map_err(|e| format!("channel trace {}: {e}", t.source))?;
            format!(
                "{{ model = \"trace\", file = {} }}",
                quote(&path.to_string_lossy())
            )
        }
    })
}

/// The host details in which `host` differs from its preset, as an inline table; `None` where
/// it is the preset.
fn host_details(preset: HostPreset, host: &HostProfile) -> Option<String> {
    let keys = host.differences(&preset.profile());
    if keys.is_empty() {
        return None;
    }
    let pairs: Vec<String> = keys
        .iter()
        .filter_map(|k| host.get(k).map(|v| format!("{k} = {}", quote(&v))))
        .collect();
    let mut s = String::from("{ ");
    let _ = write!(s, "{}", pairs.join(", "));
    s.push_str(" }");
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{default_scenario, Direction};
    use crate::Env;

    /// The file read back builds the network the scenario built.
    fn round_trip(sc: &Scenario) -> Scenario {
        let text = write_scenario(sc).unwrap_or_else(|e| panic!("{e}"));
        let back = Scenario::from_toml(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(back.network(), sc.network(), "{text}");
        back
    }

    #[test]
    fn paper000s_testbed_reads_back_as_the_same_network() {
        round_trip(&default_scenario());
        let mut sc = default_scenario();
        sc.set_env(Env::Wan);
        sc.protocol = crate::Protocol::LlTcpAware;
        sc.buffer = 8 * 1024 + 7;
        sc.transfer = 1_000_001;
        sc.direction = Direction::Up;
        sc.error_every_down = Some(16 * 1024);
        sc.burst = 3;
        sc.max_time = 12_345_678_901;
        sc.set_host(HostPreset::Freebsd22);
        sc.host
            .set("read-delay", "1.5ms")
            .unwrap_or_else(|e| panic!("{e}"));
        let back = round_trip(&sc);
        assert_eq!(back.host_label(), sc.host_label());
    }

    #[test]
    fn a_files_network_reads_back_as_the_same_network() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../examples/paper001-3-hosts.toml"
        ))
        .unwrap_or_else(|e| panic!("{e}"));
        round_trip(&Scenario::from_toml(&text).unwrap_or_else(|e| panic!("{e}")));
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../examples/mixed-eln-sender.toml"
        ))
        .unwrap_or_else(|e| panic!("{e}"));
        let sc = Scenario::from_toml(&text).unwrap_or_else(|e| panic!("{e}"));
        let back = round_trip(&sc);
        let stacks = |s: &Scenario| s.topology.as_ref().map(|t| t.stacks());
        assert_eq!(stacks(&back), stacks(&sc));
    }

    #[test]
    fn handoffs_are_refused_not_dropped() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../examples/paper002-handoff.toml"
        ))
        .unwrap_or_else(|e| panic!("{e}"));
        let sc = Scenario::from_toml(&text).unwrap_or_else(|e| panic!("{e}"));
        let e = write_scenario(&sc).unwrap_err();
        assert!(e.contains("handoffs"), "{e}");
    }
}
