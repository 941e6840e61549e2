//! Host profiles: the TCP implementation details in which the papers' hosts differ from the
//! 4.4BSD-Lite that Stevens vol. 2 describes (docs/model.md, docs/host-profiles.md).
//!
//! Paper 000 ran BSD/OS 2.1 (section IV-A), paper 002 BSD/OS 2.0 and paper 001 FreeBSD 2.2.1. Each
//! detail is a field of [`HostProfile`] with the rule it selects and its source; a named
//! [`HostPreset`] fills every field. BSD/OS is not public: its profile takes the CSRG changes
//! that BSDI's Mike Karels made after 4.4BSD-Lite (the 4.4BSD-Lite2 sources), see
//! `docs/host-profiles.md`.
//!
//! Two settings are not profile details because no source gives them: how long the reading
//! process takes to run after it is woken (`read_delay`) and how much it asks for per read
//! (`read_size`). They are user settings with defaults stated below.

use crate::duration::Range;
use crate::tcp::clock::TimerClock;
use crate::time::{Time, SEC};

/// The congestion-avoidance increment per new ACK above `ssthresh` (Stevens vol. 2, p. 977).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CaIncrement {
    /// `maxseg*maxseg/cwnd + maxseg/8`: CSRG tcp_input.c 7.23 (June 1990, "from van: ... faster window
    /// opening in linear mode (add 1/8 packet)") to 8.6; 4.4BSD-Lite's tcp_input.c 8.5.
    PlusEighth,
    /// `maxseg*maxseg/cwnd`: CSRG tcp_input.c 8.7 (27 October 1994, "per Van via Sally Floyd, do not
    /// add the constant maxseg/8 ... (from karels)"); 4.4BSD-Lite2 tcp_input.c lines 1037-1044.
    Plain,
}

/// How the receiving application takes data out of the socket's receive buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReaderModel {
    /// The data is gone the moment it is in order: the advertised window is always the whole
    /// buffer, and the ACK for a segment that fills a hole advertises it too. The model before host
    /// profiles; no BSD worked so.
    Instant,
    /// A process asleep in `read()`. `TCP_REASS` appends in-order data to `so_rcv` and calls
    /// `sorwakeup`, which only makes the reader runnable: the ACK that `tcp_input` sends (a hole fill
    /// sets `TF_ACKNOW`) goes out first and advertises `sbspace(so_rcv)` with that data unread
    /// (Lite2 tcp_input.c lines 88-103, 1282-1283; `ipintr` drains its queue before any process
    /// runs). The reader then runs after `read_delay`, reads up to `read_size` bytes per call, and
    /// each `soreceive` ends with one `PRU_RCVD`, i.e. one `tcp_output` (uipc_socket.c 8.6 lines
    /// 766-773, tcp_usrreq.c PRU_RCVD), whose window-update rule decides whether an ACK goes out.
    Process,
}

/// Which segments header prediction may take (Lite2 tcp_input.c lines 416-510).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HeaderPrediction {
    /// Every segment takes the slow path.
    Off,
    /// 4.4BSD (CSRG tcp_input.c 7.23, 1990, "from van", to Lite2): a pure ACK for new data with
    /// an unchanged window while `cwnd >= snd_wnd`, or in-order data with nothing queued.
    Bsd,
    /// FreeBSD 2.2: the same, and the ACK branch also requires `t_dupacks < tcprexmtthresh`, so an
    /// ACK arriving in fast recovery always takes the slow path (in FreeBSD's tcp_input.c of 1997
    /// and its 2.2.2 port, not in 2.1.7.1).
    FreeBsd,
}

/// When the first new ACK after fast retransmit deflates cwnd to ssthresh (Stevens vol. 2, p. 970).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Deflation {
    /// 4.4BSD-Lite and Lite2 (tcp_input.c lines 989-996): `if (t_dupacks > tcprexmtthresh && ...)`;
    /// after exactly three duplicates the window stays at `ssthresh + 3 segments`.
    AboveThreshold,
    /// FreeBSD 2.2: `t_dupacks >= tcprexmtthresh`, so it deflates after the third duplicate too.
    AtThreshold,
}

/// When the receiver ACKs in-order data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DelayedAck {
    /// `TCP_REASS` sets `TF_DELACK`; the ACK goes out with the next window update of a read (every
    /// second full segment with a reader that keeps up) or on the 200 ms fast tick.
    Bsd,
    /// A segment carrying PSH is ACKed at once (`TF_ACKNOW`): CSRG tcp_input.c 8.9 (May 1995, "from
    /// mycroft", backed out by 8.10 the next day) and FreeBSD's `TCP_ACK_HACK` kernel option. In no
    /// profile: a user setting.
    AckPush,
    /// Linux's quick ACKs at the start, an ACK for every second full segment and the adaptive
    /// 40-200 ms delayed-ACK timer (`tcp/linux_delack.rs`). In no profile yet.
    Linux,
}

