//! What Linux's TCP does around any congestion controller (net/ipv4/tcp_cong.c, tcp_input.c,
//! tcp_output.c, include/net/tcp.h), shared by the Linux controllers here (`cubic.rs`,
//! `linux_reno.rs`): the window in packets, slow start by packets acknowledged
//! (`tcp_slow_start`), the additive increase (`tcp_cong_avoid_ai`), growth only while
//! cwnd-limited (`tcp_is_cwnd_limited`), the timeout's window (`tcp_enter_loss`) and the restart
//! after idle (`tcp_slow_start_after_idle_check`, `tcp_cwnd_restart`).
//!
//! Windows: Linux counts `snd_cwnd` and `snd_ssthresh` in packets. Here the window stays in bytes
//! for the TCP, always a whole number of segments of the connection's `maxseg` (the reading of
//! "packet"), and the controllers work on `cwnd / maxseg`; an ACK delivers
//! `ceil(bytes / maxseg)` packets, a short last segment counting as one, as Linux counts an `skb`.
//!
//! What an ACK delivers: the controller grows by the packets the ACK newly delivered, each
//! counted once (`tcp_ack`: `delivered = tcp_newly_delivered()`, handed to `tcp_cong_control`
//! and on to `cong_avoid`; `tcp_clean_rtx_queue` counts a cumulatively ACKed skb as delivered
//! only if it was not SACKed before, `tcp_sacktag_one` counts it when SACKed). So the ACK that
//! ends a SACK recovery counts the retransmission it covers, not every segment SACKed during the
//! recovery (those were delivered while the window was being reduced, when `tcp_cwnd_reduction`
//! runs instead of `cong_avoid`), towards `snd_cwnd_cnt` and CUBIC's `ack_cnt`. Without SACK it
//! is every byte the ACK covers (Linux's NewReno counts duplicates as delivered too,
//! `tcp_remove_reno_sacks`: not modelled). Reading: Linux grows the window on that ACK after
//! `tcp_end_cwnd_reduction` set it to ssthresh; here the growth comes first and the recovery's
//! end then sets the window to ssthresh (the counters are kept either way).
//!
//! Readings:
//! - cwnd-limited: Linux remembers per round whether the flight reached cwnd
//!   (`tcp_cwnd_validate`); here the flight before the ACK is compared (slow start: cwnd below
//!   twice the flight; above ssthresh: a flight of cwnd);
//! - a timeout takes a new ssthresh unless the window was already reduced in this loss episode
//!   (`tcp_enter_loss`'s condition): not in fast recovery until its full ACK, nor on a repeated
//!   timeout with no ACK that advanced `snd_una` between (`icsk_retransmits`, reset by such an
//!   ACK); the window is then one segment (`tcp_packets_in_flight + 1` with everything
//!   outstanding marked lost);
//! - idle is "nothing outstanding" (`packets_out == 0`) and measured from the last data sent
//!   (`lsndtime`) against the TCP's RTO.

use super::packets::Packets;
use super::{AckInfo, SentInfo, Window};
use crate::time::Time;

/// `TCP_INFINITE_SSTHRESH` (include/net/tcp.h): ssthresh before the first reduction.
pub const INFINITE_SSTHRESH: u32 = 0x7fff_ffff;

/// Which reduction of the window is in force (Linux's `icsk_ca_state`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reduction {
    /// Fast recovery (`TCP_CA_Recovery`), until the ACK that ends it.
    Recovery,
    /// After a timeout (`TCP_CA_Loss`), until any ACK that advances `snd_una`.
    Loss,
}

/// The Linux TCP's state around its congestion controller.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LinuxSide {
    /// The segment size the window's bytes are counted in (`packets.rs`).
    packets: Packets,
    /// `tcp_init_cwnd`: the initial window, in segments, the floor of an idle restart.
    init_cwnd: u32,
    /// `snd_cwnd_cnt` (`tcp_cong_avoid_ai`): segments ACKed towards the next increase.
    cwnd_cnt: u32,
    /// `lsndtime`: when data was last sent.
    last_send: Option<Time>,
    /// The window was reduced in a loss episode not yet over.
    reduced: Option<Reduction>,
}

impl LinuxSide {
    pub fn new() -> LinuxSide {
        LinuxSide {
            packets: Packets::of(1),
            init_cwnd: 1,
            ..LinuxSide::default()
        }
    }

    /// The negotiated segment size and the initial window (bytes) it gives.
    pub fn on_mss(&mut self, mss: u32, init_cwnd: u32) {
        self.packets = Packets::of(mss);
        self.init_cwnd = self.packets.floor(init_cwnd).max(1);
    }

