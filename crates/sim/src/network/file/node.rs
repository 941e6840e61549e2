//! The `[[node]]` table, and the keys only base stations and routers take, each declared once
//! ([`BASE_STATION_KEYS`]): its name, which nodes take it, how its value is checked into the
//! node's [`InputQueue`] and how it is written back. `resolve.rs` (reading a file) and `write.rs`
//! (`--print-scenario`) both walk the table, so a new base-station key is the model's field (in
//! [`InputQueue`]), its serde field and row here, and the code that uses it (docs/architecture.md,
//! "Adding a key").

use serde::Deserialize;
use snooplab_proto::duration::{Bare, Range};
use snooplab_proto::time::{SEC, US};

use super::values::{float, size};
use crate::file_value::{SizeValue, TimeValue};
use crate::network::InputQueue;
use crate::protocol::AgentKind;

/// A `[[node]]` table.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct NodeTable {
    pub name: String,
    /// `host` (the default), `base-station` or `router` (a base station without a cell that runs
    /// plain forwarding).
    pub kind: Option<String>,
    /// IPv4 address, dotted quad [default: 10.0.x.y by position].
    pub address: Option<String>,
    /// Base stations: the agent the named protocol runs at the base station (`snooplab
    /// protocols`), or `router` [default: the scenario's protocol's].
    pub agent: Option<String>,
    /// Base stations and routers: packets the IP input queue holds [default: 50, BSD's
    /// `IFQ_MAXLEN`].
    pub input_queue: Option<usize>,
    /// Base stations and routers: forwarding time per packet, microseconds; packets queue behind
    /// it in the input queue [default: 0, forwarded at once].
    pub forwarding_us: Option<TimeValue>,
    /// bs-eln and bs-nack base stations: a gap in a mobile host's data is a possible congestion
    /// loss, never marked, while the input queue or the mobile host's output queue is above this
    /// fraction of its maximum [default: 0.75, paper 004].
    pub queue_threshold: Option<f64>,
    /// Split base stations: the most bytes all of its relays (one per connection) may hold
    /// together; a connection beyond it is forwarded end to end [default: 64M, about 245 of
    /// paper 000's relays: `snooplab_proto::agent::split::DEFAULT_RELAY_MEMORY`].
    pub relay_memory: Option<SizeValue>,
    /// Hosts: `model` (the engine's TCP) or `kernel` (a real host: in `snooplab live` a network
    /// namespace with a TUN device; `snooplab run` models every host) [default: `model` in
    /// `snooplab run`, `kernel` in `snooplab live`].
    pub stack: Option<String>,
}

/// What runs a host's TCP ([`NodeTable::stack`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stack {
    /// The engine's TCP, any host profile.
    Model,
    /// A real host outside the engine (the live mode's network namespace).
    Kernel,
}

impl Stack {
    pub fn parse(text: &str) -> Result<Stack, String> {
        match text.trim() {
            "model" => Ok(Stack::Model),
            "kernel" => Ok(Stack::Kernel),
            other => Err(format!("unknown stack '{other}' (known: model, kernel)")),
        }
    }
}

/// Which nodes take a base-station key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Takes {
    /// Base stations and routers: keys of the IP input queue and forwarding path every one has.
    Forwarders,
    /// Split base stations only.
    Split,
}

impl Takes {
    /// Whether a node takes the key: `base_station` is `None` for a host, `Some(None)` for a base
    /// station running the scenario's protocol's agent (not known while the file is read, so
    /// taken), `Some(Some(agent))` for one that names its agent.
    pub(super) fn admits(self, base_station: Option<Option<AgentKind>>) -> bool {
        match self {
            Takes::Forwarders => base_station.is_some(),
            Takes::Split => matches!(
                base_station,
                Some(Some(AgentKind::Split { .. })) | Some(None)
            ),
        }
    }

    /// The message for a node that sets a key `key` it does not take. The input-queue keys are
    /// named together, as one mistake (a host given a base station's settings).
    pub(super) fn refusal(self, key: &str) -> String {
        match self {
            Takes::Forwarders => {
                let names: Vec<&str> = BASE_STATION_KEYS
                    .iter()
                    .filter(|k| k.takes == Takes::Forwarders)
                    .map(|k| k.name)
                    .collect();
                let list = match names.split_last() {
                    Some((last, rest)) if !rest.is_empty() => {
                        format!("{} and {last}", rest.join(", "))
                    }
                    _ => key.to_string(),
                };
                format!("{list} are for base stations and routers")
            }
            Takes::Split => format!("{key} is for split base stations"),
        }
    }
}

/// One key of a base station's `[[node]]` table.
pub(super) struct BaseStationKey {
    /// As a file spells it.
    pub name: &'static str,
    pub takes: Takes,
    /// Whether the table sets it.
    pub is_set: fn(&NodeTable) -> bool,
    /// Checks the table's value (set) into the node's input queue; `what` names the node. The
    /// message names the node and the key.
    pub read: fn(&NodeTable, &mut InputQueue, &str) -> Result<(), String>,
    /// Its value as a file writes it.
    pub write: fn(&InputQueue) -> String,
}

