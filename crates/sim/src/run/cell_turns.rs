//! A cell's next frame: when a frame has ended and its receiver has taken it, the cell (and the
//! cells sharing its radio channel) start their next frame; a cell whose channel is taken, or
//! whose frame's receiver has not answered yet, waits (`State::air_hold`).

use super::Simulation;
use crate::observer::Observe;

impl<O: Observe> Simulation<O> {
    /// Cell `c`'s frames have been taken: the cells of its channel, then `c`, start their next
    /// frame.
    #[inline(always)]
    pub(super) fn next_turn(&mut self, c: usize) {
        self.state.air_hold = None;
        // on a shared channel the other cells go first, in turn from the one after this
        // one: turns across the cells (most cells have a channel of their own: one test)
        let group = self.topo.air_group[c].len();
        if group > 0 {
            let after = self.topo.air_group[c].partition_point(|&g| g < c);
            for k in (after..group).chain(0..after) {
                self.start_cell(self.topo.air_group[c][k]);
            }
        }
        self.start_cell(c);
        // the step above moved the cell's next time even when start had nothing to add
        self.arm_cell(c);
    }

    /// Re-arms cell `c`'s timer at the medium's next time. (Inlined into the cell's step and
    /// start: the call cost 0.2% of every run.)
    #[inline(always)]
    pub(super) fn arm_cell(&mut self, c: usize) {
        let want = self.state.cells[c].poll_timeout();
        self.state
            .queue
            .arm(self.state.nodes.len() + c, want, self.state.now);
    }

    /// Puts cell `c`'s next frame on the air if it may go, unless the medium says nothing would
    /// change ([`crate::medium::Medium::can_skip_start`]) or a frame of its channel is on the air
    /// or just ended.
    #[inline(always)]
    pub(super) fn start_cell(&mut self, c: usize) {
        // most calls end here (a turn-taking cell with a frame on the air, a CSMA cell with
        // nothing queued since its last step): inlined, where a call cost a frame's prologue
        if !self.state.cells[c].can_skip_start() {
            self.start_cell_now(c);
        }
    }

    /// [`Simulation::start_cell`] when the medium may have something to start.
    fn start_cell_now(&mut self, c: usize) {
        if let Some(h) = self.state.air_hold {
            if h == c || self.topo.air_group[h].contains(&c) {
                // started in turn once the frame that ended is taken (`cell_timeout`), or once an
                // outside host that got it has answered (`take_answers`)
                return;
            }
        }
        if self.topo.air_group[c]
            .iter()
            .any(|&g| self.state.cells[g].is_busy())
        {
            return; // the channel is taken: started when that frame ends
        }
        self.state.cells[c].start(self.state.now);
        self.arm_cell(c);
    }
}