/// Whether a SACK receiver holds back duplicate ACKs for a hole (`linux_sack_compress.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SackCompress {
    /// Every out-of-order segment is ACKed at once (RFC 5681 4.2): every BSD profile.
    Off,
    /// Linux's SACK compression (`__tcp_ack_snd_check()`): three duplicate ACKs for a hole at
    /// once, later ones held for min(1 ms, RTT/20) or until 44 are (`tcp_comp_sack_nr`).
    Linux,
}

/// Which loss recovery a host runs when its policy has SACK ([`crate::tcp::Selective::Sack`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SackRecovery {
    /// Fall and Floyd's "Sack1" scoreboard recovery, the papers' E2E-IETF-SACK (paper 000
    /// section III-A; `recovery/sack.rs`): every BSD profile.
    FallFloyd,
    /// RFC 6675's conservative SACK loss recovery with RFC 6937's Proportional Rate Reduction
    /// (PRR-SSRB), as Linux runs SACK recovery (`tcp_fastretrans_alert()` and
    /// `tcp_cwnd_reduction()`, net/ipv4/tcp_input.c; `recovery/rfc6675.rs`). In no BSD profile.
    Rfc6675Prr,
}

/// What an RFC 6675 sender (`sack-recovery = rfc6675-prr`) may send in recovery besides the
/// segments marked lost and new data: NextSeg's rules (3) and (4) (`recovery/scoreboard.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NextSeg {
    /// RFC 6675 section 4's NextSeg whole: (1) a lost segment, (2) new data, (3) a segment not
    /// SACKed below the highest SACKed octet, lost or not, (4) the rescue retransmission. Every
    /// BSD profile (which runs Fall and Floyd's recovery, so never reads it).
    Rfc6675,
    /// Linux: `tcp_xmit_retransmit_queue()` (net/ipv4/tcp_output.c) resends only segments marked
    /// `TCPCB_LOST` (and stops once `retrans_out` reaches `lost_out`), then `tcp_write_xmit()`
    /// sends new data as cwnd and the peer's window allow; a hole not marked lost waits for a
    /// mark (RACK, a timeout) and there is no rescue retransmission. So rules (1) and (2) only.
    LinuxLostOnly,
}

/// How an RFC 6675 sender (`sack-recovery = rfc6675-prr`) counts Proportional Rate Reduction
/// on each ACK of a recovery (`recovery/prr.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PrrReading {
    /// RFC 6937 section 3's pseudo-code in bytes: RecoverFS the flight size at entry, the
    /// reduction bound's extra segment on every ACK, sndcnt computed on every ACK. Every BSD
    /// profile (which runs Fall and Floyd's recovery, so never reads it).
    #[default]
    Rfc6937,
    /// Linux 6.x `tcp_cwnd_reduction()` (net/ipv4/tcp_input.c) in whole segments: RecoverFS
    /// the cwnd at entry (`prior_cwnd`), the extra segment only on an ACK that advanced
    /// `snd_una` and marked no new loss, an ACK that delivered nothing leaves cwnd alone, and
    /// the first send of the recovery is forced.
    Linux,
}

/// Whether a host's connections use SACK whatever the protocol says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SackUse {
    /// The protocol decides: the papers' E2E-IETF-SACK sends and reads SACK blocks, every other
    /// protocol does not (every BSD profile: SACK was the protocol under study).
    ByProtocol,
    /// Every connection negotiates SACK (Linux's `net.ipv4.tcp_sack = 1`, the default): its
    /// receiver sends SACK blocks (RFC 2018) and its sender recovers with its `sack-recovery`; a
    /// protocol's own selective scheme (SMART) and its other points are kept.
    On,
}

/// Which congestion controller the host's TCP runs (`cc/`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CongestionControl {
    /// 4.4BSD's window rules (Stevens vol. 2): Reno, or NewReno's with the NewReno policy, with
    /// this host's `ca-increment` and `deflation`.
    Bsd,
    /// CUBIC with HyStart as Linux 6.x runs it (RFC 9438; net/ipv4/tcp_cubic.c), `cc/cubic.rs`.
    /// In no BSD profile.
    Cubic,
    /// Reno as Linux 6.x runs it (net/ipv4/tcp_cong.c `tcp_reno_cong_avoid`),
    /// `cc/linux_reno.rs`. In no BSD profile.
    LinuxReno,
}

