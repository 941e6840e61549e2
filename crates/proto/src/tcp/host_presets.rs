//! The named host profiles ([`HostPreset`]): the papers' BSD hosts and today's Linux, each
//! filling every detail of [`HostProfile`] (`host.rs`, which says what each detail selects), and
//! the socket buffers each kind of host takes.

use crate::tcp::clock::TimerClock;
use crate::tcp::host::{
    CaIncrement, CongestionControl, Deflation, DelayedAck, HeaderPrediction, HostProfile, NextSeg,
    PrrReading, ReaderModel, RttEstimator, SackCompress, SackRecovery, SackUse, DEFAULT_READ_SIZE,
};
use crate::time::{Time, SEC};

impl Default for HostProfile {
    /// BSD/OS 2.1, the hosts of paper 000.
    fn default() -> Self {
        HostPreset::Bsdos21.profile()
    }
}

/// The socket buffers a kind of host takes (`--buffer`, a flow's `buffer`): one rule for both
/// clocks, checked in one place (`snooplab_sim::scenario::check_buffer`) against the hosts at a
/// flow's ends, the BSD hosts' ([`HostPreset::buffer_limit`], which the live mode's `paper`
/// profiles take too) or a live Linux profile's own (`snooplab_live::LinuxProfile::buffer_limit`).
/// Every kind takes [`MIN_BUFFER`] at least. A buffer above 65,535 bytes is kept by every host
/// here, and a host that does not scale windows (the modelled BSD hosts, the live `paper`
/// profiles) advertises at most [`crate::tcp::TCP_MAXWIN`] of it (RFC 7323 section 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferLimit {
    /// Whose limit it is, as the message names them: a host profile (`bsdos-2.1`) or a live
    /// Linux profile (`modern`).
    pub hosts: &'static str,
    /// The largest buffer, bytes.
    pub max: u32,
    /// Where `max` comes from, for the message: `4.4BSD sb_max`.
    pub source: &'static str,
}

/// 4.4BSD's `sb_max`, the most a socket buffer may hold: `SB_MAX` = 256 * 1024 in
/// 4.4BSD-Lite sys/socketvar.h, `u_long sb_max = SB_MAX` in kern/uipc_socket2.c, whose
/// `sbreserve()` refuses more (the code Stevens vol. 2 describes). Every BSD profile here keeps it.
/// (`sbreserve()` compares against `sb_max * MCLBYTES / (MSIZE + MCLBYTES)`, 246,723 bytes with
/// i386's 2048-byte clusters and 128-byte mbufs, to leave room for the mbufs' headers; the limit
/// here is `sb_max` itself, as the command line has always taken it.)
pub const SB_MAX: u32 = 256 * 1024;

/// The smallest buffer any host takes, on either clock: 2 KB. Not a BSD limit (`sbreserve()`
/// takes any size) but the live mode's kernels': Linux raises a `TCP_WINDOW_CLAMP` below
/// `SOCK_MIN_RCVBUF / 2` (`tcp_set_window_clamp()`, net/ipv4/tcp.c; a little over 2 KB, with the
/// size of an `sk_buff` in it), so a smaller window cannot be held there. The modelled hosts take
/// the same floor (it was 1 KB, this simulator's own choice, not a host's), so that one scenario
/// runs on both clocks; a window of 2 KB is under two segments of the papers' sizes already.
pub const MIN_BUFFER: u32 = 2048;

