//! The base station as a transparent bridge of two interfaces (docs/live.md, "The base station as
//! a middlebox"): each frame read on one side is handed on to the other. An IPv4/TCP packet goes
//! to the agent as arriving on its port (the wired interface is the agent's `Port::Wired`, the
//! wireless one its `Port::Wireless`, the two ports every agent is written for), and what the
//! agent sends leaves by the port it names, framed as `ethernet.rs` says. Every other frame (ARP,
//! IPv6, UDP, ICMP, an IPv4 fragment, a VLAN-tagged frame, a packet the parser rejects) passes to
//! the other side byte for byte. The agent's clock is the real one (nanoseconds since the bridge
//! started), its timers served as they fall due. A side may have an emulated link on its egress
//! (`egress_link.rs`): what the bridge writes there is held by it and written when it is due.

use std::time::Instant;

use snooplab_proto::agent::{Agent, Port};
use snooplab_proto::time::MS;
use snooplab_proto::Time;
use snooplab_sim::capture::{PcapWriter, Sink, LINKTYPE_ETHERNET};
use snooplab_sim::packet::SimPacket;

use super::batch::{Origin, Outgoing, Slots};
use super::device::FrameDevice;
use super::egress_link::EgressLink;
use super::ethernet::{self, Headers};
use crate::sys;

/// The longest sleep: how often the loop looks at its stop and status requests when no frame
/// comes and the agent wants no timer.
pub const IDLE_WAKE: Time = 50 * MS;

/// The two sides, as indices into the bridge's devices.
pub const WIRED: usize = 0;
pub const WIRELESS: usize = 1;

fn port_of(side: usize) -> Port {
    if side == WIRED {
        Port::Wired
    } else {
        Port::Wireless
    }
}

fn side_of(port: Port) -> usize {
    match port {
        Port::Wired => WIRED,
        Port::Wireless => WIRELESS,
    }
}

/// What crossed one interface.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct SideCounters {
    /// Frames read on it.
    pub frames_in: u64,
    /// ... of them IPv4/TCP, handed to the agent.
    pub tcp_in: u64,
    /// ... of them anything else, passed to the other side unchanged.
    pub passed_in: u64,
    /// Frames larger than the bridge reads (the interface's MTU and an Ethernet header with a
    /// VLAN tag: a GRO or LRO super-frame; turn them off on the interface, `ethtool -K IFACE gro
    /// off lro off`), dropped.
    pub oversize: u64,
    /// Frames written on it: passed unchanged from the other side, and the agent's.
    pub passed_out: u64,
    pub agent_out: u64,
    /// Packets of the agent for it with no link-layer header known for their addresses, dropped.
    pub no_header: u64,
    /// Writes the interface refused (its queue full, say).
    pub write_errors: u64,
}

pub struct Bridge<D: FrameDevice> {
    /// `devices[WIRED]`, `devices[WIRELESS]`.
    devices: [D; 2],
    agent: Box<dyn Agent<SimPacket>>,
    headers: Headers,
    clock: Instant,
    /// Where a batch of frames is read.
    slots: Slots,
    /// What waits to be written on each side, written at the end of each batch or timer.
    outgoing: [Outgoing; 2],
    /// Each side's emulated egress link, if it has one: what is written there waits in it first.
    links: [Option<EgressLink>; 2],
    pub counters: [SideCounters; 2],
    /// Each interface's frames, read and written, as pcaps (`--pcap`).
    captures: Option<[PcapWriter<Sink>; 2]>,
    /// The first error writing a capture; capturing stops there.
    pub capture_error: Option<String>,
}

/// The wall clock in nanoseconds, for captures (Wireshark shows when a frame crossed).
fn wall_clock() -> Time {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as Time)
}

/// Records `frame` into side `side`'s capture, if there are captures; the first error stops them.
fn record(
    captures: &mut Option<[PcapWriter<Sink>; 2]>,
    error: &mut Option<String>,
    side: usize,
    frame: &[u8],
) {
    let Some(c) = captures.as_mut() else {
        return;
    };
    if let Err(e) = c[side].write(wall_clock(), frame) {
        *error = Some(format!("cannot write a capture: {e}"));
        *captures = None;
    }
}

