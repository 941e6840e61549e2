//! How the Linux endpoints are set up: congestion control and the per-namespace TCP sysctls that
//! bring a modern Linux TCP as close as it goes to the papers' senders (docs/live.md).

use snooplab_proto::duration::{self, Bare, Range};
use snooplab_proto::tcp::BufferLimit;
use snooplab_proto::time::{Time, MS};
use snooplab_sim::scenario::PAPER000_HOST;

/// Congestion control of the sending socket (`TCP_CONGESTION`). The kernels here default to bbr,
/// so it is always set explicitly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CongestionControl {
    Reno,
    Cubic,
    Bbr,
}

impl CongestionControl {
    pub fn name(self) -> &'static str {
        match self {
            CongestionControl::Reno => "reno",
            CongestionControl::Cubic => "cubic",
            CongestionControl::Bbr => "bbr",
        }
    }

    pub fn parse(text: &str) -> Result<CongestionControl, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "reno" => Ok(CongestionControl::Reno),
            "cubic" => Ok(CongestionControl::Cubic),
            "bbr" => Ok(CongestionControl::Bbr),
            _ => Err(format!(
                "unknown congestion control '{text}' (known: reno, cubic, bbr)"
            )),
        }
    }
}

/// Presets of the endpoints' TCP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinuxProfile {
    /// The paper's 4.4BSD-style sender as far as Linux goes: Reno, no SACK, no DSACK, no timestamps,
    /// no RACK, no early retransmit, no F-RTO, no window scaling (the advertised window is the
    /// buffer, exactly), no ECN; BSD's 1 s minimum RTO and 1-segment initial window as route
    /// options. What stays Linux: NewReno-style partial-ACK handling (no knob turns it off), RTO
    /// from fine-grained timers (RTT + max(4 RTTVAR, minimum) rather than 500 ms ticks), delayed
    /// ACKs with quick-ack.
    Paper,
    /// As `Paper` with SACK (and DSACK) on: the paper's E2E-IETF-SACK.
    PaperSack,
    /// The kernel's defaults with cubic: SACK, DSACK, timestamps, RACK-TLP, F-RTO, window scaling.
    Modern,
}

impl LinuxProfile {
    pub const ALL: [LinuxProfile; 3] = [
        LinuxProfile::Paper,
        LinuxProfile::PaperSack,
        LinuxProfile::Modern,
    ];

