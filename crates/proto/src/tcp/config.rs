//! Configuration of one 4.4BSD TCP endpoint: buffers, coarse timers and the loss-recovery policy.

use crate::tcp::host::{HostProfile, SackUse};
use crate::tcp::policy::{ReceiverPolicy, RecoveryPolicy, Selective};
use crate::time::{Time, MS};

/// The coarse timers of 4.4BSD (`tcp_slowtimo` at 2 Hz, `tcp_fasttimo` at 5 Hz) and the RTO bounds of
/// `tcp_timer.h` (Stevens, TCP/IP Illustrated vol. 2, sections 25.1-25.8).
#[derive(Clone, Debug, PartialEq)]
pub struct TimerConfig {
    /// Period of the slow timer: retransmission and RTT measurement (`PR_SLOWHZ` = 2, so 500 ms).
    pub slow_tick: Time,
    /// Period of the fast timer: delayed ACKs (`PR_FASTHZ` = 5, so 200 ms).
    pub fast_tick: Time,
    /// Offset of this host's slow-timer clock within a period: hosts' clocks are not synchronised.
    pub slow_phase: Time,
    /// Offset of this host's fast-timer clock within a period.
    pub fast_phase: Time,
    /// `TCPTV_MIN`: lower bound of the RTO, in slow ticks (2 = 1 s).
    pub rttmin_ticks: u32,
    /// `TCPTV_REXMTMAX`: upper bound of the RTO, in slow ticks (128 = 64 s).
    pub rexmtmax_ticks: u32,
    /// `TCPTV_SRTTDFLT`: assumed RTT before any sample, in slow ticks (6 = 3 s). `tcp_newtcpcb` derives
    /// the initial RTO from it: ((0 >> 2) + (6 << 2)) >> 1 = 12 ticks (6 s).
    pub srtt_default_ticks: u32,
    /// `TCP_MAXRXTSHIFT`: retransmissions of one segment before the connection is dropped (12).
    pub max_rxtshift: u32,
    /// `TCPTV_PERSMIN`: shortest persist interval, in slow ticks (10 = 5 s).
    pub persmin_ticks: u32,
    /// `TCPTV_PERSMAX`: longest persist interval, in slow ticks (120 = 60 s).
    pub persmax_ticks: u32,
}

impl Default for TimerConfig {
    fn default() -> Self {
        TimerConfig {
            slow_tick: 500 * MS,
            fast_tick: 200 * MS,
            slow_phase: 0,
            fast_phase: 0,
            rttmin_ticks: 2,
            rexmtmax_ticks: 128,
            srtt_default_ticks: 6,
            max_rxtshift: 12,
            persmin_ticks: 10,
            persmax_ticks: 120,
        }
    }
}

/// When the application closes its side of the connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CloseWhen {
    /// A bulk sender: write everything, then close (FIN follows the last byte).
    AfterSend,
    /// A sink: read until end of file, then close.
    AfterEof,
    /// A relay (the split base station): writes what it is given with [`super::Tcp::write`], reads
    /// with [`super::Tcp::read`], and closes when told with [`super::Tcp::close`].
    Relay,
}

/// One endpoint's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct TcpConfig {
    /// The MSS this host offers and the largest payload it sends.
    pub mss: u32,
    /// Send socket buffer (`so_snd.sb_hiwat`): bounds the unacknowledged plus unsent data.
    pub sndbuf: u32,
    /// Receive socket buffer (`so_rcv.sb_hiwat`): the advertised window.
    pub rcvbuf: u32,
    /// 4.4BSD's `tcp_mss()` rounds both socket buffers up to a multiple of the segment size
    /// (Stevens vol. 2, section 27.5): an 8192-byte buffer holds six 1400-byte segments, not five.
    pub round_buffers_to_mss: bool,
    /// Bytes the application writes. Read only through `Tcp::buffer_end`, `Tcp::app_closed` and
    /// `Tcp::total_bytes`, which `SharingHook::writes_alike` covers: the simulator forks runs of different
    /// transfers on it (`sim/src/run/sharing/fork.rs`).
    pub app_bytes: u64,
    pub close_when: CloseWhen,
    pub timers: TimerConfig,
    pub policy: RecoveryPolicy,
    pub receiver: ReceiverPolicy,
    /// The host's implementation details (congestion avoidance, reader, header prediction, persist).
    pub host: HostProfile,
    /// Initial send sequence number.
    pub iss: u32,
}

impl TcpConfig {
    /// A bulk sender writing `app_bytes`, then closing.
    pub fn bulk_sender(mss: u32, buffer: u32, app_bytes: u64) -> Self {
        TcpConfig {
            mss,
            sndbuf: buffer,
            rcvbuf: buffer,
            round_buffers_to_mss: true,
            app_bytes,
            close_when: CloseWhen::AfterSend,
            timers: TimerConfig::default(),
            policy: RecoveryPolicy::default(),
            receiver: ReceiverPolicy::default(),
            host: HostProfile::default(),
            iss: 1,
        }
    }

    /// The settings as the host runs them: a host that uses SACK whatever the protocol says
    /// ([`SackUse::On`], Linux's `tcp_sack`) sends SACK blocks as a receiver and, as a sender
    /// whose protocol has no selective scheme, recovers with SACK.
    pub fn as_host_runs_it(mut self) -> TcpConfig {
        if self.host.sack == SackUse::On {
            self.receiver.sack_blocks = true;
            if self.policy.selective == Selective::None {
                self.policy.selective = Selective::Sack;
            }
        }
        self
    }

    /// A relay endpoint with the given buffers (see [`CloseWhen::Relay`]).
    pub fn relay(mss: u32, sndbuf: u32, rcvbuf: u32) -> Self {
        TcpConfig {
            sndbuf,
            rcvbuf,
            close_when: CloseWhen::Relay,
            ..TcpConfig::bulk_sender(mss, sndbuf, 0)
        }
    }

    /// A sink that reads everything and closes on end of file.
    pub fn sink(mss: u32, buffer: u32) -> Self {
        TcpConfig {
            app_bytes: 0,
            close_when: CloseWhen::AfterEof,
            ..TcpConfig::bulk_sender(mss, buffer, 0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::HostPreset;

    /// Linux's `tcp_sack = 1`: a plain Reno protocol on a `linux` host sends SACK blocks and
    /// recovers with SACK; SMART stays SMART; a BSD host runs what the protocol says.
    #[test]
    fn a_host_with_sack_on_uses_it_whatever_the_protocol() {
        let with = |host: HostPreset, policy: RecoveryPolicy| {
            let mut c = TcpConfig::bulk_sender(1400, 65536, 1);
            c.host = host.profile();
            c.policy = policy;
            c.as_host_runs_it()
        };
        let linux = with(HostPreset::Linux, RecoveryPolicy::RENO);
        assert_eq!(linux.policy.selective, Selective::Sack);
        assert!(linux.receiver.sack_blocks);
        let smart = with(HostPreset::Linux, RecoveryPolicy::SMART);
        assert_eq!(smart.policy.selective, Selective::Smart);
        let bsd = with(HostPreset::Bsdos21, RecoveryPolicy::RENO);
        assert_eq!(bsd.policy.selective, Selective::None);
        assert!(!bsd.receiver.sack_blocks);
        let paper = with(HostPreset::LinuxPaper, RecoveryPolicy::RENO);
        assert_eq!(paper.policy.selective, Selective::None);
    }
}
