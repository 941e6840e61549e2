//! The data a base station has seen of one connection from a mobile sender, as a list of blocks
//! (paper 004 section 3.3, "Data structures"): maximal contiguous ranges of sequence space, each a
//! start and an end. A gap between two blocks is a hole, a segment the base station never saw: lost
//! on the wireless link, or to congestion before the agent (at the mobile host's output queue or the
//! base station's input queue). A gap of the second kind is bridged when it appears, so the list
//! holds only the holes that wireless corruption made ("the implicitly maintained list of holes should
//! only include packets lost due to corruption"). The ELN marker and the NACK generator both read it.

use std::collections::BTreeMap;

use crate::segment::{Endpoint, Segment};
use crate::seq::Seq;
use crate::time::Time;

/// The queue rule (paper 004 section 3.3): a gap that appears while the base station's input queue
/// (`input`: length and maximum) or the mobile host's output queue (piggybacked on `seg`) is above
/// `threshold` of its maximum may be a congestion drop, not a wireless loss.
pub fn gap_may_be_congestion(threshold: f64, input: (usize, usize), seg: &Segment) -> bool {
    let (len, max) = input;
    len as f64 > threshold * max.max(1) as f64 || seg.queue.is_some_and(|q| q.above(threshold))
}

/// One mobile sender's connection as a base station sees it: its blocks, when it was last
/// active, and what the agent keeps besides (`E`).
#[derive(Clone, Debug)]
pub struct Sender<E> {
    pub blocks: BlockList,
    pub last_active: Time,
    pub state: E,
}

/// Every mobile sender a loss-classifying agent (the ELN marker, the NACK generator) serves: the
/// data path of paper 004 section 3.3 (record each segment, apply the queue rule, count holes and
/// congestion gaps) and its ACK path (clean below each ACK), once for both agents.
#[derive(Clone, Debug)]
pub struct MobileSenders<E> {
    conns: BTreeMap<(Endpoint, Endpoint), Sender<E>>,
    /// The base station's input queue: (length, maximum) as its node last told it.
    input_queue: (usize, usize),
    queue_threshold: f64,
    max_blocks: usize,
    max_connections: usize,
    /// A connection with no packets for this long is forgotten.
    idle: Time,
    /// Gaps recorded as holes, and gaps bridged as possible congestion, over all connections.
    holes: u64,
    congestion_gaps: u64,
}

impl<E: Default> MobileSenders<E> {
    pub fn new(
        queue_threshold: f64,
        max_blocks: usize,
        max_connections: usize,
        idle: Time,
    ) -> MobileSenders<E> {
        MobileSenders {
            conns: BTreeMap::new(),
            input_queue: (0, 1),
            queue_threshold,
            max_blocks,
            max_connections,
            idle,
            holes: 0,
            congestion_gaps: 0,
        }
    }

    /// Gaps recorded as wireless holes so far, and gaps bridged as possible congestion losses.
    pub fn gaps(&self) -> (u64, u64) {
        (self.holes, self.congestion_gaps)
    }

    /// The base station's input queue holds `len` of at most `max` packets.
    pub fn set_input_queue(&mut self, len: usize, max: usize) {
        self.input_queue = (len, max);
    }

    /// Data (or a SYN or FIN) from the mobile host: recorded in its connection's blocks, a new hole
    /// or a gap bridged as congestion counted ([`MobileSenders::gaps`]). `None` for a segment that
    /// occupies no sequence space.
    pub fn on_data(&mut self, now: Time, seg: &Segment) -> Option<(&mut Sender<E>, Recorded)> {
        if seg.seq_len() == 0 {
            return None;
        }
        let key = (seg.src, seg.dst);
        if !self.conns.contains_key(&key) {
            self.make_room(now);
        }
        let congested = gap_may_be_congestion(self.queue_threshold, self.input_queue, seg);
        let max_blocks = self.max_blocks;
        let conn = self.conns.entry(key).or_insert_with(|| Sender {
            blocks: BlockList::new(max_blocks),
            last_active: now,
            state: E::default(),
        });
        conn.last_active = now;
        let rec = conn
            .blocks
            .record(seg.seq, seg.seq + seg.seq_len(), congested);
        match rec {
            Recorded::NewHole(..) => self.holes += 1,
            Recorded::Bridged(..) if congested => self.congestion_gaps += 1,
            _ => {}
        }
        Some((conn, rec))
    }

