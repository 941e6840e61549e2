//! The checks a network passes before it runs: each names what is wrong and where, so a
//! scenario file's mistake is one `error:` line.

use std::collections::BTreeSet;

use super::{Network, NodeKind, Routes};

impl Network {
    /// Checks the network; the message names the node, link, cell or flow and what is wrong.
    pub fn validate(&self) -> Result<(), String> {
        if self.nodes.is_empty() {
            return Err("the network has no nodes".into());
        }
        // first: the checks below and the routes take time and memory in the network's size
        self.check_memory(super::MEMORY_BUDGET)?;
        self.validate_nodes()?;
        self.validate_links()?;
        self.validate_cells()?;
        self.validate_attachments()?;
        self.validate_handoffs()?;
        self.validate_crashes()?;
        if self.flows.is_empty() {
            return Err("the network has no flows".into());
        }
        self.validate_flows()?;
        crate::workload::flow_workload::check_network(self)?;
        self.validate_split_handoffs()?;
        if self.max_time == 0 {
            return Err("max-time must be positive".into());
        }
        Ok(())
    }

    /// Names and addresses are unique. (Each check below that looks for an earlier equal keeps
    /// what it has seen in a set, so a network of many nodes, stations or flows is checked in
    /// time that grows with them, not with their square; the first offender in order is named,
    /// as a pairwise scan would.)
    fn validate_nodes(&self) -> Result<(), String> {
        let mut names = BTreeSet::new();
        let mut addrs = BTreeSet::new();
        for n in &self.nodes {
            if !names.insert(n.name.as_str()) {
                return Err(format!("node '{}' is defined twice", n.name));
            }
            if !addrs.insert(n.addr) {
                return Err(format!("node '{}' has the address of another node", n.name));
            }
        }
        Ok(())
    }

    /// A link joins two nodes, with a rate and a queue.
    fn validate_links(&self) -> Result<(), String> {
        for l in &self.links {
            if l.ends[0] == l.ends[1] {
                return Err(format!("link '{}' connects a node to itself", l.name));
            }
            if l.params.rate_bps == 0 {
                return Err(format!("link '{}' has a rate of 0", l.name));
            }
            if l.params.queue_packets == 0 {
                return Err(format!("link '{}' has a queue of 0 packets", l.name));
            }
        }
        Ok(())
    }

    /// A cell belongs to one base station, has stations, and a valid access model and channels.
    fn validate_cells(&self) -> Result<(), String> {
        for (c, cell) in self.cells.iter().enumerate() {
            if !matches!(
                self.nodes[cell.base_station].kind,
                NodeKind::BaseStation { .. }
            ) {
                return Err(format!(
                    "cell '{}': its base station '{}' is a host",
                    cell.name, self.nodes[cell.base_station].name
                ));
            }
            if self.cells[..c]
                .iter()
                .any(|o| o.base_station == cell.base_station)
            {
                return Err(format!(
                    "base station '{}' has more than one cell",
                    self.nodes[cell.base_station].name
                ));
            }
            if cell.stations.is_empty() {
                return Err(format!("cell '{}' has no mobile hosts", cell.name));
            }
            cell.access
                .validate(&cell.params)
                .map_err(|e| format!("cell '{}': {e}", cell.name))?;
            if cell.params.rate_bps == 0 || cell.params.queue_packets == 0 {
                return Err(format!(
                    "cell '{}': rate and queue must be positive",
                    cell.name
                ));
            }
            let mut listed = BTreeSet::new();
            for s in &cell.stations {
                // one node, one station: listed twice it would have two queues and two channels
                // in one cell, and every frame for it two receivers
                if !listed.insert(s.node) {
                    return Err(format!(
                        "cell '{}': station '{}' is listed twice",
                        cell.name, self.nodes[s.node].name
                    ));
                }
                // a station is a mobile host, or the far base station of a wireless transit
                // link (paper 004 section 3.5), which then has no cell of its own
                let transit = self.nodes[s.node].kind != NodeKind::Host;
                // a transit link is one hop: its far end hangs off one cell (a host in two cells
                // is checked with its attachments, where a handoff may allow it)
                if let Some(other) = self.cells[..c]
                    .iter()
                    .find(|o| transit && o.stations.iter().any(|t| t.node == s.node))
                {
                    return Err(format!(
                        "base station '{}' is a station of two cells, '{}' and '{}'",
                        self.nodes[s.node].name, other.name, cell.name
                    ));
                }
                if transit && self.cell_of(s.node).is_some() {
                    return Err(format!(
                        "cell '{}': station '{}' is a base station with a cell of its own; a \
                         station is a host, or a base station at the far end of a transit link",
                        cell.name, self.nodes[s.node].name
                    ));
                }
                s.down.validate().and(s.up.validate()).map_err(|e| {
                    format!(
                        "cell '{}', station '{}': {e}",
                        cell.name, self.nodes[s.node].name
                    )
                })?;
            }
        }
        Ok(())
    }

