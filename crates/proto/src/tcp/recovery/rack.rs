//! RACK, the time-based loss detection of RFC 8985 (sections 6.1-6.3), as Linux 6.x runs it
//! (net/ipv4/tcp_recovery.c) for an RFC 6675 sender with the host detail `rack-tlp = on`: a
//! segment is lost once a segment sent after it was delivered and more than RACK.rtt + reo_wnd
//! has passed since it was sent. Its marks feed NextSeg's rule (1) (`scoreboard.rs`), so a lost
//! retransmission is resent without waiting for the retransmission timer; a mark in the open
//! state starts RFC 6675 recovery (Linux's `tcp_time_to_recover()` on `lost_out`). They are the
//! only marks besides a timeout's: no DupThresh count of duplicates and no IsLost for a RACK
//! sender (`Tcp::is_lost_thresh`, Linux since 4.18), so reordering seen keeps the window open.
//!
//! Readings, where the RFC leaves a detail open or the model departs from Linux:
//! - The transmit time of a segment is its send-log entry's `last_tx` (the skb timestamp, set
//!   again on every resend).
//! - `min_rtt` is Linux's `tcp_min_rtt()`: the smallest of every RTT sample the estimator takes
//!   (`tcp_update_rtt_min()`: the handshake's, each ACK's) and of RACK's own from segments sent
//!   once, over the whole connection (Linux's window is 300 s, `tcp_min_rtt_wlen`, longer than
//!   any run here). The handshake's counts: a SYN is smaller than a data segment, so on a path
//!   with slow hops it is the connection's minimum (122 ms against 135 on the WAN).
//! - Reordering (`rack.reord`) is seen when a segment sent once is delivered below the highest
//!   octet SACKed before the ACK (`tcp_check_sack_reordering()`), or when a partial ACK's undo
//!   shows the original filled the hole (`undo.rs`); DSACKs widen the window by
//!   `reo_wnd_steps` (`tcp_rack_update_reo_wnd()`, `dsack.rs`).
//!   Linux's `tp->reordering` (RFC 6675's DupThresh) is not raised by it.
//! - Loss is marked on every ACK RACK advanced on (Linux: on ACKs `tcp_ack_is_dubious()`).
//! - The reordering timer runs beside the retransmission timer; Linux holds one of them in
//!   `icsk_retransmit_timer`. It fires first (RACK.rtt + reo_wnd < RTO), and re-arms the RTO
//!   as `tcp_rearm_rto()` does with it pending: at the RTO's deadline from the head's last
//!   send (`tcp_rto_delta_us()`), a whole RTO from its expiry only if it resent the head.
//! - A mark starts recovery as RFC 6675's entry does, resending the segment at `snd_una` (section
//!   5 step 4.3) after PRR sized the entering ACK or timer for `prr = linux` (`prr.rs`:
//!   `tcp_rack_reo_timeout()` calls `tcp_cwnd_reduction()` before `tcp_xmit_retransmit_queue()`),
//!   before it for `rfc6937`; marks found by the reordering timer after a timeout are resent within
//!   the timeout's phase (Linux's `tcp_rack_reo_timeout()` calls `tcp_enter_recovery()` in
//!   `TCP_CA_Loss` too).

use super::super::selective::Sent;
use super::super::Tcp;
use super::scoreboard::Phase;
use crate::segment::Segment;
use crate::seq::Seq;
use crate::time::Time;

/// `TCP_TIMEOUT_MIN_US`: 2 ms (include/net/tcp.h), the floor added to the reordering timer
/// (`tcp_rack_mark_lost()`) and to TLP's probe timeout (`tcp_schedule_loss_probe()`) before
/// the sum is rounded up to jiffies. Since Linux 6.6 (commit 1c2709cfff1d, "tcp: fix excessive
/// TLP and RACK timeouts from HZ rounding"); before it both added `TCP_TIMEOUT_MIN`, 2 jiffies,
/// after the rounding: up to 8 ms more at `CONFIG_HZ` 250, where the kernel's timer and snoop's
/// local repair race (docs/kernel-check.md).
pub(in crate::tcp) const TCP_TIMEOUT_MIN_US: Time = 2 * crate::time::MS;

/// `tp->reordering`'s default, `sysctl_tcp_reordering` = `TCP_FASTRETRANS_THRESH` 3.
const TCP_FASTRETRANS_THRESH: usize = 3;

/// A timer Linux runs in `icsk_retransmit_timer` in place of the RTO (`icsk_pending`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::tcp) enum EarlyTimer {
    /// `ICSK_TIME_REO_TIMEOUT`: RACK's reordering timer.
    Reo,
    /// `ICSK_TIME_LOSS_PROBE`: TLP's probe timeout (`tlp.rs`).
    Probe,
}

