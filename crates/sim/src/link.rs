//! A wired link direction: a FIFO queue, a transmission rate and a propagation delay.
//!
//! One event per packet: since the queue is FIFO, a packet's departure is known when it is enqueued,
//! so the link only schedules its arrival at the far end.

use std::collections::VecDeque;

use snooplab_proto::time::SEC;
use snooplab_proto::Time;

#[derive(Clone, Debug, PartialEq)]
pub struct WiredParams {
    pub rate_bps: u64,
    /// One-way propagation and processing delay.
    pub delay: Time,
    /// Link-layer bytes added to each IP packet (Ethernet: header, FCS, preamble, gap = 38).
    pub framing_bytes: u32,
    /// Packets the queue holds before it drops.
    pub queue_packets: usize,
}

#[derive(Clone, Debug)]
pub struct WiredLink {
    p: WiredParams,
    busy_until: Time,
    /// Departure times of packets queued or in transmission.
    departures: VecDeque<Time>,
    pub drops: u64,
    pub packets: u64,
    pub max_queue: usize,
}

/// Transmission time of `bytes` at `rate_bps`, in nanoseconds (rounded up).
pub fn tx_time(bytes: u32, rate_bps: u64) -> Time {
    (u64::from(bytes) * 8 * SEC).div_ceil(rate_bps.max(1))
}

impl WiredLink {
    pub fn new(p: WiredParams) -> WiredLink {
        WiredLink {
            p,
            busy_until: 0,
            departures: VecDeque::new(),
            drops: 0,
            packets: 0,
            max_queue: 0,
        }
    }

    /// Enqueues a packet of `ip_len` bytes at `now`; returns its arrival time at the far end, or
    /// `None` if the queue is full and it is dropped. (Inlined where the loop sends: one call
    /// site, and the call cost `bench` 0.3% of its instructions.)
    #[inline(always)]
    pub fn send(&mut self, now: Time, ip_len: u32) -> Option<Time> {
        while self.departures.front().is_some_and(|d| *d <= now) {
            self.departures.pop_front();
        }
        if self.departures.len() >= self.p.queue_packets {
            self.drops += 1;
            return None;
        }
        let start = self.busy_until.max(now);
        let done = start + tx_time(ip_len + self.p.framing_bytes, self.p.rate_bps);
        self.busy_until = done;
        self.departures.push_back(done);
        self.max_queue = self.max_queue.max(self.departures.len());
        self.packets += 1;
        Some(done + self.p.delay)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use snooplab_proto::time::{MS, US};

    fn link(q: usize) -> WiredLink {
        WiredLink::new(WiredParams {
            rate_bps: 10_000_000,
            delay: MS,
            framing_bytes: 0,
            queue_packets: q,
        })
    }

    #[test]
    fn serialises_back_to_back() {
        let mut l = link(10);
        // 1250 bytes at 10 Mb/s = 1 ms
        assert_eq!(l.send(0, 1250), Some(2 * MS));
        assert_eq!(l.send(0, 1250), Some(3 * MS));
        assert_eq!(l.send(5 * MS, 1250), Some(7 * MS));
        assert_eq!(tx_time(40, 10_000_000), 32 * US);
    }

    #[test]
    fn drops_when_full() {
        let mut l = link(2);
        assert!(l.send(0, 1250).is_some());
        assert!(l.send(0, 1250).is_some());
        assert!(l.send(0, 1250).is_none());
        assert_eq!(l.drops, 1);
        // after the first departs there is room again
        assert!(l.send(MS, 1250).is_some());
    }
}
