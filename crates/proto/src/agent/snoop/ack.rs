//! `snoop_ack()` (paper 002 section 3.1.2, Fig. 2): ACKs from the mobile host. The duplicate-ACK
//! rule is [`SnoopAgent::on_dupack`].

use std::collections::VecDeque;

use super::{sack, BuildPacket, Conn, ConnKey, SnoopAgent, SnoopConfig};
use crate::agent::{Origin, Port, Priority, SegmentView, Transmit};
use crate::segment::{Flags, Segment};
use crate::seq::Seq;
use crate::time::Time;

/// Whether an ACK repeating the last acknowledgment is the receiver's window update: its window is
/// at least two of the connection's segments larger than the last ACK's (the smallest opening for
/// which 4.4BSD-Lite2's `tcp_output` sends an update; a duplicate ACK that follows a smaller read
/// carries less).
fn window_update<P>(conn: &Conn<P>, seg: &Segment) -> bool {
    let Some((t, _)) = &conn.ack_template else {
        return false;
    };
    conn.max_segment > 0 && u32::from(seg.window) >= u32::from(t.window) + 2 * conn.max_segment
}

/// What snoop's duplicate-ACK rule ([`on_dupack`]) would do with a duplicate ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    Propagate,
    Suppress,
}

impl<P: SegmentView + BuildPacket + Clone> SnoopAgent<P> {
    pub(super) fn snoop_ack(&mut self, now: Time, seg: Segment, packet: P) {
        let key = ConnKey {
            fixed: seg.dst,
            mobile: seg.src,
        };
        let pure_ack = seg.has_ack() && !seg.is_syn() && !seg.is_fin() && seg.len == 0;
        let Some(conn) = self.conns.get_mut(&key) else {
            self.forward(Port::Wired, packet);
            return;
        };
        conn.heard(now);
        if seg.flags.contains(Flags::RST) {
            // The connection is over: nothing cached can be of use.
            self.forget(&key);
            self.forward(Port::Wired, packet);
            return;
        }
        if !pure_ack {
            if seg.is_fin() && seg.has_ack() && conn.last_ack.is_some_and(|la| seg.ack.gt(la)) {
                // The mobile host closes: its FIN acknowledges what it received, which no pure
                // ACK may follow to clean the cache (the persist timer would resend it forever).
                self.held -= conn.cache.clean(seg.ack);
            }
            self.forward(Port::Wired, packet);
            return;
        }
        let ack = seg.ack;
        if self.cfg.selective {
            // SMART: the segment that caused this ACK (new or duplicate) has reached the mobile host.
            if let Some(e) = seg.smart.and_then(|s| conn.cache.find_mut(s)) {
                e.received = true;
            }
        }
        if self.cfg.read_sack {
            sack::mark_sacked(conn, &seg);
        }
        match conn.last_ack {
            // Case 2: a spurious ACK, below one already seen: discarded.
            Some(la) if ack.lt(la) => {
                self.stats.dropped += 1;
            }
            // The last ACK again with a window at least two segments larger: the receiving
            // application read, and its TCP announced the room (4.4BSD-Lite2 tcp_output.c sends a
            // pure window update only when the window opens by two segments or half the buffer). It
            // says nothing about losses: it goes on and becomes the template, and snoop's recovery
            // state stays as it was. (With a buffer under four segments, an update of half of it
            // is smaller and counts as a duplicate below; it is still forwarded.)
            Some(la) if ack == la && window_update(conn, &seg) => {
                conn.set_template(&seg, &packet);
                self.forward(Port::Wired, packet);
            }
            // Case 3: a duplicate ACK. One that carries another window than the last ACK (a read
            // opened the window by less than an update needs, then an out-of-order segment
            // arrived) counts for snoop's loss detection like any duplicate, but is always
            // forwarded and becomes the template: the BSD sender does not count it as a duplicate
            // (tcp_input's test includes `tiwin == snd_wnd`), so suppressing it would only lose
            // its window. Paper 002's snoop_ack (section 3.1.2, Fig. 2) does not mention windows;
            // this is our reading of its duplicate-ACK case.
            // At A of a transit link, a duplicate without ELN speaks of congestion beyond B:
            // the sender's business alone.
            Some(la) if ack == la && self.cfg.eln_dupacks_only && !seg.eln => {
                self.forward(Port::Wired, packet);
            }
            Some(la) if ack == la => {
                let new_window = conn
                    .ack_template
                    .as_ref()
                    .is_some_and(|(t, _)| t.window != seg.window);
                let verdict = on_dupack(&self.cfg, &mut self.out, &mut self.stats, conn, now, &seg);
                if new_window {
                    conn.set_template(&seg, &packet);
                }
                match verdict {
                    Verdict::Suppress if !new_window => self.stats.dupacks_suppressed += 1,
                    // forwarded for its window alone: snoop still answers the loss
                    Verdict::Suppress if self.cfg.hide_repaired_sack => {
                        let packet = sack::hide_repaired_holes(conn, &seg, packet);
                        self.forward(Port::Wired, packet);
                    }
                    _ => self.forward(Port::Wired, packet),
                }
            }
            // Case 1: a new ACK.
            _ => {
                self.held -= on_new_ack(
                    &self.cfg,
                    &mut self.out,
                    &mut self.stats,
                    conn,
                    now,
                    &seg,
                    &packet,
                );
                if sack::new_ack_opens_recovery(&self.cfg, conn.recovery_until, &seg) {
                    // the duplicate-ACK rule's loss detection and retransmissions; the ACK itself
                    // is new and goes on whatever that rule would do with a duplicate
                    on_dupack(&self.cfg, &mut self.out, &mut self.stats, conn, now, &seg);
                }
                let packet = if self.cfg.hide_repaired_sack {
                    sack::hide_repaired_holes(conn, &seg, packet)
                } else {
                    packet
                };
                self.forward(Port::Wired, packet);
            }
        }
    }
}

