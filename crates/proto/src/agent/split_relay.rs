//! One split connection (paper 000 section III-C; I-TCP): the base station's two TCPs for one
//! connection that crosses it, and the bounded buffer between them. [`super::split::SplitAgent`]
//! keeps one of these per connection, made at the connection's SYN.
//!
//! The half facing the host that opened the connection (its SYN's sender) is a passive open that
//! answers for the other host: it receives the opener's bytes. The other half is an active open
//! towards the other host, answering for the opener: it sends them on. Paper 000 opens from the
//! fixed host (the near half is wired, the far half wireless); a mobile host's SYN makes the
//! mirror image. The relay's ACKs to the opener are not end to end: they cover data the other
//! host may never have received. The near half is back-pressured when the buffer is full: its
//! advertised window is what remains of the buffer.
//!
//! When the far half gives up (12 retransmissions of one segment), the relay can never deliver
//! what it holds: it aborts the opener's connection with a reset, as a relay process whose socket
//! to one host failed closes the other one. Before, the full buffer kept the near window at zero
//! for good and the opener sent persist probes until the run's time cap.
//!
//! Between kernel hosts (the live mode) the packets carry real bytes and the relay carries them
//! too: what the near half receives is stored by its offset in the transfer ([`RelayBytes`]) and
//! what the far half sends takes its bytes from there, first or again; the other host's ACKs
//! release them. A modelled run's packets carry none, and nothing is stored or allocated.

use std::collections::VecDeque;

use super::relay_bytes::RelayBytes;
use super::snoop::BuildPacket;
use super::split::SplitConfig;
use super::{Origin, Port, Priority, RelayReport, SegmentView, Transmit};
use crate::segment::{Flags, Segment};
use crate::seq::Seq;
use crate::tcp::{State, Tcp, TxKind};
use crate::time::Time;

/// Spacing of the initial sequence numbers of a base station's successive relays: the `k`-th
/// relay's two TCPs start `k` times this after the first's (the seed draws the first's). An odd
/// constant (2^32 / golden ratio, Knuth's multiplicative hash) visits every value before repeating;
/// RFC 793 section 3.3 asks only that a new incarnation not reuse an old one's numbers.
const ISS_SPACING: u32 = 0x9E37_79B9;

/// How long a connection's TIME_WAIT lasts: twice the maximum segment lifetime, 4.4BSD's
/// `2 * TCPTV_MSL` of 30 s each (tcp_timer.h; RFC 793 section 3.5 suggests an MSL of 2 minutes).
/// A relay whose halves are done keeps answering (a FIN sent again, its ACK lost) for this long
/// after the last packet.
pub(super) const TIME_WAIT: Time = 60 * crate::time::SEC;

#[derive(Clone, Debug)]
pub(super) struct SplitRelay<P> {
    /// Its place among the base station's relays, in the order they were made.
    pub(super) index: u64,
    /// The port the connection was opened from (the fixed host's in paper 000).
    pub(super) near_port: Port,
    /// The passive open, facing the opener: receives its bytes.
    pub(super) near: Tcp,
    /// The active open, facing the other host: sends the bytes on.
    pub(super) far: Tcp,
    /// A packet of the connection, to build outgoing packets from.
    template: P,
    /// The most the relay buffer ever held.
    pub(super) max_relay: u64,
    /// When the far half gave up, and the bytes held then.
    pub(super) gave_up: Option<(Time, u64)>,
    /// The relayed bytes, when the packets carry real ones.
    pub(super) bytes: RelayBytes,
    /// Bytes the relay has written into the far half.
    written: u64,
    /// Far-half segments sent without their bytes, the store not holding them (never, unless the
    /// relay is wrong: the receiver's digest would then fail).
    pub(super) missing: u64,
    /// When a packet of the connection last arrived (for the idle limit).
    pub(super) last_seen: Time,
}

