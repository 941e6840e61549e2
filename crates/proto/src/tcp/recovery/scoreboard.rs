//! RFC 6675 section 4's scoreboard routines, `IsLost`, `SetPipe` and `NextSeg`, over the SACK
//! sender's scoreboard and send log (`selective.rs`; its `Update` is `selective_on_ack`), and
//! the state of an RFC 6675 recovery (`rfc6675.rs` drives them).
//!
//! In bytes, as the RFC; a segment is the send log's (at most one SMSS, sent as one), so
//! "the segment starting at S" is the logged segment holding S, from S on.

use super::super::selective::{SelectiveState, Sent};
use super::prr::{Prr, PrrAck};
use crate::seq::Seq;
use crate::time::Time;

/// Where an RFC 6675 sender stands, as Linux names its `icsk_ca_state`s.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(in crate::tcp) enum Phase {
    /// No recovery (Linux's `TCP_CA_Open` and `TCP_CA_Disorder`).
    #[default]
    Open,
    /// RFC 6675 section 5's loss recovery with PRR (`TCP_CA_Recovery`).
    Recovery,
    /// After a retransmission timeout, until the ACK reaches RecoveryPoint (RFC 6675 section
    /// 5.1; Linux's `TCP_CA_Loss`, `tcp_enter_loss()`): segments not SACKed are marked lost (a
    /// RACK sender's: the head and those not sent within RACK.rtt, `rack_timeout_mark_lost`) and
    /// resent in order by the slow-start window, and no recovery starts.
    Loss,
}

/// The state of an RFC 6675 sender's recovery beyond Fall and Floyd's (`high_rxt` is shared
/// with it: RFC 6675's HighRxt, one past the highest octet retransmitted).
#[derive(Clone, Copy, Debug, Default)]
pub(in crate::tcp) struct Rfc6675 {
    pub(in crate::tcp) phase: Phase,
    /// RecoveryPoint: one past HighData when the recovery (or the timeout) began; the recovery
    /// ends on a cumulative ACK at or above it.
    pub(in crate::tcp) recovery_point: Option<Seq>,
    /// RescueRxt (NextSeg rule 4), one past the octet it names; `None` while undefined.
    pub(in crate::tcp) rescue_rxt: Option<Seq>,
    /// After a timeout, every octet below this that is not SACKed is lost (Linux's
    /// `tcp_timeout_mark_lost()` marks each such segment `TCPCB_LOST`); not set for a RACK
    /// sender, whose timeout marks segment by segment (`rack_timeout_mark_lost`).
    pub(in crate::tcp) lost_below: Option<Seq>,
    /// RFC 6675's `pipe`, in bytes: SetPipe at each ACK, plus what was sent since (step C.4).
    pub(in crate::tcp) pipe: u32,
    pub(in crate::tcp) prr: Prr,
    /// DeliveredData of the ACK being processed (RFC 6937): the change in `snd_una` plus the
    /// change in SACKed bytes, set by `selective_on_ack`.
    pub(in crate::tcp) delivered: u32,
    /// Whether the ACK being processed moved `snd_una` (Linux's `FLAG_SND_UNA_ADVANCED`), set
    /// by `selective_on_ack`.
    pub(in crate::tcp) una_advanced: bool,
    /// Segments the ACK being processed marked lost (Linux's `rs->losses`): RACK's marks
    /// (`Tcp::rack_mark_lost`), 0 from `selective_on_ack` on.
    pub(in crate::tcp) newly_lost: u32,
}

impl Rfc6675 {
    /// What the ACK being processed tells PRR (`prr.rs`).
    pub(in crate::tcp) fn prr_ack(&self) -> PrrAck {
        PrrAck {
            delivered: self.delivered,
            una_advanced: self.una_advanced,
            newly_lost: self.newly_lost,
        }
    }
}

/// Which of NextSeg's rules chose a segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::tcp) enum Rule {
    /// (1) the lowest lost octet above HighRxt, below the highest SACKed octet.
    Lost,
    /// (2) new data, as much as one SMSS, the window and the send buffer allow.
    NewData,
    /// (3) the lowest octet not SACKed above HighRxt, below the highest SACKed octet.
    NotSacked,
    /// (4) the rescue retransmission: the segment holding the highest outstanding octet not
    /// SACKed, once per recovery.
    Rescue,
}

