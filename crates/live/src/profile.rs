//! How the Linux endpoints are set up: congestion control and the per-namespace TCP sysctls that
//! bring a modern Linux TCP as close as it goes to the papers' senders (DESIGN section 7).

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
    /// buffer, exactly), no ECN. What stays Linux: NewReno-style partial-ACK handling, a 200 ms
    /// minimum RTO with fine-grained timers, delayed ACKs with quick-ack.
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
            ("net.ipv4.tcp_window_scaling", on(modern)),
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
    }
}