    /// An ACK towards the mobile host: its connection, with every block below the ACK cleaned
    /// away (paper 004 section 3.3, "ACK processing"); `None` for a connection never seen.
    pub fn on_ack(&mut self, now: Time, seg: &Segment) -> Option<&mut Sender<E>> {
        let conn = self.conns.get_mut(&(seg.dst, seg.src))?;
        conn.last_active = now;
        conn.blocks.clean(seg.ack);
        Some(conn)
    }

    /// Forgets the connections idle for too long, then the least recently active while the table
    /// is full.
    fn make_room(&mut self, now: Time) {
        let idle = self.idle;
        self.conns
            .retain(|_, c| now.saturating_sub(c.last_active) < idle);
        while self.conns.len() >= self.max_connections.max(1) {
            let Some(k) = self
                .conns
                .iter()
                .min_by_key(|(_, c)| c.last_active)
                .map(|(k, _)| *k)
            else {
                break;
            };
            self.conns.remove(&k);
        }
    }

    pub fn connections(&self) -> usize {
        self.conns.len()
    }

    pub fn senders(&self) -> impl Iterator<Item = &Sender<E>> {
        self.conns.values()
    }

    pub fn senders_mut(&mut self) -> impl Iterator<Item = &mut Sender<E>> {
        self.conns.values_mut()
    }
}

/// The blocks of one connection, sorted, disjoint and never adjacent.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BlockList {
    blocks: Vec<(Seq, Seq)>,
    /// The highest acknowledgment seen: data below it is the receiver's already.
    acked: Option<Seq>,
    /// Most blocks kept: a new gap past it is bridged, not recorded (memory stays bounded).
    max_blocks: usize,
}

/// What [`BlockList::record`] made of a segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recorded {
    /// In sequence, a repeat, or below the acknowledged point: no hole appeared.
    InOrder,
    /// It filled (part of) a hole.
    FilledHole,
    /// It opened a wireless hole `[start, end)` before itself.
    NewHole(Seq, Seq),
    /// It jumped a gap that was bridged: congestion, or the list was full.
    Bridged(Seq, Seq),
}

impl BlockList {
    pub fn new(max_blocks: usize) -> BlockList {
        BlockList {
            blocks: vec![],
            acked: None,
            max_blocks: max_blocks.max(1),
        }
    }

    /// The segment `[start, end)` came from the mobile host. A gap it opens above the highest block
    /// becomes a hole unless `congested` (a queue was above its threshold: the gap may be a
    /// congestion drop) or the list is full; a segment inside a hole coalesces with its neighbours.
    pub fn record(&mut self, start: Seq, end: Seq, congested: bool) -> Recorded {
        let start = match self.acked {
            Some(a) if end.le(a) => return Recorded::InOrder,
            Some(a) => start.max(a),
            None => start,
        };
        if !start.lt(end) {
            return Recorded::InOrder;
        }
        let Some(&(_, last_end)) = self.blocks.last() else {
            // everything seen is acknowledged: a gap from the acknowledged point is a hole too
            return match self.acked {
                Some(a) if start.gt(a) && congested => {
                    self.blocks.push((a, end));
                    Recorded::Bridged(a, start)
                }
                Some(a) if start.gt(a) => {
                    self.blocks.push((start, end));
                    Recorded::NewHole(a, start)
                }
                _ => {
                    self.blocks.push((start, end));
                    Recorded::InOrder
                }
            };
        };
        if start == last_end {
            if let Some(last) = self.blocks.last_mut() {
                last.1 = last.1.max(end);
            }
            return Recorded::InOrder;
        }
        if start.gt(last_end) {
            let gap = (last_end, start);
            if congested || self.blocks.len() >= self.max_blocks {
                if let Some(last) = self.blocks.last_mut() {
                    last.1 = end;
                }
                return Recorded::Bridged(gap.0, gap.1);
            }
            self.blocks.push((start, end));
            return Recorded::NewHole(gap.0, gap.1);
        }
        // below the highest block: a repeat, or (part of) a hole filled
        let before = self.covered();
        self.merge(start, end);
        if self.covered() > before {
            Recorded::FilledHole
        } else {
            Recorded::InOrder
        }
    }

