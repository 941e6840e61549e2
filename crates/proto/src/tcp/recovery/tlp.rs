//! TLP, the tail loss probe of RFC 8985 (sections 7.2-7.4), as Linux 6.x runs it
//! (net/ipv4/tcp_output.c `tcp_schedule_loss_probe()`, `tcp_send_loss_probe()`; tcp_input.c
//! `tcp_process_tlp_ack()`) for an RFC 6675 sender with `rack-tlp = on`: when the ACKs stop
//! before the RTO, one segment is sent to draw an ACK whose SACK lets RACK repair the tail.
//!
//! Readings, where the model departs from Linux:
//! - The probe timer runs beside the retransmission timer (Linux holds one of them in
//!   `icsk_retransmit_timer`); it is capped by the RTO's deadline, and when it fires the RTO
//!   is re-armed from then if a probe went out, as `tcp_rearm_rto()` does with no timer
//!   pending, else kept at its deadline from the head's last send.
//! - Linux's CWR state is the open one here (no ECN); the model's receivers send no DSACK, so
//!   a probe that repeated a delivered segment is told apart only by a pure duplicate ACK.
//! - New data goes out as a probe when the peer's window holds any of it (Linux's
//!   `tcp_snd_wnd_test()` asks room for the whole next skb).

use super::super::{Tcp, TxKind};
use super::rack::{EarlyTimer, TCP_TIMEOUT_MIN_US};
use super::scoreboard::Phase;
use crate::seq::Seq;
use crate::time::Time;

/// TLP's state (`tp->tlp_high_seq`, `tp->tlp_retrans`).
#[derive(Clone, Copy, Debug, Default)]
pub(in crate::tcp) struct Tlp {
    /// TLPRxtOut's episode: `snd_nxt` when the probe went out; one probe per episode.
    pub(in crate::tcp) high_seq: Option<Seq>,
    /// The probe resent the last segment (not new data).
    retrans: bool,
    /// New data went out and its probe is not yet scheduled ([`Tcp::tlp_after_write`]); false
    /// between the TCP's calls.
    pub(in crate::tcp) due: bool,
    /// The wheel's expiry last computed for a PTO, `(now, pto, expiry)`: the ACK and the sends
    /// it releases schedule the same probe at one instant, so the wheel's arithmetic is done
    /// once (docs/speed.md, issue 50).
    wheel_memo: Option<(Time, Time, Time)>,
}

impl Tcp {
    /// `tcp_schedule_loss_probe()` (RFC 8985 section 7.2): with data outstanding, in Linux's
    /// `TCP_CA_Open` only (not in `Disorder`, which SACKed data outstanding makes it,
    /// `tcp_try_keep_open()`: there the reordering timer or the RTO stays; a reading: its other
    /// cause, a retransmission done, `tcp_any_retrans_done()`, is not asked), PTO = 2 x SRTT,
    /// plus `TCP_RTO_MIN` (the peer's delayed ACK) with one segment in flight or else 2 ms, 1 s
    /// without an RTT sample; no later than the RTO's deadline.
    pub(in crate::tcp) fn tlp_schedule(&mut self, now: Time) {
        if !self.rack_tlp_on()
            || self.snd_max == self.snd_una
            || self.sel.rfc().phase != Phase::Open
            || !self.sel.scoreboard.is_empty()
        {
            return;
        }
        let Some(l) = self.linux_rtt.as_ref() else {
            return;
        };
        let pto = match l.srtt() {
            Some(srtt) if self.sel.log.len() == 1 => 2 * srtt + l.rto_min(),
            Some(srtt) => 2 * srtt + TCP_TIMEOUT_MIN_US,
            None => super::super::TCP_TIMEOUT_INIT,
        };
        let mut at = match self.sel.tlp.wheel_memo {
            Some((t, p, at)) if t == now && p == pto => at,
            _ => {
                let clock = self.cfg.host.timer_clock;
                let at = clock.wheel_after(now, clock.to_jiffies(pto));
                self.sel.tlp.wheel_memo = Some((now, pto, at));
                at
            }
        };
        if let Some(rto) = self.rexmt_at {
            at = at.min(rto);
        }
        self.sel.early_timer = Some((at, EarlyTimer::Probe));
    }