impl<P: SegmentView + BuildPacket + Clone> SplitRelay<P> {
    /// The relay for the connection whose SYN `syn` (in `packet`) arrived from `from` at `now`:
    /// the base station's `index`-th relay.
    pub(super) fn open(
        cfg: &SplitConfig,
        now: Time,
        from: Port,
        syn: &Segment,
        packet: &P,
        index: u64,
    ) -> SplitRelay<P> {
        let shift = (index as u32).wrapping_mul(ISS_SPACING);
        let mut near_cfg = cfg.wired.clone();
        near_cfg.rcvbuf = cfg.relay_bytes;
        near_cfg.iss = near_cfg.iss.wrapping_add(shift);
        let mut far_cfg = cfg.wireless.clone();
        far_cfg.sndbuf = cfg.relay_bytes;
        far_cfg.iss = far_cfg.iss.wrapping_add(shift);
        if from == Port::Wireless {
            // the sender faces the wired side: the wired relay's recovery (Reno); SMART needs
            // the receiver's SMART ACKs and is paper 000's answer to the wireless hop
            far_cfg.policy = cfg.wired.policy;
        }
        SplitRelay {
            index,
            near_port: from,
            near: Tcp::listen(near_cfg, syn.dst, syn.src),
            far: Tcp::connect(far_cfg, syn.src, syn.dst, now),
            template: packet.clone(),
            max_relay: 0,
            gave_up: None,
            bytes: RelayBytes::new(store_bound(cfg)),
            written: 0,
            missing: 0,
            last_seen: now,
        }
    }

    /// A packet of the connection arrived from `from`. Returns false when it was answered with a
    /// reset and nothing else is to be done.
    pub(super) fn on_packet(
        &mut self,
        now: Time,
        from: Port,
        seg: &Segment,
        packet: &P,
        out: &mut VecDeque<Transmit<P>>,
    ) -> bool {
        self.last_seen = now;
        if from != self.near_port {
            self.far.on_segment(now, seg);
            return true;
        }
        if self.gave_up.is_some() && !seg.flags.contains(Flags::RST) {
            // the aborted connection no longer exists: answer whatever the opener still sends
            // with a reset (RFC 793; BSD's `dropwithreset`), in case the first was lost
            reset(out, from, seg, packet);
            return false;
        }
        self.near.on_segment(now, seg);
        // the bytes, kept until the other host acknowledges them: stored after the segment,
        // whose SYN gives the stream's start, and before the pump, which may send them on at
        // once (once the opener's SYN has given the stream's start: before, the offsets mean
        // nothing)
        let synced = !matches!(self.near.state(), State::Closed | State::Listen);
        if let Some(data) = packet.payload().filter(|_| seg.len > 0 && synced) {
            let start = self.near.irs() + 1;
            let n = data.len().min(seg.len as usize);
            self.bytes
                .store(self.bytes.position(start, seg.seq), &data[..n]);
        }
        true
    }

    /// Fires whichever of the two halves' timers are due.
    pub(super) fn on_timeout(&mut self, now: Time) {
        for t in [&mut self.near, &mut self.far] {
            if t.poll_timeout().is_some_and(|d| d <= now) {
                t.on_timeout(now);
            }
        }
    }

    /// Moves bytes from the near half to the far one as space allows, and collects what both
    /// want to send.
    pub(super) fn pump(&mut self, now: Time, out: &mut VecDeque<Transmit<P>>) {
        let (w, m) = (&mut self.near, &mut self.far);
        if m.stats().dropped && self.gave_up.is_none() {
            // nothing held can reach the other host any more: the relay gives up the opener's
            // connection too, rather than holding its window shut for good
            self.gave_up = Some((now, w.unread() + m.send_buffered()));
            w.abort();
        }
        // a reset ends the connection on one side: the relay resets the other side too, as a
        // relay process whose read failed with ECONNRESET closes its other socket (RFC 793
        // section 3.4: a reset aborts the connection), so that both halves close and the relay
        // goes
        if w.stats().reset_received && m.state() != State::Closed {
            m.abort();
        }
        if m.stats().reset_received && w.state() != State::Closed {
            w.abort();
        }
        let n = w.unread().min(m.send_space());
        if n > 0 {
            // reserve the bytes on the far side before the near side reads them: a read may
            // advertise a window at once, and that window must already count the bytes as
            // held, or the opener may send them once more (docs/fuzzing.md, finding 4)
            let taken = m.write(now, n);
            self.written += taken;
            w.set_reserved(m.send_buffered());
            w.read(now, taken);
        }
        if w.at_eof() {
            m.close(now);
        }
        if m.at_eof() && w.at_eof() {
            // the other host closed too: the relay closes its socket to the opener, which
            // otherwise would wait in FIN_WAIT_2 for good
            w.close(now);
        }
        // the shared buffer: what the far side still holds limits the near window
        w.set_reserved(m.send_buffered());
        w.poke(now);
        self.max_relay = self.max_relay.max(w.unread() + m.send_buffered());
        // what the other host acknowledged is never sent again
        self.bytes
            .release(self.written.saturating_sub(m.send_buffered()));
        let like = &self.template;
        let far_port = self.near_port.opposite();
        while let Some((seg, kind)) = self.near.poll_transmit() {
            out.push_back(Transmit {
                port: self.near_port,
                packet: P::build(&seg, like),
                priority: Priority::Normal,
                origin: Origin::Endpoint(kind),
            });
        }
        let start = self.far.iss() + 1;
        while let Some((seg, kind)) = self.far.poll_transmit() {
            let packet = match carried(&self.bytes, start, &seg) {
                Carried::Bytes(b) => P::build_with_payload(&seg, like, &b),
                Carried::Modelled => P::build(&seg, like),
                Carried::Missing => {
                    self.missing += 1;
                    P::build(&seg, like)
                }
            };
            out.push_back(Transmit {
                port: far_port,
                packet,
                priority: Priority::Normal,
                origin: Origin::Endpoint(kind),
            });
        }
    }
}