/// Which BSD's round-trip estimator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RttEstimator {
    /// 4.4BSD-Lite and Lite2 (tcp_var.h: `TCP_RTT_SHIFT` 3, `TCP_RTTVAR_SHIFT` 2;
    /// `TCP_REXMTVAL = (srtt >> 3) + rttvar`, at least `t_rttmin`). Before any sample rttvar is
    /// `TCPTV_SRTTDFLT << 2` and the RTO `((0 >> 2) + (TCPTV_SRTTDFLT << 2)) >> 1` = 6 s.
    Lite,
    /// FreeBSD 2.2 (tcp_var.h 1.36: `TCP_RTT_SHIFT` 5, `TCP_RTTVAR_SHIFT` 4, `TCP_DELTA_SHIFT` 2;
    /// `TCP_REXMTVAL = ((srtt >> 3) + rttvar) >> 2`; `tcp_xmit_timer` bounds the RTO below by
    /// `max(t_rttmin, rtt + 2)`). Before any sample rttvar is `(TCPTV_RTOBASE << 4) / 4` and the RTO
    /// `TCPTV_RTOBASE` = 3 s (tcp_subr.c `tcp_newtcpcb`).
    Fine,
    /// Linux (`tcp_rtt_estimator()`, `tcp_set_rto()`: `tcp/linux_rtt.rs`), with the minimum RTO
    /// (`TCP_RTO_MIN`, 200 ms, or a route's `rto_min`). Such a host keeps a [`crate::tcp::BsdRtt`] only for
    /// the persist timer, on Lite's scales (Linux's `tcp_probe0_when()` is not modelled).
    Linux { rto_min: crate::time::Time },
}

impl RttEstimator {
    /// (`TCP_RTT_SHIFT`, `TCP_RTTVAR_SHIFT`, `TCP_DELTA_SHIFT`).
    pub(super) fn shifts(self) -> (u32, u32, u32) {
        match self {
            RttEstimator::Lite | RttEstimator::Linux { .. } => (3, 2, 0),
            RttEstimator::Fine => (5, 4, 2),
        }
    }
}

/// The TCP implementation details of one host. Presets: [`HostPreset`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HostProfile {
    /// Congestion-avoidance increment.
    pub ca_increment: CaIncrement,
    /// The receiving application.
    pub reader: ReaderModel,
    /// Header prediction: the fast path of a one-way transfer. Its ACK branch neither resets
    /// `t_dupacks` nor opens cwnd nor deflates it.
    pub header_prediction: HeaderPrediction,
    /// The persist timer (`tcp_setpersist`, Lite2 tcp_output.c lines 587-603; `TCPT_PERSIST` in
    /// tcp_timer.c): a sender with data and a window too small to use probes with one byte, backing
    /// off from `TCPTV_PERSMIN` (5 s) to `TCPTV_PERSMAX` (60 s).
    pub persist: bool,
    /// When fast recovery deflates the window.
    pub deflation: Deflation,
    /// The round-trip estimator and the RTO it gives.
    pub rtt_estimator: RttEstimator,
    /// When in-order data is ACKed.
    pub delayed_ack: DelayedAck,
    /// The loss recovery a SACK sender runs.
    pub sack_recovery: SackRecovery,
    /// What an RFC 6675 sender sends in recovery beyond lost segments and new data.
    pub next_seg: NextSeg,
    /// How an RFC 6675 sender counts PRR's sends in recovery.
    pub prr: PrrReading,
    /// RFC 7323 window scaling (section 2), as Linux chooses its shift (`rfc7323.rs`). Off in
    /// every BSD profile: their windows stop at `TCP_MAXWIN`.
    pub window_scaling: bool,
    /// RFC 7323 timestamps (sections 3-5): TSval/TSecr on every segment, RTT samples from TSecr,
    /// PAWS (`rfc7323.rs`). Off in every BSD profile.
    pub timestamps: bool,
    /// The clock the retransmission and delayed-ACK timers fire on (`tcp/clock.rs`).
    pub timer_clock: TimerClock,
    /// The congestion window once the handshake is done, in segments: 1 in every BSD (`tcp_mss()`
    /// sets `snd_cwnd = mss`); Linux's `TCP_INIT_CWND` is 10 (`tcp_init_cwnd()`, RFC 6928), cut to
    /// 1 when the SYN or SYN-ACK was resent more than once (`tcp_init_transfer()`, RFC 5681 3.1).
    pub initial_window: u32,
    /// The congestion controller.
    pub congestion_control: CongestionControl,
    /// Whether SACK is used whatever the protocol says.
    pub sack: SackUse,
    /// RACK-TLP (RFC 8985) as Linux 6.x runs it with its defaults (`net.ipv4.tcp_recovery = 1`,
    /// `tcp_early_retrans = 3`): time-based loss marking and the tail loss probe of an RFC 6675
    /// sender (`recovery/rack.rs`, `recovery/tlp.rs`). Off in every BSD profile and in the
    /// `linux-paper` presets (live: `tcp_recovery=0`, `tcp_early_retrans=0`).
    pub rack_tlp: bool,
    /// Linux's undo of a spurious congestion response (`undo.rs`), detected by timestamps (Eifel,
    /// RFC 3522; `tcp_packet_delayed()`) or by DSACKs for every retransmission of the episode
    /// (`tcp_may_undo()`'s `undo_retrans == 0`, `tcp_try_undo_dsack()`; `dsack.rs`), at
    /// `tcp_try_undo_recovery()`, `tcp_try_undo_partial()`, `tcp_try_undo_loss()` of
    /// net/ipv4/tcp_input.c. Off in every BSD profile and in `linux-paper` (neither timestamps
    /// nor SACK there); on in `linux-paper-sack`, where only DSACKs can trigger it.
    pub undo: bool,
    /// RFC 2883 DSACK as Linux's receiver sends it (`net.ipv4.tcp_dsack = 1`, `tcp_dsack_set()`
    /// in net/ipv4/tcp_input.c): a duplicate segment is reported in the first SACK block of the
    /// ACK it causes, once (`dsack.rs`). Off in every BSD profile and in `linux-paper`.
    pub dsack: bool,
    /// F-RTO (RFC 5682 section 3 with its SACK variant, as Linux 6.x runs it with
    /// `net.ipv4.tcp_frto = 2`: `tcp_enter_loss()`, `tcp_process_loss()`): after a timeout the
    /// first ACK advancing `snd_una` sends new data instead of retransmissions, and an ACK for
    /// data never retransmitted then undoes the timeout's window collapse (`frto.rs`). Off in
    /// every BSD profile and in the `linux-paper` presets (live: `tcp_frto=0`).
    pub frto: bool,
    /// Linux's SACK emulation for a connection without SACK (`tcp_add_reno_sack()`, net/ipv4/
    /// tcp_input.c): each duplicate ACK counts as a segment delivered, so it takes one out of
    /// `tcp_packets_in_flight()` and a cwnd-limited sender sends one new segment per duplicate
    /// below the threshold (`reno_sacks.rs`). Off in every BSD profile (4.4BSD sends nothing on a
    /// duplicate below `tcprexmtthresh`); on in the Linux profiles, where only a connection
    /// without SACK (`linux-paper`'s) reads it.
    pub reno_sack_emulation: bool,
    /// Linux's SACK compression at the receiver (`linux_sack_compress.rs`). Off in every BSD
    /// profile and in `linux-paper` (no SACK there).
    pub sack_compress: SackCompress,
    /// User setting: from the reader's wakeup to its first `read()`. Default 0: the simulated CPU is
    /// infinitely fast, so the reader runs the moment `tcp_input` returns (after the ACK it sent).
    pub read_delay: Time,
    /// User setting: the bytes one `read()` asks for. Default 8192, the buffer of `ttcp -r` and of
    /// the BSD `ftp` client's data loop (`st_blksize` of an FFS file), the tools of the time.
    pub read_size: u32,
}

