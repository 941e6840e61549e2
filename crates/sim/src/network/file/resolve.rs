//! From a scenario file's tables to a network: [`Topology::resolve`] checks the tables and turns
//! names into indices (every error names the table and the key); [`Network::from_topology`] fills in
//! the scenario's defaults, which cannot fail.

use std::collections::BTreeSet;
use std::net::Ipv4Addr;

use snooplab_proto::duration::{Bare, Range};
use snooplab_proto::tcp::{HostPreset, HostProfile};
use snooplab_proto::time::MS;

use super::cell::CELL_KEYS;
use super::flow::FLOW_KEYS;
use super::link::LINK_KEYS;
use super::node::read_base_station_keys;
use super::params::{apply_keys, read_keys};
use super::values::FILE_TIME_RANGE;
use super::{CellTable, ChannelLevel, CsmaTable, FlowTable, LinkTable, NodeTable, Stack, Tables};
use crate::medium::AccessModel;
use crate::network::paper000::{DST_PORT, SRC_PORT};
use crate::network::{Cell, Flow, InputQueue, Link, Network, Node, NodeKind, Station};
use crate::protocol::{AgentKind, Protocol, NODE_AGENTS};
use crate::scenario::{value_text, Env, Scenario, MAX_TIME_RANGE};

/// A network described in a file, names resolved to indices and values checked; the scenario
/// fills in what it leaves open ([`Network::from_topology`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Topology {
    nodes: Vec<TopoNode>,
    links: Vec<TopoLink>,
    cells: Vec<TopoCell>,
    flows: Vec<TopoFlow>,
    handoffs: Vec<super::super::HandoffSpec>,
    crashes: Vec<super::super::Crash>,
}

#[derive(Clone, Debug, PartialEq)]
struct TopoNode {
    name: String,
    addr: u32,
    /// `None` for a host; for a base station its agent, `None` inside for the scenario's.
    base_station: Option<Option<AgentKind>>,
    input: InputQueue,
    /// A host's `stack`, if the file names one.
    stack: Option<Stack>,
}

#[derive(Clone, Debug, PartialEq)]
struct TopoLink {
    name: String,
    ends: [usize; 2],
    env: Option<Env>,
    /// The [`LINK_KEYS`] the table set, by row, with their values.
    set: Vec<(usize, u64)>,
}

#[derive(Clone, Debug, PartialEq)]
struct TopoCell {
    name: String,
    base_station: usize,
    /// Each station's node and its own channel settings.
    stations: Vec<(usize, ChannelLevel)>,
    channel: ChannelLevel,
    access: AccessModel,
    /// The [`CELL_KEYS`] the table set, by row, with their values.
    set: Vec<(usize, u64)>,
}

#[derive(Clone, Debug, PartialEq)]
struct TopoFlow {
    name: String,
    from: usize,
    to: usize,
    protocol: Option<Protocol>,
    host: Option<HostPreset>,
    host_details: Vec<(String, String)>,
    /// The [`FLOW_KEYS`] the table set, by row, with their values.
    set: Vec<(usize, u64)>,
    workload: crate::workload::FlowWorkload,
}

/// Names become file names (captures) and CSV values: letters, digits, `-`, `_`, `.`.
fn check_name(name: &str, what: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{what} name '{name}' must be letters, digits, '-', '_' or '.'"
        ))
    }
}

/// How long a crashed base station stays down (`down-s`): at least 10 ms. The papers' base
/// stations are BSD hosts whose clock ticks 100 times a second (4.4BSD `hz = 100`,
/// `sys/conf/param.c`), so nothing they do is timed finer than 10 ms,
/// a reboot least of all; a station up again sooner was never down for anyone timing it. At most
/// the longest run.
pub(crate) const CRASH_DOWN_RANGE: Range = Range::new(10 * MS, MAX_TIME_RANGE.max);

/// The index of node `name`; `what` names the table and key in the message.
fn node_index(t: &Tables, name: &str, what: &str) -> Result<usize, String> {
    t.nodes
        .iter()
        .position(|n| n.name == name)
        .ok_or_else(|| format!("{what}: unknown node '{name}'"))
}

