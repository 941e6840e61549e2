//! RFC 7323 (TCP Extensions for High Performance): window scaling and timestamps, as Linux runs
//! them (docs/host-profiles.md, "Window scaling and timestamps"). Off in every BSD profile: a host
//! asks for them with the host details `window-scaling` and `timestamps`.
//!
//! - Window scale (section 2): each end offers the option on its SYN; only when both did does a
//!   window field mean `field << shift` (2.2, 2.3), and never on a SYN (2.2). The shift offered is
//!   Linux's (`tcp_select_initial_window`, net/ipv4/tcp_output.c) from the receive buffer.
//! - Timestamps (sections 3-4): offered on the SYN, then on every segment once both ends sent it
//!   (3.2); `TS.Recent` kept by the rule of 4.3; an RTT sample from TSecr when the ACK gives no
//!   Karn-safe one (4.1; Linux `tcp_ack_update_rtt`, `tcp_rtt_tsopt_us`, net/ipv4/tcp_input.c);
//!   PAWS (section 5) with Linux's one-tick tolerance (`tcp_paws_discard`); 12 bytes of options on
//!   every segment, taken from the payload (`tcp_mtu_to_mss` subtracts them from `mss_cache`).

use super::{Tcp, TCP_MAXWIN};
use crate::segment::{Segment, Timestamps, TIMESTAMPS_OPTION_BYTES};
use crate::seq::Seq;
use crate::time::{ticks_between, Time, MS, US};

/// `TCP_MAX_WSCALE`: the largest shift (RFC 7323 section 2.3: a larger one received is taken as 14).
pub const MAX_WSCALE: u8 = 14;

/// The period of the timestamp clock: Linux's `TCP_TS_HZ` = 1000, one tick a millisecond
/// (`tcp_clock_ms`, include/net/tcp.h). A reading: since 6.7 a route may ask for a microsecond
/// clock (`RTAX_FEATURE_TCP_USEC_TS`, `tcp_usec_ts`); no default route does, and neither does
/// the model.
pub const TS_TICK: Time = MS;

/// `TCP_PAWS_WINDOW`: Linux's PAWS forgives a TSval one tick behind `TS.Recent`
/// (`tcp_paws_discard`, net/ipv4/tcp_input.c), where RFC 7323 section 5.3 R1 rejects any TSval
/// below it.
pub const PAWS_WINDOW: u32 = 1;

/// The shift a receiver with `space` bytes of buffer offers: Linux's `tcp_select_initial_window`,
/// `clamp(ilog2(space) - 15, 0, TCP_MAX_WSCALE)`, where `space` is the larger of the buffer and
/// the `tcp_rmem[2]`/`rmem_max` sysctls, bounded by the window clamp. A reading: the hosts here
/// set their buffers (`SO_RCVBUF`, so `SOCK_RCVBUF_LOCK`), and then `tcp_connect_init` and
/// `tcp_openreq_init_rwin` clamp the window to the buffer (`tcp_full_space`): the shift is the
/// buffer's own, the smallest that lets a 16-bit field carry it.
pub fn initial_wscale(space: u32) -> u8 {
    let log = space.max(1).ilog2();
    log.saturating_sub(15).min(u32::from(MAX_WSCALE)) as u8
}

/// What one connection negotiated of RFC 7323, and the state it keeps.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rfc7323 {
    /// `Snd.Wind.Shift`: applied to the window fields the peer sends (0 unless both sent the option).
    snd_shift: u8,
    /// `Rcv.Wind.Shift`: applied to the window fields this end sends (0 unless both sent it).
    rcv_shift: u8,
    /// Both SYNs carried the window scale option.
    scaling: bool,
    /// Both SYNs carried the timestamps option: every segment carries it now.
    timestamps: bool,
    /// `TS.Recent`: the TSval this end echoes.
    ts_recent: u32,
    /// `Last.ACK.sent`: the acknowledgment number of the last segment sent (Linux's `rcv_wup`).
    last_ack_sent: Seq,
    /// Segments PAWS discarded.
    paws_drops: u64,
}

