//! Proportional Rate Reduction, RFC 6937 section 3's pseudo-code with the slow-start reduction
//! bound (PRR-SSRB), Linux's default (`tcp_cwnd_reduction()`, net/ipv4/tcp_input.c): how much an
//! RFC 6675 sender may send on each ACK of a recovery (`rfc6675.rs`). While the flight is above
//! ssthresh it sends in proportion to what was delivered (ssthresh / RecoverFS of it, about half
//! for Reno); once the flight is at or below ssthresh it sends what was delivered plus one
//! segment, slow-starting back up to ssthresh.
//!
//! In bytes, as the RFC. Linux counts packets, and departs from the RFC in three places, named
//! here and not taken: its RecoverFS is the cwnd at entry (`prior_cwnd`, in
//! `tcp_init_cwnd_reduction()`), not the flight size; its extra segment of the bound is granted
//! only when the ACK advanced `snd_una` and marked no new loss (`FLAG_SND_UNA_ADVANCED &&
//! !newly_lost`); and it skips an ACK that delivered nothing (`newly_acked_sacked <= 0`), where
//! the RFC computes sndcnt anyway.

/// The PRR state of one recovery.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(in crate::tcp) struct Prr {
    /// `prr_delivered`: bytes delivered to the receiver since recovery began.
    pub(in crate::tcp) delivered: u64,
    /// `prr_out`: bytes sent since recovery began.
    pub(in crate::tcp) out: u64,
    /// `RecoverFS = snd.nxt - snd.una` when recovery began (at least one byte).
    pub(in crate::tcp) recover_fs: u32,
}

impl Prr {
    /// "At the beginning of recovery": `prr_delivered = prr_out = 0`, `RecoverFS` the flight.
    pub(in crate::tcp) fn start(flight_size: u32) -> Prr {
        Prr {
            delivered: 0,
            out: 0,
            recover_fs: flight_size.max(1),
        }
    }

    /// "On every ACK during recovery": `delivered` is the ACK's DeliveredData (the change in
    /// `snd.una` plus the change in SACKed bytes), `pipe` RFC 6675's. Returns sndcnt, the bytes
    /// this ACK lets the sender send, never below zero (the RFC's sndcnt may be negative when
    /// more was sent than the proportion allows; Linux sends nothing then either).
    pub(in crate::tcp) fn on_ack(
        &mut self,
        delivered: u32,
        pipe: u32,
        ssthresh: u32,
        mss: u32,
    ) -> u32 {
        self.delivered += u64::from(delivered);
        let (delivered_total, out) = (self.delivered as i64, self.out as i64);
        let sndcnt = if pipe > ssthresh {
            // Proportional Rate Reduction: CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out
            let fs = i64::from(self.recover_fs);
            (delivered_total * i64::from(ssthresh) + fs - 1) / fs - out
        } else {
            // PRR-SSRB: limit = MAX(prr_delivered - prr_out, DeliveredData) + MSS
            let limit = (delivered_total - out).max(i64::from(delivered)) + i64::from(mss);
            (i64::from(ssthresh) - i64::from(pipe)).min(limit)
        };
        sndcnt.clamp(0, i64::from(u32::MAX)) as u32
    }

    /// "On any data transmission or retransmission": `prr_out += (data sent)`.
    pub(in crate::tcp) fn on_send(&mut self, len: u32) {
        self.out += u64::from(len);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1000;

    /// Above ssthresh PRR sends ssthresh / RecoverFS of what is delivered, rounded up over the
    /// whole recovery: with Reno's half, one segment for every two delivered.
    #[test]
    fn proportional_part_sends_half_of_what_is_delivered() {
        let mut prr = Prr::start(10 * MSS);
        let ssthresh = 5 * MSS;
        let mut sent = Vec::new();
        for _ in 0..4 {
            let n = prr.on_ack(MSS, 9 * MSS, ssthresh, MSS);
            prr.on_send(n / MSS * MSS);
            sent.push(n);
        }
        assert_eq!(sent, vec![500, 1000, 500, 1000]);
    }

    /// At or below ssthresh PRR-SSRB sends what was delivered plus one segment, never beyond
    /// ssthresh.
    #[test]
    fn reduction_bound_sends_delivered_plus_one_segment_up_to_ssthresh() {
        let mut prr = Prr::start(10 * MSS);
        prr.on_send(3 * MSS);
        // prr_delivered - prr_out = 2000 - 3000 < 0: the ACK's own delivery, plus one segment
        assert_eq!(prr.on_ack(2 * MSS, 2 * MSS, 5 * MSS, MSS), 3 * MSS);
        // and never more than ssthresh - pipe
        assert_eq!(prr.on_ack(2 * MSS, 4 * MSS, 5 * MSS, MSS), MSS);
    }
}
