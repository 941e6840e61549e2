//! Mobile hosts that move between base stations (paper 002 sections 4-6): which home agent tunnels
//! a mobile host's packets, the base stations of its multicast group, what triggers its handoffs,
//! and the constants of the scheme. The mobile host is a station of every one of those base
//! stations' cells (it hears them all: the paper's experiment hands off between two base stations in
//! one room); it sends through the primary's cell, and its requests to each base station through
//! that one's cell.

use snooplab_proto::agent::handoff::{Scheme, Trigger};
use snooplab_proto::duration::{self, Bare, Range};
use snooplab_proto::time::{Time, MS, SEC, US};

use crate::file_value::TimeValue;
use crate::scenario::MAX_TIME_RANGE;

use super::{AgentKind, Network, NodeId, NodeKind};

#[derive(Clone, Debug, PartialEq)]
pub struct HandoffSpec {
    pub mobile: NodeId,
    /// A router (no cell) on the path from the fixed hosts: it runs the home agent.
    pub home_agent: NodeId,
    /// The base stations of the mobile host's group, the primary at the start first.
    pub base_stations: Vec<NodeId>,
    pub trigger: Trigger,
    /// Packets a buffering base station keeps: 12 (section 6).
    pub ring: usize,
    /// IP ids the mobile host reports to a new primary: 3 (section 6).
    pub ids: usize,
    /// Time between each base station's beacons: 1 s (section 6); `None` for none.
    pub beacon_interval: Option<Time>,
    /// An unconfirmed request is repeated after this (our choice, `MobileConfig::retry`).
    pub retry: Time,
    /// Where the mobile host is, for the beacons' signal strength (`Trigger::Signal`).
    pub movement: Option<Movement>,
    /// Paper 002's multicast, or a baseline of section 8.
    pub scheme: Scheme,
    /// The base stations' cells are one radio channel: one frame on the air among all of them at a
    /// time (turn taking across the cells), as base stations in one room on the 1990s WaveLAN's
    /// single frequency would be. Off: each cell is a medium of its own.
    pub shared_channel: bool,
    /// What the old primary does with the frames already in its interface queue for the mobile
    /// host when the host asks it to buffer (paper 002 does not say).
    pub old_primary_queue: OldPrimaryQueue,
}

/// What an old primary does with the frames its interface queue holds for the mobile host when
/// the host's `Buffer` request arrives. Paper 002 does not say; the Daedalus code that would
/// (`ip_mobile.c`) is not reachable, so both are readings (issue 28).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum OldPrimaryQueue {
    /// They go out as queued: a base station's IP layer does not reach into its driver's queue.
    #[default]
    Drains,
    /// They are dropped from the queue (data, control and local retransmissions for that
    /// host alike) and the agent learns of each as a queue drop: the new primary's buffer and
    /// snoop's cache are left to recover them.
    Dropped,
}

impl OldPrimaryQueue {
    pub const ALL: [OldPrimaryQueue; 2] = [OldPrimaryQueue::Drains, OldPrimaryQueue::Dropped];

    pub fn name(self) -> &'static str {
        match self {
            OldPrimaryQueue::Drains => "drains",
            OldPrimaryQueue::Dropped => "dropped",
        }
    }

    pub fn parse(text: &str) -> Result<OldPrimaryQueue, String> {
        OldPrimaryQueue::ALL
            .into_iter()
            .find(|q| q.name() == text)
            .ok_or_else(|| format!("unknown old-primary-queue '{text}' (known: drains, dropped)"))
    }
}

/// Our movement model (the paper gives none): the mobile host walks back and forth along a line at
/// a constant speed, the base stations stand on the line, and a beacon's signal falls off with the
/// log-distance path-loss law, `P(d) = P(1 m) - 10 n log10(d / 1 m)`. Only differences between
/// base stations matter to the handoff rule, so neither the transmit power nor the loss at 1 m
/// does: the exponent `n` alone shapes the decision.
#[derive(Clone, Debug, PartialEq)]
pub struct Movement {
    /// The walk's two ends, metres along the line; it starts at `from_m`.
    pub from_m: f64,
    pub to_m: f64,
    pub speed_mps: f64,
    /// Each base station's position, in the order of `HandoffSpec::base_stations`.
    pub base_stations_m: Vec<f64>,
    /// Path-loss exponent: 2 in free space, about 3 indoors (our default).
    pub path_loss_exponent: f64,
}

