//! Snoop's timers (paper 002 section 6): the round-trip timer, armed after the first local
//! retransmission, and the persist timer, for when neither side has been heard from for 200 ms.
//! With [`super::SnoopConfig::queue_aware`] and a host that reports departures, neither resends
//! a segment that still waits in the base station's own queue, and the persist timer counts the
//! transmission of the segment it would resend as activity (`SnoopAgent::departed`).

use super::ack::{retransmit, round_trip_timeout};
use std::collections::VecDeque;

use super::{BuildPacket, Conn, ConnKey, Entry, SnoopAgent};
use crate::agent::{Departure, SegmentView, Transmit};
use crate::segment::Endpoint;
use crate::segment::Segment;
use crate::time::Time;

impl<P: SegmentView + BuildPacket + Clone> SnoopAgent<P> {
    /// The first deadline of any connection.
    pub(super) fn next_deadline(&self) -> Option<Time> {
        let first = self.deadlines.first().map(|&(t, _)| t);
        debug_assert_eq!(
            first,
            self.scan_deadlines(),
            "a connection's deadline is stale"
        );
        first
    }

    /// The first deadline found the slow way, by every connection: what `deadlines` must hold.
    fn scan_deadlines(&self) -> Option<Time> {
        self.conns.values().map(|c| deadline(&self.cfg, c)).min()
    }

    /// Files connection (`fixed`, `mobile`) under its deadline again after it may have changed
    /// (nothing if it is not tracked: `forget` took its entry out).
    pub(super) fn refile(&mut self, fixed: Endpoint, mobile: Endpoint) {
        let key = ConnKey { fixed, mobile };
        let Some(conn) = self.conns.get_mut(&key) else {
            return;
        };
        let t = deadline(&self.cfg, conn);
        if conn.filed == Some(t) {
            return;
        }
        match conn.filed.replace(t) {
            Some(old) => self.deadlines.replace(&(old, key), (t, key)),
            None => self.deadlines.insert((t, key)),
        }
    }

    /// Runs the timers of the connections due at `now`, in key order (the order a walk over every
    /// connection visits them; one that is not due has nothing to do).
    pub(super) fn run_timers(&mut self, now: Time) {
        let mut due = std::mem::take(&mut self.due);
        due.clear();
        self.deadlines.due(now, &mut due);
        due.sort_unstable();
        for &key in &due {
            self.run_timers_of(key, now);
            self.refile(key.fixed, key.mobile);
        }
        self.due = due;
    }

    fn run_timers_of(&mut self, key: ConnKey, now: Time) {
        let Some(conn) = self.conns.get_mut(&key) else {
            return;
        };
        if now >= conn.last_heard + self.cfg.idle_timeout {
            self.forget(&key);
            return;
        }
        if self.cfg.eln_dupacks_only {
            return;
        }
        let rto = round_trip_timeout(&self.cfg, conn);
        let prio = self.cfg.priority_retransmit;
        let mut resent = false;
        // the segment the timers would resend still waits in the base station's own queue
        // (or the queue dropped it): it has not been on the air to be lost
        let waiting = conn.departures_known && head(conn).is_some_and(|e| e.waiting > 0);
        if conn.rexmt_deadline.is_some_and(|t| t <= now) && waiting {
            // not lost yet: wait another round trip
            conn.rexmt_deadline = Some(now + rto);
        } else if conn.rexmt_deadline.is_some_and(|t| t <= now) {
            // Round-trip timer: no ACK within twice the wireless RTT of the retransmission.
            if resend_head(conn, &mut self.out, &mut self.stats, now, prio, false) {
                conn.rexmt_deadline = Some(now + rto);
                resent = true;
            } else {
                conn.rexmt_deadline = None;
            }
        }
        if !conn.cache.is_empty() && now >= conn.last_activity + self.cfg.persist && waiting {
            // the connection waits for the base station, not for a loss
            conn.last_activity = now;
        } else if !conn.cache.is_empty() && now >= conn.last_activity + self.cfg.persist {
            // Persist timer: nothing from either side for a while; try the oldest segment again
            // and stop expecting duplicates.
            if !resent {
                resend_head(conn, &mut self.out, &mut self.stats, now, prio, true);
            }
            conn.exp_dupacks = 0;
            conn.last_activity = now;
        }
    }
}

