//! The turn-taking access model: whenever the medium is free and frames wait, the next station after
//! the one that sent last (round robin over the cell's stations) sends one frame. With a base station
//! and one mobile host, data frames and ACK frames alternate, which with the calibrated per-frame
//! overhead gives paper 000's 1.5 Mb/s (`docs/model.md`, "Calibration"). Frames never collide: the
//! overhead stands for all contention.

use snooplab_proto::Time;

use super::{Frame, Medium};

impl<P: Frame> Medium<P> {
    pub(super) fn start_turn(&mut self, now: Time) {
        if self.on_air.is_some() {
            if !self.air_ended {
                return;
            }
            self.release_ended();
        }
        // round robin from the one after the last sender, wrapping (two ranges rather than a
        // modulo per station: a cell of 200 stations looks at each at every frame)
        let n = self.queues.len();
        let after = (self.last + 1).min(n);
        let next = (after..n)
            .chain(0..after)
            .find(|&s| !self.queues[s].is_empty());
        if let Some(from) = next {
            self.transmit(now, from);
        }
    }
}
