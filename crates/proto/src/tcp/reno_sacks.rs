//! Linux's "SACK emulation" for a connection without SACK (host detail `reno-sack-emulation`,
//! [`super::HostProfile::reno_sack_emulation`]), read from Linux 6.x net/ipv4/tcp_input.c and
//! include/net/tcp.h:
//!
//! - `tcp_fastretrans_alert()` calls `tcp_add_reno_sack()` for each duplicate ACK (in `Open` and
//!   `Disorder`, and in `Recovery`), which adds it to `tp->sacked_out`: a duplicate ACK means a
//!   segment above the hole reached the receiver ("Emulate SACKs for SACKless connection");
//! - `tcp_packets_in_flight()` = `packets_out - (sacked_out + lost_out) + retrans_out`, so each
//!   counted duplicate takes one segment out of the flight, and `tcp_write_xmit()` sends new data
//!   while `tcp_cwnd_test()` finds the flight below `snd_cwnd`, which the duplicate does not
//!   change, and `tcp_snd_wnd_test()` finds the segment inside `snd_una + snd_wnd`;
//! - `tcp_limit_reno_sacked()` (from `tcp_check_reno_reordering()`) keeps `sacked_out` at most
//!   `packets_out - max(lost_out, 1)`: the hole itself never counts as delivered;
//! - an ACK that advances `snd_una` resets the count (`tcp_reset_reno_sack()`), as BSD resets
//!   `t_dupacks`;
//! - the threshold: with `net.ipv4.tcp_recovery = 0` (the live `paper` profiles) and without
//!   SACK, `tcp_time_to_recover()`'s classic rule `sacked_out + 1 > tp->reordering` and
//!   `tcp_newreno_mark_lost()`'s `sacked_out >= tp->reordering` both enter recovery on the
//!   `tp->reordering`-th duplicate, `sysctl_tcp_reordering` = `TCP_FASTRETRANS_THRESH` = 3:
//!   the policy's threshold of three, unchanged.
//!
//! So below the threshold a cwnd-limited sender sends one new segment per duplicate ACK, for as
//! long as duplicates come: RFC 3042's Limited Transmit in effect, without its limit of two
//! (Linux has no `tcp_limited_transmit()` of its own since 2.6). With a window of two segments
//! whose first is lost the second's duplicate lets a third out, whose duplicate lets a fourth
//! out, whose duplicate is the third: fast retransmit, where 4.4BSD's sender waits for its RTO.
//! With nothing left to send (a reply's last segments) a hole still draws only as many
//! duplicates as segments follow it, and with one segment out a duplicate frees nothing.
//!
//! In fast recovery the model keeps Reno's inflation by one segment per further duplicate
//! (`recovery/reno.rs`). Linux there runs `tcp_cwnd_reduction()` (RFC 6937's PRR) on the same
//! count; while the flight is at most ssthresh (PRR-SSRB's conservation branch, the case of short
//! replies) both send one segment per duplicate once the flight is below the halved window. A
//! reading: PRR's proportional branch (a flight above ssthresh) is not modelled for Reno.
//!
//! Readings and what is left out: the window is in bytes (`cwnd + sacked_out * maxseg` with the
//! outstanding bytes against it, as the Linux controllers keep cwnd in whole segments, `cc/linux.rs`),
//! so a short segment in flight counts as its bytes, not as one packet;
//! `tcp_check_reno_reordering()`'s raising of `tp->reordering` when
//! more duplicates come than segments are out is not modelled; after a timeout (`snd_nxt` below
//! `snd_max`: the model's go-back-N, Linux's `Loss` state, where `tcp_process_loss()` counts
//! duplicates only for data sent after the timeout) nothing is sent by this rule.

use super::{Recovery, Tcp};

impl Tcp {
    /// Whether this sender runs Linux's SACK emulation: its host says so (the rule is read only
    /// on the Reno and NewReno duplicate-ACK path, so a SACK connection never reaches it).
    #[inline]
    pub(super) fn reno_sack_emulation(&self) -> bool {
        self.cfg.host.reno_sack_emulation
    }

    /// The congestion window `tcp_output` sends new data by while duplicates are counted below
    /// the threshold (Linux's `Disorder` state), for a host with [`Tcp::reno_sack_emulation`]:
    /// cwnd plus a segment per duplicate, so that the flight it leaves room for is
    /// `tcp_packets_in_flight()`'s `packets_out - sacked_out`. It holds for every send until an
    /// ACK advances `snd_una` (the duplicate's own, and what the application writes meanwhile);
    /// `None` otherwise (`output.rs` then sends by the controller's window).
    #[inline]
    pub(super) fn reno_sack_window(&self) -> Option<u32> {
        if self.dupacks == 0
            || !self.reno_sack_emulation()
            || self.dupacks >= self.cur_thresh
            || self.snd_nxt != self.snd_max
            || !matches!(self.recovery(), Recovery::Reno | Recovery::NewReno)
        {
            return None; // after a timeout (snd_nxt below snd_max) what goes out is not new data
        }
        let mss = self.maxseg.max(1);
        // data outstanding, in segments (a FIN alone is one, as its skb is)
        let outstanding = self.snd_max.since(self.snd_una) - u32::from(self.sent_fin);
        let packets_out = outstanding.div_ceil(mss).max(1);
        // tcp_limit_reno_sacked(): the hole (lost_out is 0 before recovery) never counts
        let sacked_out = self.dupacks.min(packets_out - 1);
        Some(
            self.cc
                .cwnd()
                .saturating_add(sacked_out.saturating_mul(mss)),
        )
    }
}
