//! What happened when, per object, per connection and per page: the times issue 53 reports
//! (connect time, first byte, completion), all on the caller's clock.

use crate::time::Time;

/// One connection's life, as its client saw it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConnectionTimes {
    /// The SYN was queued (`connect()` called).
    pub opened: Time,
    /// The SYN|ACK arrived (`connect()` returned).
    pub established: Option<Time>,
    /// The client's side finished (CLOSED, or TIME_WAIT entered).
    pub closed: Option<Time>,
}

/// One object's fetch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ObjectTimes {
    /// The application asked for it.
    pub asked: Time,
    /// Its request's last byte was written to the socket.
    pub requested: Option<Time>,
    /// Its response's first byte was read.
    pub first_byte: Option<Time>,
    /// Its response's last byte was read.
    pub done: Option<Time>,
    /// Its connection's establishment, if that happened after it was asked (the object waited
    /// for the handshake); `None` on a connection already open, or one never established.
    pub connected: Option<Time>,
}

impl ObjectTimes {
    /// How long the object waited for its connection's handshake (0 on one already open).
    pub fn connect_time(&self) -> Option<Time> {
        match (self.connected, self.requested) {
            (Some(c), _) => Some(c - self.asked),
            (None, Some(_)) => Some(0),
            (None, None) => None,
        }
    }

    /// From the ask to the response's first byte.
    pub fn first_byte_time(&self) -> Option<Time> {
        self.first_byte.map(|t| t - self.asked)
    }

    /// From the ask to the response's last byte: the object's latency.
    pub fn completion_time(&self) -> Option<Time> {
        self.done.map(|t| t - self.asked)
    }
}

/// A page's times: from the first object asked to the first byte of its first object (the
/// document) and to the last byte of its last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageTimes {
    pub started: Time,
    /// The first object's (the document's) connect time.
    pub connect: Option<Time>,
    pub first_byte: Option<Time>,
    /// `None` until every object is done.
    pub done: Option<Time>,
}

impl PageTimes {
    /// The page's times from its objects, the document first; `None` for no objects.
    pub fn of(objects: &[ObjectTimes]) -> Option<PageTimes> {
        let document = objects.first()?;
        let started = objects.iter().map(|o| o.asked).min()?;
        let done = objects
            .iter()
            .map(|o| o.done)
            .collect::<Option<Vec<Time>>>()
            .and_then(|d| d.into_iter().max());
        Some(PageTimes {
            started,
            connect: document.connect_time(),
            first_byte: document.first_byte.map(|t| t - started),
            done: done.map(|t| t - started),
        })
    }
}