impl Movement {
    /// Where the mobile host is at `t`.
    pub fn position(&self, t: Time) -> f64 {
        let span = (self.to_m - self.from_m).abs();
        if span == 0.0 || self.speed_mps <= 0.0 {
            return self.from_m;
        }
        let walked = self.speed_mps * t as f64 / SEC as f64;
        let leg = walked % (2.0 * span);
        let along = if leg <= span { leg } else { 2.0 * span - leg };
        self.from_m + along * (self.to_m - self.from_m).signum()
    }

    /// A beacon's signal from the `k`-th base station at `t`, dB relative to 1 m away.
    pub(crate) fn signal_db(&self, t: Time, k: usize) -> f64 {
        let at = self.base_stations_m.get(k).copied().unwrap_or(0.0);
        let d = (self.position(t) - at).abs().max(1.0);
        -10.0 * self.path_loss_exponent * d.log10()
    }
}

impl HandoffSpec {
    /// Paper 002's scheme for `mobile` moving among `base_stations`, `trigger`ed.
    pub fn paper002(
        mobile: NodeId,
        home_agent: NodeId,
        base_stations: Vec<NodeId>,
        trigger: Trigger,
    ) -> HandoffSpec {
        HandoffSpec {
            mobile,
            home_agent,
            base_stations,
            trigger,
            ring: 12,
            ids: 3,
            beacon_interval: Some(SEC),
            retry: 100 * MS,
            movement: None,
            scheme: Scheme::Multicast,
            shared_channel: false,
            old_primary_queue: OldPrimaryQueue::Drains,
        }
    }

    /// The signal of `bs`'s beacon at the mobile host at `t` (0 without a movement model).
    pub(crate) fn signal_dbm(&self, t: Time, bs: NodeId) -> f64 {
        let k = self.base_stations.iter().position(|&b| b == bs);
        match (&self.movement, k) {
            (Some(m), Some(k)) => m.signal_db(t, k),
            _ => 0.0,
        }
    }
}

impl Network {
    /// The handoff a node takes part in as mobile host, home agent or base station.
    pub(crate) fn handoff_of(&self, node: NodeId) -> Option<&HandoffSpec> {
        self.handoffs
            .iter()
            .find(|h| h.mobile == node || h.home_agent == node || h.base_stations.contains(&node))
    }

    /// A split handoff hands over the relays of its mobile host's connections
    /// (`proto/src/agent/split_handover.rs`), so each of its base stations must run a split
    /// agent: another agent has no relays to hand over. Any number of flows and mobile hosts may
    /// cross them.
    pub(super) fn validate_split_handoffs(&self) -> Result<(), String> {
        for h in self
            .handoffs
            .iter()
            .filter(|h| h.scheme == Scheme::SplitTransfer)
        {
            for &bs in &h.base_stations {
                let split = matches!(
                    self.nodes[bs].kind,
                    NodeKind::BaseStation {
                        agent: AgentKind::Split { .. },
                        ..
                    }
                );
                if !split {
                    return Err(format!(
                        "handoff of '{}': scheme = \"split\" hands over split relays, and base \
                         station '{}' does not run a split agent (agent = \"split\" or \
                         \"split-smart\")",
                        self.nodes[h.mobile].name, self.nodes[bs].name
                    ));
                }
            }
        }
        Ok(())
    }

