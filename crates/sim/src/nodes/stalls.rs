//! Where a workload connection's retransmission timeouts fell, and how long each one's timer ran
//! (issue 53: "what fraction of the latency comes from timeouts in setup, in the middle and at
//! the tail"). Read from the TCP itself, not guessed: the timer's deadline as the TCP sets it
//! (`Tcp::rexmt_deadline`), its expirations (`TcpStats::timeouts`), and the sender's state just
//! before one acts.
//!
//! A timeout's wait is the time its timer ran, from when the TCP last set it to when it fired.
//! The timer is set when data goes out with none outstanding and set again on every ACK of new
//! data (4.4BSD `tcp_input`, "If all outstanding data is acked, stop retransmit timer...
//! otherwise restart it"; Linux's `tcp_rearm_rto()`), so over that interval the oldest
//! unacknowledged byte waited with no ACK moving it: the time the connection lost to the loss
//! the timeout repairs. The timer counts as set again when its deadline changes, or when an ACK
//! of new data arrives while it runs: on BSD's 500 ms ticks a timer set again may keep its
//! deadline, but the restart is still the ACK's.

use serde::Serialize;
use snooplab_proto::tcp::{State, Tcp};
use snooplab_proto::Time;

use crate::network::FlowId;

/// Where a timeout fell in its connection's life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum StallPhase {
    /// Before the connection was established: the SYN or SYN|ACK sent again (the states
    /// `TimeoutCauses::handshake` counts).
    Setup,
    /// Established, with more than the last segment outstanding or data still unsent: the
    /// request's or response's body.
    Middle,
    /// Established, the segment to resend holding the last byte written or the FIN, nothing
    /// unsent behind it: a loss no later segment can draw duplicate ACKs for.
    Tail,
}

impl StallPhase {
    pub const ALL: [StallPhase; 3] = [StallPhase::Setup, StallPhase::Middle, StallPhase::Tail];

    /// Where a timeout due now on `tcp` falls, from the sender's state before it acts.
    pub fn of(tcp: &Tcp) -> StallPhase {
        let established = matches!(
            tcp.state(),
            State::Established
                | State::FinWait1
                | State::CloseWait
                | State::Closing
                | State::LastAck
        );
        if !established {
            return StallPhase::Setup;
        }
        // sequence space outstanding: data, and 1 for a FIN sent
        let outstanding = u64::from(tcp.snd_max().since(tcp.snd_una()));
        let last_segment = outstanding <= u64::from(tcp.maxseg()) + 1;
        let nothing_unsent = tcp.send_buffered() <= outstanding;
        if last_segment && nothing_unsent {
            StallPhase::Tail
        } else {
            StallPhase::Middle
        }
    }
}

/// A connection as both ends name it: the client's port and initial sequence number (the
/// server knows them as its remote port and `irs`), so a stall at either end finds its
/// connection even after a port came round again.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ConnId {
    pub client_port: u16,
    pub client_iss: u32,
}

/// One retransmission timeout of a workload connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stall {
    pub flow: FlowId,
    pub conn: ConnId,
    /// At the server end (the responses, its SYN|ACK and FIN); else the client's.
    pub at_server: bool,
    /// When the timer that fired was set.
    pub armed: Time,
    pub fired: Time,
    pub phase: StallPhase,
}

/// Follows one TCP's retransmission timer: when it was last set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimerWatch {
    deadline: Option<Time>,
    /// `snd_una` when last noted: an ACK of new data moves it, and sets a running timer again.
    una: u32,
    armed: Time,
}

impl TimerWatch {
    /// A watch of `tcp`'s timer as set at `now`.
    pub fn new(tcp: &Tcp, now: Time) -> TimerWatch {
        TimerWatch {
            deadline: tcp.rexmt_deadline(),
            una: tcp.snd_una().0,
            armed: now,
        }
    }

    /// After a call into the TCP at `now`: the timer runs and was set now, to another deadline
    /// or on an ACK of new data (4.4BSD `tcp_input`'s restart, Linux's `tcp_rearm_rto()`).
    #[inline]
    pub fn note(&mut self, tcp: &Tcp, now: Time) {
        let (d, una) = (tcp.rexmt_deadline(), tcp.snd_una().0);
        if d.is_some() && (d != self.deadline || una != self.una) {
            self.armed = now;
        }
        self.deadline = d;
        self.una = una;
    }

    /// When the timer now running was set.
    pub fn armed(&self) -> Time {
        self.armed
    }
}
