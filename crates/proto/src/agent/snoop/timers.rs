//! Snoop's timers (paper 002 section 6): the round-trip timer, armed after the first local
//! retransmission, and the persist timer, for when neither side has been heard from for 200 ms.

use super::ack::{retransmit, round_trip_timeout};
use std::collections::VecDeque;

use super::{BuildPacket, Conn, ConnKey, SnoopAgent};
use crate::agent::{AgentStats, SegmentView, Transmit};
use crate::time::Time;

impl<P: SegmentView + BuildPacket + Clone> SnoopAgent<P> {
    pub(super) fn next_deadline(&self) -> Option<Time> {
        self.conns
            .values()
            .flat_map(|c| {
                let idle = c.last_heard + self.cfg.idle_timeout;
                if self.cfg.eln_dupacks_only {
                    // A of a transit link resends on ELN duplicates only, never on a timer
                    return [None, None, Some(idle)];
                }
                let persist = (!c.cache.is_empty()).then(|| c.last_activity + self.cfg.persist);
                [c.rexmt_deadline, persist, Some(idle)]
            })
            .flatten()
            .min()
    }

    pub(super) fn run_timers(&mut self, now: Time) {
        let keys: Vec<ConnKey> = self.conns.keys().copied().collect();
        for key in keys {
            let Some(conn) = self.conns.get_mut(&key) else {
                continue;
            };
            if now >= conn.last_heard + self.cfg.idle_timeout {
                self.forget(&key);
                continue;
            }
            if self.cfg.eln_dupacks_only {
                continue;
            }
            let rto = round_trip_timeout(&self.cfg, conn);
            let prio = self.cfg.priority_retransmit;
            let mut resent = false;
            if conn.rexmt_deadline.is_some_and(|t| t <= now) {
                // Round-trip timer: no ACK within twice the wireless RTT of the retransmission.
                if resend_head(conn, &mut self.out, &mut self.stats, now, prio, false) {
                    conn.rexmt_deadline = Some(now + rto);
                    resent = true;
                } else {
                    conn.rexmt_deadline = None;
                }
            }
            if !conn.cache.is_empty() && now >= conn.last_activity + self.cfg.persist {
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
}

/// Resends the segment the mobile host is waiting for (at the last ACK, or the oldest cached);
/// a segment the sender retransmitted is left to the sender unless `even_senders`.
fn resend_head<P: Clone>(
    conn: &mut Conn<P>,
    out: &mut VecDeque<Transmit<P>>,
    stats: &mut AgentStats,
    now: Time,
    priority: bool,
    even_senders: bool,
) -> bool {
    let forwarded = conn.forwarded;
    let head = match conn.last_ack {
        Some(la) => conn.cache.head_at(la),
        None => conn.cache.front_mut(),
    };
    match head {
        Some(e) if even_senders || !e.sender_rexmit => {
            retransmit(out, stats, e, forwarded, now, priority);
            conn.forwarded += 1;
            conn.timed_tainted = true;
            true
        }
        _ => false,
    }
}
