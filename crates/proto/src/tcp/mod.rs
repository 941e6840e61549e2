//! One 4.4BSD-Lite TCP connection, sans-IO (docs/model.md, docs/host-profiles.md; Stevens, TCP/IP Illustrated vol. 2,
//! chapters 24-29).
//!
//! The connection is driven only through [`Tcp::on_segment`], [`Tcp::on_timeout`],
//! [`Tcp::poll_transmit`] and [`Tcp::poll_timeout`]. The coarse timers are modelled as BSD runs them:
//! a free-running 500 ms clock and 200 ms clock per host; a timer of `n` ticks set at time `t` expires on
//! the `n`-th tick of that clock after `t`, so up to one tick early relative to `n * 500 ms`. Instead of
//! waking on every tick, the connection computes the tick on which each timer expires.
//!
//! The sending application writes `app_bytes` as fast as the send buffer allows. The receiving
//! application is a reading process or reads instantly, as the host profile says (`host.rs`); a relay
//! application (the split base station) instead writes and reads explicitly.

mod ack;
mod cc;
mod clock;
mod config;
mod disorder;
mod dsack;
mod frto;
mod host;
mod host_keys;
mod host_presets;
mod input;
mod linux_delack;
mod linux_rtt;
mod linux_sack_compress;
mod output;
mod policy;
mod reass;
mod recovery;
mod reno_sacks;
mod rfc7323;
mod rtt;
mod selective;
mod small_window;
mod stats;
mod timers;
mod undo;
mod witness;

pub use cc::{AckInfo, HyStartExit, SentInfo, INFINITE_SSTHRESH};
pub use cc::{Congestion, Controller, Cubic, LinuxReno, NewReno, Reno, Window};
pub use clock::{TimerClock, KERNEL_HZ};
pub use config::{CloseWhen, TcpConfig, TimerConfig};
pub use host::CongestionControl;
pub use host::RttEstimator;
pub use host::{
    CaIncrement, Deflation, DelayedAck, HeaderPrediction, HostProfile, NextSeg, PrrReading,
    ReaderModel, SackCompress, SackRecovery, SackUse, DEFAULT_READ_SIZE, READ_DELAY_RANGE,
};
pub use host_presets::{
    BufferLimit, HostPreset, LINUX_HZ, LINUX_PAPER_RTO_MIN, MAX_LINUX_BUFFER, MIN_BUFFER, SB_MAX,
};
pub use linux_delack::LinuxAck;
pub use linux_rtt::{LinuxRtt, TCP_RTO_MAX, TCP_RTO_MIN, TCP_TIMEOUT_FALLBACK, TCP_TIMEOUT_INIT};
pub use policy::{
    Addition, DupAckThreshold, ElnRule, ElnSender, PartialAck, ReceiverPolicy, RecoveryPolicy,
    Selective,
};
pub use reass::Reassembly;
pub use recovery::Recovery;
pub use rfc7323::{initial_wscale, Rfc7323, MAX_WSCALE};
pub use rtt::{BsdRtt, BACKOFF};
pub use stats::{TcpStats, TimeoutCauses, TxKind};
pub use witness::SharingHook;

use std::collections::VecDeque;

use crate::segment::{Endpoint, Segment};
use crate::seq::Seq;
use crate::time::{earliest, next_tick_after, ticks_between, Time};

/// `TCP_MAXWIN`: the largest window a header can carry without window scaling.
pub const TCP_MAXWIN: u32 = 65535;

/// RFC 793 connection states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Closed,
    Listen,
    SynSent,
    SynRcvd,
    Established,
    CloseWait,
    FinWait1,
    Closing,
    LastAck,
    FinWait2,
    TimeWait,
}

impl State {
    /// `TCPS_HAVERCVDSYN`
    fn have_rcvd_syn(self) -> bool {
        !matches!(self, State::Closed | State::Listen | State::SynSent)
    }
    /// `TCPS_HAVERCVDFIN`
    fn have_rcvd_fin(self) -> bool {
        matches!(
            self,
            State::CloseWait | State::Closing | State::LastAck | State::TimeWait
        )
    }
}