    /// Bytes the blocks cover.
    fn covered(&self) -> u64 {
        self.blocks
            .iter()
            .map(|&(a, b)| u64::from(b.since(a)))
            .sum()
    }

    /// Adds `[start, end)` (which does not start above the last block) and coalesces.
    fn merge(&mut self, start: Seq, end: Seq) {
        let mut merged = (start, end);
        let mut kept = Vec::with_capacity(self.blocks.len() + 1);
        for &(a, b) in &self.blocks {
            if b.lt(merged.0) || merged.1.lt(a) {
                kept.push((a, b));
            } else {
                merged = (a.min(merged.0), b.max(merged.1));
            }
        }
        let at = kept
            .iter()
            .position(|&(a, _)| merged.0.lt(a))
            .unwrap_or(kept.len());
        kept.insert(at, merged);
        self.blocks = kept;
    }

    /// An acknowledgment for `ack` passed: every block, or part of one, below it is the receiver's
    /// and is cleaned away (paper 004 section 3.3, "ACK processing").
    pub fn clean(&mut self, ack: Seq) {
        if self.acked.is_some_and(|a| ack.le(a)) {
            return;
        }
        self.acked = Some(ack);
        self.blocks.retain(|&(_, b)| b.gt(ack));
        if let Some(first) = self.blocks.first_mut() {
            first.0 = first.0.max(ack);
        }
    }

    /// Whether the segment `ack` asks for is a wireless hole: the ACK is below the earliest block.
    /// Never with no blocks: the base station cannot know that more data was sent.
    pub fn is_hole(&self, ack: Seq) -> bool {
        self.blocks.first().is_some_and(|&(a, _)| ack.lt(a))
    }

    /// The holes, lowest first, from the acknowledged point (when it is below the first block).
    pub fn holes(&self) -> Vec<(Seq, Seq)> {
        let mut out = vec![];
        if let (Some(a), Some(&(first, _))) = (self.acked, self.blocks.first()) {
            if a.lt(first) {
                out.push((a, first));
            }
        }
        out.extend(self.blocks.windows(2).map(|w| (w[0].1, w[1].0)));
        out
    }

    /// The blocks, lowest first.
    pub fn blocks(&self) -> &[(Seq, Seq)] {
        &self.blocks
    }