/// The named host profiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HostPreset {
    /// The model before host profiles, byte for byte: 4.4BSD-Lite's congestion avoidance (Stevens
    /// vol. 2) with an application that reads instantly, and neither header prediction nor the
    /// persist timer (Lite had both; with an instant reader the window never closes and header
    /// prediction would end fast recovery without resetting `t_dupacks`, see `docs/host-profiles.md`).
    Bsd44Lite,
    /// BSD/OS 2.1 (paper 000; paper 002's 2.0 had the same TCP as far as the sources tell): the
    /// 4.4BSD-Lite2 TCP, i.e. Lite with the CSRG changes of 1994-95, most of them by BSDI's Mike
    /// Karels, among them congestion avoidance without `maxseg/8` (tcp_input.c 8.7). A reading
    /// process, header prediction and the persist timer, as every BSD had.
    Bsdos21,
    /// FreeBSD 2.2.1 (paper 001): Lite2's congestion avoidance, reader and persist timer, with
    /// FreeBSD's own header-prediction guard, deflation at the third duplicate and its finer
    /// round-trip estimator (initial RTO 3 s).
    Freebsd22,
    /// Today's Linux as the live mode's `modern` profile runs it (the kernel's defaults; held to
    /// Linux 6.18, the kernel the kernel check measures, docs/kernel-check.md): CUBIC with
    /// HyStart, SACK on every connection with RFC 6675 recovery and PRR, timestamps and window
    /// scaling, Linux's RTO (200 ms minimum) and delayed ACK, an initial window of 10, timers in
    /// jiffies at `CONFIG_HZ` 250 (this machine's kernel), RACK-TLP (RFC 8985), DSACK (RFC 2883)
    /// and its undo, F-RTO (RFC 5682). Not modelled yet: TCP small queues (docs/host-profiles.md).
    Linux,
    /// [`HostPreset::Linux`] with Linux's Reno (`modern` with `--cc reno`).
    LinuxReno,
    /// The live mode's `paper` profile: Linux made as close to the papers' 4.4BSD sender as its
    /// knobs go (Reno, no SACK, no timestamps, no window scaling, the `rto_min` of 4.4BSD's 1 s,
    /// an initial window of 1), with what stays Linux: its RTO arithmetic, delayed ACK and
    /// jiffies. Linux's NewReno handling of partial ACKs is the protocol's here (`e2e-newreno`).
    LinuxPaper,
    /// The live mode's `paper-sack` profile: [`HostPreset::LinuxPaper`] with SACK on and Linux's
    /// SACK recovery (RFC 6675 with PRR), and DSACK (`tcp_dsack=1`) with Linux's undo, which
    /// without timestamps acts only on DSACKs.
    LinuxPaperSack,
}

impl HostPreset {
    pub const ALL: [HostPreset; 7] = [
        HostPreset::Bsd44Lite,
        HostPreset::Bsdos21,
        HostPreset::Freebsd22,
        HostPreset::Linux,
        HostPreset::LinuxReno,
        HostPreset::LinuxPaper,
        HostPreset::LinuxPaperSack,
    ];

    /// The papers' hosts: the profiles of the 1990s BSDs.
    pub const BSD: [HostPreset; 3] = [
        HostPreset::Bsd44Lite,
        HostPreset::Bsdos21,
        HostPreset::Freebsd22,
    ];

    /// Whether this is one of the papers' BSD hosts (not today's Linux).
    pub fn is_bsd(self) -> bool {
        HostPreset::BSD.contains(&self)
    }