impl<P: SegmentView + BuildPacket + Clone> SnoopAgent<P> {
    /// A packet snoop sent left the base station's transmit queue
    /// ([`crate::agent::Agent::on_departure`]): from now on snoop knows what of its connection
    /// still waits there (with [`super::SnoopConfig::queue_aware`]). A cached segment that went on
    /// the air has one copy fewer waiting, and is activity for the persist timer if it is the one
    /// that timer would resend; one the queue dropped leaves the cache.
    pub(super) fn departed(&mut self, now: Time, seg: &Segment, how: Departure) {
        if !self.cfg.queue_aware {
            return;
        }
        let key = ConnKey {
            fixed: seg.src,
            mobile: seg.dst,
        };
        let Some(conn) = self.conns.get_mut(&key) else {
            return;
        };
        conn.departures_known = true;
        if seg.len == 0 {
            return;
        }
        if how == Departure::Dropped {
            // Congestion in the base station's own queue, not a wireless loss: the segment is
            // the sender's to recover, with its congestion control, as one lost before the base
            // station (section 3.1.2, case 3: not in the cache, its duplicate ACKs propagate).
            if conn.cache.remove(seg.seq).is_some() {
                self.held -= 1;
            }
            return;
        }
        if how == Departure::Withheld {
            // never queued: one copy fewer counted as waiting, and nothing was sent
            if let Some(e) = conn.cache.find_mut(seg.seq) {
                e.waiting = e.waiting.saturating_sub(1);
            }
            return;
        }
        if head(conn).is_some_and(|e| e.seq == seg.seq) {
            // the segment the persist timer would resend has just been sent
            conn.last_activity = conn.last_activity.max(now);
        }
        if let Some(e) = conn.cache.find_mut(seg.seq) {
            e.waiting = e.waiting.saturating_sub(1);
        }
    }
}

/// When the connection next wants its timers run: its round-trip timer, its persist timer
/// while it caches anything, its idle timeout.
fn deadline<P>(cfg: &super::SnoopConfig, c: &Conn<P>) -> Time {
    let idle = c.last_heard + cfg.idle_timeout;
    if cfg.eln_dupacks_only {
        // A of a transit link resends on ELN duplicates only, never on a timer
        return idle;
    }
    let persist = (!c.cache.is_empty()).then(|| c.last_activity + cfg.persist);
    [c.rexmt_deadline, persist]
        .into_iter()
        .flatten()
        .fold(idle, Time::min)
}

/// The segment the timers resend: the one at the last ACK, or the oldest cached before any ACK.
fn head<P>(conn: &mut Conn<P>) -> Option<&mut Entry<P>> {
    match conn.last_ack {
        Some(la) => conn.cache.head_at(la),
        None => conn.cache.front_mut(),
    }
}

/// Resends the segment the mobile host is waiting for (at the last ACK, or the oldest cached);
/// a segment the sender retransmitted is left to the sender unless `even_senders`.
fn resend_head<P: Clone>(
    conn: &mut Conn<P>,
    out: &mut VecDeque<Transmit<P>>,
    stats: &mut super::SnoopStats,
    now: Time,
    priority: bool,
    even_senders: bool,
) -> bool {
    let forwarded = conn.forwarded;
    match head(conn) {
        Some(e) if even_senders || !e.sender_rexmit => {
            retransmit(out, stats, e, forwarded, now, priority);
            conn.forwarded += 1;
            conn.timed_tainted = true;
            true
        }
        _ => false,
    }
}