/// A base station's forwarding time per packet: 0 to 1e9 us (1000 s), as before the grammar.
const FORWARDING_RANGE: Range = Range::new(0, 1_000 * SEC);

/// The largest `relay-memory` a split base station takes: a bound that is allocated only as
/// connections come, so 1 TiB refuses a slip of the keyboard rather than a machine's size.
const RELAY_MEMORY_MAX: u64 = 1 << 40;

/// Every base-station key, in the order a file is checked and written.
pub(super) const BASE_STATION_KEYS: [BaseStationKey; 4] = [
    BaseStationKey {
        name: "input-queue",
        takes: Takes::Forwarders,
        is_set: |n| n.input_queue.is_some(),
        read: |n, input, what| {
            if let Some(q) = n.input_queue {
                if !(1..=100_000).contains(&q) {
                    return Err(format!(
                        "{what}: input-queue {q} must be 1 to 100000 packets"
                    ));
                }
                input.max = q;
            }
            Ok(())
        },
        write: |input| input.max.to_string(),
    },
    BaseStationKey {
        name: "forwarding-us",
        takes: Takes::Forwarders,
        is_set: |n| n.forwarding_us.is_some(),
        read: |n, input, what| {
            if let Some(us) = &n.forwarding_us {
                input.service = us.time(
                    Bare::Micros,
                    FORWARDING_RANGE,
                    &format!("{what}: forwarding-us"),
                )?;
            }
            Ok(())
        },
        write: |input| float(input.service as f64 / US as f64),
    },
    BaseStationKey {
        name: "queue-threshold",
        takes: Takes::Forwarders,
        is_set: |n| n.queue_threshold.is_some(),
        read: |n, input, what| {
            if let Some(f) = n.queue_threshold {
                if !(0.0..=1.0).contains(&f) {
                    return Err(format!(
                        "{what}: queue-threshold {f} must be a fraction from 0 to 1"
                    ));
                }
                input.congestion_fraction = f;
            }
            Ok(())
        },
        write: |input| float(input.congestion_fraction),
    },
    BaseStationKey {
        name: "relay-memory",
        takes: Takes::Split,
        is_set: |n| n.relay_memory.is_some(),
        read: |n, input, what| {
            if let Some(m) = &n.relay_memory {
                let bytes = m.bytes(&format!("{what}: relay-memory"))?;
                if bytes > RELAY_MEMORY_MAX {
                    return Err(format!(
                        "{what}: relay-memory {bytes} is more than 1T (the relays' bound, not an \
                         allocation)"
                    ));
                }
                input.relay_memory = bytes;
            }
            Ok(())
        },
        write: |input| size(input.relay_memory),
    },
];

/// A node's base-station keys checked into its input queue (`base_station` as in
/// [`Takes::admits`]), in [`BASE_STATION_KEYS`]' order, each refused or read before the next;
/// `what` names the node.
pub(super) fn read_base_station_keys(
    n: &NodeTable,
    base_station: Option<Option<AgentKind>>,
    what: &str,
) -> Result<InputQueue, String> {
    let mut input = InputQueue::default();
    for k in &BASE_STATION_KEYS {
        if !(k.is_set)(n) {
            continue;
        }
        if !k.takes.admits(base_station) {
            return Err(format!("{what}: {}", k.takes.refusal(k.name)));
        }
        (k.read)(n, &mut input, what)?;
    }
    Ok(input)
}

/// The `key = value` lines of a base station running `agent` with `input`, every key it takes.
pub(super) fn write_base_station_keys(agent: AgentKind, input: &InputQueue) -> Vec<String> {
    BASE_STATION_KEYS
        .iter()
        .filter(|k| k.takes.admits(Some(Some(agent))))
        .map(|k| format!("{} = {}", k.name, (k.write)(input)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Protocol;

    fn node(text: &str) -> NodeTable {
        toml::from_str(&format!("name = \"bs\"\n{text}")).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn a_host_given_an_input_queue_key_is_refused_with_all_of_them_named() {
        let e =
            read_base_station_keys(&node("queue-threshold = 0.5"), None, "node 'bs'").unwrap_err();
        assert_eq!(
            e,
            "node 'bs': input-queue, forwarding-us and queue-threshold are for base stations \
             and routers"
        );
        let e = read_base_station_keys(
            &node("relay-memory = \"1M\""),
            Some(Some(AgentKind::Router)),
            "node 'bs'",
        )
        .unwrap_err();
        assert_eq!(e, "node 'bs': relay-memory is for split base stations");
    }

    #[test]
    fn every_key_written_reads_back_to_the_same_queue() {
        let split = Protocol::parse("split")
            .unwrap_or_else(|e| panic!("{e}"))
            .agent();
        let input = InputQueue {
            max: 7,
            service: 1_500 * US,
            congestion_fraction: 0.5,
            relay_memory: 3 << 20,
        };
        let lines = write_base_station_keys(split, &input);
        assert_eq!(lines.len(), BASE_STATION_KEYS.len());
        let back = read_base_station_keys(&node(&lines.join("\n")), Some(Some(split)), "bs")
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back, input);
        // a router takes the input queue's keys, not a split's
        assert_eq!(write_base_station_keys(AgentKind::Router, &input).len(), 3);
    }
}