/// The `i`-th `[[node]]` table, checked.
fn resolve_node(i: usize, n: &NodeTable) -> Result<TopoNode, String> {
    let what = format!("node '{}'", n.name);
    check_name(&n.name, "node")?;
    let base_station = match n.kind.as_deref().unwrap_or("host") {
        "host" => {
            if n.agent.is_some() {
                return Err(format!(
                    "{what}: agent is for base stations (kind = \"base-station\")"
                ));
            }
            None
        }
        "base-station" => Some(
            n.agent
                .as_deref()
                .map(|a| parse_agent(a).map_err(|e| format!("{what}: agent: {e}")))
                .transpose()?,
        ),
        "router" => {
            if n.agent.is_some() {
                return Err(format!("{what}: a router runs no agent"));
            }
            Some(Some(AgentKind::Router))
        }
        other => {
            return Err(format!(
                "{what}: unknown kind '{other}' (known: host, base-station, router)"
            ))
        }
    };
    let addr = match &n.address {
        Some(a) => u32::from(
            a.trim()
                .parse::<Ipv4Addr>()
                .map_err(|_| format!("{what}: address '{a}' is not an IPv4 address"))?,
        ),
        // 10.0.0.1, 10.0.0.2, ...
        None => u32::from(Ipv4Addr::new(10, 0, (i / 250) as u8, (i % 250 + 1) as u8)),
    };
    let input = read_base_station_keys(n, base_station, &what)?;
    let stack = n
        .stack
        .as_deref()
        .map(|t| Stack::parse(t).map_err(|e| format!("{what}: {e}")))
        .transpose()?;
    if stack.is_some() && base_station.is_some() {
        return Err(format!("{what}: stack is for hosts"));
    }
    Ok(TopoNode {
        name: n.name.clone(),
        addr,
        base_station,
        input,
        stack,
    })
}

/// The `i`-th `[[link]]` table, its ends resolved.
fn resolve_link(t: &Tables, i: usize, l: &LinkTable) -> Result<TopoLink, String> {
    let node = |name: &str, what: &str| node_index(t, name, what);
    let label = l.name.clone().unwrap_or_else(|| format!("#{}", i + 1));
    let what = format!("link '{label}'");
    let [a, b] = l.between.as_slice() else {
        return Err(format!("{what}: between must name two nodes"));
    };
    let ends = [
        node(a, &format!("{what}, between"))?,
        node(b, &format!("{what}, between"))?,
    ];
    let name = l.name.clone().unwrap_or_else(|| format!("{a}-{b}"));
    check_name(&name, "link")?;
    Ok(TopoLink {
        name,
        ends,
        env: l
            .env
            .as_deref()
            .map(Env::parse)
            .transpose()
            .map_err(|e| format!("{what}: {e}"))?,
        set: read_keys(&LINK_KEYS, l, &what)?,
    })
}

/// A `[[cell]]` table, its base station and stations resolved.
fn resolve_cell(t: &Tables, c: &CellTable) -> Result<TopoCell, String> {
    let node = |name: &str, what: &str| node_index(t, name, what);
    let name = c
        .name
        .clone()
        .unwrap_or_else(|| format!("{}-cell", c.base_station));
    let what = format!("cell '{name}'");
    check_name(&name, "cell")?;
    let base_station = node(&c.base_station, &format!("{what}, base-station"))?;
    let mut stations = Vec::new();
    for s in &c.stations {
        stations.push((
            node(s, &format!("{what}, stations"))?,
            ChannelLevel::default(),
        ));
    }
    for s in &c.station {
        let swhat = format!("{what}, station '{}'", s.node);
        stations.push((
            node(&s.node, &swhat)?,
            channel_keys!(s).resolve(&format!("{swhat}: "))?,
        ));
    }
    let access = match (c.access.as_deref().unwrap_or("turns"), &c.csma) {
        ("turns", None) => AccessModel::Turns,
        ("csma", csma) => {
            AccessModel::Csma(csma.as_ref().map(CsmaTable::params).unwrap_or_default())
        }
        ("full-duplex", None) => AccessModel::FullDuplex,
        ("turns" | "full-duplex", Some(_)) => {
            return Err(format!("{what}: csma settings need access = \"csma\""))
        }
        (other, _) => {
            return Err(format!(
                "{what}: unknown access '{other}' (known: turns, csma, full-duplex)"
            ))
        }
    };
    Ok(TopoCell {
        name,
        base_station,
        stations,
        channel: channel_keys!(c).resolve(&format!("{what}: "))?,
        access,
        set: read_keys(&CELL_KEYS, c, &what)?,
    })
}

