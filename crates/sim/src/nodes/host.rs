//! A host: the TCP endpoints of the flows that start or end on it, demultiplexed by address and port.
//! The sending application's bytes are a function of their offset in the transfer, so every data
//! packet carries a digest the receiver checks (`packet.rs`). A workload flow's connections are
//! the host's request/response ends (`apps.rs`), opened by its browsers (`browser.rs`); their
//! bytes are modelled, so they carry none.

use snooplab_proto::agent::{Origin, Priority};
use snooplab_proto::tcp::Tcp;
use snooplab_proto::time::earliest;
use snooplab_proto::Time;

use super::host_apps::HostApps;
use super::{MobileLayer, Outgoing};
use crate::network::FlowId;
use crate::packet::SimPacket;

/// Which end of its flow a connection is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Sender,
    Receiver,
}

/// One TCP endpoint of a flow.
#[derive(Clone)]
pub struct Conn {
    pub flow: FlowId,
    pub role: Role,
    pub tcp: Tcp,
    /// The seed of the flow's bytes when its other end is a real host (the live mode's mixed
    /// networks): this end's packets then carry real bytes ([`SimPacket::modelled_real`]).
    /// `None` in every simulated run.
    pub wire: Option<u64>,
}

/// A host's TCP endpoints. A packet for no endpoint here is dropped and counted.
#[derive(Clone, Default)]
pub struct HostNode {
    pub conns: Vec<Conn>,
    /// Packets that matched no endpoint.
    pub unmatched: u64,
    /// The endpoint whose output is being drained (`poll_transmit` goes through them in order).
    next: usize,
    /// A mobile host that hands off between base stations (paper 002): its mobility layer, below
    /// its TCP (`mobility.rs`, the same layer a host outside the engine has).
    pub mobile: Option<MobileLayer>,
    /// Its part in workload flows, if any: their connections, clients and servers, and the
    /// browsers of those whose `to` it is (`apps.rs`).
    pub web: Option<Box<HostApps>>,
}

impl HostNode {
    /// The endpoint a segment from `seg.src` to `seg.dst` belongs to.
    pub(crate) fn conn_index(&self, packet: &SimPacket) -> Option<usize> {
        let s = &packet.seg;
        self.conns
            .iter()
            .position(|c| c.tcp.local() == s.dst && c.tcp.remote() == s.src)
    }

    pub fn on_packet(&mut self, now: Time, packet: SimPacket) {
        match self.conn_index(&packet) {
            Some(i) => {
                self.on_packet_at(now, i, packet);
            }
            None => self.on_other_packet(now, packet),
        }
    }

    /// A packet for none of the bulk flows' endpoints: a workload connection's, or unmatched.
    #[cold]
    #[inline(never)]
    fn on_other_packet(&mut self, now: Time, packet: SimPacket) {
        match self.app_index(&packet) {
            Some(i) => self.on_app_packet(now, i, packet),
            None => self.unmatched += 1,
        }
    }

    /// Who a packet for none of the bulk flows' endpoints is for: a workload connection, or
    /// no one.
    #[cold]
    #[inline(never)]
    pub(crate) fn inbound_other(&self, packet: &SimPacket) -> super::Inbound {
        match self.app_index(packet) {
            Some(conn) => super::Inbound::App { conn },
            None => super::Inbound::Unmatched,
        }
    }

    /// The workload connection a segment belongs to (`apps.rs`).
    #[cold]
    #[inline(never)]
    pub(crate) fn app_index(&self, packet: &SimPacket) -> Option<usize> {
        self.web.as_ref()?.conns.index(&packet.seg)
    }

    /// A packet for workload connection `i` (as [`HostNode::app_index`] found it).
    pub(crate) fn on_app_packet(&mut self, now: Time, i: usize, packet: SimPacket) {
        if let Some(w) = &mut self.web {
            w.on_segment(now, i, &packet.seg, packet.corrupted);
        }
        packet.recycle();
    }

