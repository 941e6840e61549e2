//! Congestion control as one part of the one TCP: a controller owns `snd_cwnd` and
//! `snd_ssthresh` and is told of the events that move them; the TCP reads the window and never
//! assigns it. The shape follows quinn-proto's `congestion::Controller` (the connection reports
//! ACKs and congestion events, the controller answers with a window) and ns-3's
//! `TcpCongestionOps` (`GetSsThresh` on a loss, `IncreaseWindow` per ACK), with the window
//! changes of fast recovery that ns-3 gives `TcpRecoveryOps` (`EnterRecovery`, `DoRecovery`,
//! `ExitRecovery`) kept here as events too, since in BSD they are cwnd assignments.
//!
//! One file per controller: [`Reno`] as 4.4BSD does it (each BSD host profile's details
//! included), [`NewReno`] (RFC 6582's window rules as the NewReno policy has them), and the
//! Linux controllers a host takes with its `congestion-control` detail, around the Linux TCP's
//! side of congestion control (`linux.rs`): [`Cubic`] (RFC 9438 as Linux runs it, with HyStart,
//! `hystart.rs`, and the per-ACK RTT samples it needs, `sent_times.rs`) and [`LinuxReno`].
//! Dispatch is by enum, so the TCP stays `Clone` for run sharing (`sim/src/run/sharing/`).

mod cubic;
mod hystart;
mod linux;
mod linux_reno;
mod newreno;
mod packets;
mod reno;
mod sent_times;

pub use cubic::Cubic;
pub use hystart::Exit as HyStartExit;
pub use linux::INFINITE_SSTHRESH;
pub use linux_reno::LinuxReno;
pub use newreno::NewReno;
pub use reno::Reno;

use super::{CongestionControl, HostProfile, PartialAck, RecoveryPolicy, TCP_MAXWIN};
use crate::seq::Seq;
use crate::time::Time;

/// A congestion controller's rules, chosen by the sender's policy and host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Controller {
    Reno(Reno),
    NewReno(NewReno),
    Cubic(Box<Cubic>),
    LinuxReno(LinuxReno),
}

impl Controller {
    /// The controller of a sender with `policy` on `host`. A BSD host
    /// ([`CongestionControl::Bsd`]): NewReno's window rules go with its partial-ACK rule
    /// ([`PartialAck::RetransmitNextHole`]), Reno's with every other policy. A Linux host:
    /// its controller whatever the policy, whose recovery part stays the policy's.
    pub fn for_sender(policy: &RecoveryPolicy, host: &HostProfile) -> Controller {
        match host.congestion_control {
            CongestionControl::Bsd => {}
            CongestionControl::Cubic => return Controller::Cubic(Box::new(Cubic::new())),
            CongestionControl::LinuxReno => return Controller::LinuxReno(LinuxReno::default()),
        }
        let reno = Reno::for_host(host);
        match policy.partial_ack {
            PartialAck::ExitRecovery => Controller::Reno(reno),
            PartialAck::RetransmitNextHole => Controller::NewReno(NewReno { reno }),
        }
    }

    /// Whether it is one of Linux's (`linux.rs`).
    #[inline]
    fn is_linux(&self) -> bool {
        matches!(self, Controller::Cubic(_) | Controller::LinuxReno(_))
    }

    /// The most a window may be: BSD's `TCP_MAXWIN`; Linux's `snd_cwnd_clamp` is unlimited.
    #[inline]
    fn max_window(&self) -> u32 {
        if self.is_linux() {
            u32::MAX
        } else {
            TCP_MAXWIN
        }
    }
}

/// A new ACK as the controller hears of it.
#[derive(Clone, Copy, Debug)]
pub struct AckInfo {
    pub now: Time,
    /// `snd_una` before the ACK.
    pub una: Seq,
    /// The ACK: `snd_una` after it.
    pub ack: Seq,
    /// `snd_max`, the highest sequence sent (Linux's `snd_nxt`).
    pub snd_max: Seq,
    /// The bytes this ACK newly delivered: `ack - una` less what SACK reported below `ack`
    /// before, plus what it newly SACKs (RFC 6937's DeliveredData; `ack - una` without SACK).
    /// What a Linux controller grows by (`linux.rs`).
    pub delivered: u32,
}

