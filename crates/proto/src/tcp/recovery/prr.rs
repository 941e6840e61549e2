//! Proportional Rate Reduction, RFC 6937 section 3's pseudo-code with the slow-start reduction
//! bound (PRR-SSRB), Linux's default (`tcp_cwnd_reduction()`, net/ipv4/tcp_input.c): how much an
//! RFC 6675 sender may send on each ACK of a recovery (`rfc6675.rs`). While the flight is above
//! ssthresh it sends in proportion to what was delivered (ssthresh / RecoverFS of it, about half
//! for Reno); once the flight is at or below ssthresh it sends what was delivered plus one
//! segment, slow-starting back up to ssthresh.
//!
//! Two readings, the host detail `prr` ([`PrrReading`]):
//! - `rfc6937`: the RFC's pseudo-code, in bytes.
//! - `linux`: Linux 6.x `tcp_cwnd_reduction()` and `tcp_init_cwnd_reduction()`, in whole
//!   segments as Linux counts packets, with its four departures from the RFC:
//!   (a) RecoverFS is the cwnd at entry (`tp->prior_cwnd`), not the flight size;
//!   (b) the bound's extra segment is granted only when the ACK advanced `snd_una` and marked no
//!   new loss (`flag & FLAG_SND_UNA_ADVANCED && !newly_lost`, `newly_lost` being `rs->losses`,
//!   the segments this ACK's processing marked lost);
//!   (c) an ACK that delivered nothing (`newly_acked_sacked <= 0`) returns at once, cwnd left as
//!   it was;
//!   (d) `sndcnt = max(sndcnt, prr_out ? 0 : 1)`: the recovery's first send is forced.
//!   Segments are the bytes divided by the MSS, rounded up for what was delivered, sent and in
//!   flight (a short segment is one packet) and down for ssthresh and cwnd (a reading: the
//!   model's windows are bytes). A negative sndcnt (more sent than the proportion allows) is 0
//!   here; Linux's (d) makes it at least 0 too once something was sent in the recovery.
//!
//! The entering ACK ([`Prr::sizes_entry_before_first_send`]): `rfc6937` resends the segment at
//! `snd_una` first (RFC 6675 section 5 step 4.3) and then sizes the ACK (step 4.5), that resend
//! already in `prr_out` and in the pipe. `linux` sizes it first, as Linux 6.x orders one ACK's
//! work: `tcp_ack()` calls `tcp_fastretrans_alert()`, which enters the recovery
//! (`tcp_enter_recovery()` -> `tcp_init_cwnd_reduction()`: `prr_out` 0), then
//! `tcp_cong_control()` -> `tcp_cwnd_reduction()`, the head counted lost and not in flight, and
//! only then `tcp_xmit_recovery()` -> `tcp_xmit_retransmit_queue()` (net/ipv4/tcp_output.c),
//! which sends by that window; the reordering timer's entry is in the same order
//! (`tcp_rack_reo_timeout()`, net/ipv4/tcp_recovery.c: `tcp_enter_recovery()`,
//! `tcp_cwnd_reduction(sk, 1, ...)`, `tcp_xmit_retransmit_queue()`). So (d) is what lets the
//! first resend out when the flight is at ssthresh, and below it the entering ACK's
//! `delivered (+ 1)` counts the resend among its segments rather than on top of them.

use crate::tcp::host::PrrReading;

/// What one ACK (or the reordering timer) tells PRR.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(in crate::tcp) struct PrrAck {
    /// RFC 6937's DeliveredData: the change in `snd_una` plus the change in SACKed bytes
    /// (Linux's `newly_acked_sacked`, in packets).
    pub(in crate::tcp) delivered: u32,
    /// The ACK moved `snd_una` (Linux's `FLAG_SND_UNA_ADVANCED`).
    pub(in crate::tcp) una_advanced: bool,
    /// Segments this ACK marked lost (Linux's `rs->losses`: the change in `tp->lost`).
    pub(in crate::tcp) newly_lost: u32,
}

/// The PRR state of one recovery.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(in crate::tcp) struct Prr {
    reading: PrrReading,
    /// `prr_delivered`: delivered since recovery began, in bytes (`rfc6937`) or segments (`linux`).
    pub(in crate::tcp) delivered: u64,
    /// `prr_out`: sent since recovery began, in the same unit.
    pub(in crate::tcp) out: u64,
    /// RecoverFS in the same unit (at least one).
    pub(in crate::tcp) recover_fs: u32,
    mss: u32,
}