/// The `i`-th `[[flow]]` table, its ends resolved and its settings checked.
fn resolve_flow(t: &Tables, i: usize, f: &FlowTable) -> Result<TopoFlow, String> {
    let node = |name: &str, what: &str| node_index(t, name, what);
    let name = f.name.clone().unwrap_or_else(|| format!("flow{i}"));
    check_name(&name, "flow")?;
    let what = format!("flow '{name}'");
    let mut host_details = Vec::new();
    let preset = f
        .host
        .as_deref()
        .map(HostPreset::parse)
        .transpose()
        .map_err(|e| format!("{what}: {e}"))?;
    for (k, v) in f.host_details.iter().flatten() {
        let text = value_text(v).map_err(|e| format!("{what}: host-details.{k}: {e}"))?;
        // checked against a profile now, applied to the flow's later
        let mut p = preset.map_or_else(HostProfile::default, HostPreset::profile);
        p.set(k, &text)
            .map_err(|e| format!("{what}: host-details: {e}"))?;
        host_details.push((k.clone(), text));
    }
    Ok(TopoFlow {
        from: node(&f.from, &format!("{what}, from"))?,
        to: node(&f.to, &format!("{what}, to"))?,
        protocol: f
            .protocol
            .as_deref()
            .map(Protocol::parse)
            .transpose()
            .map_err(|e| format!("{what}: {e}"))?,
        host: preset,
        host_details,
        set: read_keys(&FLOW_KEYS, f, &what)?,
        workload: super::workload::read(f, &what)?,
        name,
    })
}

/// Links and cells name capture files, flows name result rows: each name once.
fn check_unique_names(topo: &Topology) -> Result<(), String> {
    let names: Vec<&str> = topo
        .links
        .iter()
        .map(|l| l.name.as_str())
        .chain(topo.cells.iter().map(|c| c.name.as_str()))
        .collect();
    // sets of the names seen, so that many links, cells or flows are checked in linear time
    let mut seen = BTreeSet::new();
    for n in &names {
        if !seen.insert(*n) {
            return Err(format!(
                "two links or cells are named '{n}' (each names a capture file)"
            ));
        }
    }
    let mut flows = BTreeSet::new();
    for f in &topo.flows {
        if !flows.insert(f.name.as_str()) {
            return Err(format!("flow '{}' is defined twice", f.name));
        }
    }
    Ok(())
}

impl Topology {
    /// Checks the tables and resolves their names; the message names the table and the key.
    pub fn resolve(t: &Tables) -> Result<Topology, String> {
        if t.nodes.is_empty() {
            return Err("a network needs [[node]] tables".into());
        }
        if t.flows.is_empty() {
            return Err("a network needs at least one [[flow]] table".into());
        }
        if t.nodes.len() > 250 * 256 {
            return Err("a network holds at most 64000 nodes".into());
        }
        // a network over the memory budget is refused before its names are resolved
        crate::network::budget::RunSize::at_least(t).check(crate::network::MEMORY_BUDGET)?;
        let node = |name: &str, what: &str| node_index(t, name, what);
        let topo = Topology {
            nodes: t
                .nodes
                .iter()
                .enumerate()
                .map(|(i, n)| resolve_node(i, n))
                .collect::<Result<_, _>>()?,
            links: t
                .links
                .iter()
                .enumerate()
                .map(|(i, l)| resolve_link(t, i, l))
                .collect::<Result<_, _>>()?,
            cells: t
                .cells
                .iter()
                .map(|c| resolve_cell(t, c))
                .collect::<Result<_, _>>()?,
            flows: t
                .flows
                .iter()
                .enumerate()
                .map(|(i, f)| resolve_flow(t, i, f))
                .collect::<Result<_, _>>()?,
            handoffs: t
                .handoffs
                .iter()
                .map(|h| h.resolve(&node))
                .collect::<Result<Vec<_>, _>>()?,
            crashes: t
                .crashes
                .iter()
                .map(|c| {
                    let what = format!("crash of '{}'", c.node);
                    Ok(super::super::Crash {
                        node: node(&c.node, &what)?,
                        at: c.at_s.time(
                            Bare::Seconds,
                            FILE_TIME_RANGE,
                            &format!("{what}: at-s"),
                        )?,
                        down_for: c.down_s.time(
                            Bare::Seconds,
                            CRASH_DOWN_RANGE,
                            &format!("{what}: down-s"),
                        )?,
                    })
                })
                .collect::<Result<Vec<_>, String>>()?,
        };
        check_unique_names(&topo)?;
        Ok(topo)
    }
}