/// Data leaving the sender, as the controller hears of it.
#[derive(Clone, Copy, Debug)]
pub struct SentInfo {
    pub now: Time,
    /// The data's first sequence number and length.
    pub start: Seq,
    pub len: u32,
    /// `snd_una` and `snd_max` before it left.
    pub una: Seq,
    pub snd_max: Seq,
    /// The retransmission timeout in force.
    pub rto: Time,
    /// The TCP's Linux estimator keeps the send time (`linux_rtt.rs`), so CUBIC need not.
    pub timed: bool,
}

/// The window a controller moves (`snd_cwnd`, `snd_ssthresh` of `struct tcpcb`), in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub cwnd: u32,
    pub ssthresh: u32,
}

/// The congestion window, the slow-start threshold and the controller whose rules move them.
#[derive(Clone, Debug)]
pub struct Congestion {
    w: Window,
    /// The controller is one of Linux's, kept beside it: the TCP asks on every segment sent and
    /// every ACK, and a test of a flag is cheaper than a match on the controller (issue 50).
    linux: bool,
    controller: Controller,
}

impl Congestion {
    /// Before the handshake both are `TCP_MAXWIN`, as `tcp_newtcpcb` sets them; a Linux
    /// controller's ssthresh is `TCP_INFINITE_SSTHRESH` (`tcp_init_sock`).
    pub fn new(controller: Controller) -> Congestion {
        let ssthresh = if controller.is_linux() {
            INFINITE_SSTHRESH
        } else {
            TCP_MAXWIN
        };
        Congestion {
            w: Window {
                cwnd: TCP_MAXWIN,
                ssthresh,
            },
            linux: controller.is_linux(),
            controller,
        }
    }

    #[inline]
    pub fn cwnd(&self) -> u32 {
        self.w.cwnd
    }

    #[inline]
    pub fn ssthresh(&self) -> u32 {
        self.w.ssthresh
    }

    pub fn controller(&self) -> &Controller {
        &self.controller
    }

    /// `tcp_mss()`: the initial window is one segment of the negotiated size.
    pub fn on_mss(&mut self, mss: u32) {
        self.on_mss_iw(mss, 1);
    }

    /// `tcp_mss()` with an initial window of `segments` segments: Linux sets `snd_cwnd` to
    /// `tcp_init_cwnd()` (`TCP_INIT_CWND` 10, RFC 6928) when the handshake ends
    /// (`tcp_init_transfer()`); one segment is BSD's [`Congestion::on_mss`]. A Linux controller
    /// learns the segment size and the window here.
    pub fn on_mss_iw(&mut self, mss: u32, segments: u32) {
        self.w.cwnd = mss.saturating_mul(segments.max(1));
        match &mut self.controller {
            Controller::Cubic(c) => c.on_mss(mss, self.w.cwnd),
            Controller::LinuxReno(r) => r.on_mss(mss, self.w.cwnd),
            _ => {}
        }
    }

    /// A new ACK that is not a partial one. Reno and NewReno open by ACK, not by byte, and take
    /// no RTT; CUBIC counts the segments acknowledged and takes its own RTT sample, from the
    /// send times `timed`, the TCP's Linux estimator, keeps if it has one (`linux_rtt.rs`).
    #[inline]
    pub fn on_ack(&mut self, ack: &AckInfo, mss: u32, timed: Option<&mut super::LinuxRtt>) {
        match &mut self.controller {
            Controller::Reno(r) => r.increase(&mut self.w, mss),
            Controller::NewReno(n) => n.reno.increase(&mut self.w, mss),
            Controller::Cubic(c) => c.on_ack(&mut self.w, ack, timed.map(|l| l.take_ca_sent())),
            Controller::LinuxReno(r) => r.on_ack(&mut self.w, ack),
        }
    }