/// One TCP connection endpoint.
#[derive(Clone, Debug)]
pub struct Tcp {
    cfg: TcpConfig,
    local: Endpoint,
    remote: Endpoint,
    state: State,
    /// The host has one of today's details ([`HostProfile::has_todays_details`]), fixed with
    /// the host: `on_segment` and `output` take the path that tests them; without, the one
    /// compiled with those tests taken as false (`input.rs`).
    today: bool,

    // --- send side (names as in `struct tcpcb`) ---
    iss: Seq,
    snd_una: Seq,
    snd_nxt: Seq,
    snd_max: Seq,
    snd_wnd: u32,
    max_sndwnd: u32,
    snd_wl1: Seq,
    snd_wl2: Seq,
    /// `snd_cwnd` and `snd_ssthresh`, owned by the congestion controller (`cc/`).
    cc: Congestion,
    /// A window for one `tcp_output` call in place of cwnd, the controller's window left as it
    /// is: one segment for a lone resend ([`Tcp::resend_one`]), Limited Transmit's one new
    /// segment (`small_window.rs`).
    output_cwnd: Option<u32>,
    maxseg: u32,
    sndbuf: u32,
    rcvbuf: u32,
    dupacks: u32,
    /// The points ([`Addition::bit`]) this sender, without them, would have acted on otherwise
    /// by now (`witness.rs`): until then its run and the same run with the point are one, state
    /// for state.
    witnessed: u8,
    sent_fin: bool,
    rtt: BsdRtt,
    /// The Linux estimator (`rtt-estimator = linux`): it then times segments and runs the
    /// retransmission timer instead of `rtt` and `timing`.
    linux_rtt: Option<LinuxRtt>,
    /// `t_rtt`/`t_rtseq`: when the timed segment was sent, and its sequence number.
    timing: Option<(Time, Seq)>,
    /// When the retransmission timer expires (`t_timer[TCPT_REXMT]`), on a slow tick.
    rexmt_at: Option<Time>,
    /// When the persist timer expires (`t_timer[TCPT_PERSIST]`), on a slow tick. Never set together
    /// with `rexmt_at`.
    persist_at: Option<Time>,
    /// `t_force`: `tcp_output` is called to send a persist probe.
    force: bool,
    /// When a segment last arrived (`t_idle` counts slow ticks since then).
    last_rcvd_at: Time,
    /// What a retransmission below `snd_max` is, for counters and traces.
    rexmt_cause: TxKind,
    /// `snd_max` when the last fast retransmit happened: the end of that loss episode's window.
    recover: Seq,
    /// The sequence number the last fast retransmit or timeout resent first.
    last_rexmt_start: Option<Seq>,
    /// The duplicate-ACK threshold in force for the current run of duplicates (fixed, or EFR's).
    cur_thresh: u32,
    /// An ELN retransmission is under way: no window change, no inflation, no deflation.
    eln_recovery: bool,
    /// Paper 004's rule: the segment the counted ELN marks ask for, and how many have come.
    eln_marks: Option<(Seq, u32)>,
    /// Paper 004's `eln_last_rxmit`: the last segment ELN resent, and when.
    eln_last_rxmit: Option<(Seq, Time)>,
    /// Selective-acknowledgment state (SACK and SMART senders).
    sel: selective::SelectiveState,
    /// The loss recovery the policy and host give ([`Recovery::of`]), kept as the policy
    /// changes (`witness.rs`): asked several times on every ACK, where the match cost `bench`
    /// 0.3% (issue 50).
    recovery: recovery::Recovery,

