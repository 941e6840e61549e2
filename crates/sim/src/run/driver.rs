//! The clock seam: one loop, two clocks (docs/architecture.md, "One engine, two clocks").
//!
//! The event loop ([`Simulation::run_with`](super::Simulation::run_with)) asks its [`Driver`] what
//! to do next, and that is the only place where time comes from:
//!
//! - [`SimulatedTime`] pops the next event at once: time jumps from event to event, as the
//!   simulator always ran. It has no outside hosts, and its `EXTERNAL` is `false`, so the steps
//!   that serve them are compiled out of the simulator's loop.
//! - A real-clock driver (the live mode's, `snooplab-live`'s `tun_driver.rs`) waits until the next
//!   event's time comes or until a host outside the engine sends a packet, whichever is first. An
//!   event is handled at its own time however late the driver releases it (links and media keep
//!   exact time; the driver counts how late it was), and packets read from the hosts enter at the
//!   time they were read, once every event due by then has been handled, so the engine's time
//!   never goes back; but a host's immediate answer to what an event delivered to it
//!   ([`Driver::answer`]) enters at that event's time, before the medium's next pick.
//!
//! Outside hosts are nodes of the network ([`crate::nodes::ExternalHost`]): a packet the driver
//! reads from one enters the network at that node and is routed like any other; a packet the
//! network delivers to one goes out through [`Driver::send`] after the event that delivered it.
//! Their packets carry their real bytes (`raw.rs`), so the payload a kernel's TCP sent arrives bit
//! for bit.

use snooplab_proto::Time;

use crate::engine::{EventQueue, Next};
use crate::network::NodeId;
use crate::packet::SimPacket;

/// What the loop does next.
#[derive(Debug, PartialEq, Eq)]
pub enum Step<E> {
    /// Handle this event at this time.
    Event(Time, Next<E>),
    /// Packets from outside hosts arrived at this time: take them with [`Driver::recv`].
    Input(Time),
    /// The run is over.
    End,
}

/// Where the loop's time and its outside hosts' packets come from.
pub trait Driver {
    /// Hosts outside the engine are attached: the loop hands them their packets after every
    /// event. `false` compiles that step out.
    const EXTERNAL: bool;

    /// The next thing to do: the next event of `queue` (or none left), or packets that arrived.
    fn next<E>(&mut self, queue: &mut EventQueue<E>) -> Step<E>;

    /// After [`Step::Input`]: the next packet read, when it was read (not after the time of
    /// the `Input` step, in order), and the node of the host that sent it. Each packet enters at
    /// its own time: packets from several hosts read in one wake-up are not made simultaneous
    /// (on a CSMA cell they would all collide).
    fn recv(&mut self) -> Option<(Time, NodeId, SimPacket)>;

    /// The network delivered `packet` to the outside host `node` at `now`.
    fn send(&mut self, node: NodeId, now: Time, packet: &SimPacket);

    /// After the [`Driver::send`]s of one event: the next packet an outside host sent at once in
    /// answer to them, and its node. It enters at the event's time, before a cell whose frame
    /// the host got picks its next frame (`outside_hosts.rs`, `take_answers`), as a modelled
    /// host's answer does. Asked only after an event whose cell waits for it; after any other
    /// event what the hosts sent is theirs to hand out through [`Driver::recv`] at its time. None
    /// by default: a driver whose hosts answer later hands their packets out there.
    fn answer(&mut self) -> Option<(NodeId, SimPacket)> {
        None
    }

    /// Every flow's ends in the engine have ended (an end on an outside host counts as ended
    /// here): whether the run ends now. A driver whose hosts carry flows of their own notes it
    /// and ends the run from [`Driver::next`] once they have ended too.
    fn flows_finished(&mut self) -> bool;
}

/// Simulated time: jump to the next event.
#[derive(Clone, Copy, Debug, Default)]
pub struct SimulatedTime;

impl Driver for SimulatedTime {
    const EXTERNAL: bool = false;

    #[inline(always)]
    fn next<E>(&mut self, queue: &mut EventQueue<E>) -> Step<E> {
        match queue.pop_next() {
            Some((t, next)) => Step::Event(t, next),
            None => Step::End,
        }
    }

    fn recv(&mut self) -> Option<(Time, NodeId, SimPacket)> {
        None
    }

    fn send(&mut self, _: NodeId, _: Time, _: &SimPacket) {}

    #[inline(always)]
    fn flows_finished(&mut self) -> bool {
        true
    }
}
