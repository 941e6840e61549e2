//! Selective acknowledgments (paper 000 section III-A): the receiver's SACK blocks (RFC 2018), and
//! the sender's scoreboard and send log that the IETF SACK and SMART recoveries read
//! (`recovery/sack.rs`, `recovery/smart.rs`, and RFC 6675's routines in `recovery/scoreboard.rs`).
//!
//! Both senders keep a scoreboard of what the receiver reported holding above `snd_una` and a log
//! of the segments sent, so a hole is resent as exactly the segment that was sent there.

use std::collections::VecDeque;

use super::{Reassembly, Selective, Tcp, TxKind};
use crate::segment::{Flags, SackBlocks, Segment};
use crate::seq::Seq;
use crate::time::Time;

/// A segment sent and not yet cumulatively acknowledged.
#[derive(Clone, Copy, Debug)]
pub(super) struct Sent {
    pub(super) seq: Seq,
    pub(super) len: u32,
    pub(super) last_tx: Time,
    pub(super) rexmits: u32,
    /// RACK (`rack-tlp = on`): the receiver reported holding all of it (`TCPCB_SACKED_ACKED`).
    pub(super) sacked: bool,
    /// RACK: marked lost and not resent since (`TCPCB_LOST` without `TCPCB_SACKED_RETRANS`).
    pub(super) lost: bool,
    /// RACK: resent by NextSeg's retransmissions (not the resend of the head on entering a
    /// recovery, which the pipe counts alike) and not marked lost,
    /// SACKed or acknowledged since (`TCPCB_SACKED_RETRANS`, counted in `tp->retrans_out`): in
    /// flight once more (`recovery/scoreboard.rs`'s SetPipe). A loss probe's resend does not set
    /// it (`tcp_send_loss_probe()` calls `__tcp_retransmit_skb()`, not `tcp_retransmit_skb()`).
    pub(super) retrans: bool,
}

impl Sent {
    pub(super) fn end(&self) -> Seq {
        self.seq + self.len
    }

    /// `tcp_mark_skb_lost()` (net/ipv4/tcp_input.c), by RACK or by a timeout: lost, and a
    /// resend that was in flight is lost again ("Account for retransmits that are lost again":
    /// `TCPCB_SACKED_RETRANS` cleared, `retrans_out` less by one), so it is resent again.
    pub(super) fn mark_lost(&mut self) {
        self.lost = true;
        self.retrans = false;
    }

    /// A segment sent once at `last_tx`, in the tests' logs.
    #[cfg(test)]
    pub(super) fn once(seq: u32, len: u32, last_tx: Time) -> Sent {
        Sent {
            seq: Seq(seq),
            len,
            last_tx,
            rexmits: 0,
            sacked: false,
            lost: false,
            retrans: false,
        }
    }
}

#[derive(Clone, Debug, Default)]
pub(super) struct SelectiveState {
    /// Ranges above `snd_una` the receiver reported holding.
    pub(super) scoreboard: Reassembly,
    pub(super) log: VecDeque<Sent>,
    /// The log's marks counted as Linux counts its queue's (`recovery/flight.rs`): changed with
    /// every entry and mark, so that SetPipe and "some segment is lost" need no walk.
    pub(super) flight: super::recovery::Flight,
    /// RACK (`rack-tlp = on`): how far the log is in send order (`recovery/send_order.rs`).
    pub(super) send_order: super::recovery::SendOrder,
    /// SACK: in scoreboard recovery.
    pub(super) recovery: bool,
    /// SACK: estimate of the segments in the network (Fall and Floyd's `pipe`).
    pub(super) pipe: i64,
    /// SACK: end of the highest hole resent in this recovery.
    pub(super) high_rxt: Seq,
    /// SMART: smoothed RTT from ACKs that name segments sent once, in nanoseconds (gain 1/8).
    pub(super) srtt: Option<Time>,
    /// RFC 6675 with PRR: the recovery's state (`recovery/scoreboard.rs`).
    pub(super) rfc6675: super::recovery::Rfc6675,
    /// RACK-TLP (`rack-tlp = on`): RACK's state (`recovery/rack.rs`), TLP's
    /// (`recovery/tlp.rs`), and their timer, which Linux runs in place of the RTO.
    pub(super) rack: super::recovery::Rack,
    pub(super) tlp: super::recovery::Tlp,
    pub(super) early_timer: Option<(Time, super::recovery::EarlyTimer)>,
}

