//! `snoop_data()` (paper 002 section 3.1.1, Fig. 1): segments from the fixed host.

use super::cache::Entry;
use super::{BuildPacket, Conn, ConnKey, SnoopAgent};
use crate::agent::{Origin, Port, Priority, SegmentView, Transmit};
use crate::segment::{Flags, Segment};
use crate::time::Time;

impl<P: SegmentView + BuildPacket + Clone> SnoopAgent<P> {
    /// A segment from the fixed host that carries no data: a SYN opens the connection's state
    /// afresh (whatever was known about an older one with these ends is stale), a reset forgets
    /// it, anything else only shows it alive. Returns the connection's key for a data segment.
    fn data_only(&mut self, now: Time, seg: &Segment) -> Option<ConnKey> {
        let key = ConnKey {
            fixed: seg.src,
            mobile: seg.dst,
        };
        if seg.is_syn() {
            self.forget(&key);
            let conn = self.conn_entry(key, now);
            conn.last_seen = Some(seg.seq + 1);
            return None;
        }
        if seg.len == 0 {
            if seg.flags.contains(Flags::RST) {
                self.forget(&key);
            } else if let Some(c) = self.conns.get_mut(&key) {
                c.heard(now);
            }
            return None;
        }
        Some(key)
    }

    pub(super) fn snoop_data(&mut self, now: Time, seg: Segment, packet: P) {
        let Some(key) = self.data_only(now, &seg) else {
            self.forward(Port::Wireless, packet);
            return;
        };
        let high_water = self.cfg.high_water;
        let per_connection = self.cfg.max_cached_per_connection;
        let room_in_total = self.held < self.cfg.max_cached_total;
        let conn = self.conn_entry(key, now);
        conn.heard(now);
        conn.max_segment = conn.max_segment.max(seg.len);
        let end = seg.seq + seg.len;
        let in_sequence = conn.last_seen.is_none_or(|ls| seg.seq.ge(ls));
        if in_sequence {
            // Case 1: a new segment in the normal increasing sequence (or past a gap upstream).
            let cache_it = room_in_total && conn.cache.len() < high_water.min(per_connection);
            if cache_it {
                let copy = conn.cache.copy_of(&packet);
                conn.cache.insert(new_entry(&seg, copy, conn, now, false));
            }
            if conn.timed.is_none() {
                // one timed segment per window, for the wireless RTT
                conn.timed = Some((end, now));
                conn.timed_tainted = false;
            }
            conn.last_seen = Some(end);
            conn.forwarded += 1;
            self.held += usize::from(cache_it);
            self.forward(Port::Wireless, packet);
            return;
        }
        // Out of sequence: the sender retransmitted, or the network reordered.
        if let Some(la) = conn.last_ack {
            if end.le(la) {
                // Case 2b: the mobile host has it already; its ACK may have been lost on the way
                // back, so tell the sender where the connection is.
                if let Some((tpl, like)) = &conn.ack_template {
                    let mut ack = *tpl;
                    ack.flags = Flags::ACK;
                    ack.ack = la;
                    ack.len = 0;
                    ack.eln = false;
                    ack.smart = None;
                    let pkt = P::build(&ack, like);
                    self.stats.generated_acks += 1;
                    self.out.push_back(Transmit {
                        port: Port::Wired,
                        packet: pkt,
                        priority: Priority::Normal,
                        origin: Origin::GeneratedAck,
                    });
                } else {
                    self.stats.dropped += 1;
                }
                return;
            }
        }
        let index = conn.forwarded;
        let mut cached = false;
        if let Some(e) = conn.cache.find_mut(seg.seq) {
            // Case 2a: cached earlier and not yet acknowledged: forward it. The sender's own
            // retransmission resets the count of local ones; its duplicate ACKs belong to it.
            e.local_rexmits = 0;
            e.sender_rexmit = true;
            e.sent_index = index;
            e.sent(now);
        } else if room_in_total && conn.cache.len() < per_connection {
            // Case 3: not cached (lost upstream or evicted): cache it, marked as the sender's.
            let copy = conn.cache.copy_of(&packet);
            conn.cache.insert(new_entry(&seg, copy, conn, now, true));
            cached = true;
        }
        conn.forwarded += 1;
        self.held += usize::from(cached);
        self.forward(Port::Wireless, packet);
    }
}

impl<P: SegmentView + BuildPacket + Clone> SnoopAgent<P> {
    /// `snoop_data()` at a buffering base station (paper 002 section 5): it sees the mobile host's
    /// multicast stream but none of its ACKs, so it caches every segment it has not got and, with
    /// no ACK to free them, frees the oldest when the cache is full ("packets are only freed when
    /// snoop runs out of buffer space using a FIFO scheme"). It sends nothing and runs no recovery;
    /// after a handoff the first ACK through this base station cleans the cache (`snoop_ack`'s new
    /// ACK), and whatever is missing is a hole snoop tolerates.
    pub(super) fn mirror_data(&mut self, now: Time, seg: Segment, packet: P) {
        let Some(key) = self.data_only(now, &seg) else {
            return;
        };
        let limit = self
            .cfg
            .high_water
            .min(self.cfg.max_cached_per_connection)
            .max(1);
        let room_in_total = self.held < self.cfg.max_cached_total;
        let mut held = self.held;
        let conn = self.conn_entry(key, now);
        conn.heard(now);
        conn.max_segment = conn.max_segment.max(seg.len);
        // a turn as primary left recovery state behind: none runs while mirroring
        conn.exp_dupacks = 0;
        conn.dupacks_for_hole = 0;
        conn.hole_index = None;
        conn.recovery_until = None;
        conn.rexmt_deadline = None;
        conn.timed = None;
        let end = seg.seq + seg.len;
        let in_sequence = conn.last_seen.is_none_or(|ls| seg.seq.ge(ls));
        if in_sequence {
            conn.last_seen = Some(end);
        }
        if room_in_total && !conn.cache.holds(seg.seq) {
            let mut e = new_entry(&seg, packet, conn, now, !in_sequence);
            e.waiting = 0; // this base station does not send it
            conn.cache.insert(e);
            held += 1;
            while conn.cache.len() > limit {
                conn.cache.evict_oldest();
                held -= 1;
            }
        }
        conn.forwarded += 1;
        self.held = held;
    }
}

fn new_entry<P>(
    seg: &Segment,
    packet: P,
    conn: &Conn<P>,
    now: Time,
    sender_rexmit: bool,
) -> Entry<P> {
    Entry {
        seq: seg.seq,
        len: seg.len,
        packet,
        local_rexmits: 0,
        sender_rexmit,
        sent_index: conn.forwarded,
        last_tx: now,
        waiting: 1,
        received: false,
    }
}
