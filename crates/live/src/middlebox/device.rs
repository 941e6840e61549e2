//! What the middlebox reads frames from and writes them to: one interface of the machine. The
//! bridge is written against this trait, so that its rules run on scripted frames in the tests
//! (an in-memory device) as on a real interface (`af_packet.rs`).

use std::io;
use std::os::fd::RawFd;

use super::batch::{Outgoing, Slots};

pub trait FrameDevice {
    /// The interface's name, for messages.
    fn name(&self) -> &str;
    /// The descriptor to wait on for frames, if the device has one (an in-memory device has none).
    fn raw_fd(&self) -> Option<RawFd>;
    /// The next frame received into `buf`, `None` when none is waiting. The length returned may
    /// exceed `buf` (a frame larger than it, cut): the caller does not forward such a frame.
    fn recv(&mut self, buf: &mut [u8]) -> io::Result<Option<usize>>;
    /// Sends one whole frame.
    fn send(&mut self, frame: &[u8]) -> io::Result<()>;
    /// Reads the frames waiting, as many as `slots` (emptied by the caller) has places for. By
    /// default one [`FrameDevice::recv`] each; a socket reads them in one call.
    fn recv_batch(&mut self, slots: &mut Slots) -> io::Result<()> {
        while let Some((place, bytes)) = slots.next_place() {
            let room = bytes.len();
            match self.recv(bytes)? {
                Some(n) => slots.filled(place, n.min(room), n),
                None => break,
            }
        }
        Ok(())
    }
    /// Sends frames `from..` of `out`, as many as one call takes: how many were sent (at least
    /// one), or the error of frame `from`, which was not sent. By default one
    /// [`FrameDevice::send`]; a socket sends them in one call.
    fn send_batch(&mut self, out: &Outgoing, from: usize) -> io::Result<usize> {
        self.send(out.frame(from)).map(|()| 1)
    }
}