    pub fn name(self) -> &'static str {
        match self {
            LinuxProfile::Paper => "paper",
            LinuxProfile::PaperSack => "paper-sack",
            LinuxProfile::Modern => "modern",
        }
    }

    pub fn parse(text: &str) -> Result<LinuxProfile, String> {
        let t = text.trim().to_ascii_lowercase();
        LinuxProfile::ALL
            .iter()
            .copied()
            .find(|p| p.name() == t)
            .ok_or_else(|| {
                format!("unknown Linux profile '{text}' (known: paper, paper-sack, modern)")
            })
    }

    /// The congestion control the preset implies when `--cc` is not given.
    pub fn default_cc(self) -> CongestionControl {
        match self {
            LinuxProfile::Paper | LinuxProfile::PaperSack => CongestionControl::Reno,
            LinuxProfile::Modern => CongestionControl::Cubic,
        }
    }

    /// Lower bound of the retransmission timeout, in milliseconds, as the `rto_min` route option;
    /// `None` keeps the kernel's (200 ms). The paper profiles take 4.4BSD's `TCPTV_MIN`: 2 slow
    /// ticks of 500 ms = 1 s (paper 000 section IV-A: the testbed runs BSD/OS 2.1, a 4.4BSD Reno
    /// stack; the simulator's `rttmin_ticks`).
    pub fn default_rto_min_ms(self) -> Option<u32> {
        match self {
            LinuxProfile::Paper | LinuxProfile::PaperSack => Some(1000),
            LinuxProfile::Modern => None,
        }
    }

    /// Initial congestion window in segments, as the `initcwnd` route option; `None` keeps the
    /// kernel's (10). 4.4BSD starts slow start from one segment (`tcp_mss` sets
    /// `snd_cwnd = mss`), as the simulator's sender does.
    pub fn initcwnd(self) -> Option<u32> {
        match self {
            LinuxProfile::Paper | LinuxProfile::PaperSack => Some(1),
            LinuxProfile::Modern => None,
        }
    }

    /// Whether the endpoints negotiate window scaling (RFC 7323): without it no window exceeds
    /// 65,535 bytes.
    pub(crate) fn window_scaling(self) -> bool {
        self == LinuxProfile::Modern
    }

    /// The buffers (`--buffer`, the receiver's largest window) these hosts take, checked by the
    /// simulator's one buffer rule (`snooplab_sim::scenario::check_buffer`). The paper profiles
    /// emulate paper 000's hosts (BSD/OS 2.1, section IV-A; the preset's scenario names them,
    /// [`PAPER000_HOST`]), so their limit is those hosts' own, 4.4BSD's `sb_max`, and a refusal
    /// reads as `snooplab run`'s. A buffer above 65,535 bytes is honoured as the modelled hosts
    /// honour it: neither scales windows, so neither advertises more than 65,535 (the kernel
    /// with `tcp_window_scaling` 0, `tcp_select_window()`; the model's BSD profiles, which leave
    /// the `window-scaling` host detail off, `TCP_MAXWIN`). `modern` has
    /// no such limit: the kernel's ceilings are sysctls (`net.core.rmem_max`, the third value of
    /// `net.ipv4.tcp_rmem`, which the receiver sets in its namespace, endpoint.rs) and RFC 7323's
    /// largest scaled window is 1 GB (section 2.3, shift 14), so 64 MB ([`MAX_LINUX_BUFFER`]) is
    /// this mode's own cap. The floor of every profile, and of the modelled hosts, is the
    /// kernels' ([`snooplab_proto::tcp::MIN_BUFFER`]).
    pub fn buffer_limit(self) -> BufferLimit {
        match self {
            LinuxProfile::Paper | LinuxProfile::PaperSack => PAPER000_HOST.buffer_limit(),
            LinuxProfile::Modern => BufferLimit {
                hosts: self.name(),
                max: MAX_LINUX_BUFFER,
                source: "snooplab's cap; Linux's own are sysctls",
            },
        }
    }

    /// The sysctls to write in both namespaces. Every TCP knob the profiles differ on is written,
    /// also where it equals the kernel default, so that a run never depends on the host's settings.
    /// Congestion control is not among them: outside the initial namespace only the algorithms the
    /// host allows may be a namespace's default, so the sender sets it on its socket.
    pub fn sysctls(self) -> Vec<(&'static str, String)> {
        let on = |b: bool| if b { "1" } else { "0" }.to_string();
        let modern = self == LinuxProfile::Modern;
        let sack = self != LinuxProfile::Paper;
        vec![
            ("net.ipv4.tcp_sack", on(sack)),
            ("net.ipv4.tcp_dsack", on(sack)),
            ("net.ipv4.tcp_timestamps", on(modern)),
            ("net.ipv4.tcp_window_scaling", on(self.window_scaling())),
            // RACK-TLP loss detection: 1 = on (the default), 0 = off.
            ("net.ipv4.tcp_recovery", on(modern)),
            // Early retransmit and tail loss probes: 3 is the default, 0 off.
            (
                "net.ipv4.tcp_early_retrans",
                if modern { "3" } else { "0" }.to_string(),
            ),
            // F-RTO: 2 is the default, 0 off.
            (
                "net.ipv4.tcp_frto",
                if modern { "2" } else { "0" }.to_string(),
            ),
            (
                "net.ipv4.tcp_ecn",
                if modern { "2" } else { "0" }.to_string(),
            ),
            // Each run starts from nothing learned about the path.
            ("net.ipv4.tcp_no_metrics_save", "1".to_string()),
        ]
    }
}

/// The most a live receiver advertises under the `modern` profile: 64 MB, this mode's cap (see
/// [`LinuxProfile::buffer_limit`]); a run's receive buffer is 4x the window (endpoint.rs), so a
/// run holds at most 256 MB there.
pub(crate) const MAX_LINUX_BUFFER: u32 = 64 << 20;