/// What NextSeg may use besides the scoreboard.
#[derive(Clone, Copy, Debug)]
pub(in crate::tcp) struct NextSegInput {
    /// HighACK + 1: `snd_una`.
    pub(in crate::tcp) una: Seq,
    /// HighData + 1: `snd_max`, where new data starts.
    pub(in crate::tcp) high_data: Seq,
    pub(in crate::tcp) mss: u32,
    /// IsLost's DupThresh; `None` for a RACK sender ([`Tcp::is_lost_thresh`]).
    pub(in crate::tcp) dup_thresh: Option<u32>,
    /// The bytes of new data rule (2) may send now: 0 if none.
    pub(in crate::tcp) new_data: u32,
    /// Rules (3) and (4) may send: they belong to the loss recovery of section 5, not to the
    /// retransmissions after a timeout, and a host whose `next-seg` is `linux-lost-only` never
    /// sends them (Linux's `tcp_xmit_retransmit_queue()` resends only segments marked lost,
    /// then new data).
    pub(in crate::tcp) unmarked_holes: bool,
}

impl SelectiveState {
    /// The state of an RFC 6675 sender.
    pub(in crate::tcp) fn rfc(&self) -> &Rfc6675 {
        &self.rfc6675
    }

    /// IsLost(SeqNum) (RFC 6675 section 4): true when DupThresh discontiguous SACKed sequences
    /// have arrived above `seq` (read as DupThresh logged segments SACKed above it, the reading
    /// of ns-3's and INET's `IsLost`), or more than (DupThresh - 1) * SMSS bytes above it are
    /// SACKed; or, after a timeout, when `seq` lies below the mark of `tcp_timeout_mark_lost()`.
    /// `seq` is an octet not SACKed.
    ///
    /// Linux marks losses otherwise: by RACK (RFC 8985, `tcp_rack_mark_lost()`,
    /// net/ipv4/tcp_recovery.c) by default, and with RACK off by `tcp_mark_head_lost()`, which
    /// counts SACKed segments from the head against `tp->reordering` (FACK, which counted from
    /// the highest SACKed segment, was removed in 4.15). RACK is `rack.rs`, and a RACK sender
    /// asks no IsLost (`Tcp::is_lost_thresh`); `tcp_mark_head_lost()` is not modelled.
    pub(in crate::tcp) fn is_lost(&self, seq: Seq, mss: u32, dup_thresh: u32) -> bool {
        self.loss_test(mss, Some(dup_thresh)).is_lost(seq)
    }

