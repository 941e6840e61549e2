//! The one hook the simulator's sharing of runs (`sim/src/run/sharing/`) has into a TCP
//! ([`SharingHook`]), and the witnesses behind it.
//!
//! Two runs are one run for as long as every sender in them has done the same, state for state;
//! sharing needs to know of a sender only when that stops being so, and to turn a copy of a sender
//! into the other run's. Two things can differ:
//!
//! - the bytes a bulk application writes, read only near the end of its transfer
//!   ([`SharingHook::writes_alike`]);
//! - a policy point the other run's sender has and this one does not ([`Addition`]). Where a
//!   point's rule is read, a sender without the point evaluates it too, changes nothing, and
//!   notes the first time the rule would have made it act otherwise: its witness
//!   ([`SharingHook::witnesses`]). Until then the same connection with the point has done the
//!   same.
//!
//! Nothing else of a TCP is read or changed by the sharing of runs; `fork_tests.rs` drives twin
//! senders through a lossy wire to check each rule.

use super::{Addition, CloseWhen, RecoveryPolicy, Tcp};

/// What the sharing of simulated runs needs of a sender, and all of it (the module's text).
pub trait SharingHook {
    /// The points ([`Addition::bit`]s, as a mask) this sender, without them, would have acted
    /// on otherwise by now; once a point's bit is set, the run with the point has parted.
    fn witnesses(&self) -> u8;

    /// Whether all this side has done so far, and all it does in the next event, is the same
    /// for an application that writes `n` bytes as for one that writes
    /// [`TcpConfig::app_bytes`](super::TcpConfig::app_bytes) (runs that differ only in their
    /// transfers share their start).
    fn writes_alike(&self, n: u64) -> bool;

    /// From now on this sender is the other run's: its application writes `app_bytes` in all,
    /// and it has the point `adds`. Only where [`SharingHook::writes_alike`] held for
    /// `app_bytes` before the last event and the point's witness has not fired, which nothing
    /// here checks again: then the connection is the one that ran so from the start.
    fn go_on_as(&mut self, app_bytes: u64, adds: Option<Addition>);
}

impl SharingHook for Tcp {
    #[inline]
    fn witnesses(&self) -> u8 {
        self.witnessed
    }

    /// A bulk application's byte count is read only once the peer has acknowledged up to a send
    /// buffer short of it ([`Tcp::buffer_end`], [`Tcp::app_closed`]); an event acknowledges at
    /// most what was sent before it, and the handshake rounds the buffer up by less than a
    /// segment.
    fn writes_alike(&self, n: u64) -> bool {
        if n == self.cfg.app_bytes {
            return true;
        }
        if self.cfg.close_when != CloseWhen::AfterSend || n > self.cfg.app_bytes {
            return false;
        }
        let sent = if self.snd_max.lt(self.data_start()) {
            0
        } else {
            u64::from(self.snd_max.since(self.data_start()))
        };
        sent + u64::from(self.sndbuf) + u64::from(self.cfg.mss.max(32)) < n
    }

    fn go_on_as(&mut self, app_bytes: u64, adds: Option<Addition>) {
        self.cfg.app_bytes = app_bytes;
        if let Some(a) = adds {
            debug_assert!(!self.would_have_acted(a));
            self.cfg.policy = a.to(self.cfg.policy);
            self.recovery_follows_config();
        }
    }
}

impl Tcp {
    /// Whether this sender, without `a`, would have acted otherwise with it by now.
    pub(super) fn would_have_acted(&self, a: Addition) -> bool {
        self.witnessed & a.bit() != 0
    }

    /// `a` would have acted here.
    pub(super) fn witness(&mut self, a: Addition) {
        self.witnessed |= a.bit();
    }

    /// EFR's threshold (paper 001 section 5.4), for a sender without it, on the first duplicate
    /// ACK with a send window of `window` segments: it would have acted if it differs from the
    /// threshold just set. The threshold is read nowhere else: where the two are equal at every
    /// first duplicate, the sender with EFR has done the same.
    pub(super) fn witness_efr(&mut self, window: u32) {
        let efr = RecoveryPolicy::EFR.dupack_threshold;
        if self.cfg.policy.dupack_threshold != efr && efr.for_window(window) != self.cur_thresh {
            self.witness(Addition::Efr);
        }
    }
}
