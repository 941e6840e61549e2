//! The mobile host's side of the handoff (paper 002 sections 4 and 6): which base station forwards
//! its packets, when to hand off, and the IP ids of the last packets it received, which it reports
//! to the new primary. Handoffs are mobile-initiated: on a timer, as in the paper's experiments
//! ("the mobile host uses the time elapsed since the last handoff to determine if a handoff should
//! occur", section 7), or on the beacons' signal strength with hysteresis (section 4).

use std::collections::{BTreeMap, VecDeque};

use super::messages::Request;
use super::{Mobility, Scheme};
use crate::time::{as_secs_f64, Time, MS};

/// What starts a handoff.
#[derive(Clone, Debug, PartialEq)]
pub enum Trigger {
    /// Never: the first base station forwards throughout.
    Never,
    /// Every so often, to the next base station in the list (section 7's experiments).
    Every(Time),
    /// When a beacon from another base station is stronger than the primary's last beacon by this
    /// many dB (section 4: "Based on its beacon measurements and some hysteresis").
    Signal { hysteresis_db: f64 },
}

#[derive(Clone, Debug, PartialEq)]
pub struct MobileConfig {
    /// The mobile host's (home) address.
    pub addr: u32,
    /// The base stations it may use, the primary at the start first; all of them buffer.
    pub base_stations: Vec<u32>,
    pub trigger: Trigger,
    /// IP ids reported to a new primary: 3 (section 6).
    pub ids: usize,
    /// A request not confirmed within this time is sent again (our choice: the paper describes no
    /// confirmation; 100 ms is several times a control message's round trip on a busy cell); one to
    /// a base station the host does not hear goes once (`MobileHandoff::request`).
    pub retry: Time,
    pub scheme: Scheme,
}

impl MobileConfig {
    pub fn paper002(addr: u32, base_stations: Vec<u32>, trigger: Trigger) -> MobileConfig {
        MobileConfig {
            addr,
            base_stations,
            trigger,
            ids: 3,
            retry: 100 * MS,
            scheme: Scheme::Multicast,
        }
    }
}

/// One handoff, as the mobile host saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decision {
    pub at: Time,
    pub from: u32,
    pub to: u32,
    /// When the new primary's confirmation arrived.
    pub confirmed: Option<Time>,
    /// When the first TCP packet from the new primary's cell arrived after the decision.
    pub first_packet: Option<Time>,
}

/// Handoffs a mobile host keeps one by one (for the per-handoff table and trace). Past them it
/// keeps only [`DecisionTotals`], so a run with a handoff every millisecond for an hour holds
/// 10,000 records, not 3.6 million.
pub const DECISIONS_KEPT: usize = 10_000;

/// Every handoff a mobile host made, summed as it goes (whether or not its record is kept).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DecisionTotals {
    pub made: u64,
    /// Decisions whose new primary confirmed them.
    pub confirmed: u64,
    /// Confirmation latencies in ms, added in the order of the decisions.
    pub latency_ms_sum: f64,
    pub latency_ms_max: f64,
    /// Decisions after which a TCP packet arrived from the new primary's cell.
    pub first_packets: u64,
    /// Times to that first packet in ms, added in the order of the decisions.
    pub first_packet_ms_sum: f64,
}

/// The decisions of one mobile host: the first [`DECISIONS_KEPT`] as records, the latest (which
/// confirmations and first packets refer to) and the totals of all.
#[derive(Clone, Debug, Default)]
struct DecisionLog {
    kept: Vec<Decision>,
    latest: Option<Decision>,
    totals: DecisionTotals,
}

impl DecisionLog {
    fn push(&mut self, d: Decision) {
        if let Some(prev) = self.latest.take() {
            if self.kept.len() < DECISIONS_KEPT {
                self.kept.push(prev);
            }
        }
        self.latest = Some(d);
        self.totals.made += 1;
    }

    /// The kept records, in order (the latest among them while there is room).
    fn records(&self) -> impl Iterator<Item = &Decision> {
        let latest_kept = self.totals.made <= DECISIONS_KEPT as u64;
        self.kept
            .iter()
            .chain(self.latest.iter().filter(move |_| latest_kept))
    }

    fn confirmed(&mut self, now: Time) {
        if let Some(d) = self.latest.as_mut() {
            d.confirmed = Some(now);
            let ms = as_secs_f64(now - d.at) * 1e3;
            self.totals.confirmed += 1;
            self.totals.latency_ms_sum += ms;
            self.totals.latency_ms_max = self.totals.latency_ms_max.max(ms);
        }
    }

    fn first_packet(&mut self, now: Time) {
        if let Some(d) = self.latest.as_mut() {
            d.first_packet = Some(now);
            self.totals.first_packets += 1;
            self.totals.first_packet_ms_sum += as_secs_f64(now - d.at) * 1e3;
        }
    }
}

