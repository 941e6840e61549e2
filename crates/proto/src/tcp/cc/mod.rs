//! Congestion control as one part of the one TCP: a controller owns `snd_cwnd` and
//! `snd_ssthresh` and is told of the events that move them; the TCP reads the window and never
//! assigns it. The shape follows quinn-proto's `congestion::Controller` (the connection reports
//! ACKs and congestion events, the controller answers with a window) and ns-3's
//! `TcpCongestionOps` (`GetSsThresh` on a loss, `IncreaseWindow` per ACK), with the window
//! changes of fast recovery that ns-3 gives `TcpRecoveryOps` (`EnterRecovery`, `DoRecovery`,
//! `ExitRecovery`) kept here as events too, since in BSD they are cwnd assignments.
//!
//! One file per controller: [`Reno`] as 4.4BSD does it (each BSD host profile's details
//! included) and [`NewReno`] (RFC 6582's window rules as the NewReno policy has them); [`Cubic`]
//! (RFC 9438 as Linux runs it) is here with its own tests but no sender runs it yet. Dispatch
//! is by enum, so the TCP stays `Clone` for run sharing (`sim/src/run/sharing/`).

mod cubic;
mod newreno;
mod reno;

pub use cubic::Cubic;
pub use newreno::NewReno;
pub use reno::Reno;

use super::{HostProfile, PartialAck, RecoveryPolicy, TCP_MAXWIN};
use crate::time::Time;

/// A congestion controller's rules, chosen by the sender's policy and host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Controller {
    Reno(Reno),
    NewReno(NewReno),
}

impl Controller {
    /// The controller of a sender with `policy` on `host`: NewReno's window rules go with its
    /// partial-ACK rule ([`PartialAck::RetransmitNextHole`]), Reno's with every other policy.
    pub fn for_sender(policy: &RecoveryPolicy, host: &HostProfile) -> Controller {
        let reno = Reno::for_host(host);
        match policy.partial_ack {
            PartialAck::ExitRecovery => Controller::Reno(reno),
            PartialAck::RetransmitNextHole => Controller::NewReno(NewReno { reno }),
        }
    }

    fn reno(&self) -> &Reno {
        match self {
            Controller::Reno(r) => r,
            Controller::NewReno(n) => &n.reno,
        }
    }
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
    controller: Controller,
}