    /// A packet for endpoint `i` (as [`HostNode::conn_index`] found it); whether the endpoint is
    /// finished after it ([`Tcp::is_finished`]). A segment ends a flow only by finishing one of
    /// its endpoints (closed or in TIME_WAIT, for good: this model opens no connection again),
    /// so the loop asks whether every flow has ended only then (`run/flow_lookup.rs`).
    pub(crate) fn on_packet_at(&mut self, now: Time, i: usize, packet: SimPacket) -> bool {
        let tcp = &mut self.conns[i].tcp;
        if packet.corrupted {
            tcp.on_corrupted(&packet.seg);
        } else {
            tcp.on_segment(now, &packet.seg);
        }
        packet.recycle();
        tcp.is_finished()
    }

    pub fn on_timeout(&mut self, now: Time) {
        if let Some(m) = &mut self.mobile {
            m.on_timeout(now);
        }
        for c in &mut self.conns {
            if c.tcp.poll_timeout().is_some_and(|t| t <= now) {
                c.tcp.on_timeout(now);
            }
        }
        if let Some(w) = &mut self.web {
            w.on_timeout(now);
        }
    }

    /// The next segment any endpoint sends, endpoints in order; data carries its digest.
    pub fn poll_transmit(&mut self) -> Option<Outgoing> {
        if let Some(m) = &mut self.mobile {
            if let Some(out) = m.poll_request() {
                return Some(out);
            }
        }
        while self.next < self.conns.len() {
            let c = &mut self.conns[self.next];
            let next = match c.wire {
                None => SimPacket::from_tcp(&mut c.tcp, c.role == Role::Sender),
                Some(seed) => c.tcp.poll_transmit().map(|(seg, kind)| {
                    let offset = u64::from(seg.seq.since(c.tcp.iss() + 1));
                    (SimPacket::modelled_real(&seg, seed, offset), kind)
                }),
            };
            if let Some((packet, kind)) = next {
                return Some(Outgoing {
                    packet,
                    priority: Priority::Normal,
                    origin: Origin::Endpoint(kind),
                    flow: Some(c.flow),
                });
            }
            self.next += 1;
        }
        if self.web.is_some() {
            if let Some(out) = self.poll_transmit_apps() {
                return Some(out);
            }
        }
        self.next = 0;
        None
    }

    /// [`HostNode::poll_transmit`] past the bulk endpoints: the workload connections, in order
    /// (their bytes are modelled, so they carry no digest).
    #[inline(never)]
    fn poll_transmit_apps(&mut self) -> Option<Outgoing> {
        let bulk = self.conns.len();
        let w = self.web.as_mut()?;
        while self.next - bulk < w.conns.conns.len() {
            let c = &mut w.conns.conns[self.next - bulk];
            if let Some((seg, kind)) = c.poll_transmit() {
                return Some(Outgoing {
                    packet: SimPacket::new(seg, None),
                    priority: Priority::Normal,
                    origin: Origin::Endpoint(kind),
                    flow: Some(c.flow),
                });
            }
            self.next += 1;
        }
        None
    }

    /// (Inlined where the loop re-arms a node's timer, as it was before the workload
    /// connections' branch made it larger.)
    #[inline(always)]
    pub fn poll_timeout(&self) -> Option<Time> {
        let tcp = self
            .conns
            .iter()
            .fold(None, |t, c| earliest(t, c.tcp.poll_timeout()));
        let tcp = match &self.web {
            None => tcp,
            Some(w) => earliest(tcp, apps_timeout(w)),
        };
        match &self.mobile {
            None => tcp,
            Some(m) => earliest(tcp, m.poll_timeout()),
        }
    }
}

/// The workload connections' and browsers' next time (out of the host's inlined timer look-up).
#[inline(never)]
fn apps_timeout(w: &HostApps) -> Option<Time> {
    w.poll_timeout()
}
