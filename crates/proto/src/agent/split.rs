//! SPLIT and SPLIT-SMART (paper 000 section III-C): the base station terminates the fixed host's
//! connection and relays its bytes over a second connection to the mobile host, through one bounded
//! buffer (64 KB in the paper's experiments).
//!
//! The base station answers the fixed host with the mobile host's address and the mobile host with
//! the fixed host's, like I-TCP. Its ACKs to the fixed host are no longer end to end: they cover data
//! the mobile host may never have received. The wired connection is back-pressured when the buffer is
//! full: its advertised window is what remains of the buffer.
//!
//! When the wireless connection gives up (12 retransmissions of one segment), the relay can never
//! deliver what it holds: it aborts the fixed host's connection with a reset, as a relay process
//! whose socket to the mobile host failed closes the other one. Before, the full buffer kept the
//! wired window at zero for good and the fixed host sent persist probes until the run's time cap.
//!
//! Between kernel hosts (the live mode) the packets carry real bytes and the relay carries them
//! too: what the wired side receives is stored by its offset in the transfer ([`RelayBytes`]) and
//! what the wireless side sends takes its bytes from there, first or again; the mobile host's
//! ACKs release them. A modelled run's packets carry none, and nothing is stored or allocated.

use std::collections::VecDeque;

use super::relay_bytes::RelayBytes;
use super::snoop::BuildPacket;
use super::{
    agent_counters, Agent, AgentProbe, Counters, Origin, Port, Priority, Relay, RelayReport,
    SegmentView, Transmit,
};
use crate::segment::{Flags, Segment};
use crate::seq::Seq;
use crate::tcp::{State, Tcp, TcpConfig, TxKind};
use crate::time::Time;

#[derive(Clone, Debug, PartialEq)]
pub struct SplitConfig {
    /// The base station's end of the fixed host's connection (a relay receiver).
    pub wired: TcpConfig,
    /// The base station's connection to the mobile host (a relay sender: Reno, or the SMART sender).
    pub wireless: TcpConfig,
    /// The relay buffer shared by both connections, in bytes.
    pub relay_bytes: u32,
}

impl SplitConfig {
    /// Paper 000: a 64 KB relay buffer; `wireless_policy` is Reno (SPLIT) or SMART (SPLIT-SMART).
    pub fn paper000(mss: u32, wireless_policy: crate::tcp::RecoveryPolicy) -> SplitConfig {
        let relay = 65536;
        let mut wireless = TcpConfig::relay(mss, relay, relay);
        wireless.policy = wireless_policy;
        SplitConfig {
            wired: TcpConfig::relay(mss, relay, relay),
            wireless,
            relay_bytes: relay,
        }
    }
}

agent_counters! {
    /// What a split base station counted.
    pub struct SplitStats {
        /// Packets passed through untouched (not TCP, or not the relayed connection).
        pub forwarded,
        /// Segments its wireless-side sender retransmitted (the relay's local retransmissions).
        pub local_retransmissions,
    }
}

#[derive(Clone, Debug)]
pub struct SplitAgent<P> {
    cfg: SplitConfig,
    /// Towards the fixed host (the base station plays the mobile host).
    wired: Option<Tcp>,
    /// Towards the mobile host (the base station plays the fixed host).
    wireless: Option<Tcp>,
    /// A packet of the connection, to build outgoing packets from.
    template: Option<P>,
    out: VecDeque<Transmit<P>>,
    /// Packets passed through.
    forwarded: u64,
    max_relay: u64,
    /// When the wireless connection gave up, and the bytes held then.
    gave_up: Option<(Time, u64)>,
    /// The relayed bytes, when the packets carry real ones.
    bytes: RelayBytes,
    /// Bytes the relay has written into the wireless connection.
    written: u64,
    /// Wireless segments sent without their bytes, the store not holding them (never, unless the
    /// relay is wrong: the receiver's digest would then fail).
    missing: u64,
}

impl<P: SegmentView + BuildPacket + Clone> SplitAgent<P> {
    pub fn new(cfg: SplitConfig) -> SplitAgent<P> {
        SplitAgent {
            wired: None,
            wireless: None,
            template: None,
            out: VecDeque::new(),
            forwarded: 0,
            max_relay: 0,
            gave_up: None,
            bytes: RelayBytes::new(store_bound(&cfg)),
            written: 0,
            missing: 0,
            cfg,
        }
    }

    /// The relayed bytes held now (empty in a modelled run).
    pub fn relay_bytes(&self) -> &RelayBytes {
        &self.bytes
    }

    /// Wireless segments that had to go without their bytes: 0 unless the relay is wrong.
    pub fn segments_without_bytes(&self) -> u64 {
        self.missing
    }

    /// The two connections, for inspection.
    pub fn connections(&self) -> (Option<&Tcp>, Option<&Tcp>) {
        (self.wired.as_ref(), self.wireless.as_ref())
    }

    /// The most the relay buffer ever held.
    pub fn max_relay_bytes(&self) -> u64 {
        self.max_relay
    }