/// A new ACK cleans the cache, updates the wireless RTT once per window (only if nothing in that
/// window was retransmitted), and, during local recovery and with
/// [`SnoopConfig::partial_ack_retransmit`], resends the next hole at once if the ACK shows it lost.
/// Returns how many segments left the cache.
fn on_new_ack<P: Clone>(
    cfg: &SnoopConfig,
    out: &mut VecDeque<Transmit<P>>,
    stats: &mut super::SnoopStats,
    conn: &mut Conn<P>,
    now: Time,
    seg: &Segment,
    packet: &P,
) -> usize {
    let ack = seg.ack;
    let dupacks_before = conn.dupacks_for_hole;
    let prev_hole_index = conn.hole_index.take();
    let freed = conn.cache.clean(ack);
    if let Some((end, sent)) = conn.timed {
        if ack.ge(end) {
            if !conn.timed_tainted {
                let sample = now.saturating_sub(sent);
                conn.srtt = Some(match conn.srtt {
                    None => sample,
                    Some(s) => {
                        let shift = cfg.rtt_gain_shift;
                        if sample >= s {
                            s + ((sample - s) >> shift)
                        } else {
                            s - ((s - sample) >> shift)
                        }
                    }
                });
            }
            conn.timed = None;
        }
    }
    conn.exp_dupacks = 0;
    conn.dupacks_for_hole = 0;
    conn.last_ack = Some(ack);
    conn.set_template(seg, packet);
    if let Some(until) = conn.recovery_until {
        if ack.ge(until) || conn.cache.is_empty() {
            conn.recovery_until = None;
            conn.rexmt_deadline = None;
            return freed;
        }
        // A partial ACK after a local retransmission. The segment it asks for is a second hole if
        // something sent after it had already reached the mobile host: among the packets sent after
        // the first hole, `dupacks_before` arrived, so any of the first `dupacks_before` is missing.
        let forwarded = conn.forwarded;
        let rto = round_trip_timeout(cfg, conn);
        let known = conn.departures_known;
        let srtt = conn.srtt.unwrap_or(cfg.min_timeout);
        if let Some(e) = conn.cache.head_at(ack) {
            let counted = prev_hole_index.is_some_and(|first| {
                cfg.partial_ack_retransmit
                    && !e.sender_rexmit
                    && !e.queued(known)
                    && (seg.eln || !cfg.eln_dupacks_only)
                    && e.sent_index > first
                    && e.sent_index - first <= u64::from(dupacks_before)
            });
            let lost = counted || sack::partial_ack_shows_loss(cfg, e, seg, known, now, srtt);
            if lost {
                let after = forwarded.saturating_sub(e.sent_index + 1);
                retransmit(out, stats, e, forwarded, now, cfg.priority_retransmit);
                conn.forwarded += 1;
                conn.exp_dupacks = u32::try_from(after).unwrap_or(u32::MAX);
                conn.timed_tainted = true;
            } else if let Some(after) = sack::already_resent(cfg, e, forwarded) {
                conn.exp_dupacks = after;
            }
        }
        conn.rexmt_deadline = Some(now + rto);
        if let Some(bound) = sack::partial_ack_bound(cfg, seg) {
            let index = conn.forwarded;
            let after = sack::latest_delivery(cfg, conn, seg);
            conn.forwarded += resend_missing_below(cfg, out, stats, conn, now, bound, index, after);
        }
    }
    freed
}

