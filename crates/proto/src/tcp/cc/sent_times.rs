//! The round-trip sample a Linux congestion controller gets with every ACK (`struct ack_sample`'s
//! `rtt_us`, handed to `pkts_acked` by `tcp_clean_rtx_queue`, net/ipv4/tcp_input.c): the time
//! since the newest segment the ACK covers was sent (`ca_rtt_us` from `last_ackt`), and none
//! when the ACK covers retransmitted data (`FLAG_RETRANS_DATA_ACKED`, Karn's rule). The BSD TCP
//! times one segment per round trip (`t_rtt`); CUBIC's HyStart needs a sample per ACK, so a
//! controller that asks for them keeps the send times here.
//!
//! Readings: only cumulative ACKs give samples (Linux takes `last_sackt` from newly SACKed
//! segments too); the clock is the simulator's nanoseconds, not Linux's microseconds.

use std::collections::VecDeque;

use crate::seq::Seq;
use crate::time::Time;

/// The send time of each segment of new data not yet acknowledged, and how far resent data goes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SentTimes {
    /// `(end, sent)` of each segment sent as new data, oldest first.
    sent: VecDeque<(Seq, Time)>,
    /// The end of the highest data sent again (`TCPCB_RETRANS` on its segments), while an ACK
    /// for it may still come.
    resent_up_to: Option<Seq>,
}

impl SentTimes {
    /// `len` bytes from `start` left at `now`; `snd_max` is the highest sequence sent before.
    pub fn on_send(&mut self, now: Time, start: Seq, len: u32, snd_max: Seq) {
        let end = start + len;
        if start.lt(snd_max) {
            let resent = end.min(snd_max);
            self.resent_up_to = Some(self.resent_up_to.map_or(resent, |r| r.max(resent)));
        }
        if end.gt(snd_max) {
            self.sent.push_back((end, now));
        }
    }

    /// A cumulative ACK moved `snd_una` from `una` to `ack` at `now`: the sample it gives.
    pub fn on_ack(&mut self, now: Time, una: Seq, ack: Seq) -> Option<Time> {
        let mut newest = None;
        while let Some(&(end, sent)) = self.sent.front() {
            if end.gt(ack) {
                break;
            }
            newest = Some(sent);
            self.sent.pop_front();
        }
        let resent = self.resent_up_to.is_some_and(|r| una.lt(r));
        if self.resent_up_to.is_some_and(|r| ack.ge(r)) {
            self.resent_up_to = None;
        }
        if resent {
            return None;
        }
        newest.map(|t| now.saturating_sub(t))
    }

    /// A retransmission timeout: everything outstanding will be sent again.
    pub fn on_rto(&mut self, snd_max: Seq) {
        self.resent_up_to = Some(self.resent_up_to.map_or(snd_max, |r| r.max(snd_max)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::MS;

    /// The sample is from the newest segment the ACK covers; an ACK inside a segment gives none.
    #[test]
    fn sample_is_from_the_newest_segment_acked() {
        let mut s = SentTimes::default();
        s.on_send(0, Seq(0), 100, Seq(0));
        s.on_send(10 * MS, Seq(100), 100, Seq(100));
        s.on_send(20 * MS, Seq(200), 100, Seq(200));
        assert_eq!(s.on_ack(50 * MS, Seq(0), Seq(200)), Some(40 * MS));
        assert_eq!(
            s.on_ack(60 * MS, Seq(200), Seq(250)),
            None,
            "half a segment"
        );
        assert_eq!(s.on_ack(70 * MS, Seq(250), Seq(300)), Some(50 * MS));
    }

    /// Karn's rule: an ACK covering resent data gives no sample; later ones do again.
    #[test]
    fn resent_data_gives_no_sample() {
        let mut s = SentTimes::default();
        s.on_send(0, Seq(0), 100, Seq(0));
        s.on_send(0, Seq(100), 100, Seq(100));
        s.on_send(30 * MS, Seq(0), 100, Seq(200));
        assert_eq!(s.on_ack(40 * MS, Seq(0), Seq(100)), None);
        s.on_send(40 * MS, Seq(200), 100, Seq(200));
        assert_eq!(s.on_ack(50 * MS, Seq(100), Seq(300)), Some(10 * MS));
    }
}
