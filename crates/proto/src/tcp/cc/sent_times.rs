//! The round-trip sample a Linux congestion controller gets with every ACK (`struct ack_sample`'s
//! `rtt_us`, handed to `pkts_acked` by `tcp_clean_rtx_queue`, net/ipv4/tcp_input.c): the time
//! since the newest segment the ACK covers was sent (`ca_rtt_us` from `last_ackt`), and none
//! when the ACK covers retransmitted data (`FLAG_RETRANS_DATA_ACKED`, Karn's rule). The BSD TCP
//! times one segment per round trip (`t_rtt`); CUBIC's HyStart needs a sample per ACK, so a
//! controller that asks for them keeps the send times here.
//!
//! Readings: only cumulative ACKs give samples (Linux takes `last_sackt` from newly SACKed
//! segments too); the clock is the simulator's nanoseconds, not Linux's microseconds.
//!
//! A TCP with Linux's RTT estimator keeps the send times once, in the estimator's queue
//! (`linux_rtt.rs`, as Linux's one walk of `tcp_clean_rtx_queue()`): its walk notes the newest
//! send time for the controller, handed in on the ACK; the queue here is kept only without it.
//! What was resent (`resent_up_to`, Karn's rule as the controller reads it) is kept here either
//! way.

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
    /// `len` bytes from `start` left at `now`; `snd_max` is the highest sequence sent before;
    /// `timed`: the estimator's queue keeps its send time.
    pub fn on_send(&mut self, now: Time, start: Seq, len: u32, snd_max: Seq, timed: bool) {
        let end = start + len;
        if start.lt(snd_max) {
            let resent = end.min(snd_max);
            self.resent_up_to = Some(self.resent_up_to.map_or(resent, |r| r.max(resent)));
        }
        if !timed && end.gt(snd_max) {
            self.sent.push_back((end, now));
        }
    }

    /// A cumulative ACK moved `snd_una` from `una` to `ack` at `now`: the sample it gives.
    /// `timed`: with the estimator's queue, the send time of the newest segment it covered
    /// ([`crate::tcp::LinuxRtt::take_ca_sent`]); `None` without one.
    pub fn on_ack(
        &mut self,
        now: Time,
        una: Seq,
        ack: Seq,
        timed: Option<Option<Time>>,
    ) -> Option<Time> {
        let newest = match timed {
            Some(newest) => newest,
            None => self.pop_acked(ack),
        };
        let resent = self.resent_up_to.is_some_and(|r| una.lt(r));
        if self.resent_up_to.is_some_and(|r| ack.ge(r)) {
            self.resent_up_to = None;
        }
        if resent {
            return None;
        }
        newest.map(|t| now.saturating_sub(t))
    }

    /// Without the estimator's queue: the send time of the newest segment `ack` covers, those
    /// it covers dropped.
    fn pop_acked(&mut self, ack: Seq) -> Option<Time> {
        let mut newest = None;
        while let Some(&(end, sent)) = self.sent.front() {
            if end.gt(ack) {
                break;
            }
            newest = Some(sent);
            self.sent.pop_front();
        }
        newest
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
        s.on_send(0, Seq(0), 100, Seq(0), false);
        s.on_send(10 * MS, Seq(100), 100, Seq(100), false);
        s.on_send(20 * MS, Seq(200), 100, Seq(200), false);
        assert_eq!(s.on_ack(50 * MS, Seq(0), Seq(200), None), Some(40 * MS));
        assert_eq!(
            s.on_ack(60 * MS, Seq(200), Seq(250), None),
            None,
            "half a segment"
        );
        assert_eq!(s.on_ack(70 * MS, Seq(250), Seq(300), None), Some(50 * MS));
    }

    /// Karn's rule: an ACK covering resent data gives no sample; later ones do again.
    #[test]
    fn resent_data_gives_no_sample() {
        let mut s = SentTimes::default();
        s.on_send(0, Seq(0), 100, Seq(0), false);
        s.on_send(0, Seq(100), 100, Seq(100), false);
        s.on_send(30 * MS, Seq(0), 100, Seq(200), false);
        assert_eq!(s.on_ack(40 * MS, Seq(0), Seq(100), None), None);
        s.on_send(40 * MS, Seq(200), 100, Seq(200), false);
        assert_eq!(s.on_ack(50 * MS, Seq(100), Seq(300), None), Some(10 * MS));
    }

    /// The controller's own queue, and its samples from a Linux estimator's queue.
    struct Both {
        own: SentTimes,
        shared: SentTimes,
        rtt: crate::tcp::LinuxRtt,
        snd_max: Seq,
        una: Seq,
    }

    impl Both {
        /// `send_segment`'s calls: the controller's, then the estimator's.
        fn send(&mut self, now: Time, start: u32, len: u32, fin: bool) {
            let (start, end) = (Seq(start), Seq(start) + len);
            self.own.on_send(now, start, len, self.snd_max, false);
            self.shared.on_send(now, start, len, self.snd_max, true);
            let ca = len > 0 && end.gt(self.snd_max);
            self.rtt.on_send(now, start, end + u32::from(fin), ca, fin);
            self.snd_max = self.snd_max.max(end + u32::from(fin));
        }

        /// An ACK: the estimator's walk, and the controller's sample when it hears it.
        fn ack(&mut self, now: Time, ack: Seq, heard: bool) -> Option<Option<Time>> {
            self.rtt.on_ack(now, ack, self.snd_max);
            if !heard {
                return None;
            }
            let a = self.own.on_ack(now, self.una, ack, None);
            let b = self
                .shared
                .on_ack(now, self.una, ack, Some(self.rtt.take_ca_sent()));
            assert_eq!(a, b, "the ACK of {ack:?}");
            self.una = ack;
            Some(a)
        }
    }

    /// The samples from the Linux estimator's queue are those of the controller's own queue:
    /// across ACKs the controller does not hear (partial ones), an ACK inside a segment, one
    /// of a FIN's data without the FIN, and a resend (Karn's rule).
    #[test]
    fn the_estimators_queue_gives_the_same_samples() {
        use crate::tcp::clock::TimerClock;
        let mut b = Both {
            own: SentTimes::default(),
            shared: SentTimes::default(),
            rtt: crate::tcp::LinuxRtt::new(
                crate::tcp::TCP_RTO_MIN,
                TimerClock::Jiffies { hz: 1000 },
            ),
            snd_max: Seq(0),
            una: Seq(0),
        };
        for i in 0..3 {
            b.send(Time::from(i) * MS, i * 100, 100, false);
        }
        let mut samples = vec![];
        for (t, ack, heard) in [
            (10, 100, false),
            (11, 150, true),
            (13, 250, true),
            (20, 300, false),
            (21, 350, true),
            (22, 400, true),
            (23, 401, true),
        ] {
            match t {
                // Karn's rule: no sample while the ACK starts below the resent data's end
                13 => b.send(12 * MS, 200, 100, false),
                // the last data with the FIN
                20 => b.send(14 * MS, 300, 100, true),
                _ => {}
            }
            samples.extend(b.ack(t * MS, Seq(ack), heard));
        }
        assert_eq!(samples, vec![Some(11 * MS), None, None, Some(8 * MS), None]);
    }
}
