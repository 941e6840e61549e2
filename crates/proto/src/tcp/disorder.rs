//! Linux's window before a recovery: a segment the peer SACKed is no longer in flight, so it
//! frees room for new data at once, with no loss marked and no recovery begun (Linux's
//! `TCP_CA_Disorder`). Linux 6.x: `tcp_write_xmit()` (net/ipv4/tcp_output.c) sends while
//! `tcp_cwnd_test()` finds `tcp_packets_in_flight()` below `snd_cwnd`, and
//! `tcp_packets_in_flight()` (include/net/tcp.h) is `packets_out - (sacked_out + lost_out) +
//! retrans_out` in every state; `tcp_snd_wnd_test()` still bounds what goes out by the peer's
//! window from `snd_una`. Every ACK is followed by `tcp_data_snd_check()` (`tcp_rcv_established()`),
//! a duplicate one too. So a cwnd-limited Linux sender sends one new segment for each segment a
//! duplicate ACK newly SACKs: RFC 3042's Limited Transmit without its limit of two, the SACK
//! twin of the SACK emulation a connection without SACK runs (`reno_sacks.rs`). A 4.4BSD sender
//! counts its window from `snd_una` (`tcp_output`), SACKed data and all.
//!
//! Where it acts: a RACK sender (`rack-tlp = on`, every Linux profile) outside recovery and
//! outside a timeout's phase (the model's `Open`, Linux's `Open` and `Disorder`); in recovery
//! and after a timeout the scoreboard's SetPipe already counts this way (`recovery/`).
//!
//! Readings: the window is in bytes (`cwnd` plus the SACKed bytes above `snd_una`, with the
//! outstanding bytes against it, as `reno_sacks.rs` counts); `tcp_cwnd_test()`'s cap of half the
//! window per call (for TSO's packets) is not modelled: a duplicate ACK frees a segment or two.

use super::recovery::Phase;
use super::Tcp;
use crate::time::Time;

impl Tcp {
    /// The congestion window `tcp_output` sends new data by outside recovery for a RACK sender
    /// with SACKed data outstanding: cwnd plus the bytes SACKed above `snd_una`, so that the
    /// flight it leaves room for is `tcp_packets_in_flight()`'s. `None` otherwise (`output.rs`
    /// then sends by the controller's window).
    #[inline]
    pub(super) fn disorder_window(&self) -> Option<u32> {
        if self.sel.scoreboard.is_empty()
            || !self.rack_tlp_on()
            || self.sel.recovery
            || self.sel.rfc().phase != Phase::Open
            || self.snd_nxt != self.snd_max
        {
            return None;
        }
        let outstanding = self.snd_max.since(self.snd_una);
        let in_flight = self.sel.set_pipe(self.snd_una, self.maxseg, None);
        let sacked = outstanding.saturating_sub(in_flight);
        (sacked > 0).then(|| self.cc.cwnd().saturating_add(sacked))
    }

    /// A duplicate ACK that started no recovery: `tcp_data_snd_check()` after `tcp_ack()`, new
    /// data by [`Tcp::disorder_window`] (its segments count in `limited_transmits`). Returns
    /// false: the ACK is not consumed.
    pub(super) fn disorder_send(&mut self, now: Time) -> bool {
        if self.disorder_window().is_some() {
            self.send_on_duplicate(now);
        }
        false
    }

    /// `tcp_write_xmit()` after a duplicate ACK below a recovery, by the window `tcp_output`
    /// finds (this file's for a SACK sender, `reno_sacks.rs`'s for one without): its new
    /// segments count in `limited_transmits`, the new segments sent on a duplicate below the
    /// threshold.
    pub(super) fn send_on_duplicate(&mut self, now: Time) {
        let before = self.snd_max;
        self.output(now);
        let sent = self.snd_max.since(before).div_ceil(self.maxseg.max(1));
        self.stats.limited_transmits += u64::from(sent);
    }
}