impl Rfc7323 {
    /// The shift the peer's window fields take (`Snd.Wind.Shift`).
    pub fn snd_shift(&self) -> u8 {
        self.snd_shift
    }
    /// The shift this end's window fields take (`Rcv.Wind.Shift`).
    pub fn rcv_shift(&self) -> u8 {
        self.rcv_shift
    }
    /// Window scaling was negotiated.
    pub fn scaling(&self) -> bool {
        self.scaling
    }
    /// Timestamps were negotiated.
    pub fn timestamps(&self) -> bool {
        self.timestamps
    }
    /// `TS.Recent`.
    pub fn ts_recent(&self) -> u32 {
        self.ts_recent
    }
    /// Segments PAWS discarded.
    pub fn paws_drops(&self) -> u64 {
        self.paws_drops
    }
}

/// `tcp_tsopt_ecr_before()` (net/ipv4/tcp_input.c): the segment carries timestamps with a
/// TSecr, not zero, before the TS value `when` (a wrapping compare): it answers a segment sent
/// before `when`.
pub(super) fn tsecr_before(seg: &Segment, when: u32) -> bool {
    seg.ts
        .is_some_and(|ts| ts.ecr != 0 && (ts.ecr.wrapping_sub(when) as i32) < 0)
}

impl Tcp {
    /// What was negotiated of RFC 7323.
    pub fn rfc7323(&self) -> &Rfc7323 {
        &self.ext
    }

    /// The timestamp clock at `now`: milliseconds plus a per-connection offset. A reading: Linux
    /// adds a keyed hash of the addresses (`secure_tcp_ts_off`) so that the clock reveals nothing;
    /// the model takes the connection's ISS, fixed per connection as that hash is (only
    /// differences of TS values are ever used).
    pub(super) fn ts_clock(&self, now: Time) -> u32 {
        ((now / TS_TICK) as u32).wrapping_add(self.cfg.iss)
    }

    /// The window scale option of a SYN this end sends: on its SYN when the host scales windows,
    /// on its SYN-ACK only when the peer's SYN offered one (RFC 7323 section 2.2).
    pub(super) fn syn_wscale(&self, synack: bool) -> Option<u8> {
        let offer = self.cfg.host.window_scaling && (!synack || self.ext.scaling);
        offer.then(|| initial_wscale(self.cfg.rcvbuf))
    }

    /// The timestamps option of a segment this end sends: on its SYN when the host has
    /// timestamps, on its SYN-ACK only when the peer's SYN had them, then on every segment once
    /// both did (section 3.2). TSecr is `TS.Recent` on a segment with ACK, else 0.
    pub(super) fn ts_option(&self, now: Time, syn: bool, ack: bool) -> Option<Timestamps> {
        let send = if syn && !ack {
            self.cfg.host.timestamps
        } else {
            self.ext.timestamps
        };
        send.then(|| Timestamps {
            val: self.ts_clock(now),
            ecr: if ack { self.ext.ts_recent } else { 0 },
        })
    }

    /// Takes the peer's SYN (or SYN-ACK): which options both ends sent (sections 2.2 and 3.2),
    /// and `TS.Recent` from its TSval. Called before the MSS is taken, which timestamps shrink.
    pub(super) fn negotiate_rfc7323(&mut self, seg: &Segment) {
        let host = self.cfg.host;
        if host.window_scaling {
            if let Some(peer) = seg.wscale {
                // a passive end offers its shift only now, in its SYN-ACK; an active one did
                self.ext.scaling = true;
                self.ext.snd_shift = peer.min(MAX_WSCALE);
                self.ext.rcv_shift = initial_wscale(self.cfg.rcvbuf);
            }
        }
        if host.timestamps {
            if let Some(ts) = seg.ts {
                self.ext.timestamps = true;
                self.ext.ts_recent = ts.val;
            }
        }
        self.ext.last_ack_sent = seg.seq + 1;
    }