impl Congestion {
    /// Before the handshake both are `TCP_MAXWIN`, as `tcp_newtcpcb` sets them.
    pub fn new(controller: Controller) -> Congestion {
        Congestion {
            w: Window {
                cwnd: TCP_MAXWIN,
                ssthresh: TCP_MAXWIN,
            },
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

    pub fn controller(&self) -> Controller {
        self.controller
    }

    /// `tcp_mss()`: the initial window is one segment of the negotiated size.
    pub fn on_mss(&mut self, mss: u32) {
        self.w.cwnd = mss;
    }

    /// `tcp_mss()` with an initial window of `segments` segments: Linux sets `snd_cwnd` to
    /// `tcp_init_cwnd()` (`TCP_INIT_CWND` 10, RFC 6928) when the handshake ends
    /// (`tcp_init_transfer()`); one segment is BSD's [`Congestion::on_mss`].
    pub fn on_mss_iw(&mut self, mss: u32, segments: u32) {
        self.w.cwnd = mss.saturating_mul(segments.max(1));
    }

    /// A new ACK that is not a partial one acknowledged `acked` bytes, with the RTT sample it
    /// closed, if any. Reno and NewReno open by ACK, not by byte, and take no RTT.
    #[inline]
    pub fn on_ack(&mut self, acked: u32, rtt: Option<Time>, mss: u32) {
        let _ = (acked, rtt);
        self.controller.reno().increase(&mut self.w, mss);
    }

    /// A congestion event: fast retransmit (or a SACK or SMART sender's first resend of a loss
    /// event) enters recovery. `snd_wnd` is the peer's window; the window becomes the threshold
    /// plus `inflation` (the duplicates that already left the network, in bytes).
    pub fn on_recovery_start(&mut self, snd_wnd: u32, mss: u32, inflation: u32) {
        self.w.ssthresh = reno::halved_window(snd_wnd.min(self.w.cwnd), mss);
        self.w.cwnd = self.w.ssthresh + inflation;
    }

    /// A further duplicate ACK in fast recovery: one more segment left the network (Stevens
    /// vol. 2, p. 972), so the window inflates by one segment, within `TCP_MAXWIN`.
    pub fn on_recovery_dupack(&mut self, mss: u32) {
        self.w.cwnd = (self.w.cwnd + mss).min(TCP_MAXWIN);
    }

    /// A new ACK that is not a partial one, after `dupacks` duplicates with `thresh` in force
    /// (not called while an ELN retransmission is under way: it changes no window). The
    /// controller decides whether fast recovery ends here with the window deflated to ssthresh.
    #[inline]
    pub fn on_recovery_end(&mut self, dupacks: u32, thresh: u32) {
        let deflate = match self.controller {
            Controller::Reno(r) => r.deflates(dupacks, thresh),
            Controller::NewReno(n) => n.deflates(dupacks, thresh),
        };
        if deflate && self.w.cwnd > self.w.ssthresh {
            self.w.cwnd = self.w.ssthresh;
        }
    }

    /// A partial ACK in NewReno's fast recovery (only NewReno's recovery has them: Reno's ends
    /// on any new ACK).
    pub fn on_partial_ack(&mut self) {
        newreno::partial_ack(&mut self.w);
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
    /// halves cwnd instead of the flight size; a controller of its own (CUBIC's beta) answers
    /// here later. Returns the threshold.
    pub fn on_prr_recovery_start(&mut self, flight_size: u32, mss: u32) -> u32 {
        self.w.ssthresh = (flight_size / 2).max(2 * mss);
        self.w.ssthresh
    }

    /// PRR's window for one ACK in recovery: `pipe + sndcnt` (Linux `tcp_cwnd_reduction()`,
    /// net/ipv4/tcp_input.c: `tcp_snd_cwnd_set(tp, tcp_packets_in_flight(tp) + sndcnt)`), so
    /// that RFC 6675's "cwnd - pipe >= 1 SMSS" sends exactly `sndcnt` (`recovery/prr.rs`).
    pub fn set_prr_cwnd(&mut self, cwnd: u32) {
        self.w.cwnd = cwnd;
    }

    /// The retransmission timer expired (`tcp_timers(TCPT_REXMT)`, Stevens vol. 2, p. 842): the
    /// threshold is the halved window and the window one segment.
    pub fn on_rto(&mut self, snd_wnd: u32, mss: u32) {
        self.w.ssthresh = reno::halved_window(snd_wnd.min(self.w.cwnd), mss);
        self.w.cwnd = mss;
    }

    /// Idle for a retransmission interval: no ACKs will clock data out, so slow-start again
    /// (Lite2 tcp_output.c lines 90-97).
    pub fn on_idle_restart(&mut self, mss: u32) {
        self.w.cwnd = mss;
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
        for host in HostPreset::ALL {
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
            let mut cc = Congestion::new(controller);
            cc.on_mss(MSS);
            for _ in 0..9 {
                cc.on_ack(MSS, None, MSS);
            }
            assert_eq!(cc.cwnd(), 10 * MSS, "slow start: one segment per ACK");
            cc.on_recovery_start(8 * MSS, MSS, 3 * MSS);
            assert_eq!(cc.ssthresh(), 4 * MSS, "half of min(snd_wnd, cwnd)");
            assert_eq!(cc.cwnd(), 7 * MSS, "ssthresh plus the three duplicates");
            cc.on_recovery_end(3, 3);
            let expected = if deflated { 4 * MSS } else { 7 * MSS };
            assert_eq!(cc.cwnd(), expected, "{controller:?}");
            cc.on_rto(64 * MSS, MSS);
            assert_eq!(cc.cwnd(), MSS);
            assert_eq!(cc.ssthresh(), expected / 2 / MSS * MSS);
        }
    }
}
