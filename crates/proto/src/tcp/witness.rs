//! Witnesses of policy points a sender does not have ([`Addition`]): where a point's rule is
//! read, a sender without the point evaluates it too, changes nothing, and notes the first time
//! the rule would have made it act otherwise. Until then the same connection with the point has
//! done the same, state for state, so the simulator runs the two as one run until a witness fires
//! (`sim/src/run/sharing/line.rs`), and then starts the other from a copy of the run taken before
//! (`fork_tests.rs` drives twin senders through a lossy wire to check each rule).

use super::{Addition, RecoveryPolicy, Tcp};

impl Tcp {
    /// Whether this sender, without `a`, would have acted otherwise with it by now.
    pub fn would_have_acted(&self, a: Addition) -> bool {
        self.witnessed & a.bit() != 0
    }

    /// Every point that would have acted by now, as a mask of [`Addition::bit`]s.
    #[inline]
    pub fn witnesses(&self) -> u8 {
        self.witnessed
    }

    /// From now on this sender has `a`; only where [`Tcp::would_have_acted`] is false for it, so
    /// that the connection is the one that ran with it from the start.
    pub fn add(&mut self, a: Addition) {
        debug_assert!(!self.would_have_acted(a));
        self.cfg.policy = a.to(self.cfg.policy);
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
