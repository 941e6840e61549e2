//! Linux's undo of a spurious congestion response, detected by timestamps (the Eifel detection
//! of RFC 3522): when an ACK echoes a TSecr older than the episode's first retransmission, the
//! original segment, not the resend, reached the receiver (a local repair such as snoop's, or a
//! delay), and the window reduction is taken back. Host detail `undo` (on in `linux` and
//! `linux-reno`), for an RFC 6675 sender with timestamps; functions of net/ipv4/tcp_input.c:
//! - `tcp_init_undo()`: on entering recovery (`tcp_enter_recovery()`) and on a timeout from
//!   Open (`tcp_enter_loss()`): `undo_marker = snd_una`, `prior_cwnd = cwnd`, `prior_ssthresh =
//!   tcp_current_ssthresh()`.
//! - `retrans_stamp`: the TS clock of the episode's first retransmission (`tcp_retransmit_skb()`
//!   sets it when zero). A reading: Linux zeroes it once no retransmission is outstanding in Open
//!   (`tcp_try_to_open()`); here it is cleared when an episode starts from Open.
//! - `tcp_packet_delayed()`: the ACK has a TSecr (non-zero) before `retrans_stamp`
//!   (`tcp_tsopt_ecr_before()`, wrapping compare). `tcp_may_undo()`: `undo_marker` set and (no
//!   retransmission left undetected by DSACK, or the packet delayed); DSACK undo is not modelled
//!   (the model's receivers send no DSACK), so only the timestamps decide.
//! - Undo points: `tcp_try_undo_recovery()` on the ACK that ends recovery,
//!   `tcp_try_undo_partial()` on a partial ACK when no retransmission is outstanding
//!   (`retrans_out == 0`), `tcp_try_undo_loss()` on an ACK advancing `snd_una` after a timeout
//!   (F-RTO is not modelled). Each ends the episode: back to Open.

use super::recovery::Phase;
use super::Tcp;
use crate::segment::Segment;
use crate::seq::Seq;
use crate::time::Time;

/// The undo state of one sender (`undo_marker`, `prior_cwnd`, `prior_ssthresh`, `retrans_stamp`).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Undo {
    marker: Option<Seq>,
    prior_cwnd: u32,
    prior_ssthresh: u32,
    retrans_stamp: Option<u32>,
}

impl Tcp {
    /// Whether this sender undoes: the host says so, it runs RFC 6675 and timestamps are on.
    fn undo_on(&self) -> bool {
        self.cfg.host.undo
            && self.ext.timestamps()
            && self.recovery() == super::recovery::Recovery::Rfc6675Prr
    }

    /// `tcp_init_undo()` with `prior_cwnd` and `prior_ssthresh`, before the window is reduced:
    /// on entering recovery, and on a timeout when no episode is going on (`tcp_enter_loss()`
    /// keeps the recovery's marks on a timeout within it).
    pub(super) fn undo_init(&mut self) {
        if !self.undo_on() || self.sel.rfc().phase != Phase::Open {
            return;
        }
        self.undo = Undo {
            marker: Some(self.snd_una),
            prior_cwnd: self.cc.cwnd(),
            prior_ssthresh: self.cc.current_ssthresh(),
            retrans_stamp: None,
        };
    }

    /// A data segment resent at `now`: the first of the episode sets `retrans_stamp`.
    pub(super) fn undo_note_retransmit(&mut self, now: Time) {
        if self.undo_on() && self.undo.retrans_stamp.is_none() {
            self.undo.retrans_stamp = Some(self.ts_clock(now));
        }
    }

    /// The phase an undo may end, before a new ACK is taken: recovery or a timeout's, with
    /// `undo_marker` set.
    pub(super) fn undo_phase(&self) -> Option<Phase> {
        let phase = self.sel.rfc().phase;
        (self.undo_on() && self.undo.marker.is_some() && phase != Phase::Open).then_some(phase)
    }

    /// `tcp_packet_delayed()`: the ACK echoes a TS value before the first retransmission.
    fn packet_delayed(&self, seg: &Segment) -> bool {
        let (Some(ts), Some(stamp)) = (seg.ts, self.undo.retrans_stamp) else {
            return false;
        };
        ts.ecr != 0 && (ts.ecr.wrapping_sub(stamp) as i32) < 0
    }

    /// `retrans_out`: a resent segment neither cumulatively nor selectively acknowledged.
    fn retransmissions_out(&self) -> bool {
        let (una, high_rxt) = (self.snd_una, self.sel.high_rxt);
        self.sel
            .log
            .iter()
            .any(|s| !s.sacked && s.seq.ge(una) && s.seq.lt(high_rxt))
    }

    /// After a new ACK was taken in `phase` (`partial` as it was for recovery): the undo points
    /// of Linux 6.x, `tcp_try_undo_recovery()`, `tcp_try_undo_partial()`, `tcp_try_undo_loss()`.
    pub(super) fn try_undo(&mut self, seg: &Segment, phase: Phase, partial: bool) {
        if !self.packet_delayed(seg) {
            return;
        }
        if phase == Phase::Recovery && partial && self.retransmissions_out() {
            return; // tcp_try_undo_partial(): clock out new data, undo later
        }
        self.cc.undo(self.undo.prior_cwnd, self.undo.prior_ssthresh);
        self.undo.marker = None;
        if self.sel.rfc().phase != Phase::Open {
            // back to Open; after a timeout the lost marks go (`tcp_undo_cwnd_reduction(sk, true)`)
            self.rfc6675_leave();
        }
    }
}
