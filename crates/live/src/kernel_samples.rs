//! A kernel sender's congestion state over time: `TCP_INFO` read at a fixed interval while the
//! transfer runs, so that a live run shows the cwnd trace the simulator's sender trace shows
//! (the kernel check compares the two; `ss -ti` reads the same `struct tcp_info`,
//! `tcp_get_info()` in net/ipv4/tcp.c).
//!
//! The series is bounded: once it holds [`MAX_SAMPLES`] samples, every other one is dropped and
//! the interval doubles, so a run of any length keeps at most that many, evenly spaced.

use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::sys::{self, TcpInfo};

/// How often the sender's `TCP_INFO` is read at the start of a run: 10 ms, a few samples per
/// round trip of the papers' WAN path and about one per round trip of their LAN under load.
pub const SAMPLE_INTERVAL: Duration = Duration::from_millis(10);

/// The most samples one sender keeps (see the module's documentation).
pub const MAX_SAMPLES: usize = 4096;

/// One reading of a kernel sender's `TCP_INFO`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct KernelSample {
    /// Seconds since the connection was established.
    pub t_s: f64,
    /// Congestion window in bytes: `tcpi_snd_cwnd` segments of `tcpi_snd_mss` bytes, the
    /// simulator's unit.
    pub cwnd_bytes: u64,
    /// Slow-start threshold in bytes, `null` before the first loss (the kernel's
    /// `TCP_INFINITE_SSTHRESH`).
    pub ssthresh_bytes: Option<u64>,
    /// `tcpi_ca_state`: 0 Open, 1 Disorder, 2 CWR, 3 Recovery, 4 Loss.
    pub ca_state: u8,
    /// Segments retransmitted so far (`tcpi_total_retrans`).
    pub retransmitted: u32,
    /// Smoothed RTT and its variance, ms.
    pub srtt_ms: f64,
    pub rttvar_ms: f64,
    /// The retransmission timeout, ms.
    pub rto_ms: f64,
    /// Bytes cumulatively acknowledged.
    pub bytes_acked: u64,
}

/// `TCP_INFINITE_SSTHRESH` (include/net/tcp.h): no loss yet.
const INFINITE_SSTHRESH: u32 = 0x7fff_ffff;

impl KernelSample {
    /// The sample of `info`, read `since` the connection was established.
    pub fn of(info: &TcpInfo, since: Duration) -> KernelSample {
        let mss = u64::from(info.snd_mss);
        KernelSample {
            t_s: since.as_secs_f64(),
            cwnd_bytes: u64::from(info.snd_cwnd) * mss,
            ssthresh_bytes: (info.snd_ssthresh < INFINITE_SSTHRESH)
                .then(|| u64::from(info.snd_ssthresh) * mss),
            ca_state: info.ca_state,
            retransmitted: info.total_retrans,
            srtt_ms: f64::from(info.rtt_us) / 1e3,
            rttvar_ms: f64::from(info.rttvar_us) / 1e3,
            rto_ms: f64::from(info.rto_us) / 1e3,
            bytes_acked: info.bytes_acked,
        }
    }
}

/// A bounded, evenly spaced series (see the module's documentation).
#[derive(Clone, Debug)]
pub struct SampleSeries {
    samples: Vec<KernelSample>,
    interval: Duration,
    max: usize,
}

impl SampleSeries {
    pub fn new(interval: Duration, max: usize) -> SampleSeries {
        SampleSeries {
            samples: Vec::new(),
            interval,
            max: max.max(2),
        }
    }

    /// The interval the series is sampled at now.
    pub fn interval(&self) -> Duration {
        self.interval
    }

    /// Adds a sample; when the series is full, keeps every other one and doubles the interval.
    pub fn push(&mut self, s: KernelSample) {
        if self.samples.len() >= self.max {
            let mut i = 0;
            self.samples.retain(|_| {
                i += 1;
                i % 2 == 1
            });
            self.interval = self.interval.saturating_mul(2);
        }
        self.samples.push(s);
    }

    pub fn into_samples(self) -> Vec<KernelSample> {
        self.samples
    }
}

/// Reads `fd`'s `TCP_INFO` every interval from `start` until `done` is set, and once more at the
/// end. The caller keeps `fd` open until this returns (a scoped thread joined before the socket
/// is dropped). A failed read ends the series: the socket's end is reported by the sender.
pub fn sample_until(fd: RawFd, start: Instant, done: &AtomicBool) -> Vec<KernelSample> {
    let mut series = SampleSeries::new(SAMPLE_INTERVAL, MAX_SAMPLES);
    let mut next = start;
    loop {
        let finished = done.load(Ordering::Acquire);
        match sys::tcp_info(fd) {
            Ok(info) => series.push(KernelSample::of(&info, start.elapsed())),
            Err(_) => break,
        }
        if finished {
            break;
        }
        next += series.interval();
        let now = Instant::now();
        if next > now {
            std::thread::sleep(next - now);
        } else {
            // fell behind (a loaded machine): sample at once, keep the grid from here
            next = now;
        }
    }
    series.into_samples()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(t: f64) -> KernelSample {
        KernelSample::of(&TcpInfo::default(), Duration::from_secs_f64(t))
    }

    #[test]
    fn a_full_series_halves_and_doubles_its_interval() {
        let mut s = SampleSeries::new(Duration::from_millis(10), 4);
        for i in 0..4 {
            s.push(sample(f64::from(i)));
        }
        assert_eq!(s.interval(), Duration::from_millis(10));
        s.push(sample(4.0));
        assert_eq!(s.interval(), Duration::from_millis(20));
        let t: Vec<f64> = s.into_samples().iter().map(|x| x.t_s).collect();
        // kept the 1st and 3rd of the four, then the new one: still evenly spaced
        assert_eq!(t, vec![0.0, 2.0, 4.0]);
    }

    #[test]
    fn a_series_never_holds_more_than_its_bound() {
        let mut s = SampleSeries::new(Duration::from_millis(1), 16);
        for i in 0..10_000 {
            s.push(sample(f64::from(i)));
        }
        assert!(s.into_samples().len() <= 16);
    }

    #[test]
    fn cwnd_is_in_bytes_and_no_loss_means_no_threshold() {
        let info = TcpInfo {
            snd_cwnd: 10,
            snd_mss: 1448,
            snd_ssthresh: INFINITE_SSTHRESH,
            ..TcpInfo::default()
        };
        let s = KernelSample::of(&info, Duration::ZERO);
        assert_eq!(s.cwnd_bytes, 14_480);
        assert_eq!(s.ssthresh_bytes, None);
        let after_loss = TcpInfo {
            snd_ssthresh: 7,
            ..info
        };
        assert_eq!(
            KernelSample::of(&after_loss, Duration::ZERO).ssthresh_bytes,
            Some(7 * 1448)
        );
    }
}