/// A request waiting for its confirmation.
#[derive(Clone, Copy, Debug)]
struct Pending {
    bs: u32,
    msg: Mobility,
    request: Request,
    resend_at: Time,
}

#[derive(Clone, Debug)]
pub struct MobileHandoff {
    cfg: MobileConfig,
    primary: u32,
    last_ids: VecDeque<u16>,
    next_timed: Option<Time>,
    /// The last beacon's signal strength from each base station, dBm.
    strength: BTreeMap<u32, f64>,
    /// The last beacon's sequence number from each base station.
    beacon_seq: BTreeMap<u32, u32>,
    pending: Vec<Pending>,
    out: VecDeque<(u32, Mobility)>,
    decisions: DecisionLog,
    pub resent_requests: u64,
    /// Base stations seen to restart (their beacons' count went back).
    pub restarts_seen: u64,
    /// Caceres and Iftode: the handoff is complete and the host's TCP should send its duplicate
    /// ACKs.
    dupacks_due: bool,
}

impl MobileHandoff {
    /// `None` without base stations.
    pub fn new(cfg: MobileConfig) -> Option<MobileHandoff> {
        let primary = *cfg.base_stations.first()?;
        let next_timed = match cfg.trigger {
            Trigger::Every(t) if cfg.base_stations.len() > 1 => Some(t.max(1)),
            _ => None,
        };
        Some(MobileHandoff {
            cfg,
            primary,
            last_ids: VecDeque::new(),
            next_timed,
            strength: BTreeMap::new(),
            beacon_seq: BTreeMap::new(),
            pending: vec![],
            out: VecDeque::new(),
            decisions: DecisionLog::default(),
            resent_requests: 0,
            restarts_seen: 0,
            dupacks_due: false,
        })
    }

    /// The mobile host's address.
    pub fn config_addr(&self) -> u32 {
        self.cfg.addr
    }

    /// The base station that forwards now, to which the mobile host sends its packets.
    pub fn primary(&self) -> u32 {
        self.primary
    }

    /// The handoffs' records: every one of them up to [`DECISIONS_KEPT`], the first ones after.
    pub fn decisions(&self) -> impl Iterator<Item = &Decision> {
        self.decisions.records()
    }

    /// The latest handoff, whether or not its record is kept.
    pub fn latest_decision(&self) -> Option<&Decision> {
        self.decisions.latest.as_ref()
    }

    /// Every handoff made, summed.
    pub fn decision_totals(&self) -> &DecisionTotals {
        &self.decisions.totals
    }

    /// A packet for the mobile host arrived intact from base station `bs`'s cell.
    pub fn on_received(&mut self, now: Time, bs: u32, ip_id: u16) {
        if self.cfg.ids > 0 {
            if self.last_ids.len() == self.cfg.ids {
                self.last_ids.pop_front();
            }
            self.last_ids.push_back(ip_id);
        }
        if self
            .decisions
            .latest
            .is_some_and(|d| d.to == bs && d.first_packet.is_none())
        {
            self.decisions.first_packet(now);
        }
    }

    /// A control message or beacon from base station `bs`; `strength_dbm` is the beacon's signal.
    pub fn on_message(&mut self, now: Time, bs: u32, msg: &Mobility, strength_dbm: f64) {
        match *msg {
            Mobility::Beacon { seq, .. } => {
                self.strength.insert(bs, strength_dbm);
                if self
                    .beacon_seq
                    .insert(bs, seq)
                    .is_some_and(|last| seq <= last)
                {
                    self.restarted(now, bs);
                }
                if let Trigger::Signal { hysteresis_db } = self.cfg.trigger {
                    let current = self.strength.get(&self.primary).copied();
                    // no decision before the primary itself has been heard
                    let better = current.is_some_and(|c| strength_dbm > c + hysteresis_db);
                    if bs != self.primary && better && self.cfg.base_stations.contains(&bs) {
                        self.hand_off(now, bs);
                    }
                }
            }
            Mobility::Confirm { mh, request } if mh == self.cfg.addr => {
                let before = self.pending.len();
                self.pending
                    .retain(|p| !(p.bs == bs && p.request == request));
                let unconfirmed = self
                    .decisions
                    .latest
                    .is_some_and(|d| d.to == bs && d.confirmed.is_none());
                if request == Request::Forward && self.pending.len() < before && unconfirmed {
                    self.decisions.confirmed(now);
                    self.dupacks_due = self.cfg.scheme == Scheme::FastRetransmit;
                }
            }
            _ => {}
        }
    }

