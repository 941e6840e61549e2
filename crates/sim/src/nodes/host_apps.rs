//! A host's part in the workload flows (issue 53): its request/response connections
//! (`apps.rs`) and the browsers of the flows it fetches (`browser.rs`), stepped together after
//! every segment and timeout.

use snooplab_proto::time::earliest;
use snooplab_proto::{Segment, Time};

use super::apps::{AppConns, Opened};
use super::browser::Browser;

/// A host's part in the workload flows: its request/response connections, the browsers of the
/// flows it fetches, and the connections they opened whose server ends the run has yet to hand
/// over. Boxed in the host (`host.rs`), so a host without one carries a pointer.
#[derive(Clone, Debug, Default)]
pub struct HostApps {
    pub conns: AppConns,
    pub browsers: Vec<Browser>,
    pub opened: Opened,
}

impl HostApps {
    /// A segment for connection `i` (as [`AppConns::index`] found it), intact or corrupted.
    pub fn on_segment(&mut self, now: Time, i: usize, seg: &Segment, corrupted: bool) {
        if corrupted {
            self.conns.on_corrupted(i, seg);
        } else {
            self.conns.on_segment(now, i, seg);
        }
        self.after(now);
    }

    pub fn on_timeout(&mut self, now: Time) {
        self.conns.on_timeout(now);
        self.after(now);
    }

    /// After the connections ran: the browsers move on, and closed connections go.
    fn after(&mut self, now: Time) {
        for b in &mut self.browsers {
            b.step(now, &mut self.conns, &mut self.opened);
        }
        self.conns.drop_closed();
    }

    /// The connections' timers and the browsers' think times.
    pub fn poll_timeout(&self) -> Option<Time> {
        let browsers = self
            .browsers
            .iter()
            .fold(None, |t, b| earliest(t, b.poll_timeout()));
        earliest(self.conns.poll_timeout(), browsers)
    }
}