    // --- receive side ---
    irs: Seq,
    rcv_nxt: Seq,
    rcv_adv: Seq,
    reass: Reassembly,
    /// Sequence number of a FIN that arrived out of order.
    pending_fin: Option<Seq>,
    /// Sequence number of the last data segment received (SMART information for the next ACK).
    last_rcvd_seq: Option<Seq>,
    /// Ranges the receiver saw arrive corrupted and has not received since (for ELN marks).
    corrupted_holes: Vec<(Seq, Seq)>,
    /// `TF_DELACK`: an ACK is owed; it goes out on the next fast tick.
    delack_at: Option<Time>,
    /// `TF_ACKNOW`
    ack_now: bool,
    /// `rcv_wup`: `rcv_nxt` when the last segment (so the last ACK) was sent.
    rcv_wup: Seq,
    /// Linux's delayed-ACK state (`delayed-ack = linux`).
    linux_ack: LinuxAck,
    /// Linux's SACK compression state (`sack-compress = linux`).
    sack_compress: linux_sack_compress::SackCompression,
    /// When the woken reading process next reads (a [`ReaderModel::Process`] sink).
    read_at: Option<Time>,
    /// The reading process has read end of file.
    eof_read: bool,
    /// RFC 7323: the window scales and timestamps negotiated, `TS.Recent` (`rfc7323.rs`).
    ext: rfc7323::Rfc7323,
    /// Linux's undo of a spurious window reduction (`undo.rs`).
    undo: undo::Undo,
    /// DSACK (RFC 2883): the duplicate the next ACK reports, the duplicates reported (`dsack.rs`).
    dsack: dsack::Dsack,
    /// F-RTO (RFC 5682) after a retransmission timeout (`frto.rs`).
    frto: frto::Frto,

    out: VecDeque<(Segment, TxKind)>,
    ip_id: u16,
    stats: TcpStats,

    // --- relay application (split connections) ---
    /// Bytes a relay application has written so far.
    relay_written: u64,
    /// Bytes delivered in order that a relay application has not read yet.
    unread: u64,
    /// Receive-buffer space a relay reserves for data it already moved on (the shared relay buffer).
    reserved: u64,
    /// The relay application has closed.
    close_requested: bool,
}

impl Tcp {
    fn new(cfg: TcpConfig, local: Endpoint, remote: Endpoint, state: State) -> Tcp {
        let cfg = cfg.as_host_runs_it();
        let iss = Seq(cfg.iss);
        let rtt = BsdRtt::new(&cfg.timers, cfg.host.rtt_estimator);
        Tcp {
            local,
            remote,
            state,
            today: cfg.host.has_todays_details(),
            iss,
            snd_una: iss,
            snd_nxt: iss,
            snd_max: iss,
            snd_wnd: 0,
            max_sndwnd: 0,
            snd_wl1: Seq(0),
            snd_wl2: Seq(0),
            cc: Congestion::new(Controller::for_sender(&cfg.policy, &cfg.host)),
            output_cwnd: None,
            maxseg: cfg.mss,
            sndbuf: cfg.sndbuf,
            rcvbuf: cfg.rcvbuf,
            dupacks: 0,
            witnessed: 0,
            sent_fin: false,
            rtt,
            linux_rtt: match cfg.host.rtt_estimator {
                RttEstimator::Linux { rto_min } => {
                    Some(LinuxRtt::new(rto_min, cfg.host.timer_clock))
                }
                _ => None,
            },
            timing: None,
            rexmt_at: None,
            persist_at: None,
            force: false,
            last_rcvd_at: 0,
            rexmt_cause: TxKind::TimeoutRetransmit,
            recover: iss,
            last_rexmt_start: None,
            cur_thresh: 3,
            eln_recovery: false,
            eln_marks: None,
            eln_last_rxmit: None,
            sel: selective::SelectiveState::default(),
            recovery: recovery::Recovery::of(&cfg.policy, cfg.host.sack_recovery),
            irs: Seq(0),
            rcv_nxt: Seq(0),
            rcv_adv: Seq(0),
            reass: Reassembly::default(),
            pending_fin: None,
            corrupted_holes: Vec::new(),
            last_rcvd_seq: None,
            delack_at: None,
            ack_now: false,
            rcv_wup: Seq(0),
            linux_ack: LinuxAck::default(),
            sack_compress: linux_sack_compress::SackCompression::default(),
            read_at: None,
            eof_read: false,
            ext: rfc7323::Rfc7323::default(),
            undo: undo::Undo::default(),
            dsack: dsack::Dsack::default(),
            frto: frto::Frto::default(),
            out: VecDeque::new(),
            ip_id: 0,
            stats: TcpStats::default(),
            relay_written: 0,
            unread: 0,
            reserved: 0,
            close_requested: false,
            cfg,
        }
    }