    /// Whether the controller must hear of every new ACK, so header prediction's ACK branch
    /// (which opens no window, BSD's `cwnd >= snd_wnd` fast path) may not take one: a Linux
    /// controller's, as Linux's fast path (`tcp_rcv_established`) runs `tcp_ack` and the
    /// congestion control in full.
    #[inline]
    pub fn hears_every_ack(&self) -> bool {
        self.linux
    }

    /// Whether [`Congestion::on_data_sent`] does anything: only a Linux controller listens.
    #[inline]
    pub fn hears_data_sent(&self) -> bool {
        self.linux
    }

    /// Data left the sender. Only Linux controllers listen: the restart after idle, and CUBIC's
    /// RTT samples.
    #[inline]
    pub fn on_data_sent(&mut self, sent: &SentInfo) {
        match &mut self.controller {
            Controller::Cubic(c) => c.on_data_sent(&mut self.w, sent),
            Controller::LinuxReno(r) => r.on_data_sent(&mut self.w, sent),
            _ => {}
        }
    }

    /// A congestion event: fast retransmit (or a SACK or SMART sender's first resend of a loss
    /// event) enters recovery. `snd_wnd` is the peer's window; the window becomes the threshold
    /// plus `inflation` (the duplicates that already left the network, in bytes). BSD halves
    /// `min(snd_wnd, cwnd)`; CUBIC takes `beta` of cwnd (`cubictcp_recalc_ssthresh`), Linux's
    /// Reno half of it (`tcp_reno_ssthresh`).
    pub fn on_recovery_start(&mut self, snd_wnd: u32, mss: u32, inflation: u32) {
        self.w.ssthresh = match &mut self.controller {
            Controller::Cubic(c) => c.ssthresh_after_loss(self.w.cwnd),
            Controller::LinuxReno(r) => r.ssthresh_after_loss(self.w.cwnd),
            _ => reno::halved_window(snd_wnd.min(self.w.cwnd), mss),
        };
        self.w.cwnd = self.w.ssthresh.saturating_add(inflation);
    }

    /// A further duplicate ACK in fast recovery: one more segment left the network (Stevens
    /// vol. 2, p. 972), so the window inflates by one segment, within the controller's most.
    pub fn on_recovery_dupack(&mut self, mss: u32) {
        self.w.cwnd = self
            .w
            .cwnd
            .saturating_add(mss)
            .min(self.controller.max_window());
    }

    /// A new ACK that is not a partial one, after `dupacks` duplicates with `thresh` in force
    /// (not called while an ELN retransmission is under way: it changes no window). The
    /// controller decides whether fast recovery ends here with the window deflated to ssthresh.
    #[inline]
    pub fn on_recovery_end(&mut self, dupacks: u32, thresh: u32) {
        let deflate = match &self.controller {
            Controller::Reno(r) => r.deflates(dupacks, thresh),
            Controller::NewReno(n) => n.deflates(dupacks, thresh),
            // leaving Recovery, Linux sets cwnd to ssthresh (`tcp_end_cwnd_reduction`)
            Controller::Cubic(_) | Controller::LinuxReno(_) => dupacks >= thresh,
        };
        if deflate && self.w.cwnd > self.w.ssthresh {
            self.w.cwnd = self.w.ssthresh;
        }
    }

    /// A partial ACK in NewReno's fast recovery (only NewReno's recovery has them: Reno's ends
    /// on any new ACK).
    pub fn on_partial_ack(&mut self) {
        newreno::partial_ack(&mut self.w);
        match &mut self.controller {
            Controller::Cubic(c) => c.on_partial_ack(),
            Controller::LinuxReno(r) => r.on_partial_ack(),
            _ => {}
        }
    }

    /// The SACK sender leaves scoreboard recovery on an ACK for everything outstanding when it
    /// began: the window is the halved one (Fall and Floyd's "Sack1", as RFC 6675 section 5
    /// step (C) leaves cwnd at ssthresh).
    pub fn on_scoreboard_recovery_end(&mut self) {
        self.w.cwnd = self.w.ssthresh;
    }