    /// `tcp_schedule_loss_probe()` where new data went out since the last call
    /// ([`Tlp::due`], set by [`Tcp::send_segment`]): once after `tcp_output`'s loop, as
    /// `tcp_write_xmit()` calls it once after its own loop (net/ipv4/tcp_output.c), not once per
    /// segment; the other senders (a resend, the probe's own new data, NextSeg's) call it after
    /// their one segment. The same timer as per segment: nothing within the loop reads it or
    /// changes what it is computed from, so the last segment's schedule is the one that stays
    /// (docs/speed.md, issue 50, h31).
    #[inline(always)]
    pub(in crate::tcp) fn tlp_after_write(&mut self, now: Time) {
        if self.sel.tlp.due {
            self.sel.tlp.due = false;
            self.tlp_schedule(now);
        }
    }

    /// `tcp_send_loss_probe()` (RFC 8985 section 7.3): unless a probe is out, one segment of
    /// new data if the peer's window allows (beyond cwnd), else the last segment sent again;
    /// then `tcp_rearm_rto()`: from now once a probe went out (`icsk_pending = 0` "s.t.
    /// tcp_rearm_rto will restart timer from now"), else at the RTO's deadline from the head's
    /// last transmission ([`Tcp::rearm_rto_from_head`]).
    pub(in crate::tcp) fn tlp_send_probe(&mut self, now: Time) {
        let mut sent = false;
        if self.sel.tlp.high_seq.is_none() {
            let room = self.new_data_room();
            sent = if room > 0 {
                self.send_new_data(now, room);
                self.sel.tlp.retrans = false;
                true
            } else if let Some(last) = self.sel.log.back().copied() {
                let start = last.seq.max(self.snd_una);
                if last.end().gt(start) {
                    self.rfc6675_resend(
                        now,
                        start,
                        last.end().since(start),
                        TxKind::FastRetransmit,
                    );
                    self.sel.tlp.retrans = true;
                    true
                } else {
                    false
                }
            } else {
                false
            };
            if sent {
                self.sel.tlp.high_seq = Some(self.snd_max);
            }
        }
        // the probe's own send scheduled none: one per episode
        self.sel.early_timer = None;
        if self.snd_max != self.snd_una && self.persist_at.is_none() {
            if sent {
                self.arm_rexmt(now);
            } else {
                self.rearm_rto_from_head(now);
            }
        }
    }

    /// `tcp_process_tlp_ack()` (RFC 8985 section 7.4), on every ACK while a probe is out: an
    /// ACK at or past the probe ends the episode; one beyond it after a resent probe means the
    /// tail was lost and repaired by the probe, so the window is reduced as on a loss
    /// (`tcp_init_cwnd_reduction()` then `tcp_end_cwnd_reduction()`: cwnd = ssthresh); a pure
    /// duplicate ACK at it means original and probe both arrived.
    pub(in crate::tcp) fn tlp_on_ack(&mut self, ack: Seq, duplicate: bool) {
        let Some(high) = self.sel.tlp.high_seq else {
            return;
        };
        if ack.lt(high) {
            return;
        }
        if !self.sel.tlp.retrans {
            self.sel.tlp.high_seq = None;
        } else if ack.gt(high) {
            let flight = self.snd_max.since(self.snd_una);
            self.cc.on_prr_recovery_start(flight, self.maxseg);
            self.cc.on_scoreboard_recovery_end();
            self.sel.tlp.high_seq = None;
        } else if duplicate && self.sel.rfc().delivered == 0 {
            self.sel.tlp.high_seq = None;
        }
    }
}