    /// IsLost's counts taken once, for the many octets SetPipe and NextSeg ask about on one
    /// ACK (each asking recounted the whole log: a walk per hole, so the square of the window
    /// per ACK; docs/speed.md, issue 50). With no DupThresh (a RACK sender) only the timeout's
    /// mark counts.
    fn loss_test(&self, mss: u32, dup_thresh: Option<u32>) -> LossTest<'_> {
        LossTest {
            st: self,
            kth_covered: dup_thresh.and_then(|k| self.kth_highest_covered(k as usize)),
            mss,
            dup_thresh,
        }
    }

    /// The `k`-th highest start of a logged segment the receiver holds whole (`None` when
    /// fewer are held, or `k` is 0): IsLost's count of such segments above an octet reaches `k`
    /// exactly when this lies above it (the log's segments lie within one window, where
    /// sequence order is a total order). The log is in sequence order (`log_sent`), so it is
    /// walked from its end and the walk stops at the `k`-th segment held (docs/speed.md).
    fn kth_highest_covered(&self, k: usize) -> Option<Seq> {
        let nth = k.checked_sub(1)?;
        let covered = self.log.iter().rev().filter(|s| self.covered(s));
        covered.map(|s| s.seq).nth(nth)
    }

    /// The outstanding segments from `una`: each logged segment's part at or above it, with
    /// whether the receiver reported holding all of it.
    fn outstanding(&self, una: Seq) -> impl Iterator<Item = (Seq, Seq, bool)> + '_ {
        self.log.iter().filter_map(move |s| {
            let start = s.seq.max(una);
            let end = s.end();
            end.gt(start).then(|| (start, end, self.holds(start, end)))
        })
    }

    /// The first segment from `una` marked lost and not resent since (by RACK, `rack.rs`, or
    /// for a RACK sender by a timeout, [`SelectiveState::rack_timeout_mark_lost`]), as
    /// `(seq, len)`: NextSeg's rule (1) resends it first, below HighRxt too, as Linux's
    /// `tcp_xmit_retransmit_queue()` walks from the head resending every segment marked
    /// `TCPCB_LOST` without `TCPCB_SACKED_RETRANS`.
    fn rack_lost(&self, una: Seq) -> Option<(Seq, u32)> {
        self.log
            .iter()
            .filter(|s| s.lost && s.end().gt(una))
            .map(|s| (s.seq.max(una), s.end().since(s.seq.max(una))))
            .find(|&(start, len)| !self.holds(start, start + len))
    }

    /// The segment holding `seq` was resent by NextSeg (`tcp_retransmit_skb()` sets
    /// `TCPCB_RETRANS`): no longer lost-and-waiting, and in flight as a resend until marked lost
    /// again, SACKed or acknowledged. (The log's own entry is cleared of `lost` by `log_sent`
    /// only when the resend starts where it does.)
    pub(in crate::tcp) fn rack_resent(&mut self, seq: Seq) {
        // the log is in sequence order: none starting above `seq` holds it
        for s in self.log.iter_mut().take_while(|s| s.seq.le(seq)) {
            if seq.lt(s.end()) {
                self.flight.remark(s, |s| {
                    s.lost = false;
                    s.retrans = true;
                });
            }
        }
    }

    /// `tcp_timeout_mark_lost()` (net/ipv4/tcp_input.c) for a RACK sender, at a retransmission
    /// timeout at `now`: the head (the segment at `una`) and every other segment not SACKed
    /// whose RACK timeout with no reordering window has passed (`tcp_rack_skb_timeout(tp, skb,
    /// 0) > 0` skips it: "Don't mark recently sent ones lost yet", sent less than RACK.rtt ago)
    /// are marked lost, a resend in flight among them lost again (`Sent::mark_lost`). NextSeg's
    /// rule (1) then resends them from the head, in sequence order, as `tcp_retransmit_timer()`
    /// resends `tcp_rtx_queue_head()` and `tcp_xmit_retransmit_queue()` the rest.
    pub(in crate::tcp) fn rack_timeout_mark_lost(&mut self, now: Time, una: Seq, rack_rtt: Time) {
        let SelectiveState {
            scoreboard,
            log,
            flight,
            ..
        } = self;
        let outstanding = log.iter_mut().filter(|s| s.end().gt(una));
        for (i, s) in outstanding.enumerate() {
            let (start, end) = (s.seq.max(una), s.end());
            let sacked = scoreboard
                .ranges()
                .iter()
                .any(|&(a, b)| a.le(start) && end.le(b));
            let recent = s.last_tx + rack_rtt > now;
            if !sacked && (i == 0 || !recent) {
                flight.remark(s, Sent::mark_lost);
            }
        }
    }

    /// A segment holding `start` is marked lost by RACK and not resent since: not in flight.
    fn rack_marked(&self, start: Seq) -> bool {
        self.log
            .iter()
            .any(|s| s.lost && s.seq.le(start) && start.lt(s.end()))
    }

    /// SetPipe() (RFC 6675 section 4): over the outstanding octets not SACKed, one for each not
    /// lost (IsLost false) and one more for each at or below HighRxt (retransmitted). By segment.
    ///
    /// A RACK sender (no `dup_thresh`) resends only segments marked lost, and Linux keeps
    /// `TCPCB_LOST` on a resent segment (`tcp_retransmit_skb()` adds `TCPCB_SACKED_RETRANS`):
    /// `tcp_packets_in_flight()` = packets_out - (sacked_out + lost_out) + retrans_out counts it
    /// once, so a resent segment (below HighRxt) counts as lost here, then as retransmitted.
    pub(in crate::tcp) fn set_pipe(&self, una: Seq, mss: u32, dup_thresh: Option<u32>) -> u32 {
        if dup_thresh.is_none() {
            return self.rack_pipe(una);
        }
        let loss = self.loss_test(mss, dup_thresh);
        // a segment marked by RACK is looked for only when some is (most ACKs have none)
        let any_marked = self.flight.any_lost();
        self.outstanding(una)
            .filter(|&(_, _, sacked)| !sacked)
            .map(|(start, end, _)| {
                let len = end.since(start);
                if any_marked && self.rack_marked(start) {
                    return 0;
                }
                let in_flight = if loss.is_lost(start) { 0 } else { len };
                let retransmitted = if start.lt(self.high_rxt) { len } else { 0 };
                in_flight + retransmitted
            })
            .sum()
    }

    /// SetPipe for a RACK sender ([`SelectiveState::set_pipe`]), by each segment's marks as
    /// Linux's `tcp_packets_in_flight()` = packets_out - (sacked_out + lost_out) + retrans_out
    /// counts: over the segments not SACKed, one for each not marked lost (`TCPCB_LOST`: `lost`,
    /// or a resend in flight, which keeps its mark) and one more for each resend in flight
    /// (`TCPCB_SACKED_RETRANS`, [`Sent::retrans`]). Not by HighRxt: a resend marked lost again
    /// (by RACK, or by a timeout, which sets HighRxt back to `snd_una`) is not in flight, and a
    /// segment below HighRxt never resent counts once. A reading: Linux's undo
    /// (`tcp_undo_cwnd_reduction()` with `unmark_loss`) clears `TCPCB_LOST` and keeps
    /// `TCPCB_SACKED_RETRANS`, so it counts such a resend twice; the model, whose `lost` is
    /// `TCPCB_LOST` without `TCPCB_SACKED_RETRANS`, counts it once.
    ///
    /// From Linux's counters as it keeps them (`flight.rs`), not by a walk: SACKed is a
    /// segment's mark (`TCPCB_SACKED_ACKED`, set by `rack_note_sacked` when the scoreboard
    /// holds it), which the scoreboard keeps holding while the receiver's reports agree with
    /// each other. Only the segments starting below `una` are walked: their part below it is
    /// not outstanding (Linux's `tcp_trim_head()`).
    fn rack_pipe(&self, una: Seq) -> u32 {
        self.flight.check(&self.log);
        let mut pipe = self.flight.unmarked_bytes();
        // the log is in sequence order: the segments starting below `una` come first
        for s in self.log.iter().take_while(|s| s.seq.lt(una)) {
            if !(s.sacked || s.lost) {
                // its part below `una`
                pipe -= u64::from(una.since(s.seq).min(s.len));
            }
        }
        #[cfg(test)]
        assert_eq!(
            pipe,
            self.rack_pipe_by_scoreboard(una),
            "SetPipe by counters"
        );
        u32::try_from(pipe).unwrap_or(u32::MAX)
    }

    /// SetPipe for a RACK sender by a walk over the log asking the scoreboard, as it was
    /// computed before the counters: the tests check that the counters give the same.
    #[cfg(test)]
    fn rack_pipe_by_scoreboard(&self, una: Seq) -> u64 {
        self.log
            .iter()
            .filter_map(|s| {
                let (start, end) = (s.seq.max(una), s.end());
                (end.gt(start) && !self.holds(start, end)).then_some((s, end.since(start)))
            })
            .map(|(s, len)| {
                let marked = s.lost || s.retrans;
                let in_flight = if marked { 0 } else { len };
                u64::from(in_flight + if s.retrans { len } else { 0 })
            })
            .sum()
    }

    /// NextSeg() (RFC 6675 section 4): the segment to send next, as `(seq, len, rule)`, its
    /// rules in their order. Rules (1) and (3) start above HighRxt: at `high_rxt` itself when a
    /// logged segment holds it, else at the next segment.
    pub(in crate::tcp) fn next_seg(&self, at: NextSegInput) -> Option<(Seq, u32, Rule)> {
        let highest_sacked = self.scoreboard.ranges().last().map(|r| r.1);
        let below_sacked = |s: Seq| highest_sacked.is_some_and(|h| s.lt(h));
        let from = at.una.max(self.high_rxt);
        let holes = || {
            self.outstanding(from)
                .filter(|&(_, _, sacked)| !sacked)
                .map(|(start, end, _)| (start, end.since(start)))
        };
        // (1) lost: marked by RACK (looked for only when some segment is: `flight.rs`); below
        // the highest SACKed octet and IsLost; after a timeout, marked lost
        let rack_lost = self.flight.any_lost().then(|| self.rack_lost(at.una));
        if let Some((s, len)) = rack_lost.flatten() {
            return Some((s, len, Rule::Lost));
        }
        // IsLost is asked only below the highest SACKed octet, so only when something is SACKed;
        // a RACK sender's is only the timeout's mark, so without it no hole is lost
        let may_be_lost = self.rfc6675.lost_below.is_some()
            || (at.dup_thresh.is_some() && highest_sacked.is_some());
        let lost = may_be_lost
            .then(|| {
                let loss = highest_sacked.map(|_| self.loss_test(at.mss, at.dup_thresh));
                holes().find(|&(s, _)| {
                    let marked = self.rfc6675.lost_below.is_some_and(|l| s.lt(l));
                    marked || (below_sacked(s) && loss.as_ref().is_some_and(|t| t.is_lost(s)))
                })
            })
            .flatten();
        if let Some((s, len)) = lost {
            return Some((s, len, Rule::Lost));
        }
        // (2) new data, if the window and the buffer allow
        if at.new_data > 0 {
            return Some((at.high_data, at.new_data, Rule::NewData));
        }
        if !at.unmarked_holes {
            return None;
        }
        // (3) not SACKed, below the highest SACKed octet, whether or not lost
        if let Some((s, len)) = holes().find(|&(s, _)| below_sacked(s)) {
            return Some((s, len, Rule::NotSacked));
        }
        // (4) the rescue: once HighACK passed RescueRxt (or it is undefined), the segment
        // holding the highest outstanding octet not SACKed
        let rescue_due = self.rfc6675.rescue_rxt.is_none_or(|r| at.una.gt(r));
        if rescue_due {
            let last = self
                .outstanding(at.una)
                .filter(|&(_, _, sacked)| !sacked)
                .last();
            if let Some((s, e, _)) = last {
                return Some((s, e.since(s), Rule::Rescue));
            }
        }
        None
    }
}