    /// RFC 6675 loss recovery with PRR begins (RFC 6937 section 3: `ssthresh = CongCtrlAlg()`,
    /// the target flight size in recovery): Reno's `ssthresh = max(FlightSize / 2, 2 * SMSS)`,
    /// RFC 5681 equation (4), which RFC 6675 section 5 step (4.2) names, in bytes and not
    /// rounded to segments. The window is left for PRR to set on each ACK
    /// ([`Congestion::set_prr_cwnd`]). Linux's Reno (`tcp_reno_ssthresh()`, net/ipv4/tcp_cong.c)
    /// halves cwnd instead of the flight size, and a Linux controller answers with its own
    /// (`tcp_init_cwnd_reduction()`). Returns the threshold.
    pub fn on_prr_recovery_start(&mut self, flight_size: u32, mss: u32) -> u32 {
        self.w.ssthresh = match &mut self.controller {
            // Linux's `tcp_init_cwnd_reduction()`: `ssthresh = icsk_ca_ops->ssthresh(sk)`, the
            // controller's own (CUBIC's beta, Linux Reno's halved cwnd)
            Controller::Cubic(c) => c.ssthresh_after_loss(self.w.cwnd),
            Controller::LinuxReno(r) => r.ssthresh_after_loss(self.w.cwnd),
            _ => (flight_size / 2).max(2 * mss),
        };
        self.w.ssthresh
    }

    /// PRR's window for one ACK in recovery: `pipe + sndcnt` (Linux `tcp_cwnd_reduction()`,
    /// net/ipv4/tcp_input.c: `tcp_snd_cwnd_set(tp, tcp_packets_in_flight(tp) + sndcnt)`), so
    /// that RFC 6675's "cwnd - pipe >= 1 SMSS" sends exactly `sndcnt` (`recovery/prr.rs`).
    pub fn set_prr_cwnd(&mut self, cwnd: u32) {
        self.w.cwnd = cwnd;
    }

    /// After a timeout's marks, Linux's `tcp_enter_loss()` (net/ipv4/tcp_input.c):
    /// `tcp_snd_cwnd_set(tp, tcp_packets_in_flight(tp) + 1)`, `in_flight` in bytes: one segment
    /// when every segment was marked lost, more when RACK left recent ones in flight.
    pub fn set_loss_cwnd(&mut self, in_flight: u32, mss: u32) {
        self.w.cwnd = in_flight.saturating_add(mss);
    }

    /// The retransmission timer expired (`tcp_timers(TCPT_REXMT)`, Stevens vol. 2, p. 842): the
    /// threshold is the halved window and the window one segment. A Linux controller:
    /// `tcp_enter_loss` (`linux.rs`); `snd_max` is what was sent before the timeout.
    pub fn on_rto(&mut self, snd_wnd: u32, mss: u32, snd_max: Seq) {
        match &mut self.controller {
            Controller::Cubic(c) => return c.on_rto(&mut self.w, snd_max),
            Controller::LinuxReno(r) => return r.on_rto(&mut self.w),
            _ => {}
        }
        self.w.ssthresh = reno::halved_window(snd_wnd.min(self.w.cwnd), mss);
        self.w.cwnd = mss;
    }

    /// Idle for a retransmission interval: no ACKs will clock data out, so slow-start again
    /// (Lite2 tcp_output.c lines 90-97). A Linux controller restarts as Linux does when data
    /// is sent ([`Congestion::on_data_sent`]).
    pub fn on_idle_restart(&mut self, mss: u32) {
        if !self.linux {
            self.w.cwnd = mss;
        }
    }

    /// Linux's `tcp_current_ssthresh()` (include/net/tcp.h) outside a window reduction, what
    /// `tcp_init_undo()`'s callers keep as `prior_ssthresh`: the larger of ssthresh and 3/4 of
    /// cwnd.
    pub fn current_ssthresh(&self) -> u32 {
        let cwnd = self.w.cwnd;
        self.w.ssthresh.max((cwnd >> 1) + (cwnd >> 2))
    }

