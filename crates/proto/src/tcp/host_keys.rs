//! A host profile's details as text: each detail's key as scenario files and `--host-detail`
//! name it, its value read and written (`get`, `set`), and the keys two profiles differ in
//! (the details themselves and their sources: `host.rs`).

use super::host::*;
use crate::duration::{self, format_duration, Bare};
use crate::tcp::clock::TimerClock;
use crate::tcp::linux_rtt::TCP_RTO_MIN;

impl HostProfile {
    /// Every detail's key as scenario files and `--host-detail` name it.
    pub const KEYS: [&'static str; 24] = [
        "ca-increment",
        "reader",
        "header-prediction",
        "persist",
        "deflation",
        "rtt-estimator",
        "delayed-ack",
        "read-delay",
        "read-size",
        "sack-recovery",
        "next-seg",
        "prr",
        "window-scaling",
        "timestamps",
        "timer-clock",
        "initial-window",
        "congestion-control",
        "sack",
        "rack-tlp",
        "undo",
        "dsack",
        "frto",
        "reno-sack-emulation",
        "sack-compress",
    ];

    /// The value of one detail as text (the form [`HostProfile::set`] reads).
    pub fn get(&self, key: &str) -> Option<String> {
        Some(match key {
            "ca-increment" => match self.ca_increment {
                CaIncrement::PlusEighth => "plus-eighth".into(),
                CaIncrement::Plain => "plain".into(),
            },
            "reader" => match self.reader {
                ReaderModel::Instant => "instant".into(),
                ReaderModel::Process => "process".into(),
            },
            "header-prediction" => match self.header_prediction {
                HeaderPrediction::Off => "off".into(),
                HeaderPrediction::Bsd => "bsd".into(),
                HeaderPrediction::FreeBsd => "freebsd".into(),
            },
            "persist" => on_off(self.persist).into(),
            "deflation" => match self.deflation {
                Deflation::AboveThreshold => "above-threshold".into(),
                Deflation::AtThreshold => "at-threshold".into(),
            },
            "rtt-estimator" => match self.rtt_estimator {
                RttEstimator::Lite => "lite".into(),
                RttEstimator::Fine => "fine".into(),
                RttEstimator::Linux { rto_min } if rto_min == TCP_RTO_MIN => "linux".into(),
                RttEstimator::Linux { rto_min } => format!("linux:{}", format_duration(rto_min)),
            },
            "delayed-ack" => match self.delayed_ack {
                DelayedAck::Bsd => "bsd".into(),
                DelayedAck::AckPush => "ack-push".into(),
                DelayedAck::Linux => "linux".into(),
            },
            "read-delay" => format_duration(self.read_delay),
            "read-size" => self.read_size.to_string(),
            "sack-recovery" => match self.sack_recovery {
                SackRecovery::FallFloyd => "fall-floyd".into(),
                SackRecovery::Rfc6675Prr => "rfc6675-prr".into(),
            },
            "next-seg" => match self.next_seg {
                NextSeg::Rfc6675 => "rfc6675".into(),
                NextSeg::LinuxLostOnly => "linux-lost-only".into(),
            },
            "prr" => match self.prr {
                PrrReading::Rfc6937 => "rfc6937".into(),
                PrrReading::Linux => "linux".into(),
            },
            "window-scaling" => on_off(self.window_scaling).into(),
            "timestamps" => on_off(self.timestamps).into(),
            "timer-clock" => self.timer_clock.name(),
            "initial-window" => self.initial_window.to_string(),
            "congestion-control" => match self.congestion_control {
                CongestionControl::Bsd => "bsd".into(),
                CongestionControl::Cubic => "cubic".into(),
                CongestionControl::LinuxReno => "linux-reno".into(),
            },
            "sack" => match self.sack {
                SackUse::ByProtocol => "by-protocol".into(),
                SackUse::On => "on".into(),
            },
            "rack-tlp" => on_off(self.rack_tlp).into(),
            "undo" => on_off(self.undo).into(),
            "dsack" => on_off(self.dsack).into(),
            "frto" => on_off(self.frto).into(),
            "reno-sack-emulation" => on_off(self.reno_sack_emulation).into(),
            "sack-compress" => match self.sack_compress {
                SackCompress::Off => "off".into(),
                SackCompress::Linux => "linux".into(),
            },
            _ => return None,
        })
    }