    pub fn name(self) -> &'static str {
        match self {
            HostPreset::Bsd44Lite => "bsd44-lite",
            HostPreset::Bsdos21 => "bsdos-2.1",
            HostPreset::Freebsd22 => "freebsd-2.2",
            HostPreset::Linux => "linux",
            HostPreset::LinuxReno => "linux-reno",
            HostPreset::LinuxPaper => "linux-paper",
            HostPreset::LinuxPaperSack => "linux-paper-sack",
        }
    }

    pub fn description(self) -> &'static str {
        match self {
            HostPreset::Bsd44Lite => {
                "the model before host profiles: 4.4BSD-Lite congestion avoidance (+maxseg/8), \
                 an application that reads instantly, no header prediction, no persist timer"
            }
            HostPreset::Bsdos21 => {
                "BSD/OS 2.1 (papers 000, 002) as 4.4BSD-Lite2: congestion avoidance without \
                 maxseg/8 (CSRG 8.7, from BSDI), a reading process, header prediction, persist timer"
            }
            HostPreset::Freebsd22 => {
                "FreeBSD 2.2.1 (paper 001): as bsdos-2.1, plus header prediction only outside \
                 fast recovery, deflation at the 3rd duplicate, the finer RTT estimator (srtt x32)"
            }
            HostPreset::Linux => {
                "today's Linux (live: modern; held to 6.18): CUBIC + HyStart, SACK with RFC 6675 \
                 + PRR, timestamps, window scaling, RTO min 200 ms, Linux delayed ACK, IW 10, \
                 HZ 250, RACK-TLP, DSACK and its undo, F-RTO"
            }
            HostPreset::LinuxReno => "linux with Linux's Reno (live: modern --cc reno)",
            HostPreset::LinuxPaper => {
                "Linux as near the papers' BSD as its knobs go (live: paper): Reno, no SACK, no \
                 timestamps or window scaling, RTO min 1 s, IW 1; Linux's RTO, delayed ACK, HZ 250"
            }
            HostPreset::LinuxPaperSack => {
                "linux-paper with SACK and RFC 6675 + PRR, DSACK and its undo (live: paper-sack)"
            }
        }
    }

    pub fn parse(name: &str) -> Result<HostPreset, String> {
        let n = name.trim().to_ascii_lowercase();
        let alias = match n.as_str() {
            "lite" | "4.4bsd-lite" | "bsd44" => Some(HostPreset::Bsd44Lite),
            "bsdos" | "bsd/os-2.1" | "bsdos21" | "lite2" => Some(HostPreset::Bsdos21),
            "freebsd" | "freebsd-2.2.1" | "freebsd22" => Some(HostPreset::Freebsd22),
            // the live mode's profile names: one name, the same host on both clocks
            "modern" => Some(HostPreset::Linux),
            "paper" => Some(HostPreset::LinuxPaper),
            "paper-sack" => Some(HostPreset::LinuxPaperSack),
            _ => None,
        };
        alias
            .or_else(|| HostPreset::ALL.iter().copied().find(|p| p.name() == n))
            .ok_or_else(|| {
                let known: Vec<&str> = HostPreset::ALL.iter().map(|p| p.name()).collect();
                format!("unknown host '{name}' (known: {})", known.join(", "))
            })
    }

    /// The socket buffers these hosts take: [`MIN_BUFFER`] to 4.4BSD's `sb_max` ([`SB_MAX`]), the
    /// same for every BSD profile (Lite2 and FreeBSD's socketvar.h kept Lite's `SB_MAX`; BSD/OS,
    /// not public, is taken as Lite2, as everywhere in its profile).
    /// Today's Linux profiles with window scaling take up to [`MAX_LINUX_BUFFER`], the live mode's
    /// cap for `modern`; the `paper` ones keep the BSD hosts' limit, as the live mode's do.
    pub fn buffer_limit(self) -> BufferLimit {
        match self {
            HostPreset::Linux | HostPreset::LinuxReno => BufferLimit {
                hosts: self.name(),
                max: MAX_LINUX_BUFFER,
                source: "snooplab's cap; Linux's own are sysctls",
            },
            _ => BufferLimit {
                hosts: self.name(),
                max: SB_MAX,
                source: "4.4BSD sb_max",
            },
        }
    }

    pub fn profile(self) -> HostProfile {
        let user = |p: HostProfile| HostProfile {
            read_delay: 0,
            read_size: DEFAULT_READ_SIZE,
            ..p
        };
        let lite2 = HostProfile {
            ca_increment: CaIncrement::Plain,
            reader: ReaderModel::Process,
            header_prediction: HeaderPrediction::Bsd,
            persist: true,
            deflation: Deflation::AboveThreshold,
            rtt_estimator: RttEstimator::Lite,
            delayed_ack: DelayedAck::Bsd,
            sack_recovery: SackRecovery::FallFloyd,
            next_seg: NextSeg::Rfc6675,
            prr: PrrReading::Rfc6937,
            window_scaling: false,
            timestamps: false,
            timer_clock: TimerClock::BsdTicks,
            initial_window: 1,
            congestion_control: CongestionControl::Bsd,
            sack: SackUse::ByProtocol,
            rack_tlp: false,
            undo: false,
            dsack: false,
            frto: false,
            reno_sack_emulation: false,
            sack_compress: SackCompress::Off,
            read_delay: 0,
            read_size: 0,
        };
        match self {
            HostPreset::Bsd44Lite => user(HostProfile {
                ca_increment: CaIncrement::PlusEighth,
                reader: ReaderModel::Instant,
                header_prediction: HeaderPrediction::Off,
                persist: false,
                ..lite2
            }),
            HostPreset::Bsdos21 => user(lite2),
            HostPreset::Freebsd22 => user(HostProfile {
                header_prediction: HeaderPrediction::FreeBsd,
                deflation: Deflation::AtThreshold,
                rtt_estimator: RttEstimator::Fine,
                ..lite2
            }),
            HostPreset::Linux => user(linux()),
            HostPreset::LinuxReno => user(HostProfile {
                congestion_control: CongestionControl::LinuxReno,
                ..linux()
            }),
            HostPreset::LinuxPaper => user(HostProfile {
                congestion_control: CongestionControl::LinuxReno,
                sack: SackUse::ByProtocol,
                rack_tlp: false,
                undo: false,
                dsack: false,
                frto: false,
                sack_compress: SackCompress::Off,
                window_scaling: false,
                timestamps: false,
                initial_window: 1,
                rtt_estimator: RttEstimator::Linux {
                    rto_min: LINUX_PAPER_RTO_MIN,
                },
                ..linux()
            }),
            HostPreset::LinuxPaperSack => user(HostProfile {
                sack: SackUse::On,
                dsack: true,
                undo: true,
                sack_compress: SackCompress::Linux,
                ..HostPreset::LinuxPaper.profile()
            }),
        }
    }
}