    /// A host has one attachment (a wired link or a cell), or roams between cells.
    fn validate_attachments(&self) -> Result<(), String> {
        // each node's wired links, cells and handoffs, counted in one pass over each
        let n_nodes = self.nodes.len();
        let mut wired_of = vec![0usize; n_nodes];
        for l in &self.links {
            wired_of[l.ends[0]] += 1;
            if l.ends[1] != l.ends[0] {
                wired_of[l.ends[1]] += 1;
            }
        }
        let mut cells_of = vec![0usize; n_nodes];
        for c in &self.cells {
            let mut counted = BTreeSet::new();
            for s in &c.stations {
                if counted.insert(s.node) {
                    cells_of[s.node] += 1;
                }
            }
        }
        let mut roams_of = vec![false; n_nodes];
        for h in &self.handoffs {
            if let Some(r) = roams_of.get_mut(h.mobile) {
                *r = true;
            }
        }
        for (i, n) in self.nodes.iter().enumerate() {
            if n.kind != NodeKind::Host {
                continue;
            }
            let (wired, cells, roams) = (wired_of[i], cells_of[i], roams_of[i]);
            if roams && (wired > 0 || cells == 0) {
                return Err(format!(
                    "host '{}' hands off between base stations: it must be a station of their \
                     cells and have no wired link",
                    n.name
                ));
            }
            if !roams && wired + cells != 1 {
                return Err(format!(
                    "host '{}' must have exactly one attachment (a wired link or a cell), it has {}",
                    n.name,
                    wired + cells
                ));
            }
        }
        Ok(())
    }

    /// Only base stations and routers crash.
    fn validate_crashes(&self) -> Result<(), String> {
        for c in &self.crashes {
            if !matches!(self.nodes[c.node].kind, NodeKind::BaseStation { .. }) {
                return Err(format!(
                    "crash: '{}' is a host; only base stations and routers crash",
                    self.nodes[c.node].name
                ));
            }
            // as a file's down-s is checked when it is read, for networks built in code
            if !super::file::CRASH_DOWN_RANGE.contains(c.down_for) {
                return Err(snooplab_proto::duration::out_of_range(
                    &format!("crash of '{}': down-s", self.nodes[c.node].name),
                    &snooplab_proto::duration::show(c.down_for),
                    super::file::CRASH_DOWN_RANGE,
                ));
            }
        }
        Ok(())
    }

    /// A flow runs between two hosts with a path, its own ports and valid TCP settings (a split base
    /// station relays every connection that crosses it, either way: `proto/src/agent/split.rs`).
    fn validate_flows(&self) -> Result<(), String> {
        let routes = Routes::new(self);
        // every earlier flow's two ends: a flow sharing one with any of them shares a port
        let mut ends_taken = BTreeSet::new();
        for (f, fl) in self.flows.iter().enumerate() {
            for (end, id) in [("from", fl.from), ("to", fl.to)] {
                if self.nodes[id].kind != NodeKind::Host {
                    return Err(format!(
                        "flow '{}': '{end}' node '{}' is not a host",
                        fl.name, self.nodes[id].name
                    ));
                }
            }
            if fl.from == fl.to {
                return Err(format!("flow '{}' goes from a host to itself", fl.name));
            }
            if routes.hop(fl.from, fl.to).is_none() {
                return Err(format!(
                    "flow '{}': no path from '{}' to '{}'",
                    fl.name, self.nodes[fl.from].name, self.nodes[fl.to].name
                ));
            }
            crate::scenario::check_tcp_settings(
                fl.mss,
                fl.buffer,
                fl.transfer,
                &fl.host_preset.buffer_limit(),
            )
            .map_err(|e| format!("flow '{}': {e}", fl.name))?;
            let (a, b) = self.endpoints(f);
            if ends_taken.contains(&a) || ends_taken.contains(&b) {
                return Err(format!(
                    "flow '{}' shares a TCP port with an earlier flow",
                    fl.name
                ));
            }
            ends_taken.insert(a);
            ends_taken.insert(b);
        }
        Ok(())
    }
}
