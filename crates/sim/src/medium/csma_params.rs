//! The constants of the WaveLAN's CSMA/CA rule (`csma.rs`), each a parameter with its source, and
//! what follows from them: the post-transmission backoff's mean, the turnaround, the frame
//! overhead that keeps one station's time per frame the calibrated one, and their checks.

use snooplab_proto::time::US;
use snooplab_proto::Time;

/// The MAC constants of the original WaveLAN. Every value is a parameter; the defaults and their
/// sources are those of the research note `wavelan-mac.md` (summarised in `docs/model.md`). One bit
/// time at 2 Mb/s is 0.5 us, the unit of the modem's timing registers ("bit periods (.5 us)",
/// Linux `drivers/net/wavelan.h`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CsmaParams {
    /// Inter-frame spacing: the idle time every station waits after the medium goes idle before it
    /// may send or count down a backoff. 16 us = 32 bit times: the 82586's `cfg_ifs = 0x20` and the
    /// modem's `mmw_ifs = 0x20` ("min time between transmission in bit periods (.5 us)") as the Linux
    /// driver programs them from Lucent's manual WCIN085B (`drivers/net/wavelan.c`, Linux 2.0.37 to
    /// 2.6). The older default board configuration (IFS=120, FreeBSD `if_wl.c`) and Kunz's slide
    /// give 60 us: a sensitivity case.
    pub ifs: Time,
    /// Backoff slot. 6 us = 12 bit times: the 82586's `cfg_slotl = 0x0C` from WCIN085B (Linux
    /// `wavelan.c`; FreeBSD `if_wl.c`, "slottime=12"). The PCMCIA card's 82593 was meant to use 32
    /// bit times (16 us) and Kunz's slide says 23 us: the slot in microseconds is uncertain, model it
    /// over 6-23 us.
    pub slot: Time,
    /// First contention window, slots: a deferring station draws its backoff from `[0, cw_min)`.
    /// 32 ("pick number between 0 and 31", Kunz, "WaveLAN MAC Protocol", Carleton SCE 581).
    pub cw_min: u32,
    /// Largest window: each failed attempt doubles the window up to this. 256 ("double backoff
    /// range until we reach range 0-255", Kunz).
    pub cw_max: u32,
    /// Failed attempts (backoffs that ended on a busy medium) after which a frame is dropped. 15:
    /// the 82586's `AC_CFG_RETRYNUM(15)` and the 82593's `max_retr = 15` (Linux drivers), "drop
    /// packet after 15 attempts" (Kunz).
    pub max_attempts: u32,
    /// Window of the wait after a station's own frame before its next one, slots: `[0, 16)`. "If
    /// station has more than one packet to send: wait WIFS plus backoff-period in range 0-15 (avoid
    /// monopolization)" (Kunz).
    pub post_tx_window: u32,
    /// The host's turnaround, per IP byte of the frame (ns): a station's card holds one frame, and
    /// the host copies the next one onto it (programmed I/O over the ISA or PC-Card bus) once the
    /// card is free: after its last frame left the air, or when the frame is queued at an idle
    /// station. The frame can go on the air `ip_len * load_ns_per_byte` later. 0 (the default):
    /// frames are on the card at once, the model before the turnaround existed. Paper 001's
    /// preset derives it from the calibration (`crates/papers/src/paper001/testbed.rs`).
    pub load_ns_per_byte: u64,
    /// With a turnaround, the fixed airtime of every frame besides its IP bytes (preamble, network
    /// ID, MAC header and checksum): the calibrated overhead's share that is on the air, the rest
    /// being the turnaround. Unused without a turnaround.
    pub framing: Time,
    /// How long a transmission takes to be sensed by the other stations: a station whose wait ends
    /// within this delay of another's start does not hear it, sends too, and both collide. 0 (the
    /// default): only stations that start in the same instant collide. The Daedalus group's ns-2
    /// model has 4 us (`Channel set delay_ 4us`; `channel.cc` `Channel::contention` and
    /// `Channel::send`: the first station to find the channel free opens a window of the channel
    /// delay, and every station whose contention starts in it transmits and collides).
    pub sense_delay: Time,
}

