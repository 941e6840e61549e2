//! What the tests' in-process drivers share (`run/driver.rs` on virtual time): a script of what
//! the outside hosts do and when, interleaved with the engine's own events.

use std::collections::VecDeque;

use snooplab_proto::Time;
use snooplab_sim::engine::EventQueue;
use snooplab_sim::network::NodeId;
use snooplab_sim::packet::SimPacket;
use snooplab_sim::run::Step;

/// Actions in time order; an action at the time of an engine event comes after it.
pub struct Script<A> {
    items: VecDeque<(Time, A)>,
}

impl<A> Default for Script<A> {
    fn default() -> Self {
        Script {
            items: VecDeque::new(),
        }
    }
}

impl<A> Script<A> {
    /// Adds `a` at `t`, after whatever is already there at `t`.
    pub fn at(&mut self, t: Time, a: A) {
        let i = self.items.partition_point(|x| x.0 <= t);
        self.items.insert(i, (t, a));
    }

    /// The actions due before the engine's next event (at `next_event`), all of one time, or
    /// `None` when the engine's event comes first.
    pub fn due(&mut self, next_event: Option<Time>) -> Option<(Time, Vec<A>)> {
        let t = self.items.front()?.0;
        if next_event.is_some_and(|e| e <= t) {
            return None;
        }
        let mut acts = Vec::new();
        while self.items.front().is_some_and(|x| x.0 == t) {
            acts.extend(self.items.pop_front().map(|x| x.1));
        }
        Some((t, acts))
    }
}

/// The engine's next event, or the end.
pub fn engine_step<E>(queue: &mut EventQueue<E>) -> Step<E> {
    match queue.pop_next() {
        Some((t, e)) => Step::Event(t, e),
        None => Step::End,
    }
}

/// A driver's next step when one outside host `node` follows `script`: the packets it sends
/// before the engine's next event go into `inbox` at their time (an `Input` step), or else the
/// engine's next event.
#[allow(dead_code)] // a driver of several hosts keeps its own script
pub fn one_host_step<E>(
    script: &mut Script<SimPacket>,
    node: NodeId,
    inbox: &mut VecDeque<(Time, NodeId, SimPacket)>,
    queue: &mut EventQueue<E>,
) -> Step<E> {
    match script.due(queue.next_time()) {
        Some((t, sent)) => {
            inbox.extend(sent.into_iter().map(|p| (t, node, p)));
            Step::Input(t)
        }
        None => engine_step(queue),
    }
}