/// Largest `--rto-min`: beyond a minute a run would only measure waiting.
pub(crate) const MAX_RTO_MIN_MS: u32 = 60_000;

/// Parses `--rto-min`: `kernel` (the kernel's own, 200 ms), or a duration (the one grammar,
/// `snooplab_proto::duration`, its unit required) such as `1s`, `0.5s`, `200ms`; whole
/// milliseconds (route `rto_min` is set in them) from 1 ms to 60 s.
pub fn parse_rto_min(text: &str) -> Result<Option<u32>, String> {
    if text.trim().eq_ignore_ascii_case("kernel") {
        return Ok(None);
    }
    let range = Range::new(MS, Time::from(MAX_RTO_MIN_MS) * MS);
    let t = duration::parse_in(text, Bare::Refused, range, "rto-min")
        .map_err(|e| format!("{e}, or 'kernel'"))?;
    if !t.is_multiple_of(MS) {
        return Err(format!(
            "rto-min '{}' is not whole milliseconds",
            text.trim()
        ));
    }
    // within the range: at most 60,000
    u32::try_from(t / MS)
        .map(Some)
        .map_err(|_| duration::out_of_range("rto-min", text, range))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_errors_list_choices() {
        for p in LinuxProfile::ALL {
            assert_eq!(LinuxProfile::parse(p.name()), Ok(p));
        }
        assert!(LinuxProfile::parse("bsd")
            .unwrap_err()
            .contains("paper, paper-sack, modern"));
        assert_eq!(CongestionControl::parse("BBR"), Ok(CongestionControl::Bbr));
        assert!(CongestionControl::parse("vegas").is_err());
    }

    #[test]
    fn paper_profile_turns_off_what_4_4bsd_lacked() {
        let s = LinuxProfile::Paper.sysctls();
        let get = |k: &str| s.iter().find(|(n, _)| *n == k).map(|(_, v)| v.clone());
        assert_eq!(get("net.ipv4.tcp_sack").as_deref(), Some("0"));
        assert_eq!(get("net.ipv4.tcp_timestamps").as_deref(), Some("0"));
        assert_eq!(get("net.ipv4.tcp_recovery").as_deref(), Some("0"));
        assert_eq!(get("net.ipv4.tcp_frto").as_deref(), Some("0"));
        let m = LinuxProfile::Modern.sysctls();
        assert!(m.contains(&("net.ipv4.tcp_sack", "1".to_string())));
        let ps = LinuxProfile::PaperSack.sysctls();
        assert!(ps.contains(&("net.ipv4.tcp_sack", "1".to_string())));
        assert!(ps.contains(&("net.ipv4.tcp_timestamps", "0".to_string())));
        assert_eq!(LinuxProfile::Paper.default_rto_min_ms(), Some(1000));
        assert_eq!(LinuxProfile::Paper.initcwnd(), Some(1));
        assert_eq!(LinuxProfile::Modern.default_rto_min_ms(), None);
        assert_eq!(LinuxProfile::Modern.initcwnd(), None);
    }

    #[test]
    fn rto_min_takes_seconds_milliseconds_or_kernel() {
        assert_eq!(parse_rto_min("1s"), Ok(Some(1000)));
        assert_eq!(parse_rto_min(" 200ms"), Ok(Some(200)));
        assert_eq!(parse_rto_min("0.5s"), Ok(Some(500)));
        assert_eq!(parse_rto_min("Kernel"), Ok(None));
        assert_eq!(parse_rto_min("60s"), Ok(Some(60_000)));
        assert_eq!(parse_rto_min("1 min"), Ok(Some(60_000)));
        for bad in ["0ms", "-1s", "0.0005s", "61s"] {
            let e = parse_rto_min(bad).unwrap_err();
            assert!(e.contains("between 1 ms and 1 min"), "{bad}: {e}");
        }
        for bad in ["", "1", "nan s", "infs", "1.5ms"] {
            let e = parse_rto_min(bad).unwrap_err();
            assert!(e.starts_with("rto-min '"), "{bad}: {e}");
        }
    }
}