impl Prr {
    /// "At the beginning of recovery": `prr_delivered = prr_out = 0`; RecoverFS the flight
    /// (`rfc6937`) or the cwnd (`linux`, `tp->prior_cwnd = tcp_snd_cwnd(tp)`) at entry.
    pub(in crate::tcp) fn start(reading: PrrReading, flight_size: u32, cwnd: u32, mss: u32) -> Prr {
        let mss = mss.max(1);
        let recover_fs = match reading {
            PrrReading::Rfc6937 => flight_size,
            PrrReading::Linux => cwnd / mss,
        };
        Prr {
            reading,
            delivered: 0,
            out: 0,
            recover_fs: recover_fs.max(1),
            mss,
        }
    }

    /// Bytes in this reading's unit: themselves, or whole segments (rounded up).
    fn units(&self, bytes: u32) -> u64 {
        match self.reading {
            PrrReading::Rfc6937 => u64::from(bytes),
            PrrReading::Linux => u64::from(bytes.div_ceil(self.mss)),
        }
    }

    /// "On every ACK during recovery": `pipe` is RFC 6675's, in bytes. Returns sndcnt in bytes,
    /// what this ACK lets the sender send beyond `pipe` (the caller sets cwnd = pipe + sndcnt),
    /// never below zero (the RFC's sndcnt may be negative when more was sent than the
    /// proportion allows; Linux sends nothing then either); `None` where Linux leaves cwnd as
    /// it was (c).
    pub(in crate::tcp) fn on_ack(&mut self, ack: PrrAck, pipe: u32, ssthresh: u32) -> Option<u32> {
        let linux = self.reading == PrrReading::Linux;
        let delivered = self.units(ack.delivered);
        if linux && delivered == 0 {
            return None; // (c)
        }
        self.delivered += delivered;
        let (delivered_total, out) = (self.delivered as i64, self.out as i64);
        let (pipe, ssthresh, one) = match self.reading {
            PrrReading::Rfc6937 => (u64::from(pipe), u64::from(ssthresh), u64::from(self.mss)),
            PrrReading::Linux => (self.units(pipe), u64::from(ssthresh / self.mss), 1),
        };
        let (pipe, ssthresh, one) = (pipe as i64, ssthresh as i64, one as i64);
        let mut sndcnt = if pipe > ssthresh {
            // Proportional Rate Reduction: CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out
            let fs = i64::from(self.recover_fs);
            (delivered_total * ssthresh + fs - 1) / fs - out
        } else {
            // PRR-SSRB: limit = MAX(prr_delivered - prr_out, DeliveredData) + MSS, the MSS only
            // on an ACK that advanced snd_una and marked no loss in Linux (b)
            let extra = !linux || (ack.una_advanced && ack.newly_lost == 0);
            let limit = (delivered_total - out).max(delivered as i64) + if extra { one } else { 0 };
            (ssthresh - pipe).min(limit)
        };
        if linux && out == 0 {
            sndcnt = sndcnt.max(1); // (d) "Force a fast retransmit upon entering fast recovery"
        }
        let unit = if linux { i64::from(self.mss) } else { 1 };
        Some((sndcnt.max(0) * unit).min(i64::from(u32::MAX)) as u32)
    }

    /// Whether the entering ACK is sized before the recovery's first resend (Linux's order,
    /// the module's doc), rather than after it (RFC 6675 section 5 steps 4.3 then 4.5).
    pub(in crate::tcp) fn sizes_entry_before_first_send(&self) -> bool {
        self.reading == PrrReading::Linux
    }