impl<D: FrameDevice> Bridge<D> {
    /// The bridge of `wired` and `wireless` running `agent`, its clock starting now.
    pub fn new(wired: D, wireless: D, agent: Box<dyn Agent<SimPacket>>) -> Bridge<D> {
        Bridge {
            devices: [wired, wireless],
            agent,
            headers: Headers::default(),
            clock: Instant::now(),
            slots: Slots::default(),
            outgoing: [Outgoing::default(), Outgoing::default()],
            links: [None, None],
            counters: [SideCounters::default(); 2],
            captures: None,
            capture_error: None,
        }
    }

    /// Puts `link` on `side`'s egress: every frame written there from now on waits in it first.
    pub fn set_link(&mut self, side: usize, link: EgressLink) {
        self.links[side] = Some(link);
    }

    /// `side`'s emulated egress link, if it has one.
    pub fn link(&self, side: usize) -> Option<&EgressLink> {
        self.links[side].as_ref()
    }

    /// Records every frame each interface carries from now on (read or written) into `wired`
    /// and `wireless`, as Ethernet pcaps.
    pub fn capture_into(&mut self, wired: Sink, wireless: Sink) -> std::io::Result<()> {
        let w = PcapWriter::with_link_type(wired, LINKTYPE_ETHERNET)?;
        let m = PcapWriter::with_link_type(wireless, LINKTYPE_ETHERNET)?;
        self.captures = Some([w, m]);
        Ok(())
    }

    /// Flushes the captures; how many frames each holds.
    pub fn finish_captures(&mut self) -> Result<Option<[u64; 2]>, String> {
        if let Some(e) = self.capture_error.take() {
            return Err(e);
        }
        let Some([w, m]) = self.captures.take() else {
            return Ok(None);
        };
        let counts = [w.packets(), m.packets()];
        for c in [w, m] {
            c.finish()
                .map_err(|e| format!("cannot write a capture: {e}"))?;
        }
        Ok(Some(counts))
    }

    /// The agent's time now.
    pub fn now(&self) -> Time {
        self.clock.elapsed().as_nanos() as Time
    }

    pub fn agent(&self) -> &dyn Agent<SimPacket> {
        self.agent.as_ref()
    }

    pub fn device(&self, side: usize) -> &D {
        &self.devices[side]
    }

    pub fn device_mut(&mut self, side: usize) -> &mut D {
        &mut self.devices[side]
    }

    /// Serves the agent's timer if it is due at `now`, and sends what it sends.
    pub fn serve_timer(&mut self, now: Time) {
        if self.agent.poll_timeout().is_some_and(|t| t <= now) {
            self.agent.on_timeout(now);
            self.flush(now);
            self.send_queued();
        }
    }

    /// Writes every frame the emulated links hold that is due at `now`, a batch per side.
    pub fn serve_links(&mut self, now: Time) {
        let mut due = 0;
        for (link, out) in self.links.iter_mut().zip(self.outgoing.iter_mut()) {
            if let Some(l) = link {
                due += l.release_due(now, out);
            }
        }
        if due > 0 {
            self.send_queued();
        }
    }

    /// Queues a frame of `header` then `body` for `side`: into its emulated link if it has one,
    /// else straight for the next write.
    fn queue(&mut self, side: usize, now: Time, header: &[u8], body: &[u8], origin: Origin) {
        match self.links[side].as_mut() {
            Some(link) => link.push(now, header, body, origin),
            None => self.outgoing[side].push(header, body, origin),
        }
    }

    /// Reads what waits on `side` (at most a batch), hands each frame on, and writes what that
    /// made.
    pub fn read_side(&mut self, side: usize) -> Result<(), String> {
        let mut slots = std::mem::replace(&mut self.slots, Slots::none());
        slots.clear();
        let read = self.devices[side].recv_batch(&mut slots);
        let now = self.now();
        for i in 0..slots.len() {
            self.on_frame(side, slots.real_len(i), slots.frame(i), now);
        }
        self.slots = slots;
        self.send_queued();
        read.map_err(|e| format!("reading {}: {e}", self.devices[side].name()))
    }