    /// Moves bytes from the wired connection to the wireless one as space allows, and collects what
    /// both want to send.
    fn pump(&mut self, now: Time) {
        if let (Some(w), Some(m)) = (self.wired.as_mut(), self.wireless.as_mut()) {
            if m.stats().dropped && self.gave_up.is_none() {
                // nothing held can reach the mobile host any more: the relay gives up the fixed
                // host's connection too, rather than holding its window shut for good
                self.gave_up = Some((now, w.unread() + m.send_buffered()));
                w.abort();
            }
        }
        if let (Some(w), Some(m)) = (self.wired.as_mut(), self.wireless.as_mut()) {
            let n = w.unread().min(m.send_space());
            if n > 0 {
                // reserve the bytes on the wireless side before the wired side reads them: a
                // read may advertise a window at once, and that window must already count the
                // bytes as held, or the fixed host may send them once more (docs/fuzzing.md,
                // finding 4)
                let taken = m.write(now, n);
                self.written += taken;
                w.set_reserved(m.send_buffered());
                w.read(now, taken);
            }
            if w.at_eof() {
                m.close(now);
            }
            if m.at_eof() && w.at_eof() {
                // the mobile host closed too: the relay closes its socket to the fixed host, which
                // otherwise would wait in FIN_WAIT_2 for good
                w.close(now);
            }
            // the shared buffer: what the wireless side still holds limits the wired window
            w.set_reserved(m.send_buffered());
            w.poke(now);
            self.max_relay = self.max_relay.max(w.unread() + m.send_buffered());
            // what the mobile host acknowledged is never sent again
            self.bytes
                .release(self.written.saturating_sub(m.send_buffered()));
        }
        let Some(like) = self.template.clone() else {
            return;
        };
        if let Some(w) = self.wired.as_mut() {
            while let Some((seg, kind)) = w.poll_transmit() {
                self.out.push_back(Transmit {
                    port: Port::Wired,
                    packet: P::build(&seg, &like),
                    priority: Priority::Normal,
                    origin: Origin::Endpoint(kind),
                });
            }
        }
        if let Some(m) = self.wireless.as_mut() {
            let start = m.iss() + 1;
            while let Some((seg, kind)) = m.poll_transmit() {
                let packet = match carried(&self.bytes, start, &seg) {
                    Carried::Bytes(b) => P::build_with_payload(&seg, &like, &b),
                    Carried::Modelled => P::build(&seg, &like),
                    Carried::Missing => {
                        self.missing += 1;
                        P::build(&seg, &like)
                    }
                };
                self.out.push_back(Transmit {
                    port: Port::Wireless,
                    packet,
                    priority: Priority::Normal,
                    origin: Origin::Endpoint(kind),
                });
            }
        }
    }

    fn open(&mut self, now: Time, syn: &Segment) {
        let mut wired_cfg = self.cfg.wired.clone();
        wired_cfg.rcvbuf = self.cfg.relay_bytes;
        self.wired = Some(Tcp::listen(wired_cfg, syn.dst, syn.src));
        let mut wl = self.cfg.wireless.clone();
        wl.sndbuf = self.cfg.relay_bytes;
        self.wireless = Some(Tcp::connect(wl, syn.src, syn.dst, now));
    }

    /// Answers `seg`, which arrived on `port` for a connection the relay does not have, with a
    /// reset.
    fn reset(&mut self, port: Port, seg: &Segment, like: &P) {
        self.out.push_back(Transmit {
            port,
            packet: P::build(&reset_for(seg), like),
            priority: Priority::Normal,
            origin: Origin::Endpoint(TxKind::Reset),
        });
    }
}

/// The most bytes the relay stores: the relay buffer (read from the fixed host, not yet
/// acknowledged by the mobile host) plus the wired receive window ([`SplitAgent::open`] makes it
/// the relay buffer, which 4.4BSD's `tcp_mss()` rounds up to whole segments): every byte the
/// fixed host may send beyond what the mobile host acknowledged.
fn store_bound(cfg: &SplitConfig) -> u64 {
    let relay = u64::from(cfg.relay_bytes);
    relay + relay + u64::from(cfg.wired.mss)
}

/// What a wireless segment carries.
enum Carried {
    /// The packets are modelled: no bytes (or the segment has no data).
    Modelled,
    /// Its bytes, from the store.
    Bytes(Vec<u8>),
    /// The store does not hold them.
    Missing,
}

/// The bytes of the wireless connection's segment `seg`, whose stream starts at sequence number
/// `start` (the relay's ISS + 1), when the relay carries real bytes.
fn carried(bytes: &RelayBytes, start: Seq, seg: &Segment) -> Carried {
    if seg.len == 0 || !bytes.in_use() {
        return Carried::Modelled;
    }
    match bytes.read(bytes.position(start, seg.seq), seg.len as usize) {
        Some(b) => Carried::Bytes(b),
        None => Carried::Missing,
    }
}

