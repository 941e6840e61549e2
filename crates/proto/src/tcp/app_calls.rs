//! The calls an application makes on the TCP (the split relay and the request/response
//! application): write, read, close, abort, and the states they move to (`tcp_usrclosed`,
//! `tcp_drop`).

use super::{State, Tcp, TxKind};
use crate::segment::{Flags, Segment};
use crate::time::Time;

impl Tcp {
    /// Free space in the send buffer.
    pub fn send_space(&self) -> u64 {
        let buffered = self.relay_written - self.data_acked();
        u64::from(self.sndbuf).saturating_sub(buffered)
    }

    /// Bytes written and not yet acknowledged by the peer.
    pub fn send_buffered(&self) -> u64 {
        self.relay_written - self.data_acked()
    }

    /// The relay application writes `n` bytes (at most [`Tcp::send_space`]).
    /// Returns the bytes taken: at most the send space, none once the relay has closed.
    pub fn write(&mut self, now: Time, n: u64) -> u64 {
        let n = n.min(self.send_space());
        if n == 0 || self.close_requested {
            return 0;
        }
        self.relay_written += n;
        self.output(now);
        n
    }

    /// Delivered bytes the relay application has not read.
    pub fn unread(&self) -> u64 {
        self.unread
    }

    /// The relay application reads up to `max` bytes; the opened window may be advertised.
    pub fn read(&mut self, now: Time, max: u64) -> u64 {
        let n = self.unread.min(max);
        self.unread -= n;
        if n > 0 {
            self.output(now);
        }
        n
    }

    /// Receive-buffer space the relay holds elsewhere (its shared buffer); the window shrinks by it.
    pub fn set_reserved(&mut self, bytes: u64) {
        self.reserved = bytes;
    }

    /// Sends `n` ACKs at once, each repeating the last if nothing arrived between them: the mobile
    /// host's three duplicate ACKs after a handoff in Caceres and Iftode's scheme (paper 002
    /// section 8), which make the fixed host fast-retransmit without waiting for its timer.
    pub fn send_acks(&mut self, now: Time, n: u32) {
        for _ in 0..n {
            self.ack_now = true;
            self.output(now);
        }
    }

    /// Sends a window update if the window opened enough (after the reserved space shrank).
    pub fn poke(&mut self, now: Time) {
        self.output(now);
    }

    /// The relay application closes its side.
    pub fn close(&mut self, now: Time) {
        if !self.close_requested {
            self.close_requested = true;
            self.maybe_usrclosed();
            self.output(now);
        }
    }

    /// The application aborts the connection, as `tcp_drop` does: it closes at once and, once the
    /// peer's SYN has arrived, tells the peer with a reset (`tcp_output` from the CLOSED state sends
    /// RST|ACK at `snd_nxt`). What was queued or unread is discarded.
    pub fn abort(&mut self) {
        if self.state == State::Closed {
            return;
        }
        let tell = self.state.have_rcvd_syn();
        self.enter_closed();
        self.stats.aborted = true;
        if tell {
            let rst = Segment {
                src: self.local,
                dst: self.remote,
                seq: self.snd_nxt,
                ack: self.rcv_nxt,
                flags: Flags::RST | Flags::ACK,
                ip_id: self.ip_id,
                ..Segment::default()
            };
            self.ip_id = self.ip_id.wrapping_add(1);
            self.stats.segs_sent += 1;
            self.out.push_back((rst, TxKind::Reset));
        }
    }

    /// CLOSED: no timer runs and nothing more is sent.
    pub(super) fn enter_closed(&mut self) {
        self.state = State::Closed;
        self.out.clear();
        self.rexmt_at = None;
        self.persist_at = None;
        self.delack_at = None;
        self.read_at = None;
        self.sel.early_timer = None;
    }

    /// The peer's FIN has arrived and everything before it was read.
    pub fn at_eof(&self) -> bool {
        self.state.have_rcvd_fin() && self.unread == 0
    }

    /// `tcp_usrclosed`: move to the closing states once the application has closed.
    pub(super) fn maybe_usrclosed(&mut self) {
        if !self.app_closed() {
            return;
        }
        self.state = match self.state {
            State::Established | State::SynRcvd => State::FinWait1,
            State::CloseWait => State::LastAck,
            s => s,
        };
    }
}