    /// An active open: the SYN is queued at once.
    pub fn connect(cfg: TcpConfig, local: Endpoint, remote: Endpoint, now: Time) -> Tcp {
        let mut tcp = Tcp::new(cfg, local, remote, State::SynSent);
        tcp.output(now);
        tcp
    }

    /// A passive open waiting for a SYN.
    pub fn listen(cfg: TcpConfig, local: Endpoint, remote: Endpoint) -> Tcp {
        Tcp::new(cfg, local, remote, State::Listen)
    }

    /// The next segment to send, and why it is sent. Inlined across crates (as is
    /// `poll_timeout`): the simulator's host polls every endpoint at every kick, and the call
    /// returned the segment through memory once more.
    #[inline]
    pub fn poll_transmit(&mut self) -> Option<(Segment, TxKind)> {
        self.out.pop_front()
    }

    /// Whether [`Tcp::poll_transmit`] has a segment.
    #[inline]
    pub fn has_output(&self) -> bool {
        !self.out.is_empty()
    }

    /// [`Tcp::poll_transmit`] written into `seg`, a caller's buffer (the simulator's packet
    /// box): the segment is copied once, from the queue into its place, where returning it
    /// copied it twice more on its way into the packet (issue 50).
    #[inline]
    pub fn poll_transmit_into(&mut self, seg: &mut Segment) -> Option<TxKind> {
        let (next, kind) = self.out.front()?;
        *seg = *next;
        let kind = *kind;
        self.out.pop_front();
        Some(kind)
    }

    /// The earliest time [`Tcp::on_timeout`] must be called.
    #[inline]
    pub fn poll_timeout(&self) -> Option<Time> {
        // pairwise rather than `[..].into_iter().flatten().min()`: the loop re-arms every
        // endpoint's timer after each packet, and the iterator chain cost several times this
        earliest(
            earliest(
                earliest(self.rexmt_at, self.delack_at),
                earliest(self.persist_at, self.read_at),
            ),
            self.sel.early_timer.map(|(t, _)| t),
        )
    }

    /// `tcp_mss()`: take the peer's MSS offer and round the socket buffers to whole segments.
    fn apply_mss(&mut self, offer: Option<u16>) {
        let mut mss = self.cfg.mss;
        if let Some(o) = offer {
            mss = mss.min(u32::from(o));
        }
        // the options every segment carries come out of the payload (RFC 7323's timestamps)
        mss = mss.saturating_sub(self.option_overhead());
        mss = mss.max(32);
        if self.cfg.round_buffers_to_mss {
            if self.sndbuf < mss {
                mss = self.sndbuf.max(1);
            } else {
                self.sndbuf = self.sndbuf.div_ceil(mss) * mss;
            }
            if self.rcvbuf > mss {
                self.rcvbuf = self.rcvbuf.div_ceil(mss) * mss;
            }
        }
        self.maxseg = mss;
        self.cc.on_mss_iw(mss, self.initial_window());
    }

    // --- accessors ---