impl Default for CsmaParams {
    fn default() -> Self {
        CsmaParams {
            ifs: 16 * US,
            slot: 6 * US,
            cw_min: 32,
            cw_max: 256,
            max_attempts: 15,
            post_tx_window: 16,
            load_ns_per_byte: 0,
            framing: 0,
            sense_delay: 0,
        }
    }
}

impl CsmaParams {
    /// Mean wait after a station's own frame besides the IFS: `(post_tx_window - 1) / 2` slots
    /// (45 us with the defaults).
    pub(crate) fn mean_post_tx_backoff(&self) -> Time {
        self.slot * u64::from(self.post_tx_window.saturating_sub(1)) / 2
    }

    /// The host's turnaround for a frame of `ip_len` bytes ([`CsmaParams::load_ns_per_byte`]).
    pub fn turnaround(&self, ip_len: u32) -> Time {
        u64::from(ip_len) * self.load_ns_per_byte
    }

    /// The fixed airtime each frame pays under CSMA, from the calibrated turn-taking overhead
    /// `calibrated` (`WavelanParams::frame_overhead`, 1084 us): the IFS and the mean
    /// post-transmission backoff are modelled explicitly, so they come off it,
    ///
    /// `overhead_csma = calibrated - ifs - (post_tx_window - 1) / 2 * slot`
    ///
    /// (1084 - 16 - 7.5 * 6 = 1023 us with the defaults). One station sending back to back then
    /// takes `calibrated + bits` per frame on average, as under turn taking. With a host
    /// turnaround the turnaround is the time off the air and [`CsmaParams::framing`] the time on it
    /// (paper 001's preset derives one from the other). This is the only place the CSMA overhead
    /// is computed.
    pub fn frame_overhead(&self, calibrated: Time) -> Time {
        if self.load_ns_per_byte > 0 {
            return self.framing;
        }
        calibrated.saturating_sub(self.ifs + self.mean_post_tx_backoff())
    }

    /// Checks the parameters against the calibrated per-frame overhead they come off.
    pub fn validate(&self, calibrated: Time) -> Result<(), String> {
        if self.slot == 0 {
            return Err("the CSMA slot must be positive".into());
        }
        if self.cw_min == 0 || self.cw_max < self.cw_min {
            return Err(format!(
                "CSMA contention windows must satisfy 1 <= cw_min <= cw_max, got {} and {}",
                self.cw_min, self.cw_max
            ));
        }
        if self.max_attempts == 0 || self.post_tx_window == 0 {
            return Err("CSMA max_attempts and post_tx_window must be at least 1".into());
        }
        if self.load_ns_per_byte > 0 && (self.framing == 0 || self.framing > calibrated) {
            return Err(format!(
                "with a host turnaround the CSMA framing must be positive and at most the per-frame overhead ({} us)",
                calibrated / US
            ));
        }
        if self.sense_delay > MAX_SENSE_DELAY {
            return Err(format!(
                "the CSMA sense delay must be at most {} us",
                MAX_SENSE_DELAY / US
            ));
        }
        if self.load_ns_per_byte > 100_000 {
            return Err("the CSMA turnaround must be at most 100 us per byte".into());
        }
        if self.ifs + self.mean_post_tx_backoff() > calibrated {
            return Err(format!(
                "the CSMA IFS and mean post-transmission backoff ({} us) exceed the per-frame overhead ({} us)",
                (self.ifs + self.mean_post_tx_backoff()) / US,
                calibrated / US
            ));
        }
        Ok(())
    }
}

/// The longest sense delay accepted: 1 ms, far beyond any radio cell's propagation and detection
/// time (ns-2's WaveLAN has 4 us), and short enough that every frame is still heard before it ends.
pub(crate) const MAX_SENSE_DELAY: Time = 1000 * US;