    /// The bytes of options every data segment carries, which the payload gives up: Linux's
    /// `tcp_mtu_to_mss` subtracts `tcp_header_len - sizeof(struct tcphdr)` (4.4BSD's `tcp_mss`
    /// the same `TCPOLEN_TSTAMP_APPA`).
    pub(super) fn option_overhead(&self) -> u32 {
        if self.ext.timestamps {
            TIMESTAMPS_OPTION_BYTES
        } else {
            0
        }
    }

    /// The window the peer advertised in `seg`, in bytes: its field shifted by `Snd.Wind.Shift`,
    /// except on a SYN (section 2.2: "The window field in a segment where the SYN bit is set
    /// MUST NOT be scaled").
    #[inline]
    pub(super) fn peer_window(&self, seg: &Segment) -> u32 {
        self.peer_window_as::<true>(seg)
    }

    /// [`Tcp::peer_window`] on the path `TODAY` (`input.rs`): without window scaling, one of
    /// today's details, `Snd.Wind.Shift` is 0 and the field is the window.
    #[inline]
    pub(super) fn peer_window_as<const TODAY: bool>(&self, seg: &Segment) -> u32 {
        if !TODAY || seg.is_syn() {
            u32::from(seg.window)
        } else {
            u32::from(seg.window) << self.ext.snd_shift
        }
    }

    /// The largest window this end can advertise: `TCP_MAXWIN << Rcv.Wind.Shift` (4.4BSD's
    /// `(long)TCP_MAXWIN << tp->rcv_scale`).
    #[inline]
    pub(super) fn max_rcv_window(&self) -> u32 {
        self.max_rcv_window_as::<true>()
    }

    /// [`Tcp::max_rcv_window`] on the path `TODAY` (`input.rs`): `Rcv.Wind.Shift` is 0 without
    /// window scaling.
    #[inline]
    pub(super) fn max_rcv_window_as<const TODAY: bool>(&self) -> u32 {
        if TODAY {
            TCP_MAXWIN << self.ext.rcv_shift
        } else {
            TCP_MAXWIN
        }
    }

    /// The window field for a window of `win` bytes, and the window the peer reads from it. A SYN's
    /// is `win` itself, at most 65,535 (section 2.2). Otherwise `win >> Rcv.Wind.Shift`, rounded up
    /// to whole units of the shift as Linux does so that a window is never scaled away
    /// (`__tcp_select_window`, `ALIGN(window, 1 << rcv_wscale)`, net/ipv4/tcp_output.c).
    #[inline]
    pub(super) fn window_field<const TODAY: bool>(&self, win: u32, syn: bool) -> (u16, u32) {
        let shift = self.ext.rcv_shift;
        if !TODAY || syn || shift == 0 {
            let w = win.min(TCP_MAXWIN);
            return (w as u16, w);
        }
        let unit = 1u64 << shift;
        let field = (u64::from(win).div_ceil(unit)).min(u64::from(TCP_MAXWIN));
        (field as u16, (field << shift) as u32)
    }

    /// What a segment sent with an ACK leaves: `Last.ACK.sent`.
    #[inline]
    pub(super) fn note_ack_sent(&mut self, ack: Seq) {
        self.ext.last_ack_sent = ack;
    }

    /// PAWS and `TS.Recent` for a segment arriving in a synchronized state. Returns false when
    /// PAWS discards it (section 5.3 R1: not acceptable, an ACK is sent in reply), with Linux's
    /// tolerance of one tick ([`PAWS_WINDOW`]). A reading: Linux also lets through a stale pure
    /// duplicate ACK (`tcp_disordered_ack`) and a segment after 24 days of silence; the model
    /// neither (its ACKs are not reordered, and no run lasts 24 days). A segment without the
    /// option is taken as Linux takes it: it is not checked (section 3.2 lets a receiver drop it).
    pub(super) fn ts_accept(&mut self, seg: &Segment) -> bool {
        if !self.ext.timestamps {
            return true;
        }
        let Some(ts) = seg.ts else {
            return true;
        };
        if self.ext.ts_recent.wrapping_sub(ts.val) as i32 > PAWS_WINDOW as i32 {
            self.ext.paws_drops += 1;
            self.ack_now = true;
            return false;
        }
        // Section 4.3: "If SEG.TSval >= TS.Recent and SEG.SEQ <= Last.ACK.sent, then
        // SEG.TSval is copied to TS.Recent" (Linux `tcp_replace_ts_recent`: `seq` not after
        // `rcv_wup`). Only a segment holding the left edge of the window, so a delayed ACK echoes
        // the earliest segment it acknowledges and a filled hole the segment that filled it.
        if ts.val.wrapping_sub(self.ext.ts_recent) as i32 >= 0 && seg.seq.le(self.ext.last_ack_sent)
        {
            self.ext.ts_recent = ts.val;
        }
        true
    }

