//! One split connection (paper 000 section III-C; I-TCP): the base station's two TCPs for one
//! connection that crosses it, and the bounded buffer between them. [`super::split::SplitAgent`]
//! keeps one of these per connection, made at the connection's SYN.
//!
//! The half facing the host that opened the connection (its SYN's sender) is a passive open that
//! answers for the other host; the other half is an active open towards the other host, answering
//! for the opener. Paper 000 opens from the fixed host (the near half is wired, the far half
//! wireless); a mobile host's SYN makes the mirror image. The relay's ACKs are not end to end:
//! they cover data the other host may never have received.
//!
//! The relay carries both directions, as an I-TCP relay or a split PEP's relay process does (it
//! reads each socket and writes into the other): what the near half receives is written into the
//! far half (paper 000's bulk transfer), and what the far half receives (the other host's answer:
//! an HTTP response) into the near half. Each direction has its own buffer of
//! [`SplitConfig::relay_bytes`] and, when the packets carry real bytes, its own [`RelayBytes`];
//! the receiving half is back-pressured when its direction's buffer is full: its advertised
//! window is what remains of that buffer. A FIN closes the other half once its direction has
//! drained (RFC 793 section 3.5's half-close: a relay process that reads end of file calls
//! `shutdown(SHUT_WR)` on the other socket, whose FIN follows the bytes already written), and the
//! other direction goes on until its own FIN. Paper 000's transfers are one way: the reverse
//! direction then carries nothing and changes nothing.
//!
//! When the far half gives up (12 retransmissions of one segment), the relay can never deliver
//! what it holds: it aborts the opener's connection with a reset, as a relay process whose socket
//! to one host failed closes the other one. Before, the full buffer kept the near window at zero
//! for good and the opener sent persist probes until the run's time cap.
//!
//! Between kernel hosts (the live mode) the packets carry real bytes and the relay carries them
//! too: what a half receives is stored by its offset in its direction's stream ([`RelayBytes`])
//! and what the other half sends takes its bytes from there, first or again; the receiving
//! host's ACKs release them. A modelled run's packets carry none, and nothing is stored or
//! allocated.

use std::collections::VecDeque;

use super::relay_bytes::RelayBytes;
use super::snoop::BuildPacket;
use super::split_config::{direction_bound, SplitConfig};
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
    /// Its place among the base station's relays, in the order they were made or taken over at
    /// a handoff.
    pub(super) index: u64,
    /// The port the connection was opened from (the fixed host's in paper 000).
    pub(super) near_port: Port,
    /// The passive open, facing the opener: receives its bytes and sends the other host's on.
    pub(super) near: Tcp,
    /// The active open, facing the other host: sends the opener's bytes on and receives its answer.
    pub(super) far: Tcp,
    /// A packet of the connection, to build outgoing packets from.
    template: P,
    /// The most either direction's relay buffer ever held.
    pub(super) max_relay: u64,
    /// When the far half gave up, and the bytes held then.
    pub(super) gave_up: Option<(Time, u64)>,
    /// The opener's bytes on their way to the other host, when the packets carry real ones.
    pub(super) bytes: RelayBytes,
    /// The other host's bytes on their way to the opener, when the packets carry real ones.
    pub(super) back: RelayBytes,
    /// Bytes the relay has written into the far half (the opener's).
    pub(super) written: u64,
    /// Bytes the relay has written into the near half (the other host's answer).
    pub(super) written_back: u64,
    /// What the far half's window was last told, at the end of a pump, that the near half holds of
    /// the reverse direction.
    back_reserved: u64,
    /// Segments sent without their bytes, the store not holding them (never, unless the relay is
    /// wrong: the receiver's digest would then fail).
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
        // the reverse direction's buffer: the far half receives into it, the near half sends
        // from it (`TcpConfig::relay` gives both halves the relay buffer each way already)
        far_cfg.rcvbuf = cfg.relay_bytes;
        near_cfg.sndbuf = cfg.relay_bytes;
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
            bytes: RelayBytes::new(direction_bound(cfg)),
            back: RelayBytes::new(direction_bound(cfg)),
            written: 0,
            written_back: 0,
            back_reserved: 0,
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
            keep(&mut self.back, &self.far, seg, packet);
            return true;
        }
        if self.gave_up.is_some() && !seg.flags.contains(Flags::RST) {
            // the aborted connection no longer exists: answer whatever the opener still sends
            // with a reset (RFC 793; BSD's `dropwithreset`), in case the first was lost
            reset(out, from, seg, packet);
            return false;
        }
        self.near.on_segment(now, seg);
        keep(&mut self.bytes, &self.near, seg, packet);
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
        // the near half gave up on the opener (it can now have data of its own to send): nothing
        // more can reach the opener, and the relay drops the other side too
        if w.stats().dropped && m.state() != State::Closed {
            m.abort();
        }
        self.written += relay_unread(now, w, m);
        // the reverse direction, the same way: the other host's answer into the near half
        self.written_back += relay_unread(now, m, w);
        // end of file read on one side: shutdown(SHUT_WR) on the other, whose FIN follows what
        // was written into it (RFC 793 section 3.5); the other direction goes on
        if w.at_eof() {
            m.close(now);
        }
        if m.at_eof() {
            w.close(now);
        }
        // each direction's buffer: what the sending half still holds limits the receiving
        // half's window
        w.set_reserved(m.send_buffered());
        w.poke(now);
        if self.back_reserved != w.send_buffered() {
            // only when the reverse direction holds or held something: a one-way transfer's far
            // half is never poked, as before the relay carried both ways
            self.back_reserved = w.send_buffered();
            m.set_reserved(self.back_reserved);
            m.poke(now);
        }
        let forward = w.unread() + m.send_buffered();
        let reverse = m.unread() + w.send_buffered();
        self.max_relay = self.max_relay.max(forward).max(reverse);
        // what the receiving host acknowledged is never sent again
        self.bytes
            .release(self.written.saturating_sub(m.send_buffered()));
        self.back
            .release(self.written_back.saturating_sub(w.send_buffered()));
        let (near_port, far_port) = (self.near_port, self.near_port.opposite());
        let like = &self.template;
        self.missing += send(&mut self.near, &self.back, like, near_port, out);
        self.missing += send(&mut self.far, &self.bytes, like, far_port, out);
    }
}

