//! A mobile host's one network card (issue 28): a mobile host that is a station of several cells
//! (paper 002's, which hands off between two base stations) still has one WaveLAN card, so one
//! interface and one transmit queue for all of them. In 4.4BSD an interface has one `ifnet` with
//! one `if_snd` queue: `ether_output` puts every frame at its tail (`IF_ENQUEUE`), and the
//! driver's start routine hands the card the head frame, and the next only once the card has
//! sent that one (BSD/OS's ISA WaveLAN driver, as FreeBSD's `if_wl.c` ported from it: `wlstart`
//! returns while a transmission is in progress and runs again from the transmit-done
//! interrupt). Requests to either base station and the ACKs for either cell therefore wait in
//! one FIFO, in the order IP queued them.
//!
//! The model: frames wait here in that order; the card hands one at a time to the medium of the
//! frame's cell, and the next once that one has left the air (sent, collided or given up). A
//! mobile host of one cell needs none of this (its cell's station queue is already its one
//! queue), so only hosts in more than one cell have a card.

use std::collections::VecDeque;

use snooplab_proto::agent::Priority;

use super::Simulation;
use crate::medium::StationId;
use crate::network::NodeId;
use crate::observer::Observe;
use crate::packet::SimPacket;

/// A frame waiting in the card's queue, and where it goes.
#[derive(Clone, Debug)]
pub(super) struct CardFrame {
    pub cell: usize,
    /// The host's station number in that cell.
    pub station: StationId,
    pub to: StationId,
    pub packet: SimPacket,
    pub priority: Priority,
}

/// The interface queue of a mobile host's one card.
#[derive(Clone, Debug)]
pub(super) struct Card {
    waiting: VecDeque<CardFrame>,
    /// The cell whose medium holds the card's frame (queued there or on the air), if any.
    handed_to: Option<usize>,
    /// Frames the queue holds, the one handed to a medium included (the cell's queue length,
    /// as `if_snd`'s `ifq_maxlen` bounds the whole interface).
    capacity: usize,
}

impl Card {
    pub fn new(capacity: usize) -> Card {
        Card {
            waiting: VecDeque::new(),
            handed_to: None,
            capacity: capacity.max(1),
        }
    }

    /// Frames held: waiting, and the one in a medium.
    pub fn len(&self) -> usize {
        self.waiting.len() + usize::from(self.handed_to.is_some())
    }

    /// Queues a frame at the tail; false if the queue is full and the frame is dropped (as
    /// `IF_DROP`).
    pub fn push(&mut self, frame: CardFrame) -> bool {
        if self.len() >= self.capacity {
            return false;
        }
        self.waiting.push_back(frame);
        true
    }

    /// The head frame, if the card has none in a medium: it is now the card's frame.
    pub(crate) fn hand_next(&mut self) -> Option<CardFrame> {
        if self.handed_to.is_some() {
            return None;
        }
        let f = self.waiting.pop_front()?;
        self.handed_to = Some(f.cell);
        Some(f)
    }

    /// A frame of this host left cell `cell`'s medium: if it was the card's, the card is free.
    /// Returns whether it was.
    pub(crate) fn left_medium(&mut self, cell: usize) -> bool {
        if self.handed_to == Some(cell) {
            self.handed_to = None;
            return true;
        }
        false
    }
}

impl<O: Observe> Simulation<O> {
    /// Mobile host `node` sends a frame through its card: it waits its turn in the one queue
    /// (dropped if that is full, counted as the cell's station drops), and goes to its cell's
    /// medium at once if the card is free. The node's kick starts its cells.
    pub(super) fn queue_on_card(&mut self, node: NodeId, frame: CardFrame) {
        let Some(card) = self.state.cards[node].as_mut() else {
            return;
        };
        let (cell, station) = (frame.cell, frame.station);
        if !card.push(frame) {
            self.state.cells[cell].stations[station].drops += 1;
            return;
        }
        let held = card.len();
        let m = &mut self.state.cells[cell];
        m.max_queue = m.max_queue.max(held);
        self.hand_to_medium(node);
    }

    /// A frame `node` sent in cell `cell` left the air (or was given up): if it was its card's,
    /// the card hands its medium the next frame, and that cell starts (unless a frame of its
    /// channel has just ended, when the loop starts it in turn).
    #[inline(always)]
    pub(super) fn card_sent(&mut self, node: NodeId, cell: usize) {
        // (most hosts have no card of their own: the test is inlined where a frame ends)
        if self.state.cards[node].is_some() {
            self.card_sent_now(node, cell);
        }
    }

    /// [`Simulation::card_sent`] for a host with a card.
    fn card_sent_now(&mut self, node: NodeId, cell: usize) {
        let Some(card) = self.state.cards[node].as_mut() else {
            return;
        };
        if card.left_medium(cell) {
            if let Some(next) = self.hand_to_medium(node) {
                self.start_cell(next);
            }
        }
    }

    /// Hands the card's head frame to its cell's medium if the card holds none there; returns
    /// that cell.
    fn hand_to_medium(&mut self, node: NodeId) -> Option<usize> {
        let f = self.state.cards[node].as_mut()?.hand_next()?;
        // the medium's station queue holds at most this one frame of the host
        self.state.cells[f.cell].enqueue(f.station, f.to, f.packet, f.priority);
        Some(f.cell)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use snooplab_proto::Segment;

    fn frame(cell: usize, id: u16) -> CardFrame {
        let seg = Segment {
            ip_id: id,
            ..Segment::default()
        };
        CardFrame {
            cell,
            station: 1,
            to: 0,
            packet: SimPacket::new(seg, None),
            priority: Priority::Normal,
        }
    }

    #[test]
    fn frames_for_both_cells_go_one_at_a_time_in_the_order_queued() {
        let mut card = Card::new(10);
        for (cell, id) in [(0, 1), (1, 2), (0, 3)] {
            assert!(card.push(frame(cell, id)));
        }
        let first = card.hand_next().map(|f| (f.cell, f.packet.seg.ip_id));
        assert_eq!(first, Some((0, 1)));
        // the card holds a frame: nothing more until it leaves its medium
        assert!(card.hand_next().is_none());
        // a frame of the other cell leaving is not the card's
        assert!(!card.left_medium(1));
        assert!(card.hand_next().is_none());
        assert!(card.left_medium(0));
        let order: Vec<_> = std::iter::from_fn(|| {
            let f = card.hand_next()?;
            card.left_medium(f.cell);
            Some((f.cell, f.packet.seg.ip_id))
        })
        .collect();
        assert_eq!(order, vec![(1, 2), (0, 3)]);
    }

    #[test]
    fn the_queue_counts_the_handed_frame_and_drops_at_its_limit() {
        let mut card = Card::new(2);
        assert!(card.push(frame(0, 1)));
        assert!(card.hand_next().is_some());
        assert!(card.push(frame(1, 2)));
        assert_eq!(card.len(), 2);
        assert!(!card.push(frame(0, 3)));
        assert!(card.left_medium(0));
        assert!(card.push(frame(0, 4)));
        let ids: Vec<_> = std::iter::from_fn(|| {
            let f = card.hand_next()?;
            card.left_medium(f.cell);
            Some(f.packet.seg.ip_id)
        })
        .collect();
        assert_eq!(ids, vec![2, 4]);
    }
}