    /// Checks the handoffs: the message names the mobile host and what is wrong.
    pub(super) fn validate_handoffs(&self) -> Result<(), String> {
        for (i, h) in self.handoffs.iter().enumerate() {
            let name = |n: NodeId| self.nodes[n].name.clone();
            let mh = name(h.mobile);
            if self.nodes[h.mobile].kind != NodeKind::Host {
                return Err(format!("handoff: '{mh}' is not a host"));
            }
            if self.handoffs[..i].iter().any(|g| g.mobile == h.mobile) {
                return Err(format!("handoff: mobile host '{mh}' is listed twice"));
            }
            match &self.nodes[h.home_agent].kind {
                NodeKind::BaseStation {
                    agent: AgentKind::Router,
                    ..
                } if self.cell_of(h.home_agent).is_none() => {}
                _ => {
                    return Err(format!(
                        "handoff of '{mh}': home agent '{}' must be a router (a base station \
                         with agent = \"router\" and no cell)",
                        name(h.home_agent)
                    ))
                }
            }
            if h.base_stations.is_empty() {
                return Err(format!("handoff of '{mh}': no base stations"));
            }
            for (k, &bs) in h.base_stations.iter().enumerate() {
                if h.base_stations[..k].contains(&bs) {
                    return Err(format!(
                        "handoff of '{mh}': base station '{}' is listed twice",
                        name(bs)
                    ));
                }
                let in_cell = self
                    .cell_of(bs)
                    .is_some_and(|c| self.cells[c].stations.iter().any(|s| s.node == h.mobile));
                if !in_cell {
                    return Err(format!(
                        "handoff of '{mh}': base station '{}' has no cell with '{mh}' as a station",
                        name(bs)
                    ));
                }
                if let Some(g) = self.handoffs[..i]
                    .iter()
                    .find(|g| g.base_stations.contains(&bs) && g.home_agent != h.home_agent)
                {
                    return Err(format!(
                        "base station '{}' serves '{}' and '{mh}' with different home agents",
                        name(bs),
                        name(g.mobile)
                    ));
                }
            }
            if let Trigger::Every(t) = h.trigger {
                check_time(&mh, "every-s", t, HANDOFF_PERIOD_RANGE)?;
            }
            if matches!(h.trigger, Trigger::Signal { .. }) {
                match &h.movement {
                    None => {
                        return Err(format!(
                            "handoff of '{mh}': signal-strength handoffs need a movement model"
                        ))
                    }
                    Some(m) if m.base_stations_m.len() != h.base_stations.len() => {
                        return Err(format!(
                            "handoff of '{mh}': the movement model places {} base stations, the \
                             handoff lists {}",
                            m.base_stations_m.len(),
                            h.base_stations.len()
                        ))
                    }
                    Some(m) if !(m.speed_mps >= 0.0 && m.path_loss_exponent > 0.0) => {
                        return Err(format!(
                            "handoff of '{mh}': speed must be >= 0 and the path-loss exponent > 0"
                        ))
                    }
                    _ => {}
                }
            }
            if h.shared_channel {
                let turns = h.base_stations.iter().all(|&bs| {
                    self.cell_of(bs)
                        .is_some_and(|c| self.cells[c].access == crate::medium::AccessModel::Turns)
                });
                if !turns {
                    return Err(format!(
                        "handoff of '{mh}': a shared channel needs turn-taking cells (access = \
                         \"turns\")"
                    ));
                }
            }
            if h.ids > 3 {
                return Err(format!(
                    "handoff of '{mh}': a request carries at most 3 IP ids, not {}",
                    h.ids
                ));
            }
            check_time(&mh, "retry-s", h.retry, RETRY_RANGE)?;
            if let Some(t) = h.beacon_interval {
                check_time(&mh, "beacon-interval-s", t, BEACON_INTERVAL_RANGE)?;
            }
        }
        Ok(())
    }
}

/// A `[[handoff]]` table of a scenario file (`docs/networks.md`, "Handoffs").
#[derive(Clone, Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct HandoffTable {
    pub mobile: String,
    pub home_agent: String,
    /// The primary at the start first.
    pub base_stations: Vec<String>,
    /// Timed handoffs, seconds apart.
    pub every_s: Option<TimeValue>,
    /// `timer` (with `every-s`), `signal` (with `[handoff.movement]`) or `never`.
    pub trigger: Option<String>,
    /// dB a beacon must beat the primary's by [default: 6].
    pub hysteresis_db: Option<f64>,
    /// Packets a buffering base station keeps [default: 12].
    pub buffer: Option<usize>,
    /// IP ids in a request [default: 3].
    pub ids: Option<usize>,
    /// Seconds between beacons, 0 for none [default: 1].
    pub beacon_interval_s: Option<TimeValue>,
    /// Seconds before an unconfirmed request goes again [default: 0.1].
    pub retry_s: Option<TimeValue>,
    /// `multicast` (paper 002), `hard` (Mobile IP, nothing buffered) or `fast-retransmit`
    /// (Caceres and Iftode) [default: multicast].
    pub scheme: Option<String>,
    /// The base stations' cells share one channel [default: false].
    pub shared_channel: Option<bool>,
    /// `drains` or `dropped`: the old primary's queued frames for the mobile host when it is
    /// asked to buffer [default: drains].
    pub old_primary_queue: Option<String>,
    pub movement: Option<MovementTable>,
}