/// IsLost over one scoreboard ([`SelectiveState::is_lost`]), its segment count taken once.
struct LossTest<'a> {
    st: &'a SelectiveState,
    /// The DupThresh-th highest start of a logged segment the receiver holds whole; `None`
    /// when fewer are held (or DupThresh is 0).
    kth_covered: Option<Seq>,
    mss: u32,
    /// `None`: SACKed data marks nothing lost (a RACK sender).
    dup_thresh: Option<u32>,
}

impl LossTest<'_> {
    /// IsLost(`seq`), as [`SelectiveState::is_lost`] defines it.
    fn is_lost(&self, seq: Seq) -> bool {
        let st = self.st;
        if st.rfc6675.lost_below.is_some_and(|l| seq.lt(l)) {
            return true;
        }
        let Some(dup_thresh) = self.dup_thresh else {
            return false;
        };
        // "DupThresh discontiguous SACKed sequences" above `seq`
        if dup_thresh == 0 || self.kth_covered.is_some_and(|k| k.gt(seq)) {
            return true;
        }
        let bytes: u64 = st
            .scoreboard
            .ranges()
            .iter()
            .filter(|&&(_, e)| e.gt(seq))
            .map(|&(a, e)| u64::from(e.since(a.max(seq))))
            .sum();
        bytes > u64::from(dup_thresh.saturating_sub(1) * self.mss)
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::selective::Sent;
    use super::*;

    const MSS: u32 = 1000;

    /// A log of segments `(start, len)` and SACK blocks `[from, to)`, in bytes from 0.
    fn board(segments: &[(u32, u32)], sacked: &[(u32, u32)]) -> SelectiveState {
        let mut st = SelectiveState::default();
        for &(seq, len) in segments {
            st.log.push_back(Sent {
                seq: Seq(seq),
                len,
                last_tx: 0,
                rexmits: 0,
                sacked: false,
                lost: false,
                retrans: false,
            });
        }
        for &(a, b) in sacked {
            st.scoreboard.insert(Seq(a), Seq(b));
        }
        st
    }

    /// IsLost as the RFC words it, counting the log for the one octet asked about.
    fn is_lost_by_recount(st: &SelectiveState, seq: Seq, mss: u32, dup_thresh: u32) -> bool {
        if st.rfc6675.lost_below.is_some_and(|l| seq.lt(l)) {
            return true;
        }
        let segments = st
            .log
            .iter()
            .filter(|s| s.seq.gt(seq) && st.covered(s))
            .count();
        let bytes: u64 = st
            .scoreboard
            .ranges()
            .iter()
            .filter(|&&(_, e)| e.gt(seq))
            .map(|&(a, e)| u64::from(e.since(a.max(seq))))
            .sum();
        segments >= dup_thresh as usize || bytes > u64::from(dup_thresh.saturating_sub(1) * mss)
    }

    /// The counts taken once ([`LossTest`]) give IsLost's answer at every octet, whatever the
    /// threshold (the small array's and the vector's ways), segment sizes and SACK blocks, and
    /// across the sequence space's wrap.
    #[test]
    fn is_lost_taken_once_agrees_with_the_recount() {
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u32| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng % u64::from(n)) as u32
        };
        for round in 0..300 {
            let base = if round % 2 == 0 { 0 } else { u32::MAX - 20_000 };
            let mut segments = Vec::new();
            let mut at = 0;
            for _ in 0..1 + next(30) {
                let len = 1 + next(1500);
                segments.push((base.wrapping_add(at), len));
                at += len;
            }
            let mut st = board(&[], &[]);
            for &(seq, len) in &segments {
                st.log.push_back(Sent {
                    seq: Seq(seq),
                    len,
                    last_tx: 0,
                    rexmits: 0,
                    sacked: false,
                    lost: false,
                    retrans: false,
                });
            }
            for _ in 0..next(6) {
                let a = next(at.max(1));
                let b = a + 1 + next(6000);
                st.scoreboard
                    .insert(Seq(base.wrapping_add(a)), Seq(base.wrapping_add(b)));
            }
            for dup_thresh in 0..12 {
                let test = st.loss_test(MSS, Some(dup_thresh));
                for off in (0..at).step_by(97) {
                    let seq = Seq(base.wrapping_add(off));
                    assert_eq!(
                        test.is_lost(seq),
                        is_lost_by_recount(&st, seq, MSS, dup_thresh),
                        "round {round}, DupThresh {dup_thresh}, octet {off}"
                    );
                }
            }
        }
    }

    /// A RACK sender's SetPipe from the counters (`flight.rs`): the segment `snd_una` lies in
    /// counts from `snd_una` on, a SACKed one and one marked lost not at all, a resend in flight
    /// once; and as the walk over the scoreboard counts (`rack_pipe_by_scoreboard`).
    #[test]
    fn rack_pipe_from_the_counters_from_snd_una() {
        let mut st = board(&[(0, 1000), (1000, 1000), (2000, 1000), (3000, 1000)], &[]);
        st.scoreboard.insert(Seq(2000), Seq(3000));
        let SelectiveState { log, flight, .. } = &mut st;
        for s in log.iter() {
            flight.enter(s);
        }
        flight.remark(&mut log[1], Sent::mark_lost);
        flight.remark(&mut log[2], |s| s.sacked = true);
        flight.remark(&mut log[3], |s| s.retrans = true);
        assert_eq!(st.set_pipe(Seq(0), MSS, None), 2000);
        assert_eq!(
            st.set_pipe(Seq(500), MSS, None),
            1500,
            "half of the head is ACKed"
        );
        assert_eq!(st.set_pipe(Seq(1000), MSS, None), 1000);
    }

    /// IsLost's two tests, each alone: DupThresh segments SACKed above (three small ones, 1500
    /// bytes), or more than (DupThresh - 1) * SMSS bytes (two segments and half a third).
    #[test]
    fn is_lost_by_segments_or_by_bytes() {
        let small = board(
            &[(0, 500), (500, 500), (1000, 500), (1500, 500)],
            &[(500, 2000)],
        );
        assert!(small.is_lost(Seq(0), MSS, 3), "three segments above");
        let two = board(&[(0, 500), (500, 500), (1000, 500)], &[(500, 1500)]);
        assert!(!two.is_lost(Seq(0), MSS, 3), "two segments, 1000 bytes");
        let bytes = board(
            &[(0, 1000), (1000, 1000), (2000, 1000), (3000, 1000)],
            &[(1000, 3500)],
        );
        assert!(bytes.is_lost(Seq(0), MSS, 3), "2500 bytes > 2000");
        let exactly = board(&[(0, 1000), (1000, 1000), (2000, 1000)], &[(1000, 3000)]);
        assert!(
            !exactly.is_lost(Seq(0), MSS, 3),
            "2000 bytes is not more than 2000"
        );
        let mut marked = exactly.clone();
        marked.rfc6675.lost_below = Some(Seq(3000));
        assert!(marked.is_lost(Seq(0), MSS, 3), "marked lost by a timeout");
    }
}