/// The duplicate-ACK rule of snoop (paper 002 section 3.1.2, case 3):
/// - not cached, or retransmitted by the sender: the sender needs it (propagate);
/// - unexpected duplicates below `dupack_threshold` (paper 000 section IV-E), or, with `selective`,
///   one whose SMART information names a segment below the ACK (a duplicate delivery, not a
///   loss): propagate;
/// - the unexpected duplicate at the threshold: retransmit the segment at once at high priority, and
///   expect one duplicate for each packet sent after it before this retransmission;
/// - an expected duplicate: discard it;
/// - more duplicates than expected once the segment was resent: the sender deals with them.
///
/// Without TCP awareness (LL) the same retransmissions happen but every duplicate propagates. With
/// `selective` the SMART information on each ACK also resends every other missing segment below the
/// one that caused it, at most once per wireless RTT.
///
/// Does the accounting and returns the rule's verdict; `snoop_ack` forwards a duplicate that carries
/// a new window whatever the verdict.
fn on_dupack<P: Clone>(
    cfg: &SnoopConfig,
    out: &mut VecDeque<Transmit<P>>,
    stats: &mut super::SnoopStats,
    conn: &mut Conn<P>,
    now: Time,
    seg: &Segment,
) -> Verdict {
    let ack = seg.ack;
    conn.dupacks_for_hole += 1;
    let forwarded = conn.forwarded;
    let rto = round_trip_timeout(cfg, conn);
    let last_seen = conn.last_seen;
    let known = conn.departures_known;
    let Some(head) = conn.cache.head_at(ack) else {
        return Verdict::Propagate;
    };
    if head.sender_rexmit {
        return Verdict::Propagate;
    }
    // Is the segment at the ACK missing? SMART says so exactly: a later segment caused this ACK (a
    // duplicate segment below the ACK is no evidence). Otherwise count duplicates to the threshold.
    let bound = sack::loss_bound(cfg, seg);
    let missing = match bound {
        Some(s) => s.gt(ack),
        None => conn.dupacks_for_hole >= cfg.dupack_threshold.max(1),
    };
    let mut verdict = Verdict::Suppress;
    let mut resent = 0u64;
    if conn.exp_dupacks == 0 && head.local_rexmits == 0 && !missing {
        verdict = Verdict::Propagate;
    } else if conn.exp_dupacks == 0 && head.local_rexmits == 0 && head.queued(known) {
        // A copy of it still waits in the base station's own queue (later packets overtook it,
        // or duplicates drew the ACK): it is on its way, not lost. The next duplicate after the
        // copy has gone resends it.
    } else if conn.exp_dupacks == 0 && head.local_rexmits == 0 {
        // Expect a duplicate for every packet sent after it; those seen so far were among them.
        let after = forwarded.saturating_sub(head.sent_index + 1);
        conn.hole_index = Some(head.sent_index);
        retransmit(out, stats, head, forwarded, now, cfg.priority_retransmit);
        resent += 1;
        let seen = u64::from(conn.dupacks_for_hole);
        conn.exp_dupacks = u32::try_from(after.saturating_sub(seen)).unwrap_or(u32::MAX);
        conn.recovery_until = conn.recovery_until.or(last_seen);
        conn.rexmt_deadline = Some(now + rto);
        conn.timed_tainted = true;
    } else if conn.exp_dupacks > 0 {
        conn.exp_dupacks -= 1;
    } else {
        verdict = Verdict::Propagate;
    }
    if let Some(s) = bound {
        let after = sack::latest_delivery(cfg, conn, seg);
        resent += resend_missing_below(cfg, out, stats, conn, now, s, forwarded + resent, after);
    }
    conn.forwarded += resent;
    if cfg.suppress_dupacks {
        verdict
    } else {
        Verdict::Propagate
    }
}