/// The default of [`HostProfile::read_size`].
pub const DEFAULT_READ_SIZE: u32 = 8192;

/// The `read-delay` a host may be given: 0 (the simulated CPU is infinitely fast, the default) to
/// 10 s, beyond which the reader is no longer late but stalled and the run measures only waiting
/// (our bound, as before the duration grammar).
pub const READ_DELAY_RANGE: Range = Range::new(0, 10 * SEC);

/// The minimum RTO a Linux estimator may be given (`linux:<duration>`): 0 to `TCP_RTO_MAX`
/// 120 s; `ip route ... rto_min` takes any value, the kernel's own bounds are these.
pub const RTO_MIN_RANGE: Range = Range::new(0, 120 * SEC);

impl HostProfile {
    /// Whether the host has any of today's details, the ones no BSD profile of the papers sets
    /// (docs/host-profiles.md): RFC 7323's window scaling and timestamps, Linux's timer wheel,
    /// RTT estimator, congestion controllers, delayed ACK, RFC 6675 recovery with PRR, RACK-TLP,
    /// the undo, DSACK, F-RTO, SACK emulation and SACK compression. A TCP whose host has none
    /// takes the segment and sends by a path where their tests are compiled away (`input.rs`,
    /// `output.rs`, `ack.rs`: each such test is `TODAY && ...`, and with every detail off it
    /// would be false; docs/speed.md, issue 50, bound (a)).
    pub fn has_todays_details(&self) -> bool {
        self.window_scaling
            || self.timestamps
            || self.timer_clock != TimerClock::BsdTicks
            || matches!(self.rtt_estimator, RttEstimator::Linux { .. })
            || self.congestion_control != CongestionControl::Bsd
            || self.delayed_ack == DelayedAck::Linux
            || self.sack_recovery == SackRecovery::Rfc6675Prr
            || self.rack_tlp
            || self.undo
            || self.dsack
            || self.frto
            || self.reno_sack_emulation
            || self.sack_compress != SackCompress::Off
    }
}