#[derive(Clone, Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct MovementTable {
    pub from_m: f64,
    pub to_m: f64,
    pub speed_mps: f64,
    pub base_stations_m: Vec<f64>,
    /// [default: 3]
    pub path_loss_exponent: Option<f64>,
}

/// Hysteresis of signal-strength handoffs when a file gives none (our choice).
pub(crate) const DEFAULT_HYSTERESIS_DB: f64 = 6.0;

/// Time between timed handoffs (`every-s`): at least 10 ms. Paper 002 measured a handoff, from the
/// decision to the new base station's confirmation, at 5-10 ms on an idle network and 25-70 ms
/// during a transfer (section 7, Fig. 10; ours is 3.7 ms idle, 6.7 ms during one, docs/paper002.md):
/// a handoff every 10 ms is one straight after another, and a shorter period would begin the next
/// before the last one's signalling could end (1 us handoffs simulated 310 of 3600 s in a minute of
/// wall time, issue 49). At most the longest run (1e7 s), which is never.
pub(crate) const HANDOFF_PERIOD_RANGE: Range = Range::new(10 * MS, MAX_TIME_RANGE.max);

/// Time between a base station's beacons (`beacon-interval-s`), 0 for none: at least 1024 us, one
/// IEEE 802.11 time unit. 802.11's Beacon Interval field is a count of TUs (IEEE Std 802.11-2016,
/// 9.4.1.3; the TU, 1024 us, is defined in 3.2), so 1 TU is the shortest any access point can be
/// told to beacon; paper 002's base stations beacon once a second (section 6). (A beacon every
/// 1e-9 s reached 0.2 simulated seconds in 52 s of wall time, issue 49.) At most the longest run.
pub(crate) const BEACON_INTERVAL_RANGE: Range = Range::new(1024 * US, MAX_TIME_RANGE.max);

/// Time before an unconfirmed handoff request goes again (`retry-s`): at least 10 ms, the longest a
/// confirmation takes on an idle network in paper 002's measurements (5-10 ms, section 7, Fig. 10):
/// a request repeated sooner duplicates one whose confirmation is still on its way. At most the
/// longest run.
pub(crate) const RETRY_RANGE: Range = Range::new(10 * MS, MAX_TIME_RANGE.max);

/// A handoff's time `t` against its range: the message names the key and the limit, for networks
/// built in code (a paper's testbed, Python) as a file's keys are checked when it is read.
fn check_time(mh: &str, key: &str, t: Time, range: Range) -> Result<(), String> {
    if range.contains(t) {
        Ok(())
    } else {
        Err(duration::out_of_range(
            &format!("handoff of '{mh}': {key}"),
            &duration::show(t),
            range,
        ))
    }
}