    pub fn state(&self) -> State {
        self.state
    }
    pub fn stats(&self) -> &TcpStats {
        &self.stats
    }
    pub fn config(&self) -> &TcpConfig {
        &self.cfg
    }
    pub fn local(&self) -> Endpoint {
        self.local
    }
    pub fn remote(&self) -> Endpoint {
        self.remote
    }
    pub fn cwnd(&self) -> u32 {
        self.cc.cwnd()
    }
    /// The smoothed round trip in whole slow ticks, at least one: ELN's "one round trip".
    pub fn srtt_ticks(&self) -> u32 {
        self.rtt.srtt_ticks()
    }
    pub fn ssthresh(&self) -> u32 {
        self.cc.ssthresh()
    }
    /// The congestion controller and its window.
    pub fn congestion(&self) -> &Congestion {
        &self.cc
    }
    pub fn maxseg(&self) -> u32 {
        self.maxseg
    }
    pub fn snd_una(&self) -> Seq {
        self.snd_una
    }
    pub fn snd_nxt(&self) -> Seq {
        self.snd_nxt
    }
    pub fn snd_max(&self) -> Seq {
        self.snd_max
    }
    pub fn snd_wnd(&self) -> u32 {
        self.snd_wnd
    }
    pub fn rcv_nxt(&self) -> Seq {
        self.rcv_nxt
    }
    pub fn dupacks(&self) -> u32 {
        self.dupacks
    }
    pub fn rtt(&self) -> &BsdRtt {
        &self.rtt
    }
    /// The Linux estimator, if the host has it (`rtt-estimator = linux`).
    pub fn linux_rtt(&self) -> Option<&LinuxRtt> {
        self.linux_rtt.as_ref()
    }
    pub fn iss(&self) -> Seq {
        self.iss
    }
    pub fn irs(&self) -> Seq {
        self.irs
    }
    /// Socket buffer sizes after `tcp_mss()` rounding: (send, receive).
    pub fn buffers(&self) -> (u32, u32) {
        (self.sndbuf, self.rcvbuf)
    }
    /// When the retransmission timer will expire, if it runs.
    pub fn rexmt_deadline(&self) -> Option<Time> {
        self.rexmt_at
    }
    /// When the owed delayed ACK will be sent, if one is owed.
    pub fn delack_deadline(&self) -> Option<Time> {
        self.delack_at
    }
    /// When the persist timer will expire, if it runs.
    pub fn persist_deadline(&self) -> Option<Time> {
        self.persist_at
    }
    /// In-order data the receiving application has not read yet (`so_rcv.sb_cc`).
    pub fn unread_bytes(&self) -> u64 {
        self.unread
    }
    /// Out-of-order data currently held.
    pub fn reass_bytes(&self) -> u32 {
        self.reass.bytes()
    }
    /// True once this side has nothing more to do (closed, or waiting out TIME_WAIT).
    pub fn is_finished(&self) -> bool {
        matches!(self.state, State::Closed | State::TimeWait)
    }

    /// Sequence number of the first data byte this side sends.
    fn data_start(&self) -> Seq {
        self.iss + 1
    }

    /// Bytes the application sends in all (known once it has closed).
    fn total_bytes(&self) -> u64 {
        match self.cfg.close_when {
            CloseWhen::Relay => self.relay_written,
            _ => self.cfg.app_bytes,
        }
    }

    /// Data bytes acknowledged by the peer.
    fn data_acked(&self) -> u64 {
        u64::from(self.snd_una.since(self.data_start())).min(self.total_bytes())
    }

    /// End of the data the application has put in the send buffer so far (`snd_una + sb_cc`): a bulk
    /// application keeps the buffer full until everything is written.
    fn buffer_end(&self) -> Seq {
        let written = match self.cfg.close_when {
            CloseWhen::Relay => self.relay_written,
            _ => (self.data_acked() + u64::from(self.sndbuf)).min(self.cfg.app_bytes),
        };
        self.data_start() + (written as u32)
    }

    /// The application has written its last byte and closed (for a sink: it has read end of file).
    fn app_closed(&self) -> bool {
        match self.cfg.close_when {
            CloseWhen::AfterSend => {
                self.data_acked() + u64::from(self.sndbuf) >= self.cfg.app_bytes
            }
            CloseWhen::AfterEof => match self.cfg.host.reader {
                ReaderModel::Instant => self.state.have_rcvd_fin(),
                ReaderModel::Process => self.eof_read,
            },
            CloseWhen::Relay => self.close_requested,
        }
    }
}

mod app_calls;

#[cfg(test)]
mod cubic_tests;
#[cfg(test)]
mod disorder_tests;
#[cfg(test)]
mod dsack_tests;
#[cfg(test)]
mod fork_tests;
#[cfg(test)]
mod frto_tests;
#[cfg(test)]
mod host_tests;
#[cfg(test)]
mod linux_sack_compress_tests;
#[cfg(test)]
mod linux_timer_tests;
#[cfg(test)]
mod rack_rto_tests;
#[cfg(test)]
mod rack_tlp_tests;
#[cfg(test)]
mod reno_sacks_tests;
#[cfg(test)]
mod rfc6675_tests;
#[cfg(test)]
mod rfc7323_tests;
#[cfg(test)]
mod small_window_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod undo_tests;