impl SelectiveState {
    /// After a timeout everything from `snd_una` is resent anyway: start afresh.
    pub(super) fn on_timeout(&mut self) {
        self.recovery = false;
        self.pipe = 0;
        self.scoreboard = Reassembly::default();
    }

    pub(super) fn covered(&self, s: &Sent) -> bool {
        self.holds(s.seq, s.end())
    }

    /// The receiver reported holding all of `[seq, end)`.
    pub(super) fn holds(&self, seq: Seq, end: Seq) -> bool {
        self.scoreboard
            .ranges()
            .iter()
            .any(|&(a, b)| a.le(seq) && end.le(b))
    }

    /// Highest byte the receiver reported holding.
    fn highest_reported(&self) -> Option<Seq> {
        self.scoreboard.ranges().last().map(|r| r.1)
    }

    /// The segment to resend from `at` (`snd_una`, or `high_rxt`): the one logged there if there is
    /// one, else the rest of the logged segment that holds `at`.
    ///
    /// The log is in sequence order but its entries may overlap and need not start at `at`: a
    /// segment is logged as it is first sent, and a timeout's go-back-N resends from `snd_una`
    /// with lengths that follow cwnd (`min(sb_cc, win) - off`, Lite2 tcp_output.c), so after it
    /// the log holds both the original segments and resends with other boundaries, and the
    /// receiver's cumulative ACK may end inside a logged segment. `None` only if no logged
    /// segment holds `at` (e.g. only a persist probe's byte is outstanding).
    pub(super) fn segment_at(&self, at: Seq) -> Option<(Seq, u32)> {
        let live = |s: &&Sent| s.end().gt(at);
        let exact = self.log.iter().filter(live).find(|s| s.seq == at);
        let holding = || self.log.iter().filter(live).find(|s| s.seq.le(at));
        exact.or_else(holding).map(|s| (at, s.end().since(at)))
    }

    /// SACK: the next hole to resend, as `(seq, len)`: the first logged segment from `high_rxt`
    /// on, below the highest byte reported, that the receiver does not hold (Fall and Floyd's
    /// scoreboard; RFC 6675's NextSeg (1): the lowest byte not SACKed, above HighRxt, below the
    /// highest SACKed byte). It starts at `high_rxt` itself when a logged segment holds that byte
    /// ([`SelectiveState::segment_at`]): after a partial ACK `high_rxt` is `snd_una`, which may lie
    /// inside a segment resent with other boundaries.
    pub(super) fn next_hole(&self) -> Option<(Seq, u32)> {
        let highest = self.highest_reported()?;
        let lost =
            |&(seq, len): &(Seq, u32)| (seq + len).le(highest) && !self.holds(seq, seq + len);
        self.segment_at(self.high_rxt).filter(lost).or_else(|| {
            self.log
                .iter()
                .filter(|r| r.seq.ge(self.high_rxt))
                .map(|r| (r.seq, r.len))
                .find(lost)
        })
    }
}

