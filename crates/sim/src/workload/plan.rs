//! How a browser fetches a page: which connection carries which object, in what order, after
//! which dependency. A plan, not TCP behaviour: the application step turns it into connections
//! opened, requests written and replies read over the simulator's TCP (issue 53, item 1).
//!
//! The embedded objects wait for the whole document (a browser learns of them by parsing it; the
//! browsers of the time began on a partial document, which this plan does not model). Objects
//! go to connections in a fixed rotation, not to whichever frees first, so the plan is the same
//! for every protocol and channel and their page latencies compare object for object.

use super::page::Page;

/// The HTTP of the session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Http {
    /// HTTP/1.0 (RFC 1945): one connection per object, closed by the server after its reply; at
    /// most `parallel` open at once for the embedded objects.
    Http10 { parallel: u8 },
    /// HTTP/1.1 persistent connections (RFC 2616 section 8.1): the document and then the embedded
    /// objects over `connections` connections kept open for the page; `pipelined` sends a
    /// connection's requests back to back (section 8.1.2.2), otherwise each after the previous reply.
    Http11 { connections: u8, pipelined: bool },
}

/// At most four HTTP/1.0 connections at once: Netscape Navigator's default of the late 1990s,
/// as commonly reported. Not checked: a 1994 www-talk thread (Mittelhauser, of Netscape,
/// answering complaints about "NetScape opening multiple sockets at once") confirms parallel
/// connections but gives no number. SURGE 1.2's own HTTP/1.0 client (`client10.c`) fetches an
/// object's files one connection after another: `parallel = 1`.
pub const MAX_PARALLEL_10: u8 = 4;

/// At most two persistent connections: RFC 2616 section 8.1.4, "A single-user client SHOULD NOT
/// maintain more than 2 connections with any server or proxy."
pub const MAX_CONNECTIONS_11: u8 = 2;

impl Http {
    /// HTTP/1.0 with `parallel` connections, 1 to [`MAX_PARALLEL_10`].
    pub fn http10(parallel: u8) -> Result<Http, String> {
        if parallel == 0 || parallel > MAX_PARALLEL_10 {
            return Err(format!(
                "HTTP/1.0 opens 1 to {MAX_PARALLEL_10} connections at once, not {parallel}"
            ));
        }
        Ok(Http::Http10 { parallel })
    }

    /// HTTP/1.1 with `connections` persistent connections, 1 to [`MAX_CONNECTIONS_11`].
    pub fn http11(connections: u8, pipelined: bool) -> Result<Http, String> {
        if connections == 0 || connections > MAX_CONNECTIONS_11 {
            return Err(format!(
                "HTTP/1.1 keeps 1 to {MAX_CONNECTIONS_11} persistent connections, not {connections}"
            ));
        }
        Ok(Http::Http11 {
            connections,
            pipelined,
        })
    }
}

/// When a transfer's request may be sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum After {
    /// At the page's start (its think time after the previous page has passed).
    PageStart,
    /// When the document's reply has arrived whole.
    Document,
    /// When the reply of the transfer with this number (its place in `PagePlan::transfers`) has
    /// arrived whole: the same connection's previous object, or the HTTP/1.0 connection whose
    /// slot this one takes.
    Reply(u16),
    /// When the request of the transfer with this number has been sent (pipelining).
    Request(u16),
}

/// One object's fetch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transfer {
    /// The object's place in `Page::objects` (0 is the document).
    pub object: u16,
    /// The connection that carries it, numbered in the page from 0. A transfer opens its
    /// connection if it is the first on it, and the connection closes after its last.
    pub connection: u16,
    pub after: After,
}

/// The transfers of a page, in the order their requests are issued once their dependencies allow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PagePlan {
    pub transfers: Vec<Transfer>,
}

impl PagePlan {
    /// How many connections the page opens.
    pub fn connections(&self) -> usize {
        self.transfers
            .iter()
            .map(|t| usize::from(t.connection) + 1)
            .max()
            .unwrap_or(0)
    }
}

/// The plan of a page under an HTTP. A page has at most 150 objects (`MAX_FILES_PER_PAGE`), so
/// every number fits a `u16`.
pub fn plan(page: &Page, http: Http) -> PagePlan {
    let n = page.objects.len();
    let mut transfers = Vec::with_capacity(n);
    transfers.push(Transfer {
        object: 0,
        connection: 0,
        after: After::PageStart,
    });
    for j in 1..n {
        let object = j as u16;
        let t = match http {
            // Connection j carries object j alone; embedded object j takes the slot of object
            // j - parallel, the first `parallel` start when the document is in.
            Http::Http10 { parallel } => {
                let p = usize::from(parallel);
                Transfer {
                    object,
                    connection: object,
                    after: if j <= p {
                        After::Document
                    } else {
                        After::Reply((j - p) as u16)
                    },
                }
            }
            // Embedded object j rides connection (j - 1) mod c, after the previous object on it
            // (the document itself on connection 0).
            Http::Http11 {
                connections,
                pipelined,
            } => {
                let c = usize::from(connections);
                let connection = (j - 1) % c;
                let previous = if j > c { Some(j - c) } else { None };
                let after = match (previous, pipelined) {
                    (None, _) => After::Document,
                    (Some(prev), false) => After::Reply(prev as u16),
                    (Some(prev), true) => After::Request(prev as u16),
                };
                Transfer {
                    object,
                    connection: connection as u16,
                    after,
                }
            }
        };
        transfers.push(t);
    }
    PagePlan { transfers }
}
