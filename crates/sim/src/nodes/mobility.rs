//! A mobile host's mobility layer (paper 002 sections 4 and 6): the part of a mobile host that
//! hands off, below its TCP, shared by both kinds of host node. A modelled host ([`HostNode`]) and
//! a host outside the engine ([`ExternalHost`], a kernel in the live mode) carry the same layer:
//! its requests to the base stations (`Forward` with the last three IP ids, `Buffer`), their
//! repetition until confirmed, and its handoff timer. The loop feeds it what the host hears
//! (`run/roaming.rs`, before the packet reaches the host's TCP, which is where the layer sits)
//! and routes the host's packets by its current primary (`run/card.rs`, through its one card).
//!
//! [`HostNode`]: super::HostNode
//! [`ExternalHost`]: super::ExternalHost

use std::ops::{Deref, DerefMut};

use snooplab_proto::agent::handoff::{MobileHandoff, MobilityPacket};
use snooplab_proto::agent::{Origin, Priority};
use snooplab_proto::Time;

use super::Outgoing;
use crate::network::{Network, NodeId};
use crate::packet::SimPacket;

/// The mobility layer of one mobile host. (Boxed: most hosts have none, and every node is as large
/// as the largest kind; `Option<MobileLayer>` is one pointer.)
#[derive(Clone, Debug)]
pub struct MobileLayer(Box<MobileHandoff>);

impl MobileLayer {
    /// The layer of host `node`, if the network's handoffs make it a mobile host that hands off.
    pub fn of(net: &Network, node: NodeId) -> Option<MobileLayer> {
        crate::handoff_agents::mobile_host(net, node).map(MobileLayer::from)
    }

    /// Its timer, if it has come (a handoff decision on the timer, or a request repeated).
    pub fn on_timeout(&mut self, now: Time) {
        if self.0.poll_timeout().is_some_and(|t| t <= now) {
            self.0.on_timeout(now);
        }
    }

    /// A request to a base station, which goes ahead of the host's own packets (a UDP datagram on
    /// port 4344, `SimPacket::control`). Kept apart and cold: the hot path of every other host
    /// stays small.
    #[cold]
    pub(crate) fn poll_request(&mut self) -> Option<Outgoing> {
        let (bs, msg) = self.0.poll_transmit()?;
        Some(Outgoing {
            packet: SimPacket::control(self.0.config_addr(), bs, msg),
            priority: Priority::Normal,
            origin: Origin::Forwarded,
            flow: None,
        })
    }
}

impl From<MobileHandoff> for MobileLayer {
    fn from(m: MobileHandoff) -> MobileLayer {
        MobileLayer(Box::new(m))
    }
}

impl Deref for MobileLayer {
    type Target = MobileHandoff;

    fn deref(&self) -> &MobileHandoff {
        &self.0
    }
}

impl DerefMut for MobileLayer {
    fn deref_mut(&mut self) -> &mut MobileHandoff {
        &mut self.0
    }
}