    /// The highest sequence number seen.
    pub fn highest(&self) -> Option<Seq> {
        self.blocks.last().map(|&(_, b)| b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const S: u32 = 1000;
    fn seg(n: u32) -> (Seq, Seq) {
        (Seq(n * S), Seq((n + 1) * S))
    }
    fn rec(l: &mut BlockList, n: u32) -> Recorded {
        let (a, b) = seg(n);
        l.record(a, b, false)
    }

    #[test]
    fn a_gap_above_the_highest_block_is_a_hole_and_filling_it_coalesces() {
        let mut l = BlockList::new(64);
        assert_eq!(rec(&mut l, 0), Recorded::InOrder);
        assert_eq!(rec(&mut l, 1), Recorded::InOrder);
        assert_eq!(rec(&mut l, 3), Recorded::NewHole(Seq(2 * S), Seq(3 * S)));
        assert_eq!(rec(&mut l, 4), Recorded::InOrder);
        assert_eq!(
            l.blocks(),
            &[(Seq(0), Seq(2 * S)), (Seq(3 * S), Seq(5 * S))]
        );
        assert_eq!(l.holes(), vec![(Seq(2 * S), Seq(3 * S))]);
        assert_eq!(rec(&mut l, 2), Recorded::FilledHole);
        assert_eq!(l.blocks(), &[(Seq(0), Seq(5 * S))]);
        assert!(l.holes().is_empty());
        assert_eq!(rec(&mut l, 2), Recorded::InOrder, "a repeat");
    }

    #[test]
    fn a_congested_gap_is_bridged_so_no_ack_for_it_is_a_hole() {
        let mut l = BlockList::new(64);
        rec(&mut l, 0);
        let (a, b) = seg(2);
        assert_eq!(l.record(a, b, true), Recorded::Bridged(Seq(S), Seq(2 * S)));
        assert_eq!(l.blocks(), &[(Seq(0), Seq(3 * S))]);
        l.clean(Seq(S));
        assert!(!l.is_hole(Seq(S)), "the congestion loss is not marked");
    }

    #[test]
    fn cleaning_drops_what_the_ack_covers_and_the_ack_in_a_hole_is_marked() {
        let mut l = BlockList::new(64);
        for n in [0, 1, 3, 4, 6] {
            rec(&mut l, n);
        }
        l.clean(Seq(S));
        assert!(!l.is_hole(Seq(S)), "inside the first block");
        l.clean(Seq(2 * S));
        assert!(l.is_hole(Seq(2 * S)), "the ACK asks for the lost segment 2");
        assert_eq!(l.blocks()[0], (Seq(3 * S), Seq(5 * S)));
        l.clean(Seq(5 * S));
        assert!(l.is_hole(Seq(5 * S)), "segment 5 is the next hole");
        assert_eq!(l.holes(), vec![(Seq(5 * S), Seq(6 * S))]);
        l.clean(Seq(7 * S));
        assert!(l.blocks().is_empty());
        assert!(!l.is_hole(Seq(7 * S)), "no blocks, no mark");
        assert_eq!(rec(&mut l, 5), Recorded::InOrder, "below the ACK: ignored");
        assert!(l.blocks().is_empty());
    }

    #[test]
    fn a_gap_after_everything_was_acknowledged_is_a_hole_or_bridged() {
        let mut l = BlockList::new(64);
        rec(&mut l, 0);
        l.clean(Seq(S));
        assert!(l.blocks().is_empty());
        assert_eq!(rec(&mut l, 2), Recorded::NewHole(Seq(S), Seq(2 * S)));
        assert!(l.is_hole(Seq(S)));
        let mut c = BlockList::new(64);
        rec(&mut c, 0);
        c.clean(Seq(S));
        let (a, b) = seg(2);
        assert_eq!(c.record(a, b, true), Recorded::Bridged(Seq(S), Seq(2 * S)));
        assert!(!c.is_hole(Seq(S)), "a congestion gap is never marked");
    }

    #[test]
    fn a_full_list_bridges_new_gaps() {
        let mut l = BlockList::new(2);
        rec(&mut l, 0);
        assert!(matches!(rec(&mut l, 2), Recorded::NewHole(..)));
        assert!(matches!(rec(&mut l, 4), Recorded::Bridged(..)));
        assert_eq!(l.blocks().len(), 2);
    }

    proptest! {
        /// Whatever the order of arrival, the blocks stay sorted, disjoint and non-adjacent, and
        /// cover exactly the segments that arrived (none congested, room for all).
        #[test]
        fn blocks_cover_exactly_what_arrived(order in proptest::collection::vec(0u32..40, 1..80)) {
            let mut l = BlockList::new(1000);
            let mut seen = [false; 40];
            for &n in &order {
                rec(&mut l, n);
                seen[n as usize] = true;
            }
            let b = l.blocks();
            for w in b.windows(2) {
                prop_assert!(w[0].1.lt(w[1].0));
            }
            for n in 0..40u32 {
                let (a, _) = seg(n);
                let inside = b.iter().any(|&(x, y)| x.le(a) && a.lt(y));
                prop_assert_eq!(inside, seen[n as usize], "segment {}", n);
            }
        }
    }
}
