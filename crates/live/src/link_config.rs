//! The links of paper 000's path as the live mode's flags set them (`--env`, `--error-every`,
//! `--burst`, `--down`, `--up`): the simulator's wired and WaveLAN models and channels, and the
//! capacities they allow.

use snooplab_sim::channel::ChannelSpec;
use snooplab_sim::link::WiredParams;
use snooplab_sim::medium::{one_flow_capacity_bps, WavelanParams};

/// The emulated links, as the simulator's scenario describes them.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkConfig {
    pub wired: WiredParams,
    pub wavelan: WavelanParams,
    /// Mean bytes between bit errors on the wireless hop, each direction; 0 = none.
    pub error_every: u64,
    pub burst: u32,
    /// Channel models of each direction over `error_every`/`burst` (`--down`, `--up`): the
    /// simulator's, so a Gilbert-Elliott channel or a replayed trace means the same here.
    pub down: Option<ChannelSpec>,
    pub up: Option<ChannelSpec>,
    /// Seeds the error processes (the simulator's streams).
    pub seed: u64,
}

impl LinkConfig {
    /// The channel models of the wireless hop, (down, up): `down`/`up` where set, else the
    /// `error_every`/`burst` shorthand.
    pub fn channels(&self) -> (ChannelSpec, ChannelSpec) {
        let every = ChannelSpec::every(self.error_every, self.burst);
        let down = self.down.clone().unwrap_or_else(|| every.clone());
        (down, self.up.clone().unwrap_or(every))
    }

    /// The best TCP payload rate the wireless hop allows, bit/s: back-to-back data frames of `mss`
    /// payload bytes and `header` header bytes, and one ACK frame per `segments_per_ack` of them
    /// sharing the half-duplex medium (the simulator's formula).
    pub(crate) fn wireless_capacity_bps(
        &self,
        mss: u32,
        header: u32,
        segments_per_ack: u32,
    ) -> f64 {
        one_flow_capacity_bps(&self.wavelan, mss, header, segments_per_ack)
    }

    /// The best TCP payload rate of the wired link towards the mobile host, bit/s: back-to-back
    /// segments of `mss` payload bytes and `header` header bytes plus the link's framing.
    pub(crate) fn wired_capacity_bps(&self, mss: u32, header: u32) -> f64 {
        let frame = mss + header + self.wired.framing_bytes;
        self.wired.rate_bps as f64 * f64::from(mss) / f64::from(frame.max(1))
    }

    /// The best TCP payload rate of the whole emulated path, bit/s: the slower of the wired link
    /// (the WAN pipe, 1.35 Mb/s of payload at MSS 1400) and the wireless hop (1.5 Mb/s).
    pub(crate) fn path_capacity_bps(&self, mss: u32, header: u32, segments_per_ack: u32) -> f64 {
        self.wireless_capacity_bps(mss, header, segments_per_ack)
            .min(self.wired_capacity_bps(mss, header))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use snooplab_sim::scenario::Env;

    fn lan(error_every: u64) -> LinkConfig {
        LinkConfig {
            wired: Env::Lan.wired(),
            wavelan: WavelanParams::default(),
            error_every,
            burst: 1,
            down: None,
            up: None,
            seed: 1,
        }
    }

    #[test]
    fn capacity_of_the_lan_wireless_hop() {
        let c = lan(0).wireless_capacity_bps(1400, 40, 2);
        // 2 x (1084 + 5760) + (1084 + 160) us for 2800 payload bytes
        assert!((c - 2800.0 * 8.0 / 14.932e-3).abs() < 1.0, "{c}");
        // 10 Mb/s Ethernet is not the bottleneck
        assert_eq!(lan(0).path_capacity_bps(1400, 40, 2), c);
    }

    #[test]
    fn capacity_of_the_wan_path_is_its_wired_pipe() {
        let mut wan = lan(0);
        wan.wired = Env::Wan.wired();
        let c = wan.path_capacity_bps(1400, 40, 2);
        // 1.3886 Mb/s of IP packets, 1400 of every 1440 bytes payload: paper 000's 1.35 Mb/s
        assert!((c - 1_388_571.0 * 1400.0 / 1440.0).abs() < 1.0, "{c}");
        assert!(c < wan.wireless_capacity_bps(1400, 40, 2));
    }
}