    #[inline]
    pub fn segments(&self, bytes: u32) -> u32 {
        self.packets.floor(bytes)
    }

    pub fn bytes(&self, segments: u32) -> u32 {
        self.packets.bytes(segments)
    }

    /// A new ACK (not a partial one): it ends any reduction; returns the packets it newly
    /// delivered (`tcp_newly_delivered`, see the module's note), and whether the window may grow
    /// (`tcp_is_cwnd_limited`, "in slow start, ensure cwnd grows to twice what was ACKed").
    pub fn on_ack(&mut self, w: &Window, a: &AckInfo) -> (u32, bool) {
        self.reduced = None;
        let acked = self.packets.ceil(a.delivered);
        let flight = self.packets.ceil(a.snd_max.since(a.una));
        let cwnd = self.segments(w.cwnd);
        let limited = if w.cwnd < w.ssthresh {
            cwnd < 2 * flight
        } else {
            flight >= cwnd
        };
        (acked, limited && acked > 0)
    }

    /// A partial ACK in NewReno's recovery: it advances `snd_una`, which after a timeout
    /// (`TCP_CA_Loss`) resets `icsk_retransmits`, so a further timeout takes a new ssthresh.
    pub fn on_partial_ack(&mut self) {
        if self.reduced == Some(Reduction::Loss) {
            self.reduced = None;
        }
    }

    /// `tcp_slow_start`: one segment per segment ACKed, up to ssthresh; returns what is left
    /// over for congestion avoidance.
    pub fn slow_start(&self, w: &mut Window, acked: u32) -> u32 {
        let cwnd = self.segments(w.cwnd);
        let grown = cwnd
            .saturating_add(acked)
            .min(self.segments(w.ssthresh).max(cwnd));
        w.cwnd = self.bytes(grown);
        acked - (grown - cwnd)
    }

    /// `tcp_cong_avoid_ai` (net/ipv4/tcp_cong.c): one more segment per `cnt` ACKed; credit
    /// gathered under a larger `cnt` gives one segment, not many, when `cnt` falls.
    pub fn cong_avoid_ai(&mut self, w: &mut Window, cnt: u32, acked: u32) {
        let cnt = cnt.max(1);
        let mut cwnd = self.segments(w.cwnd);
        if self.cwnd_cnt >= cnt {
            self.cwnd_cnt = 0;
            cwnd += 1;
        }
        self.cwnd_cnt += acked;
        if self.cwnd_cnt >= cnt {
            cwnd += self.cwnd_cnt / cnt;
            self.cwnd_cnt %= cnt;
        }
        w.cwnd = self.bytes(cwnd);
    }

    /// Fast recovery begins (`tcp_init_cwnd_reduction`): `snd_cwnd_cnt` is 0.
    pub fn on_recovery(&mut self) {
        self.reduced = Some(Reduction::Recovery);
        self.cwnd_cnt = 0;
    }

    /// `tcp_enter_loss`: whether ssthresh is taken again now (the caller asks its controller);
    /// then call [`LinuxSide::loss_window`].
    pub fn takes_loss_ssthresh(&self) -> bool {
        self.reduced.is_none()
    }

    /// `tcp_enter_loss` after ssthresh: the window one segment, `snd_cwnd_cnt` 0, in Loss.
    pub fn loss_window(&mut self, w: &mut Window) {
        w.cwnd = self.packets.mss();
        self.cwnd_cnt = 0;
        self.reduced = Some(Reduction::Loss);
    }

    /// Data leaves (`tcp_event_data_sent`). With nothing outstanding after more than an RTO
    /// since data was last sent, the window restarts (`tcp_cwnd_restart`: ssthresh at least 3/4
    /// of the window, `tcp_current_ssthresh`; the window halved per RTO beyond the first, down
    /// to the initial window). Returns the idle time when the sender starts again from idle
    /// (`CA_EVENT_TX_START`).
    pub fn on_data_sent(&mut self, w: &mut Window, s: &SentInfo) -> Option<Time> {
        let idle = if s.una == s.snd_max {
            self.last_send.map(|last| s.now.saturating_sub(last))
        } else {
            None
        };
        if let Some(idle) = idle.filter(|&i| i > s.rto) {
            let mut cwnd = self.segments(w.cwnd);
            w.ssthresh = w.ssthresh.max(self.bytes((cwnd >> 1) + (cwnd >> 2)));
            let restart = self.init_cwnd.min(cwnd);
            let mut left = idle;
            while left > s.rto && cwnd > restart {
                left -= s.rto;
                cwnd >>= 1;
            }
            w.cwnd = self.bytes(cwnd.max(restart));
        }
        self.last_send = Some(s.now);
        idle
    }
}
