//! Snoop's timers (paper 002 section 6): the round-trip timer, armed after the first local
//! retransmission, and the persist timer, for when neither side has been heard from for 200 ms.

use super::ack::{retransmit, round_trip_timeout};
use super::{BuildPacket, ConnKey, SnoopAgent};
use crate::agent::SegmentView;
use crate::time::Time;

impl<P: SegmentView + BuildPacket + Clone> SnoopAgent<P> {
    pub(super) fn next_deadline(&self) -> Option<Time> {
        self.conns
            .values()
            .flat_map(|c| {
                let persist = (!c.cache.is_empty()).then(|| c.last_activity + self.cfg.persist);
                let idle = c.last_activity + self.cfg.idle_timeout;
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
            if now >= conn.last_activity + self.cfg.idle_timeout {
                self.conns.remove(&key);
                continue;
            }
            let rto = round_trip_timeout(&self.cfg, conn);
            let forwarded = conn.forwarded;
            let head_seq = conn.last_ack;
            let mut resent = false;
            if conn.rexmt_deadline.is_some_and(|t| t <= now) {
                // Round-trip timer: no ACK within twice the wireless RTT of the retransmission.
                let head = match head_seq {
                    Some(la) => conn.cache.head_at(la),
                    None => conn.cache.front_mut(),
                };
                match head {
                    Some(e) if !e.sender_rexmit => {
                        retransmit(
                            &mut self.out,
                            &mut self.stats,
                            e,
                            forwarded,
                            now,
                            self.cfg.priority_retransmit,
                        );
                        conn.forwarded += 1;
                        conn.timed_tainted = true;
                        conn.rexmt_deadline = Some(now + rto);
                        resent = true;
                    }
                    _ => conn.rexmt_deadline = None,
                }
            }
            if !conn.cache.is_empty() && now >= conn.last_activity + self.cfg.persist {
                // Persist timer: nothing from either side for a while; try the oldest segment again
                // and stop expecting duplicates.
                let forwarded = conn.forwarded;
                let head = match head_seq {
                    Some(la) => conn.cache.head_at(la),
                    None => conn.cache.front_mut(),
                };
                if let Some(e) = head.filter(|_| !resent) {
                    retransmit(
                        &mut self.out,
                        &mut self.stats,
                        e,
                        forwarded,
                        now,
                        self.cfg.priority_retransmit,
                    );
                    conn.forwarded += 1;
                    conn.timed_tainted = true;
                }
                conn.exp_dupacks = 0;
                conn.last_activity = now;
            }
        }
    }
}