impl SelectiveState {
    /// RACK: each logged segment the scoreboard now holds from `ack` on and did not before is
    /// delivered (`tcp_sacktag_one()` calls `tcp_rack_advance()`); a SACKed segment is no
    /// longer lost. Runs before the log drops what `ack` covers (`rack_sacked_first`), whose
    /// segments it passes over: they are delivered cumulatively.
    ///
    /// `rack_sacked_first`: Linux's `tcp_ack()` (net/ipv4/tcp_input.c) tags the SACK blocks
    /// (`tcp_sacktag_write_queue()`) before it cleans what the ACK moved `snd_una` past
    /// (`tcp_clean_rtx_queue()`), and `tcp_rack_advance()` (net/ipv4/tcp_recovery.c) sets
    /// `rack.rtt_us` on each call, so an ACK that does both leaves RACK.rtt the RTT of the
    /// highest segment it cumulatively ACKed, not of the newest one SACKed (RFC 8985 section
    /// 6.2 step 2 takes them in send order instead). That RTT is the longer: the holes sent
    /// after it are then marked lost later (a local repair's partial ACK pushes RACK's
    /// deadline for every hole above it).
    fn rack_note_sacked(&mut self, now: Time, ack: Seq, prior_fack: Option<Seq>) {
        if self.scoreboard.is_empty() {
            // nothing is held above `ack`, so nothing is newly SACKed (most ACKs): the walk
            // over the log is skipped (docs/speed.md, issue 50)
            return;
        }
        let SelectiveState {
            scoreboard,
            log,
            flight,
            rack,
            ..
        } = self;
        let Some(&(_, highest)) = scoreboard.ranges().last() else {
            return;
        };
        // the log is in sequence order: from the first entry starting at or above the highest
        // octet held, none is held (most of the window sent in recovery)
        let held = |s: &&mut Sent| s.seq.lt(highest);
        let cumulative = |s: &&mut Sent| s.end().le(ack);
        for s in log
            .iter_mut()
            .skip_while(cumulative)
            .take_while(held)
            .filter(|s| !s.sacked)
        {
            let (a, e) = (s.seq.max(ack), s.end());
            if scoreboard.ranges().iter().any(|&(x, y)| x.le(a) && e.le(y)) {
                // tcp_sacktag_one(): neither lost nor a resend in flight any more
                flight.remark(s, |s| {
                    s.sacked = true;
                    s.lost = false;
                    s.retrans = false;
                });
                // tcp_sacktag_one(): no test of the TSecr on the SACK path
                rack.delivered(now, s, prior_fack, false);
            }
        }
    }
}

impl Tcp {
    fn selective(&self) -> Selective {
        self.cfg.policy.selective
    }

    /// The receiver's SACK blocks: a DSACK first if one is due (RFC 2883 section 4, `dsack.rs`;
    /// reported once), then the block holding the segment that arrived last, then the others,
    /// highest first (RFC 2018 section 4).
    /// `TODAY`: the path of `output.rs` (DSACK is one of today's details, `dsack.rs`).
    pub(super) fn sack_blocks<const TODAY: bool>(&mut self) -> SackBlocks {
        let mut b = SackBlocks::default();
        if !self.cfg.receiver.sack_blocks {
            return b;
        }
        if TODAY {
            if let Some((start, end)) = self.take_dsack() {
                b.push(start, end);
            }
        }
        let ranges = self.reass.ranges();
        let recent = self
            .last_rcvd_seq
            .and_then(|s| ranges.iter().position(|&(a, e)| a.le(s) && s.lt(e)));
        if let Some(i) = recent {
            b.push(ranges[i].0, ranges[i].1);
        }
        for (i, &(a, e)) in ranges.iter().enumerate().rev() {
            if Some(i) != recent {
                b.push(a, e);
            }
        }
        b
    }

    /// Records a data segment as it goes out. A segment below `snd_max` that the log does not hold
    /// is entered in sequence order: after a refused window probe `snd_max` is `snd_una + 1`, so the
    /// first segment into the reopened window counts as a retransmission (as in BSD) although
    /// nothing of it but the probe byte was ever sent. Probes themselves are not entered.
    /// `TODAY`: the path of `output.rs` (RACK-TLP is one of today's details).
    pub(super) fn log_sent<const TODAY: bool>(
        &mut self,
        now: Time,
        seq: Seq,
        len: u32,
        kind: TxKind,
    ) {
        if self.selective() == Selective::None || len == 0 {
            return;
        }
        let sent = Sent {
            seq,
            len,
            last_tx: now,
            rexmits: 0,
            sacked: false,
            lost: false,
            retrans: false,
        };
        let sel = &mut self.sel;
        if kind == TxKind::New {
            sel.flight.enter(&sent);
            sel.log.push_back(sent);
        } else if let Some(s) = sel.log.iter_mut().find(|s| s.seq == seq) {
            s.last_tx = now;
            s.rexmits += 1;
            sel.flight.remark(s, |s| s.lost = false);
        } else if kind != TxKind::PersistProbe {
            let at = sel.log.partition_point(|s| s.seq.lt(seq));
            sel.flight.enter(&sent);
            sel.log.insert(at, sent);
        } else {
            return;
        }
        if TODAY && kind != TxKind::New && self.cfg.host.rack_tlp {
            self.sel.send_order.sent_out_of_order(seq);
        }
    }