    /// "On any data transmission or retransmission": `prr_out += (data sent)`.
    pub(in crate::tcp) fn on_send(&mut self, len: u32) {
        self.out += self.units(len);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1000;

    fn ack(delivered: u32) -> PrrAck {
        PrrAck {
            delivered,
            una_advanced: false,
            newly_lost: 0,
        }
    }

    fn rfc(flight: u32) -> Prr {
        Prr::start(PrrReading::Rfc6937, flight, flight, MSS)
    }

    fn linux(flight: u32, cwnd: u32) -> Prr {
        Prr::start(PrrReading::Linux, flight, cwnd, MSS)
    }

    /// Above ssthresh PRR sends ssthresh / RecoverFS of what is delivered, rounded up over the
    /// whole recovery: with Reno's half, one segment for every two delivered.
    #[test]
    fn proportional_part_sends_half_of_what_is_delivered() {
        let mut prr = rfc(10 * MSS);
        let ssthresh = 5 * MSS;
        let mut sent = Vec::new();
        for _ in 0..4 {
            let n = prr.on_ack(ack(MSS), 9 * MSS, ssthresh).unwrap_or(0);
            prr.on_send(n / MSS * MSS);
            sent.push(n);
        }
        assert_eq!(sent, vec![500, 1000, 500, 1000]);
    }

    /// At or below ssthresh PRR-SSRB sends what was delivered plus one segment, never beyond
    /// ssthresh.
    #[test]
    fn reduction_bound_sends_delivered_plus_one_segment_up_to_ssthresh() {
        let mut prr = rfc(10 * MSS);
        prr.on_send(3 * MSS);
        // prr_delivered - prr_out = 2000 - 3000 < 0: the ACK's own delivery, plus one segment
        assert_eq!(prr.on_ack(ack(2 * MSS), 2 * MSS, 5 * MSS), Some(3 * MSS));
        // and never more than ssthresh - pipe
        assert_eq!(prr.on_ack(ack(2 * MSS), 4 * MSS, 5 * MSS), Some(MSS));
    }

    /// (a) Linux's RecoverFS is the cwnd at entry: with a flight of 5 segments under a cwnd of
    /// 10 and ssthresh 3, the second delivered segment lets nothing out (CEIL(2 * 3 / 10) = 1,
    /// already sent), where RecoverFS = the flight would send one (CEIL(2 * 3 / 5) - 1 = 1).
    #[test]
    fn linux_recover_fs_is_the_cwnd_at_entry() {
        let mut prr = linux(5 * MSS, 10 * MSS);
        assert_eq!(prr.recover_fs, 10);
        assert_eq!(prr.on_ack(ack(MSS), 4 * MSS, 3 * MSS), Some(MSS));
        prr.on_send(MSS);
        assert_eq!(prr.on_ack(ack(MSS), 4 * MSS, 3 * MSS), Some(0));
    }

    /// (b) Linux grants the bound's extra segment only to an ACK that advanced `snd_una` and
    /// marked no new loss; a duplicate ACK, or one that marked a loss, sends what it delivered.
    #[test]
    fn linux_reduction_bound_extra_segment_needs_una_advanced_and_no_new_loss() {
        let bound = |a: PrrAck| {
            let mut prr = linux(10 * MSS, 10 * MSS);
            prr.on_send(3 * MSS);
            prr.on_ack(a, 2 * MSS, 7 * MSS)
        };
        assert_eq!(bound(ack(MSS)), Some(MSS));
        let advanced = PrrAck {
            una_advanced: true,
            ..ack(MSS)
        };
        assert_eq!(bound(advanced), Some(2 * MSS));
        let lost = PrrAck {
            newly_lost: 1,
            ..advanced
        };
        assert_eq!(bound(lost), Some(MSS));
        // the RFC's bound has the extra segment on every ACK
        let mut prr = rfc(10 * MSS);
        prr.on_send(3 * MSS);
        assert_eq!(prr.on_ack(ack(MSS), 2 * MSS, 7 * MSS), Some(2 * MSS));
    }

    /// (c) An ACK that delivered nothing leaves Linux's cwnd alone and counts nothing; the
    /// RFC computes sndcnt anyway, its bound's extra segment included.
    #[test]
    fn linux_ack_delivering_nothing_changes_nothing() {
        let mut prr = linux(10 * MSS, 10 * MSS);
        prr.on_send(MSS);
        assert_eq!(prr.on_ack(ack(0), 2 * MSS, 7 * MSS), None);
        assert_eq!((prr.delivered, prr.out), (0, 1));
        let mut prr = rfc(10 * MSS);
        prr.on_send(MSS);
        assert_eq!(prr.on_ack(ack(0), 2 * MSS, 7 * MSS), Some(MSS));
    }

    /// (d) Before anything is sent in the recovery Linux forces one segment out, even with the
    /// flight at ssthresh; the RFC sends nothing there.
    #[test]
    fn linux_forces_the_first_send() {
        let mut prr = linux(10 * MSS, 10 * MSS);
        assert_eq!(prr.on_ack(ack(MSS), 7 * MSS, 7 * MSS), Some(MSS));
        prr.on_send(MSS);
        assert_eq!(prr.on_ack(ack(MSS), 7 * MSS, 7 * MSS), Some(0));
        let mut prr = rfc(10 * MSS);
        assert_eq!(prr.on_ack(ack(MSS), 7 * MSS, 7 * MSS), Some(0));
    }

    /// Linux counts packets: a short segment delivered or sent is one.
    #[test]
    fn linux_counts_whole_segments() {
        let mut prr = linux(10 * MSS, 10 * MSS);
        prr.on_send(300);
        let _ = prr.on_ack(ack(MSS + 1), 9 * MSS, 7 * MSS);
        assert_eq!((prr.delivered, prr.out), (2, 1));
    }
}