    /// Hands off to `to`: it forwards, every other base station buffers (section 4, Fig. 5).
    pub fn hand_off(&mut self, now: Time, to: u32) {
        if to == self.primary {
            return;
        }
        let mh = self.cfg.addr;
        let forward = self.forward_request();
        self.decisions.push(Decision {
            at: now,
            from: self.primary,
            to,
            confirmed: None,
            first_packet: None,
        });
        let old = self.primary;
        self.primary = to;
        // a newer decision replaces whatever was still unconfirmed
        self.pending.clear();
        self.request(now, to, forward, Request::Forward);
        if self.cfg.scheme.buffers() {
            self.request(now, old, Mobility::Buffer { mh }, Request::Buffer);
        } else {
            self.request(now, old, Mobility::Leave { mh }, Request::Leave);
        }
    }

    /// Whether frames from base station `bs` reach the mobile host: from any of its base stations
    /// under the multicast scheme (they are all in range, section 7's experiment), from the primary
    /// alone after a hard handoff (the mobile host has left the old cell).
    pub fn hears(&self, bs: u32) -> bool {
        self.cfg.scheme.buffers() || bs == self.primary
    }

    /// Caceres and Iftode: true once after each completed handoff, when the mobile host's TCP
    /// should send three duplicate ACKs.
    pub fn take_dupacks_due(&mut self) -> bool {
        std::mem::take(&mut self.dupacks_due)
    }

    /// Base station `bs` restarted and lost what it was asked to do: section 4's mobile host,
    /// "after comparing the desired state for each of the BSs in the area with their current state",
    /// asks it again.
    fn restarted(&mut self, now: Time, bs: u32) {
        let mh = self.cfg.addr;
        self.restarts_seen += 1;
        if bs == self.primary {
            let forward = self.forward_request();
            self.request(now, bs, forward, Request::Forward);
        } else if self.cfg.scheme.buffers() && self.cfg.base_stations.contains(&bs) {
            self.request(now, bs, Mobility::Buffer { mh }, Request::Buffer);
        }
    }

    /// A `Forward` request with the last ids received.
    fn forward_request(&self) -> Mobility {
        let mut last_ids = [0u16; 3];
        let n = self.last_ids.len().min(3);
        for (slot, id) in last_ids
            .iter_mut()
            .zip(self.last_ids.iter().skip(self.last_ids.len() - n))
        {
            *slot = *id;
        }
        Mobility::Forward {
            mh: self.cfg.addr,
            last_ids,
            count: n as u8,
        }
    }

    /// Sends `msg` to `bs` and, where `bs` can answer, waits for its confirmation, sending it again
    /// every `retry` until it comes.
    ///
    /// A request to a base station the mobile host does not hear goes once and is not waited for
    /// (our reading, "unheard requests go once"): after a hard handoff that is the `Leave` to the
    /// old base station, whose `Confirm` goes out in a cell the host has left (`hears`), so waiting
    /// for it would repeat the `Leave` every `retry` until the next handoff. Plain Mobile IP (RFC
    /// 5944 section 3) sends the previous foreign agent nothing at all: the mobile node registers
    /// through the new one and the old one's visitor list entry lapses with its Lifetime; here the
    /// new base station's `Register` moves the home agent's tunnel the same way, so after a lost
    /// `Leave` nothing new reaches the old base station either: it keeps only a stale entry for the
    /// host (as primary, with the ring of the last packets it forwarded, which it synchronises and
    /// sends from, as section 6 says, if the host hands back to it).
    fn request(&mut self, now: Time, bs: u32, msg: Mobility, request: Request) {
        self.out.push_back((bs, msg));
        if !self.hears(bs) {
            return;
        }
        self.pending.push(Pending {
            bs,
            msg,
            request,
            resend_at: now + self.cfg.retry,
        });
    }

    pub fn on_timeout(&mut self, now: Time) {
        if let Some(at) = self.next_timed {
            if at <= now {
                if let Trigger::Every(every) = self.cfg.trigger {
                    let list = &self.cfg.base_stations;
                    let i = list.iter().position(|&b| b == self.primary).unwrap_or(0);
                    let next = list[(i + 1) % list.len()];
                    self.hand_off(now, next);
                    self.next_timed = Some(at + every.max(1));
                }
            }
        }
        for p in &mut self.pending {
            if p.resend_at <= now {
                self.out.push_back((p.bs, p.msg));
                p.resend_at = now + self.cfg.retry;
                self.resent_requests += 1;
            }
        }
    }

    /// The next control message: its base station and the message.
    pub fn poll_transmit(&mut self) -> Option<(u32, Mobility)> {
        self.out.pop_front()
    }

    pub fn poll_timeout(&self) -> Option<Time> {
        let resend = self.pending.iter().map(|p| p.resend_at).min();
        match (self.next_timed, resend) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}