    /// An RTT sample for an ACK of new data: the timed segment's, if Karn's rule leaves one
    /// ([`Tcp::take_rtt_sample`]), else the TSecr's (RFC 7323 section 4.1; Linux
    /// `tcp_ack_update_rtt`: "Prefer RTT measured from ACK's timing to TS-ECR", and the TSecr only
    /// when it is not zero).
    #[inline(always)]
    pub(super) fn rtt_sample_on_ack(&mut self, now: Time, seg: &Segment) -> Option<Time> {
        self.rtt_sample_on_ack_as::<true>(now, seg)
    }

    /// [`Tcp::rtt_sample_on_ack`] on the path `TODAY` (`input.rs`): without timestamps and
    /// Linux's estimator, today's details, the timed segment's sample alone.
    #[inline(always)]
    pub(super) fn rtt_sample_on_ack_as<const TODAY: bool>(
        &mut self,
        now: Time,
        seg: &Segment,
    ) -> Option<Time> {
        let timed = self.take_rtt_sample::<TODAY>(now, seg.ack);
        if !TODAY {
            return timed;
        }
        let sample = if timed.is_some() || !self.ext.timestamps {
            timed
        } else {
            self.rtt_sample_from_tsecr(now, seg)
        };
        // Linux's min_rtt takes every sample (RACK's reordering window: recovery/rack.rs)
        if let (Some(rtt), Some(_)) = (sample, &self.linux_rtt) {
            let jiffy = self.cfg.host.timer_clock.from_jiffies(1);
            self.sel.rack.estimator_sample(rtt, jiffy);
        }
        sample
    }

    /// [`Tcp::rtt_sample_on_ack`]'s sample from the TSecr, apart so that the timed sample
    /// before it is inlined into the ACK's path (issue 50).
    #[inline(never)]
    fn rtt_sample_from_tsecr(&mut self, now: Time, seg: &Segment) -> Option<Time> {
        let ecr = seg.ts.map(|t| t.ecr).filter(|&e| e != 0)?;
        // `tcp_rtt_tsopt_us(tp, 1)`: whole ticks of the TS clock, a zero taken as one, and none
        // when the difference is past `INT_MAX` microseconds (an echo from the future wraps there)
        let ticks = self.ts_clock(now).wrapping_sub(ecr);
        if ticks >= i32::MAX as u32 / (TS_TICK / US) as u32 {
            return None;
        }
        let rtt = Time::from(ticks.max(1)) * TS_TICK;
        match &mut self.linux_rtt {
            Some(l) => l.on_timestamp_sample(rtt, seg.ack, self.snd_nxt),
            None => self.fold_rtt_duration(now, rtt),
        }
        Some(rtt)
    }

    /// Feeds a sample of `rtt` to the BSD estimator (a Linux one takes it as it is). A reading:
    /// the BSD estimator counts slow ticks
    /// (`tcp_xmit_timer`); 4.4BSD's own timestamp sample is `tcp_now - ts_ecr + 1` on that clock,
    /// so the model gives it the slow-tick boundaries the sample spans, plus one.
    fn fold_rtt_duration(&mut self, now: Time, rtt: Time) {
        let t = &self.cfg.timers;
        let sent = now.saturating_sub(rtt);
        let ticks = 1 + ticks_between(sent, now, t.slow_phase, t.slow_tick);
        self.rtt.sample(ticks.min(u64::from(u32::MAX)) as u32);
    }
}