    /// Updates the scoreboard from any ACK (duplicate or new). Inlined down to the policy check
    /// and the short cut below: it runs on every ACK, and without a selective policy, or with
    /// nothing logged, held or SACKed, there is little to do.
    #[inline(always)]
    pub(super) fn selective_on_ack(&mut self, now: Time, seg: &Segment) {
        if self.selective() == Selective::None {
            return;
        }
        if self.sel.log.is_empty() && self.sel.scoreboard.is_empty() && seg.sack.is_empty() {
            // nothing logged, held or SACKed (a receiver's ACK field on every data segment it
            // gets): of the update only DeliveredData's change_in(snd.una) is left, as
            // `selective_on_ack_logged` computes it, without its call (issue 50)
            let ack = seg.ack.max(self.snd_una);
            let rfc = &mut self.sel.rfc6675;
            rfc.delivered = ack.since(self.snd_una);
            rfc.una_advanced = rfc.delivered > 0;
            rfc.newly_lost = 0;
            return;
        }
        self.selective_on_ack_logged(now, seg);
    }

    #[inline(never)]
    fn selective_on_ack_logged(&mut self, now: Time, seg: &Segment) {
        let mode = self.selective();
        let ack = seg.ack.max(self.snd_una);
        let sacked_before = self.sel.scoreboard.bytes();
        let rack = self.cfg.host.rack_tlp && mode == Selective::Sack;
        let prior_fack = self.sel.scoreboard.ranges().last().map(|r| r.1);
        if rack {
            // RACK is told of the SACKed segments first, then of those the ACK moved snd_una
            // past, so RACK.rtt ends as the last cumulatively ACKed one's (`rack_sacked_first`)
            self.sack_blocks_in(seg, ack);
            let _ = self.sel.scoreboard.take_in_order(ack);
            self.sel.rack_note_sacked(now, ack, prior_fack);
        }
        while self.sel.log.front().is_some_and(|s| s.end().le(ack)) {
            if let Some(s) = self.sel.log.pop_front() {
                self.sel.flight.leave(&s);
                if rack && !s.sacked {
                    let earlier_copy = self.acks_earlier_copy(seg, &s);
                    self.sel.rack.delivered(now, &s, prior_fack, earlier_copy);
                }
            }
        }
        match mode {
            Selective::Sack if rack => {} // taken above
            Selective::Sack => self.sack_blocks_in(seg, ack),
            Selective::Smart => {
                if let Some(s) = seg.smart {
                    if let Some(rec) = self.sel.log.iter().find(|r| r.seq == s).copied() {
                        if rec.rexmits == 0 {
                            let sample = now.saturating_sub(rec.last_tx);
                            self.sel.srtt = Some(match self.sel.srtt {
                                None => sample,
                                Some(v) if sample >= v => v + (sample - v) / 8,
                                Some(v) => v - (v - sample) / 8,
                            });
                        }
                        if rec.end().gt(ack) {
                            self.sel.scoreboard.insert(rec.seq.max(ack), rec.end());
                        }
                    }
                }
            }
            Selective::None => {}
        }
        let _ = self.sel.scoreboard.take_in_order(ack);
        // RFC 6937's DeliveredData: change_in(snd.una) + change_in(SACKd)
        let delivered = i64::from(ack.since(self.snd_una)) + i64::from(self.sel.scoreboard.bytes())
            - i64::from(sacked_before);
        let rfc = &mut self.sel.rfc6675;
        rfc.delivered = delivered.clamp(0, i64::from(u32::MAX)) as u32;
        rfc.una_advanced = ack.gt(self.snd_una);
        rfc.newly_lost = 0;
    }