    /// Linux's `tcp_undo_cwnd_reduction()` (net/ipv4/tcp_input.c): cwnd from the controller's
    /// `undo_cwnd`, which is `tcp_reno_undo_cwnd()` (max of cwnd and `prior_cwnd`, net/ipv4/
    /// tcp_cong.c) for both CUBIC (tcp_cubic.c names it as its own) and Reno, and ssthresh back
    /// to `prior_ssthresh` if that is larger. CUBIC's own state (epoch, `last_max_cwnd`) is not
    /// restored: it has no undo hook of its own in Linux 6.x.
    pub fn undo(&mut self, prior_cwnd: u32, prior_ssthresh: u32) {
        self.w.cwnd = self.w.cwnd.max(prior_cwnd);
        self.w.ssthresh = self.w.ssthresh.max(prior_ssthresh);
    }

    /// Tests: a threshold set by hand.
    #[cfg(test)]
    pub(super) fn set_ssthresh(&mut self, ssthresh: u32) {
        self.w.ssthresh = ssthresh;
    }

    /// Tests: the host's details after the sender was built, the window kept.
    #[cfg(test)]
    pub(super) fn set_host(&mut self, policy: &RecoveryPolicy, host: &HostProfile) {
        self.controller = Controller::for_sender(policy, host);
        self.linux = self.controller.is_linux();
    }
}

#[cfg(test)]
mod tests {
    use super::super::{CaIncrement, Deflation, HostPreset};
    use super::*;

    const MSS: u32 = 1000;

    /// NewReno's window rules go with NewReno's partial-ACK rule; each host's details go with
    /// either.
    #[test]
    fn controller_follows_the_policy_and_the_host() {
        for host in HostPreset::BSD {
            let h = host.profile();
            let reno = Reno::for_host(&h);
            assert_eq!(reno.ca_increment, h.ca_increment);
            assert_eq!(reno.deflation, h.deflation);
            assert_eq!(
                Controller::for_sender(&RecoveryPolicy::RENO, &h),
                Controller::Reno(reno)
            );
            assert_eq!(
                Controller::for_sender(&RecoveryPolicy::NEWRENO, &h),
                Controller::NewReno(NewReno { reno })
            );
        }
    }

    /// Fast retransmit, two more duplicates, then the full ACK: Reno on a 4.4BSD-Lite host keeps
    /// the inflated window after exactly three duplicates, NewReno deflates it.
    #[test]
    fn recovery_events_move_the_window() {
        let reno = Reno {
            ca_increment: CaIncrement::Plain,
            deflation: Deflation::AboveThreshold,
        };
        for (controller, deflated) in [
            (Controller::Reno(reno), false),
            (Controller::NewReno(NewReno { reno }), true),
        ] {
            let mut cc = Congestion::new(controller.clone());
            cc.on_mss(MSS);
            for i in 0..9 {
                let ack = AckInfo {
                    now: 0,
                    una: Seq(i * MSS),
                    ack: Seq((i + 1) * MSS),
                    snd_max: Seq((i + 1) * MSS),
                    delivered: MSS,
                };
                cc.on_ack(&ack, MSS, None);
            }
            assert_eq!(cc.cwnd(), 10 * MSS, "slow start: one segment per ACK");
            cc.on_recovery_start(8 * MSS, MSS, 3 * MSS);
            assert_eq!(cc.ssthresh(), 4 * MSS, "half of min(snd_wnd, cwnd)");
            assert_eq!(cc.cwnd(), 7 * MSS, "ssthresh plus the three duplicates");
            cc.on_recovery_end(3, 3);
            let expected = if deflated { 4 * MSS } else { 7 * MSS };
            assert_eq!(cc.cwnd(), expected, "{controller:?}");
            cc.on_rto(64 * MSS, MSS, Seq(0));
            assert_eq!(cc.cwnd(), MSS);
            assert_eq!(cc.ssthresh(), expected / 2 / MSS * MSS);
        }
    }
}