/// Snoop's selective rule: every cached segment below `bound` that has not reached the mobile
/// host (SMART or SACK information says which have), that the sender has not resent and no copy
/// of which waits in the base station's queue, is resent, at most once per wireless RTT, or
/// sooner when a segment snoop sent after its last copy has been delivered (`delivered_after`,
/// [`sack::latest_delivery`]). The first goes out as packet number `index`. Returns how many were
/// resent; the caller counts them as forwarded.
#[allow(clippy::too_many_arguments)]
fn resend_missing_below<P: Clone>(
    cfg: &SnoopConfig,
    out: &mut VecDeque<Transmit<P>>,
    stats: &mut super::SnoopStats,
    conn: &mut Conn<P>,
    now: Time,
    bound: Seq,
    index: u64,
    delivered_after: Option<Time>,
) -> u64 {
    let rto = round_trip_timeout(cfg, conn);
    let srtt = conn.srtt.unwrap_or(cfg.min_timeout);
    let known = conn.departures_known;
    let last_seen = conn.last_seen;
    let mut resent = 0u64;
    for e in conn.cache.iter_mut() {
        if !e.seq.lt(bound) {
            break;
        }
        let overtaken = delivered_after.is_some_and(|t| t > e.last_tx);
        let due = e.local_rexmits == 0 || now.saturating_sub(e.last_tx) >= srtt || overtaken;
        if !e.received && !e.sender_rexmit && due && !e.queued(known) {
            retransmit(out, stats, e, index + resent, now, cfg.priority_retransmit);
            resent += 1;
            conn.timed_tainted = true;
            conn.recovery_until = conn.recovery_until.or(last_seen);
            conn.rexmt_deadline = Some(now + rto);
        }
    }
    resent
}

/// Resends a cached segment: ahead of queued traffic when `priority`, else behind it.
pub(super) fn retransmit<P: Clone>(
    out: &mut VecDeque<Transmit<P>>,
    stats: &mut super::SnoopStats,
    e: &mut super::Entry<P>,
    index: u64,
    now: Time,
    priority: bool,
) {
    e.local_rexmits += 1;
    e.sent(now);
    e.sent_index = index;
    stats.local_retransmissions += 1;
    out.push_back(Transmit {
        port: Port::Wireless,
        packet: e.packet.clone(),
        priority: if priority {
            Priority::High
        } else {
            Priority::Normal
        },
        origin: Origin::LocalRetransmission,
    });
}

/// Twice the smoothed wireless RTT, not below the minimum (paper 002 section 6).
pub(super) fn round_trip_timeout<P>(cfg: &SnoopConfig, conn: &Conn<P>) -> Time {
    conn.srtt
        .map_or(cfg.min_timeout, |s| 2 * s)
        .max(cfg.min_timeout)
}