    /// The ACK's SACK blocks above `ack` into the scoreboard.
    fn sack_blocks_in(&mut self, seg: &Segment, ack: Seq) {
        for (a, e) in seg.sack.iter() {
            if e.gt(ack) {
                self.sel.scoreboard.insert(a.max(ack), e);
            }
        }
    }

    /// The bytes the ACK being processed newly delivered, of which `acked` moved `snd_una`:
    /// with SACK, RFC 6937's DeliveredData as [`Tcp::selective_on_ack`] took it (what was SACKed
    /// below the ACK before it is not delivered again: Linux's `tcp_newly_delivered`); without,
    /// `acked`.
    pub(super) fn newly_delivered(&self, acked: u32) -> u32 {
        match self.selective() {
            Selective::None => acked,
            Selective::Sack | Selective::Smart => self.sel.rfc6675.delivered,
        }
    }

    /// Sends exactly the segment `[seq, seq + len)` again.
    pub(super) fn send_exact(&mut self, now: Time, seq: Seq, len: u32, cause: TxKind) {
        let saved = self.snd_nxt;
        self.snd_nxt = seq;
        self.rexmt_cause = cause;
        self.send_segment(now, Flags::ACK, len, self.buffer_end());
        self.tlp_after_write(now);
        if saved.gt(self.snd_nxt) {
            self.snd_nxt = saved;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sent(seq: u32, len: u32) -> Sent {
        Sent::once(seq, len, 0)
    }

    /// The segment at `snd_una`: the one logged there, else the rest of the one holding it.
    #[test]
    fn segment_at_snd_una_with_overlapping_boundaries() {
        let mut st = SelectiveState::default();
        // originals [1000, 2000), [2000, 3000); a resend [1633, 2633) straddling 2000
        st.log
            .extend([sent(1000, 1000), sent(1633, 1000), sent(2000, 1000)]);
        assert_eq!(st.segment_at(Seq(2000)), Some((Seq(2000), 1000)));
        assert_eq!(st.segment_at(Seq(1000)), Some((Seq(1000), 1000)));
        // no segment starts at 2500: the rest of the first one that holds it
        assert_eq!(st.segment_at(Seq(2500)), Some((Seq(2500), 133)));
        assert_eq!(st.segment_at(Seq(3000)), None);
    }

    /// [`Tcp::selective_on_ack`]'s short cut (nothing logged, held or SACKed) leaves the TCP
    /// as the full update leaves it, DeliveredData included, whatever DeliveredData was: a
    /// sink's first data segment (its ACK field one octet beyond `snd_una`, the SYN-ACK's),
    /// then the next (at `snd_una`), and a sender's ACK at `snd_una` with nothing logged.
    #[test]
    fn empty_scoreboard_short_cut_is_the_full_update() {
        use super::super::tests::{ack_to_sender, data_to_sink, established_with};
        let sack = crate::tcp::RecoveryPolicy::SACK;
        let (_, mut r) = established_with(64 * 1024, 10_000, sack);
        let (s, _) = established_with(64 * 1024, 0, sack);
        r.cfg.policy = sack; // the sink's selective policy: SACK too
        let first = data_to_sink(&r, 0, 1000);
        let mut after = r.clone();
        after.on_segment(0, &first);
        let next = data_to_sink(&after, 1000, 1000);
        let ack = ack_to_sender(&s, s.snd_una, 65535);
        for (tcp, seg, delivered) in [(&r, &first, 1), (&after, &next, 0), (&s, &ack, 0)] {
            assert!(tcp.sel.log.is_empty() && tcp.sel.scoreboard.is_empty());
            for before in [0, 7] {
                let mut short = tcp.clone();
                short.sel.rfc6675.delivered = before;
                let mut full = short.clone();
                short.selective_on_ack(0, seg);
                full.selective_on_ack_logged(0, seg);
                assert_eq!(format!("{short:?}"), format!("{full:?}"), "{seg:?}");
                assert_eq!(short.sel.rfc6675.delivered, delivered);
            }
        }
    }
}