/// RACK's state (`struct tcp_sock`'s `rack`).
#[derive(Clone, Copy, Debug, Default)]
pub(in crate::tcp) struct Rack {
    /// RACK.xmit_ts and RACK.end_seq: the most recently sent segment delivered so far.
    pub(in crate::tcp) xmit_ts: Option<Time>,
    end_seq: Seq,
    /// RACK.rtt: the RTT of that segment's delivery.
    pub(in crate::tcp) rtt: Time,
    /// `rack.advanced`: RACK moved since loss was last looked for.
    advanced: bool,
    pub(in crate::tcp) min_rtt: Option<Time>,
    /// `rack.reord`: reordering was seen.
    pub(in crate::tcp) reord: bool,
}

/// `tcp_skb_sent_after()`: `(t1, seq1)` was sent after `(t2, seq2)` (the later sequence breaks
/// a tie, RFC 8985 section 6.2 step 2).
fn sent_after(t1: Time, seq1: Seq, t2: Time, seq2: Seq) -> bool {
    t1 > t2 || (t1 == t2 && seq1.gt(seq2))
}

impl Rack {
    /// `tcp_update_rtt_min()` (net/ipv4/tcp_input.c), called from `tcp_ack_update_rtt()` with
    /// every sample Linux's estimator takes, the handshake's included: min_rtt falls to `rtt`;
    /// a sample of 0 counts as one jiffy (`rtt_us ? : jiffies_to_usecs(1)`).
    pub(in crate::tcp) fn estimator_sample(&mut self, rtt: Time, jiffy: Time) {
        let rtt = if rtt == 0 { jiffy } else { rtt };
        self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
    }

    /// A segment newly delivered (cumulatively ACKed or SACKed, not SACKed before):
    /// reordering if it was sent once and lies below `prior_fack`, the highest octet SACKed
    /// before this ACK; then `tcp_rack_advance()` (RFC 8985 section 6.2 step 2), unless
    /// `earlier_copy`: the cumulative ACK answers an earlier copy of a resent segment
    /// ([`Tcp::acks_earlier_copy`]).
    pub(in crate::tcp) fn delivered(
        &mut self,
        now: Time,
        s: &Sent,
        prior_fack: Option<Seq>,
        earlier_copy: bool,
    ) {
        if s.rexmits == 0 && prior_fack.is_some_and(|f| s.seq.lt(f)) {
            self.reord = true;
        }
        if earlier_copy {
            return;
        }
        let rtt = now.saturating_sub(s.last_tx);
        if s.rexmits > 0 {
            // the ACK may be the original's: a sample below min_rtt is not this resend's
            if self.min_rtt.is_none_or(|m| rtt < m) {
                return;
            }
        } else {
            self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
        }
        self.advanced = true;
        self.rtt = rtt;
        let newer = self
            .xmit_ts
            .is_none_or(|t| sent_after(s.last_tx, s.end(), t, self.end_seq));
        if newer {
            self.xmit_ts = Some(s.last_tx);
            self.end_seq = s.end();
        }
    }
}

impl Tcp {
    /// `tcp_skb_spurious_retrans()` (net/ipv4/tcp_input.c): `s` was resent (`TCPCB_RETRANS`)
    /// and the ACK `seg` echoes a TS value before its last send (`tcp_tsopt_ecr_before()` on
    /// `tcp_skb_timestamp_ts()`), so the ACK answers an earlier copy: the original, or a copy a
    /// middlebox kept (snoop resends its cached copy with the original's TSval). Linux's
    /// `tcp_clean_rtx_queue()` then does not advance RACK by the cumulatively ACKed segment: the
    /// resend's transmit time would make every segment sent before it look overtaken. Its SACK
    /// path (`tcp_sacktag_one()`) has no such test, only `tcp_rack_advance()`'s own (an RTT
    /// below min_rtt). Without timestamps (none on the ACK, or a TSecr of 0) it never holds.
    pub(in crate::tcp) fn acks_earlier_copy(&self, seg: &Segment, s: &Sent) -> bool {
        s.rexmits > 0 && super::super::rfc7323::tsecr_before(seg, self.ts_clock(s.last_tx))
    }

    /// RACK-TLP runs: the host says so and the sender runs RFC 6675 recovery on SACK.
    #[inline]
    pub(in crate::tcp) fn rack_tlp_on(&self) -> bool {
        self.cfg.host.rack_tlp && self.recovery() == super::Recovery::Rfc6675Prr
    }

    /// `tcp_rack_reo_wnd()` (RFC 8985 section 6.2 step 4): 0 while no reordering was seen and
    /// the sender is in recovery (or after a timeout) or DupThresh segments are SACKed; else
    /// min_rtt / 4 per step, at most srtt.
    pub(in crate::tcp) fn rack_reo_wnd(&self) -> Time {
        let rack = &self.sel.rack;
        if !rack.reord {
            if self.sel.rfc().phase != Phase::Open {
                return 0;
            }
            self.sel.flight.check(&self.sel.log);
            if self.sel.flight.sacked_segments() as usize >= TCP_FASTRETRANS_THRESH {
                return 0;
            }
        }
        let srtt = self.linux_rtt.as_ref().and_then(|l| l.srtt()).unwrap_or(0);
        rack.min_rtt
            .map_or(srtt, |m| (m / 4 * self.reo_wnd_steps()).min(srtt))
    }