    /// `frame`, of real length `len` (longer than `frame` if it was cut), arrived on `side` at
    /// `now`.
    fn on_frame(&mut self, side: usize, len: usize, frame: &[u8], now: Time) {
        let c = &mut self.counters[side];
        c.frames_in += 1;
        if len > frame.len() {
            c.oversize += 1;
            return;
        }
        record(&mut self.captures, &mut self.capture_error, side, frame);
        let tcp = ethernet::ipv4_of(frame).and_then(|ip| match SimPacket::from_wire(ip) {
            Ok(p) if p.is_tcp() => Some((ip, p)),
            _ => None,
        });
        let Some((ip, packet)) = tcp else {
            c.passed_in += 1;
            self.queue(1 - side, now, &[], frame, Origin::Passed);
            return;
        };
        c.tcp_in += 1;
        self.headers.learn(frame, ip);
        self.agent.on_packet(now, port_of(side), packet);
        self.flush(now);
    }

    /// Queues everything the agent has to send, each packet for the side its port names.
    fn flush(&mut self, now: Time) {
        while let Some(tx) = self.agent.poll_transmit(now) {
            let side = side_of(tx.port);
            let bytes = tx.packet.wire_bytes();
            let header = ethernet::addresses(&bytes).and_then(|(s, d)| self.headers.for_pair(s, d));
            let Some(header) = header else {
                self.counters[side].no_header += 1;
                continue;
            };
            self.queue(side, now, &header, &bytes, Origin::Agent);
        }
    }

    /// Writes every queued frame, a batch per call, each side's in the order queued; a frame the
    /// interface refuses is counted and dropped, and the rest still go.
    fn send_queued(&mut self) {
        for side in [WIRED, WIRELESS] {
            let out = &self.outgoing[side];
            let c = &mut self.counters[side];
            let mut i = 0;
            while i < out.len() {
                let Ok(n) = self.devices[side].send_batch(out, i) else {
                    c.write_errors += 1;
                    i += 1;
                    continue;
                };
                for j in i..(i + n).min(out.len()) {
                    record(
                        &mut self.captures,
                        &mut self.capture_error,
                        side,
                        out.frame(j),
                    );
                    match out.origin(j) {
                        Origin::Passed => c.passed_out += 1,
                        Origin::Agent => c.agent_out += 1,
                    }
                }
                i += n;
            }
            self.outgoing[side].clear();
        }
    }

    /// How long until the agent's next timer or an emulated link's next frame, at most
    /// [`IDLE_WAKE`].
    fn sleep_for(&self, now: Time) -> Time {
        let links = self
            .links
            .iter()
            .flatten()
            .filter_map(EgressLink::next_release);
        links
            .chain(self.agent.poll_timeout())
            .fold(now + IDLE_WAKE, Time::min)
            .saturating_sub(now)
    }

    /// Runs until `stop()` says so, calling `between(self)` on every turn of the loop (a status
    /// request). The devices must have descriptors.
    pub fn run(
        &mut self,
        stop: &dyn Fn() -> bool,
        between: &mut dyn FnMut(&Bridge<D>),
    ) -> Result<(), String> {
        let fds = [
            self.devices[WIRED].raw_fd(),
            self.devices[WIRELESS].raw_fd(),
        ];
        let [Some(wired), Some(wireless)] = fds else {
            return Err("a device without a descriptor cannot be waited on".into());
        };
        let mut ready = [false; 2];
        while !stop() {
            between(self);
            let now = self.now();
            self.serve_timer(now);
            self.serve_links(now);
            sys::wait_readable_into(&[wired, wireless], &mut ready, self.sleep_for(now))
                .map_err(|e| format!("waiting for frames: {e}"))?;
            for side in [WIRED, WIRELESS] {
                if ready[side] {
                    self.read_side(side)?;
                }
            }
        }
        Ok(())
    }
}
