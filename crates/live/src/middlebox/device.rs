//! What the middlebox reads frames from and writes them to: one interface of the machine. The
//! bridge is written against this trait, so that its rules run on scripted frames in the tests
//! (an in-memory device) as on a real interface (`af_packet.rs`).

use std::io;
use std::os::fd::RawFd;

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
}