    /// `tcp_rack_detect_loss()` (RFC 8985 section 6.2 step 5): every segment not SACKed, not
    /// already marked, sent before RACK.xmit_ts, is lost once RACK.rtt + reo_wnd has passed
    /// since it was sent; for the others, how long until the last of them would be. Returns
    /// (segments marked, that wait). As Linux's walk in send order stops at the first segment
    /// sent after RACK.xmit_ts, the walk stops where the rest of the log is in send order and
    /// sent after it.
    fn rack_detect_loss(&mut self, now: Time) -> (u32, Option<Time>) {
        let Some(xmit_ts) = self.sel.rack.xmit_ts else {
            return (0, None);
        };
        let (rack, una) = (self.sel.rack, self.snd_una);
        self.sel
            .send_order
            .log_starts_at(self.sel.log.front().map(|s| s.seq));
        let order = self.sel.send_order;
        // it and all after it were sent after RACK.xmit_ts (send_order.rs)
        let rest_later = |s: &Sent| s.last_tx > xmit_ts && order.in_send_order(s);
        let sent_before = |s: &Sent| {
            !(s.sacked || s.lost || s.end().le(una))
                && sent_after(xmit_ts, rack.end_seq, s.last_tx, s.end())
        };
        // the reordering window (a walk over the log) only when some segment needs it
        let first = self
            .sel
            .log
            .iter()
            .take_while(|s| !rest_later(s))
            .position(sent_before);
        let Some(first) = first else {
            return (0, None);
        };
        let reo_wnd = self.rack_reo_wnd();
        let (mut marked, mut wait) = (0, None::<Time>);
        let log = self.sel.log.iter_mut().skip(first);
        for s in log
            .take_while(|s| !rest_later(s))
            .filter(|s| sent_before(s))
        {
            let deadline = s.last_tx + rack.rtt + reo_wnd;
            if deadline <= now {
                self.sel.flight.remark(s, Sent::mark_lost); // resent by NextSeg rule (1)
                marked += 1;
            } else {
                wait = Some(wait.map_or(deadline - now, |w| w.max(deadline - now)));
            }
        }
        (marked, wait)
    }

    /// `tcp_rack_mark_lost()`, on an ACK: if RACK advanced, mark what is lost and arm the
    /// reordering timer for the rest: their wait plus `TCP_TIMEOUT_MIN_US`, in whole jiffies
    /// (`usecs_to_jiffies(timeout + TCP_TIMEOUT_MIN_US)`).
    /// Returns whether the timer was armed (Linux then leaves the RTO/TLP timer alone).
    pub(in crate::tcp) fn rack_mark_lost(&mut self, now: Time) -> bool {
        if !std::mem::take(&mut self.sel.rack.advanced) {
            return false;
        }
        let (marked, wait) = self.rack_detect_loss(now);
        self.sel.rfc6675.newly_lost = marked; // PRR's `rs->losses` (prr.rs)
        let Some(wait) = wait else {
            return false;
        };
        let clock = self.cfg.host.timer_clock;
        let at = clock.wheel_after(now, clock.to_jiffies(wait + TCP_TIMEOUT_MIN_US));
        self.sel.early_timer = Some((at, EarlyTimer::Reo));
        true
    }

    /// Some segment is marked lost by RACK and not yet resent (Linux's `tp->lost_out`, kept as
    /// a count: `flight.rs`).
    pub(in crate::tcp) fn rack_has_lost(&self) -> bool {
        self.sel.flight.check(&self.sel.log);
        self.sel.flight.any_lost()
    }

    /// `tcp_rack_reo_timeout()`: the reordering timer expired. Loss is looked for again; if
    /// some is found, recovery starts unless under way and the lost segments are resent
    /// (`tcp_xmit_retransmit_queue()`); the RTO is re-armed (`tcp_rearm_rto()` with the
    /// reordering timer pending: [`Tcp::rearm_rto_from_head`]).
    pub(in crate::tcp) fn rack_reo_timeout(&mut self, now: Time) {
        let (marked, _) = self.rack_detect_loss(now);
        if marked > 0 {
            match self.sel.rfc().phase {
                Phase::Open => {
                    // no ACK: `tcp_rack_reo_timeout()` calls `tcp_cwnd_reduction(sk, 1,
                    // tp->lost - lost, 0)`, one segment delivered, `snd_una` not advanced
                    let rfc = &mut self.sel.rfc6675;
                    rfc.delivered = self.maxseg;
                    rfc.una_advanced = false;
                    rfc.newly_lost = marked;
                    self.rfc6675_enter(now);
                }
                Phase::Recovery | Phase::Loss => self.rfc6675_resend_lost(now),
            }
        }
        if self.snd_max != self.snd_una && self.persist_at.is_none() {
            self.rearm_rto_from_head(now);
        }
    }
}