/// Writes into `to` what `from` has received and not read, as far as `to`'s send buffer takes
/// it (a relay process's `read()` from one socket and `write()` into the other); returns the
/// bytes moved. The bytes are reserved in `from`'s window before `from` reads them: a read may
/// advertise a window at once, and that window must already count them as held, or the sending
/// host may send them once more (docs/fuzzing.md, finding 4).
fn relay_unread(now: Time, from: &mut Tcp, to: &mut Tcp) -> u64 {
    let n = from.unread().min(to.send_space());
    if n == 0 {
        return 0;
    }
    let taken = to.write(now, n);
    from.set_reserved(to.send_buffered());
    from.read(now, taken);
    taken
}

/// Stores the bytes `packet` carries for `tcp`, the half that received its segment `seg`, in
/// `store`, kept until the host the other half sends to acknowledges them: after the segment,
/// whose SYN gives the stream's start (before, the offsets mean nothing), and before the pump,
/// which may send them on at once.
fn keep<P: SegmentView>(store: &mut RelayBytes, tcp: &Tcp, seg: &Segment, packet: &P) {
    let synced = !matches!(tcp.state(), State::Closed | State::Listen | State::SynSent);
    if let Some(data) = packet.payload().filter(|_| seg.len > 0 && synced) {
        let start = tcp.irs() + 1;
        let n = data.len().min(seg.len as usize);
        store.store(store.position(start, seg.seq), &data[..n]);
    }
}

/// Queues on `port` what `tcp` wants to send, each data segment with its bytes from `store`
/// when the relay carries real ones. Returns how many went without their bytes.
fn send<P: BuildPacket>(
    tcp: &mut Tcp,
    store: &RelayBytes,
    like: &P,
    port: Port,
    out: &mut VecDeque<Transmit<P>>,
) -> u64 {
    let start = tcp.iss() + 1;
    let mut missing = 0;
    while let Some((seg, kind)) = tcp.poll_transmit() {
        let packet = match carried(store, start, &seg) {
            Carried::Bytes(b) => P::build_with_payload(&seg, like, &b),
            Carried::Modelled => P::build(&seg, like),
            Carried::Missing => {
                missing += 1;
                P::build(&seg, like)
            }
        };
        out.push_back(Transmit {
            port,
            packet,
            priority: Priority::Normal,
            origin: Origin::Endpoint(kind),
        });
    }
    missing
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

    /// Bytes held both ways: received from one host and not yet acknowledged by the other.
    pub(super) fn held(&self) -> u64 {
        self.near.unread()
            + self.far.send_buffered()
            + self.far.unread()
            + self.near.send_buffered()
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