/// The most a `linux` host's buffer may be: 64 MB, the live mode's cap for its `modern` profile
/// (RFC 7323's largest scaled window is 1 GB; Linux's own ceilings are sysctls).
pub const MAX_LINUX_BUFFER: u32 = 64 << 20;

/// `CONFIG_HZ` of the kernel the Linux profiles are held to (this machine's 6.18 reports 250).
pub const LINUX_HZ: u32 = 250;

/// The live `paper` profiles' `rto_min` route option: 4.4BSD's `TCPTV_MIN`, two 500 ms ticks.
pub const LINUX_PAPER_RTO_MIN: Time = SEC;

/// Today's Linux with the kernel's defaults (the live mode's `modern`), the user settings left
/// to [`HostPreset::profile`]. Reader: the live receiver reads as data arrives, 64 KB at a time,
/// so its window is the whole buffer; Linux's receive-window growth (`tcp_grow_window`) is not
/// modelled (a reading). Header prediction is off: Linux's fast path changes no rule here.
fn linux() -> HostProfile {
    HostProfile {
        ca_increment: CaIncrement::Plain,
        reader: ReaderModel::Instant,
        header_prediction: HeaderPrediction::Off,
        persist: true,
        deflation: Deflation::AtThreshold,
        rtt_estimator: RttEstimator::Linux {
            rto_min: crate::tcp::TCP_RTO_MIN,
        },
        delayed_ack: DelayedAck::Linux,
        sack_recovery: SackRecovery::Rfc6675Prr,
        next_seg: NextSeg::LinuxLostOnly,
        prr: PrrReading::Linux,
        window_scaling: true,
        timestamps: true,
        timer_clock: TimerClock::Jiffies { hz: LINUX_HZ },
        initial_window: 10,
        congestion_control: CongestionControl::Cubic,
        sack: SackUse::On,
        rack_tlp: true,
        undo: true,
        dsack: true,
        frto: true,
        reno_sack_emulation: true,
        sack_compress: SackCompress::Linux,
        read_delay: 0,
        read_size: 0,
    }
}
