//! NewReno's window rules (RFC 6582 section 3.2) as the simulator's NewReno policy has them
//! (paper 000 section III-A, [`super::super::PartialAck::RetransmitNextHole`]): Reno's slow start,
//! congestion avoidance and halving, with fast recovery lasting until everything outstanding at
//! the fast retransmit is acknowledged.

use super::{Reno, Window};

/// NewReno on one BSD host: Reno's increase with that host's increment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NewReno {
    pub reno: Reno,
}

impl NewReno {
    /// The full ACK that ends fast recovery deflates the window whatever the host's Reno rule
    /// (RFC 6582 section 3.2 step 3, "Full acknowledgments": "Set cwnd to ... ssthresh"; the policy's deflation, as
    /// before, only lowers a window above ssthresh): in recovery means `dupacks >= thresh`.
    #[inline]
    pub(super) fn deflates(&self, dupacks: u32, thresh: u32) -> bool {
        dupacks >= thresh
    }
}

/// A partial ACK (RFC 6582 section 3.2 step 3, "Partial acknowledgments"): the next hole is resent at once and the window
/// is the halved one. The RFC deflates by the amount acknowledged and adds back one segment;
/// the policy, as paper 000 describes it, halves once and stays there.
pub(super) fn partial_ack(w: &mut Window) {
    w.cwnd = w.ssthresh;
}

#[cfg(test)]
mod tests {
    use super::super::super::{CaIncrement, Deflation};
    use super::*;

    #[test]
    fn recovery_ends_at_the_threshold_whatever_the_host() {
        let n = NewReno {
            reno: Reno {
                ca_increment: CaIncrement::Plain,
                deflation: Deflation::AboveThreshold,
            },
        };
        assert!(
            n.deflates(3, 3),
            "Lite's rule alone would keep ssthresh + 3 segments"
        );
        assert!(!n.deflates(2, 3));
        let mut w = Window {
            cwnd: 9000,
            ssthresh: 4000,
        };
        partial_ack(&mut w);
        assert_eq!(w.cwnd, 4000);
    }
}