impl HandoffTable {
    /// The handoff with node names resolved by `node`; the message names the key.
    pub fn resolve(
        &self,
        node: &dyn Fn(&str, &str) -> Result<NodeId, String>,
    ) -> Result<HandoffSpec, String> {
        let what = format!("handoff of '{}'", self.mobile);
        let mobile = node(&self.mobile, &what)?;
        let home_agent = node(&self.home_agent, &what)?;
        let base_stations = self
            .base_stations
            .iter()
            .map(|b| node(b, &what))
            .collect::<Result<Vec<_>, _>>()?;
        let every = self
            .every_s
            .as_ref()
            .map(|s| {
                s.time(
                    Bare::Seconds,
                    HANDOFF_PERIOD_RANGE,
                    &format!("{what}: every-s"),
                )
            })
            .transpose()?;
        let trigger = match (self.trigger.as_deref(), every) {
            (None | Some("timer"), Some(t)) => Trigger::Every(t),
            (Some("timer"), None) => return Err(format!("{what}: a timer trigger needs every-s")),
            (None | Some("never"), None) => Trigger::Never,
            (Some("signal"), None) => Trigger::Signal {
                hysteresis_db: self.hysteresis_db.unwrap_or(DEFAULT_HYSTERESIS_DB),
            },
            (Some("never" | "signal"), Some(_)) => {
                return Err(format!("{what}: every-s is for trigger = \"timer\""))
            }
            (Some(other), _) => {
                return Err(format!(
                    "{what}: unknown trigger '{other}' (known: timer, signal, never)"
                ))
            }
        };
        let mut h = HandoffSpec::paper002(mobile, home_agent, base_stations, trigger);
        if let Some(b) = self.buffer {
            h.ring = b;
        }
        if let Some(n) = self.ids {
            h.ids = n;
        }
        if let Some(s) = &self.beacon_interval_s {
            let key = format!("{what}: beacon-interval-s");
            // 0 is no beacons; anything else is an interval within its range
            let t = s
                .time(
                    Bare::Seconds,
                    Range::new(0, BEACON_INTERVAL_RANGE.max),
                    &key,
                )
                .and_then(|t| match t {
                    0 => Ok(0),
                    t if BEACON_INTERVAL_RANGE.contains(t) => Ok(t),
                    _ => Err(format!(
                        "{}, or 0 for none",
                        duration::out_of_range(&key, &s.text(), BEACON_INTERVAL_RANGE)
                    )),
                })?;
            h.beacon_interval = (t > 0).then_some(t);
        }
        h.shared_channel = self.shared_channel.unwrap_or(false);
        if let Some(name) = &self.scheme {
            h.scheme = Scheme::parse(name).map_err(|e| format!("{what}: {e}"))?;
        }
        if let Some(q) = &self.old_primary_queue {
            h.old_primary_queue = OldPrimaryQueue::parse(q).map_err(|e| format!("{what}: {e}"))?;
        }
        if let Some(s) = &self.retry_s {
            h.retry = s.time(Bare::Seconds, RETRY_RANGE, &format!("{what}: retry-s"))?;
        }
        h.movement = self.movement.as_ref().map(|m| Movement {
            from_m: m.from_m,
            to_m: m.to_m,
            speed_mps: m.speed_mps,
            base_stations_m: m.base_stations_m.clone(),
            path_loss_exponent: m.path_loss_exponent.unwrap_or(3.0),
        });
        Ok(h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(every: Option<TimeValue>) -> HandoffTable {
        HandoffTable {
            mobile: "mh".into(),
            home_agent: "ha".into(),
            base_stations: vec!["bs1".into(), "bs2".into()],
            every_s: every,
            ..HandoffTable::default()
        }
    }

    fn resolve(t: &HandoffTable) -> Result<HandoffSpec, String> {
        t.resolve(&|name: &str, _: &str| Ok(if name == "mh" { 0 } else { 1 }))
    }

    #[test]
    fn each_period_has_its_floor() {
        let n = |v: f64| Some(TimeValue::Number(v));
        let ok = resolve(&table(n(0.01))).map(|h| h.trigger);
        assert_eq!(ok, Ok(Trigger::Every(10 * MS)));
        let e = resolve(&table(Some(TimeValue::Text("9.999ms".into())))).unwrap_err();
        assert_eq!(
            e,
            "handoff of 'mh': every-s '9.999ms' must be between 10 ms and 10000000 s"
        );
        let beacon = |v: TimeValue| {
            resolve(&HandoffTable {
                beacon_interval_s: Some(v),
                ..table(n(1.0))
            })
            .map(|h| h.beacon_interval)
        };
        assert_eq!(beacon(TimeValue::Number(0.0)), Ok(None));
        assert_eq!(
            beacon(TimeValue::Text("1024us".into())),
            Ok(Some(1024 * US))
        );
        let e = beacon(TimeValue::Text("1ms".into())).unwrap_err();
        assert!(
            e.ends_with(
                "beacon-interval-s '1ms' must be between 1024 us and 10000000 s, or 0 for none"
            ),
            "{e}"
        );
        let retry = |v: f64| {
            resolve(&HandoffTable {
                retry_s: Some(TimeValue::Number(v)),
                ..table(n(1.0))
            })
            .map(|h| h.retry)
        };
        assert_eq!(retry(0.01), Ok(10 * MS));
        assert!(retry(0.005)
            .unwrap_err()
            .contains("retry-s '0.005' must be between 10 ms"));
        // the floors are where the sources put them
        assert_eq!(HANDOFF_PERIOD_RANGE.min, 10 * MS);
        assert_eq!(BEACON_INTERVAL_RANGE.min, 1024 * US);
        assert_eq!(RETRY_RANGE.min, 10 * MS);
    }
}