    /// Sets one detail from text; the error names the key and what it accepts.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        let v = value.trim().to_ascii_lowercase();
        let bad = |accepted: &str| format!("host detail {key} = '{value}': use {accepted}");
        match key {
            "ca-increment" => {
                self.ca_increment = match v.as_str() {
                    "plus-eighth" => CaIncrement::PlusEighth,
                    "plain" => CaIncrement::Plain,
                    _ => return Err(bad("plus-eighth (4.4BSD-Lite) or plain (CSRG 8.7, Lite2)")),
                }
            }
            "reader" => {
                self.reader = match v.as_str() {
                    "instant" => ReaderModel::Instant,
                    "process" => ReaderModel::Process,
                    _ => return Err(bad("instant or process")),
                }
            }
            "header-prediction" => {
                self.header_prediction = match v.as_str() {
                    "off" | "false" | "no" | "0" => HeaderPrediction::Off,
                    "bsd" | "on" | "true" | "yes" | "1" => HeaderPrediction::Bsd,
                    "freebsd" => HeaderPrediction::FreeBsd,
                    _ => return Err(bad("off, bsd (4.4BSD) or freebsd (FreeBSD 2.2)")),
                }
            }
            "persist" => self.persist = parse_on_off(&v).ok_or_else(|| bad("on or off"))?,
            "window-scaling" => {
                self.window_scaling = parse_on_off(&v).ok_or_else(|| bad("on or off"))?
            }
            "timestamps" => self.timestamps = parse_on_off(&v).ok_or_else(|| bad("on or off"))?,
            "rack-tlp" => self.rack_tlp = parse_on_off(&v).ok_or_else(|| bad("on or off"))?,
            "undo" => self.undo = parse_on_off(&v).ok_or_else(|| bad("on or off"))?,
            "dsack" => self.dsack = parse_on_off(&v).ok_or_else(|| bad("on or off"))?,
            "frto" => self.frto = parse_on_off(&v).ok_or_else(|| bad("on or off"))?,
            "reno-sack-emulation" => {
                self.reno_sack_emulation = parse_on_off(&v).ok_or_else(|| bad("on or off"))?
            }
            "sack-compress" => {
                self.sack_compress = match v.as_str() {
                    "off" => SackCompress::Off,
                    "linux" => SackCompress::Linux,
                    _ => return Err(bad("off or linux")),
                }
            }
            "deflation" => {
                self.deflation = match v.as_str() {
                    "above-threshold" => Deflation::AboveThreshold,
                    "at-threshold" => Deflation::AtThreshold,
                    _ => {
                        return Err(bad(
                            "above-threshold (4.4BSD: more than 3 duplicates) or at-threshold \
                             (FreeBSD 2.2)",
                        ))
                    }
                }
            }
            "rtt-estimator" => {
                self.rtt_estimator = match v.as_str() {
                    "lite" => RttEstimator::Lite,
                    "fine" => RttEstimator::Fine,
                    "linux" => RttEstimator::Linux {
                        rto_min: TCP_RTO_MIN,
                    },
                    other => {
                        let Some(d) = other.strip_prefix("linux:") else {
                            return Err(bad("lite (4.4BSD), fine (FreeBSD 2.2), linux \
                                 (TCP_RTO_MIN 200 ms) or linux:<min RTO>"));
                        };
                        let what = format!("host detail {key} = linux:");
                        RttEstimator::Linux {
                            rto_min: duration::parse_in(d, Bare::Millis, RTO_MIN_RANGE, &what)?,
                        }
                    }
                }
            }
            "delayed-ack" => {
                self.delayed_ack = match v.as_str() {
                    "bsd" => DelayedAck::Bsd,
                    "ack-push" => DelayedAck::AckPush,
                    "linux" => DelayedAck::Linux,
                    _ => return Err(bad("bsd, ack-push or linux")),
                }
            }
            "read-delay" => {
                self.read_delay = duration::parse_in(
                    &v,
                    Bare::Millis,
                    READ_DELAY_RANGE,
                    &format!("host detail {key} ="),
                )?;
            }
            "read-size" => {
                let n: u32 = v
                    .parse()
                    .map_err(|_| bad("a number of bytes from 1 to 1048576"))?;
                if n == 0 || n > 1 << 20 {
                    return Err(bad("a number of bytes from 1 to 1048576"));
                }
                self.read_size = n;
            }
            "sack-recovery" => {
                self.sack_recovery = match v.as_str() {
                    "fall-floyd" => SackRecovery::FallFloyd,
                    "rfc6675-prr" => SackRecovery::Rfc6675Prr,
                    _ => {
                        return Err(bad(
                            "fall-floyd (the papers' SACK) or rfc6675-prr (RFC 6675 with PRR, \
                             as Linux)",
                        ))
                    }
                }
            }
            "next-seg" => {
                self.next_seg =
                    match v.as_str() {
                        "rfc6675" => NextSeg::Rfc6675,
                        "linux-lost-only" => NextSeg::LinuxLostOnly,
                        _ => return Err(bad(
                            "rfc6675 (NextSeg rules 1-4) or linux-lost-only (lost segments and \
                             new data, as Linux)",
                        )),
                    }
            }
            "prr" => {
                self.prr = match v.as_str() {
                    "rfc6937" => PrrReading::Rfc6937,
                    "linux" => PrrReading::Linux,
                    _ => {
                        return Err(bad(
                            "rfc6937 (RFC 6937's pseudo-code) or linux (tcp_cwnd_reduction())",
                        ))
                    }
                }
            }
            "congestion-control" => {
                self.congestion_control = match v.as_str() {
                    "bsd" => CongestionControl::Bsd,
                    "cubic" => CongestionControl::Cubic,
                    "linux-reno" => CongestionControl::LinuxReno,
                    _ => {
                        return Err(bad(
                            "bsd (4.4BSD Reno/NewReno), cubic or linux-reno (Linux's)",
                        ))
                    }
                }
            }
            "sack" => {
                self.sack = match v.as_str() {
                    "by-protocol" => SackUse::ByProtocol,
                    "on" => SackUse::On,
                    _ => {
                        return Err(bad(
                            "by-protocol (the papers' hosts) or on (Linux's tcp_sack)",
                        ))
                    }
                }
            }
            "timer-clock" => {
                self.timer_clock = TimerClock::parse(&v).ok_or_else(|| {
                    bad("bsd-ticks, jiffies (HZ 1000) or jiffies:HZ (100, 250, 300, 1000)")
                })?
            }
            "initial-window" => {
                let n: u32 = v
                    .parse()
                    .map_err(|_| bad("a number of segments from 1 to 64"))?;
                if n == 0 || n > 64 {
                    return Err(bad("a number of segments from 1 to 64"));
                }
                self.initial_window = n;
            }
            _ => {
                return Err(format!(
                    "unknown host detail '{key}' (known: {})",
                    Self::KEYS.join(", ")
                ))
            }
        }
        Ok(())
    }

    /// The keys whose values differ between two profiles, in [`HostProfile::KEYS`] order.
    pub fn differences(&self, other: &HostProfile) -> Vec<&'static str> {
        Self::KEYS
            .iter()
            .copied()
            .filter(|k| self.get(k) != other.get(k))
            .collect()
    }
}

fn on_off(b: bool) -> &'static str {
    if b {
        "on"
    } else {
        "off"
    }
}

fn parse_on_off(v: &str) -> Option<bool> {
    match v {
        "on" | "true" | "yes" | "1" => Some(true),
        "off" | "false" | "no" | "0" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
#[path = "host_keys_tests.rs"]
mod tests;