/// The reset a host with no connection answers `seg` with (`tcp_respond` from `dropwithreset`):
/// at the acknowledged sequence number if `seg` carries an ACK, else acknowledging `seg`.
fn reset_for(seg: &Segment) -> Segment {
    let (seq, ack, flags) = if seg.has_ack() {
        (seg.ack, Seq(0), Flags::RST)
    } else {
        (Seq(0), seg.seq + seg.seq_len(), Flags::RST | Flags::ACK)
    };
    Segment {
        src: seg.dst,
        dst: seg.src,
        seq,
        ack,
        flags,
        ..Segment::default()
    }
}

impl<P: SegmentView + BuildPacket + Clone + 'static> Agent<P> for SplitAgent<P> {
    fn on_packet(&mut self, now: Time, from: Port, packet: P) {
        let Some(seg) = packet.segment().copied() else {
            self.out
                .push_back(Transmit::forward(from.opposite(), packet));
            return;
        };
        if self.template.is_none() {
            self.template = Some(packet.clone());
        }
        match from {
            Port::Wired => {
                if seg.is_syn() && !seg.has_ack() && self.wired.is_none() {
                    self.open(now, &seg);
                }
                if self.gave_up.is_some() && !seg.flags.contains(Flags::RST) {
                    // the aborted connection no longer exists: answer whatever the fixed host
                    // still sends with a reset (RFC 793; BSD's `dropwithreset`), in case the
                    // first was lost
                    self.reset(Port::Wired, &seg, &packet);
                    return;
                }
                match self.wired.as_mut() {
                    Some(w) => {
                        w.on_segment(now, &seg);
                        // the bytes, kept until the mobile host acknowledges them: stored
                        // after the segment, whose SYN gives the stream's start, and before
                        // the pump, which may send them on at once
                        // (once the fixed host's SYN has given the stream's start: before,
                        // the offsets mean nothing)
                        let synced = !matches!(w.state(), State::Closed | State::Listen);
                        if let Some(data) = packet.payload().filter(|_| seg.len > 0 && synced) {
                            let start = w.irs() + 1;
                            let n = data.len().min(seg.len as usize);
                            self.bytes
                                .store(self.bytes.position(start, seg.seq), &data[..n]);
                        }
                    }
                    // no connection here (a base station that crashed and lost it): BSD's
                    // `dropwithreset`, as for any segment to a closed port
                    None if !seg.is_syn() && !seg.flags.contains(Flags::RST) => {
                        self.reset(Port::Wired, &seg, &packet);
                        return;
                    }
                    None => {}
                }
            }
            Port::Wireless => match self.wireless.as_mut() {
                Some(m) => m.on_segment(now, &seg),
                None if !seg.flags.contains(Flags::RST) => {
                    self.reset(Port::Wireless, &seg, &packet);
                    return;
                }
                None => {}
            },
        }
        self.forwarded += 1;
        self.pump(now);
    }

    fn on_timeout(&mut self, now: Time) {
        for t in [self.wired.as_mut(), self.wireless.as_mut()]
            .into_iter()
            .flatten()
        {
            if t.poll_timeout().is_some_and(|d| d <= now) {
                t.on_timeout(now);
            }
        }
        self.pump(now);
    }

    fn poll_transmit(&mut self, _now: Time) -> Option<Transmit<P>> {
        self.out.pop_front()
    }

    fn poll_timeout(&self) -> Option<Time> {
        [self.wired.as_ref(), self.wireless.as_ref()]
            .into_iter()
            .flatten()
            .filter_map(|t| t.poll_timeout())
            .min()
    }

    fn probe(&self) -> AgentProbe {
        let unread = self.wired.as_ref().map_or(0, Tcp::unread);
        let unsent = self.wireless.as_ref().map_or(0, Tcp::send_buffered);
        let mss = u64::from(self.cfg.wireless.mss.max(1));
        AgentProbe {
            held_segments: (unread + unsent).div_ceil(mss) as u32,
            held_bytes: unread + unsent,
            sender_window: self.wireless.as_ref().map(|m| (m.cwnd(), m.ssthresh())),
            connections: u32::from(self.wired.is_some()),
        }
    }

    fn counters(&self) -> Counters {
        self.stats().named()
    }

    fn relay(&self) -> Option<&dyn Relay> {
        Some(self)
    }
}

impl<P> SplitAgent<P> {
    /// What it counted so far.
    pub fn stats(&self) -> SplitStats {
        SplitStats {
            forwarded: self.forwarded,
            local_retransmissions: self.wireless.as_ref().map_or(0, |m| m.stats().rexmt_segs),
        }
    }
}

/// A split base station relays through a TCP sender of its own towards the mobile host.
impl<P> Relay for SplitAgent<P> {
    fn report(&self) -> Option<RelayReport> {
        let m = self.wireless.as_ref()?;
        Some(RelayReport {
            // the wireless connection runs from the fixed host's address to the mobile host's
            endpoints: (m.local(), m.remote()),
            sender: m.stats().clone(),
            gave_up: self.gave_up,
        })
    }
}