/// A base station's agent by the protocol that runs it, or by one of the names of
/// [`NODE_AGENTS`] (`router`, `snoop-eln`, ...).
fn parse_agent(name: &str) -> Result<AgentKind, String> {
    let key = name.trim().to_ascii_lowercase();
    if let Some(&(_, kind)) = NODE_AGENTS.iter().find(|(n, _)| *n == key) {
        return Ok(kind);
    }
    Protocol::parse(name).map(Protocol::agent).map_err(|e| {
        let names: Vec<&str> = NODE_AGENTS.iter().map(|(n, _)| *n).collect();
        format!("{e}; or {}", names.join(", "))
    })
}

impl Topology {
    /// The `stack` each node's table names (`None` for base stations, routers and hosts that
    /// name none), by node index.
    pub fn stacks(&self) -> Vec<Option<Stack>> {
        self.nodes.iter().map(|n| n.stack).collect()
    }
}

impl Network {
    /// The network a file described, with `sc`'s settings wherever it leaves one open.
    pub(crate) fn from_topology(t: &Topology, sc: &Scenario) -> Network {
        let nodes = t
            .nodes
            .iter()
            .map(|n| Node {
                name: n.name.clone(),
                kind: match n.base_station {
                    None => NodeKind::Host,
                    Some(agent) => NodeKind::BaseStation {
                        agent: agent.unwrap_or_else(|| sc.protocol.agent()),
                        input: n.input,
                    },
                },
                addr: n.addr,
            })
            .collect();
        let links = t
            .links
            .iter()
            .map(|l| {
                let mut params = l.env.map_or_else(|| sc.wired.clone(), Env::wired);
                apply_keys(&LINK_KEYS, &l.set, &mut params);
                Link {
                    name: l.name.clone(),
                    ends: l.ends,
                    params,
                }
            })
            .collect();
        let cells = t
            .cells
            .iter()
            .map(|c| {
                let mut params = sc.wavelan.clone();
                apply_keys(&CELL_KEYS, &c.set, &mut params);
                Cell {
                    name: c.name.clone(),
                    base_station: c.base_station,
                    stations: c
                        .stations
                        .iter()
                        .map(|(node, own)| {
                            let levels = [own, &c.channel];
                            Station {
                                node: *node,
                                down: ChannelLevel::pick(&levels, true, sc.channel(true)),
                                up: ChannelLevel::pick(&levels, false, sc.channel(false)),
                            }
                        })
                        .collect(),
                    params,
                    access: c.access.clone(),
                }
            })
            .collect();
        let flows = t
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let (host_preset, mut host) = match f.host {
                    Some(p) => (p, p.profile()),
                    None => (sc.host_preset, sc.host),
                };
                for (k, v) in &f.host_details {
                    // checked when the file was read
                    let _ = host.set(k, v);
                }
                let mut flow = Flow {
                    name: f.name.clone(),
                    from: f.from,
                    to: f.to,
                    protocol: f.protocol.unwrap_or(sc.protocol),
                    host_preset,
                    host,
                    buffer: sc.buffer,
                    mss: sc.mss,
                    transfer: sc.transfer,
                    start: 0,
                    src_port: SRC_PORT.wrapping_add(i as u16),
                    dst_port: DST_PORT.wrapping_add(i as u16),
                    workload: f.workload.clone(),
                };
                apply_keys(&FLOW_KEYS, &f.set, &mut flow);
                flow
            })
            .collect();
        Network {
            nodes,
            links,
            cells,
            flows,
            handoffs: t.handoffs.clone(),
            crashes: t.crashes.clone(),
            seed: sc.seed,
            max_time: sc.max_time,
        }
    }
}
