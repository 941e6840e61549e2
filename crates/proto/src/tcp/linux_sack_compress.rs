//! Linux's SACK compression at the receiver (net/ipv4/tcp_input.c `__tcp_ack_snd_check()`,
//! `tcp_sack_compress_send_ack()`; tcp_timer.c `tcp_compressed_ack_kick()`; tcp_output.c
//! `tcp_event_ack_sent()`), the `sack-compress = linux` host detail.
//!
//! A SACK receiver with out-of-order data queued, an ACK not otherwise due now (more than one
//! full segment unacknowledged with the window not shrinking, quick-ACK mode, `ICSK_ACK_NOW`:
//! a hole just filled, RFC 5681 4.2), sends its first `TCP_FASTRETRANS_THRESH` (3) duplicate
//! ACKs for the same `rcv_nxt` at once (`dup_ack_counter`, reset when `rcv_nxt` moves:
//! `compressed_ack_rcv_nxt`), so the sender's duplicate-ACK threshold is met. Later ones are
//! held (`compressed_ack`): the first held one starts a timer of
//! `min(tcp_comp_sack_delay_ns, rtt / 20)` with `tcp_comp_sack_slack_ns` of slack, whose expiry
//! sends one ACK carrying the newest SACK blocks; the `tcp_comp_sack_nr`-th held one goes at
//! once. Any ACK sent clears the count and the timer (`tcp_event_ack_sent()`).
//!
//! Readings:
//! - The RTT: the kernel takes its receiver's estimate `rcv_rtt_est` (`tcp_rcv_rtt_measure_ts()`
//!   from TSecr, or one per window without timestamps), lowered to `srtt` when that is smaller;
//!   the model keeps no receiver estimate, so the host's smoothed RTT stands in (for a pure
//!   receiver the handshake's sample, `linux_rtt.rs`), and with none the delay is 0, as in the
//!   kernel before its first receiver sample.
//! - The timer: an hrtimer with a range fires between `delay` and `delay + slack`; on an idle
//!   host the clock event is programmed for the range's end, so the model fires at
//!   `delay + slack`.
//! - `tcp_sack_new_ofo_skb()`'s early send (a segment landing in the third or a later SACK
//!   block, `TCP_SACK_BLOCKS_EXPECTED` 2) is not modelled: the model orders its blocks
//!   differently (`selective.rs`).

use super::{SackCompress, Tcp};
use crate::seq::Seq;
use crate::time::{Time, MS, US};

/// `TCP_FASTRETRANS_THRESH`: 3 duplicate ACKs go out before any is held.
pub const TCP_FASTRETRANS_THRESH: u32 = 3;
/// `net.ipv4.tcp_comp_sack_nr` default: at most 44 ACKs held.
pub const TCP_COMP_SACK_NR: u32 = 44;
/// `net.ipv4.tcp_comp_sack_delay_ns` default: 1 ms.
pub const TCP_COMP_SACK_DELAY: Time = MS;
/// `net.ipv4.tcp_comp_sack_slack_ns` default: 100 us.
pub const TCP_COMP_SACK_SLACK: Time = 100 * US;

/// The compression fields of `struct tcp_sock`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SackCompression {
    /// `compressed_ack_rcv_nxt`: the `rcv_nxt` the duplicates are counted for.
    rcv_nxt: Option<Seq>,
    /// `dup_ack_counter`: duplicates sent at once for that `rcv_nxt`.
    dup_acks: u32,
    /// `compressed_ack`: ACKs held since the last one sent.
    held: u32,
    /// When `compressed_ack_timer` fires, if queued.
    timer_at: Option<Time>,
}

impl Tcp {
    /// `__tcp_ack_snd_check()` for a segment that left out-of-order data queued. Sets `ack_now`,
    /// or holds the ACK and arms the compression timer (on `delack_at`, the endpoint's ACK timer).
    pub(super) fn ack_out_of_order(&mut self, now: Time) {
        if self.cfg.host.sack_compress == SackCompress::Off || !self.cfg.receiver.sack_blocks {
            // RFC 5681 4.2: out-of-order data is ACKed at once
            self.ack_now = true;
            return;
        }
        if self.linux_ack_due_now() || self.sack_compress.held >= TCP_COMP_SACK_NR {
            self.ack_now = true;
            return;
        }
        let c = &mut self.sack_compress;
        if c.rcv_nxt != Some(self.rcv_nxt) {
            c.rcv_nxt = Some(self.rcv_nxt);
            c.dup_acks = 0;
        }
        if c.dup_acks < TCP_FASTRETRANS_THRESH {
            c.dup_acks += 1;
            self.ack_now = true;
            return;
        }
        c.held += 1;
        if c.timer_at.is_none() {
            let rtt = self.linux_rtt.as_ref().and_then(|l| l.srtt()).unwrap_or(0);
            let at = now + TCP_COMP_SACK_DELAY.min(rtt / 20) + TCP_COMP_SACK_SLACK;
            c.timer_at = Some(at);
            self.delack_at = Some(self.delack_at.map_or(at, |d| d.min(at)));
        }
    }

    /// `tcp_compressed_ack_kick()`: true when the ACK timer that fired at `now` is the
    /// compression timer with ACKs held; the caller sends one.
    pub(super) fn sack_compress_kick(&mut self, now: Time) -> bool {
        let c = &mut self.sack_compress;
        if c.timer_at.is_some_and(|t| t <= now) {
            c.timer_at = None;
            return c.held > 0;
        }
        false
    }

    /// `tcp_event_ack_sent()`: an ACK went out; nothing is held, the timer is cancelled.
    #[inline(always)]
    pub(super) fn sack_compress_ack_sent(&mut self) {
        self.sack_compress.held = 0;
        self.sack_compress.timer_at = None;
    }
}