impl<P> SplitRelay<P> {
    /// The earliest time either half wants [`SplitRelay::on_timeout`].
    pub(super) fn poll_timeout(&self) -> Option<Time> {
        match (self.near.poll_timeout(), self.far.poll_timeout()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Both halves are closed and want no timer: nothing of the connection is left but its report.
    pub(super) fn is_closed(&self) -> bool {
        self.near.state() == State::Closed
            && self.far.state() == State::Closed
            && self.poll_timeout().is_none()
    }

    /// Both halves are done: closed, or waiting out TIME_WAIT (which the TCP keeps with no timer),
    /// and neither wants a timer. Such a relay goes once no packet of its connection has come for
    /// [`TIME_WAIT`].
    pub(super) fn is_finished(&self) -> bool {
        self.near.is_finished() && self.far.is_finished() && self.poll_timeout().is_none()
    }

    /// Bytes held: read from the opener and not yet acknowledged by the other host.
    pub(super) fn held(&self) -> u64 {
        self.near.unread() + self.far.send_buffered()
    }

    /// What the relay reports: its far half, the sender the base station runs itself.
    pub(super) fn report(&self) -> RelayReport {
        RelayReport {
            // the far half runs from the opener's address to the other host's
            endpoints: (self.far.local(), self.far.remote()),
            sender: self.far.stats().clone(),
            gave_up: self.gave_up,
        }
    }
}

/// The most bytes one relay stores: the relay buffer (read from the opener, not yet acknowledged
/// by the other host) plus the near receive window ([`SplitRelay::open`] makes it the relay
/// buffer, which 4.4BSD's `tcp_mss()` rounds up to whole segments): every byte the opener may send
/// beyond what the other host acknowledged.
pub fn store_bound(cfg: &SplitConfig) -> u64 {
    let relay = u64::from(cfg.relay_bytes);
    relay + relay + u64::from(cfg.wired.mss)
}

/// What a far-half segment carries.
enum Carried {
    /// The packets are modelled: no bytes (or the segment has no data).
    Modelled,
    /// Its bytes, from the store.
    Bytes(Vec<u8>),
    /// The store does not hold them.
    Missing,
}

/// The bytes of the far half's segment `seg`, whose stream starts at sequence number `start`
/// (the relay's ISS + 1), when the relay carries real bytes.
fn carried(bytes: &RelayBytes, start: Seq, seg: &Segment) -> Carried {
    if seg.len == 0 || !bytes.in_use() {
        return Carried::Modelled;
    }
    match bytes.read(bytes.position(start, seg.seq), seg.len as usize) {
        Some(b) => Carried::Bytes(b),
        None => Carried::Missing,
    }
}

/// Answers `seg`, which arrived on `port` for a connection the base station does not relay (or
/// no longer does), with a reset.
pub(super) fn reset<P: BuildPacket>(
    out: &mut VecDeque<Transmit<P>>,
    port: Port,
    seg: &Segment,
    like: &P,
) {
    out.push_back(Transmit {
        port,
        packet: P::build(&reset_for(seg), like),
        priority: Priority::Normal,
        origin: Origin::Endpoint(TxKind::Reset),
    });
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
